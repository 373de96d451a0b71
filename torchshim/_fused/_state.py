"""The eager mode switch and the fused mode's settings, read by the kernels' `jit` wrapper on every call."""
import os

__all__ = ["STATE", "MODES"]

MODES = ("op", "fused")


class _State:
    """fused: whether kernels record (fused eager mode); seg: the pending `_segment.Segment` or None;
    max_ops: a segment runs when it reaches this many ops; cache_size: programs kept (least recently used
    dropped); recompile_limit: a segment structure compiled for this many different shape signatures runs op
    by op from then on."""

    __slots__ = ("fused", "seg", "max_ops", "cache_size", "recompile_limit", "suspended")

    def __init__(self):
        self.fused = False
        self.seg = None
        self.suspended = 0
        self.max_ops = int(os.environ.get("TORCHSHIM_FUSED_MAX_OPS", "10000"))
        self.cache_size = int(os.environ.get("TORCHSHIM_FUSED_CACHE_SIZE", "256"))
        self.recompile_limit = int(os.environ.get("TORCHSHIM_FUSED_RECOMPILE_LIMIT", "8"))


STATE = _State()

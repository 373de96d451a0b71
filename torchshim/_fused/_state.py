"""The eager mode switch and the fused mode's settings, read by the kernels' `jit` wrapper on every call."""
import os

__all__ = ["STATE", "MODES", "CONCRETE_TYPES"]

MODES = ("op", "fused")
CONCRETE_TYPES = set()  # types seen to be concrete jax arrays (jaxlib's ArrayImpl), filled by the recorder


class _State:
    """fused: whether kernels record (fused eager mode); seg: the pending `_segment.Segment` or None;
    max_ops: a segment runs when it reaches this many ops; cache_size: programs kept (least recently used
    dropped); recompile_limit: a segment structure compiled for this many different shape signatures runs op
    by op from then on; donate: programs write their outputs into input arrays nothing else references
    (TORCHSHIM_FUSED_DONATE=0 turns it off)."""

    __slots__ = ("fused", "seg", "max_ops", "cache_size", "recompile_limit", "suspended", "donate")

    def __init__(self):
        self.fused = False
        self.seg = None
        self.suspended = 0
        self.max_ops = int(os.environ.get("TORCHSHIM_FUSED_MAX_OPS", "10000"))
        self.cache_size = int(os.environ.get("TORCHSHIM_FUSED_CACHE_SIZE", "256"))
        self.recompile_limit = int(os.environ.get("TORCHSHIM_FUSED_RECOMPILE_LIMIT", "8"))
        self.donate = os.environ.get("TORCHSHIM_FUSED_DONATE", "1").strip() not in ("0", "false", "off")


STATE = _State()

"""`torch.backends.mkldnn`: oneDNN's switches. `is_available()` True (PyTorch's x86 CPU build has oneDNN);
`enabled`, `deterministic` stored and read back; `allow_tf32` stays None with PyTorch's warning (TF32 on
oneDNN needs an Intel GPU). torchshim runs no oneDNN kernel: the flags change no result."""
import contextlib
import warnings

from ._props import bool_setter, flag_module, flags_context

__all__ = ["is_available", "set_flags", "flags", "VERBOSE_OFF", "VERBOSE_ON", "VERBOSE_ON_CREATION"]

VERBOSE_OFF, VERBOSE_ON, VERBOSE_ON_CREATION = 0, 1, 2
_state = {"enabled": True, "deterministic": False, "allow_tf32": None, "fp32_precision": "none"}


def is_available():
    """`torch.backends.mkldnn.is_available()`: True (as PyTorch's x86-64 CPU build)."""
    return True


def _set_tf32(value):
    if not isinstance(value, bool):
        raise RuntimeError(f"_set_onednn_allow_tf32 expects a bool, but got {type(value).__name__}")
    warnings.warn("TF32 acceleration on top of oneDNN is available for Intel GPUs. The current Torch version "
                  "does not have Intel GPU Support.", UserWarning, stacklevel=3)


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """`torch.backends.mkldnn.set_flags(...)`: set the given flags, return the previous
    (enabled, deterministic, allow_tf32, fp32_precision)."""
    old = (_state["enabled"], _state["deterministic"], _state["allow_tf32"], _state["fp32_precision"])
    if _enabled is not None:
        bool_setter(_state, "enabled", "set_enabled_mkldnn")(_enabled)
    if _deterministic is not None:
        bool_setter(_state, "deterministic", "set_deterministic_mkldnn")(_deterministic)
    if _allow_tf32 is not None:
        _set_tf32(_allow_tf32)
    return old


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """`torch.backends.mkldnn.flags(enabled=False, deterministic=False, allow_tf32=True, ...)`: the flags for
    the block."""
    with flags_context(set_flags, (enabled, deterministic, allow_tf32, fp32_precision)):
        yield


class verbose:
    """`torch.backends.mkldnn.verbose(level)`: oneDNN's verbose logging; a context manager that logs nothing
    here (no oneDNN primitive runs)."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


flag_module(__name__, {
    "enabled": (lambda: _state["enabled"], bool_setter(_state, "enabled", "set_enabled_mkldnn")),
    "deterministic": (lambda: _state["deterministic"],
                      bool_setter(_state, "deterministic", "set_deterministic_mkldnn")),
    "allow_tf32": (lambda: _state["allow_tf32"], _set_tf32),
})

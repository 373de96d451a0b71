"""`torch.backends.nnpack`: NNPACK's switch. `is_available()` True (PyTorch's x86-64 CPU build has NNPACK);
`set_flags` / `flags` store and read back the enabled flag. torchshim runs no NNPACK kernel: the flag
changes no result."""
import contextlib

from ._props import bool_setter, flags_context

__all__ = ["is_available", "flags", "set_flags"]

_state = {"enabled": True}


def is_available():
    """`torch.backends.nnpack.is_available()`: True (as PyTorch's x86-64 CPU build, built with NNPACK)."""
    return True


def set_flags(_enabled):
    """`torch.backends.nnpack.set_flags(_enabled)`: set whether NNPACK is enabled; returns the previous
    `(enabled,)`. A non-bool raises PyTorch's RuntimeError."""
    old = (_state["enabled"],)
    bool_setter(_state, "enabled", "set_enabled_NNPACK")(_enabled)
    return old


@contextlib.contextmanager
def flags(enabled=False):
    """`torch.backends.nnpack.flags(enabled=False)`: NNPACK enabled (or not) for the block."""
    with flags_context(set_flags, (enabled,)):
        yield

"""`torch.backends.miopen`: the MIOpen (ROCm) switch `immediate` (False by default), stored and read back
as in PyTorch's CPU build; `set_flags` / `flags`. No MIOpen kernel runs on this machine."""
import contextlib

from ._props import bool_setter, flag_module, flags_context

__all__ = ["set_flags", "flags"]

_state = {"immediate": False}
_set_immediate = bool_setter(_state, "immediate", "set_immediate_miopen")


def set_flags(_immediate=None):
    """`torch.backends.miopen.set_flags(_immediate=None)`: set the immediate-mode flag when given; returns
    the previous `(immediate,)`."""
    old = (_state["immediate"],)
    if _immediate is not None:
        _set_immediate(_immediate)
    return old


@contextlib.contextmanager
def flags(immediate=False):
    """`torch.backends.miopen.flags(immediate=False)`: the flag for the block, restored after."""
    with flags_context(set_flags, (immediate,)):
        yield


flag_module(__name__, {"immediate": (lambda: _state["immediate"], _set_immediate)})

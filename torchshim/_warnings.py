"""PyTorch's warn-once: the warnings its C++ core raises with `TORCH_WARN_ONCE` appear once per process,
unless `set_warn_always(True)`."""
import sys
import warnings

_SEEN = set()
_ALWAYS = [False]


def set_warn_always(b):
    """`torch.set_warn_always(b)`: True makes the warn-once warnings appear every time."""
    _ALWAYS[0] = bool(b)


def is_warn_always_enabled():
    """`torch.is_warn_always_enabled()`."""
    return _ALWAYS[0]


def warn_once(message, category=UserWarning, stacklevel=2):
    """`warnings.warn(message, category)` the first time this message is seen in the process, like
    `TORCH_WARN_ONCE` (every time under `set_warn_always(True)`). `stacklevel` counts from the caller."""
    if not _ALWAYS[0]:
        if message in _SEEN:
            return
        _SEEN.add(message)
    warnings.warn(message, category, stacklevel=stacklevel + 1)


def user_stacklevel():
    """The `stacklevel` (counted from the function calling this one) of the first frame outside torchshim:
    where PyTorch's warnings point (its Python wrappers pass a fixed `_stacklevel`; torchshim's public
    functions have a varying number of wrapper frames: keyword aliases, `__torch_function__`, autocast)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("torchshim"):
        frame, level = frame.f_back, level + 1
    return level

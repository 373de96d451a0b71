"""PyTorch's warn-once: the warnings its C++ core raises with `TORCH_WARN_ONCE` appear once per process,
unless `set_warn_always(True)`."""
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

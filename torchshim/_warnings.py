"""PyTorch's warn-once: the warnings its C++ core raises with `TORCH_WARN_ONCE` appear once per process."""
import warnings

_SEEN = set()


def warn_once(message, category=UserWarning, stacklevel=2):
    """`warnings.warn(message, category)` the first time this message is seen in the process, like
    `TORCH_WARN_ONCE`; later calls are silent. `stacklevel` counts from the caller of `warn_once`."""
    if message in _SEEN:
        return
    _SEEN.add(message)
    warnings.warn(message, category, stacklevel=stacklevel + 1)

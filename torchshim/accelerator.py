"""`torch.accelerator`: the device-generic accelerator API. torchshim's only accelerator is CUDA, present when
jax has a GPU backend (then these calls forward to `torch.cuda`); on a CPU-only machine `is_available()` is
False, `current_accelerator()` None, `device_count()` 0, and the rest raise PyTorch's RuntimeError ("Cannot
access accelerator device when none is available.").

Difference: the memory functions (`memory_allocated`, `memory_stats`, ...) are absent on CUDA too, since
jax manages device memory itself; on a CPU-only machine they raise PyTorch's error.
"""
import warnings

from . import _device as Dev
from . import cuda
from ._device_types import current_accelerator_type, no_accelerator
from ._streams import Stream

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream",
           "device_count", "device_index", "is_available", "set_device_idx", "set_device_index", "set_stream",
           "synchronize", "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_stats", "reset_peak_memory_stats", "reset_accumulated_memory_stats",
           "get_memory_info", "empty_host_cache"]


def _require():
    if current_accelerator_type() is None:
        no_accelerator()


def is_available():
    """`torch.accelerator.is_available() -> bool`: whether an accelerator (jax's GPU backend) is present."""
    return current_accelerator_type() is not None


def current_accelerator(check_available=False):
    """`torch.accelerator.current_accelerator(check_available=False) -> torch.device | None`."""
    t = current_accelerator_type()
    return None if t is None else Dev.device(t)


def device_count():
    """`torch.accelerator.device_count() -> int`: the accelerator's device count (0 without one)."""
    return cuda.device_count() if is_available() else 0


def current_device_index():
    """`torch.accelerator.current_device_index() -> int`."""
    _require()
    return cuda.current_device()


def current_device_idx():
    """Deprecated alias of `current_device_index` (FutureWarning, as in PyTorch)."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def _index(device):
    if device is None:
        return None
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    return Dev.device(device).index


def set_device_index(device, /):
    """`torch.accelerator.set_device_index(device)`: a negative index is ignored, as in PyTorch."""
    idx = _index(device)
    if idx is not None and idx < 0:
        return
    _require()
    cuda.set_device(idx)


def set_device_idx(device, /):
    """Deprecated alias of `set_device_index` (FutureWarning, as in PyTorch)."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


class device_index:
    """`torch.accelerator.device_index(device)`: context manager selecting the current device index; None
    does nothing."""

    def __init__(self, device, /):
        self.idx = _index(device)
        self.prev = None

    def __enter__(self):
        if self.idx is not None:
            _require()
            self.prev = cuda.current_device()
            cuda.set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev is not None:
            cuda.set_device(self.prev)
        return False


def current_stream(device=None, /):
    """`torch.accelerator.current_stream(device=None) -> torch.Stream`."""
    _require()
    return Stream(Dev.device("cuda", _index(device) or 0))


def set_stream(stream):
    """`torch.accelerator.set_stream(stream)`: there is one stream per device; accepted."""
    _require()


def synchronize(device=None, /):
    """`torch.accelerator.synchronize(device=None)`: wait for the accelerator's pending work."""
    _require()
    cuda.synchronize(device)


def empty_cache():
    """`torch.accelerator.empty_cache()`: jax manages its memory pool; accepted with an accelerator."""
    _require()
    cuda.empty_cache()


def empty_host_cache():
    """`torch.accelerator.empty_host_cache()`: accepted with an accelerator."""
    _require()


def _memory(name):
    def fn(device_index=None, /):
        _require()
        raise NotImplementedError(f"torch.accelerator.{name} is not supported by torchshim: jax manages "
                                  f"device memory itself")
    fn.__name__ = name
    fn.__doc__ = (f"`torch.accelerator.{name}(device_index=None)`: PyTorch's RuntimeError without an "
                  f"accelerator; NotImplementedError with one (jax manages device memory).")
    return fn


memory_allocated = _memory("memory_allocated")
max_memory_allocated = _memory("max_memory_allocated")
memory_reserved = _memory("memory_reserved")
max_memory_reserved = _memory("max_memory_reserved")
memory_stats = _memory("memory_stats")
reset_peak_memory_stats = _memory("reset_peak_memory_stats")
reset_accumulated_memory_stats = _memory("reset_accumulated_memory_stats")
get_memory_info = _memory("get_memory_info")

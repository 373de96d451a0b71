"""torch.cuda: real only when jax has a GPU backend. Tensors on 'cuda:i' live on jax's i-th gpu device."""
from .. import _device as Dev
from .. import _fused
from ..ops.legacy_types import CUDA_TYPES
from . import memory  # noqa: F401
from .memory import *  # noqa: F401,F403  (memory_allocated, max_memory_allocated, ...)
from ._streams import (  # noqa: F401
    Event, Stream, StreamContext, current_stream, default_stream, set_stream, stream)

globals().update(CUDA_TYPES)


def is_available():
    """`torch.cuda.is_available()`: True only when jax has a GPU backend."""
    return bool(Dev.gpu_devices())


def device_count():
    """`torch.cuda.device_count()`: the number of jax gpu devices."""
    return len(Dev.gpu_devices())


def current_device():
    """`torch.cuda.current_device()`."""
    if not is_available():
        Dev._no_cuda()
    return Dev.current_cuda_index()


def set_device(device):
    """`torch.cuda.set_device(device)`."""
    idx = device if isinstance(device, int) else Dev.canonical(device).index
    if idx is not None and idx >= 0:
        if not is_available():
            Dev._no_cuda()
        Dev.set_current_cuda_index(idx)


def is_initialized():
    return is_available()


def init():
    if not is_available():
        Dev._no_cuda()


def synchronize(device=None):
    """`torch.cuda.synchronize(device=None)`: waits until the device's queued work is done (jax's
    `effects_barrier` and every live array on that device ready)."""
    if not is_available():
        Dev._no_cuda()
    _fused.step_boundary("torch.cuda.synchronize()")  # fused eager mode: run what is pending first
    import jax
    jax.effects_barrier()
    gpu = Dev.gpu_devices()[Dev.current_cuda_index() if device is None else memory._index(device)]
    for a in jax.live_arrays():
        if gpu in a.devices():
            a.block_until_ready()


def manual_seed(seed):
    """`torch.cuda.manual_seed(seed)`: torchshim has one generator for all devices; accepted."""
    from .._random import manual_seed as _ms
    _ms(seed)


manual_seed_all = manual_seed


def get_device_properties(device=None):
    """`torch.cuda.get_device_properties(device) -> _CudaDeviceProperties`: name, total_memory (jax's
    `bytes_limit`), major/minor (the compute capability jax reports), multi_processor_count (core_count)."""
    if not is_available():
        Dev._no_cuda()
    i = memory._index(device)
    d = Dev.gpu_devices()[i]
    return _Props(d, (d.memory_stats() or {}).get("bytes_limit", 0))


class _Props:
    """`torch.cuda._CudaDeviceProperties`."""

    def __init__(self, d, total):
        self.name = d.device_kind
        self.total_memory = int(total)
        cc = str(getattr(d, "compute_capability", "0.0"))
        self.major, self.minor = (int(v) for v in (cc.split(".") + ["0"])[:2])
        self.multi_processor_count = int(getattr(d, "core_count", 0) or 0)
        self.is_integrated = False
        self.is_multi_gpu_board = False

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_capability(device=None):
    """`torch.cuda.get_device_capability(device=None) -> (major, minor)`."""
    p = get_device_properties(device)
    return p.major, p.minor


def is_bf16_supported(including_emulation=True):
    """`torch.cuda.is_bf16_supported()`: True on a GPU (XLA supports bfloat16), False without one."""
    return is_available()


def get_arch_list():
    """`torch.cuda.get_arch_list()`: [] (no CUDA toolkit is linked; XLA compiles for the device it finds)."""
    return []


def get_device_name(device=None):
    if not is_available():
        Dev._no_cuda()
    return Dev.gpu_devices()[device if isinstance(device, int) else 0].device_kind


def empty_cache():
    """Accepted; jax manages its own memory pool."""


class device:
    """`torch.cuda.device(idx)`: context manager that changes the current cuda device."""

    def __init__(self, device):
        self.idx = device if isinstance(device, int) else (-1 if device is None else Dev.device(device).index)
        self.prev = -1

    def __enter__(self):
        if self.idx is not None and self.idx >= 0:
            self.prev = current_device()
            set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.prev >= 0:
            set_device(self.prev)
        return False


class device_of(device):
    """`torch.cuda.device_of(tensor)`."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)

"""torch.cuda: real only when jax has a GPU backend. Tensors on 'cuda:i' live on jax's i-th gpu device."""
from .. import _device as Dev
from ..ops.legacy_types import CUDA_TYPES

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
    """`torch.cuda.synchronize()`: waits for jax's pending work (effects_barrier)."""
    import jax
    jax.effects_barrier()


def manual_seed(seed):
    """`torch.cuda.manual_seed(seed)`: torchshim has one generator for all devices; accepted."""
    from .._random import manual_seed as _ms
    _ms(seed)


manual_seed_all = manual_seed


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

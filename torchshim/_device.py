"""torch.device and its map to jax devices: 'cpu' -> jax's cpu device, 'cuda:i' -> jax's i-th gpu device."""
import functools

import jax

__all__ = ["device"]


class device:
    """`torch.device(type, index=None)` or `torch.device('cuda:1')` or `torch.device(1)` (cuda:1)."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type.__name__})")
        if ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed "
                                   f"explicitly: {type}")
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda", "meta", "xla", "mps"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device "
                f"string: {type}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = type, index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        _default_device_stack.append(self)
        return self

    def __exit__(self, *exc):
        _default_device_stack.pop()


CPU = device("cpu")
_default_device_stack = []


@functools.lru_cache(maxsize=None)
def gpu_devices():
    """This process's jax gpu devices (empty on a CPU-only machine; under torch.distributed, only the local
    ones: torch.distributed clears this cache when it starts or stops the multi-process runtime)."""
    try:
        return tuple(jax.local_devices(backend="gpu"))
    except RuntimeError:
        return ()


@functools.lru_cache(maxsize=None)
def cpu_jax_device():
    """This process's jax cpu device (cached; torch.distributed clears the cache when the runtime changes)."""
    return jax.local_devices(backend="cpu")[0]


def _no_cuda():
    raise AssertionError("Torch not compiled with CUDA enabled")


def canonical(d):
    """Normalise a device argument (str, int, device, None) to a torch.device with an index for cuda.

    None means the current default device (`torch.set_default_device`, a `with torch.device(...)` block, or
    cpu).
    """
    if d is None:
        if _default_device_stack:
            return canonical(_default_device_stack[-1])
        return _default_device[0]
    if d is CPU:
        return CPU
    if not isinstance(d, device):
        d = device(d)
    if d.type == "cpu":
        return CPU
    if d.type == "cuda":
        gpus = gpu_devices()
        if not gpus:
            _no_cuda()
        idx = current_cuda_index() if d.index is None else d.index
        if idx >= len(gpus):
            raise RuntimeError("CUDA error: invalid device ordinal")
        return _cuda_device(idx)
    if d.type == "meta":
        raise NotImplementedError("torchshim has no meta device")
    raise RuntimeError(f"torchshim supports the cpu and cuda devices, not {d.type}")


@functools.lru_cache(maxsize=None)
def _cuda_device(i):
    return device("cuda", i)


def to_jax(d):
    """The jax device for a canonical torch device."""
    if d.type == "cpu":
        return cpu_jax_device()
    return gpu_devices()[d.index]


_current_cuda = [0]
_default_device = [CPU]


def current_cuda_index():
    return _current_cuda[0]


def set_current_cuda_index(i):
    _current_cuda[0] = i


def set_default_device(d):
    """`torch.set_default_device(device)`: the device factory functions use when given none."""
    _default_device[0] = CPU if d is None else canonical(d)


def get_default_device():
    """`torch.get_default_device()`."""
    return canonical(None)


def jax_default_is_cpu():
    return jax.devices()[0].platform == "cpu"


def of_array(arr):
    """The torch device of a concrete jax array (cpu for tracers and numpy arrays)."""
    try:
        devs = arr.devices()
    except Exception:
        return CPU
    if len(devs) != 1:
        return CPU
    (d,) = devs
    if d.platform == "cpu":
        return CPU
    return _cuda_device(gpu_devices().index(d))

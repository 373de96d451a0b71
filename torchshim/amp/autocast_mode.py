"""`torch.autocast` / `torch.amp.autocast` and the `torch.*` autocast state functions, over the per-thread
state of `ops/_autocast.py` (whose hook on the op table does the casting).

Difference from PyTorch: no cast cache. PyTorch keeps the casts of leaf tensors that require grad (the
weights) for the autocast region; torchshim casts them again at each use (same values, more work).
`clear_autocast_cache()` has nothing to clear; `cache_enabled` is stored and read back.
"""
import functools
import warnings

from .. import _api as torch
from .. import _dtype as D
from ..cuda import is_available as _cuda_available
from ..ops import _autocast as S

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "is_autocast_enabled",
           "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cache_enabled",
           "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
           "autocast_decrement_nesting", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled",
           "get_autocast_cpu_dtype", "set_autocast_cpu_dtype", "get_autocast_gpu_dtype",
           "set_autocast_gpu_dtype"]

_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
                 "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


def _check_device_type(device_type, fn):
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    if device_type.partition(":")[0] not in _DEVICE_TYPES:
        raise RuntimeError("Expected one of " + ", ".join(_DEVICE_TYPES) + " device type at start of device "
                           f"string: {device_type}")
    return device_type.partition(":")[0]


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning,
                  stacklevel=3)


def is_autocast_available(device_type: str) -> bool:
    """`torch.amp.is_autocast_available(device_type)`: True for the device types PyTorch's autocast knows
    (cpu, cuda, ...), RuntimeError for an unknown one."""
    return _check_device_type(device_type, "_is_autocast_available") in (
        "cpu", "cuda", "xpu", "ipu", "hpu", "xla", "mps", "mtia", "maia", "privateuseone")


def is_autocast_enabled(device_type=None):
    """`torch.is_autocast_enabled(device_type=None)`: no argument means 'cuda', as in PyTorch."""
    if device_type is None:
        return S.is_enabled("cuda")
    return S.is_enabled(_check_device_type(device_type, "is_autocast_enabled"))


def set_autocast_enabled(*args):
    """`torch.set_autocast_enabled(device_type, enabled)` or `torch.set_autocast_enabled(enabled)` (cuda)."""
    device_type, enabled = ("cuda", *args) if len(args) == 1 else args
    device_type = _check_device_type(device_type, "set_autocast_enabled")
    if not isinstance(enabled, bool):
        raise TypeError("set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not "
                        f"{type(enabled).__name__}")
    S.set_enabled(device_type, enabled)


def get_autocast_dtype(*args):
    """`torch.get_autocast_dtype(device_type)`: bfloat16 for cpu, float16 for cuda unless set."""
    if not args:
        raise TypeError('get_autocast_dtype() missing 1 required positional arguments: "device_type"')
    return S.get_dtype(_check_device_type(args[0], "get_autocast_dtype"))


def set_autocast_dtype(device_type, dtype):
    """`torch.set_autocast_dtype(device_type, dtype)`."""
    if not isinstance(dtype, D.dtype):
        raise TypeError("set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    S.set_dtype(_check_device_type(device_type, "set_autocast_dtype"), dtype)


def is_autocast_cache_enabled():
    """`torch.is_autocast_cache_enabled()`: the stored flag (torchshim keeps no cast cache)."""
    return S.state()["cache"]


def set_autocast_cache_enabled(enabled):
    """`torch.set_autocast_cache_enabled(enabled)`: stored (torchshim keeps no cast cache)."""
    S.state()["cache"] = bool(enabled)


def clear_autocast_cache():
    """`torch.clear_autocast_cache()`: nothing is cached in torchshim."""


def autocast_increment_nesting():
    """`torch.autocast_increment_nesting() -> int`: the new nesting depth."""
    S.state()["depth"] += 1
    return S.state()["depth"]


def autocast_decrement_nesting():
    """`torch.autocast_decrement_nesting() -> int`: the new nesting depth (may go negative, as PyTorch's)."""
    S.state()["depth"] -= 1
    return S.state()["depth"]


def is_autocast_cpu_enabled():
    """`torch.is_autocast_cpu_enabled()` (deprecated)."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return S.is_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    """`torch.set_autocast_cpu_enabled(enabled)` (deprecated)."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """`torch.get_autocast_cpu_dtype()` (deprecated)."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return S.get_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    """`torch.set_autocast_cpu_dtype(dtype)` (deprecated)."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    """`torch.get_autocast_gpu_dtype()` (deprecated)."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return S.get_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    """`torch.set_autocast_gpu_dtype(dtype)` (deprecated)."""
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


class autocast:
    """`torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)`: a context manager (and
    decorator) under which the ops of PyTorch's autocast lists run in `dtype` (lower-precision list), float32
    (fp32 list) or the widest input type (promote list). device_type 'cuda' without a GPU warns and disables
    itself, as PyTorch does; CPU autocast accepts bfloat16 and float16 only (else warns and disables)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        self.custom_backend_name = "privateuseone"
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if self.device == "cuda":
            if enabled and not _cuda_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                              stacklevel=2)
                enabled = False
        elif self.device == "cpu":
            if enabled and self.fast_dtype not in (D.bfloat16, D.float16):
                warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                              "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                              stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast(value, device_type, dtype):
    if isinstance(value, torch.Tensor):
        ok = value.is_floating_point() and value.device.type == device_type and value.dtype is not D.float64
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """`torch.amp.custom_fwd(fwd=None, *, device_type, cast_inputs=None)`: decorator for a custom Function's
    forward; with cast_inputs, floating inputs are cast to it and the forward runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """`torch.amp.custom_bwd(bwd=None, *, device_type)`: the backward runs with the forward's autocast
    state."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd

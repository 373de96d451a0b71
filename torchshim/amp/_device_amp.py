"""The deprecated per-device spellings `torch.cuda.amp` and `torch.cpu.amp` (autocast, GradScaler,
custom_fwd/custom_bwd), each warning as PyTorch does and forwarding to `torch.amp`."""
import functools
import warnings

from .. import _dtype as D
from . import autocast_mode as _am
from . import grad_scaler as _gs

__all__ = ["CudaAutocast", "CpuAutocast", "CudaGradScaler", "CpuGradScaler", "cuda_custom_fwd",
           "cuda_custom_bwd"]


class CudaAutocast(_am.autocast):
    """`torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)` (deprecated):
    `torch.amp.autocast('cuda', ...)`."""

    def __init__(self, enabled=True, dtype=D.float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CpuAutocast(_am.autocast):
    """`torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)` (deprecated):
    `torch.amp.autocast('cpu', ...)`."""

    def __init__(self, enabled=True, dtype=D.bfloat16, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CudaGradScaler(_gs.GradScaler):
    """`torch.cuda.amp.GradScaler(...)` (deprecated): `torch.amp.GradScaler('cuda', ...)`."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class CpuGradScaler(_gs.GradScaler):
    """`torch.cpu.amp.GradScaler(...)` (deprecated): `torch.amp.GradScaler('cpu', ...)`."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    """`torch.cuda.amp.custom_fwd(fwd=None, *, cast_inputs=None)` (deprecated)."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return functools.partial(_am.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def cuda_custom_bwd(bwd):
    """`torch.cuda.amp.custom_bwd(bwd)` (deprecated)."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return functools.partial(_am.custom_bwd, device_type="cuda")(bwd)

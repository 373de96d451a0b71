"""`torch.backends.cuda`: CUDA's switches on a machine without CUDA (PyTorch's CPU build). `is_built()` is
False; `matmul.allow_tf32` is the float32 matmul precision seen as a bool (True = 'high', False = 'highest',
as in PyTorch) and is applied to jax's default matmul precision; the reduced-precision-reduction flags and the
scaled-dot-product-attention backend switches are stored and read back (torchshim's attention is one XLA
kernel whichever backends are enabled; so is PyTorch's math path on CPU)."""
import contextlib
import enum
import warnings

from .. import _global_flags as _g
from .._props import bool_setter

__all__ = ["is_built", "matmul", "cuBLASModule", "SDPBackend", "preferred_linalg_library",
           "preferred_blas_library", "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled",
           "enable_cudnn_sdp", "fp16_bf16_reduction_math_sdp_allowed", "allow_fp16_bf16_reduction_math_sdp",
           "sdp_kernel", "is_flash_attention_available"]


def is_built():
    """`torch.backends.cuda.is_built()`: False (PyTorch built without CUDA, as here)."""
    return False


def _reduction_setter(name):
    def set_(value):
        if isinstance(value, (tuple, list)) and all(isinstance(v, bool) for v in value):
            value = value[0]
        elif not isinstance(value, bool):
            raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
        _reduced[name] = value
    return set_


_reduced = {"allow_fp16_reduced_precision_reduction": True, "allow_bf16_reduced_precision_reduction": True}


def _set_tf32(value):
    if not isinstance(value, bool):
        raise RuntimeError(f"set_allow_tf32_cublas expects a bool, but got {type(value).__name__}")
    _g.set_float32_matmul_precision("high" if value else "highest")


class cuBLASModule:
    """`torch.backends.cuda.matmul`: `allow_tf32` (float32 matmul precision != 'highest'),
    `allow_fp16_reduced_precision_reduction`, `allow_bf16_reduced_precision_reduction` (stored)."""

    _PROPS = {"allow_tf32": (lambda: _g.get_float32_matmul_precision() != "highest", _set_tf32)}
    _PROPS.update({k: ((lambda k=k: _reduced[k]), _reduction_setter(k)) for k in _reduced})

    def __getattr__(self, name):
        if name in cuBLASModule._PROPS:
            return cuBLASModule._PROPS[name][0]()
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name in cuBLASModule._PROPS:
            return cuBLASModule._PROPS[name][1](value)
        raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()


class _LinalgBackend(enum.Enum):
    Default = 0
    Cusolver = 1
    Magma = 2


class _BlasBackend(enum.Enum):
    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3


_LINALG = {"default": _LinalgBackend.Default, "cusolver": _LinalgBackend.Cusolver,
           "magma": _LinalgBackend.Magma}
_prefs = {"linalg": _LinalgBackend.Default}


def preferred_linalg_library(backend=None):
    """`torch.backends.cuda.preferred_linalg_library(backend=None)`: the preferred CUDA linear-algebra
    library; only 'default' is accepted without CUDA (PyTorch's RuntimeError for cusolver/magma)."""
    if backend is None:
        return _prefs["linalg"]
    if isinstance(backend, str):
        if backend not in _LINALG:
            raise RuntimeError("Unknown input value. Choose from: default, cusolver, magma.")
        backend = _LINALG[backend]
    elif not isinstance(backend, _LinalgBackend):
        raise RuntimeError("Unknown input value type.")
    if backend is _LinalgBackend.Cusolver:
        raise RuntimeError("Cannot set preferred backend to cuSOLVER if PyTorch has not been compiled with "
                           "cuSOLVER.")
    if backend is _LinalgBackend.Magma:
        raise RuntimeError("Cannot set preferred backend to MAGMA if PyTorch has not been compiled with "
                           "MAGMA.")
    _prefs["linalg"] = backend
    return backend


def preferred_blas_library(backend=None):
    """`torch.backends.cuda.preferred_blas_library(backend=None)`: cuBLAS, the value a CPU build reports
    (no CUDA BLAS runs here, so setting another raises)."""
    if backend is None or backend in ("cublas", _BlasBackend.Cublas):
        return _BlasBackend.Cublas
    raise RuntimeError("Cannot set preferred BLAS backend: PyTorch (torchshim) has no CUDA BLAS library.")


def __getattr__(name):
    """`torch.backends.cuda.SDPBackend` is `torch.nn.attention.SDPBackend`, as in PyTorch (read lazily:
    nn.attention imports this module)."""
    if name == "SDPBackend":
        from ...nn.attention import SDPBackend
        return SDPBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True, "fp16_bf16_reduction": False}


def flash_sdp_enabled():
    """`torch.backends.cuda.flash_sdp_enabled()`."""
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool):
    """`torch.backends.cuda.enable_flash_sdp(enabled)`: stored (no flash kernel here)."""
    bool_setter(_sdp, "flash", "set_sdp_use_math")(enabled)


def mem_efficient_sdp_enabled():
    """`torch.backends.cuda.mem_efficient_sdp_enabled()`."""
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool):
    """`torch.backends.cuda.enable_mem_efficient_sdp(enabled)`: stored."""
    bool_setter(_sdp, "mem_efficient", "set_sdp_use_math")(enabled)


def math_sdp_enabled():
    """`torch.backends.cuda.math_sdp_enabled()`."""
    return _sdp["math"]


def enable_math_sdp(enabled: bool):
    """`torch.backends.cuda.enable_math_sdp(enabled)`: stored (torchshim's attention is always the math
    computation, as one XLA kernel)."""
    bool_setter(_sdp, "math", "set_sdp_use_math")(enabled)


def cudnn_sdp_enabled():
    """`torch.backends.cuda.cudnn_sdp_enabled()`."""
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool):
    """`torch.backends.cuda.enable_cudnn_sdp(enabled)`: stored."""
    if not isinstance(enabled, bool):  # PyTorch's message, its stray "%s" included
        raise RuntimeError(f"set_sdp_use_cudnn expects a bool, but got %s{type(enabled).__name__}")
    _sdp["cudnn"] = enabled


def fp16_bf16_reduction_math_sdp_allowed():
    """`torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()`."""
    return _sdp["fp16_bf16_reduction"]


def allow_fp16_bf16_reduction_math_sdp(enabled: bool):
    """`torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(enabled)`: stored."""
    bool_setter(_sdp, "fp16_bf16_reduction", "set_sdp_use_math")(enabled)


def is_flash_attention_available():
    """`torch.backends.cuda.is_flash_attention_available()`: False (no CUDA)."""
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True):
    """`torch.backends.cuda.sdp_kernel(...)` (deprecated in PyTorch, with its FutureWarning): set the four
    switches for the block, restore them after."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
                  "will "
                  "be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, "
                  "with "
                  "updated signature.", FutureWarning, stacklevel=3)
    old = dict(_sdp)
    try:
        enable_flash_sdp(enable_flash)
        enable_math_sdp(enable_math)
        enable_mem_efficient_sdp(enable_mem_efficient)
        enable_cudnn_sdp(enable_cudnn)
        yield
    finally:
        _sdp.update(old)

"""The process-wide switches PyTorch keeps in its global context, exposed as `torch.*` functions:
deterministic algorithms, float32 matmul precision, thread counts, denormal flushing and the build flags
(`torch.has_lapack`, ...).

Flags are stored and read back with PyTorch's validation and messages. Those with a JAX meaning are applied:
the float32 matmul precision (kept in the base module `torchshim/_precision.py`) sets jax's
`jax_default_matmul_precision` ('highest' -> 'float32', 'high' -> 'tensorfloat32', 'medium' -> 'bfloat16'),
which torchshim's product kernels read. Thread counts are stored only (XLA's CPU thread pool is sized
once, at start-up; docs/differences.md).
"""
import os
import warnings

from .. import _precision

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_float32_matmul_precision", "get_float32_matmul_precision",
           "set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
           "init_num_threads", "set_flush_denormal", "compiled_with_cxx11_abi", "has_lapack", "has_mkl",
           "has_openmp", "has_spectral"]

# build facts of the PyTorch CPU wheel torchshim stands in for (what torch 2.13 reports on x86-64 Linux)
has_lapack = True
has_mkl = True
has_openmp = True
has_spectral = True

_state = {"deterministic": False, "warn_only": False, "threads": None,
          "interop": None, "interop_set": False}


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _check_bool(value, fn, arg, pos=None):
    if not isinstance(value, bool):
        where = f" (position {pos})" if pos else ""
        raise TypeError(f"{fn}(): argument '{arg}'{where} must be bool, not {type(value).__name__}")


# ---- deterministic algorithms --------------------------------------------------------------------------
def use_deterministic_algorithms(mode, *, warn_only=False):
    """`torch.use_deterministic_algorithms(mode: bool, *, warn_only: bool = False)`. Stored and read back.
    Difference: torchshim's kernels (XLA on CPU) are deterministic already, so no op raises or warns for
    being nondeterministic."""
    _check_bool(mode, "_set_deterministic_algorithms", "mode", 1)
    _check_bool(warn_only, "_set_deterministic_algorithms", "warn_only")
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled():
    """`torch.are_deterministic_algorithms_enabled() -> bool`."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """`torch.is_deterministic_algorithms_warn_only_enabled() -> bool`."""
    return _state["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """`torch.set_deterministic_debug_mode(debug_mode: str | int)`: 'default'/0 (off), 'warn'/1
    (deterministic,
    warn only), 'error'/2 (deterministic)."""
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = names[debug_mode]
    elif not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    _state["deterministic"], _state["warn_only"] = debug_mode != 0, debug_mode == 1


def get_deterministic_debug_mode():
    """`torch.get_deterministic_debug_mode() -> int`: 0, 1 (warn) or 2 (error)."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


# ---- float32 matmul precision --------------------------------------------------------------------------
def set_float32_matmul_precision(precision):
    """`torch.set_float32_matmul_precision(precision: str)`: 'highest', 'high' or 'medium'; any other string
    warns and changes nothing, as in PyTorch. Applied to jax's `jax_default_matmul_precision` (float32,
    tensorfloat32, bfloat16) and to torchshim's float32/complex64 products (matmul family, linear, einsum,
    cdist, RNN cells, conv_tbc, affine_grid) as Precision.HIGHEST / HIGH / DEFAULT; float64 and half types
    stay at HIGHEST, and convolutions are not affected (in PyTorch cudnn/mkldnn `conv.fp32_precision` govern
    them). On CPU, XLA computes float32 products in full precision whatever the setting."""
    if precision not in _precision.NAMES:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _precision.set_name(precision)


def get_float32_matmul_precision():
    """`torch.get_float32_matmul_precision() -> str`: 'highest' (the default), 'high' or 'medium'."""
    return _precision.name()


# ---- threads ---------------------------------------------------------------------------------------------
def _check_threads(n, fn):
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"{fn} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{fn} expects a positive integer")


def set_num_threads(int):  # noqa: A002  (PyTorch's parameter name)
    """`torch.set_num_threads(int)`: the intra-op thread count. Stored and read back; XLA's CPU thread pool
    is not resized (it is fixed when jax starts; XLA_FLAGS sets it)."""
    _check_threads(int, "set_num_threads")
    _state["threads"] = int


def get_num_threads():
    """`torch.get_num_threads() -> int`: the value set, else the number of CPU cores this process may use."""
    return _state["threads"] if _state["threads"] is not None else _cores()


def set_num_interop_threads(int):  # noqa: A002
    """`torch.set_num_interop_threads(int)`: allowed once per process, as in PyTorch. Stored only."""
    _check_threads(int, "set_num_interop_threads")
    if _state["interop_set"]:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state["interop"], _state["interop_set"] = int, True


def get_num_interop_threads():
    """`torch.get_num_interop_threads() -> int`: the value set, else the number of CPU cores."""
    return _state["interop"] if _state["interop"] is not None else _cores()


def init_num_threads():
    """`torch.init_num_threads()`: returns None (PyTorch initialises OpenMP's count for the calling thread;
    nothing to do here)."""
    return None


# ---- misc ------------------------------------------------------------------------------------------------
def set_flush_denormal(mode):
    """`torch.set_flush_denormal(mode: bool) -> bool`: True where the CPU supports flush-to-zero (x86 with
    SSE3, as PyTorch reports). Difference: XLA's CPU kernels keep their own denormal mode, so the setting is
    not applied to computations."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    import platform
    return platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


def compiled_with_cxx11_abi():
    """`torch.compiled_with_cxx11_abi() -> bool`: True, as PyTorch 2.13's wheels report."""
    return True

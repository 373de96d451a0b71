"""`torch.backends.cudnn`: cuDNN's switches. torchshim has no cuDNN (nor does a CPU PyTorch build):
`is_available()` is False, `version()` None, `is_acceptable(t)` False; `benchmark`, `deterministic`,
`enabled`, `allow_tf32`, `benchmark_limit` are stored and read back with PyTorch's checks and CPU-build
defaults. They change no torchshim result (no cuDNN kernel runs), which is also true of PyTorch on CPU."""
import contextlib

from .._props import bool_setter, flag_module, flags_context

__all__ = ["version", "is_available", "is_acceptable", "set_flags", "flags"]

_state = {"enabled": True, "benchmark": False, "benchmark_limit": None, "deterministic": False,
          "allow_tf32": True, "fp32_precision": "none", "depthwise_kernel": "auto"}


def version():
    """`torch.backends.cudnn.version()`: None (no cuDNN)."""
    return None


def is_available():
    """`torch.backends.cudnn.is_available()`: False (no cuDNN)."""
    return False


def is_acceptable(tensor):
    """`torch.backends.cudnn.is_acceptable(tensor)`: whether cuDNN could run on `tensor`; False here."""
    return False


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None, _allow_tf32=None,
              _fp32_precision="none", _depthwise_kernel=None):
    """`torch.backends.cudnn.set_flags(...)`: set the given flags (None = unchanged), return the previous
    (enabled, benchmark, benchmark_limit, deterministic, allow_tf32, fp32_precision, depthwise_kernel).
    As in a CPU build, `benchmark_limit` stays None."""
    s = _state
    old = (s["enabled"], s["benchmark"], s["benchmark_limit"], s["deterministic"], s["allow_tf32"],
           s["fp32_precision"], s["depthwise_kernel"])
    for key, value, fn in (("enabled", _enabled, "set_enabled_cudnn"),
                           ("benchmark", _benchmark, "set_benchmark_cudnn"),
                           ("deterministic", _deterministic, "set_deterministic_cudnn"),
                           ("allow_tf32", _allow_tf32, "set_allow_tf32_cublas")):
        if value is not None:
            bool_setter(s, key, fn)(value)
    if _depthwise_kernel is not None:
        s["depthwise_kernel"] = _depthwise_kernel
    return old


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """`torch.backends.cudnn.flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
    allow_tf32=True, ...)`: a context manager setting the flags for its block."""
    with flags_context(set_flags, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32,
                                   fp32_precision, depthwise_kernel)):
        yield


def _setter(key, fn):
    return bool_setter(_state, key, fn)


flag_module(__name__, {
    "enabled": (lambda: _state["enabled"], _setter("enabled", "set_enabled_cudnn")),
    "benchmark": (lambda: _state["benchmark"], _setter("benchmark", "set_benchmark_cudnn")),
    "deterministic": (lambda: _state["deterministic"], _setter("deterministic", "set_deterministic_cudnn")),
    "allow_tf32": (lambda: _state["allow_tf32"], _setter("allow_tf32", "set_allow_tf32_cublas")),
    # stored when set directly; set_flags/flags leave it alone, as a CPU build does
    "benchmark_limit": (lambda: _state["benchmark_limit"],
                        lambda v: _state.__setitem__("benchmark_limit", v)),
})

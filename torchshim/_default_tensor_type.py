"""`torch.set_default_tensor_type(t)` (deprecated since PyTorch 2.1): sets the default floating-point dtype
from a legacy tensor type (`torch.DoubleTensor`) or its name (`"torch.DoubleTensor"`)."""
from . import _api, cuda
from ._warnings import warn_once
from .ops.legacy_types import _LegacyMeta

__all__ = ["set_default_tensor_type"]

_DEPRECATED = ("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
               "torch.set_default_dtype() and torch.set_default_device() as alternatives. (Triggered "
               "internally "
               "at /__w/pytorch/pytorch/torch/csrc/tensor/python_tensor.cpp:434.)")


def _resolve(name):
    parts = name.split(".")
    if parts[0] != "torch" or len(parts) < 2:
        raise ValueError(f"invalid type: '{name}'")
    obj, where = (cuda, "torch.cuda") if parts[1] == "cuda" and len(parts) > 2 else (_api, "torch")
    attr = parts[-1]
    if not hasattr(obj, attr):
        raise AttributeError(f"module '{where}' has no attribute '{attr}'")
    return getattr(obj, attr)


def set_default_tensor_type(t, /):
    """`torch.set_default_tensor_type(t)`: `t` a floating-point legacy type or its name. Sets the default
    dtype (what `torch.tensor(1.)`, `torch.Tensor(2)` and factories use); a CUDA type also makes CUDA the
    default device, and raises PyTorch's TypeError when CUDA is not available. Warns once that it is
    deprecated, as PyTorch does.
    Difference: the type is stored as a default dtype and device (PyTorch keeps a default tensor type)."""
    if isinstance(t, str):
        t = _resolve(t)
    warn_once(_DEPRECATED, UserWarning, stacklevel=2)
    if not isinstance(t, _LegacyMeta):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if t._device_type == "cuda":
        if not cuda.is_available():
            raise TypeError(f"type torch.cuda.{t.__name__} not available. Torch not compiled with CUDA "
                            "enabled.")
        _api.set_default_device("cuda")
    _api.set_default_dtype(t.dtype)

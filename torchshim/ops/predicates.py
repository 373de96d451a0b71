"""`torch.*` constants and predicates on tensors (`torch.pi`, `torch.is_tensor`, `torch.numel`, ...) and the
Tensor attributes that only describe a tensor (`is_xla`, `name`, `output_nr`, `dim_order()`, ...).

`_api.py` exports `__all__`; the Tensor methods register in `_methods.METHODS`.
"""
import math
import warnings

from .._methods import add_tensor_method, tensor_method
from .._storage import Storage, UntypedStorage
from .._tensor import Tensor
from ..autograd import grad_mode

__all__ = ["pi", "e", "inf", "nan", "newaxis", "is_tensor", "is_storage", "is_floating_point", "is_complex",
           "is_signed", "is_nonzero", "is_same_size", "is_inference", "is_inference_mode_enabled", "numel",
           "typename", "get_device", "is_distributed"]

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None


def _need_tensor(name, x, pos=1, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def is_tensor(obj):
    """`torch.is_tensor(obj)`: whether obj is a Tensor (subclasses included)."""
    return isinstance(obj, Tensor)


def is_storage(obj):
    """`torch.is_storage(obj)`: whether obj is a storage (`Tensor.untyped_storage()`)."""
    return isinstance(obj, (Storage, UntypedStorage))


def is_floating_point(input):
    """`torch.is_floating_point(input)`."""
    _need_tensor("is_floating_point", input)
    return input._dtype.is_floating_point


def is_complex(input):
    """`torch.is_complex(input)`."""
    _need_tensor("is_complex", input)
    return input._dtype.is_complex


def is_signed(input):
    """`torch.is_signed(input)`."""
    _need_tensor("is_signed", input)
    return input._dtype.is_signed


@tensor_method()
def is_nonzero(input):
    """`torch.is_nonzero(input)`: the truth of a one-element tensor; PyTorch's error for any other size."""
    _need_tensor("is_nonzero", input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


@tensor_method()
def is_same_size(input, other):
    """`torch.is_same_size(input, other)`: equal shapes."""
    _need_tensor("is_same_size", input)
    _need_tensor("is_same_size", other, 2, "other")
    return input._shape == other._shape


@tensor_method()
def is_inference(input):
    """`torch.is_inference(input)`.

    Difference: torchshim has no inference tensors (`inference_mode` acts as `no_grad`), so this is False."""
    _need_tensor("is_inference", input)
    return False


def is_inference_mode_enabled():
    """`torch.is_inference_mode_enabled()`: whether an `inference_mode()` block is active in this thread."""
    return grad_mode.is_inference_mode_enabled()


def numel(input):
    """`torch.numel(input)`: the number of elements."""
    _need_tensor("numel", input)
    return input.numel()


def get_device(input):
    """`torch.get_device(input)`: the cuda index, -1 for a cpu tensor."""
    _need_tensor("get_device", input)
    return input.get_device()


def typename(obj):
    """`torch.typename(obj)`: 'torch.FloatTensor' for a tensor, else the object's (or class's) qualified
    name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


@tensor_method()
def is_distributed(input):
    """`torch.is_distributed(input)`: False (no distributed tensors)."""
    _need_tensor("is_distributed", input)
    return False


# ---- Tensor attributes --------------------------------------------------------------------------------
def _false(self):
    return False


for _n in ("is_xla", "is_mps", "is_ipu", "is_xpu", "is_mtia", "is_maia", "is_vulkan"):
    add_tensor_method(_n, property(_false, doc=f"`Tensor.{_n}`: False (torchshim has no such device)."))


@tensor_method(prop=True)
def name(self):
    """`Tensor.name`: None (the name a TorchScript trace gives; no named tensors)."""
    return None


@tensor_method(prop=True)
def output_nr(self):
    """`Tensor.output_nr`: which output of its grad_fn this tensor is (0 for a leaf)."""
    return self._output_nr


def _volatile_get(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _volatile_set(self, value):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)


add_tensor_method("volatile", property(_volatile_get, _volatile_set,
                                       doc="`Tensor.volatile`: False, with PyTorch's removal warning."))


@tensor_method()
def const_data_ptr(self):
    """`Tensor.const_data_ptr()`: the same (fake) address as `data_ptr()`."""
    return self.data_ptr()


@tensor_method()
def dim_order(self, *, ambiguity_check=False):
    """`Tensor.dim_order(*, ambiguity_check=False)`: the dims from outermost to innermost in memory (by
    decreasing stride, ties in dim order).

    Difference: `ambiguity_check` is accepted, no ambiguity error is raised."""
    return tuple(sorted(range(self.ndim), key=lambda d: -self._stride[d]))


@tensor_method(prop=True)
def grad_dtype(self):
    """`Tensor.grad_dtype`: the dtype a gradient of this tensor has (its own)."""
    return self._dtype


def _no_backend(msg, exc):
    def method(self, device=None, non_blocking=False, memory_format=None):
        raise exc(msg)
    return method


add_tensor_method("xpu", _no_backend("Torch not compiled with XPU enabled", AssertionError))
add_tensor_method("ipu", _no_backend("PyTorch is not linked with support for ipu devices", RuntimeError))
add_tensor_method("mtia", _no_backend(
    "Torch not compiled with MTIA enabled. Ensure you have "
    "`import mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
    "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!",
    AssertionError))


del _n

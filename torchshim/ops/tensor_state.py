"""Tensor methods that change or re-wrap a tensor's storage and geometry: the deprecated Variable forms
`resize`/`resize_as`, `set_`, `record_stream`, `module_load`."""
import functools
import operator
import warnings

import jax.numpy as jnp

from .. import _view as V
from .._methods import tensor_method
from .._storage import Storage, UntypedStorage
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled

__all__ = ["Resize"]


# ---- resize / resize_as (deprecated, out of place) -------------------------------------------------------
class Resize(Function):
    """`torch.autograd._functions.Resize`: a reshape to `sizes` keeping the number of elements (grad_fn
    `ResizeBackward`)."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        numel = functools.reduce(operator.mul, sizes, 1)  # PyTorch's arithmetic: a list size repeats
        if tensor.numel() != numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the given "
                f"tensor has a size of {'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). "
                "autograd's resize can only change the shape of a given tensor, while preserving the number "
                "of elements. ")
        ctx.input_sizes = tensor.size()
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None


@tensor_method()
def resize(self, *sizes):
    """`Tensor.resize(*sizes)` (deprecated, warns): self reshaped to `sizes` (ints; a list raises, as in
    PyTorch), which must keep the number of elements (grad_fn ResizeBackward); self is unchanged."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return Resize.apply(self, sizes)


@tensor_method()
def resize_as(self, tensor):
    """`Tensor.resize_as(tensor)` (deprecated, warns): `resize(tensor.size())` without the warning of
    `resize`."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return Resize.apply(self, tuple(tensor._shape))


# ---- set_ ------------------------------------------------------------------------------------------------
_C_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}


def _adopt(self, storage, shape, stride, offset):
    t = Tensor._make(storage, tuple(shape), tuple(stride), offset, self._dtype)
    self._storage, self._shape, self._stride, self._offset = storage, t._shape, t._stride, t._offset
    self._natural, self._lens, self._cache = t._natural, t._lens, None
    self._base, self._diff_view = None, False
    self._vc.value += 1
    return self


@tensor_method()
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """`Tensor.set_(source=None, storage_offset=0, size=None, stride=None)`: self made to share `source`'s
    storage: a Tensor source (self takes its size, stride and offset; writes through either are seen by
    both), `source.untyped_storage()` (with an offset, size and stride in self's elements; default the whole
    storage as 1-d), or nothing (an empty tensor).

    Differences: a storage of another dtype (PyTorch reinterprets its bytes) and a geometry reaching past the
    storage's end (PyTorch grows the storage) raise here; a source that requires grad gives self no history
    (PyTorch's grad_fn is NotImplemented)."""
    if self._requires_grad and self._grad_fn is None and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if source is None:
        return _adopt(self, Storage(jnp.zeros((0,), self._dtype.np), self._storage.device), (0,), (1,), 0)
    if isinstance(source, Tensor):
        if size is not None or stride is not None or storage_offset != 0:
            raise TypeError(f"set_() received an invalid combination of arguments - got (Tensor, "
                            f"{type(storage_offset).__name__}), but expected one of:")
        if source._dtype is not self._dtype:
            raise RuntimeError(f"Could not set tensor of type {_C_TYPES.get(source._dtype.name)} to a tensor "
                               f"of type {_C_TYPES.get(self._dtype.name)}")
        return _adopt(self, source._storage, source._shape, source._stride, source._offset)
    if not isinstance(source, UntypedStorage):
        raise TypeError(f"set_() received an invalid combination of arguments - got "
                        f"({type(source).__name__}), but expected one of:")
    st = source._storage
    if st.array.dtype != self._dtype.np:
        raise RuntimeError(f"set_: torchshim can't reinterpret a storage of {st.array.dtype} as "
                           f"{self._dtype} (PyTorch reinterprets its bytes)")
    have = st.numel
    if size is None:
        if stride is not None:
            raise TypeError("set_() received an invalid combination of arguments")
        size = (have,) if storage_offset == 0 else None
        if size is None:
            raise TypeError("set_() received an invalid combination of arguments - got (torch.storage."
                            "UntypedStorage, int), but expected one of:")
    size = tuple(int(s) for s in size)
    stride = V.contiguous_strides(size) if stride is None else tuple(int(s) for s in stride)
    if len(stride) != len(size):
        raise RuntimeError("mismatch in length of strides and shape")
    offset = int(storage_offset)
    need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if V.numel(size) and need > have:
        raise RuntimeError(f"set_: sizes {list(size)}, strides {list(stride)} and storage offset {offset} "
                           f"reach past the storage's {have} elements (PyTorch would grow the storage; "
                           f"torchshim can't)")
    return _adopt(self, st, size, stride, offset)


# ---- record_stream ---------------------------------------------------------------------------------------
_NO_CPU_KERNEL = ("Could not run 'aten::record_stream' with arguments from the 'CPU' backend. This could be "
                  "because the operator doesn't exist for this backend, or was omitted during the "
                  "selective/custom build process (if using custom build). If you are a Facebook employee "
                  "using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible "
                  "resolutions. 'aten::record_stream' is only available for these backends: [Meta, "
                  "BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, Negative, "
                  "ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradHIP, "
                  "AutogradXLA, AutogradMPS, AutogradIPU, AutogradXPU, AutogradHPU, AutogradVE, "
                  "AutogradLazy, AutogradMTIA, AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, "
                  "AutogradPrivateUse3, AutogradMeta, AutogradNestedTensor, Tracer, AutocastCPU, "
                  "AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, "
                  "BatchedNestedTensor, FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, "
                  "PythonTLSSnapshot, FuncTorchDynamicLayerFrontMode, PreDispatch, PythonDispatcher].")


@tensor_method()
def record_stream(self, stream):
    """`Tensor.record_stream(stream)`: marks self as used by `stream`, so the caching allocator keeps its
    memory until the stream's work is done. A CPU tensor raises PyTorch's NotImplementedError; on a GPU it
    does nothing (jax owns and tracks the buffers)."""
    if not (hasattr(stream, "stream_id") and hasattr(stream, "device_type")):  # a torch.Stream
        raise RuntimeError("unknown parameter type")
    if self._storage.device.type == "cpu":
        raise NotImplementedError(_NO_CPU_KERNEL)


# ---- module_load -----------------------------------------------------------------------------------------
@tensor_method()
def module_load(self, other, assign=False):
    """`Tensor.module_load(other, assign=False)`: how `nn.Module.load_state_dict` turns the state-dict value
    `other` into the new value of the parameter/buffer self when swapping
    (`torch.__future__.get_swap_module_params_on_conversion()`): `other.detach()` with assign, else
    `self.copy_(other).detach()`."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()

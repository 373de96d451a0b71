"""DLPack exchange: `Tensor.__dlpack__` / `__dlpack_device__`, `torch.to_dlpack`, `torch.from_dlpack` (also
`torch.utils.dlpack`), through jax's DLPack support.

Difference from PyTorch (docs/differences.md, "DLPack"): PyTorch shares memory both ways; torchshim's
tensors are immutable jax arrays, so `from_dlpack` copies the producer's data (later writes to a NumPy array
or a PyTorch tensor are not seen), and `__dlpack__`/`to_dlpack` export a copy (a consumer's writes are not
seen by the torchshim tensor); `copy=False` raises BufferError both ways.
"""
import jax
import jax.numpy as jnp

from . import _device as Dev
from . import _dtype as D
from ._methods import add_tensor_method
from ._tensor import Tensor, fresh

__all__ = ["from_dlpack", "to_dlpack"]

_USED = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so "
         "you might have already constructed a tensor from it once.")
_NO_SHARE = ("torchshim cannot share memory with another library (its tensors are immutable jax arrays): "
             "{what}(copy=False) is not supported; pass copy=None or copy=True.")


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """`Tensor.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)`: a DLPack capsule of
    the tensor's contents (PyTorch's BufferError for a tensor that requires grad or has the conjugate bit
    set). Exports a copy (see the module docstring)."""
    if copy is False:
        raise BufferError(_NO_SHARE.format(what="__dlpack__"))
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if self._lens is not None and self._lens[1]:
        raise BufferError("Can't export tensors with the conjugate bit set")
    kwargs = {"stream": stream, "max_version": max_version, "copy": True}
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    return self._value.__dlpack__(**kwargs)


def _dlpack_device(self):
    """`Tensor.__dlpack_device__() -> (DLDeviceType, index)`."""
    return self._value.__dlpack_device__()


add_tensor_method("__dlpack__", _dlpack)
add_tensor_method("__dlpack_device__", _dlpack_device)


def to_dlpack(tensor):
    """`torch.to_dlpack(tensor) -> PyCapsule`: a DLPack capsule of a copy of `tensor`'s contents (consumed
    once)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_to_dlpack(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return tensor._value.__dlpack__(copy=True)


class _Capsule:
    """A legacy DLPack capsule presented through the protocol jax's importer expects (CPU memory)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """`torch.from_dlpack(ext_tensor, *, device=None, copy=None) -> Tensor`: a tensor from any object with
    `__dlpack__` (NumPy arrays, PyTorch/jax tensors, ...) or from a DLPack capsule. Copies the data (see the
    module docstring); `copy=False` raises BufferError. A torchshim tensor comes back as itself (detached
    alias), as PyTorch returns its own tensors."""
    if copy is False:
        raise BufferError(_NO_SHARE.format(what="from_dlpack"))
    if isinstance(ext_tensor, Tensor):
        out = ext_tensor.detach() if not copy else ext_tensor.detach().clone()
        return out if device is None else out.to(device)
    if hasattr(ext_tensor, "__dlpack__"):
        src = ext_tensor
    elif type(ext_tensor).__name__ == "PyCapsule":
        src = _Capsule(ext_tensor)
    else:
        raise RuntimeError(_USED)
    try:
        arr = jax.dlpack.from_dlpack(src)
    except Exception as e:  # noqa: BLE001  jax's own error for a used or invalid capsule
        if src is not ext_tensor:
            raise RuntimeError(_USED) from e
        raise
    arr = jnp.array(arr, copy=True)  # never alias memory the producer may still write to
    dev = Dev.of_array(arr)
    out = fresh(arr, D.from_numpy_dtype(arr.dtype), dev)
    return out if device is None else out.to(device)

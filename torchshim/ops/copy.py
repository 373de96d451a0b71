"""Copies and whole-tensor writes: clone, copy_, fill_, zero_, type_as, view(dtype)."""
import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from . import _dispatch as P
from ._registry import register


@register("clone", kind="copy")
def clone(input, *, memory_format=None):
    """`torch.clone(input, *, memory_format=torch.preserve_format)`: a copy with its own storage.

    Difference: the copy is always contiguous (PyTorch preserves the strides of dense inputs)."""
    return P.fresh(input._value, input._dtype, input._storage.device)


def _copy_inplace(self, src, non_blocking=False):
    """`Tensor.copy_(src, non_blocking=False)`: copy src's values (broadcast, cast, any device) into self."""
    if isinstance(src, Tensor):
        val = src._value
        if src._storage.device is not self._storage.device:
            from .. import _device as Dev
            val = jax.device_put(val, Dev.to_jax(self._storage.device))
        shape = jnp.shape(val)
    else:
        val = jnp.asarray(src)
        shape = val.shape
    _check_broadcast_into(self._shape, tuple(shape))
    self._write(val)
    return self


def _check_broadcast_into(target, src):
    """PyTorch's error when `src` can't be broadcast to the existing `target` shape."""
    if len(src) > len(target):
        raise RuntimeError(f"output with shape {list(target)} doesn't match the broadcast shape "
                           f"{list(src[:len(src) - len(target)]) + list(target)}")
    for i in range(1, len(src) + 1):
        if src[-i] != 1 and src[-i] != target[-i]:
            raise RuntimeError(f"The size of tensor a ({target[-i]}) must match the size of tensor b ({src[-i]}) "
                               f"at non-singleton dimension {len(target) - i}")


register("copy_", function=False, kind="copy")(_copy_inplace)


def _fill_inplace(self, value):
    """`Tensor.fill_(value)`: every element set to the number (or 0-dim tensor) `value`."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        v = value._value
    else:
        v = value
    self._write(v)
    return self


def _zero_inplace(self):
    """`Tensor.zero_()`: every element set to 0."""
    self._write(0)
    return self


register("fill_", function=False, kind="copy")(_fill_inplace)
register("zero_", function=False, kind="copy")(_zero_inplace)


@register("fill", method=False, kind="copy")
def fill(input, value):
    """`torch.fill(input, value)`: a new tensor like input filled with value."""
    return _fill_inplace(clone(input), value)


@register("type_as", function=False, kind="copy")
def type_as(self, other):
    """`Tensor.type_as(other)` -> `self.to(other.dtype)` (same device as other in PyTorch's legacy sense)."""
    return self.to(other._dtype)


def view_dtype(self, dtype):
    """`Tensor.view(dtype)`: the same bits as another dtype. Difference: a copy here, not an alias."""
    if dtype is self._dtype:
        return self
    src, dst = self._dtype.itemsize, dtype.itemsize
    if src != dst and self.ndim == 0:
        raise RuntimeError("self.dim() cannot be 0 to view " + str(self._dtype) + " as " + str(dtype) +
                           " (different element sizes)")
    val = self._value
    if self._dtype is D.bool_:
        val = val.astype(np.uint8)
    target = np.uint8 if dtype is D.bool_ else dtype.np
    if src == dst:
        out = jax.lax.bitcast_convert_type(val, target)
    elif src > dst:
        out = jax.lax.bitcast_convert_type(val, target).reshape(self._shape[:-1] + (-1,))
    else:
        ratio = dst // src
        if self._shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} to view {self._dtype} as {dtype} "
                               "(different element sizes), but got " + str(self._shape[-1]))
        out = jax.lax.bitcast_convert_type(val.reshape(self._shape[:-1] + (-1, ratio)), target)
    if dtype is D.bool_:
        out = out != 0
    return P.fresh(out, dtype, self._storage.device)

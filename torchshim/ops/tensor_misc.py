"""Tensor methods of the legacy and in-place families: `new`, `new_empty_strided`, `sum_to_size`,
`fill_diagonal_`, `put`/`put_`, `apply_`/`map_`/`map2_`, `resize_`/`resize_as_`."""
import math

import jax.numpy as jnp
import numpy as np

from .._methods import tensor_method
from .._promotion import short_name
from .._tensor import Tensor
from . import _dispatch as P
from ._dispatch import fresh
from ._registry import installed, register
from .legacy_types import legacy_new

__all__ = ["put"]


def _need(name, x, pos, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


@tensor_method()
def new(self, *args, **kwargs):
    """`Tensor.new(*args, **kwargs)`: the legacy constructor in self's dtype and device (`new()` empty,
    `new(2, 3)` zero-filled, `new([1, 2])` from data)."""
    kwargs.setdefault("device", self.device)
    return legacy_new(Tensor, self._dtype, args, kwargs, self.device.type)


@tensor_method()
def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                      pin_memory=False):
    """`Tensor.new_empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, ...)`:
    `torch.empty_strided` with self's dtype and device by default (zero-filled)."""
    return installed("empty_strided")(size, stride, dtype=dtype or self._dtype, device=device or self.device,
                                      requires_grad=requires_grad)


def _sizes(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


@tensor_method()
def sum_to_size(self, *size):
    """`Tensor.sum_to_size(*size)`: self summed over the broadcast dims so that it has `size` (which must be
    expandable to self's shape)."""
    size = tuple(int(s) for s in _sizes(size))
    shape = self._shape
    ok = len(size) <= len(shape) and all(s == 1 or s == t for s, t in zip(size[::-1], shape[::-1]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    lead = len(shape) - len(size)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    r = installed("sum")(self, dims, keepdim=True) if dims else self
    return r.reshape(size) if lead else r


# ---- fill_diagonal_ --------------------------------------------------------------------------------------
@register("fill_diagonal_", function=False, kind="indexing")
def fill_diagonal_(input, fill_value, wrap=False):
    """`Tensor.fill_diagonal_(fill_value, wrap=False)`: writes fill_value on the main diagonal (all dims
    equal for 3+ dims); with wrap, a tall matrix's diagonal restarts every N + 1 rows. A write through a
    strided view of self, as PyTorch's (its node is CopySlices)."""
    if input.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.ndim > 2 and len(set(input._shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    shape = input._shape
    n = min(shape)
    step = sum(input._stride)
    if wrap and input.ndim == 2 and shape[0] > shape[1] + 1:
        step = shape[1] + 1  # PyTorch wraps through the storage of a (contiguous) tall matrix
        n = -(-input.numel() // step)
    installed("as_strided")(input, (n,), (step,), input._offset).fill_(fill_value)
    return input


# ---- put -------------------------------------------------------------------------------------------------
@P.kernel(static=("accumulate",))
def _put_k(a, idx, src, accumulate):
    flat = a.reshape(-1)
    idx = idx.reshape(-1)
    idx = jnp.where(idx < 0, idx + flat.shape[0], idx)
    s = src.reshape(-1).astype(a.dtype)
    flat = flat.at[idx].add(s) if accumulate else flat.at[idx].set(s)
    return flat.reshape(a.shape)


@register("put", inplace=True, kind="indexing")
def put(input, index, source, accumulate=False):
    """`torch.put(input, index, source, accumulate=False)`: input, viewed as 1-d, with the positions `index`
    replaced by (or, with accumulate, increased by) the elements of source."""
    _need("put", input, 1, "input")
    _need("put", index, 2, "index")
    _need("put", source, 3, "source")
    if index._dtype.name != "int64":
        raise IndexError(f"put_(): Expected a long tensor for index, but got {short_name(index._dtype)}")
    if input._dtype is not source._dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {short_name(input._dtype)} and source.dtype = "
                           f"{short_name(source._dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = input.numel()
    idx = index._value
    if not isinstance(idx, P.jax.core.Tracer) and index.numel():
        a = np.asarray(idx)
        bad = a[(a >= n) | (a < -n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} "
                             "elements.")
    return fresh(_put_k(input._value, idx, source._value, accumulate=bool(accumulate)), input._dtype,
                 input._storage.device)


# ---- apply_ / map_ / map2_ -------------------------------------------------------------------------------
def _python_elementwise(self, fn, *others):
    """self (and others broadcast to self's shape) element by element through the Python callable fn."""
    a = np.asarray(self._value)
    arrs = [np.broadcast_to(np.asarray(o._value), a.shape) for o in others]
    kind = bool if self._dtype.name == "bool" else complex if self._dtype.is_complex else \
        float if self._dtype.is_floating_point else int
    out = np.empty(a.shape, a.dtype)
    for i in np.ndindex(a.shape):
        out[i] = fn(kind(a[i]), *(kind(x[i]) for x in arrs))
    return self._assign_from(fresh(jnp.asarray(out), self._dtype, self._storage.device), "apply_")


@tensor_method()
def apply_(self, callable):
    """`Tensor.apply_(callable)`: each element replaced by callable(element) (slow; CPU only in PyTorch)."""
    return _python_elementwise(self, callable)


@tensor_method()
def map_(self, tensor, callable):
    """`Tensor.map_(tensor, callable)`: self[i] = callable(self[i], tensor[i]), tensor broadcast to self."""
    return _python_elementwise(self, callable, tensor)


@tensor_method()
def map2_(self, x, y, callable):
    """`Tensor.map2_(x, y, callable)`: self[i] = callable(self[i], x[i], y[i])."""
    return _python_elementwise(self, callable, x, y)


# ---- resize_ ---------------------------------------------------------------------------------------------
@tensor_method()
def resize_(self, *sizes, memory_format=None):
    """`Tensor.resize_(*sizes, memory_format=None)`: self given shape `sizes` in place, contiguous; the first
    elements keep their values (in storage order), new ones are 0.

    Difference: PyTorch's new elements are uninitialised memory."""
    size = tuple(int(s) for s in _sizes(sizes))
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if size == self._shape:
        return self
    old = jnp.ravel(self.contiguous()._value)
    n = math.prod(size)
    flat = jnp.concatenate([old[:n], jnp.zeros(max(n - old.shape[0], 0), old.dtype)])
    self._resize_storage(size)
    self._storage.array = flat.reshape(size)
    return self


@tensor_method()
def resize_as_(self, the_template, memory_format=None):
    """`Tensor.resize_as_(the_template, memory_format=None)`: `resize_(the_template.shape)`."""
    return self.resize_(the_template._shape)


"""Copies and whole-tensor writes: clone, copy_, fill_, zero_, type_as, view(dtype)."""
from functools import lru_cache, partial

import jax
import jax.numpy as jnp

from .. import _layout as L
from .. import _view as V
from .._promotion import short_name
from .._storage import Storage
from .._tensor import Tensor
from . import _dispatch as P
from ._registry import register
from .._fused import jit as _fjit


def dense_order(shape, stride):
    """For PyTorch's is_non_overlapping_and_dense layouts (empty or contiguous included): the dims of size >=
    2 from outermost to innermost in memory; None for layouts with gaps or overlaps."""
    big = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: stride[d])
    if V.numel(shape) == 0 or V.is_contiguous(shape, stride):
        return tuple(d for d in range(len(shape)) if shape[d] >= 2)
    need = 1
    for d in big:
        if stride[d] != need:
            return None
        need *= shape[d]
    return tuple(reversed(big))


def memory_order(nd, should_swap):
    """PyTorch's permutation sort (TensorIterator::reorder_dimensions): dims from innermost to outermost,
    ordered by the comparator `should_swap(d0, d1) -> 1 (swap), -1 (keep, stop), 0 (keep, go on)`."""
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def infer_dense_strides(shape, stride):
    """PyTorch's infer_dense_strides: dense strides that keep the memory order of (shape, stride) (the order
    TensorIterator gives its outputs; stride-0 dims don't move)."""
    nd = len(shape)
    if nd <= 1:
        return (1,) * nd

    def should_swap(d0, d1):
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    out, cur = [0] * nd, 1
    for d in memory_order(nd, should_swap):
        out[d] = cur
        if shape[d] > 1:
            cur *= shape[d]
    return tuple(out)


@lru_cache(maxsize=4096)
def like_strides(shape, stride, fmt):
    """The strides of PyTorch's `empty_like` of a (shape, stride) tensor in memory format `fmt`:
    preserve_format keeps dense strides and otherwise keeps the memory order with dense strides
    (infer_dense_strides); contiguous_format and channels_last(_3d) are the format's strides (rank errors as
    PyTorch)."""
    if fmt is L.preserve_format:
        return tuple(stride) if dense_order(shape, stride) is not None else infer_dense_strides(shape, stride)
    return L.format_strides(shape, fmt)


def relayout_(t, stride, fmt):
    """Give `t` (a fresh contiguous result, history kept) the layout `like_strides(t's shape, stride,
    fmt)`."""
    target = like_strides(t._shape, stride, fmt)
    if target != t._stride:
        new = _dense(t._value, t._shape, target, t._dtype, t._storage.device)
        t._storage, t._stride, t._offset = new._storage, new._stride, 0
        t._natural, t._cache = new._natural, None
    return t


def _with_layout_of(t, arr, dtype, device, memory_format=None):
    """A new tensor holding `arr` (t's shape, dtype's numpy dtype) laid out like PyTorch's
    `empty_like(t, memory_format)` (see `like_strides`)."""
    fmt = L.check_memory_format("clone", memory_format)
    contiguous = t._stride == V.contiguous_strides(t._shape)
    if fmt is L.contiguous_format or (fmt is L.preserve_format and contiguous):
        return P.fresh(arr, dtype, device)
    return _dense(arr, t._shape, like_strides(t._shape, t._stride, fmt), dtype, device)


def _dense(arr, shape, stride, dtype, device):
    """A new tensor holding `arr` (of `shape`) laid out with the dense strides `stride`."""
    if stride == V.contiguous_strides(shape):
        return P.fresh(arr, dtype, device)
    if V.numel(shape) == 0:
        mem = jnp.zeros((0,), arr.dtype)
    else:
        mem = _in_memory_order(arr, *_memory_plan(shape, stride))
    return Tensor._make(Storage(mem, device), shape, stride, 0, dtype, lens=None)


@lru_cache(maxsize=4096)
def _memory_plan(shape, stride):
    """(shape of the dims of size >= 2, their permutation into memory order) for dense `stride`."""
    order = dense_order(shape, stride)
    big = tuple(d for d in range(len(shape)) if shape[d] >= 2)
    return tuple(shape[d] for d in big), tuple(big.index(d) for d in order)


@partial(_fjit, static_argnums=(1, 2))
def _in_memory_order(arr, big_shape, perm):
    return arr.reshape(big_shape).transpose(perm)


@register("clone", kind="copy", saves="none")
def clone(input, *, memory_format=None):
    """`torch.clone(input, *, memory_format=torch.preserve_format)`: a copy with its own storage.

    Like PyTorch, preserve_format keeps the strides of a non-overlapping dense input (a transposed or permuted
    tensor) and the memory order of other inputs; contiguous_format, channels_last and channels_last_3d give
    the format's strides. A lazily conjugated (or negated) input gives a resolved copy."""
    return _with_layout_of(input, input._value, input._dtype, input._storage.device, memory_format)


_INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
                     "single memory location. Please clone() the tensor before performing the operation.")
_PARTIAL_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor "
                    "refer to a single memory location. Please clone() the tensor before performing the "
                    "operation.")


def _same_data(a, b):
    return (a._storage is b._storage and a._offset == b._offset and a._stride == b._stride
            and a._shape == b._shape and a._lens == b._lens and a._dtype is b._dtype)


def _partial_overlap(a, b):
    """PyTorch's get_overlap_status(a, b) == Partial: both dense, same storage, memory ranges that intersect
    without being identical (or identical ranges with different strides)."""
    if a is b or a._storage is not b._storage or not a.numel() or not b.numel():
        return False
    if dense_order(a._shape, a._stride) is None or dense_order(b._shape, b._stride) is None:
        return False  # PyTorch: TooHard, not checked
    ia, ib = a._dtype.itemsize, b._dtype.itemsize  # bytes: a complex tensor and its real view differ in units
    a0, a1 = a._offset * ia, (a._offset + a.numel()) * ia
    b0, b1 = b._offset * ib, (b._offset + b.numel()) * ib
    if (a0, a1) == (b0, b1):
        return a._stride != b._stride
    return a0 < b1 and b0 < a1


def _copy_inplace(self, src, non_blocking=False):
    """`Tensor.copy_(src, non_blocking=False)`: copy src's values (broadcast, cast, any device) into self."""
    if isinstance(src, Tensor):
        if _same_data(self, src):
            return self
        if V.has_overlap(self._shape, self._stride):
            raise RuntimeError(_INTERNAL_OVERLAP)
        if _partial_overlap(self, src):
            raise RuntimeError(_PARTIAL_OVERLAP)
        val = src._value
        if src._storage.device is not self._storage.device:
            from .. import _device as Dev
            val = jax.device_put(val, Dev.to_jax(self._storage.device))
        shape = jnp.shape(val)
    else:
        val = jnp.asarray(src)
        shape = val.shape
    _check_broadcast_into(self._shape, tuple(shape))
    same_device = isinstance(src, Tensor) and src._storage.device is self._storage.device
    return self._assign_from(src if same_device else val, "copy_")  # with autograd's history when src has one


def _check_broadcast_into(target, src):
    """PyTorch's errors when `src` can't be broadcast to the existing `target` shape: first the broadcast of
    the two shapes itself, then that it equals `target`."""
    n = max(len(target), len(src))
    a = (1,) * (n - len(target)) + tuple(target)
    b = (1,) * (n - len(src)) + tuple(src)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    if tuple(out) != tuple(target):
        raise RuntimeError(f"output with shape {list(target)} doesn't match the broadcast shape {out}")


register("copy_", function=False, kind="copy")(_copy_inplace)


def _fill_inplace(self, value):
    """`Tensor.fill_(value)`: every element set to the number (or 0-dim tensor) `value`."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        v = value
    else:
        from .indexing import _CTYPE, _overflows
        if _overflows(value, self._dtype):  # PyTorch's checked Scalar conversion
            raise RuntimeError(f"value cannot be converted to type {_CTYPE[self._dtype.name]} without "
                               "overflow")
        v = value
    return self._assign_from(v, "fill_")


def _zero_inplace(self):
    """`Tensor.zero_()`: every element set to 0."""
    return self._assign_from(0, "zero_")


register("fill_", function=False, kind="copy")(_fill_inplace)
register("zero_", function=False, kind="copy")(_zero_inplace)


@register("fill", method=False, kind="copy")
def fill(input, value):
    """`torch.fill(input, value)`: a new tensor like input filled with value."""
    return _fill_inplace(clone(input), value)


@register("type_as", function=False, kind="copy", grad_name="ToCopyBackward0", saves="none")
def type_as(self, other):
    """`Tensor.type_as(other)` -> `self.to(other.dtype)`: self when the dtype matches, else a copy that keeps
    self's strides when they are dense (PyTorch's preserve_format)."""
    if other._dtype is self._dtype:
        return self
    return _with_layout_of(self, P.convert(self, other._dtype, self._storage.device)._value, other._dtype,
                           self._storage.device)


def view_dtype(self, dtype):
    """`Tensor.view(dtype)`: the same bytes seen as another dtype, with PyTorch's geometry (sizes, strides,
    offset) and errors: an alias of self's storage (a bit-cast lens, _view.py), so writes through either are
    seen by the other. As in PyTorch it shares self's version counter but is not a view for autograd (no
    `_base`, never requires grad), even for the same dtype. Difference: a bool view stores 0/1 only (a byte
    other than 0 and 1 written through a uint8 view of a bool tensor reads back as 1)."""
    if self._lens is not None and self._lens[1]:
        raise RuntimeError("torch.Tensor.view is not supported for conjugate view tensors when converting to "
                           "a different dtype.")
    if self._lens is not None and self._lens[2]:
        raise RuntimeError("torch.Tensor.view is not supported for tensors with negative bit set when "
                           "converting to a different dtype.")
    src, dst = self._dtype.itemsize, dtype.itemsize
    what = f"to view {short_name(self._dtype)} as {short_name(dtype)} (different element sizes)"
    shape, stride, offset = list(self._shape), list(self._stride), self._offset
    if src != dst:
        if self.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if src > dst:
            ratio = src // dst
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            stride = [s * ratio for s in stride[:-1]] + [1]
            shape[-1] *= ratio
            offset *= ratio
        else:
            ratio = dst // src
            if shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got "
                                   f"{offset}")
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            for k, s in enumerate(stride[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({k}) must be divisible by {ratio} {what}, but got {s}")
            stride = [s // ratio for s in stride[:-1]] + [1]
            shape[-1] //= ratio
            offset //= ratio
    st = self._storage
    return Tensor._make(st, tuple(shape), tuple(stride), offset, dtype, self._vc, None,
                        V.lens_of(st.array.dtype, dtype))

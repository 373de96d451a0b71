"""`Tensor.__getitem__` / `__setitem__` with PyTorch's semantics.

Basic indices (ints, slices, None, Ellipsis, 0-dim integer tensors) only change the view geometry, so
`x[1:, 0]` is a view and `x[1:, 0] = v` writes through it. Advanced indices (integer/bool tensors, lists,
numpy arrays) are then applied to that view with one jitted gather or scatter. Out-of-range indices raise
IndexError with PyTorch's message (JAX would clamp); this check needs concrete indices and is skipped under
jax tracing, where negative indices are still wrapped.
"""
import functools
import numbers
import operator
import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .. import _view as V
from .._dtype import legacy_type_name
from .._methods import add_tensor_method
from .._promotion import short_name
from .._tensor import Tensor, fresh
from .._warnings import warn_once
from ..autograd._creation_meta import tag_views
from ..autograd._forward import STATE as _fw, attach_tangents
from ..autograd._node import record, run_forward
from ..autograd.grad_mode import is_grad_enabled
from ._registry import register
from .._fused import jit as _fjit

__all__ = ["getitem", "setitem"]


class _Adv:
    """An advanced index: an integer array (jax or numpy) applied at some dim of the basic view."""

    __slots__ = ("array", "dim", "order")

    def __init__(self, array, dim, order):
        self.array, self.dim, self.order = array, dim, order


def _as_index_tensor(obj):
    """A list/tuple/numpy index as PyTorch converts it: bool (or numpy uint8) stays a mask, anything else
    becomes int64 (floats truncated, like PyTorch's indexing_tensor_from_data)."""
    from .creation import tensor  # creation imports this module (via indexing)
    if isinstance(obj, np.ndarray) and obj.dtype in (np.bool_, np.uint8):
        return tensor(obj)
    try:
        t = tensor(obj)
    except TypeError as e:
        if "str" in str(e):
            raise TypeError("new(): invalid data type 'str'") from None
        raise
    if t._dtype in (D.bool_, D.uint8, D.int64):
        return t
    return t.to(D.int64)


def _type_name(obj):
    t = type(obj)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _bad_index_msg(obj):
    return ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
            f"indices (got {_type_name(obj)})")


def _is_sequence(v):
    return isinstance(v, (list, tuple, range, str, np.ndarray))


def _normalise(index):
    """The index as a tuple, with PyTorch's (NumPy's) rule for lists that are treated as tuples."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, str) or isinstance(index, list) and len(index) < 32 and any(
            _is_sequence(v) or isinstance(v, (slice, Tensor)) or v is None or v is Ellipsis for v in index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
                      "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will "
                      "be interpreted as tensor index, x[torch.tensor(seq)], which will result either in an "
                      "error or a different result", UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


def _is_int(item):
    return isinstance(item, numbers.Integral) and not isinstance(item, (bool, np.bool_))


def _consumed(item):
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, Tensor) and item._dtype in (D.bool_, D.uint8):
        return item.ndim
    return 1


def _check_long(i):
    if not -2 ** 63 <= i < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    return i


def _convert_item(item):
    """Sequences and numpy arrays become index tensors; numpy integer scalars become ints."""
    if isinstance(item, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(item, (list, tuple, np.ndarray)):
        return _as_index_tensor(item)
    if isinstance(item, range):  # a Python sequence, as PyTorch reads it: an int64 index tensor
        return _as_index_tensor(list(item))
    if isinstance(item, np.integer):
        return int(item)
    return item


def _parse(self, index):
    """Apply the basic part of `index` to self's geometry; return (view, [advanced indices as _Adv])."""
    view, raw = _parse_raw(self, index)
    return view, _expand_masks(view, raw)


def _parse_raw(self, index):
    """Apply the basic part of `index` to self's geometry; return (view, [(kind, index, dim)]) where the list
    holds the advanced indices ('int' arrays, 'mask' bool/uint8 tensors, 'mask0' 0-dim bools) for
    `_expand_masks`."""
    nd = len(self._shape)
    if type(index) is int and nd and -self._shape[0] <= index < self._shape[0]:
        # the common x[i] (a dataset's sample): what the general path below makes of it, without the parse
        i = index + self._shape[0] if index < 0 else index
        return self._as_view(self._shape[1:], self._stride[1:], self._offset + i * self._stride[0]), []
    if nd == 0 and not isinstance(index, tuple):
        if _is_int(index):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if isinstance(index, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    items = tuple(_convert_item(i) for i in _normalise(index))
    used = sum(_consumed(i) for i in items)
    if used > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    shape, stride, offset = [], [], self._offset
    advs = []
    src = 0  # dim of self being consumed
    past_end = False
    for item in items:
        if item is Ellipsis:
            # PyTorch lets every ellipsis skip the dims no other index names; a later one finds them used up
            for _ in range(nd - used):
                if src == nd:
                    past_end = True
                    break
                shape.append(self._shape[src])
                stride.append(self._stride[src])
                src += 1
        elif past_end and (_consumed(item) or isinstance(item, slice)):
            raise IndexError(f"too many indices for tensor of dimension {nd}")
        elif item is None:
            shape.append(1)
            stride.append(_unsq_stride(self, src))
        elif isinstance(item, bool):
            # like a 0-dim bool tensor: a new dim of size 1, indexed by [0] (True) or [] (False)
            shape.append(1)
            stride.append(_unsq_stride(self, src))
            advs.append(("mask0", item, len(shape) - 1))
        elif isinstance(item, slice):
            size, st = self._shape[src], self._stride[src]
            step = 1 if item.step is None else _int(item.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            start, stop, _ = slice(_int_or_none(item.start), _int_or_none(item.stop), step).indices(size)
            length = max(0, -(-(stop - start) // step))
            offset += start * st
            shape.append(length)
            stride.append(st * step)
            src += 1
        elif _is_int(item) or (isinstance(item, Tensor) and item.ndim == 0
                               and item._dtype not in (D.bool_, D.uint8)
                               and not item._dtype.is_floating_point
                               and not item._dtype.is_complex
                               and not isinstance(item._value, jax.core.Tracer)):
            i = _check_long(int(item))
            size = self._shape[src]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {src} with size {size}")
            offset += (i + size if i < 0 else i) * self._stride[src]
            src += 1
        elif isinstance(item, Tensor):
            d = item._dtype
            if d in (D.bool_, D.uint8):
                k = item.ndim
                if k == 0:
                    # x[True-tensor] adds a dim of 1; x[False-tensor] a dim of 0
                    shape.append(1)
                    stride.append(_unsq_stride(self, src))
                    advs.append(("mask0", item, len(shape) - 1))
                    continue
                for j in range(k):
                    if item._shape[j] != self._shape[src + j]:
                        raise IndexError(f"The shape of the mask {list(item._shape)} at index {j} does not "
                                         f"match the shape of the indexed tensor {list(self._shape)} at "
                                         f"index {src + j}")
                first = len(shape)
                for j in range(k):
                    shape.append(self._shape[src + j])
                    stride.append(self._stride[src + j])
                advs.append(("mask", item, first))
                src += k
            elif d not in (D.int64, D.int32):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            else:
                shape.append(self._shape[src])
                stride.append(self._stride[src])
                advs.append(("int", item, len(shape) - 1))
                src += 1
        else:
            raise IndexError(_bad_index_msg(item))
    shape.extend(self._shape[src:])
    stride.extend(self._stride[src:])
    return self._as_view(shape, stride, offset), advs


def _unsq_stride(self, src):
    return self._shape[src] * self._stride[src] if src < len(self._shape) else 1


def _int(x):
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None


def _int_or_none(x):
    return None if x is None else _int(x)


def _expand_masks(view, advs):
    """Turn every index into `_Adv`s of integer arrays; bool masks become their nonzero coordinates."""
    out = []
    for kind, t, dim in advs:
        if kind == "mask" and t._dtype is D.uint8:
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                          "instead.", UserWarning, stacklevel=4)
        if kind == "int":
            out.append(_Adv(t._value, dim, len(out)))
        elif kind == "mask0":
            arr = np.zeros((1 if bool(t) else 0,), np.int64)
            out.append(_Adv(arr, dim, len(out)))
        else:
            m = t._value
            if isinstance(m, jax.core.Tracer):
                raise RuntimeError("indexing with a boolean mask gives a data-dependent shape and cannot run "
                                   "under jax tracing; use torch.where or masked_fill instead")
            coords = np.nonzero(np.asarray(m))
            for j, c in enumerate(coords):
                out.append(_Adv(c.astype(np.int64), dim + j, len(out)))
    return out


def _check_broadcast(advs):
    """PyTorch's error when the index arrays can't be broadcast together."""
    shapes = [tuple(np.shape(a.array)) for a in advs]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(s)) for s in shapes)) from None


def _check_bounds(view, advs):
    """PyTorch's index errors: index arrays that don't broadcast, then out-of-range indices."""
    _check_broadcast(advs)
    _check_empty_dims(view, advs)
    _check_range(view, advs)


def _check_empty_dims(view, advs):
    """PyTorch's early error for indexing a dim of size 0 with a non-empty index."""
    if any(view._shape[a.dim] == 0 for a in advs) and 0 not in _check_broadcast(advs):
        raise IndexError("index is out of bounds for dimension with size 0")


def _result_shape(view, advs):
    """The shape of view[advanced indices], by NumPy's (and PyTorch's) placement rule."""
    bshape = tuple(_check_broadcast(advs))
    dims = sorted(a.dim for a in advs)
    rest = [i for i in range(len(view._shape)) if i not in dims]
    if dims == list(range(dims[0], dims[0] + len(dims))):
        return (tuple(view._shape[i] for i in rest if i < dims[0]) + bshape
                + tuple(view._shape[i] for i in rest if i > dims[-1]))
    return bshape + tuple(view._shape[i] for i in rest)


def _check_range(view, advs):
    """IndexError for out-of-range integer indices (concrete arrays only, JAX would clamp). Like PyTorch's
    kernel, nothing is checked when the result has no elements."""
    if 0 in _result_shape(view, advs):
        return
    for a in advs:
        if isinstance(a.array, jax.core.Tracer):
            continue
        arr = np.asarray(a.array)
        if arr.size == 0:
            continue
        size = view._shape[a.dim]
        bad = (arr >= size) | (arr < -size)
        if bad.any():
            raise IndexError(f"index {arr[bad].flat[0]} is out of bounds for dimension {a.order} with size "
                             f"{size}")


@partial(_fjit, static_argnames=("dims", "sizes", "ndim"))
def _gather(value, arrays, dims, sizes, ndim):
    idx = [slice(None)] * ndim
    for arr, d, n in zip(arrays, dims, sizes):
        arr = jnp.asarray(arr)
        idx[d] = jnp.where(arr < 0, arr + n, arr)
    return value[tuple(idx)]


# ---- the index-put core: `x[indices] = v` (setitem) and `index_put(_)` (ops/indexing.py) ------------------
@partial(_fjit, static_argnames=("dims", "sizes", "ndim", "vshape", "target", "accumulate"))
def put_kernel(value, arrays, new, dims, sizes, ndim, vshape, target, accumulate=False):
    """`value` with `new` (reshaped to `vshape`, broadcast to the indexed shape `target`, cast to value's
    dtype) written at the advanced indices `arrays` of dims `dims`; accumulate=True sums duplicates
    instead."""
    from .indexing import reduce_into  # indexing builds index_put on this module
    idx = [slice(None)] * ndim
    for arr, d, n in zip(arrays, dims, sizes):
        arr = jnp.asarray(arr)
        idx[d] = jnp.where(arr < 0, arr + n, arr)
    new = jnp.broadcast_to(jnp.asarray(new).reshape(vshape), target)
    return reduce_into(value, tuple(idx), new, "sum" if accumulate else "set", True)


def check_put_dtypes(dst, src):
    """PyTorch's error when index_put's values (`src`) differ in dtype from the destination."""
    if src is not dst:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{short_name(dst)} for the destination and {short_name(src)} for the source.")


def check_put_shape(vshape, shown, target):
    """`vshape` (the values' shape, leading ones beyond the target's rank stripped) must broadcast to the
    indexed shape `target`; `shown` is the values' shape as the error names it."""
    try:
        ok = np.broadcast_shapes(tuple(vshape), tuple(target)) == tuple(target)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shown)} cannot be broadcast to "
                           f"indexing result of shape {list(target)}")


def _adv_args(view, advs):
    dims = tuple(a.dim for a in advs)
    return tuple(a.array for a in advs), dims, tuple(view._shape[d] for d in dims), len(view._shape)


def getitem(self, index):
    """`x[index]`: a view for basic indices, a new tensor when any advanced index is present."""
    view, advs = _parse(self, index)
    if not advs:
        return view
    _check_bounds(view, advs)
    arrays, dims, sizes, nd = _adv_args(view, advs)
    return fresh(_gather(view._value, arrays, dims=dims, sizes=sizes, ndim=nd), self._dtype,
                 self._storage.device)


_C_TYPE = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
           "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}


def _overflow(dtype, name=None):
    return RuntimeError(f"value cannot be converted to type {name or _C_TYPE.get(dtype.name, dtype.name)} "
                        "without overflow")


def checked_scalar(v, dtype):
    """Python number `v` converted to `dtype` as PyTorch's Scalar conversion does (c10::checked_convert):
    RuntimeError for values out of the dtype's range, NaN/inf into integers, complex with an imaginary part
    into real dtypes; negative ints wrap into unsigned dtypes. Returns a numpy scalar of dtype."""
    if isinstance(v, (bool, np.bool_)):
        v = bool(v)
    elif isinstance(v, numbers.Integral):
        v = _check_long(int(v))
    if dtype is D.bool_:
        return np.bool_(bool(v))
    if isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real):
        v = complex(v)
        if not dtype.is_complex:
            if v.imag != 0:
                raise _overflow(dtype, "double" if dtype.name in ("float16", "bfloat16") else None)
            v = v.real
        elif dtype is D.complex64 and any(np.isfinite(c) and abs(c) > np.finfo(np.float32).max
                                          for c in (v.real, v.imag)):
            raise _overflow(dtype)
        else:
            return np.asarray(v, dtype.np)[()]
    if dtype.is_floating_point or dtype.is_complex:
        if dtype in (D.float32, D.complex64) and isinstance(v, float) and np.isfinite(v) \
                and abs(v) > np.finfo(np.float32).max:
            raise _overflow(dtype)
        return np.asarray(float(v) if not isinstance(v, bool) else v, dtype.np)[()] if not dtype.is_complex \
            else np.asarray(v, dtype.np)[()]
    info = np.iinfo(dtype.np)
    if isinstance(v, float):
        if not np.isfinite(v) or v < info.min or v > info.max:
            raise _overflow(dtype)
        v = int(v)
    elif info.min == 0:
        if v > info.max or v < -info.max:
            raise _overflow(dtype)
        v %= info.max + 1
    elif not info.min <= v <= info.max:
        raise _overflow(dtype)
    return np.asarray(v, dtype.np)[()]


def _value_of(value, self):
    """PyTorch's valueToTensor: (jax array, is_python_scalar). Tensors pass as they are; Python numbers become
    a 0-dim value of self's dtype (checked); anything else is a TypeError."""
    if isinstance(value, Tensor):
        if value._storage.device is not self._storage.device and value.ndim:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two "
                               f"devices, {self.device} and {value.device}!")
        return value, False
    if isinstance(value, (bool, float, complex, numbers.Integral)) and not isinstance(value, np.bool_):
        with np.errstate(over="ignore"):
            return jnp.asarray(checked_scalar(value, self._dtype)), True
    raise TypeError(f"can't assign a {_type_name(value)} to a "
                    f"{legacy_type_name(self._dtype, self._storage.device)}")


def _cast(value, dtype):
    """A tensor value as a jax array of `dtype`, warning like PyTorch's copy_ when complex becomes real."""
    v = value._value
    if value._dtype.is_complex and not dtype.is_complex:
        warn_once("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4)
        v = jnp.real(v)
    return v.astype(dtype.np) if v.dtype != dtype.np else v


def _strip_leading_ones(v, ndim):
    shape = tuple(v.shape)
    while len(shape) > ndim and shape[0] == 1:
        shape = shape[1:]
    return v.reshape(shape) if shape != tuple(v.shape) else v


def setitem(self, index, value):
    """`x[index] = value`: value (number or tensor) is cast to x's dtype and broadcast; aliases see the write.

    Like PyTorch: basic indices copy with casting; advanced indices (index_put_) need a value of x's dtype
    unless it is a Python number or a one-element value written through a single bool mask."""
    val, is_scalar = _value_of(value, self)
    if index is False:
        return  # PyTorch does nothing for a bare False
    if index is True:
        index = None  # a bare True is a basic unsqueeze in PyTorch's set_item
    view, raw = _parse_raw(self, index)
    if view is not self and self._diff_view and "_cmeta" in self.__dict__:  # PyTorch names the inner view
        tag_views((self,), view, _getitem_name((self, index), {}), is_grad_enabled())
    if not raw:
        v = val if is_scalar else _cast(val, self._dtype)
        v = _strip_leading_ones(v, view.ndim)
        _check_expand(tuple(v.shape), view._shape, self._dtype)
        if not is_scalar and (val._requires_grad or _fw.level is not None):  # keep its history / tangent
            v = val if tuple(v.shape) == val._shape else val.reshape(tuple(v.shape))
        view._assign_from(v, "copy_")
        return
    overlapping = V.has_overlap(view._shape, view._stride)
    if overlapping:
        warnings.warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. "
                      "tensor[indices] = tensor", UserWarning, stacklevel=2)
    if len(raw) == 1 and raw[0][0] == "mask" and (is_scalar or val.numel() == 1):
        # PyTorch's index_put_ shortcut to masked_fill_(mask, value.item())
        if raw[0][1]._dtype is not D.bool_:
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned "
                               "char")
        if not is_scalar:
            val = jnp.asarray(checked_scalar(val.item(), self._dtype))
        is_scalar = True
    advs = _expand_masks(view, raw)
    _check_broadcast(advs)
    _check_empty_dims(view, advs)
    arrays, dims, sizes, nd = _adv_args(view, advs)
    target = _result_shape(view, advs)
    vshape = tuple(val.shape)
    v = val if is_scalar else val._value
    v = _strip_leading_ones(v, len(target))
    check_put_shape(v.shape, vshape, target)
    if not is_scalar:
        check_put_dtypes(self._dtype, val._dtype)
    _check_range(view, advs)
    if overlapping:
        _index_put_overlapping(view, arrays, dims, sizes, v, target)
        return
    fw = _fw.level is not None  # forward AD: the written tangent follows the same index-put
    if fw or _needs_grad(view, val, is_scalar):
        vt = fresh(jnp.asarray(v), self._dtype, self._storage.device) if is_scalar else (
            val if tuple(v.shape) == val._shape else val.reshape(tuple(v.shape)))
        idx = [fresh(jnp.asarray(a), D.from_numpy_dtype(jnp.asarray(a).dtype),
                     self._storage.device) for a in arrays]
        fwd = _index_put_forward(dims, sizes, nd, tuple(v.shape), target)
        key = ("index_put", dims, sizes, nd, tuple(v.shape), target)
        new, = run_forward(fwd, key, [view, vt] + idx, [(view._shape, view._dtype, view._storage.device)])
        if _needs_grad(view, val, is_scalar):
            record("IndexPutBackward0", [view, vt] + idx, [new], fwd, key, saves="none")
        if fw:
            attach_tangents(fwd, key, [view, vt] + idx, [new])
        view._assign_from(new, "index_put_")
        return
    view._write(put_kernel(view._value, arrays, v, dims=dims, sizes=sizes, ndim=nd, vshape=tuple(v.shape),
                           target=target))


def _needs_grad(view, val, is_scalar):
    if not is_grad_enabled():
        return False
    if not is_scalar and val._requires_grad or view._requires_grad:
        return True
    return view._diff_view and view._base is not None and view._base._requires_grad


@functools.lru_cache(maxsize=None)
def _index_put_forward(dims, sizes, nd, vshape, target):
    """The forward that `x[indices] = v`'s IndexPutBackward0 node differentiates: the index-put core over
    (x, v, *index arrays)."""
    def forward(arrays):
        return (put_kernel(arrays[0], tuple(arrays[2:]), arrays[1], dims=dims, sizes=sizes, ndim=nd,
                           vshape=vshape, target=target),)
    return forward


def _delitem(self, index):
    raise TypeError("Tensor does not support deleting items")


def _index_put_overlapping(view, arrays, dims, sizes, v, target):
    """`expanded[indices] = v`: write each indexed element's memory location (PyTorch warns first)."""
    locs = V.index_map(view._shape, view._stride, view._offset)
    idx = [slice(None)] * len(view._shape)
    for arr, d, n in zip(arrays, dims, sizes):
        arr = np.asarray(arr)
        idx[d] = np.where(arr < 0, arr + n, arr)
    flat_idx = locs[tuple(idx)].reshape(-1)
    st = view._storage
    vals = jnp.broadcast_to(v, target).reshape(-1).astype(st.array.dtype)
    st.array = st.array.reshape(-1).at[flat_idx].set(vals).reshape(st.array.shape)
    view._vc.value += 1


def _check_expand(src, target, dtype):
    """PyTorch's expand error when a value of shape `src` can't fill `target`."""
    if len(src) > len(target):
        raise RuntimeError(f"expand({legacy_type_name(dtype, Dev.CPU)}{{{list(src)}}}, size={list(target)}): "
                           f"the number of sizes provided ({len(target)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({len(src)})")
    for i in range(1, len(src) + 1):
        if src[-i] != 1 and src[-i] != target[-i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[-i]}) must match the existing size "
                               f"({src[-i]}) at non-singleton dimension {len(target) - i}.  Target sizes: "
                               f"{list(target)}.  Tensor sizes: {list(src)}")


def _getitem_name(args, kwargs):
    """PyTorch's node of `x[index]`: Index for an advanced index, else the last basic index's view node."""
    index = args[1]
    items = index if isinstance(index, tuple) else (index,)
    for it in items:
        if isinstance(it, (Tensor, list)) or hasattr(it, "__array__") and not isinstance(it, (int, bool)):
            return "IndexBackward0"
    last = Ellipsis
    for it in items:
        if it is not Ellipsis:
            last = it
    if last is Ellipsis:
        return "AliasBackward0"
    if isinstance(last, slice):
        return "SliceBackward0"
    if isinstance(last, bool) or last is None:
        return "UnsqueezeBackward0"
    return "SelectBackward0"


# differentiable: one recorded node per read
register("__getitem__", function=False, kind="view", grad_name=_getitem_name, saves="none")(getitem)
add_tensor_method("__setitem__", setitem)
add_tensor_method("__delitem__", _delitem)

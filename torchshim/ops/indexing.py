"""Indexing ops: index_select, gather, take, scatter family, index_add/copy/fill/reduce, index_put, masked_*,
where, nonzero, argwhere.

Out-of-range indices raise PyTorch's exception and message (JAX would clamp or drop them). Those checks read the
index values on the host, so they run only for concrete arrays: under jax tracing (a `jax.core.Tracer` inside
a Tensor) indices are NOT checked, and out-of-range values give JAX's clamped/filled results. Ops whose output
shape depends on values (nonzero, argwhere, where(cond), masked_select) compute eagerly and raise under tracing.
Duplicate indices in scatter/index_copy/index_put(accumulate=False): which write wins is unspecified (as in
PyTorch). The out= variants check castability like other ops, not PyTorch's per-op "same dtype" rules.
"""
import math
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .. import _indexing as I
from .._promotion import c_name, short_name
from .._tensor import Tensor, _wrap_dim
from . import _dispatch as P
from ._registry import register, write_out

__all__ = ["scalar_to"]

_INTIDX = (D.int64, D.int32)
_CTYPE = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t", "uint8": "uint8_t",
          "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
          "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


# ---- helpers ---------------------------------------------------------------------------------------------
def _need(fname, pos, argname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _host(arr):
    """A numpy copy of a concrete jax array; None under jax tracing (value checks are skipped then)."""
    return None if isinstance(arr, jax.core.Tracer) else np.asarray(arr)


def _first_bad(t, lo, hi):
    """The first (C order) index value of tensor `t` outside [lo, hi); None if none or under tracing."""
    a = _host(t._value)
    if a is None or a.size == 0:
        return None
    bad = (a < lo) | (a >= hi)
    return int(a[bad].flat[0]) if bad.any() else None


def _overflows(v, d):
    """c10's `overflows<To>(v)` for a Python number v and dtype d (PyTorch's checked scalar conversion)."""
    if isinstance(v, bool) or d is D.bool_:
        return False
    if isinstance(v, complex):
        if not d.is_complex and v.imag != 0:
            return True
        return _overflows(v.real, d) or (d.is_complex and _overflows(v.imag, d))
    if d.is_floating_point or d.is_complex:
        if isinstance(v, float) and not math.isfinite(v):
            return False
        return abs(float(v)) > float(ml_dtypes.finfo(d.to_real().np).max)
    info = np.iinfo(d.np)
    if isinstance(v, float):
        return not math.isfinite(v) or v < info.min or v > info.max
    if info.min == 0:  # unsigned: negative ints wrap (two's complement), as in c10
        return v > info.max or (v < 0 and -v > info.max)
    return v < info.min or v > info.max


def scalar_to(value, dtype):
    """A Python number (or concrete 0-dim tensor) as a numpy 0-d array of `dtype`, with PyTorch's overflow error
    ("value cannot be converted to type float without overflow"). Floats to integers truncate."""
    if isinstance(value, Tensor):
        if isinstance(value._value, jax.core.Tracer):
            return value._value.astype(dtype.np)
        value = value.item()
    if not isinstance(value, (int, float, complex)):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if _overflows(value, dtype):
        raise RuntimeError(f"value cannot be converted to type {_CTYPE[dtype.name]} without overflow")
    if dtype is D.bool_:
        return np.asarray(bool(value))
    if isinstance(value, complex) and not dtype.is_complex:
        value = value.real
    if not (dtype.is_floating_point or dtype.is_complex):
        value = int(value)
        if value < 0 and np.iinfo(dtype.np).min == 0:
            value %= int(np.iinfo(dtype.np).max) + 1
        return np.asarray(value, dtype.np)
    return np.asarray(value, np.complex128 if isinstance(value, complex) else np.float64).astype(dtype.np)


def _fill_value(name, value, dtype):
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
                           "dimension(s).")
    return scalar_to(value, dtype)


def _bshape(name_pairs):
    """Broadcast shape of the given shapes, PyTorch's error (a = first shape) when they don't broadcast."""
    try:
        return tuple(np.broadcast_shapes(*name_pairs))
    except ValueError:
        P.broadcast_error(name_pairs)
        raise


def _vec(name, index):
    """index_*'s 'Index is supposed to be a vector' check (IndexError)."""
    if index.ndim > 1:
        raise IndexError(f"{name}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{short_name(index._dtype)} and size: {list(index._shape)}")


def _as1(a):
    return a.reshape(a.shape or (1,))


def _slice_to(a, shape):
    return a[tuple(slice(0, s) for s in shape)]


# ---- the reduction core shared by the scatter and index_* kernels ----------------------------------------------
def _reduce_into(a, idx, src, mode, include_self):
    """`a` with `src` reduced into `a[idx]` by mode set/sum/prod/mean/amax/amin (one traced expression)."""
    dt = a.dtype
    if dt == jnp.bool_:
        a, src = a.astype(jnp.int32), src.astype(jnp.int32)
    src = src.astype(a.dtype)
    if mode == "set":
        r = a.at[idx].set(src)
    else:
        if not include_self:
            if mode in ("sum", "mean"):
                ident = 0
            elif mode == "prod":
                ident = 1
            elif jnp.issubdtype(a.dtype, jnp.inexact):
                ident = -jnp.inf if mode == "amax" else jnp.inf
            else:
                info = jnp.iinfo(a.dtype)
                ident = info.min if mode == "amax" else info.max
            a = a.at[idx].set(jnp.asarray(ident, a.dtype))
        ref = a.at[idx]
        r = {"sum": ref.add, "mean": ref.add, "prod": ref.multiply, "amax": ref.max, "amin": ref.min}[mode](src)
        if mode == "mean":
            cnt = jnp.zeros(a.shape, jnp.int64).at[idx].add(1) + (1 if include_self else 0)
            cnt = jnp.maximum(cnt, 1).astype(a.dtype)
            r = r // cnt if jnp.issubdtype(a.dtype, jnp.integer) else r / cnt
    return (r != 0) if dt == jnp.bool_ else r


def _along(i, dim, nd):
    """Index tuple for .at[]: the index array at `dim`, full slices elsewhere."""
    return (slice(None),) * dim + (i,) + (slice(None),) * (nd - dim - 1)


@P.kernel(static=("dim", "mode", "include_self"))
def _scatter_k(a, i, src, dim, mode, include_self):
    shape, a, i = a.shape, _as1(a), _as1(i)
    src = jnp.broadcast_to(src, i.shape) if src.ndim == 0 else _slice_to(_as1(src), i.shape)
    idx = tuple(i if d == dim else jax.lax.broadcasted_iota(jnp.int64, i.shape, d) for d in range(i.ndim))
    return _reduce_into(a, idx, src, mode, include_self).reshape(shape)


@P.kernel(static=("dim", "mode", "include_self"))
def _index_k(a, i, src, dim, mode, include_self):
    shape, a, i = a.shape, _as1(a), i.reshape(-1)
    src = jnp.broadcast_to(src, a.shape[:dim] + i.shape + a.shape[dim + 1:]) if src.ndim == 0 else \
        src.reshape(a.shape[:dim] + i.shape + a.shape[dim + 1:])
    i = jnp.where(i < 0, i + a.shape[dim], i)
    return _reduce_into(a, _along(i, dim, a.ndim), src, mode, include_self).reshape(shape)


# ---- index_select, gather, take --------------------------------------------------------------------------------
@P.kernel(static=("dim", "out_shape"))
def _select_k(a, i, dim, out_shape):
    return jnp.take(_as1(a), i.reshape(-1), axis=dim).reshape(out_shape)


@register("index_select", out=True, kind="indexing")
def index_select(input, dim, index):
    """`torch.index_select(input, dim, index, *, out=None)`: entries of `input` along `dim` at the 1-D (or 0-d)
    int32/int64 `index`. Negative or too large indices raise IndexError "index out of range in self"."""
    _need("index_select", 3, "index", index)
    dim = _wrap_dim(dim, input.ndim)
    if index._dtype not in _INTIDX:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    size = input._shape[dim] if input.ndim else 1
    if size == 0 and index.numel():
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if _first_bad(index, 0, size) is not None:
        raise IndexError("index out of range in self")
    out_shape = () if not input.ndim else input._shape[:dim] + (index.numel(),) + input._shape[dim + 1:]
    return P.fresh(_select_k(input._value, index._value, dim=dim, out_shape=out_shape), input._dtype,
                   P.check_devices((input, index)))


@P.kernel(static=("dim", "ishape"))
def _gather_k(a, i, dim, ishape):
    a, i = _as1(a), _as1(i)
    sl = tuple(slice(0, s) if d != dim else slice(None) for d, s in enumerate(i.shape))
    return jnp.take_along_axis(a[sl], i, axis=dim).reshape(ishape)


@register("gather", out=True, kind="indexing")
def gather(input, dim, index, *, sparse_grad=False):
    """`torch.gather(input, dim, index, *, sparse_grad=False, out=None)`: out[i][j] = input[index[i][j]][j]
    (dim=0) etc.; the result has index's shape. sparse_grad is accepted and ignored (no sparse gradients)."""
    _need("gather", 3, "index", index)
    dim = _wrap_dim(dim, input.ndim)
    dev = P.check_devices((input, index))
    if index.numel() == 0:
        return P.fresh(jnp.zeros(index._shape, input._dtype.np), input._dtype, dev)
    if index._dtype not in _INTIDX:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    nd = max(input.ndim, 1)
    if nd != max(index.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ish, sh = index._shape or (1,), input._shape or (1,)
    for d in range(nd):
        if d != dim and ish[d] > sh[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index._shape)} to be no "
                               f"larger than self {list(input._shape)} apart from dimension {dim}")
    bad = _first_bad(index, 0, sh[dim])
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {sh[dim]}")
    return P.fresh(_gather_k(input._value, index._value, dim=dim, ishape=index._shape), input._dtype, dev)


@P.kernel
def _take_k(a, i):
    a = a.reshape(-1)
    return a[jnp.where(i < 0, i + a.shape[0], i)]


@register("take", out=True, kind="indexing")
def take(input, index):
    """`torch.take(input, index, *, out=None)`: `input.flatten()[index]` (int64 index, negatives wrap); the
    result has index's shape."""
    _need("take", 2, "index", index)
    if index._dtype is not D.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {short_name(index._dtype)}")
    n = input.numel()
    if n == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    bad = _first_bad(index, -n, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return P.fresh(_take_k(input._value, index._value), input._dtype, P.check_devices((input, index)))


# ---- scatter family ------------------------------------------------------------------------------------------
def _scatter_checks(self, dim, index, src):
    """PyTorch's scatter_gather_dtype_check + scatter_shape_check; returns the wrapped dim."""
    dim = _wrap_dim(dim, self.ndim)
    if index.numel() and index._dtype not in _INTIDX:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    nd = max(self.ndim, 1)
    if nd != max(index.ndim, 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    ish, sh = index._shape or (1,), self._shape or (1,)
    wrong = any(d != dim and ish[d] > sh[d] for d in range(nd))
    if not wrong and isinstance(src, Tensor):
        for d in range(nd):
            if ish[d] > (src._shape[_wrap_dim(d, src.ndim)] if src.ndim else 1):
                wrong = True
                break
    msg = f"Expected index {list(index._shape)} to be no larger than self {list(self._shape)} apart from dimension {dim}"
    if isinstance(src, Tensor):
        if max(src.ndim, 1) != nd:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        msg += f" and to be no larger size than src {list(src._shape)}"
    if wrong:
        raise RuntimeError(msg)
    bad = _first_bad(index, 0, sh[dim])
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {sh[dim]}")
    return dim


def _scatter(self, dim, index, src, mode, include_self=True):
    if index.numel() == 0:
        return P.fresh(self._value, self._dtype, self._storage.device)
    s = src._value if isinstance(src, Tensor) else scalar_to(src, self._dtype)
    dev = P.check_devices([t for t in (self, index, src) if isinstance(t, Tensor)])
    out = _scatter_k(self._value, index._value, s, dim=dim, mode=mode, include_self=include_self)
    return P.fresh(out, self._dtype, dev)


@register("scatter", inplace=True, out=True, kind="indexing")
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """`torch.scatter(input, dim, index, src, *, reduce=None, out=None)` / `(input, dim, index, value, ...)`:
    a copy of input with self[index[i][j]][j] = src[i][j] (dim=0), src a Tensor or a number. reduce='add' or
    'multiply' combines instead (deprecated for Tensor src, with PyTorch's warning; use scatter_reduce)."""
    _need("scatter", 3, "index", index)
    if src is None:
        src = value
    if not isinstance(src, (Tensor, int, float, complex)):
        raise TypeError(f"scatter() received an invalid combination of arguments - got (Tensor, int, Tensor, "
                        f"{type(src).__name__}), but expected one of:")
    dim = _scatter_checks(input, dim, index, src if isinstance(src, Tensor) else None)
    mode = "set"
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if isinstance(src, Tensor):
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
                          "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
                          "options.", UserWarning, stacklevel=3)
        mode = "sum" if reduce == "add" else "prod"
    return _scatter(input, dim, index, src, mode)


@register("scatter_add", inplace=True, out=True, kind="indexing")
def scatter_add(input, dim, index, src):
    """`torch.scatter_add(input, dim, index, src, *, out=None)`: like scatter, summing into input
    (duplicates accumulate)."""
    _need("scatter_add", 3, "index", index)
    _need("scatter_add", 4, "src", src)
    return _scatter(input, _scatter_checks(input, dim, index, src), index, src, "sum")


_REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin", "max": "amax",
           "min": "amin"}


@register("scatter_reduce", inplace=True, out=True, kind="indexing")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """`torch.scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None)`; reduce 'sum',
    'prod', 'mean' (integer mean floors), 'amax', 'amin'. include_self=False ignores input's values at the
    scattered positions."""
    _need("scatter_reduce", 3, "index", index)
    _need("scatter_reduce", 4, "src", src)
    dim = _scatter_checks(input, dim, index, src)
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if _REDUCE[reduce] == "mean" and input._dtype is D.bool_:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    return _scatter(input, dim, index, src, _REDUCE[reduce], include_self)


# ---- index_add, index_copy, index_fill, index_reduce ------------------------------------------------------------
def _index_func_checks(func, self, dim, index, source):
    """PyTorch's index_func_meta_impl checks (index_add / index_reduce); returns the wrapped dim."""
    _need(func, 3, "index", index)
    _need(func, 4, "source", source)
    dim = _wrap_dim(dim, self.ndim)
    _vec(func, index)
    if index._dtype not in _INTIDX:
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: {short_name(index._dtype)}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"{func}_(): self ({short_name(self._dtype)}) and source ({short_name(source._dtype)}) "
                           "must have the same scalar type")
    if not (dim == 0 or dim < source.ndim):
        raise RuntimeError(f"{func}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                           f"{source.ndim}")
    ssize = source._shape[dim] if source.ndim else 1
    if index.numel() != ssize:
        raise RuntimeError(f"{func}_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({ssize}), for dim: {dim}")
    a, b = list(self._shape), list(source._shape)
    if a and b:
        del a[dim], b[dim]
    if a != b:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(self._shape)} source.shape = {list(source._shape)}")
    return dim


def _index_run(self, dim, index, src, mode, include_self=True):
    dev = P.check_devices([t for t in (self, index, src) if isinstance(t, Tensor)])
    s = src._value if isinstance(src, Tensor) else src
    return P.fresh(_index_k(self._value, index._value, s, dim=dim, mode=mode, include_self=include_self),
                   self._dtype, dev)


@register("index_add", inplace=True, out=True, kind="indexing")
def index_add(input, dim, index, source, *, alpha=1):
    """`torch.index_add(input, dim, index, source, *, alpha=1, out=None)`: input[..., index[i], ...] +=
    alpha * source[..., i, ...] (duplicates accumulate). alpha is converted to input's dtype (truncated for
    integers), as in PyTorch."""
    dim = _index_func_checks("index_add", input, dim, index, source)
    size = input._shape[dim] if input.ndim else 1
    bad = _first_bad(index, 0, size)
    if bad is not None and not (input.ndim > 1 and input.numel() == 0):
        if input.ndim > 1 and index._dtype is D.int64:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        raise IndexError("index out of range in self")
    a = scalar_to(alpha, input._dtype)
    src = source if alpha == 1 else P.fresh(_mul_k(source._value, a), source._dtype, source._storage.device)
    return _index_run(input, dim, index, src, "sum")


@P.kernel
def _mul_k(x, a):
    return (x.astype(jnp.int32) * a.astype(jnp.int32) != 0) if x.dtype == jnp.bool_ else x * a


@register("index_copy", inplace=True, out=True, kind="indexing")
def index_copy(input, dim, index, source):
    """`torch.index_copy(input, dim, index, source, *, out=None)`: input[..., index[i], ...] =
    source[..., i, ...]; index must be int64 and in range (no negative indices)."""
    _need("index_copy", 3, "index", index)
    _need("index_copy", 4, "source", source)
    dim = _wrap_dim(dim, input.ndim)
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    n = index.numel()
    if source.ndim == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    if index._dtype is not D.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {short_name(index._dtype)}")
    if input._dtype is not source._dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{short_name(input._dtype)} and (source) {short_name(source._dtype)}")
    a, b = list(input._shape), list(source._shape)
    if a:
        del a[dim]
    if b:
        del b[dim]
    if a != b:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                           f"slice shape: {' '.join(map(str, a))} at dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, b))} at dimension 0.")
    if source.ndim and n != source._shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source._shape[dim]})")
    size = input._shape[dim] if input.ndim else 1
    bad = _first_bad(index, 0, size)
    if bad is not None:
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}")
    return _index_run(input, dim, index, source, "set")


@register("index_fill", inplace=True, kind="indexing")
def index_fill(input, dim, index, value):
    """`torch.index_fill(input, dim, index, value)`: input with the entries at int64 `index` along `dim` set to
    the number (or 0-dim tensor) `value`; negative indices count from the end."""
    _need("index_fill", 3, "index", index)
    if isinstance(value, Tensor):
        if value.ndim:
            _fill_value("index_fill_", value, input._dtype)
        if not isinstance(value._value, jax.core.Tracer):
            value = value.item()
    if index._dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    dim = _wrap_dim(dim, max(input.ndim, 1))
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, complex) and not input._dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    v = scalar_to(value, input._dtype)
    size = input._shape[dim] if input.ndim else 1
    bad = _first_bad(index, -size, size)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    return _index_run(input, dim, index, v, "set")


@register("index_reduce", inplace=True, out=True, kind="indexing")
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """`torch.index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None)`; reduce 'prod',
    'mean' (integer mean floors), 'amax' or 'amin'. Warns that it is beta, like PyTorch."""
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    dim = _index_func_checks("index_reduce", input, dim, index, source)
    if input._dtype is D.bool_:
        raise NotImplementedError('"index_func_" not implemented for \'Bool\'')
    if _first_bad(index, 0, input._shape[dim] if input.ndim else 1) is not None:
        raise IndexError("index out of range in self")
    return _index_run(input, dim, index, source, reduce, include_self)


# ---- index_put ----------------------------------------------------------------------------------------------
@P.kernel(static=("dims", "sizes", "ndim", "accumulate"))
def _put_k(a, arrays, v, dims, sizes, ndim, accumulate):
    idx = [slice(None)] * ndim
    for arr, d, n in zip(arrays, dims, sizes):
        idx[d] = jnp.where(arr < 0, arr + n, arr)
    return _reduce_into(a, tuple(idx), v, "sum" if accumulate else "set", True)


@register("index_put", inplace=True, kind="indexing")
def index_put(input, indices, values, accumulate=False):
    """`torch.index_put(input, indices, values, accumulate=False)`: `input[indices] = values` on a copy;
    indices is a tuple of integer/bool tensors, values a tensor of input's dtype. accumulate=True sums the
    values of duplicate indices."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 2) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    _need("index_put", 3, "values", values)
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got {type(t).__name__}")
    if values._dtype is not input._dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{short_name(input._dtype)} for the destination and {short_name(values._dtype)} for "
                           "the source.")
    used = sum(max(t.ndim, 1) if t._dtype in (D.bool_, D.uint8) else 1 for t in indices)
    if used > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {used})")
    view, advs = I._parse(input, tuple(indices))
    if not advs:
        return P.fresh(input._value, input._dtype, input._storage.device)
    I._check_bounds(view, advs)
    arrays, dims, sizes, nd = I._adv_args(view, advs)
    target = jax.eval_shape(lambda x, a: I._gather(x, a, dims=dims, sizes=sizes, ndim=nd),
                            jax.ShapeDtypeStruct(view._shape, view._value.dtype), arrays).shape
    v = I._strip_leading_ones(values._value, len(target))
    if not _bcastable(v.shape, target) or np.broadcast_shapes(tuple(v.shape), tuple(target)) != tuple(target):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values._shape)} cannot be broadcast to "
                           f"indexing result of shape {list(target)}")
    v = jnp.broadcast_to(v, target)
    out = _put_k(input._value, arrays, v, dims=dims, sizes=sizes, ndim=nd, accumulate=bool(accumulate))
    return P.fresh(out, input._dtype, P.check_devices((input, values)))


def _bcastable(a, b):
    try:
        np.broadcast_shapes(tuple(a), tuple(b))
        return True
    except ValueError:
        return False


# ---- masked ops ---------------------------------------------------------------------------------------------
@P.kernel(static=("shape",))
def _masked_fill_k(a, m, v, shape):
    return jnp.where(jnp.broadcast_to(m, shape), v.astype(a.dtype), jnp.broadcast_to(a, shape))


@register("masked_fill", inplace=True, kind="indexing")
def masked_fill(input, mask, value):
    """`torch.masked_fill(input, mask, value)`: input (broadcast with the bool `mask`) with `value` (a number or
    0-dim tensor, converted to input's dtype with PyTorch's overflow check) where mask is True."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill() received an invalid combination of arguments - got "
                        f"({_argtypes(input, mask, value)}), but expected one of:")
    if mask._dtype is not D.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {c_name(mask._dtype)}")
    v = _fill_value("masked_fill_", value, input._dtype)
    shape = _bshape((mask._shape, input._shape))
    dev = P.check_devices((input, mask))
    return P.fresh(_masked_fill_k(input._value, mask._value, v, shape=shape), input._dtype, dev)


@P.kernel(static=("shape",))
def _masked_select_k(a, flat_idx, shape):
    return jnp.broadcast_to(a, shape).reshape(-1)[flat_idx]


def _mask_positions(m, shape, what):
    arr = _host(m)
    if arr is None:
        raise RuntimeError(f"{what} has a data-dependent output shape and cannot run under jax tracing; use "
                           "torch.where or masked_fill instead")
    return np.flatnonzero(np.broadcast_to(arr, shape))


@register("masked_select", out=True, kind="indexing")
def masked_select(input, mask):
    """`torch.masked_select(input, mask, *, out=None)`: 1-D tensor of input's entries (broadcast with mask)
    where the bool mask is True. Data-dependent size: computed eagerly, an error under jax tracing."""
    _need("masked_select", 2, "mask", mask)
    if mask._dtype is not D.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _bshape((mask._shape, input._shape))
    pos = _mask_positions(mask._value, shape, "masked_select")
    dev = P.check_devices((input, mask))
    return P.fresh(_masked_select_k(input._value, pos, shape=shape), input._dtype, dev)


@P.kernel(static=("shape",))
def _masked_scatter_k(a, m, s, shape):
    m = jnp.broadcast_to(m, shape)
    a = jnp.broadcast_to(a, shape)
    if s.size == 0:
        return a
    pos = jnp.clip(jnp.cumsum(m.reshape(-1)) - 1, 0, s.size - 1)
    return jnp.where(m, s.reshape(-1)[pos].reshape(shape), a)


def _masked_scatter_checks(input, mask, source):
    _need("masked_scatter", 2, "mask", mask)
    _need("masked_scatter", 3, "source", source)
    if input._dtype is not source._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{short_name(input._dtype)} and {short_name(source._dtype)}")
    if mask._dtype is D.uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                      "please use a mask with dtype torch.bool instead.", UserWarning, stacklevel=4)
    if mask._dtype is not D.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{short_name(mask._dtype)}")


def _masked_scatter_run(input, mask, source, shape):
    m = _host(mask._value)
    if m is not None and np.count_nonzero(np.broadcast_to(m, shape)) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    dev = P.check_devices((input, mask, source))
    return P.fresh(_masked_scatter_k(input._value, mask._value, source._value, shape=shape), input._dtype, dev)


def _masked_scatter_(self, mask, source):
    """`Tensor.masked_scatter_(mask, source)`: mask must expand to self's shape."""
    _masked_scatter_checks(self, mask, source)
    try:
        I._check_expand(mask._shape, self._shape, mask._dtype)
    except RuntimeError as e:  # PyTorch names the mask's type CPUBoolType here
        raise RuntimeError(str(e).replace("torch.BoolTensor", "CPUBoolType")) from None
    self._write(_masked_scatter_run(self, mask, source, self._shape)._value)
    return self


@register("masked_scatter", inplace=_masked_scatter_, kind="indexing")
def masked_scatter(input, mask, source):
    """`torch.masked_scatter(input, mask, source)`: input (broadcast with the bool mask) with the positions where
    mask is True filled, in order, from source's leading elements. The count check is eager-only."""
    _masked_scatter_checks(input, mask, source)
    return _masked_scatter_run(input, mask, source, _bshape((mask._shape, input._shape)))


# ---- where, nonzero, argwhere -----------------------------------------------------------------------------
@P.kernel(static=("cdt",))
def _where_k(c, x, y, cdt):
    return jnp.where(c.astype(jnp.bool_), jnp.asarray(x).astype(cdt), jnp.asarray(y).astype(cdt))


def _argtypes(*xs):
    return ", ".join("Tensor" if isinstance(x, Tensor) else type(x).__name__ for x in xs)


@register("where", method=False, out=True, kind="indexing")
def where(condition, input=None, other=None):
    """`torch.where(condition, input, other, *, out=None)`: input where condition else other, with PyTorch's
    promotion of input/other (tensors or Python numbers) and broadcasting. `torch.where(condition)` is
    `torch.nonzero(condition, as_tuple=True)`. A uint8 condition warns (deprecated), other dtypes raise."""
    if input is None and other is None and isinstance(condition, Tensor):
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor) or input is None or other is None:
        args = [a for a in (condition, input, other) if a is not None]
        raise TypeError(f"where() received an invalid combination of arguments - got ({_argtypes(*args)}), but "
                        "expected one of:")
    if condition._dtype is D.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in "
                      "a future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=3)
    elif condition._dtype is not D.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{short_name(condition._dtype)}")
    for pos, name, x in ((2, "input", input), (3, "other", other)):
        if not isinstance(x, (Tensor, bool, int, float, complex)):
            raise TypeError(f"where(): argument '{name}' (position {pos}) must be Tensor, not {type(x).__name__}")
    _, rdt = P.promote(P.DEFAULT, (input, other))
    vals = [t._value if isinstance(t, Tensor) else t for t in (condition, input, other)]
    _bshape([np.shape(v) for v in vals])
    dev = P.check_devices([t for t in (condition, input, other) if isinstance(t, Tensor)])
    return P.fresh(_where_k(*vals, cdt=rdt.np), rdt, dev)


def _where_method(self, condition, other):
    """`Tensor.where(condition, y)` -> `torch.where(condition, self, y)`."""
    return where(condition, self, other)


Tensor.where = _where_method


def _nonzero_np(input, what):
    a = _host(input._value)
    if a is None:
        raise RuntimeError(f"{what}: the output shape depends on the input's values, so it cannot run under jax "
                           "tracing; use jnp.nonzero(..., size=N) or torch.where(cond, x, y) instead")
    return np.nonzero(a.reshape(a.shape or (1,)))


@register("nonzero", kind="indexing")
def nonzero(input, *, as_tuple=False, out=None):
    """`torch.nonzero(input, *, out=None, as_tuple=False)`: (n, ndim) int64 coordinates of the nonzero entries
    (NaN counts as nonzero), or a tuple of 1-D coordinate tensors. Computed eagerly (data-dependent shape); an
    error under jax tracing. out= must be int64 (PyTorch's rule)."""
    coords = _nonzero_np(input, "torch.nonzero")
    dev = input._storage.device
    if as_tuple:
        return tuple(P.fresh(jax.device_put(c.astype(np.int64), Dev.to_jax(dev)), D.int64, dev) for c in coords)
    res = np.stack(coords, axis=1) if input.ndim else np.zeros((coords[0].size, 0), np.int64)
    res = P.fresh(jax.device_put(res.astype(np.int64), Dev.to_jax(dev)), D.int64, dev)
    if out is None:
        return res
    if out._dtype is not D.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                           f"{short_name(out._dtype)}")
    return write_out(out, res)


@register("argwhere", kind="indexing")
def argwhere(input):
    """`torch.argwhere(input)`: `torch.nonzero(input)`; eager, an error under jax tracing."""
    return nonzero(input)

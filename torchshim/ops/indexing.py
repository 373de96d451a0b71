"""Indexing ops: index_select, gather, take, scatter(_add/_reduce), index_add/copy/fill/reduce, index_put,
masked_fill/select/scatter, where, nonzero, argwhere.

Out-of-range indices raise PyTorch's exception and message (JAX would clamp or drop them). These checks read
the index values on the host, so they run for concrete arrays only: under jax tracing (a `jax.core.Tracer`
inside a Tensor) indices are NOT checked and out-of-range values give JAX's clamped/filled results. Ops whose
output shape depends on values (nonzero, argwhere, where(cond), masked_select) compute eagerly and raise under
tracing. With duplicate indices, scatter/index_copy/index_put(accumulate=False) keep an unspecified one (as
PyTorch). out= checks castability like other ops, not PyTorch's per-op "same dtype" rules.
"""
import math
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .. import _fused
from . import subscript as I
from .._promotion import c_name, short_name
from .._index_check import first_out_of_range
from .._tensor import Tensor, _wrap_dim
from .._warnings import warn_once
from . import _dispatch as P
from .._methods import add_tensor_method
from ..autograd._names import arg, by_tensor
from ._registry import installed, register, write_out

__all__ = ["scalar_to"]

_INTIDX = (D.int64, D.int32)
_CTYPE = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t", "uint8": "uint8_t",
          "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
          "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


# ---- helpers ---------------------------------------------------------------------------------------------
def _need(fname, pos, argname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _combo(fname, *args):
    got = ", ".join("Tensor" if isinstance(x, Tensor) else type(x).__name__ for x in args)
    return TypeError(f"{fname}() received an invalid combination of arguments - got ({got}), but expected "
                     "one of:")


def _host(arr):
    """A numpy copy of a concrete jax array; None under jax tracing (value checks are skipped then)."""
    return None if isinstance(arr, jax.core.Tracer) else np.asarray(arr)


def _check_index(t, lo, hi, error):
    """Raise `error(bad)` (an exception, or None for no error) for the first (C order) value `bad` of index
    tensor `t` outside [lo, hi): now; never under jax tracing; in fused eager mode with `t`'s values not
    computed yet, once they are (the error then names the op's line)."""
    if t.numel() == 0:
        return
    if _fused.pending(t._storage.array):
        def check(a):
            bad = (a < lo) | (a >= hi)
            e = error(int(a[bad].flat[0])) if bad.any() else None
            if e is not None:
                raise e
        _fused.check_later(t._value, check)
        return
    bad = first_out_of_range(t, lo, hi)
    e = None if bad is None else error(bad)
    if e is not None:
        raise e


def _overflows(v, d):
    """c10's `overflows<To>(v)` for a Python number v and dtype d (PyTorch's checked scalar conversion)."""
    if isinstance(v, bool) or d is D.bool_:
        return False
    if isinstance(v, complex):
        if not d.is_complex and v.imag != 0:
            return True
        return _overflows(v.real, d) or (d.is_complex and _overflows(v.imag, d))
    if d.is_floating_point or d.is_complex:
        return not (isinstance(v, float) and not math.isfinite(v)) and \
            abs(float(v)) > float(ml_dtypes.finfo(d.to_real().np).max)
    info = np.iinfo(d.np)
    if isinstance(v, float):
        return not math.isfinite(v) or v < info.min or v > info.max
    if info.min == 0:  # unsigned: negative ints wrap (two's complement), as in c10
        return v > info.max or (v < 0 and -v > info.max)
    return v < info.min or v > info.max


def scalar_to(value, dtype):
    """A Python number (or 0-dim tensor) as a numpy 0-d array of `dtype`, with PyTorch's overflow error
    ("value cannot be converted to type float without overflow"). Floats to integers truncate; under tracing a
    0-dim tensor is just cast."""
    if isinstance(value, Tensor):
        if isinstance(value._value, jax.core.Tracer):
            return value._value.astype(dtype.np)
        value = value.item()
    if _overflows(value, dtype):
        raise RuntimeError(f"value cannot be converted to type {_CTYPE[dtype.name]} without overflow")
    if dtype is D.bool_:
        return np.asarray(bool(value))
    if isinstance(value, complex) and not dtype.is_complex:
        value = value.real
    if not (dtype.is_floating_point or dtype.is_complex):
        info = np.iinfo(dtype.np)
        return np.asarray(int(value) % (int(info.max) + 1) if info.min == 0 else int(value), dtype.np)
    return np.asarray(value, np.complex128 if isinstance(value, complex) else np.float64).astype(dtype.np)


def _fill_value(name, value, dtype):
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    return scalar_to(value, dtype)


def _bshape(shapes):
    """Broadcast shape; PyTorch's error (a = first shape) when the shapes don't broadcast."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        P.broadcast_error(shapes)
        raise


def _as1(a):
    return a.reshape(a.shape or (1,))


def _devs(*xs):
    return P.check_devices([t for t in xs if isinstance(t, Tensor)])


# ---- the reduction core shared by the scatter / index_* / index_put kernels
# -------------------------------------
def _prod_into_f(a, idx, src, include_self):
    if not include_self:
        a = a.at[idx].set(jnp.ones((), a.dtype))
    return a.at[idx].multiply(src)


_prod_into = jax.custom_jvp(_prod_into_f, nondiff_argnums=(3,))


def _prod_into_jvp(include_self, primals, tangents):
    """PyTorch's scatter_reduce/index_reduce 'prod' backward (exclusive products where an element is 0) as a
    JVP; jax's own scatter-multiply has no gradient for repeated indices."""
    from jax.custom_derivatives import SymbolicZero
    (a, idx, src), (ta, _, ts) = primals, tangents
    out = _prod_into(a, idx, src, include_self)
    total = jnp.zeros(out.shape, out.dtype)
    if not isinstance(ta, SymbolicZero):
        ma = jnp.where(a == 0, jnp.ones((), a.dtype), a)
        u = ta * (_prod_into(ma, idx, src, include_self) / ma)
        if not include_self:  # grad_self.scatter(dim, index, 0): the scattered positions get none
            u = jnp.where(jnp.zeros(a.shape, bool).at[idx].set(True), jnp.zeros((), u.dtype), u)
        total = total + u
    if not isinstance(ts, SymbolicZero):
        zero = src == 0
        nzero = jnp.zeros(a.shape, a.dtype).at[idx].add(zero.astype(a.dtype))[idx]
        single = zero & (nzero == 1)
        others = _prod_into(a, idx, jnp.where(single, jnp.ones((), src.dtype), src), include_self)[idx]
        coef = jnp.where(single, others, out[idx] / jnp.where(zero, jnp.ones((), src.dtype), src))
        total = total + jnp.zeros(a.shape, a.dtype).at[idx].add(ts * coef)
    return out, total


_prod_into.defjvp(_prod_into_jvp, symbolic_zeros=True)


def reduce_into(a, idx, src, mode, include_self):
    """`a` with `src` reduced into `a[idx]` by mode set/sum/prod/mean/amax/amin (traced inside a kernel)."""
    dt = a.dtype
    if dt == jnp.bool_:
        a = a.astype(jnp.int32)
    src = src.astype(a.dtype)
    if mode == "prod" and jnp.issubdtype(a.dtype, jnp.inexact):
        return _prod_into(a, idx, jnp.broadcast_to(src, jnp.shape(a[idx])), include_self)
    if mode == "set":
        r = a.at[idx].set(src)
    else:
        if not include_self:
            if mode in ("amax", "amin"):
                big = jnp.inf if jnp.issubdtype(a.dtype, jnp.inexact) else jnp.iinfo(a.dtype).max
                ident = -big - (0 if jnp.issubdtype(a.dtype, jnp.inexact) else 1) if mode == "amax" else big
            else:
                ident = 1 if mode == "prod" else 0
            a = a.at[idx].set(jnp.asarray(ident, a.dtype))
        ref = a.at[idx]
        r = {"sum": ref.add, "mean": ref.add, "prod": ref.multiply, "amax": ref.max,
             "amin": ref.min}[mode](src)
        if mode == "mean":
            cnt = jnp.zeros(a.shape, jnp.int64).at[idx].add(1) + (1 if include_self else 0)
            cnt = jnp.maximum(cnt, 1).astype(a.dtype)
            r = r // cnt if jnp.issubdtype(a.dtype, jnp.integer) else r / cnt
    return (r != 0) if dt == jnp.bool_ else r


@P.kernel(static=("dim", "mode", "include_self"))
def _scatter_k(a, i, src, dim, mode, include_self):
    shape, a, i = a.shape, _as1(a), _as1(i)
    src = jnp.broadcast_to(src, i.shape) if src.ndim == 0 else _as1(src)[tuple(slice(0, s) for s in i.shape)]
    idx = tuple(i if d == dim else jax.lax.broadcasted_iota(jnp.int64, i.shape, d) for d in range(i.ndim))
    return reduce_into(a, idx, src, mode, include_self).reshape(shape)


@P.kernel(static=("dim", "mode", "include_self"))
def _index_k(a, i, src, alpha, dim, mode, include_self):
    shape, a, i = a.shape, _as1(a), i.reshape(-1)
    sshape = a.shape[:dim] + i.shape + a.shape[dim + 1:]
    src = jnp.broadcast_to(src, sshape) if src.ndim == 0 else src.reshape(sshape)
    if alpha is not None:
        if src.dtype == jnp.bool_:
            src = src.astype(jnp.int32) * alpha.astype(jnp.int32) != 0
        else:
            src = src * alpha
    idx = (slice(None),) * dim + (jnp.where(i < 0, i + a.shape[dim], i),)
    return reduce_into(a, idx, src, mode, include_self).reshape(shape)


def _index_run(self, dim, index, src, mode, include_self=True, alpha=None):
    s = src._value if isinstance(src, Tensor) else src
    out = _index_k(self._value, index._value, s, alpha, dim=dim, mode=mode, include_self=include_self)
    return P.fresh(out, self._dtype, _devs(self, index, src))


# ---- index_select, gather, take
# --------------------------------------------------------------------------------
@P.kernel(static=("dim", "out_shape"))
def _select_k(a, i, dim, out_shape):
    return jnp.take(_as1(a), i.reshape(-1), axis=dim).reshape(out_shape)


@register("index_select", out=True, kind="indexing")
def index_select(input, dim, index):
    """`torch.index_select(input, dim, index, *, out=None)`: entries of `input` along `dim` at the 1-D (or
    0-d) int32/int64 `index`. Negative or too large indices raise IndexError "index out of range in self"."""
    _need("index_select", 3, "index", index)
    dim = _wrap_dim(dim, input.ndim)
    if index._dtype not in _INTIDX:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    size = input._shape[dim] if input.ndim else 1
    if size == 0 and index.numel():
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    _check_index(index, 0, size, lambda bad: IndexError("index out of range in self"))
    out_shape = input._shape[:dim] + (index.numel(),) + input._shape[dim + 1:] if input.ndim else ()
    return P.fresh(_select_k(input._value, index._value, dim=dim, out_shape=out_shape), input._dtype,
                   _devs(input, index))


@P.kernel(static=("dim", "ishape"))
def _gather_k(a, i, dim, ishape):
    a, i = _as1(a), _as1(i)
    a = a[tuple(slice(0, s) if d != dim else slice(None) for d, s in enumerate(i.shape))]
    return jnp.take_along_axis(a, i, axis=dim).reshape(ishape)


@register("gather", out=True, kind="indexing")
def gather(input, dim, index, *, sparse_grad=False):
    """`torch.gather(input, dim, index, *, sparse_grad=False, out=None)`: out[i][j] = input[index[i][j]][j]
    (dim=0) etc.; the result has index's shape. sparse_grad is accepted and ignored (no sparse gradients)."""
    _need("gather", 3, "index", index)
    dim = _wrap_dim(dim, input.ndim)
    if index.numel() == 0:
        return P.fresh(jnp.zeros(index._shape, input._dtype.np), input._dtype, _devs(input, index))
    if index._dtype not in _INTIDX:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    ish, sh = index._shape or (1,), input._shape or (1,)
    if len(sh) != len(ish):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(len(sh)):
        if d != dim and ish[d] > sh[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index._shape)} to "
                               f"be no larger than self {list(input._shape)} apart from dimension {dim}")
    _check_index(index, 0, sh[dim], lambda bad: RuntimeError(
        f"index {bad} is out of bounds for dimension {dim} with size {sh[dim]}"))
    return P.fresh(_gather_k(input._value, index._value, dim=dim, ishape=index._shape), input._dtype,
                   _devs(input, index))


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
    _check_index(index, -n, n, lambda bad: IndexError(
        f"out of range: tried to access index {bad} on a tensor of {n} elements."))
    return P.fresh(_take_k(input._value, index._value), input._dtype, _devs(input, index))


# ---- scatter family
# ------------------------------------------------------------------------------------------
def _scatter_checks(self, dim, index, src):
    """PyTorch's scatter_gather_dtype_check + scatter_shape_check + bounds; returns the wrapped dim."""
    dim = _wrap_dim(dim, self.ndim)
    ts = isinstance(src, Tensor)
    if index.numel() and index._dtype not in _INTIDX:
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if ts and src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return dim
    ish, sh = index._shape or (1,), self._shape or (1,)
    if len(sh) != len(ish):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(d != dim and ish[d] > sh[d] for d in range(len(sh)))
    if not wrong and ts:  # src.size(d) raises PyTorch's IndexError when src has fewer dims
        wrong = any(ish[d] > (src._shape[_wrap_dim(d, src.ndim)] if src.ndim else 1) for d in range(len(sh)))
    msg = f"Expected index {list(index._shape)} to be no larger than self {list(self._shape)} apart from " \
          f"dimension {dim}"
    if ts:
        if max(src.ndim, 1) != len(sh):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        msg += f" and to be no larger size than src {list(src._shape)}"
    if wrong:
        raise RuntimeError(msg)
    _check_index(index, 0, sh[dim], lambda bad: RuntimeError(
        f"index {bad} is out of bounds for dimension {dim} with size {sh[dim]}"))
    return dim


def _scatter(self, dim, index, src, mode, include_self=True):
    if index.numel() == 0:
        return P.fresh(self._value, self._dtype, self._storage.device)
    s = src._value if isinstance(src, Tensor) else scalar_to(src, self._dtype)
    out = _scatter_k(self._value, index._value, s, dim=dim, mode=mode, include_self=include_self)
    return P.fresh(out, self._dtype, _devs(self, index, src))


def _scatter_name(args, kwargs):
    if kwargs.get("reduce") is not None:
        return "NotImplemented"
    src = arg(args, kwargs, 3, "src")
    src = arg(args, kwargs, 4, "value") if src is None else src
    return "ScatterBackward0" if isinstance(src, Tensor) else "ScatterBackward1"


@register("scatter", inplace=True, out=True, kind="indexing", grad_name=_scatter_name)
def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """`torch.scatter(input, dim, index, src, *, reduce=None, out=None)` / `(input, dim, index, value, ...)`:
    a copy of input with out[index[i][j]][j] = src[i][j] (dim=0), src a Tensor or a number. reduce='add' or
    'multiply' combines instead (deprecated for Tensor src, with PyTorch's warning; use scatter_reduce)."""
    _need("scatter", 3, "index", index)
    src = value if src is None else src
    if not isinstance(src, (Tensor, int, float, complex)):
        raise _combo("scatter", input, dim, index, src)
    dim = _scatter_checks(input, dim, index, src)
    mode = "set"
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if isinstance(src, Tensor):
            warn_once("The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                      "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                      "reduction options.", UserWarning, stacklevel=3)
        mode = "sum" if reduce == "add" else "prod"
    return _scatter(input, dim, index, src, mode)


@register("scatter_add", inplace=True, out=True, kind="indexing")
def scatter_add(input, dim, index, src):
    """`torch.scatter_add(input, dim, index, src, *, out=None)`: scatter that sums into input (duplicates
    accumulate)."""
    _need("scatter_add", 3, "index", index)
    _need("scatter_add", 4, "src", src)
    return _scatter(input, _scatter_checks(input, dim, index, src), index, src, "sum")


_REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin", "max": "amax",
           "min": "amin"}


@register("scatter_reduce", inplace=True, out=True, kind="indexing")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """`torch.scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None)`; reduce 'sum',
    'prod', 'mean' (integer mean floors), 'amax', 'amin' ('max'/'min' accepted, as PyTorch).
    include_self=False ignores input's values at the scattered positions."""
    _need("scatter_reduce", 3, "index", index)
    _need("scatter_reduce", 4, "src", src)
    dim = _scatter_checks(input, dim, index, src)
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if _REDUCE[reduce] == "mean" and input._dtype is D.bool_:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    return _scatter(input, dim, index, src, _REDUCE[reduce], include_self)


# ---- index_add, index_copy, index_fill, index_reduce
# ------------------------------------------------------------
def _index_func_checks(func, self, dim, index, source):
    """PyTorch's index_func_meta_impl checks (index_add / index_reduce); returns (wrapped dim, dim size)."""
    _need(func, 3, "index", index)
    _need(func, 4, "source", source)
    dim = _wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError(f"{func}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{short_name(index._dtype)} and size: {list(index._shape)}")
    if index._dtype not in _INTIDX:
        raise RuntimeError(f"{func}_(): Expected dtype int32/int64 for index but got: "
                           f"{short_name(index._dtype)}")
    if self._dtype is not source._dtype:
        raise RuntimeError(f"{func}_(): self ({short_name(self._dtype)}) and source "
                           f"({short_name(source._dtype)}) must have the same scalar type")
    if not (dim == 0 or dim < source.ndim):
        raise RuntimeError(f"{func}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                           f"{source.ndim}")
    ssize = source._shape[dim] if source.ndim else 1
    if index.numel() != ssize:
        raise RuntimeError(f"{func}_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({ssize}), for dim: {dim}")
    a, b = list(self._shape), list(source._shape)
    if a and b:
        del a[dim], b[dim]
    if a != b:
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified "
                           f"dimension. Got self.shape = {list(self._shape)} source.shape = "
                           f"{list(source._shape)}")
    return dim, (self._shape[dim] if self.ndim else 1)


@register("index_add", inplace=True, out=True, kind="indexing")
def index_add(input, dim, index, source, *, alpha=1):
    """`torch.index_add(input, dim, index, source, *, alpha=1, out=None)`: input[..., index[i], ...] +=
    alpha * source[..., i, ...] (duplicates accumulate); alpha is converted to input's dtype (truncated for
    integers). Out-of-range indices raise PyTorch's RuntimeError (>1-D input, int64 index) or IndexError."""
    dim, size = _index_func_checks("index_add", input, dim, index, source)

    def error(bad):
        if input.ndim > 1 and input.numel() == 0:
            return None
        if input.ndim > 1 and index._dtype is D.int64:
            return RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        return IndexError("index out of range in self")
    _check_index(index, 0, size, error)
    a = scalar_to(alpha, input._dtype)
    return _index_run(input, dim, index, source, "sum", alpha=None if alpha == 1 else a)


@register("index_copy", inplace=True, out=True, kind="indexing")
def index_copy(input, dim, index, source):
    """`torch.index_copy(input, dim, index, source, *, out=None)`: input[..., index[i], ...] =
    source[..., i, ...]; index must be int64 and in range (no negative indices)."""
    _need("index_copy", 3, "index", index)
    _need("index_copy", 4, "source", source)
    dim, n = _wrap_dim(dim, input.ndim), index.numel()
    if index.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if source.ndim == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality "
                         f"must match. Source dimensionality ({source.ndim}), destination dimensionality "
                         f"({input.ndim})")
    if index._dtype is not D.int64:
        raise RuntimeError("index_copy_(): Expected a long tensor for index, but got "
                           f"{short_name(index._dtype)}")
    if input._dtype is not source._dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{short_name(input._dtype)} and (source) {short_name(source._dtype)}")
    a, b = [s for d, s in enumerate(input._shape) if d != dim], [s for d,
                                                                 s in enumerate(source._shape) if d != dim]
    if a != b:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. "
                           f"Destination slice shape: {' '.join(map(str, a))} at dimension {dim} and source "
                           f"slice shape: {' '.join(map(str, b))} at dimension 0.")
    if source.ndim and n != source._shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source._shape[dim]})")
    size = input._shape[dim] if input.ndim else 1
    _check_index(index, 0, size, lambda bad: IndexError(
        f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}"))
    return _index_run(input, dim, index, source, "set")


@register("index_fill", inplace=True, kind="indexing")
def index_fill(input, dim, index, value):
    """`torch.index_fill(input, dim, index, value)`: input with the entries at int64 `index` along `dim` set
    to the number (or 0-dim tensor) `value`; negative indices count from the end."""
    _need("index_fill", 3, "index", index)
    if isinstance(value, Tensor):
        _fill_value("index_fill_", value if value.ndim else 0, input._dtype)
        value = value if isinstance(value._value, jax.core.Tracer) else value.item()
    if index._dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    dim = _wrap_dim(dim, max(input.ndim, 1))
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, complex) and not input._dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    v = scalar_to(value, input._dtype)
    size = input._shape[dim] if input.ndim else 1
    _check_index(index, -size, size, lambda bad: IndexError(
        f"index {bad} is out of bounds for dimension {dim} with size {size}"))
    return _index_run(input, dim, index, v, "set")


@register("index_reduce", inplace=True, out=True, kind="indexing")
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """`torch.index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None)`; reduce 'prod',
    'mean' (integer mean floors), 'amax' or 'amin'. Warns that it is beta, like PyTorch."""
    warn_once("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    dim, size = _index_func_checks("index_reduce", input, dim, index, source)
    if input._dtype is D.bool_:
        raise NotImplementedError('"index_func_" not implemented for \'Bool\'')
    _check_index(index, 0, size, lambda bad: IndexError("index out of range in self"))
    return _index_run(input, dim, index, source, reduce, include_self)


# ---- index_put: the index-put core of `x[indices] = v` (ops/subscript.py) on a copy ------------------------

@register("index_put", inplace=True, kind="indexing")
def index_put(input, indices, values, accumulate=False):
    """`torch.index_put(input, indices, values, accumulate=False)`: `input[indices] = values` on a copy;
    indices is a tuple of integer/bool tensors, values a tensor of input's dtype (broadcast to the indexed
    shape). accumulate=True sums the values of duplicate indices."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' (position 2) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    _need("index_put", 3, "values", values)
    for k, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got {type(t).__name__}")
    I.check_put_dtypes(input._dtype, values._dtype)
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
    vshape = values._shape
    while len(vshape) > len(target) and vshape[0] == 1:
        vshape = vshape[1:]
    I.check_put_shape(vshape, values._shape, target)
    out = I.put_kernel(input._value, arrays, values._value, dims=dims, sizes=sizes, ndim=nd, vshape=vshape,
                       target=target, accumulate=bool(accumulate))
    return P.fresh(out, input._dtype, _devs(input, values))


# ---- masked ops
# ---------------------------------------------------------------------------------------------
@P.kernel(static=("shape",))
def _masked_fill_k(a, m, v, shape):
    return jnp.where(jnp.broadcast_to(m, shape), v.astype(a.dtype), jnp.broadcast_to(a, shape))


@register("masked_fill", inplace=True, kind="indexing",
          grad_name=by_tensor(2, "value", "MaskedFillBackward1", "MaskedFillBackward0"))
def masked_fill(input, mask, value):
    """`torch.masked_fill(input, mask, value)`: input (broadcast with the bool `mask`) with `value` (a number
    or 0-dim tensor, converted to input's dtype with PyTorch's overflow check) where mask is True."""
    if not isinstance(mask, Tensor):
        raise _combo("masked_fill", input, mask, value)
    if mask._dtype is not D.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{c_name(mask._dtype)}")
    v = _fill_value("masked_fill_", value, input._dtype)
    shape = _bshape((mask._shape, input._shape))
    return P.fresh(_masked_fill_k(input._value, mask._value, v, shape=shape), input._dtype,
                   _devs(input, mask))


@P.kernel(static=("shape",))
def _masked_select_k(a, flat_idx, shape):
    return jnp.broadcast_to(a, shape).reshape(-1)[flat_idx]


@register("masked_select", out=True, kind="indexing")
def masked_select(input, mask):
    """`torch.masked_select(input, mask, *, out=None)`: 1-D tensor of input's entries (broadcast with mask)
    where the bool mask is True. Data-dependent size: computed eagerly, an error under jax tracing."""
    _need("masked_select", 2, "mask", mask)
    if mask._dtype is not D.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _bshape((mask._shape, input._shape))
    m = _host(mask._value)
    if m is None:
        raise RuntimeError("masked_select has a data-dependent output shape and cannot run under jax "
                           "tracing; use torch.where or masked_fill instead")
    pos = np.flatnonzero(np.broadcast_to(m, shape))
    return P.fresh(_masked_select_k(input._value, pos, shape=shape), input._dtype, _devs(input, mask))


@P.kernel(static=("shape",))
def _masked_scatter_k(a, m, s, shape):
    m, a = jnp.broadcast_to(m, shape), jnp.broadcast_to(a, shape)
    if s.size == 0:
        return a
    pos = jnp.clip(jnp.cumsum(m.reshape(-1)) - 1, 0, s.size - 1)
    return jnp.where(m, s.reshape(-1)[pos].reshape(shape), a)


def _masked_scatter(input, mask, source, inplace):
    _need("masked_scatter", 2, "mask", mask)
    _need("masked_scatter", 3, "source", source)
    if input._dtype is not source._dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{short_name(input._dtype)} and {short_name(source._dtype)}")
    if mask._dtype is D.uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
                      "deprecated,please use a mask with dtype torch.bool instead.", UserWarning,
                      stacklevel=3)
    if mask._dtype is not D.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{short_name(mask._dtype)}")
    if inplace:  # the mask must expand to self's shape; PyTorch names its type CPUBoolType here
        try:
            I._check_expand(mask._shape, input._shape, mask._dtype)
        except RuntimeError as e:
            raise RuntimeError(str(e).replace("torch.BoolTensor", "CPUBoolType")) from None
    shape = input._shape if inplace else _bshape((mask._shape, input._shape))
    m = _host(mask._value)
    if m is not None and np.count_nonzero(np.broadcast_to(m, shape)) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return _masked_scatter_k(input._value, mask._value, source._value, shape=shape)


def _masked_scatter_(self, mask, source):
    """`Tensor.masked_scatter_(mask, source)`: in place; mask must expand to self's shape."""
    new = _masked_scatter(self, mask, source, True)
    if self._requires_grad or source._requires_grad or self._diff_view:
        new = self.masked_scatter(mask, source)  # the recorded (differentiable) op
    return self._assign_from(new, "masked_scatter_")


@register("masked_scatter", inplace=_masked_scatter_, kind="indexing")
def masked_scatter(input, mask, source):
    """`torch.masked_scatter(input, mask, source)`: input (broadcast with the bool mask) with the positions
    where mask is True filled, in order, from source's leading elements. The source-size check is
    eager-only."""
    return P.fresh(_masked_scatter(input, mask, source, False), input._dtype, _devs(input, mask, source))


# ---- where, nonzero, argwhere -----------------------------------------------------------------------------
@P.kernel(static=("cdt",))
def _where_k(c, x, y, cdt):
    return jnp.where(c.astype(jnp.bool_), jnp.asarray(x).astype(cdt), jnp.asarray(y).astype(cdt))


@register("where", method=False, out=True, kind="indexing")
def where(condition, input=None, other=None):
    """`torch.where(condition, input, other, *, out=None)`: input where condition else other, with PyTorch's
    promotion of input/other (tensors or Python numbers) and broadcasting. `torch.where(condition)` is
    `torch.nonzero(condition, as_tuple=True)`. A uint8 condition warns (deprecated), other dtypes raise."""
    if input is None and other is None and isinstance(condition, Tensor):
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor) or input is None or other is None:
        raise _combo("where", *[a for a in (condition, input, other) if a is not None])
    if condition._dtype is D.uint8:
        warn_once("where received a uint8 condition tensor. This behavior is deprecated and will be removed "
                  "in a future version of PyTorch. Use a boolean condition instead.", UserWarning,
                  stacklevel=3)
    elif condition._dtype is not D.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{short_name(condition._dtype)}")
    for pos, name, x in ((2, "input", input), (3, "other", other)):
        if not isinstance(x, (Tensor, bool, int, float, complex)):
            raise TypeError(f"where(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(x).__name__}")
    rdt = P.promote(P.DEFAULT, (input, other))[1]
    vals = [t._value if isinstance(t, Tensor) else t for t in (condition, input, other)]
    _bshape([np.shape(v) for v in vals])
    return P.fresh(_where_k(*vals, cdt=rdt.np), rdt, _devs(condition, input, other))


def _where_method(self, condition, other):
    """`Tensor.where(condition, y)` -> `torch.where(condition, self, y)` (the installed, differentiable
    one)."""
    return installed("where")(condition, self, other)


add_tensor_method("where", _where_method)  # the method's argument order differs from the function's


@register("nonzero", kind="indexing", method=False)
def nonzero(input, *, as_tuple=False, out=None):
    """`torch.nonzero(input, *, out=None, as_tuple=False)`: (n, ndim) int64 coordinates of the nonzero entries
    (NaN counts as nonzero), or a tuple of 1-D coordinate tensors. The shape depends on the values: computed
    eagerly on the host, an error under jax tracing. out= must be int64 (PyTorch's rule)."""
    if as_tuple and out is not None:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    a = _host(input._value)
    if a is None:
        raise RuntimeError("torch.nonzero: the output shape depends on the input's values, so it cannot run "
                           "under jax tracing; use jnp.nonzero(..., size=N) or torch.where(cond, x, y) "
                           "instead")
    coords = np.nonzero(a.reshape(a.shape or (1,)))
    dev = input._storage.device
    if as_tuple:
        return tuple(P.fresh(jax.device_put(c.astype(np.int64), Dev.to_jax(dev)), D.int64,
                             dev) for c in coords)
    res = np.stack(coords, axis=1) if input.ndim else np.zeros((coords[0].size, 0), np.int64)
    res = P.fresh(jax.device_put(res.astype(np.int64), Dev.to_jax(dev)), D.int64, dev)
    if out is not None and out._dtype is not D.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                           f"{short_name(out._dtype)}")
    return res if out is None else write_out(out, res)


def _nonzero_method(self, *, as_tuple=False, **kwargs):
    """`Tensor.nonzero(*, as_tuple=False)`: see `torch.nonzero` (the method takes no `out=`, as PyTorch's)."""
    if "out" in kwargs:
        if "as_tuple" in kwargs or as_tuple is not False:
            raise TypeError("nonzero() received an invalid combination of arguments - got (out=Tensor, "
                            "as_tuple=bool, ), but expected one of:\n * ()\n * (*, bool as_tuple)\n"
                            "      didn't match because some of the keywords were incorrect: out\n")
        raise TypeError('nonzero() missing 1 required positional arguments: "as_tuple"')
    if kwargs:
        raise TypeError(f"nonzero() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return nonzero(self, as_tuple=as_tuple)


_nonzero_method.__name__ = _nonzero_method.__qualname__ = "nonzero"
add_tensor_method("nonzero", _nonzero_method)


@register("argwhere", kind="indexing")
def argwhere(input):
    """`torch.argwhere(input)`: `torch.nonzero(input)`; eager, an error under jax tracing."""
    return nonzero(input)

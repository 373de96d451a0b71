"""Order statistics and sorting: max/min, amax/amin, argmax/argmin, median, nanmedian, mode, kthvalue, sort,
argsort, msort, topk, cummax/cummin, unique.

Sorting is always stable (NaN sorts as the largest value, -0.0 equals 0.0), which is what PyTorch's CPU sort
does for `stable=True`. Each op is one jitted kernel with dims/k/flags static, except `unique`, whose output
shape depends on the values: it runs eagerly and refuses to run under jax tracing.
"""
import builtins as _b
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .. import return_types as R
from .._tensor import Tensor, _wrap_dim
from ..autograd._names import arg, if_given, with_dim
from . import _dispatch as P
from . import _subgrad as S
from ._registry import register
from .reduction import (KD, check_nonempty, device_of, dim_of, dims_of, invalid_args, keepdim_of,
                        not_implemented, run_reduce)

_BAREBONES_UINT = (D.uint16, D.uint32, D.uint64)


def _pair(rtype, input, v, i):
    dev = device_of(input)
    return rtype((P.fresh(v, input._dtype, dev), P.fresh(i, D.int64, dev)))


def _check_sortable(d, kernel_name):
    """NotImplementedError for dtypes PyTorch's CPU order-statistic kernels lack (bool, complex, uint16+)."""
    if d is D.bool_ or d.is_complex or d in _BAREBONES_UINT:
        raise not_implemented(kernel_name, d)


def _sorted_along(a, dim, descending=False):
    """(sorted values, int64 original indices) along dim; stable."""
    idx = jnp.argsort(a, axis=dim, descending=descending, stable=True).astype(jnp.int64)
    return jnp.take_along_axis(a, idx, axis=dim), idx


def _pick(s, idx, pos, dim, keepdim):
    """Values and indices at per-slice sorted position `pos` (keepdims-shaped int array)."""
    v, i = jnp.take_along_axis(s, pos, axis=dim), jnp.take_along_axis(idx, pos, axis=dim)
    if not keepdim:
        v, i = jnp.squeeze(v, dim), jnp.squeeze(i, dim)
    return v, i


# ---- max / min ---------------------------------------------------------------------------------------------
@partial(P.kernel, static=("is_max", "dim", "keepdim"))
def _arg_k(a, *, is_max, dim, keepdim):
    """(values, first index of the max/min along dim); NaN wins, like PyTorch. dim=None: flattened index."""
    if a.ndim == 0:
        return a, jnp.zeros((), jnp.int64)
    f = jnp.argmax if is_max else jnp.argmin
    idx = f(a, axis=dim, keepdims=True).astype(jnp.int64)
    if dim is None:
        flat = a.reshape(-1)
        v = flat[idx.reshape(())]
        return (jnp.full(idx.shape, v) if keepdim else v), (idx if keepdim else idx.reshape(()))
    v = jnp.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        v, idx = jnp.squeeze(v, dim), jnp.squeeze(idx, dim)
    return v, idx


def _check_ordered(name, d, kernel_name, complex_msg=None):
    if d.is_complex:
        if complex_msg:
            raise RuntimeError(complex_msg)
        raise not_implemented(kernel_name, d)
    if d in _BAREBONES_UINT:
        raise not_implemented(kernel_name, d)


def _max_min(name, input, dim, keepdim, other):
    is_max = name == "max"
    if isinstance(dim, Tensor) or other is not None:
        if dim is not None and other is not None:
            raise invalid_args(name, input, *(() if keepdim is KD else (keepdim,)), dim=dim, other=other)
        from ._registry import OPS
        return OPS["maximum" if is_max else "minimum"].fn(input, other if other is not None else dim)
    if dim is None:
        if keepdim is not KD:
            raise invalid_args(name, input, keepdim=keepdim)
        _check_ordered(name, input._dtype, f"{name}_all")
        check_nonempty(name, input._shape, (), True)
        return run_reduce("max_all" if is_max else "min_all", input, tuple(range(input.ndim)), False,
                          input._dtype, input._dtype)
    if not isinstance(dim, int) or isinstance(dim, _b.bool):
        raise invalid_args(name, input, dim)
    kd = keepdim_of(name, keepdim, True)
    _check_ordered(name, input._dtype, f"{name}_cpu", f"{name}(): does not support complex input")
    d = dim_of(dim, input.ndim)
    if input.ndim:
        check_nonempty(name, input._shape, (d,), False)
    v, i = _arg_k(input._value, is_max=is_max, dim=d if input.ndim else None, keepdim=kd)
    dev = device_of(input)
    return (R.max if is_max else R.min)((P.fresh(v, input._dtype, dev), P.fresh(i, D.int64, dev)))


def _max_min_name(base, full, dim):
    """Max/Min: `<base>Backward<full>` over all elements, `<base>Backward<dim>` along a dim, Maximum/Minimum
    with a second tensor."""
    def f(args, kwargs):
        d = arg(args, kwargs, 1, "dim")
        if isinstance(d, Tensor) or kwargs.get("other") is not None:
            return "MaximumBackward0" if base == "Max" else "MinimumBackward0"
        return f"{base}Backward{dim if d is not None else full}"
    return f


@register("max", out=True, kind="reduction", grad_name=_max_min_name("Max", "1", "0"))
def max(input, dim=None, keepdim=KD, *, other=None):  # noqa: A001
    """`torch.max(input)` -> the largest element; `torch.max(input, dim, keepdim=False, *, out=None)` ->
    `torch.return_types.max(values, indices)` (first index of the max; NaN propagates and its index wins);
    `torch.max(input, other)` -> `torch.maximum(input, other)`."""
    return _max_min("max", input, dim, keepdim, other)


@register("min", out=True, kind="reduction", grad_name=_max_min_name("Min", "1", "0"))
def min(input, dim=None, keepdim=KD, *, other=None):  # noqa: A001
    """`torch.min(input)`; `torch.min(input, dim, keepdim=False, *, out=None)` -> `torch.return_types.min`
    (first index; NaN propagates); `torch.min(input, other)` -> `torch.minimum(input, other)`."""
    return _max_min("min", input, dim, keepdim, other)


def _amax_amin(name, input, dim, keepdim):
    full = dim is None or (not isinstance(dim, int) and len(dim) == 0)
    kd = keepdim_of(name, keepdim, not full)
    _check_ordered(name, input._dtype, f"{name[1:]}_values_cpu")
    dims = dims_of(dim, input.ndim)
    check_nonempty(name, input._shape, dims, full)
    return run_reduce(name, input, dims, kd, input._dtype, input._dtype)


@register("amax", out=True, kind="reduction")
def amax(input, dim=(), keepdim=KD):
    """`torch.amax(input, dim=(), keepdim=False, *, out=None)`: max over dims (all when dim is ()); NaN
    propagates. Empty reductions raise like PyTorch."""
    return _amax_amin("amax", input, dim, keepdim)


@register("amin", out=True, kind="reduction")
def amin(input, dim=(), keepdim=KD):
    """`torch.amin(input, dim=(), keepdim=False, *, out=None)`: min over dims (all when dim is ())."""
    return _amax_amin("amin", input, dim, keepdim)


def _argmax_argmin(name, input, dim, keepdim):
    if dim is not None and (not isinstance(dim, int) or isinstance(dim, _b.bool)):
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    kd = keepdim_of(name, keepdim, dim is not None)
    d = input._dtype
    if d is D.bool_ or d.is_complex:
        raise RuntimeError(f"{name}(): does not support {'bool' if d is D.bool_ else 'complex'} input")
    if d in _BAREBONES_UINT:
        raise not_implemented(f"{name}_cpu", d)
    if dim is None:
        check_nonempty(name, input._shape, (), True, IndexError)
        _, i = _arg_k(input._value, is_max=name == "argmax", dim=None, keepdim=kd)
    else:
        dd = dim_of(dim, input.ndim)
        if input.ndim:
            check_nonempty(name, input._shape, (dd,), False)
        _, i = _arg_k(input._value, is_max=name == "argmax", dim=dd if input.ndim else None, keepdim=kd)
    return P.fresh(i, D.int64, device_of(input))


@register("argmax", out=True, kind="reduction")
def argmax(input, dim=None, keepdim=KD):
    """`torch.argmax(input, dim=None, keepdim=False, *, out=None)`: index of the first max (of the flattened
    input when dim is None); a NaN counts as the max."""
    return _argmax_argmin("argmax", input, dim, keepdim)


@register("argmin", out=True, kind="reduction")
def argmin(input, dim=None, keepdim=KD):
    """`torch.argmin(input, dim=None, keepdim=False, *, out=None)`: index of the first min; NaN counts."""
    return _argmax_argmin("argmin", input, dim, keepdim)


# ---- median, nanmedian, kthvalue, mode --------------------------------------------------------------------
@partial(P.kernel, static=("dim", "keepdim", "ignore_nan"))
def _median_k(a, *, dim, keepdim, ignore_nan):
    """Lower median along dim (dim None: of the flattened input, values only)."""
    full = dim is None
    if full:
        a, dim = a.reshape(-1), 0
        if a.shape[0] == 0:
            fill = jnp.nan if jnp.issubdtype(a.dtype, jnp.inexact) else jnp.iinfo(a.dtype).min
            return jnp.full((), fill, a.dtype), jnp.zeros((), jnp.int64)
        v, i = _median_k(a, dim=0, keepdim=False, ignore_nan=ignore_nan)
        if jnp.issubdtype(a.dtype, jnp.inexact):
            v = S.evenly_select(a, jax.lax.stop_gradient(v))  # gradient split among the equal elements
        return v, i
    elif a.ndim == 0:
        return a, jnp.zeros((), jnp.int64)
    n = a.shape[dim]
    s, idx = _sorted_along(a, dim)
    if jnp.issubdtype(a.dtype, jnp.inexact):
        nans = jnp.sum(jnp.isnan(a), axis=dim, keepdims=True)
    else:
        nans = jnp.zeros((1,) * a.ndim, jnp.int64)
    if ignore_nan:  # the lower median of the non-NaN values; all NaN: the first NaN
        m = n - nans
        pos = jnp.where(m > 0, (m - 1) // 2, 0)
    else:  # any NaN: the first NaN (sorted last, in original order)
        pos = jnp.where(nans > 0, n - nans, (n - 1) // 2)
    pos = jnp.broadcast_to(pos, pos.shape).astype(jnp.int64)
    return _pick(s, idx, pos, dim, keepdim or False)


def _median(name, input, dim, keepdim):
    if dim is not None:
        dim_of(dim, input.ndim)
    _check_sortable(input._dtype, "median_cpu" if dim is None else "median_out")
    if dim is None:
        if keepdim is not KD:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                            f"keepdim={type(keepdim).__name__}), but expected one of:")
        v, _ = _median_k(input._value, dim=None, keepdim=False, ignore_nan=name == "nanmedian")
        return P.fresh(v, input._dtype, device_of(input))
    kd = keepdim_of(name, keepdim, True)
    d = dim_of(dim, input.ndim)
    if input.ndim:
        check_nonempty(name, input._shape, (d,), False)
    v, i = _median_k(input._value, dim=d if input.ndim else 0, keepdim=kd, ignore_nan=name == "nanmedian")
    return _pair(getattr(R, name), input, v, i)


@register("median", out=True, kind="reduction", grad_name=with_dim("MedianBackward"))
def median(input, dim=None, keepdim=KD):
    """`torch.median(input)` -> the lower median of all elements (NaN if any is NaN; NaN when empty);
    `torch.median(input, dim, keepdim=False, *, out=None)` -> `torch.return_types.median(values, indices)`.

    Difference: with repeated values PyTorch's CPU index is whichever copy its selection algorithm lands on;
    torchshim returns the copy at the median's position in a stable sort. With NaNs both return the first
    NaN."""
    return _median("median", input, dim, keepdim)


@register("nanmedian", out=True, kind="reduction", grad_name=with_dim("NanmedianBackward"))
def nanmedian(input, dim=None, keepdim=KD):
    """`torch.nanmedian(input)` / `torch.nanmedian(input, dim, keepdim=False, *, out=None)`: median of the
    non-NaN values (NaN, index of the first NaN, for an all-NaN slice). Ties: see `median`."""
    return _median("nanmedian", input, dim, keepdim)


@partial(P.kernel, static=("k", "dim", "keepdim"))
def _kth_k(a, *, k, dim, keepdim):
    if a.ndim == 0:
        return a, jnp.zeros((), jnp.int64)
    s, idx = _sorted_along(a, dim)
    v = jax.lax.index_in_dim(s, k - 1, dim, keepdims=keepdim)
    return v, jax.lax.index_in_dim(idx, k - 1, dim, keepdims=keepdim)


@register("kthvalue", out=True, kind="reduction")
def kthvalue(input, k, dim=None, keepdim=KD):
    """`torch.kthvalue(input, k, dim=-1, keepdim=False, *, out=None)` -> `torch.return_types.kthvalue`: the
    k-th smallest value (1-based; NaN is largest) and its index.

    Difference: among equal values PyTorch's index is whichever copy its quickselect lands on; torchshim's is
    the copy at position k of a stable sort."""
    kd = keepdim_of("kthvalue", keepdim, dim is not None)
    d = dim_of(-1 if dim is None else dim, input.ndim)
    if input.ndim:
        check_nonempty("kthvalue", input._shape, (d,), False)
    n = input._shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    _check_sortable(input._dtype, "kthvalue_cpu")
    v, i = _kth_k(input._value, k=int(k), dim=d, keepdim=kd)
    return _pair(R.kthvalue, input, v, i)


@partial(P.kernel, static=("dim", "keepdim"))
def _mode_k(a, *, dim, keepdim):
    if a.ndim == 0:
        return a, jnp.zeros((), jnp.int64)
    s, idx = _sorted_along(jnp.moveaxis(a, dim, -1), -1)
    neq = s[..., 1:] != s[..., :-1]  # NaN != NaN: every NaN is its own run, as in PyTorch
    edge = jnp.ones(s.shape[:-1] + (1,), bool)
    starts, ends = jnp.concatenate([edge, neq], -1), jnp.concatenate([neq, edge], -1)
    pos = jax.lax.broadcasted_iota(jnp.int64, s.shape, s.ndim - 1)
    start = jax.lax.cummax(jnp.where(starts, pos, 0), axis=s.ndim - 1)
    runlen = jnp.where(ends, pos - start + 1, 0)
    best = jnp.argmax(runlen, axis=-1, keepdims=True)  # the first longest run: the smallest such value
    v, i = jnp.take_along_axis(s, best, -1), jnp.take_along_axis(idx, best, -1)
    v, i = jnp.moveaxis(v, -1, dim), jnp.moveaxis(i, -1, dim)
    if not keepdim:
        v, i = jnp.squeeze(v, dim), jnp.squeeze(i, dim)
    return v, i


@register("mode", out=True, kind="reduction")
def mode(input, dim=None, keepdim=KD):
    """`torch.mode(input, dim=-1, keepdim=False, *, out=None)` -> `torch.return_types.mode(values, indices)`:
    the most frequent value (the smallest on a tie of counts) and the last index where it occurs.

    Difference: PyTorch's CPU index is the last occurrence for slices of up to 16 elements (its sort is then
    an insertion sort); beyond that it may be any occurrence. torchshim always gives the last."""
    kd = keepdim_of("mode", keepdim, dim is not None)
    if input._dtype.is_complex or input._dtype in _BAREBONES_UINT:
        raise not_implemented("mode_cpu", input._dtype)
    d = dim_of(-1 if dim is None else dim, input.ndim)
    if input.ndim:
        check_nonempty("mode", input._shape, (d,), False)
    v, i = _mode_k(input._value, dim=d, keepdim=kd)
    return _pair(R.mode, input, v, i)


# ---- sort, argsort, msort, topk ----------------------------------------------------------------------------
@partial(P.kernel, static=("dim", "descending", "with_values"))
def _sort_k(a, *, dim, descending, with_values):
    if a.ndim == 0:
        s, idx = a, jnp.zeros((), jnp.int64)
    else:
        s, idx = _sorted_along(a, dim, descending)
    return (s, idx) if with_values else idx


def _check_sort(d):
    if d.is_complex:
        raise RuntimeError(" Sort does not support complex dtypes on CPU")


@register("sort", out=True, kind="sorting", grad_name=if_given("stable", "SortBackward1", "SortBackward0"))
def sort(input, dim=-1, descending=False, *, stable=False):
    """`torch.sort(input, dim=-1, descending=False, *, stable=False, out=None)` ->
    `torch.return_types.sort(values, indices)`. Always stable (equal values keep their order, also when
    descending); NaN sorts as the largest value."""
    d = dim_of(dim, input.ndim)
    _check_sort(input._dtype)
    s, i = _sort_k(input._value, dim=d, descending=_b.bool(descending), with_values=True)
    return _pair(R.sort, input, s, i)


@register("argsort", out=True, kind="sorting")
def argsort(input, dim=-1, descending=False, *, stable=False):
    """`torch.argsort(input, dim=-1, descending=False, *, stable=False)`: the indices of `sort`; always
    stable.

    Difference: `out=` is accepted with or without `stable` (PyTorch only accepts it with `stable`)."""
    d = dim_of(dim, input.ndim)
    _check_sort(input._dtype)
    i = _sort_k(input._value, dim=d, descending=_b.bool(descending), with_values=False)
    return P.fresh(i, D.int64, device_of(input))


@register("msort", out=True, kind="sorting", grad_name="SortBackward0")
def msort(input):
    """`torch.msort(input, *, out=None)` -> `torch.sort(input, dim=0).values`."""
    _check_sort(input._dtype)
    s, _ = _sort_k(input._value, dim=0, descending=False, with_values=True)
    return P.fresh(s, input._dtype, device_of(input))


@partial(P.kernel, static=("k", "dim", "largest"))
def _topk_k(a, *, k, dim, largest):
    if a.ndim == 0:
        return a, jnp.zeros((), jnp.int64)
    s, idx = _sorted_along(a, dim, largest)
    return jax.lax.slice_in_dim(s, 0, k, axis=dim), jax.lax.slice_in_dim(idx, 0, k, axis=dim)


@register("topk", out=True, kind="sorting")
def topk(input, k, dim=-1, largest=True, sorted=True):
    """`torch.topk(input, k, dim=-1, largest=True, sorted=True, *, out=None)` ->
    `torch.return_types.topk(values, indices)`; NaN counts as the largest value.

    Differences: with `sorted=False` the k results come back sorted anyway (PyTorch's order is unspecified);
    among equal values torchshim takes the lowest indices first (PyTorch's choice among ties is
    unspecified)."""
    dd = dim_of(dim, input.ndim)
    n = input._shape[dd] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    d = input._dtype
    if d is D.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if d.is_complex:
        raise RuntimeError(" topk does not support complex dtypes on CPU")
    if d in _BAREBONES_UINT:
        raise not_implemented("topk_cpu", d)
    v, i = _topk_k(input._value, k=int(k), dim=dd, largest=_b.bool(largest))
    return _pair(R.topk, input, v, i)


# ---- running max / min -------------------------------------------------------------------------------------
@partial(P.kernel, static=("is_max", "dim"))
def _cumext_k(a, *, is_max, dim):
    if a.ndim == 0:
        return a, jnp.zeros((), jnp.int64)
    v = a.astype(jnp.uint8) if a.dtype == jnp.bool_ else a
    idx = jax.lax.broadcasted_iota(jnp.int64, a.shape, dim)
    floating = jnp.issubdtype(v.dtype, jnp.inexact)

    def combine(x, y):  # y follows x; PyTorch: take y if isnan(y) || (!isnan(x) && y >= x)
        (xv, xi), (yv, yi) = x, y
        take = (yv >= xv) if is_max else (yv <= xv)
        if floating:
            take = jnp.isnan(yv) | (~jnp.isnan(xv) & take)
        return jnp.where(take, yv, xv), jnp.where(take, yi, xi)

    rv, ri = jax.lax.associative_scan(combine, (v, idx), axis=dim)
    return rv.astype(a.dtype), ri


def _cumext(name, input, dim):
    d = dim_of(dim, input.ndim)
    _check_ordered(name, input._dtype, f"{name}_cpu")
    v, i = _cumext_k(input._value, is_max=name == "cummax", dim=d)
    dev = device_of(input)
    return getattr(R, name)((P.fresh(v, input._dtype, dev), P.fresh(i, D.int64, dev)))


@register("cummax", out=True, kind="reduction")
def cummax(input, dim):
    """`torch.cummax(input, dim, *, out=None)` -> `torch.return_types.cummax(values, indices)`: running max;
    on ties the later index wins, a NaN sticks (its index updates at each later NaN), as PyTorch's CPU
    kernel."""
    return _cumext("cummax", input, dim)


@register("cummin", out=True, kind="reduction")
def cummin(input, dim):
    """`torch.cummin(input, dim, *, out=None)` -> `torch.return_types.cummin(values, indices)`: running min;
    ties take the later index; NaN sticks."""
    return _cumext("cummin", input, dim)


# ---- unique (eager: the output shape depends on the values) ------------------------------------------------
def _ad_tracers():
    from jax.interpreters import ad
    types = [ad.JVPTracer]
    try:  # jax's vjp traces with LinearizeTracer (not exported)
        from jax._src.interpreters import ad as _ad
        types += [_ad.LinearizeTracer] if hasattr(_ad, "LinearizeTracer") else []
    except ImportError:
        pass
    return tuple(types)


_AD_TRACERS = _ad_tracers()


def _unique_name(args, kwargs):
    return "UniqueDimBackward0" if arg(args, kwargs, 4, "dim") is not None else "Unique2Backward0"


@register("unique", kind="sorting", grad_name=_unique_name)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """`torch.unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)`: the distinct
    values (or slices along `dim`), sorted; plus the inverse indices and/or counts when asked (a tuple then).
    NaNs are all distinct, as in PyTorch.

    Differences: the result is always sorted (PyTorch's CPU kernel sorts too, though `sorted=False` doesn't
    promise it). Computed eagerly on the host: under jax tracing (jit/vmap/grad) it raises, since the output
    shape depends on the values."""
    a = input._value
    # being differentiated (autograd's pullback): not differentiable, as PyTorch
    if isinstance(a, _AD_TRACERS):
        raise NotImplementedError(f"the derivative for '{'_unique2' if dim is None else 'unique_dim'}' is "
                                  "not implemented.")
    if isinstance(a, jax.core.Tracer):
        raise RuntimeError("unique(): the output shape depends on the input's values, so it cannot be "
                           "computed under jax tracing (jit/vmap/grad); call it outside the traced function")
    d = input._dtype
    if d.is_complex:
        raise not_implemented("unique" if dim is None else "unique_dim", d)
    na = np.asarray(a)
    if d in (D.float16, D.bfloat16):
        na = na.astype(np.float32)
    shape = input._shape
    if dim is None:
        vals, inv, cnt = np.unique(na.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        inv = inv.reshape(shape)
    else:
        k = _wrap_dim(int(dim), input.ndim) % _b.max(input.ndim, 1)
        if input.ndim == 0:
            vals, inv, cnt = na.reshape(1), np.zeros((), np.int64), np.ones(1, np.int64)
        elif _b.any(s == 0 for i, s in enumerate(shape) if i != k):
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                               "applied")
        elif shape[k] == 0:
            vals, inv, cnt = na, np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            vals, inv, cnt = np.unique(na, return_inverse=True, return_counts=True, axis=k)
            inv = inv.reshape(-1)
    dev = device_of(input)
    jd = Dev.to_jax(dev)

    def put(x, dt):
        return P.fresh(jax.device_put(np.asarray(x).astype(dt.np), jd), dt, dev)

    out = [put(vals, d)]
    if return_inverse:
        out.append(put(inv, D.int64))
    if return_counts:
        out.append(put(cnt, D.int64))
    return out[0] if len(out) == 1 else tuple(out)

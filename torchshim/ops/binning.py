"""Counting and binning: `bincount`, `histc`, `histogram`, `bucketize`, `searchsorted`, `isin`,
`unique_consecutive`.

Results whose size depends on the values (`bincount`'s length, `unique_consecutive`) read the values on the
host, as `unique` does; under jax tracing they raise. None of these ops has a gradient in PyTorch.
"""
import builtins as _b

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .. import return_types
from .._promotion import promote_types, short_name
from .._tensor import Tensor
from . import _dispatch as P
from ._dispatch import fresh
from ._registry import register
from .sorting import _AD_TRACERS

__all__ = ["bincount", "histc", "histogram", "bucketize", "searchsorted", "isin", "unique_consecutive"]


def _need(name, x, pos, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _is_int(d):
    return not (d.is_floating_point or d.is_complex) and d is not D.bool_


def _no_derivative(exc, msg, *tensors):
    """PyTorch's error for an op without a derivative, raised when autograd replays the op under jax's
    differentiation (the node exists, as PyTorch's does, and its backward raises)."""
    if any(isinstance(t, Tensor) and isinstance(t._value, _AD_TRACERS) for t in tensors):
        raise exc(msg)


def _host(t, name):
    a = t._value
    if isinstance(a, jax.core.Tracer):
        raise RuntimeError(f"{name}(): the output shape depends on the input's values, so it cannot be "
                           "computed under jax tracing (jit/vmap/grad); call it outside the traced function")
    return np.asarray(a)


# ---- bincount --------------------------------------------------------------------------------------------
@P.kernel(static=("length", "rdt"))
def _bincount_k(x, w, length, rdt):
    return jnp.bincount(x, weights=None if w is None else w.astype(rdt), length=length).astype(rdt)


@register("bincount", kind="binning", grad_name="NotImplemented", saves="none")
def bincount(input, weights=None, minlength=0):
    """`torch.bincount(input, weights=None, minlength=0)`: counts of each value of a 1-d non-negative integer
    tensor (weighted sums with `weights`: float32 weights give float32, any other dtype float64).

    No gradient for `weights`: backward raises, as in PyTorch."""
    _need("bincount", input, 1, "input")
    _no_derivative(RuntimeError, "derivative for aten::bincount is not implemented", weights)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if not _is_int(input._dtype) and input._dtype is not D.bool_:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{short_name(input._dtype)}'")
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    a = _host(input, "bincount")
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None:
        _need("bincount", weights, 2, "weights")
        if weights._shape != input._shape:
            raise RuntimeError("weights should be 1-d and have the same length as input")
    length = _b.max(int(a.max()) + 1 if a.size else 0, int(minlength))
    if weights is None:
        rdt = D.int64
    else:
        rdt = weights._dtype if weights._dtype in (D.float32, D.float64) else D.float64
    out = _bincount_k(input._value, None if weights is None else weights._value, length=length, rdt=rdt.np)
    return fresh(out, rdt, input._storage.device)


# ---- histc / histogram -----------------------------------------------------------------------------------
@P.kernel(static=("bins", "auto"))
def _histc_k(x, lo, hi, bins, auto):
    x = x.reshape(-1)
    ct = jnp.float64 if x.dtype == jnp.float64 else jnp.float32
    xf = x.astype(ct)
    if auto:
        finite = xf.size > 0
        lo = jnp.where(finite, jnp.min(xf) if xf.size else 0, 0).astype(ct)
        hi = jnp.where(finite, jnp.max(xf) if xf.size else 0, 0).astype(ct)
    lo, hi = jnp.asarray(lo, ct), jnp.asarray(hi, ct)
    same = lo == hi
    lo, hi = jnp.where(same, lo - 1, lo), jnp.where(same, hi + 1, hi)
    inside = (xf >= lo) & (xf <= hi)
    pos = ((xf - lo) * bins / (hi - lo)).astype(jnp.int32)
    pos = jnp.clip(pos, 0, bins - 1)
    counts = jnp.zeros(bins, ct).at[jnp.where(inside, pos, bins)].add(1, mode="drop")
    return counts.astype(x.dtype)


@register("histc", out=True, kind="composite")
def histc(input, bins=100, min=0, max=0):  # noqa: A002
    """`torch.histc(input, bins=100, min=0, max=0, *, out=None)`: counts in `bins` equal bins over [min, max]
    (both 0: the data's range); elements outside are ignored. Floating-point input only."""
    _need("histc", input, 1, "input")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{short_name(input._dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    auto = min == 0 and max == 0
    out = _histc_k(input._value, float(min), float(max), bins=int(bins), auto=auto)
    return fresh(out, input._dtype, input._storage.device)


@P.kernel(static=("density", "weighted"))
def _histogram_k(x, edges, w, density, weighted):
    x = x.reshape(-1)
    n = edges.shape[0] - 1
    idx = jnp.searchsorted(edges, x, side="right") - 1
    idx = jnp.where(x == edges[-1], n - 1, idx)
    inside = (x >= edges[0]) & (x <= edges[-1])
    ww = w.reshape(-1) if weighted else jnp.ones_like(x)
    hist = jnp.zeros(n, x.dtype).at[jnp.where(inside, idx, n)].add(ww.astype(x.dtype), mode="drop")
    if density:
        hist = hist / (jnp.sum(hist) * jnp.diff(edges))
    return hist


@register("histogram", out=True, kind="binning", grad_name="NotImplemented", saves="none")
def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """`torch.histogram(input, bins, *, range=None, weight=None, density=False, out=None)` -> (hist,
    bin_edges): `bins` an int (equal bins over `range`, default the data's min and max) or a 1-d tensor of
    increasing edges. Floating-point input only."""
    _need("histogram", input, 1, "input")
    _no_derivative(RuntimeError, "derivative for aten::histogram is not implemented", input, weight)
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{short_name(input._dtype)}'")
    dt, dev = input._dtype, input._storage.device
    if isinstance(bins, Tensor):
        if bins.ndim != 1:
            raise RuntimeError(f"torch.histogram(): bins tensor should have one dimension, but got "
                               f"{bins.ndim} dimensions")
        edges = bins._value.astype(dt.np)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
            if lo > hi:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max "
                                   f"{hi:g} for dimension 0")
        else:
            a = _host(input, "histogram")
            lo, hi = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = jnp.linspace(lo, hi, int(bins) + 1, dtype=dt.np)
    w = None if weight is None else weight._value
    hist = _histogram_k(input._value, edges, w, density=bool(density), weighted=weight is not None)
    return return_types.histogram((fresh(hist, dt, dev), fresh(jnp.asarray(edges), dt, dev)))


# ---- bucketize / searchsorted ----------------------------------------------------------------------------
@P.kernel(static=("right", "odt", "batched"))
def _search_k(seq, vals, sorter, right, odt, batched):
    side = "right" if right else "left"
    if sorter is not None:
        seq = jnp.take_along_axis(seq, sorter, axis=-1)
    if not batched:
        r = jnp.searchsorted(seq, vals, side=side)
    else:
        lead = seq.shape[:-1]
        s2 = seq.reshape(-1, seq.shape[-1])
        v2 = vals.reshape(-1, vals.shape[-1])
        r = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(s2, v2).reshape(lead + vals.shape[-1:])
    return r.astype(odt)


def _search(name, seq, values, out_int32, right, sorter=None):
    scalar = not isinstance(values, Tensor)
    odt = D.int32 if out_int32 else D.int64
    vd = values._dtype if not scalar else None
    common = promote_types(seq._dtype, vd) if vd is not None else seq._dtype
    if seq.ndim > 1 and not scalar and seq._shape[:-1] != values._shape[:-1]:
        raise RuntimeError(
            f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(seq._shape)} and input value tensor {list(values._shape)}")
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq._shape)} and input value tensor "
                           f"{list(values._shape) if not scalar else []}")
    s = seq._value.astype(common.np)
    v = jnp.asarray(values if scalar else values._value).astype(common.np)
    so = None if sorter is None else sorter._value
    r = _search_k(s, v, so, right=bool(right), odt=odt.np, batched=seq.ndim > 1)
    return fresh(r, odt, seq._storage.device)


@register("searchsorted", out=True, method=False, kind="composite")
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """`torch.searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,
    out=None)`: for each value, the index where it would be inserted to keep the (last dim of the) sequence
    sorted; `side='right'` / `right=True` take the position after equal elements."""
    _need("searchsorted", sorted_sequence, 1, "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    if sorter is not None and sorter._shape != sorted_sequence._shape:
        raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got "
                           f"boundary tensor {list(sorted_sequence._shape)}and got sorter tensor "
                           f"{list(sorter._shape)}")
    return _search("searchsorted", sorted_sequence, input, out_int32, right, sorter)


@register("bucketize", out=True, method=False, kind="composite")
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """`torch.bucketize(input, boundaries, *, out_int32=False, right=False, out=None)`: the bucket of each
    value of input among the 1-d increasing `boundaries` (right=False: boundaries[i-1] < x <=
    boundaries[i])."""
    _need("bucketize", boundaries, 2, "boundaries")
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _search("bucketize", boundaries, input, out_int32, right)


# ---- isin / unique_consecutive ---------------------------------------------------------------------------
@P.kernel(static=("invert", "cdt"))
def _isin_k(e, t, invert, cdt):
    e, t = jnp.asarray(e).astype(cdt), jnp.asarray(t).astype(cdt)
    r = jnp.isin(e, t)
    return ~r if invert else r


@register("isin", out=True, method=False, kind="composite")
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """`torch.isin(elements, test_elements, *, assume_unique=False, invert=False, out=None)`: whether each
    element of `elements` is in `test_elements` (either may be a Python scalar)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments - got (" +
                        f"{type(elements).__name__}, {type(test_elements).__name__})")
    ref = elements if isinstance(elements, Tensor) else test_elements
    cdt = P.promote(P.DEFAULT, (elements, test_elements))[0]
    if cdt.is_complex:
        raise NotImplementedError(f"\"isin_default_cpu\" not implemented for '{short_name(cdt)}'")
    e = elements._value if isinstance(elements, Tensor) else elements
    t = test_elements._value if isinstance(test_elements, Tensor) else test_elements
    return fresh(_isin_k(e, t, invert=bool(invert), cdt=cdt.np), D.bool_, ref._storage.device)


@register("unique_consecutive", kind="binning", saves="none")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """`torch.unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)`: drops all but
    the first of each run of equal consecutive elements (or slices along `dim`); the inverse indices and
    counts when asked (a tuple then). Computed on the host (the size depends on the values)."""
    _need("unique_consecutive", input, 1, "input")
    _no_derivative(NotImplementedError, "the derivative for 'unique_consecutive' is not implemented.", input)
    a = _host(input, "unique_consecutive")
    d = input._dtype
    if dim is None:
        flat = a.reshape(-1)
        if flat.size:
            new = np.concatenate([[True], flat[1:] != flat[:-1]])
        else:
            new = np.zeros(0, bool)
        vals = flat[new]
        inv = (np.cumsum(new) - 1).reshape(a.shape)
    else:
        nd = _b.max(input.ndim, 1)
        if not -nd <= dim < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got "
                             f"{dim})")
        k = dim % nd
        m = np.moveaxis(a, k, 0).reshape(a.shape[k], -1) if a.ndim else a.reshape(1, 1)
        if m.shape[0]:
            new = np.concatenate([[True], np.any(m[1:] != m[:-1], axis=1)])
        else:
            new = np.zeros(0, bool)
        vals = np.compress(new, a, axis=k)
        inv = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, new.size))
    dev = input._storage.device
    out = fresh(jnp.asarray(vals, d.np), d, dev)
    if not return_inverse and not return_counts:
        return out
    res = (out,)
    if return_inverse:
        res += (fresh(jnp.asarray(inv, np.int64), D.int64, dev),)
    if return_counts:
        res += (fresh(jnp.asarray(counts, np.int64), D.int64, dev),)
    return res

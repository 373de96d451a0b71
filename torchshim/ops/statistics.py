"""Statistics and numerical summaries: `aminmax`, `cov`, `corrcoef`, `quantile`/`nanquantile`, `diff`,
`logcumsumexp`, `dist`, `renorm`, `trapezoid`/`trapz`/`cumulative_trapezoid`, `addr`.

Where PyTorch builds an op from other ops, torchshim computes it in one kernel and records one node named as
PyTorch's last node (e.g. `cov` shows SqueezeBackward0); the gradient is the same function's.
"""
import warnings

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .. import return_types
from .._promotion import short_name
from .._tensor import Tensor, _wrap_dim
from . import _dispatch as P
from . import _subgrad as S
from ._dispatch import fresh
from ._registry import installed, register

__all__ = ["aminmax", "cov", "corrcoef", "quantile", "nanquantile", "diff", "logcumsumexp", "dist", "renorm",
           "trapezoid", "trapz", "cumulative_trapezoid", "addr"]


def _need(name, x, pos, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _float_of(d):
    return d if d.is_floating_point or d.is_complex else D.get_default_dtype()


# ---- aminmax ---------------------------------------------------------------------------------------------
@P.kernel(static=("dims", "keepdim"))
def _aminmax_k(a, dims, keepdim):
    return S.amax(a, dims, keepdim, False), S.amax(a, dims, keepdim, True)


@register("aminmax", out=True, kind="reduction")
def aminmax(input, *, dim=None, keepdim=False):
    """`torch.aminmax(input, *, dim=None, keepdim=False, out=None)` -> (min, max) over dim (all elements
    when None)."""
    _need("aminmax", input, 1, "input")
    if input._dtype.is_complex:
        raise RuntimeError("aminmax(): does not support complex input")
    nd = input.ndim
    if dim is None:
        dims = tuple(range(nd))
        empty = input.numel() == 0
    else:
        d = _wrap_dim(dim, nd) % max(nd, 1)
        dims = (d,) if nd else ()
        empty = nd > 0 and input._shape[d] == 0
    if empty:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                           "no identity.")
    a = input._value
    if input._dtype is D.bool_:
        mn, mx = _aminmax_k(a.astype(jnp.uint8), dims=dims, keepdim=bool(keepdim))
        mn, mx = mn.astype(bool), mx.astype(bool)
    else:
        mn, mx = _aminmax_k(a, dims=dims, keepdim=bool(keepdim))
    if dim is None and keepdim:
        mn, mx = mn.reshape((1,) * nd), mx.reshape((1,) * nd)
    dev = input._storage.device
    return return_types.aminmax((fresh(mn, input._dtype, dev), fresh(mx, input._dtype, dev)))


# ---- cov / corrcoef --------------------------------------------------------------------------------------
@P.kernel(static=("correction", "rdt", "has_f", "has_a"))
def _cov_k(x, fw, aw, correction, rdt, has_f, has_a):
    x = x.astype(rdt)
    if x.ndim < 2:
        x = x.reshape(1, -1)
    n = x.shape[1]
    w = None
    if has_f:
        w = fw.astype(rdt)
    if has_a:
        w = aw.astype(rdt) if w is None else w * aw.astype(rdt)
    if w is None:
        avg = jnp.mean(x, axis=1) if n else jnp.full(x.shape[0], jnp.nan, rdt)
        wsum = jnp.asarray(n, rdt)
        norm = wsum - correction
    else:
        wsum = jnp.sum(w)
        avg = jnp.sum(x * w, axis=1) / wsum
        if correction == 0:
            norm = wsum
        elif not has_a:
            norm = wsum - correction
        else:
            norm = wsum - correction * jnp.sum(w * aw.astype(rdt)) / wsum
    norm = jnp.maximum(norm, 0).astype(jnp.real(jnp.zeros((), rdt)).dtype)
    xm = x - avg[:, None]
    xw = xm if w is None else xm * w
    c = jnp.matmul(xm, jnp.conj(xw).T) / norm
    return jnp.squeeze(c)


def _cov(input, correction, fweights, aweights):
    if input.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} "
            "dimensions")
    n = input._shape[-1] if input.ndim else 1
    for w, name in ((fweights, "fweights"), (aweights, "aweights")):
        if w is not None:
            if w.ndim > 1:
                raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} "
                                   f"with {w.ndim} dimensions")
            if w.numel() != n:
                raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations "
                                   f"in the input but got {w.numel()} != {n}")
    rdt = _float_of(input._dtype)
    wn = (fweights._value.astype(int).sum() if fweights is not None else None)
    traced = isinstance(wn, jax.core.Tracer)
    if fweights is None and aweights is None and n - correction <= 0 or \
            wn is not None and aweights is None and not traced and wn - correction <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number "
                      "of observations.", UserWarning, stacklevel=3)
    out = _cov_k(input._value, None if fweights is None else fweights._value,
                 None if aweights is None else aweights._value, correction=int(correction), rdt=rdt.np,
                 has_f=fweights is not None, has_a=aweights is not None)
    return fresh(out, rdt, input._storage.device)


@register("cov", kind="statistics", grad_name="SqueezeBackward0")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """`torch.cov(input, *, correction=1, fweights=None, aweights=None)`: the covariance matrix of the
    variables in the rows of input (observations in columns); a 1-d input is one variable."""
    _need("cov", input, 1, "input")
    return _cov(input, correction, fweights, aweights)


@P.kernel(static=("rdt",))
def _corrcoef_k(x, rdt):
    c = _cov_k(x, None, None, correction=1, rdt=rdt, has_f=False, has_a=False)
    if c.ndim == 0:
        return c / c
    d = jnp.diagonal(c)
    std = jnp.sqrt(jnp.real(d)) if jnp.iscomplexobj(c) else jnp.sqrt(d)
    c = c / std[:, None]
    c = c / std[None, :]
    if jnp.iscomplexobj(c):
        return c
    return jnp.clip(c, -1, 1)


@register("corrcoef", kind="statistics", grad_name="ClampBackward1")
def corrcoef(input):
    """`torch.corrcoef(input)`: the Pearson correlation coefficients of the rows of input (clamped to [-1, 1]
    for real input)."""
    _need("corrcoef", input, 1, "input")
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input "
                           f"with {input.ndim} dimensions")
    rdt = _float_of(input._dtype)
    return fresh(_corrcoef_k(input._value, rdt=rdt.np), rdt, input._storage.device)


# ---- quantile --------------------------------------------------------------------------------------------
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


@P.kernel(static=("dim", "keepdim", "method", "ignore_nan", "scalar_q"))
def _quantile_k(a, q, dim, keepdim, method, ignore_nan, scalar_q):
    if dim is None:
        x = a.reshape(-1)
        axis = 0
    else:
        x, axis = a, dim
    x = jnp.moveaxis(x, axis, -1)
    n = x.shape[-1]
    nan = jnp.isnan(x)
    xs = jnp.sort(x, axis=-1)  # NaNs sort last
    if ignore_nan:
        cnt = jnp.sum(~nan, axis=-1, keepdims=True)
    else:
        cnt = jnp.full(x.shape[:-1] + (1,), n)
    qq = jnp.atleast_1d(q).astype(x.dtype)
    rank = qq * (cnt - 1).astype(x.dtype)  # (..., k)
    if method == "lower":
        rank = jnp.floor(rank)
    elif method == "higher":
        rank = jnp.ceil(rank)
    elif method == "nearest":
        rank = jnp.round(rank)  # round half to even, as PyTorch
    lo = jnp.clip(jnp.floor(rank), 0, max(n - 1, 0)).astype(jnp.int32)
    hi = jnp.clip(jnp.ceil(rank), 0, max(n - 1, 0)).astype(jnp.int32)
    vlo = jnp.take_along_axis(xs, lo, axis=-1)
    vhi = jnp.take_along_axis(xs, hi, axis=-1)
    if method == "midpoint":
        r = jnp.where(lo == hi, vlo, (vlo + vhi) / 2)
    elif method == "linear":
        w = rank - lo.astype(x.dtype)
        r = vlo + w * (vhi - vlo)
        r = jnp.where(w == 0, vlo, r)
    else:
        r = vlo
    if ignore_nan:
        r = jnp.where(cnt == 0, jnp.nan, r)
    else:
        r = jnp.where(jnp.any(nan, axis=-1, keepdims=True), jnp.nan, r)
    # r: (..., k) -> (k, ...)
    r = jnp.moveaxis(r, -1, 0)
    if keepdim:
        if dim is None:
            r = r.reshape(r.shape[:1] + (1,) * a.ndim)
        else:
            r = jnp.expand_dims(r, axis + 1)
    if scalar_q:
        r = r[0]
    return r


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    _need(name, input, 1, "input")
    if input._dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERP:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest, but got {interpolation}")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qv = jnp.asarray(q, input._dtype.np)
    else:
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q._dtype is not input._dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qa = q._value
        if not isinstance(qa, jax.core.Tracer) and bool(jnp.any((qa < 0) | (qa > 1))):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        scalar_q = q.ndim == 0
        qv = qa
    d = None if dim is None else _wrap_dim(dim, input.ndim) % max(input.ndim, 1)
    a = input._value if input.ndim else input._value.reshape(1)
    r = _quantile_k(a, qv, dim=d, keepdim=bool(keepdim), method=interpolation, ignore_nan=ignore_nan,
                    scalar_q=scalar_q)
    if input.ndim == 0 and keepdim:
        r = r.reshape(r.shape[:-1] if not scalar_q else ())
    return fresh(r, input._dtype, input._storage.device)


def _quantile_name(args, kwargs):
    return "SqueezeBackward4"


@register("quantile", out=True, kind="statistics", grad_name=_quantile_name)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """`torch.quantile(input, q, dim=None, keepdim=False, *, interpolation='linear', out=None)`: the q-th
    quantiles over dim (all elements when None); q a float or a 1-d tensor (its dim comes first). A slice
    containing NaN gives NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@register("nanquantile", out=True, kind="statistics", grad_name=_quantile_name)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """`torch.nanquantile(input, q, dim=None, keepdim=False, *, interpolation='linear', out=None)`: quantile
    ignoring NaNs (NaN only where a slice is all NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# ---- diff ------------------------------------------------------------------------------------------------
@register("diff", out=True, kind="composite")
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """`torch.diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None)`: the n-th forward difference
    along dim (logical xor for bool), after concatenating prepend/append."""
    _need("diff", input, 1, "input")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    cat = installed("cat")
    parts = [t for t in (prepend, input, append) if t is not None]
    for t in parts:
        if t.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    x = cat(parts, dim) if len(parts) > 1 else input
    d = _wrap_dim(dim, x.ndim)
    narrow = installed("narrow")
    for _ in range(n):
        size = x._shape[d]
        if size == 0:
            break
        a, b = narrow(x, d, 1, size - 1), narrow(x, d, 0, size - 1)
        x = installed("logical_xor")(a, b) if x._dtype is D.bool_ else installed("sub")(a, b)
    return x


# ---- logcumsumexp ----------------------------------------------------------------------------------------
@P.kernel(static=("dim",))
def _lcse_k(a, dim):
    if a.ndim == 0:
        return a
    if a.shape[dim] == 0:
        return a
    return jax.lax.cumlogsumexp(a, axis=dim)


@register("logcumsumexp", out=True, kind="reduction")
def logcumsumexp(input, dim):
    """`torch.logcumsumexp(input, dim, *, out=None)`: log(cumsum(exp(input))) along dim, computed stably."""
    _need("logcumsumexp", input, 1, "input")
    if not (input._dtype.is_floating_point or input._dtype.is_complex):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{short_name(input._dtype)}'")
    d = _wrap_dim(dim, input.ndim) % max(input.ndim, 1)
    return fresh(_lcse_k(input._value, dim=d), input._dtype, input._storage.device)


# ---- dist / renorm ---------------------------------------------------------------------------------------
@P.kernel(static=("p", "cdt"))
def _dist_k(a, b, p, cdt):
    d = a.astype(cdt) - b.astype(cdt)
    return S.vector_norm(d, p, tuple(range(d.ndim)), False)


@register("dist", kind="reduction")
def dist(input, other, p=2):
    """`torch.dist(input, other, p=2)`: the p-norm of `input - other` (broadcast)."""
    _need("dist", input, 1, "input")
    _need("dist", other, 2, "other")
    cdt = P.promote(P.DEFAULT, (input, other))[1]
    if not (cdt.is_floating_point or cdt.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{short_name(cdt)} instead.")
    if isinstance(p, Tensor):
        p = p.item()
    try:
        r = _dist_k(input._value, other._value, p=float(p), cdt=cdt.np)
    except (TypeError, ValueError):
        P.broadcast_error((input._shape, other._shape))
        raise
    return fresh(r, cdt.to_real() if cdt.is_complex else cdt, input._storage.device)


@P.kernel(static=("p", "dim"))
def _renorm_k(a, maxnorm, p, dim):
    dims = tuple(i for i in range(a.ndim) if i != dim)
    ct = jnp.float32 if a.dtype in (jnp.float16, jnp.bfloat16) else a.dtype
    x = a.astype(ct)
    norm = S.vector_norm(x, p, dims, True)
    factor = jnp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(norm.dtype)
    return (x * factor).astype(a.dtype)


@register("renorm", inplace=True, out=True, kind="pointwise")
def renorm(input, p, dim, maxnorm):
    """`torch.renorm(input, p, dim, maxnorm, *, out=None)`: each slice along dim whose p-norm exceeds maxnorm
    scaled down to norm maxnorm."""
    _need("renorm", input, 1, "input")
    if not (input._dtype.is_floating_point or input._dtype.is_complex):
        raise NotImplementedError(f"\"renorm_out\" not implemented for '{short_name(input._dtype)}'")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = _wrap_dim(dim, input.ndim)
    return fresh(_renorm_k(input._value, float(maxnorm), p=float(p), dim=d), input._dtype,
                 input._storage.device)


# ---- trapezoid -------------------------------------------------------------------------------------------
@P.kernel(static=("dim", "cumulative", "rdt"))
def _trapz_k(y, x, dx, dim, cumulative, rdt):
    y = jnp.moveaxis(y.astype(rdt), dim, -1)
    n = y.shape[-1]
    if x is None:
        pair = (y[..., 1:] + y[..., :-1]) / 2
        if cumulative:
            return jnp.moveaxis(jnp.cumsum(pair * dx, axis=-1), -1, dim) if n else jnp.moveaxis(y, -1, dim)
        if n == 0:
            return jnp.zeros(y.shape[:-1], rdt)
        return (jnp.sum(y, axis=-1) - (y[..., 0] + y[..., -1]) * 0.5) * dx
    x = x.astype(rdt)
    if x.ndim == 1:
        dxs = x[1:] - x[:-1]
    else:
        x = jnp.moveaxis(jnp.broadcast_to(x, jnp.broadcast_shapes(x.shape, jnp.moveaxis(y, -1, dim).shape)),
                         dim, -1)
        dxs = x[..., 1:] - x[..., :-1]
    terms = dxs * (y[..., 1:] + y[..., :-1])
    if cumulative:
        return jnp.moveaxis(jnp.cumsum(terms, axis=-1) / 2, -1, dim)
    return jnp.sum(terms, axis=-1) / 2


def _trapz(name, y, x, dx, dim, cumulative):
    _need(name, y, 1, "y")
    if y.ndim == 0:
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {dim})")
    d = _wrap_dim(dim, y.ndim)
    if isinstance(x, Tensor):
        rdt = _float_of(P.promote(P.DEFAULT, (y, x))[1])
        if x.ndim == 1 and x._shape[0] != y._shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        xv, dxv = x._value, None
    else:
        rdt = _float_of(y._dtype)
        xv, dxv = None, 1.0 if dx is None else dx
    r = _trapz_k(y._value, xv, dxv, dim=d, cumulative=cumulative, rdt=rdt.np)
    return fresh(r, rdt, y._storage.device)


def _check_x(name, y, x):
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(y).__name__}, "
                        f"{type(x).__name__}), but expected one of:\n"
                        " * (Tensor y, Tensor x, *, int dim = -1)\n"
                        " * (Tensor y, *, Number dx = 1, int dim = -1)\n")


def _trapz_name(cumulative):
    def name(args, kwargs):
        x = args[1] if len(args) > 1 else kwargs.get("x")
        if isinstance(x, Tensor):
            return "DivBackward1"
        return "CumsumBackward0" if cumulative else "MulBackward1"
    return name


@register("trapezoid", kind="reduction", method=False, grad_name=_trapz_name(False))
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """`torch.trapezoid(y, x=None, *, dx=None, dim=-1)`: the trapezoidal rule along dim, with sample points x
    (a tensor) or spacing dx (default 1)."""
    _check_x("trapezoid", y, x)
    return _trapz("trapezoid", y, x, dx, dim, False)


@register("trapz", kind="reduction", method=False, grad_name=_trapz_name(False))
def trapz(y, x=None, *, dx=None, dim=-1):
    """`torch.trapz(y, x, *, dim=-1)` / `torch.trapz(y, *, dx=1, dim=-1)`: `torch.trapezoid`."""
    return _trapz("trapz", y, x, dx, dim, False)


@register("cumulative_trapezoid", kind="reduction", method=False, grad_name=_trapz_name(True))
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """`torch.cumulative_trapezoid(y, x=None, *, dx=None, dim=-1)`: the running trapezoidal integral (one
    element fewer along dim)."""
    _check_x("cumulative_trapezoid", y, x)
    return _trapz("cumulative_trapezoid", y, x, dx, dim, True)


# ---- addr ------------------------------------------------------------------------------------------------
@P.kernel(static=("rdt", "beta", "alpha"))
def _addr_k(a, v1, v2, beta, alpha, rdt):
    ct = jnp.float32 if rdt in (jnp.float16, jnp.bfloat16) else rdt
    outer = jnp.outer(v1.astype(ct), v2.astype(ct))
    if rdt == jnp.bool_:
        r = outer.astype(bool) & bool(alpha)
        return jnp.broadcast_to((a.astype(bool) & bool(beta)) | r, jnp.broadcast_shapes(a.shape, r.shape))
    r = alpha * outer if alpha != 1 else outer
    if beta != 0:
        r = r + (beta * a.astype(ct) if beta != 1 else a.astype(ct))
    return jnp.broadcast_to(r, jnp.broadcast_shapes(a.shape, r.shape)).astype(rdt)


@register("addr", inplace=True, out=True, kind="linalg")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """`torch.addr(input, vec1, vec2, *, beta=1, alpha=1, out=None)` -> beta * input + alpha * outer(vec1,
    vec2); input is ignored (NaN too) when beta is 0."""
    for i, (t, n) in enumerate(((input, "input"), (vec1, "vec1"), (vec2, "vec2")), 1):
        _need("addr", t, i, n)
    for t, n in ((vec1, "vec1"), (vec2, "vec2")):
        if t.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {n}, but got {t.ndim}-D")
    rdt = P.promote(P.DEFAULT, (input, vec1, vec2))[1]
    if rdt is not D.bool_ and not (rdt.is_floating_point or rdt.is_complex):
        if isinstance(beta, float) or isinstance(alpha, float):
            raise RuntimeError("For integral input tensors, argument beta must not be a floating point "
                               "number.")
    shape = (vec1._shape[0], vec2._shape[0])
    try:
        jnp.broadcast_shapes(input._shape, shape)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({input._shape[-1] if input.ndim else 1}) must match the "
                           f"size of tensor b ({shape[-1]}) at non-singleton dimension "
                           f"{max(input.ndim, 2) - 1}") from None
    r = _addr_k(input._value, vec1._value, vec2._value, beta=beta, alpha=alpha, rdt=rdt.np)
    return fresh(r, rdt, input._storage.device)

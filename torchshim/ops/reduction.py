"""Reductions: sum, nansum, mean, nanmean, prod, var/std (+ _mean), norm, all/any, logsumexp, count_nonzero,
and the scans cumsum, cumprod. (max/min and other order statistics live in `sorting.py`.)

Every op is one jitted kernel with the dims (a sorted tuple), keepdim and dtypes as static arguments. 16-bit
floats are accumulated in float32 and rounded once, like PyTorch's CPU kernels. The helpers at the top
(`dims_of`, `keepdim_of`, `check_nonempty`, ...) are shared with `sorting.py`.
"""
import builtins as _b
import math
import operator
import warnings
from functools import partial

import jax.numpy as jnp
from jax.scipy.special import logsumexp as _jlogsumexp

from .. import _dtype as D
from .._promotion import short_name
from .._tensor import Tensor, _wrap_dim
from .. import _backcompat as backcompat
from .._warnings import user_stacklevel
from ..autograd._names import arg, with_dim
from . import _dispatch as P
from . import _subgrad as S
from ._registry import register, write_out

_BAREBONES_UINT = (D.uint16, D.uint32, D.uint64)


# ---- shared helpers ----------------------------------------------------------------------------------------
class _KeepdimDefault:
    """keepdim's default value: False, but distinguishable from an explicit False (for keepdim_warning)."""
    __slots__ = ()

    def __bool__(self):
        return False

    def __repr__(self):
        return "False"


KD = _KeepdimDefault()


def keepdim_of(name, keepdim, dim_given):
    """bool(keepdim); with `torch.utils.backcompat.keepdim_warning.enabled`, warn (PyTorch 0.2's text) when a
    reduction over a dim relies on the default."""
    if keepdim is KD:
        if dim_given and backcompat.keepdim_warning.enabled:
            warnings.warn(f'backwards compatibility: call to "{name}" uses default value for keepdim which '
                          'has changed default to False.  Consider passing as kwarg.', UserWarning,
                          stacklevel=user_stacklevel())
        return False
    return _b.bool(keepdim)


def dims_of(dim, ndim):
    """Sorted tuple of wrapped dims; None or () means every dim. PyTorch's range and duplicate errors."""
    if dim is None:
        return tuple(range(ndim))
    seq = tuple(dim) if isinstance(dim, (tuple, list)) else (operator.index(dim),)
    if not seq:
        return tuple(range(ndim))
    out = []
    for d in seq:
        w = _wrap_dim(operator.index(d), ndim) % _b.max(ndim, 1)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(sorted(out)) if ndim else ()


def dim_of(dim, ndim):
    """One wrapped dim (a 0-dim tensor accepts 0 and -1)."""
    return _wrap_dim(operator.index(dim), ndim) % _b.max(ndim, 1)


def invalid_args(name, *args, **kwargs):
    """PyTorch's TypeError for an argument combination no overload accepts (first line of the message)."""
    parts = [type(a).__name__ if not isinstance(a, Tensor) else "Tensor" for a in args]
    parts += [f"{k}={'Tensor' if isinstance(v, Tensor) else type(v).__name__}"
              for k, v in reversed(kwargs.items())]
    return TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(parts)}), but "
                     "expected one of:")


def int_dim(name, dim, input, *rest, **kw):
    if dim is not None and (not isinstance(dim, int) or isinstance(dim, _b.bool)):
        raise invalid_args(name, input, dim, *rest, **kw)


def not_implemented(kernel_name, d):
    return NotImplementedError(f'"{kernel_name}" not implemented for \'{short_name(d)}\'')


def check_nonempty(name, shape, dims, full, full_error=RuntimeError):
    """PyTorch's errors for reductions without an identity (max, argmax, median, ...) over empty dims."""
    if full and math.prod(shape) == 0:
        if full_error is IndexError:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def is_intlike(d):
    return not (d.is_floating_point or d.is_complex)


def acc(d):
    """The dtype PyTorch accumulates `d` in on CPU (float32 for 16-bit floats)."""
    return D.float32 if d in (D.float16, D.bfloat16) else d


def device_of(t):
    return t._storage.device


# ---- the generic reduction kernel -------------------------------------------------------------------------
def _nanmean(a, axis, keepdims):
    ok = ~jnp.isnan(a)
    return jnp.sum(jnp.where(ok, a, 0), axis, keepdims=keepdims) / jnp.sum(ok, axis, keepdims=keepdims)


_FNS = {
    "sum": lambda a, ax, kd: jnp.sum(a, ax, keepdims=kd),
    "nansum": lambda a, ax, kd: jnp.sum(jnp.where(jnp.isnan(a), 0, a) if a.dtype.kind == "f" else a, ax,
                                        keepdims=kd),
    "mean": lambda a, ax, kd: jnp.mean(a, ax, keepdims=kd),
    "nanmean": _nanmean,
    "prod": lambda a, ax, kd: jnp.prod(a, ax, keepdims=kd),
    # gradients: amax/amin split among the maxima (NaN result: NaN); max()/min() split evenly (NaN: among
    # NaNs)
    "amax": lambda a, ax, kd: S.amax(a, ax, kd, True),
    "amin": lambda a, ax, kd: S.amax(a, ax, kd, False),
    "max_all": lambda a, ax, kd: S.evenly_max(a, ax, kd, True),
    "min_all": lambda a, ax, kd: S.evenly_max(a, ax, kd, False),
    "all": lambda a, ax, kd: jnp.all(a != 0, ax, keepdims=kd),
    "any": lambda a, ax, kd: jnp.any(a != 0, ax, keepdims=kd),
    "count_nonzero": lambda a, ax, kd: jnp.sum(a != 0, ax, dtype=jnp.int64, keepdims=kd),
    "logsumexp": lambda a, ax, kd: _jlogsumexp(a, ax, keepdims=kd) if ax else a,
}


@partial(P.kernel, static=("fn", "dims", "keepdim", "cdt", "rdt"))
def _reduce_k(a, *, fn, dims, keepdim, cdt, rdt):
    if a.dtype != cdt:
        a = a.astype(cdt)
    if keepdim and not dims and a.ndim == 0:
        keepdim = False
    r = _FNS[fn](a, dims, keepdim)
    return r.astype(rdt) if r.dtype != rdt else r


def run_reduce(fn, input, dims, keepdim, rdt, cdt=None):
    cdt = acc(rdt) if cdt is None else cdt
    r = _reduce_k(input._value, fn=fn, dims=dims, keepdim=keepdim, cdt=cdt.np, rdt=rdt.np)
    return P.fresh(r, rdt, device_of(input))


# ---- sums, means, products ---------------------------------------------------------------------------------
@register("sum", out=True, kind="reduction", grad_name=with_dim("SumBackward"), saves="none")
def sum(input, dim=None, keepdim=KD, *, dtype=None):  # noqa: A001
    """`torch.sum(input, dim=None, keepdim=False, *, dtype=None, out=None)`; dim an int, a tuple, or None/()
    for all. Integer and bool inputs sum to int64; `dtype` casts the input first.

    Difference: `keepdim` without `dim` is accepted (PyTorch needs `dim=None` spelled out)."""
    kd = keepdim_of("sum", keepdim, dim is not None)
    rdt = dtype or (D.int64 if is_intlike(input._dtype) else input._dtype)
    return run_reduce("sum", input, dims_of(dim, input.ndim), kd, rdt)


@register("nansum", out=True, kind="reduction")
def nansum(input, dim=None, keepdim=KD, *, dtype=None):
    """`torch.nansum(input, dim=None, keepdim=False, *, dtype=None, out=None)`: sum treating NaN as 0."""
    if input._dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    kd = keepdim_of("nansum", keepdim, dim is not None)
    rdt = dtype or (D.int64 if is_intlike(input._dtype) else input._dtype)
    return run_reduce("nansum", input, dims_of(dim, input.ndim), kd, rdt)


@register("mean", out=True, kind="reduction", grad_name=with_dim("MeanBackward"), saves="none")
def mean(input, dim=None, keepdim=KD, *, dtype=None):
    """`torch.mean(input, dim=None, keepdim=False, *, dtype=None, out=None)`; floating/complex only (or give
    `dtype`), as in PyTorch. The mean of nothing is NaN."""
    d = dtype or input._dtype
    if is_intlike(d):
        which = "Optional" if dtype is not None else "Input"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either a floating "
                           f"point or complex dtype. Got: {short_name(d)}")
    kd = keepdim_of("mean", keepdim, dim is not None)
    return run_reduce("mean", input, dims_of(dim, input.ndim), kd, d)


@register("nanmean", out=True, kind="reduction", grad_name="DivBackward0")
def nanmean(input, dim=None, keepdim=KD, *, dtype=None):
    """`torch.nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None)`: the mean of the non-NaN
    values; floating inputs only (complex raises, as PyTorch's CPU kernel)."""
    if is_intlike(input._dtype):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{short_name(input._dtype)}")
    if input._dtype.is_complex:
        raise RuntimeError("nansum on CPU does not support complex inputs")
    kd = keepdim_of("nanmean", keepdim, dim is not None)
    return run_reduce("nanmean", input, dims_of(dim, input.ndim), kd, dtype or input._dtype)


@register("prod", out=True, kind="reduction", grad_name=with_dim("ProdBackward"))
def prod(input, dim=None, keepdim=KD, *, dtype=None):
    """`torch.prod(input, *, dtype=None)` / `torch.prod(input, dim, keepdim=False, *, dtype=None, out=None)`;
    dim is a single int. Integer and bool inputs give int64."""
    int_dim("prod", dim, input)
    kd = keepdim_of("prod", keepdim, dim is not None)
    rdt = dtype or (D.int64 if is_intlike(input._dtype) else input._dtype)
    return run_reduce("prod", input, dims_of(dim, input.ndim), kd, rdt)


# ---- variance, standard deviation --------------------------------------------------------------------------
@partial(P.kernel, static=("dims", "correction", "keepdim", "sqrt", "with_mean", "rdt"))
def _moments_k(a, *, dims, correction, keepdim, sqrt, with_mean, rdt):
    mdt = a.dtype
    if a.dtype in (jnp.float16, jnp.bfloat16):
        a = a.astype(jnp.float32)
    n = math.prod(a.shape[d] for d in dims)
    m = jnp.mean(a, dims, keepdims=True)
    dev = a - m
    sq = dev.real * dev.real + dev.imag * dev.imag if jnp.iscomplexobj(dev) else dev * dev
    v = jnp.sum(sq, dims, keepdims=keepdim) / _b.max(0, n - correction)
    if sqrt:
        v = S.sqrt0(v)  # PyTorch's std_backward: no gradient where std == 0
    v = v.astype(rdt)
    if not with_mean:
        return v
    return v, (m if keepdim else jnp.squeeze(m, dims)).astype(mdt)


def _moments(name, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, _b.bool) and unbiased is None:  # var(input, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        args = (input, dim) if dim is not None else (input,)
        raise invalid_args(name, *args, unbiased=unbiased, correction=correction)
    if is_intlike(input._dtype):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    kd = keepdim_of(name, keepdim, dim is not None)
    corr = 1 if correction is None and unbiased is None else (correction if correction is not None
                                                              else int(_b.bool(unbiased)))
    dims = dims_of(dim, input.ndim)
    n = math.prod(input._shape[d] for d in dims)
    if n - corr <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning,
                      stacklevel=user_stacklevel())
    rdt = input._dtype.to_real()
    with_mean = name.endswith("_mean")
    r = _moments_k(input._value, dims=dims, correction=corr, keepdim=kd, sqrt=name.startswith("std"),
                   with_mean=with_mean, rdt=rdt.np)
    dev = device_of(input)
    if with_mean:
        return P.fresh(r[0], rdt, dev), P.fresh(r[1], input._dtype, dev)
    return P.fresh(r, rdt, dev)


_MOMENT_DOC = """`torch.{0}(input, dim=None, *, correction=1, keepdim=False{1})`; also the positional forms
    `{0}(input, dim, unbiased, keepdim=False)` and `{0}(input, unbiased)`. Floating/complex inputs only;
    complex inputs give a real {2}. A divisor `N - correction <= 0` warns like PyTorch (and gives inf/NaN)."""


def _moment_op(name, out):
    def f(input, dim=None, unbiased=None, keepdim=KD, *, correction=None):
        return _moments(name, input, dim, unbiased, keepdim, correction)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _MOMENT_DOC.format(name, ", out=None" if out else "",
                                   "result" if out else "first result; returns a (std/var, mean) tuple")
    register(name, out=out, method=out, kind="reduction")(f)  # var_mean/std_mean: no Tensor method
    return f


var = _moment_op("var", True)
std = _moment_op("std", True)
var_mean = _moment_op("var_mean", False)
std_mean = _moment_op("std_mean", False)


# ---- norm --------------------------------------------------------------------------------------------------
def _vector_norm(input, p, dim, keepdim, dtype):
    from .linalg_norms import vector_norm_t  # torch.linalg's implementation (one for both spellings)
    return vector_norm_t(input, p, dim, keepdim, dtype)


def _matrix_norm(input, p, dim, keepdim, dtype):
    from .linalg_norms import matrix_norm_t
    return matrix_norm_t(input, p, tuple(range(input.ndim)) if dim is None else dim, keepdim, dtype)


def _norm_name(args, kwargs):
    return "SumBackward1" if arg(args, kwargs, 1, "p", "fro") == "nuc" else "LinalgVectorNormBackward0"


@register("norm", kind="reduction", grad_name=_norm_name)
def norm(input, p="fro", dim=None, keepdim=KD, out=None, dtype=None):
    """`torch.norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None)`, as PyTorch's CPU path:
    a number p (inf, -inf, 0, 1, 2, any float) or 'fro' with at most 2 dims is `linalg.vector_norm`; 'nuc', or
    'fro' over more dims, is `linalg.matrix_norm`. Floating/complex inputs only; complex gives a real result.

    `Tensor.norm(p, dim, keepdim, dtype)` also takes dtype as its 4th positional argument, like PyTorch."""
    if isinstance(out, D.dtype):  # Tensor.norm(p, dim, keepdim, dtype)
        out, dtype = None, out
    kd = keepdim_of("norm", keepdim, dim is not None)
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            r = _vector_norm(input, 2, dim, kd, dtype)
        else:
            r = _matrix_norm(input, p, dim, kd, dtype)
    else:
        r = _vector_norm(input, 2.0 if p is None else p, dim, kd, dtype)
    return r if out is None else write_out(out, r)


# ---- logical reductions, counting --------------------------------------------------------------------------
def _all_any(name, input, dim, keepdim):
    kd = keepdim_of(name, keepdim, dim is not None)
    rdt = D.uint8 if input._dtype is D.uint8 else D.bool_
    return run_reduce(name, input, dims_of(dim, input.ndim), kd, rdt, input._dtype)


@register("all", out=True, kind="reduction")
def all(input, dim=None, keepdim=KD):  # noqa: A001
    """`torch.all(input, dim=None, keepdim=False, *, out=None)`: True when every element is nonzero; dim an
    int or tuple. Bool result, except uint8 input gives uint8 (as PyTorch)."""
    return _all_any("all", input, dim, keepdim)


@register("any", out=True, kind="reduction")
def any(input, dim=None, keepdim=KD):  # noqa: A001
    """`torch.any(input, dim=None, keepdim=False, *, out=None)`: True when some element is nonzero; uint8
    input gives uint8."""
    return _all_any("any", input, dim, keepdim)


@register("count_nonzero", kind="reduction")
def count_nonzero(input, dim=None):
    """`torch.count_nonzero(input, dim=None)` -> int64 count of nonzero elements over dim (int or tuple)."""
    if input._dtype in _BAREBONES_UINT:
        raise not_implemented("nonzero_count_cpu", input._dtype)
    return run_reduce("count_nonzero", input, dims_of(dim, input.ndim), False, D.int64, input._dtype)


@register("logsumexp", out=True, kind="reduction")
def logsumexp(input, dim, keepdim=KD):
    """`torch.logsumexp(input, dim, keepdim=False, *, out=None)`: log(sum(exp(input))) computed stably;
    integer and bool inputs give the default float dtype.

    Difference: `dim=()` reduces every dim (PyTorch raises a shape error)."""
    kd = keepdim_of("logsumexp", keepdim, True)
    rdt = D.get_default_dtype() if is_intlike(input._dtype) else input._dtype
    return run_reduce("logsumexp", input, dims_of(dim, input.ndim), kd, rdt)


# ---- scans -------------------------------------------------------------------------------------------------
@partial(P.kernel, static=("fn", "dim", "cdt", "rdt"))
def _scan_k(a, *, fn, dim, cdt, rdt):
    a = a.astype(cdt)
    if a.ndim:
        a = (jnp.cumsum if fn == "cumsum" else jnp.cumprod)(a, axis=dim)
    return a.astype(rdt)


def _scan(name, input, dim, dtype):
    if dim is None or not isinstance(dim, int) or isinstance(dim, _b.bool):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    d = dim_of(dim, input.ndim)
    rdt = dtype or (D.int64 if is_intlike(input._dtype) else input._dtype)
    if rdt is D.bool_:
        raise not_implemented(f"{name}_out_cpu", rdt)
    r = _scan_k(input._value, fn=name, dim=d, cdt=acc(rdt).np, rdt=rdt.np)
    return P.fresh(r, rdt, device_of(input))


def _scan_inplace(name):
    def f(self, dim, *, dtype=None):
        return self._assign_from(_scan(name, self, dim, dtype or self._dtype), name + "_")
    f.__name__, f.__qualname__ = name + "_", "Tensor." + name + "_"
    f.__doc__ = f"`Tensor.{name}_(dim, *, dtype=None)`: in-place {name}, computed in self's dtype."
    return f


@register("cumsum", inplace=_scan_inplace("cumsum"), out=True, kind="reduction", saves="none")
def cumsum(input, dim, *, dtype=None):
    """`torch.cumsum(input, dim, *, dtype=None, out=None)`: running sums along dim; int/bool give int64."""
    return _scan("cumsum", input, dim, dtype)


@register("cumprod", inplace=_scan_inplace("cumprod"), out=True, kind="reduction")
def cumprod(input, dim, *, dtype=None):
    """`torch.cumprod(input, dim, *, dtype=None, out=None)`: running products along dim; int/bool give
    int64."""
    return _scan("cumprod", input, dim, dtype)

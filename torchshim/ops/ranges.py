"""Range factories: arange, range (deprecated), linspace, logspace, computed like PyTorch's CPU kernels (the
same accumulation types, sizes and integer truncation); values are host constants unless start/end are traced
tensors."""

import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .._promotion import c_name, short_name
from .._tensor import Tensor
from ._registry import register
from .creation import _NO, _into, _out_dtype, _tp, cast, default_complex, fill_scalar, finish
from .indexing import scalar_to

__all__ = ["arange", "range_", "linspace", "logspace"]


def _combo(fname, args, kwargs=()):
    got = [_tp(a) for a in args] + [f"{k}={_tp(v)}" for k, v in kwargs]
    raise TypeError(
        f"{fname}() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
        "one of:"
    )


def _is_scalar(v):
    """A Scalar argument: a number, or a 0-dim tensor that does not require grad."""
    if isinstance(v, Tensor):
        return v.ndim == 0 and not v.requires_grad
    return isinstance(v, numbers.Number)


def _py(v, fname):
    """A Scalar argument as a Python number (0-dim tensors read on the host)."""
    if isinstance(v, Tensor):
        if isinstance(v._value, jax.core.Tracer):
            raise RuntimeError(
                f"torch.{fname}: the number of elements depends on tensor values, which is not "
                "supported under jax tracing"
            )
        return v.item()
    return v.item() if isinstance(v, np.generic) else v


def _integral(v):
    return (
        isinstance(v, (bool, int, np.integer, np.bool_))
        or isinstance(v, Tensor)
        and not (v._dtype.is_floating_point or v._dtype.is_complex)
    )


def _double(v):
    """Scalar.to<double>() (checked: a complex with an imaginary part overflows)."""
    if isinstance(v, complex):
        if v.imag != 0:
            raise RuntimeError("value cannot be converted to type double without overflow")
        v = v.real
    return float(v)


def _check_bounds(s, e, st):
    ds, de, dst = _double(s), _double(e), _double(st)
    if not (dst > 0 or dst < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(ds) and math.isfinite(de)):
        raise RuntimeError(f"unsupported range: {_fmt(ds)} -> {_fmt(de)}")
    if not ((dst > 0 and de >= ds) or (dst < 0 and de <= ds)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    return ds, de, dst


def _fmt(x):
    return f"{x:g}"  # C++ ostream's default formatting of a double


def _not_implemented(kernel, d):
    if d is D.bool_ or d.is_complex:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(d)}'")


def _acc(v, d):
    """Scalar.to<accscalar_t>(): int64 for integer dtypes, float for half/bfloat16, double otherwise."""
    if not d.is_floating_point:
        return int(scalar_to(v, D.int64))
    if d in (D.float16, D.bfloat16):
        return np.float32(scalar_to(v, D.float32))
    return np.float64(_double(v))


def _cdiv(a, b):
    """C++ integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _range_args(fname, args, single=False):
    """The Scalar arguments as Python numbers. PyTorch's parser errors: per argument for one-signature calls
    (`range`, `arange(end)`), else 'invalid combination'."""
    for i, v in enumerate(args):
        if not _is_scalar(v):
            if single or fname == "range":
                name, pos = ("end", 1) if single else (("start", "end", "step")[i], i + 1)
                raise TypeError(f"{fname}(): argument '{name}' (position {pos}) must be Number, not {_tp(v)}")
            _combo(fname, args)
    return [_py(v, fname) for v in args]


@register("arange", method=False, kind="creation")
def arange(
    start=0,
    end=None,
    step=_NO,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """`torch.arange(start=0, end, step=1, *, out=None, dtype=None, device=None, requires_grad=False)`.

    int64 when start, end and step are all integral, else the default float dtype; with `out=` (or an integer
    dtype) the bounds are first converted to that dtype's accumulation type, as PyTorch does."""
    single = end is None
    if single:
        start, end = 0, start
    given = (end,) if single else (start, end) if step is _NO else (start, end, step)
    step = 1 if step is _NO else step
    _range_args("arange", given, single)
    s, e, st = _range_args("arange", (start, end, step))
    d = _out_dtype("arange", out, dtype) or (
        D.int64 if all(_integral(v) for v in (start, end, step)) else D.get_default_dtype()
    )
    _not_implemented("arange_cpu", d)
    ds, de, dst = _check_bounds(s, e, st)
    xs, xst = _acc(s, d), _acc(st, d)
    if d is D.int64:
        xe = _acc(e, d)
        if xst == 0:
            raise ValueError("step must be nonzero")
        size = _cdiv(xe - xs + xst - ((xst > 0) - (xst < 0)), xst)
    else:
        size = math.ceil((de - ds) / dst)
    if not 0 <= size <= 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
    if d.is_floating_point:
        vals = xs + xst * np.arange(size, dtype=type(xs))
    else:
        vals = xs + xst * np.arange(size, dtype=np.int64)
    t = finish(cast(np.asarray(vals), d), d, Dev.canonical(device), requires_grad and out is None)
    if out is None:
        return t
    if out.numel() != size and out.numel() > 0:
        warnings.warn(
            f"The number of elements in the out tensor of shape {list(out._shape)} is {out.numel()} which "
            f"does not match the computed number of elements {size}. Note that this may occur as a result "
            f"of rounding error. The out tensor will be resized to a tensor of shape ({size},).",
            UserWarning,
            stacklevel=2,
        )
    return _into(out, t, requires_grad, keep_numel=True)


@register("range", method=False, kind="creation")
def range_(
    start=_NO, end=_NO, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False
):
    """`torch.range(start, end, step=1, *, out=None, dtype=None, ...)`: deprecated (warns); includes `end`;
    the default float dtype unless `dtype=`/`out=` say otherwise."""
    missing = [n for n, v in (("start", start), ("end", end)) if v is _NO]
    if missing:
        raise TypeError(
            f"range() missing {len(missing)} required positional arguments: "
            + ", ".join(f'"{n}"' for n in missing)
        )
    s, e, st = _range_args("range", (start, end, step))
    d = _out_dtype("range", out, dtype) or D.get_default_dtype()
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior is "
        "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
        "[start, end).",
        UserWarning,
        stacklevel=2,
    )
    _not_implemented("range_cpu", d)
    _check_bounds(s, e, st)
    xs, xe, xst = _acc(s, d), _acc(e, d), _acc(st, d)
    if not d.is_floating_point:
        if xst == 0:
            raise RuntimeError("step must be nonzero")  # PyTorch divides by zero here
        size = _cdiv(xe - xs, xst) + 1
        vals = xs + xst * np.arange(size, dtype=np.int64)
    else:
        size = int((xe - xs) / xst + 1)
        vals = xs + xst * np.arange(size, dtype=type(xs))
    t = finish(cast(np.asarray(vals), d), d, Dev.canonical(device), requires_grad and out is None)
    return t if out is None else _into(out, t, requires_grad, keep_numel=True)


def _space_args(fname, start, end, steps, extra=()):
    if (
        not (_is_scalar(start) or isinstance(start, Tensor))
        or not (_is_scalar(end) or isinstance(end, Tensor))
        or not isinstance(steps, (int, np.integer))
        or isinstance(steps, bool)
    ):
        _combo(fname, (start, end, steps) + extra)
    ds = start.ndim if isinstance(start, Tensor) else 0
    de = end.ndim if isinstance(end, Tensor) else 0
    if ds or de:
        got = " and ".join(
            f"{n} with {k} dimension(s)"
            for n, k, t in (("start", ds, start), ("end", de, end))
            if isinstance(t, Tensor) and (k or isinstance(start, Tensor) and isinstance(end, Tensor))
        )
        raise RuntimeError(f"{fname} only supports 0-dimensional start and end tensors, but got {got}.")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return int(steps)


def _is_complex(v):
    return isinstance(v, (complex, np.complexfloating)) or isinstance(v, Tensor) and v._dtype.is_complex


def _space_dtype(fname, start, end, out, dtype):
    """linspace_logspace_infer_options: the default complex dtype for complex bounds, else the default
    float."""
    d = _out_dtype(fname, out, dtype)
    if out is None and (_is_complex(start) or _is_complex(end)):
        dc = default_complex()
        if d is not None and not d.is_complex:
            raise RuntimeError(
                f"torch.{fname}(): inferred dtype {c_name(dc)} can't be safely cast to passed dtype "
                f"{short_name(d)}"
            )
        return d or dc
    return d or D.get_default_dtype()


def _bound(v):
    """A start/end bound as a Python number, or a traced 0-dim tensor."""
    if isinstance(v, Tensor) and not isinstance(v._value, jax.core.Tracer):
        return v.item()
    return v.item() if isinstance(v, np.generic) else v


def _scalar(v, d):
    """A bound converted to `d` (checked like Scalar.to<scalar_t>()); traced 0-dim tensors stay traced."""
    return scalar_to(_bound(v), d)


def _xp(*vals):
    return jnp if any(isinstance(v, jax.core.Tracer) for v in vals) else np


def _halves(xp, s, step, e, steps, t, fused=False):
    """PyTorch's symmetric formula: start + step*i for the first half, end - step*(steps-1-i) for the rest
    (`fused`: each as one fused multiply-add, as PyTorch's compiled CPU kernels round it)."""
    i = np.arange(steps)
    if fused and xp is np:
        lo = _fma(step, i.astype(t), s)
        hi = _fma(-step, (steps - 1 - i).astype(t), e)
    else:
        lo = s + step * i.astype(t)
        hi = e - step * (steps - 1 - i).astype(t)
    return xp.where(i < steps // 2, lo, hi)


def _fma(a, b, c):
    """a*b + c rounded once (float64: error-free product and sum; float32: exact in float64)."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    if a.dtype == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
    p = a * b
    split = 134217729.0  # 2**27 + 1 (Veltkamp)
    ah = a * split - (a * split - a)
    bh = b * split - (b * split - b)
    err = ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)
    sm = p + c
    bb = sm - p
    tail = (p - (sm - bb)) + (c - bb)
    return sm + (tail + err)


def _done(vals, d, device, requires_grad, out, steps):
    t = finish(cast(vals, d), d, Dev.canonical(device), requires_grad and out is None)
    return t if out is None else _into(out, t, requires_grad, keep_numel=True)


@register("linspace", method=False, kind="creation")
def linspace(
    start,
    end,
    steps,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """`torch.linspace(start, end, steps, *, out=None, dtype=None, ...)`: PyTorch's symmetric formula,
    computed in the result dtype (in double for integer dtypes, after truncating start and end)."""
    steps = _space_args("linspace", start, end, steps)
    d = _space_dtype("linspace", start, end, out, dtype)
    if steps <= 1:
        vals = np.zeros((0,), d.np) if steps == 0 else _xp_fill(fill_scalar(_bound(start), d, 1))
        return _done(vals, d, device, requires_grad, out, steps)
    _not_implemented("linspace_cpu", d if d is D.bool_ else D.float32)
    s, e = _scalar(start, d), _scalar(end, d)
    xp = _xp(s, e)
    if d.is_floating_point or d.is_complex:
        t = d.np.type
        vals = _halves(xp, s, (e - s) / t(steps - 1), e, steps, t, fused=d in (D.float32, D.float64))
    else:
        s64, e64 = s.astype(np.float64), e.astype(np.float64)
        vals = _halves(xp, s64, (e64 - s64) / (steps - 1), e64, steps, np.float64, fused=True)
    return _done(vals, d, device, requires_grad, out, steps)


def _xp_fill(v):
    return (jnp if isinstance(v, jax.core.Tracer) else np).reshape(v, (1,))


@register("logspace", method=False, kind="creation")
def logspace(
    start,
    end,
    steps,
    base=10.0,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """`torch.logspace(start, end, steps, base=10.0, *, out=None, dtype=None, ...)` -> base ** linspace,
    computed like PyTorch's kernel (exponents in double after converting start/end to the result dtype)."""
    if isinstance(base, Tensor) and base.ndim == 0:
        base = base.item()
    if not isinstance(base, (int, float, np.integer, np.floating)):
        _combo("logspace", (start, end, steps), (("base", base),))
    steps = _space_args("logspace", start, end, steps)
    d = _space_dtype("logspace", start, end, out, dtype)
    base = float(base)
    if steps <= 1:
        if steps == 0:
            return _done(np.zeros((0,), d.np), d, device, requires_grad, out, steps)
        s = _py(start, "logspace")
        with np.errstate(all="ignore"):
            v = (
                complex(np.power(np.complex128(base), np.complex128(s)))
                if d.is_complex
                else float(np.power(np.float64(base), np.float64(_double(s))))
            )
        return _done(np.reshape(fill_scalar(v, d, 1), (1,)), d, device, requires_grad, out, steps)
    _not_implemented("logspace_cpu", d if d is D.bool_ else D.float32)
    s, e = _scalar(start, d), _scalar(end, d)
    xp = _xp(s, e)
    if d.is_complex:
        t = d.np.type
        exps = _halves(xp, s, (e - s) / t(steps - 1), e, steps, t)
        vals = xp.power(t(base), exps)
    else:
        diff = (e.astype(np.int64) - s.astype(np.int64)) if not d.is_floating_point else (e - s)
        step = diff.astype(np.float64) / (steps - 1)
        exps = _halves(xp, s.astype(np.float64), step, e.astype(np.float64), steps, np.float64, fused=True)
        vals = xp.power(np.float64(base), exps)
    return _done(vals, d, device, requires_grad, out, steps)

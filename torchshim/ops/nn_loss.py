"""torch.nn.functional ops, losses: the regression and probabilistic losses here (l1, mse, smooth_l1, huber,
soft_margin, binary_cross_entropy[_with_logits], kl_div, poisson_nll, gaussian_nll); margin/embedding losses
in `_loss_margin.py`, nll_loss/cross_entropy/multi-margin losses in `_loss_classify.py`, ctc_loss in
`_loss_ctc.py` (imported at the end: importing this module registers every loss).

The table holds PyTorch's ATen forms (`reduction` as the at::Reduction code: 0 none, 1 mean, 2 sum); the
`torch.nn.functional` signatures (string `reduction`, legacy `size_average`/`reduce`, size warnings) are
Python wrappers in `torchshim/nn/functional/loss.py`. The ops PyTorch also has as `torch.<name>` (kl_div,
poisson_nll_loss, binary_cross_entropy_with_logits, hinge_embedding_loss, margin_ranking_loss,
cosine_embedding_loss, triplet_margin_loss, ctc_loss) are registered with `function=True`, with PyTorch's
effective default `reduction=0` (its Python binding reads the declared default `Mean` as 0); the others are
table entries behind the F wrappers only.

Each op is one jitted kernel; its dtype rules and errors are those of PyTorch's kernel or composite formula,
computed in Python before the kernel, and 16-bit floats round where PyTorch stores an intermediate. Gradients
are jax's derivative of the forward, with PyTorch's conventions at kinks (`_subgrad`) and PyTorch's own
backward formulas where they differ (binary_cross_entropy at 0 and 1).
"""
import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._promotion import short_name
from . import _dispatch as P
from . import _subgrad as S
from ._loss_common import (EPS12, LOW, MEAN, NONE, Like, bool_sub_error, broadcast_shape,
                           by_reduction, cast_error, check_inplace_cast, device_of, host, is_intlike,
                           neg_bool_error, not_implemented, opmath, raising_guard, reduce, reduced_dtype,
                           rnd, rt)
from ._registry import register

__all__ = []


def _new(arr, dtype, like):
    return P.fresh(arr, dtype, device_of(like))


def _fits(shape, into):
    """An in-place op's operand of `shape` must broadcast to the written tensor's shape `into`."""
    s = broadcast_shape(into, shape)
    if s != tuple(into):
        raise RuntimeError(f"output with shape {list(into)} doesn't match the broadcast shape {list(s)}")


def _float_kernel_check(kernel, d):
    if not d.is_floating_point:
        raise not_implemented(kernel, d)


# ---- l1, mse, smooth l1, huber -----------------------------------------------------------------------------
def _mixed_dtype_guards(a, b):
    """PyTorch's huber_loss_backward takes no mixed dtypes: its errors, raised when jax differentiates."""
    da, db = short_name(D.from_numpy_dtype(a.dtype)), short_name(D.from_numpy_dtype(b.dtype))
    a = raising_guard(RuntimeError, f"Found dtype {db} but expected {da}")(a)
    b = raising_guard(RuntimeError, f"Found dtype {da} but expected {db}")(b)
    return a, b


@partial(P.kernel, static=("fn", "reduction", "cdt", "edt", "rdt", "param"))
def _pointwise_k(a, b, *, fn, reduction, cdt, edt, rdt, param):
    oc = opmath(cdt)
    if fn == "huber" and a.dtype != b.dtype:
        a, b = _mixed_dtype_guards(a, b)
    a, b = a.astype(oc), b.astype(oc)
    if fn == "l1":
        loss = S.abs_(rnd(a - b, cdt))
    elif fn == "mse":  # the CPU kernel rounds each scalar_t op (16-bit floats)
        d = rnd(a - b, cdt)
        loss = d * d
    elif fn == "smooth_l1":  # computed in float for 16-bit floats
        d = a - b
        z = S.abs_(d)
        loss = jnp.where(z < param, 0.5 * d * d / param, z - 0.5 * param)
    else:  # huber: scalar_t arithmetic, each op rounded
        d = rnd(a - b, cdt)
        z = S.abs_(d)
        delta = rnd(jnp.asarray(param, oc), cdt)
        half = rnd(0.5 * delta, cdt)
        loss = jnp.where(z < delta, rnd(0.5 * d, cdt) * d, delta * rnd(z - half, cdt))
    return reduce(rnd(loss, edt), reduction, edt, rdt)


def _pointwise(fn, input, target, reduction, param=0.0, edt=None):
    cdt = rt(input, target)
    edt = edt or cdt
    rdt = reduced_dtype(edt, reduction)
    broadcast_shape(input._shape, target._shape)
    r = _pointwise_k(input._value, target._value, fn=fn, reduction=reduction, cdt=cdt.np, edt=edt.np,
                     rdt=rdt.np, param=float(param))
    return _new(r, rdt, input)


@register("l1_loss", method=False, function=False, kind="loss", grad_name=by_reduction("AbsBackward0", 2))
def l1_loss(input, target, reduction=MEAN):
    """ATen `l1_loss(input, target, reduction=Mean)`: |input - target| reduced (PyTorch's composite: integer
    inputs give an integer loss without reduction and raise for 'mean'; complex inputs a real loss)."""
    bi, bt = input._dtype is D.bool_, target._dtype is D.bool_
    if bi or bt:
        raise bool_sub_error(bi and bt)
    cdt = rt(input, target)
    return _pointwise("l1", input, target, reduction, edt=cdt.to_real() if cdt.is_complex else cdt)


@register("mse_loss", method=False, function=False, kind="loss")
def mse_loss(input, target, reduction=MEAN):
    """ATen `mse_loss(input, target, reduction=Mean)`: (input - target)^2 reduced; floating dtypes only."""
    _float_kernel_check("mse_cpu", rt(input, target))
    return _pointwise("mse", input, target, reduction)


@register("smooth_l1_loss", method=False, function=False, kind="loss")
def smooth_l1_loss(input, target, reduction=MEAN, beta=1.0):
    """ATen `smooth_l1_loss(input, target, reduction=Mean, beta=1.0)`: 0.5 z^2 / beta where |z| < beta, else
    |z| - 0.5 beta (z = input - target)."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _float_kernel_check("smooth_l1_cpu", rt(input, target))
    return _pointwise("smooth_l1", input, target, reduction, beta)


@register("huber_loss", method=False, function=False, kind="loss")
def huber_loss(input, target, reduction=MEAN, delta=1.0):
    """ATen `huber_loss(input, target, reduction=Mean, delta=1.0)`: 0.5 z^2 where |z| < delta, else
    delta (|z| - 0.5 delta); the result has input's dtype (computed in the promoted dtype). As PyTorch, its
    gradient raises for inputs of two dtypes."""
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    cdt = rt(input, target)
    check_inplace_cast(cdt, input._dtype)
    _float_kernel_check("huber_cpu", cdt)
    return _pointwise("huber", input, target, reduction, delta, edt=input._dtype)


# ---- soft margin -------------------------------------------------------------------------------------------
@partial(P.kernel, static=("reduction", "edt", "cdt"))
def _soft_margin_k(x, y, *, reduction, edt, cdt):
    oc = opmath(edt)
    v = rnd(-x.astype(oc), edt)
    v = rnd((v.astype(opmath(cdt)) * y.astype(opmath(cdt))).astype(oc), edt)
    v = rnd(jnp.exp(v), edt)
    return reduce(jnp.log1p(v), reduction, edt, edt)


@register("soft_margin_loss", method=False, function=False, kind="loss")
def soft_margin_loss(input, target, reduction=MEAN):
    """ATen `soft_margin_loss(input, target, reduction=Mean)`: log(1 + exp(-target * input)), computed "
    "in place
    into input's dtype as PyTorch (target broadcasts to input's shape)."""
    d = input._dtype
    if d is D.bool_:
        raise neg_bool_error()
    cdt = rt(input, target)
    check_inplace_cast(cdt, d)
    _fits(target._shape, input._shape)
    if is_intlike(d):
        raise cast_error(D.get_default_dtype(), d)
    r = _soft_margin_k(input._value, target._value, reduction=reduction, edt=d.np, cdt=cdt.np)
    return _new(r, d, input)


# ---- binary cross entropy ----------------------------------------------------------------------------------
def _bce_value(x, y, dt):
    lx = rnd(jnp.maximum(rnd(jnp.log(x), dt), -100.0), dt)
    l1x = rnd(jnp.maximum(rnd(jnp.log1p(-x), dt), -100.0), dt)
    return rnd(rnd(rnd(y - 1, dt) * l1x, dt) - rnd(y * lx, dt), dt)


@partial(jax.custom_jvp, nondiff_argnums=(2,))
def _bce_elem(x, y, dt):
    """The elementwise loss of binary_cross_entropy with PyTorch's backward formulas: input gradient
    (x - y) / max((1 - x) x, 1e-12), target gradient -logit(x)."""
    return _bce_value(x, y, dt)


@_bce_elem.defjvp
def _bce_jvp(dt, primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return _bce_value(x, y, dt), tx * _bce_gx(x, y) + ty * _bce_gy(x)


@jax.custom_jvp
def _bce_gx(x, y):
    """binary_cross_entropy_backward's factor; its derivatives are binary_cross_entropy_double_backward's."""
    return (x - y) / jnp.maximum((1 - x) * x, EPS12)


@_bce_gx.defjvp
def _bce_gx_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    a, b = x + 1e-12, jax.lax.optimization_barrier(1 - x) + 1e-12  # not reassociated into (1 + 1e-12) - x
    dx = (x * x - 2 * x * y + y) / (a * a * b * b)
    dy = -1 / jnp.maximum((1 - x) * x, EPS12)
    return _bce_gx(x, y), tx * dx + ty * dy


@jax.custom_jvp
def _bce_gy(x):
    """binary_cross_entropy_target_backward's factor -logit(x); derivative -1 / (x (1 - x)) "
    "(logit_backward)."""
    return -jnp.log(x / (1 - x))


@_bce_gy.defjvp
def _bce_gy_jvp(primals, tangents):
    (x,), (tx,) = primals, tangents
    return _bce_gy(x), tx * (-1 / (x * (1 - x)))


@partial(P.kernel, static=("reduction", "dt", "has_weight"))
def _bce_k(x, y, w, *, reduction, dt, has_weight):
    oc = opmath(dt)
    loss = _bce_elem(x.astype(oc), y.astype(oc), np.dtype(dt))
    if has_weight:
        loss = rnd(loss * w.astype(opmath(jnp.promote_types(dt, w.dtype))).astype(oc), dt)
    return reduce(loss, reduction, dt, dt)


def _check_unit_interval(x, y):
    """PyTorch's per-element range checks of binary_cross_entropy, in the kernel's element order."""
    a, b = host(x), host(y)
    if a is None or b is None or a.size == 0:
        return
    a, b = np.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    bad_x = ~((a >= 0) & (a <= 1)).ravel()
    bad = bad_x | ~((b >= 0) & (b <= 1)).ravel()
    if bad.any():
        which = "input" if bad_x[int(np.argmax(bad))] else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")


@register("binary_cross_entropy", method=False, function=False, kind="loss")
def binary_cross_entropy(input, target, weight=None, reduction=MEAN):
    """ATen `binary_cross_entropy(input, target, weight=None, reduction=Mean)`: -w (y log x + (1-y) log(1-x))
    with the logs clamped at -100; input and target of one floating dtype; values outside [0, 1] raise (a host
    check: skipped under jax tracing). Gradients are PyTorch's formulas (finite at 0 and 1)."""
    d = input._dtype
    if target._dtype is not d:
        raise RuntimeError(f"Found dtype {short_name(target._dtype)} but expected {short_name(d)}")
    if not d.is_floating_point:
        raise not_implemented("binary_cross_entropy", d)
    _check_unit_interval(input, target)
    if weight is not None:
        check_inplace_cast(rt(Like(d), weight), d)
        _fits(weight._shape, input._shape)
    r = _bce_k(input._value, target._value, None if weight is None else weight._value, reduction=reduction,
               dt=d.np, has_weight=weight is not None)
    return _new(r, reduced_dtype(d, reduction), input)


@partial(P.kernel, static=("reduction", "edt", "xdt", "has_w", "has_pw"))
def _bce_logits_k(x, y, w, pw, *, reduction, edt, xdt, has_w, has_pw):
    oc = opmath(edt)
    ls = rnd(jax.nn.log_sigmoid(x.astype(opmath(xdt))), xdt)
    if has_pw:
        lw = pw.astype(oc) - 1
        lw = lw * y.astype(oc) + 1
        ls = rnd(ls * lw, xdt)
    loss = rnd(rnd(1 - y.astype(oc), edt) * x.astype(oc), edt)
    loss = rnd(loss - ls, edt)
    if has_w:
        loss = rnd(loss * w.astype(oc), edt)
    return reduce(loss, reduction, edt, edt)


@register("binary_cross_entropy_with_logits", method=False, kind="loss")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=NONE):
    """`torch.binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0)`:
    (1 - y) x - (1 + (pos_weight - 1) y) log_sigmoid(x), times weight, computed stably; the result has
    target's dtype (PyTorch computes in place into `1 - target`).

    Difference: a `weight`/`pos_weight` requiring grad gets a gradient here (PyTorch raises 'not
    differentiable with respect to argument'; `F.binary_cross_entropy_with_logits` raises it too)."""
    xd, ed = input._dtype, target._dtype
    if not xd.is_floating_point:
        raise not_implemented("log_sigmoid_cpu", xd)
    if ed is D.bool_:
        raise bool_sub_error(True)
    broadcast_shape(input._shape, target._shape)
    if pos_weight is not None:
        lw = Like(rt(pos_weight, target), max(pos_weight.ndim, target.ndim))
        check_inplace_cast(rt(Like(xd, input.ndim), lw), xd)
        _fits(broadcast_shape(pos_weight._shape, target._shape), input._shape)
    check_inplace_cast(rt(Like(ed, target.ndim), input), ed)
    _fits(input._shape, target._shape)
    if weight is not None:
        check_inplace_cast(rt(Like(ed, target.ndim), weight), ed)
        _fits(weight._shape, target._shape)
    r = _bce_logits_k(input._value, target._value, None if weight is None else weight._value,
                      None if pos_weight is None else pos_weight._value, reduction=reduction, edt=ed.np,
                      xdt=xd.np, has_w=weight is not None, has_pw=pos_weight is not None)
    return _new(r, ed, input)


# ---- kl_div ------------------------------------------------------------------------------------------------
@partial(P.kernel, static=("reduction", "log_target", "dt", "tdt"))
def _kl_k(x, t, *, reduction, log_target, dt, tdt):
    oc = opmath(dt)
    x, tt = x.astype(oc), t.astype(opmath(tdt))
    if log_target:
        loss = rnd(jnp.exp(tt), tdt).astype(oc) * rnd(tt.astype(oc) - x, dt)
    else:
        if np.dtype(tdt) in LOW:  # PyTorch's 16-bit xlogy rounds log(target) before the product
            xl = jnp.where(tt == 0, jnp.zeros((), tt.dtype), tt * rnd(jnp.log(tt), tdt))
        else:
            xl = S.xlogy(tt, tt)
        loss = rnd(xl, tdt).astype(oc) - rnd(tt.astype(oc) * x, dt)
    return reduce(rnd(loss, dt), reduction, dt, dt)


# the node without reduction: Sub, or Mul with log_target
def _kl_none(args, kwargs):
    return "MulBackward0" if kwargs.get("log_target", False) else "SubBackward0"


@register("kl_div", method=False, kind="loss", grad_name=by_reduction(_kl_none, 2, NONE))
def kl_div(input, target, reduction=NONE, *, log_target=False):
    """`torch.kl_div(input, target, reduction=0, *, log_target=False)`: target (log target - input) pointwise
    (`exp(target) (target - input)` with log_target), reduced; floating inputs only."""
    if input._dtype.is_complex or target._dtype.is_complex:
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if is_intlike(input._dtype) or is_intlike(target._dtype):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    broadcast_shape(input._shape, target._shape)
    d = rt(input, target)
    r = _kl_k(input._value, target._value, reduction=reduction, log_target=bool(log_target), dt=d.np,
              tdt=target._dtype.np)
    return _new(r, d, input)


# ---- poisson_nll, gaussian_nll -----------------------------------------------------------------------------
def _float_np(npdt):
    """The numpy dtype of a float op on `npdt` (integers and bool give the default float dtype)."""
    d = np.dtype(npdt)
    return d if d.kind in "fc" or d in LOW else np.dtype(D.get_default_dtype().np)


@partial(P.kernel, static=("reduction", "log_input", "full", "eps", "xdt", "tdt", "dt"))
def _poisson_k(x, t, *, reduction, log_input, full, eps, xdt, tdt, dt):
    oc = opmath(dt)
    tt = t.astype(oc)
    fxd = _float_np(xdt)
    fx = x.astype(opmath(fxd))
    if log_input:
        loss = rnd(jnp.exp(fx), fxd).astype(oc) - rnd(tt * x.astype(oc), dt)
    else:
        lg = rnd(jnp.log(rnd(fx + eps, fxd)), fxd)
        loss = x.astype(oc) - rnd(tt * lg.astype(oc), dt)
    loss = rnd(loss, dt)
    if full:
        ft = t.astype(opmath(_float_np(tdt)))
        safe = jnp.where(ft <= 1, 2.0, ft)  # the masked elements' values (and gradients) are discarded
        st = safe * jnp.log(safe) - safe + 0.5 * jnp.log(2 * math.pi * safe)
        loss = rnd(loss + jnp.where(ft <= 1, 0.0, st).astype(oc), dt)
    return reduce(loss, reduction, dt, dt)


# the node without reduction: Add with `full`
def _full_or(name):
    def f(args, kwargs):
        return "AddBackward0" if (args[3] if len(args) > 3 else kwargs.get("full", False)) else name
    return f


@register("poisson_nll_loss", method=False, kind="loss", grad_name=by_reduction(_full_or("SubBackward0"), 5))
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """`torch.poisson_nll_loss(input, target, log_input, full, eps, reduction)`: exp(input) - target * input
    (log_input) or input - target * log(input + eps), plus the Stirling term for targets > 1 when `full`."""
    xd = input._dtype
    fx = xd if not is_intlike(xd) else D.get_default_dtype()
    n = max(target.ndim, input.ndim)
    if log_input:
        prod = rt(target, input)
        if prod is D.bool_:
            raise bool_sub_error(False)
        d = rt(Like(fx, input.ndim), Like(prod, n))
    else:
        if xd is D.bool_:
            raise bool_sub_error(False)
        d = rt(input, Like(rt(target, Like(fx, input.ndim)), n))
    broadcast_shape(input._shape, target._shape)
    r = _poisson_k(input._value, target._value, reduction=reduction, log_input=bool(log_input),
                   full=bool(full), eps=float(eps), xdt=xd.np, tdt=target._dtype.np, dt=d.np)
    return _new(r, reduced_dtype(d, reduction), input)


@partial(P.kernel, static=("reduction", "full", "eps", "dt", "vdt"))
def _gauss_k(x, t, v, *, reduction, full, eps, dt, vdt):
    oc = opmath(dt)
    v = v.astype(opmath(vdt))
    vc = v + jax.lax.stop_gradient(jnp.maximum(v, eps) - v)  # clamped under no_grad: the gradient is var's
    vc = rnd(vc, vdt)
    diff = rnd(x.astype(oc) - t.astype(oc), dt)
    loss = rnd(rnd(jnp.log(vc), vdt).astype(oc) + rnd(rnd(diff * diff, dt) / vc.astype(oc), dt), dt)
    loss = rnd(0.5 * loss, dt)
    if full:
        loss = rnd(loss + 0.5 * math.log(2 * math.pi), dt)
    return reduce(loss, reduction, dt, dt)


@register("gaussian_nll_loss", method=False, function=False, kind="loss",
          grad_name=by_reduction(_full_or("MulBackward0"), 5))
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction=MEAN):
    """`gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction=Mean)` (PyTorch's Python
    function, as one op): 0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) [+ 0.5 log(2 pi)]; the
    clamp is invisible to the gradient, as PyTorch's no_grad clamp_. `var` is already shaped to broadcast (the
    F wrapper applies PyTorch's shape rules and checks)."""
    vd = var._dtype
    if is_intlike(vd):
        raise cast_error(D.get_default_dtype(), vd)
    bi, bt = input._dtype is D.bool_, target._dtype is D.bool_
    if bi or bt:
        raise bool_sub_error(bi and bt)
    n = max(input.ndim, target.ndim)
    q = rt(Like(rt(input, target), n), var)
    d = rt(Like(vd, var.ndim), Like(q, max(n, var.ndim)))
    broadcast_shape(input._shape, target._shape, var._shape)
    r = _gauss_k(input._value, target._value, var._value, reduction=reduction, full=bool(full),
                 eps=float(eps), dt=d.np, vdt=vd.np)
    return _new(r, reduced_dtype(d, reduction), input)


from . import _loss_classify, _loss_ctc, _loss_margin  # noqa: E402,F401  (register the other losses)

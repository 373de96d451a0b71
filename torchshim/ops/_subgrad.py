"""jax building blocks whose derivatives are PyTorch's, at kinks and singular points included.

Every op's gradient in torchshim is jax's derivative of its forward (see torchshim/autograd/_ops.py). Where
jax's derivative of the natural jax formulation differs from PyTorch's backward formula (abs at 0, ties of
maximum, clamp at its bounds, x ** 0, norms and std at 0, ...), the op's forward uses one of these functions:
the value is the usual one, and the `jax.custom_jvp` rule is PyTorch's backward formula (FunctionsManual.cpp,
derivatives.yaml) written as a JVP. Second derivatives are then jax's derivatives of that rule, i.e. PyTorch's
double backward, NaN/inf leaks of masked branches included.

Reverse mode applies a rule's tangent operations in reverse order, so where PyTorch masks a coefficient
(`grad * d.masked_fill(mask, 0)`) the rule is `t * where(mask, 0, d)`, and where PyTorch masks the product
(`(grad * d).masked_fill(mask, 0)`, which also clears a NaN/inf grad) the rule is `where(mask, 0, t) * d`.
Rules use `symbolic_zeros=True`: an operand that is not differentiated (a Python scalar, a constant) gets no
tangent term at all, so `0 * inf` never turns into a NaN that PyTorch (which skips the term) doesn't have.
"""
import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero

__all__ = ["abs_", "sgn", "maximum", "minimum", "fmax", "fmin", "clamp", "pow_", "pow_scalar_exp", "copysign",
           "xlogy", "hypot", "atan2", "div", "sqrt0", "evenly_max", "evenly_select", "amax",
           "vector_norm"]


def _live(t):
    return not isinstance(t, SymbolicZero)


def _total(out, *terms):
    """Sum of the non-None tangent terms, as out's shape and dtype."""
    acc = None
    for t in terms:
        if t is not None:
            acc = t if acc is None else acc + t
    if acc is None:
        return jnp.zeros(out.shape, out.dtype)
    return jnp.broadcast_to(acc, out.shape).astype(out.dtype)


def _is_complex(x):
    return jnp.iscomplexobj(x)


def _real_dtype(x):
    return jnp.real(jnp.zeros((), x.dtype)).dtype


# ---- sgn / abs
# -----------------------------------------------------------------------------------------------
@jax.custom_jvp
def sgn(x):
    """sign for real x, x/|x| (0 at 0) for complex; PyTorch's sgn_backward."""
    if not _is_complex(x):
        return jnp.sign(x)
    a = jnp.abs(x)
    return jnp.where(a == 0, jnp.zeros_like(x), x / jnp.where(a == 0, 1, a).astype(x.dtype))


def _sgn_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    s = sgn(x)
    if not _live(t) or not _is_complex(x):
        return s, jnp.zeros_like(s)
    a = jnp.abs(x)
    u = jnp.where(a == 0, jnp.zeros_like(t), t)  # ((g - s*s*conj(g)) / (2 |x|)).masked_fill_(|x| == 0, 0)
    return s, (u - s * s * jnp.conj(u)) * (1 / (2.0 * a)).astype(x.dtype)


sgn.defjvp(_sgn_jvp, symbolic_zeros=True)


@jax.custom_jvp
def abs_(x):
    """|x|; the derivative is sgn(x) (0 at 0), PyTorch's abs_backward."""
    return jnp.abs(x)


def _abs_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    out = jnp.abs(x)
    if not _live(t):
        return out, jnp.zeros_like(out)
    if _is_complex(x):
        return out, jnp.real(jnp.conj(sgn(x)) * t).astype(out.dtype)
    return out, (t * sgn(x)).astype(out.dtype)


abs_.defjvp(_abs_jvp, symbolic_zeros=True)


# ---- pairwise extrema
# ----------------------------------------------------------------------------------------
def _extremum(jfn, keep_a, keep_b):
    """maximum/minimum: ties split the gradient in half, NaN (unordered) gives it to both (PyTorch)."""
    @jax.custom_jvp
    def f(a, b):
        return jfn(a, b)

    def jvp(primals, tangents):
        (a, b), (ta, tb) = primals, tangents
        out = jfn(a, b)
        eq = a == b
        terms = []
        for t, keep in ((ta, keep_a), (tb, keep_b)):
            if _live(t):  # where(a == b, grad / 2, grad).masked_fill_(other wins, 0)
                u = jnp.where(keep(a, b), t, jnp.zeros((), out.dtype)).astype(out.dtype)
                terms.append(jnp.where(eq, u * 0.5, u))
        return out, _total(out, *terms)
    f.defjvp(jvp, symbolic_zeros=True)
    return f


maximum = _extremum(jnp.maximum, lambda a, b: ~(a < b), lambda a, b: ~(a > b))
minimum = _extremum(jnp.minimum, lambda a, b: ~(a > b), lambda a, b: ~(a < b))


def _isnan(x):
    return jnp.isnan(x) if jnp.issubdtype(x.dtype, jnp.inexact) else jnp.zeros(x.shape, bool)


def fmax(a, b):
    """fmax as a selection: the gradient goes to a where a >= b or b is NaN, else to b (PyTorch)."""
    return jnp.where((a >= b) | _isnan(b), a, b)


def fmin(a, b):
    return jnp.where((a <= b) | _isnan(b), a, b)


# ---- clamp
# ---------------------------------------------------------------------------------------------------
def clamp(x, lo, hi):
    """min(max(x, lo), hi) with NaN propagation (lo or hi may be None); gradients as PyTorch's clamp_backward
    / clamp_backward_min_max: x where lo <= x <= hi (closed interval; NaN gets none), lo where x < lo (and
    lo < hi), hi where x > hi (or hi < lo)."""
    value = x
    if lo is not None:
        value = jnp.maximum(value, lo)
    if hi is not None:
        value = jnp.minimum(value, hi)
    rest = jax.lax.stop_gradient(value)
    if lo is not None and hi is not None:
        inside = (x >= lo) & (x <= hi)
        to_hi = (x > hi) | (hi < lo)
        to_lo = (x < lo) & (lo < hi)
        r = jnp.where(inside, x, jnp.where(to_hi, hi, jnp.where(to_lo, lo, rest)))
    elif lo is not None:
        r = jnp.where(x >= lo, x, jnp.where(x < lo, lo, rest))
    else:
        r = jnp.where(x <= hi, x, jnp.where(x > hi, hi, rest))
    return jnp.broadcast_to(r, value.shape).astype(value.dtype)


# ---- pow
# -----------------------------------------------------------------------------------------------------
@jax.custom_jvp
def pow_(a, b):
    """a ** b with PyTorch's pow_backward_self / pow_backward_exponent: no gradient to a where b == 0, none to
    b where a == 0 and b >= 0 (real part, imaginary 0 for complex)."""
    return jnp.power(a, b)


def _pow_jvp(primals, tangents):
    (a, b), (ta, tb) = primals, tangents
    out = pow_(a, b)  # the saved result and a.pow(b - 1) differentiate with these same conventions
    terms = []
    if _live(ta):  # where(exponent == 0, 0, grad * exponent * self.pow(exponent - 1))
        terms.append(jnp.where(b == 0, jnp.zeros((), out.dtype), ta) * (b * pow_(a, b - 1)))
    if _live(tb):
        if _is_complex(b):
            cond = (a == 0) & (jnp.imag(b) == 0) & (jnp.real(b) >= 0)
        else:
            cond = (a == 0) & (b >= 0)
        d = out * jnp.log(a.astype(out.dtype))
        terms.append(tb * jnp.where(cond, jnp.zeros_like(d), d))
    return out, _total(out, *terms)


pow_.defjvp(_pow_jvp, symbolic_zeros=True)


def pow_scalar_exp(a, e):
    """a ** e for a Python number e (PowBackward0): e == 0 has a zero gradient; otherwise e * a ** (e - 1),
    with a ** (e - 1) itself this function (so e == 1 has a zero second derivative, as PyTorch)."""
    if e == 0:
        return jax.lax.stop_gradient(jnp.power(a, jnp.zeros((), a.dtype)))
    return _pow_se(a, e)


def _pow_se_fwd(a, e):
    return jnp.power(a, jnp.asarray(e, a.dtype))


_pow_se = jax.custom_jvp(_pow_se_fwd, nondiff_argnums=(1,))


def _pow_se_jvp(e, primals, tangents):
    (a,), (t,) = primals, tangents
    out = _pow_se_fwd(a, e)
    if not _live(t):
        return out, jnp.zeros_like(out)
    return out, (t * (jnp.asarray(e, a.dtype) * pow_scalar_exp(a, e - 1))).astype(out.dtype)


_pow_se.defjvp(_pow_se_jvp, symbolic_zeros=True)


# ---- other binary functions with PyTorch's singular-point conventions
# -----------------------------------------
@jax.custom_jvp
def copysign(a, b):
    """|a| with b's sign; d/da = result / a (0 where a == 0), nothing to b (copysign_tensor_self_backward)."""
    return jnp.copysign(a, b)


def _copysign_jvp(primals, tangents):
    (a, b), (ta, _) = primals, tangents  # no gradient for the sign's source
    out = copysign(a, b)
    if not _live(ta):
        return out, jnp.zeros_like(out)
    ratio = out / a
    return out, _total(out, ta * jnp.where(a == 0, jnp.zeros_like(ratio), ratio))


copysign.defjvp(_copysign_jvp, symbolic_zeros=True)


def _xlogy_f(a, b):
    return jnp.where(a == 0, jnp.zeros_like(a * b), a * jnp.log(b))


@jax.custom_jvp
def xlogy(a, b):
    """a * log(b), 0 where a == 0. d/da = log(b), 0 where a == 0 and b <= 0; d/db = a / b (PyTorch)."""
    return _xlogy_f(a, b)


def _xlogy_jvp(primals, tangents):
    (a, b), (ta, tb) = primals, tangents
    out = _xlogy_f(a, b)
    terms = []
    if _live(ta):  # xlogy(grad, other).masked_fill((self == 0) & (other <= 0), 0)
        terms.append(jnp.where((a == 0) & (b <= 0), jnp.zeros((), out.dtype), ta) * jnp.log(b))
    if _live(tb):
        terms.append(tb * a / b)
    return out, _total(out, *terms)


xlogy.defjvp(_xlogy_jvp, symbolic_zeros=True)


@jax.custom_jvp
def hypot(a, b):
    """sqrt(a^2 + b^2); d/da = a / result (NaN at the origin, as PyTorch)."""
    return jnp.hypot(a, b)


def _hypot_jvp(primals, tangents):
    (a, b), (ta, tb) = primals, tangents
    out = hypot(a, b)
    terms = []
    if _live(ta):
        terms.append(ta * a / out)
    if _live(tb):
        terms.append(tb * b / out)
    return out, _total(out, *terms)


hypot.defjvp(_hypot_jvp, symbolic_zeros=True)


@jax.custom_jvp
def atan2(a, b):
    """atan2(a, b); d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2), both 0 where a^2 + b^2 == 0 (PyTorch)."""
    return jnp.arctan2(a, b)


def _atan2_jvp(primals, tangents):
    (a, b), (ta, tb) = primals, tangents
    out = jnp.arctan2(a, b)
    denom = a * a + b * b
    recip = jnp.where(denom == 0, jnp.zeros_like(denom), 1 / denom)
    terms = []
    if _live(ta):
        terms.append(ta * b * recip)
    if _live(tb):
        terms.append(tb * -a * recip)
    return out, _total(out, *terms)


atan2.defjvp(_atan2_jvp, symbolic_zeros=True)


def correctly_rounded_divide(a, b):
    """a / b correctly rounded, as PyTorch's CPU kernel. XLA rewrites a division by a broadcast divisor into
    a multiplication by its reciprocal (1 ulp off in about a third of float32 quotients), so a divisor
    smaller than the result is materialised at full size behind an optimization barrier first."""
    shape = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
    if jnp.shape(b) != shape and jnp.issubdtype(jnp.result_type(a, b), jnp.inexact):
        b = jax.lax.optimization_barrier(jnp.broadcast_to(b, shape))
    return jnp.true_divide(a, b)


@jax.custom_jvp
def div(a, b):
    """a / b; d/da = 1 / b, d/db = -a / (b * b) (PyTorch's div backward, for its double backward at b ==
    0)."""
    return correctly_rounded_divide(a, b)


def _div_jvp(primals, tangents):
    (a, b), (ta, tb) = primals, tangents
    out = correctly_rounded_divide(a, b)
    terms = []
    if _live(ta):
        terms.append(ta / b)
    if _live(tb):
        terms.append(-tb * a / (b * b))
    return out, _total(out, *terms)


div.defjvp(_div_jvp, symbolic_zeros=True)


# ---- sqrt whose derivative is 0 at 0 (std)
# ---------------------------------------------------------------------
@jax.custom_jvp
def sqrt0(v):
    """sqrt(v) with derivative 1 / (2 sqrt(v)) masked to 0 where the result is 0 (PyTorch's std_backward)."""
    return jnp.sqrt(v)


def _sqrt0_jvp(primals, tangents):
    (v,), (t,) = primals, tangents
    r = sqrt0(v)
    if not _live(t):
        return r, jnp.zeros_like(r)
    # (grad / (result * 2)).masked_fill_(result == 0, 0)
    return r, jnp.where(r == 0, jnp.zeros_like(t), t) * (1 / (r * 2))


sqrt0.defjvp(_sqrt0_jvp, symbolic_zeros=True)


# ---- max/min reductions
# ----------------------------------------------------------------------------------------
def _keep(r, dims, keepdim):
    return r if keepdim else jnp.expand_dims(r, dims)


def evenly_max(x, dims, keepdim, is_max=True):
    """max/min over dims (NaN propagates), gradient split evenly among the elements equal to the result (among
    the NaNs when it is NaN): PyTorch's evenly_distribute_backward (max(), min(), median())."""
    return _evenly(x, dims, keepdim, is_max)


def _red(x, dims, keepdim, is_max):
    return (jnp.max if is_max else jnp.min)(x, dims, keepdims=keepdim)


def _evenly_f(x, dims, keepdim, is_max):
    return _red(x, dims, keepdim, is_max)


_evenly = jax.custom_jvp(_evenly_f, nondiff_argnums=(1, 2, 3))


def _evenly_jvp(dims, keepdim, is_max, primals, tangents):
    (x,), (t,) = primals, tangents
    out = _red(x, dims, keepdim, is_max)
    if not _live(t):
        return out, jnp.zeros_like(out)
    ob = _keep(out, dims, keepdim)
    mask = jnp.where(_isnan(ob), _isnan(x), x == ob)
    count = jnp.sum(mask, dims, keepdims=keepdim).astype(x.dtype)
    return out, jnp.sum(jnp.where(mask, t, 0), dims, keepdims=keepdim) / count


_evenly.defjvp(_evenly_jvp, symbolic_zeros=True)


def _amax_f(x, dims, keepdim, is_max):
    return _red(x, dims, keepdim, is_max)


_amax = jax.custom_jvp(_amax_f, nondiff_argnums=(1, 2, 3))


def _amax_jvp(dims, keepdim, is_max, primals, tangents):
    (x,), (t,) = primals, tangents
    out = _red(x, dims, keepdim, is_max)
    if not _live(t):
        return out, jnp.zeros_like(out)
    mask = x == _keep(out, dims, keepdim)
    count = jnp.sum(mask, dims, keepdims=True).astype(x.dtype)
    # (grad / count) * mask: NaN where the result is NaN (count 0). Spelled out: XLA folds mask/count to a
    # select
    coef = jnp.where(count == 0, jnp.nan, jnp.where(mask, 1 / count, 0)).astype(x.dtype)
    return out, jnp.sum(t * coef, dims, keepdims=keepdim)


_amax.defjvp(_amax_jvp, symbolic_zeros=True)


@jax.custom_jvp
def evenly_select(x, value):
    """`value` (an order statistic of all of x, e.g. the median), with the gradient split evenly among the
    elements of x equal to it (NaN: among the NaNs): PyTorch's evenly_distribute_backward."""
    return value


def _evenly_select_jvp(primals, tangents):
    (x, value), (t, _) = primals, tangents
    if not _live(t):
        return value, jnp.zeros_like(value)
    mask = jnp.where(jnp.isnan(value), jnp.isnan(x), x == value)
    return value, (jnp.sum(jnp.where(mask, t, 0)) / jnp.sum(mask).astype(x.dtype)).astype(value.dtype)


evenly_select.defjvp(_evenly_select_jvp, symbolic_zeros=True)


def amax(x, dims, keepdim, is_max=True):
    """amax/amin over dims: gradient split among the elements equal to the result, NaN results give NaN
    gradients (PyTorch's scale_grad_by_count over `result == self`)."""
    return _amax(x, dims, keepdim, is_max)


# ---- vector norms
# ----------------------------------------------------------------------------------------------
def _vnorm_value(a, p, dims, keepdim):
    """The norm of |a| (a real, non-negative)."""
    if p == float("inf"):
        return jnp.max(a, dims, keepdims=keepdim)
    if p == float("-inf"):
        return jnp.min(a, dims, keepdims=keepdim)
    if p == 0:
        return jnp.sum(a != 0, dims, keepdims=keepdim).astype(a.dtype)
    if p == 1:
        return jnp.sum(a, dims, keepdims=keepdim)
    if p == 2:
        return jnp.sqrt(jnp.sum(a * a, dims, keepdims=keepdim))
    return jnp.sum(a ** p, dims, keepdims=keepdim) ** (1.0 / p)


def _vnorm_f(x, p, dims, keepdim):
    return _vnorm_value(jnp.abs(x), p, dims, keepdim)


_vnorm = jax.custom_jvp(_vnorm_f, nondiff_argnums=(1, 2, 3))


def _vnorm_jvp(p, dims, keepdim, primals, tangents):
    """PyTorch's norm_backward (linalg_vector_norm_backward) as a JVP: t_out = sum(Re(conj(s) * t)) where s is
    the gradient's scale, a function of (x, norm) shaped like x."""
    (x,), (t,) = primals, tangents
    out = _vnorm(x, p, dims, keepdim)  # the saved result differentiates as the norm itself
    if not _live(t) or p == 0:
        return out, jnp.zeros_like(out)
    nb = _keep(out, dims, keepdim)  # real
    ax = abs_(x)
    if p == 1:
        s = sgn(x)
    elif p == 2:
        q = x / nb
        s = jnp.where(nb == 0, jnp.zeros_like(q), q)
    elif p in (float("inf"), float("-inf")):
        mask = (ax == nb) | jnp.isnan(ax)
        s = sgn(x) * (mask / jnp.sum(mask, dims, keepdims=True)).astype(nb.dtype)
    elif p < 1:
        sp = pow_scalar_exp(ax, p - 1)
        s = sgn(x) * jnp.where(x == 0, jnp.zeros_like(sp), sp) * pow_scalar_exp(nb, 1 - p)
    else:  # self_scaled * (grad / norm.pow(p - 1)).masked_fill_(norm == 0, 0)
        s = sgn(x) * pow_scalar_exp(ax, p - 1) if p < 2 else x * pow_scalar_exp(ax, p - 2)
        prod = jnp.conj(s) * t if _is_complex(x) else s * t
        u = jnp.sum(jnp.real(prod), dims, keepdims=keepdim).astype(out.dtype)
        return out, jnp.where(out == 0, jnp.zeros_like(u), u) * (1 / pow_scalar_exp(out, p - 1))
    prod = jnp.conj(s) * t if _is_complex(x) else s * t
    return out, jnp.sum(jnp.real(prod), dims, keepdims=keepdim).astype(out.dtype)


_vnorm.defjvp(_vnorm_jvp, symbolic_zeros=True)


def vector_norm(x, p, dims, keepdim):
    """linalg.vector_norm of x (real or complex) with PyTorch's gradient conventions at 0 and at ties."""
    return _vnorm(x, float(p), tuple(dims), bool(keepdim))


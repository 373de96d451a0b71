"""Pure jax kernels of the gamma/zeta/error-function family with PyTorch's values at poles, branch points and
tails, and PyTorch's derivative formulas there (custom jvps), for torchshim/ops/special.py.

Every kernel takes arrays of one floating dtype and returns that dtype; the float32 ones compute in float64
and round once (`in_f64`), which gives the correctly rounded value where PyTorch's float32 kernels are within
an ulp or two of it (jax's float32 zeta/erfcx/log_ndtr are not).
"""
import math

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp

__all__ = ["in_f64", "unary_fn", "digamma", "trigamma", "polygamma", "lgamma", "zeta", "erfcx", "log_ndtr",
           "ndtri", "entr", "i0", "i0e", "i1", "i1e", "xlog1py", "mvlgamma", "logit", "sinc"]

_INF, _NAN = float("inf"), float("nan")
_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)


def in_f64(fn):
    """`fn` computed in float64 and rounded to its arguments' dtype."""
    def g(*args):
        dt = jnp.result_type(*args)
        r = fn(*(jnp.asarray(a).astype(jnp.float64) for a in args))
        return r.astype(dt)
    g.__name__ = getattr(fn, "__name__", "kernel")
    return g


def unary_fn(core, deriv=None):
    """A unary kernel: value `core` (a float64 function, rounded once), derivative `deriv(x, y)` (y the
    rounded value) computed in x's own dtype as PyTorch's backward formulas are (their float32 cancellation
    included).
    """
    f = jax.custom_jvp(in_f64(core))
    if deriv is not None:
        def jvp(p, t):
            y = f(p[0])
            return y, t[0] * deriv(p[0], y)
        f.defjvp(jvp)
    f.__name__ = core.__name__
    return f


def _is_int(x):
    return x == jnp.floor(x)


# ---- zeta (Hurwitz), PyTorch's domain rules ------------------------------------------------------------
def _shift_to_positive(x, q):
    """(sum of (q + k) ** -x over k = 0 .. m - 1, q + m) with m = ceil(-q) for q < 0, else (0, q): the
    Hurwitz recurrence that takes a negative non-integer q into (0, 1], where jax's zeta is accurate (its
    series is wrong for q below about -7). m is data-dependent: a while loop, as PyTorch's direct sum is."""
    def cond(state):
        return jnp.any(state[1] < 0)

    def body(state):
        s, a = state
        neg = a < 0
        return s + jnp.where(neg, jnp.power(jnp.where(neg, a, 1.0), -x), 0.0), jnp.where(neg, a + 1, a)

    return jax.lax.while_loop(cond, body, (jnp.zeros_like(q), q))


def _zeta_value(x, q):
    x, q = jnp.broadcast_arrays(x, q)
    head, q_pos = _shift_to_positive(x, jnp.where((q < 0) & ~_is_int(q) & _is_int(x), q, 1.0))
    r = jsp.zeta(x, jnp.where(q <= 0, jnp.where(_is_int(q), 1.0, q_pos), q))
    r = jnp.where((q < 0) & ~_is_int(q), head + r, r)
    # x = inf: every term (k + q) ** -inf is 0, 1 or inf (and q > 1 gives PyTorch's nan)
    r = jnp.where(jnp.isposinf(x), jnp.where(q < 1, _INF, jnp.where(q == 1, 1.0, _NAN)), r)
    r = jnp.where(jnp.isposinf(q), _NAN, r)
    nonpos = q <= 0
    r = jnp.where(nonpos & (x != jnp.floor(x)), _NAN, r)
    r = jnp.where(nonpos & _is_int(q), _INF, r)
    r = jnp.where(x < 1, _NAN, r)
    return jnp.where(x == 1, _INF, r)


zeta = jax.custom_jvp(in_f64(_zeta_value))
zeta.__doc__ = """Hurwitz zeta(x, q) as PyTorch: inf at x == 1 and at non-positive integer q, nan for x < 1
and for non-integer x with q <= 0. Derivative in q only (the caller guards x's, which PyTorch doesn't
implement)."""


@zeta.defjvp
def _zeta_jvp(primals, tangents):
    x, q = primals
    _, tq = tangents
    return zeta(x, q), tq * (-x * zeta(x + 1, q))


# ---- digamma / trigamma / polygamma / lgamma ---------------------------------------------------------------
def _digamma(x):
    r = jsp.digamma(x)
    r = jnp.where((x < 0) & _is_int(x), _NAN, r)
    return jnp.where(x == 0, jnp.copysign(_INF, -x), r)


def _trigamma_base(y):
    """psi'(y) for y >= 0.5 (float64)."""
    return jnp.where(jnp.isposinf(y), 0.0, jsp.polygamma(1, jnp.where(jnp.isposinf(y), 1.0, y)))


@jax.custom_jvp
def trigamma(x):
    """psi'(x); for x < 0.5 the reflection pi^2 / sin^2(pi x) - psi'(1 - x), the sine in x's own dtype (so a
    huge finite value at negative integers and inf at 0, PyTorch's values)."""
    refl = x < 0.5
    y = jnp.where(refl, 1 - x, x)
    base = _trigamma_base(y.astype(jnp.float64)).astype(x.dtype)
    s = jnp.sin(jnp.asarray(math.pi, x.dtype) * x)
    return jnp.where(refl, jnp.asarray(math.pi ** 2, x.dtype) / (s * s) - base, base)


def _polygamma_high(n, x):
    """psi^(n)(x) for n >= 2: (-1)^(n+1) n! zeta(n + 1, x)."""
    return ((1.0 if n % 2 else -1.0) * math.factorial(n)) * zeta(jnp.full_like(x, n + 1.0), x)


digamma = unary_fn(_digamma, lambda x, y: trigamma(x))
digamma.__doc__ = "psi(x): -inf at +0, +inf at -0, nan at negative integers; derivative trigamma."
trigamma.defjvp(lambda p, t: (trigamma(p[0]), t[0] * _polygamma_high(2, p[0])))


def polygamma(n, x):
    """psi^(n)(x), n >= 0 a Python int."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    return _polygamma_high(n, x)


lgamma = unary_fn(jsp.gammaln, lambda x, y: digamma(x))
lgamma.__doc__ = "log|Gamma(x)|; derivative digamma (-inf at 0, nan at negative integers, as PyTorch)."


def mvlgamma(x, p):
    """The multivariate log-gamma function of dimension p (a Python int): the sum of lgamma(x + o) over the
    offsets o = (1 - p) / 2, ..., -0.5, +0.0 in PyTorch's order (x + 0.0 turns -0.0 into +0.0, so the
    gradient at -0.0 is digamma(+0.0) = -inf, as in PyTorch), plus p (p - 1) / 4 log(pi)."""
    acc = None
    for i in range(p):
        o = (1 - p) * 0.5 + i * 0.5
        # XLA folds x + 0.0 into x; the barrier keeps the IEEE sum (-0.0 + 0.0 = +0.0)
        t = lgamma(x + (jax.lax.optimization_barrier(jnp.zeros_like(x)) if o == 0 else o))
        acc = t if acc is None else acc + t
    return acc + p * (p - 1) / 4 * math.log(math.pi)


# ---- error functions ---------------------------------------------------------------------------------------
def _erfcx(x):
    """exp(x^2) erfc(x); jax's loses large arguments: Laplace's continued fraction of erfc for x >= 5."""
    big = x >= 5
    xb = jnp.where(big, x, 5.0)
    t = xb
    for k in range(60, 0, -1):
        t = xb + (k / 2) / t
    r = jnp.where(big, 1 / (_SQRT_PI * t), jsp.erfcx(jnp.where(big, 0.0, x)))
    return jnp.where(jnp.isposinf(x), 0.0, r)


erfcx = unary_fn(_erfcx, lambda x, y: 2 * x * y - 2 / _SQRT_PI)


def _log_ndtr(x):
    low = x < -1
    t = x * (1 / math.sqrt(2))
    a = jnp.log(_erfcx(-jnp.where(low, t, -1.0)) / 2) - x * x / 2
    b = jnp.log1p(-jsp.erfc(jnp.where(low, 0.0, t)) / 2)
    return jnp.where(low, a, b)


log_ndtr = unary_fn(_log_ndtr, lambda x, y: 1 / (_SQRT_2PI * jnp.exp(y + x * x / 2)))
ndtri = unary_fn(jsp.ndtri, lambda x, y: _SQRT_2PI * jnp.exp(y * y / 2))


def _entr(x):
    r = jnp.where(x > 0, -x * jnp.log(jnp.where(x > 0, x, 1.0)), jnp.where(x == 0, 0.0, -_INF))
    return jnp.where(jnp.isnan(x), x, jnp.where(jnp.isposinf(x), -_INF, r))


entr = unary_fn(_entr, lambda x, y: -(1 + jnp.log(x)))


# ---- modified Bessel functions of the first kind (with derivatives) ----------------------------------------
def _recip(x):
    return 1 / jnp.where(x == 0, 1.0, x)


i1 = unary_fn(jsp.i1, lambda x, y: jnp.where(jnp.abs(x) > 0, i0(x) - y * _recip(x), 0.5))
i0 = unary_fn(jsp.i0, lambda x, y: i1(x))
i1e = unary_fn(jsp.i1e, lambda x, y: jnp.where(jnp.abs(x) > 0, i0e(x) - y * (jnp.sign(x) + _recip(x)), 0.5))
i0e = unary_fn(jsp.i0e, lambda x, y: i1e(x) - jnp.sign(x) * y)


# ---- xlog1py, logit ----------------------------------------------------------------------------------------
@jax.custom_jvp
def xlog1py(x, y):
    """x * log1p(y), 0 where x == 0 (unless y is nan)."""
    r = jnp.where(x == 0, 0.0, x * jnp.log1p(y))
    return jnp.where(jnp.isnan(y), y, r)


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return xlog1py(x, y), tx * xlog1py((x != 0).astype(x.dtype), y) + ty * (x / (y + 1))


def _logit_value(x, eps):
    if eps is not None:  # PyTorch's order: below eps first, so eps > 0.5 gives lo (not jnp.clip's hi)
        lo, hi = jnp.asarray(eps, x.dtype), jnp.asarray(1 - eps, x.dtype)
        x = jnp.where(x < lo, lo, jnp.where(x > hi, hi, x))
    return jnp.log(x / (1 - x))


logit = jax.custom_jvp(_logit_value, nondiff_argnums=(1,))
logit.__doc__ = """log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps (a Python float or None) is given;
PyTorch's derivative 1 / (x (1 - x)) on the unclamped input: nan outside [0, 1] without eps, 0 outside
[eps, 1 - eps] with it."""


@logit.defjvp
def _logit_jvp(eps, primals, tangents):
    (x,), (t,) = primals, tangents
    d = 1 / (x * (1 - x))
    if eps is None:
        d = jnp.where((x < 0) | (x > 1), _NAN, d)
    else:
        d = jnp.where((x < eps) | (x > 1 - eps), 0.0, d)
    return logit(x, eps), t * d


# ---- sinc --------------------------------------------------------------------------------------------------
@jax.custom_jvp
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0 (real or complex); derivative PyTorch's
    (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where pi x^2 is 0 (underflow included)."""
    return jnp.sinc(x)


@sinc.defjvp
def _sinc_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    xpi = x * math.pi
    sq = x * x * math.pi
    d = jnp.where(sq == 0, jnp.zeros_like(x), (xpi * jnp.cos(xpi) - jnp.sin(xpi)) / sq)
    return sinc(x), t * d

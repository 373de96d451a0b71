"""Pure jax kernels of the Bessel and Airy functions of torch.special (float64; ops/special.py rounds).

Methods (written for this module, not ports of any table-driven library):
- J0, J1, Y0, Y1: ascending power series for |x| < 12 (in float64 the cancellation costs about 4 digits there,
  leaving ~1e-12 absolute), Hankel's asymptotic expansion beyond (its smallest term ~exp(-2|x|)).
- K0, K1: ascending series for x <= 2; for x > 2 the integral exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1))
  cosh(nu t) dt by the trapezoidal rule (64 nodes over the range where the integrand exceeds exp(-745)), which
  converges geometrically for this entire, doubly-exponentially decaying integrand.
- Ai: Maclaurin series for -8 < x < 1.5, the asymptotic expansion for x <= -8, and (1/pi) sqrt(x/3)
  K_{1/3}(2/3 x^{3/2}) by the same integral for x >= 1.5.
PyTorch's values outside the domains (nan for negative arguments of Y and K, -inf / inf at 0) are applied
by the callers' `where`s here.
"""
import math

import jax.numpy as jnp

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai", "spherical_bessel_j0"]

_EULER = 0.5772156649015329
_SERIES_MAX = 12.0
_INF, _NAN = float("inf"), float("nan")


def _series_j(x, nu, terms=60):
    """(x/2)^nu sum_k (-z)^k / (k! (k+nu)!) and the Y series' harmonic sums, z = x^2 / 4.

    Returns (J, S) with S = sum_k (-z)^k / (k! (k+nu)!) * (psi(k+1) + psi(k+nu+1) + 2 gamma) (x/2)^nu."""
    z = x * x / 4
    t = jnp.ones_like(x) / math.factorial(nu)
    h = jnp.full_like(x, sum(1.0 / j for j in range(1, nu + 1)))  # H_k + H_{k+nu} at k = 0
    j_sum, s_sum = t, t * h
    for k in range(1, terms):
        t = t * (-z) / (k * (k + nu))
        h = h + 1.0 / k + 1.0 / (k + nu)
        j_sum = j_sum + t
        s_sum = s_sum + t * h
    p = (x / 2) ** nu
    return j_sum * p, s_sum * p


def _hankel(x, nu, terms=20):
    """(P, Q) of Hankel's expansion of order nu (x >= 12)."""
    mu = 4.0 * nu * nu
    a = jnp.ones_like(x)
    p, q = a, jnp.zeros_like(x)
    for k in range(1, 2 * terms):
        a = a * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        if k % 4 == 0:
            p = p + a
        elif k % 4 == 1:
            q = q + a
        elif k % 4 == 2:
            p = p - a
        else:
            q = q - a
    return p, q


def _large(x, nu):
    xl = jnp.maximum(jnp.abs(x), _SERIES_MAX)
    p, q = _hankel(xl, nu)
    chi = xl - (nu / 2 + 0.25) * math.pi
    amp = jnp.sqrt(2 / (math.pi * xl))
    finite = jnp.isfinite(xl)
    c, s = jnp.cos(jnp.where(finite, chi, 0.0)), jnp.sin(jnp.where(finite, chi, 0.0))
    j = jnp.where(finite, amp * (p * c - q * s), _NAN)  # PyTorch: nan at +-inf
    y = jnp.where(finite, amp * (p * s + q * c), _NAN)
    return j, y


def _small(x, nu):
    return jnp.where(jnp.abs(x) < _SERIES_MAX, x, 1.0)


def _nan_in(fn):
    """`fn` returning nan for nan input."""
    def g(x):
        return jnp.where(jnp.isnan(x), x, fn(x))
    g.__name__ = fn.__name__
    return g


@_nan_in
def bessel_j0(x):
    a = jnp.abs(x)
    j, _ = _series_j(_small(a, 0), 0)
    jl, _ = _large(a, 0)
    return jnp.where(a < _SERIES_MAX, j, jl)


@_nan_in
def bessel_j1(x):
    a = jnp.abs(x)
    j, _ = _series_j(_small(a, 1), 1)
    jl, _ = _large(a, 1)
    return jnp.sign(x) * jnp.where(a < _SERIES_MAX, j, jl)


@_nan_in
def bessel_y0(x):
    xs = jnp.where((x > 0) & (x < _SERIES_MAX), x, 1.0)
    j, s = _series_j(xs, 0)
    # Y0 = (2/pi) [(ln(x/2) + gamma) J0 - sum_k (-z)^k H_k / (k!)^2]
    y = (2 / math.pi) * ((jnp.log(xs / 2) + _EULER) * j - s / 2)
    _, yl = _large(x, 0)
    y = jnp.where(x < _SERIES_MAX, y, yl)
    return jnp.where(x == 0, -_INF, jnp.where(x < 0, _NAN, y))


@_nan_in
def bessel_y1(x):
    xs = jnp.where((x > 0) & (x < _SERIES_MAX), x, 1.0)
    j, s = _series_j(xs, 1)
    # Y1 = (2/pi) ln(x/2) J1 - 2/(pi x) - (1/pi) (x/2) sum_k (-z)^k (psi(k+1) + psi(k+2)) / (k! (k+1)!)
    y = (2 / math.pi) * jnp.log(xs / 2) * j - 2 / (math.pi * xs) - (s - 2 * _EULER * j) / math.pi
    _, yl = _large(x, 1)
    y = jnp.where(x < _SERIES_MAX, y, yl)
    return jnp.where(x == 0, -_INF, jnp.where(x < 0, _NAN, y))


def _series_i(x, nu, terms=30):
    """(I_nu(x), the K series' harmonic sum), like `_series_j` with +z."""
    z = x * x / 4
    t = jnp.ones_like(x) / math.factorial(nu)
    h = jnp.full_like(x, sum(1.0 / j for j in range(1, nu + 1)))
    i_sum, s_sum = t, t * h
    for k in range(1, terms):
        t = t * z / (k * (k + nu))
        h = h + 1.0 / k + 1.0 / (k + nu)
        i_sum = i_sum + t
        s_sum = s_sum + t * h
    p = (x / 2) ** nu
    return i_sum * p, s_sum * p


def _scaled_k_integral(x, nu, nodes=64):
    """exp(x) K_nu(x) for x > 0 (x not tiny) by the trapezoidal rule."""
    top = jnp.arccosh(1 + 745.0 / x)
    h = top / nodes
    k = jnp.arange(nodes + 1, dtype=x.dtype)
    t = h[..., None] * k
    f = jnp.exp(-x[..., None] * (jnp.cosh(t) - 1)) * jnp.cosh(nu * t)
    return h * (jnp.sum(f, axis=-1) - f[..., 0] / 2)


def _k_small(x, nu):
    i, s = _series_i(x, nu)
    if nu == 0:
        # K0 = -(ln(x/2) + gamma) I0 + sum_k z^k H_k / (k!)^2
        return -(jnp.log(x / 2) + _EULER) * i + s / 2
    # K1 = 1/x + ln(x/2) I1 - (1/2)(x/2) sum_k z^k (psi(k+1) + psi(k+2)) / (k! (k+1)!)
    return 1 / x + jnp.log(x / 2) * i - (s - 2 * _EULER * i) / 2


def _k(x, nu, scaled):
    small = x <= 2
    xs = jnp.where(small & (x > 0), x, 1.0)
    xl = jnp.where(small | ~jnp.isfinite(x), 3.0, x)
    ks = _k_small(xs, nu)
    kl = _scaled_k_integral(xl, nu)
    if scaled:
        r = jnp.where(small, ks * jnp.exp(xs), kl)
    else:
        r = jnp.where(small, ks, kl * jnp.exp(-xl))
    r = jnp.where(jnp.isposinf(x), 0.0, r)
    return jnp.where(x == 0, _INF, jnp.where(x < 0, _NAN, r))


@_nan_in
def modified_bessel_k0(x):
    return _k(x, 0, False)


@_nan_in
def modified_bessel_k1(x):
    return _k(x, 1, False)


@_nan_in
def scaled_modified_bessel_k0(x):
    return _k(x, 0, True)


@_nan_in
def scaled_modified_bessel_k1(x):
    return _k(x, 1, True)


_AI0 = 0.3550280538878172  # Ai(0) = 3^(-2/3) / Gamma(2/3)
_AIP0 = 0.2588194037928068  # -Ai'(0) = 3^(-1/3) / Gamma(1/3)


def _airy_series(x, terms=45):
    x3 = x * x * x
    f, g = jnp.ones_like(x), x
    fs, gs = f, g
    for k in range(1, terms):
        f = f * x3 / ((3 * k - 1) * (3 * k))
        g = g * x3 / ((3 * k) * (3 * k + 1))
        fs, gs = fs + f, gs + g
    return _AI0 * fs - _AIP0 * gs


def _airy_negative(x, terms=12):
    z = -x
    zeta = 2.0 / 3.0 * z * jnp.sqrt(z)
    u = 1.0
    p, q = jnp.ones_like(x), jnp.zeros_like(x)
    w = jnp.ones_like(x)
    for k in range(1, 2 * terms):
        u = u * (3 * k - 0.5) * (3 * k - 1.5) * (3 * k - 2.5) / (54 * k * (k - 0.5))
        w = w / zeta
        sign = -1.0 if (k // 2) % 2 else 1.0
        if k % 2:
            q = q + sign * u * w
        else:
            p = p + sign * u * w
    a = zeta - math.pi / 4
    return (jnp.cos(a) * p + jnp.sin(a) * q) / (math.sqrt(math.pi) * jnp.sqrt(jnp.sqrt(z)))


@_nan_in
def airy_ai(x):
    neg = x <= -8
    pos = x >= 1.5
    mid = ~(neg | pos)
    xn = jnp.where(neg & jnp.isfinite(x), x, -8.0)
    xp = jnp.where(pos & jnp.isfinite(x), x, 1.5)
    zeta = 2.0 / 3.0 * xp * jnp.sqrt(xp)
    rp = jnp.sqrt(xp / 3) / math.pi * _scaled_k_integral(zeta, 1.0 / 3.0) * jnp.exp(-zeta)
    r = jnp.where(neg, _airy_negative(xn), jnp.where(pos, rp, _airy_series(jnp.where(mid, x, 0.0))))
    return jnp.where(jnp.isinf(x), _NAN, r)


@_nan_in
def spherical_bessel_j0(x):
    small = jnp.abs(x) < 0.5
    xs = jnp.where(small, x, 0.0)
    z = xs * xs
    series = 1 + z * (-1 / 6 + z * (1 / 120 + z * (-1 / 5040 + z * (1 / 362880 + z * (-1 / 39916800)))))
    xl = jnp.where(small, 1.0, x)
    r = jnp.where(small, series, jnp.sin(xl) / xl)
    return jnp.where(jnp.isinf(x), 0.0, r)

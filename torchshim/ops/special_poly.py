"""The orthogonal polynomials of torch.special (`special_chebyshev_polynomial_t`, ... as table ops).

`f(x, n)`: x and n tensors or one of them a Python number; n is truncated towards zero to an integer
(2.7 -> 2, -0.5 -> 0) and a negative n gives 0, as in PyTorch. The value is the three-term recurrence run to
each element's n in one `lax.while_loop` (bounded by the largest n, traced: no host round-trip), with
PyTorch's special cases: its closed forms (cos(n acos x), ...) for |x| < 1 and large n in the Chebyshev
families and its exact values at the interval ends (large degrees overflow to inf and then nan, as PyTorch's
recurrences do). The results never require grad (PyTorch has no derivative for these functions).
"""
import jax
import jax.numpy as jnp

from .._tensor import Tensor
from . import _dispatch as P
from ._dispatch import INT_TO_FLOAT
from ._registry import register
from .special import _no_grad, _promoted, _refuse

__all__ = []

_NAN = float("nan")


def _recur(x, n, p0, p1, step, limit=None):
    """P_n(x) from P_0 = p0, P_1 = p1 and P_{k} = step(k, x, P_{k-1}, P_{k-2}) (k >= 2), per element."""
    top = jnp.max(n, initial=1.0) if limit is None else jnp.minimum(jnp.max(n, initial=1.0), limit + 1.0)

    def cond(s):
        return s[0] <= top

    def body(s):
        k, p, q = s
        r = step(k, x, q, p).astype(x.dtype)
        live = k <= n
        return k + 1, jnp.where(live, q, p), jnp.where(live, r, q)
    p0, p1 = jnp.broadcast_to(p0, x.shape).astype(x.dtype), jnp.broadcast_to(p1, x.shape).astype(x.dtype)
    _, _, last = jax.lax.while_loop(cond, body, (jnp.asarray(2.0, x.dtype), p0, p1))
    return jnp.where(n == 0, p0, jnp.where(n == 1, p1, last))


def _odd(n):
    return jnp.fmod(n, 2) != 0


def _cheb(x, n, kind, shifted):
    y = x + x - 1 if shifted else x
    one = jnp.ones_like(y)
    p1 = {"t": y, "u": y + y, "v": y + y - 1, "w": y + y + 1}[kind]
    r = _recur(y, n, one, p1, lambda k, x_, a, b: (x_ + x_) * a - b)
    theta = jnp.arccos(jnp.clip(y, -1, 1))
    inside = jnp.abs(y) < 1
    if kind == "t":
        closed = jnp.cos(n * theta)
        big = n > 6
    elif kind == "u":
        s = jnp.sin(theta)
        closed = jnp.where(s != 0, jnp.sin((n + 1) * theta) / jnp.where(s != 0, s, 1.0),
                           (n + 1) * jnp.cos((n + 1) * theta) / y)
        big = n > 8
    elif kind == "v":
        c = jnp.cos(theta / 2)
        closed = jnp.where(jnp.sin(theta / 2) != 1, jnp.cos((n + 0.5) * theta) / jnp.where(c != 0, c, 1.0),
                           jnp.where(_odd(n), -(n + n + 1), n + n + 1))
        big = n > 8
    else:
        s = jnp.sin(theta / 2)
        closed = jnp.where(jnp.cos(theta / 2) != 1, jnp.sin((n + 0.5) * theta) / jnp.where(s != 0, s, 1.0),
                           jnp.where(y > 0, n + n + 1, jnp.where(_odd(n), -1.0, 1.0)))
        big = n > 8
    if shifted:
        big = n > (4 if kind == "w" else 6)
    r = jnp.where(big & inside, closed, r)
    # the interval ends, exactly
    up, down = (x == 1, x == 0) if shifted else (x == 1, x == -1)
    odd = _odd(n)
    sgn = jnp.where(odd, -1.0, 1.0)
    at_up = {"t": one, "u": n + 1, "v": one, "w": n + n + 1}[kind]
    at_down = {"t": sgn, "u": sgn * (n + 1), "v": sgn * (n + n + 1), "w": sgn}[kind]
    r = jnp.where(up, at_up, jnp.where(down, at_down, r))
    return r


def _hermite_h(x, n):
    return _recur(x, n, jnp.ones_like(x), x + x, lambda k, x_, a, b: (x_ + x_) * a - 2 * (k - 1) * b)


def _hermite_he(x, n):
    return _recur(x, n, jnp.ones_like(x), x, lambda k, x_, a, b: x_ * a - (k - 1) * b)


def _laguerre(x, n):
    r = _recur(x, n, jnp.ones_like(x), 1 - x,
               lambda k, x_, a, b: ((2 * k - 1 - x_) * a - (k - 1) * b) / k)
    return jnp.where(x == 0, 1.0, r)


def _legendre(x, n):
    r = _recur(x, n, jnp.ones_like(x), x, lambda k, x_, a, b: ((2 * k - 1) * x_ * a - (k - 1) * b) / k)
    return jnp.where(x == 1, 1.0, jnp.where(x == -1, jnp.where(_odd(n), -1.0, 1.0), r))


def _kernel(name):
    def k(x, n):
        x, n = jnp.broadcast_arrays(x, jnp.trunc(n))
        if name.startswith(("chebyshev", "shifted")):
            r = _cheb(x, n, name[-1], name.startswith("shifted"))
        elif name == "hermite_polynomial_h":
            r = _hermite_h(x, n)
        elif name == "hermite_polynomial_he":
            r = _hermite_he(x, n)
        elif name == "laguerre_polynomial_l":
            r = _laguerre(x, n)
        else:
            r = _legendre(x, n)
        r = jnp.where(n < 0, 0.0, r).astype(x.dtype)
        return jnp.where(jnp.isnan(x) | jnp.isnan(n), _NAN, r)
    k.__name__ = name
    return k


_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
          "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
          "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
          "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")


def _invalid(op, args):
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
                     "of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n"
                     " * (Number x, Tensor n, *, Tensor out = None)\n"
                     " * (Tensor x, Number n, *, Tensor out = None)\n")


def _register(name):
    op = f"special_{name}"
    k = P.binary(op, _kernel(name), INT_TO_FLOAT)

    def f(x, n):
        if not isinstance(x, Tensor) and not isinstance(n, Tensor):
            raise _invalid(op, (x, n))
        _refuse(f"{name}_cpu", _promoted(x, n), half=False)
        return k(x, n)
    f.__name__ = op
    f.__doc__ = (f"`torch.special.{name}(input, n, *, out=None)` (keywords `x=`, `n=`): the polynomial of "
                 "degree n (truncated to an integer; 0 for negative n) at input. No derivative, as in "
                 "PyTorch.")
    register(op, method=False, function=False, out=True, kind="pointwise", grad_name=_no_grad)(f)


for _name in _POLYNOMIALS:
    _register(_name)

"""More elementwise math: `square`, `addcmul`/`addcdiv`, `gcd`/`lcm`, `logaddexp(2)`, `heaviside`, `frexp`,
`ldexp`, `nextafter`, `igamma(c)`, `polygamma`, `mvlgamma`.

Each is a jax function plus PyTorch's promotion and dtype checks; gradients are jax's derivatives of the
forward except where PyTorch has none (`heaviside`, `igamma`'s input), which raise PyTorch's error.
"""
import jax
import jax.numpy as jnp
from jax.scipy import special as jsp

from .. import _dtype as D
from .. import return_types
from .._methods import add_tensor_method, tensor_method
from .._promotion import short_name
from .._tensor import Tensor
from . import _dispatch as P
from . import _special_math as M
from ._dispatch import DEFAULT, INT_TO_FLOAT, fresh
from ._loss_common import raising_guard
from .nn_activation import inplace_variant
from .pointwise import refuse_complex
from ._registry import installed, register

__all__ = ["square", "addcmul", "addcdiv", "heaviside", "frexp", "ldexp", "polygamma", "mvlgamma"]


def _is_int(d):
    return not (d.is_floating_point or d.is_complex)


def _need(name, x, pos, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _not_for(name, dtype, pred=_is_int):
    if pred(dtype):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{short_name(dtype)}'")


@register("square", inplace=True, out=True, kind="composite")
def square(input):
    """`torch.square(input, *, out=None)`: `input ** 2` (PyTorch's `pow(input, 2)`: bool gives int64, the node
    is PowBackward0)."""
    _need("square", input, 1, "input")
    if input._dtype is D.bool_:
        input = input.to(D.int64)
    return installed("pow")(input, 2)


# ---- addcmul / addcdiv -----------------------------------------------------------------------------------
def _addc_body(op):
    def body(a, b, c, value, cdt, rdt):
        ct = jnp.float32 if cdt in (jnp.float16, jnp.bfloat16) else cdt
        a, b, c = (x.astype(ct) for x in (a, b, c))
        return (a + jnp.asarray(value, ct) * op(b, c)).astype(rdt)
    return body


def _int_div(b, c):
    return b / c


_addcmul_k = P.kernel(_addc_body(jnp.multiply), static=("cdt", "rdt"))
_addcdiv_k = P.kernel(_addc_body(_int_div), static=("cdt", "rdt"))


def _addc(name, kernel, input, tensor1, tensor2, value):
    for pos, (x, arg) in enumerate(((input, "input"), (tensor1, "tensor1"), (tensor2, "tensor2")), 1):
        _need(name, x, pos, arg)
    dev = P.check_devices((input, tensor1, tensor2))
    cdt, rdt = P.promote(DEFAULT, (input, tensor1, tensor2))
    if rdt is D.bool_:
        raise NotImplementedError(f"\"{name}_cpu_out\" not implemented for 'Bool'")
    if isinstance(value, Tensor):
        value = value.item()
    if _is_int(rdt):
        value = int(value)
    elif not rdt.is_complex:
        value = float(value.real if isinstance(value, complex) else value)
    try:
        out = kernel(input._value, tensor1._value, tensor2._value, value, cdt=cdt.np, rdt=rdt.np)
    except (TypeError, ValueError):
        P.broadcast_error((input._shape, tensor1._shape, tensor2._shape))
        raise
    return fresh(out, rdt, dev)


@register("addcmul", inplace=True, out=True, kind="pointwise")
def addcmul(input, tensor1, tensor2, *, value=1):
    """`torch.addcmul(input, tensor1, tensor2, *, value=1, out=None)` -> input + value * tensor1 * tensor2.
    For integer results value is truncated to an integer, as PyTorch casts it."""
    return _addc("addcmul", _addcmul_k, input, tensor1, tensor2, value)


@register("addcdiv", inplace=True, out=True, kind="pointwise")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """`torch.addcdiv(input, tensor1, tensor2, *, value=1, out=None)` -> input + value * tensor1 / tensor2;
    PyTorch's error when tensor1 and tensor2 are both integral."""
    if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor) and _is_int(tensor1._dtype) \
            and _is_int(tensor2._dtype):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
            "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
            "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
            "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior "
            "is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    return _addc("addcdiv", _addcdiv_k, input, tensor1, tensor2, value)


# ---- binary ops with dtype restrictions ------------------------------------------------------------------
def _checked_binary(name, jfn, kind=DEFAULT, refuse=_is_int, doc=""):
    f = P.binary(name, jfn, kind)

    def front(input, other):
        _need(name, input, 1, "input")
        _need(name, other, 2, "other")
        _not_for(name, P.promote(DEFAULT, (input, other))[1], refuse)
        return f(input, other)
    front.__name__ = name
    front.__doc__ = doc
    return front


def _float_dtype(d):
    return d.is_floating_point or d.is_complex


def _gcd_refuse(d):
    return _float_dtype(d) or d is D.bool_


register("gcd", inplace=True, out=True, kind="pointwise")(_checked_binary(
    "gcd", jnp.gcd, refuse=_gcd_refuse,
    doc="`torch.gcd(input, other, *, out=None)`: elementwise greatest common divisor of integer tensors."))
register("lcm", inplace=True, out=True, kind="pointwise")(_checked_binary(
    "lcm", jnp.lcm, refuse=_gcd_refuse,
    doc="`torch.lcm(input, other, *, out=None)`: elementwise least common multiple of integer tensors."))
register("logaddexp", out=True, kind="pointwise")(_checked_binary(
    "logaddexp", jnp.logaddexp,
    doc="`torch.logaddexp(input, other, *, out=None)` -> log(exp(input) + exp(other)), computed stably."))
register("logaddexp2", out=True, kind="pointwise")(_checked_binary(
    "logaddexp2", jnp.logaddexp2,
    doc="`torch.logaddexp2(input, other, *, out=None)` -> log2(2**input + 2**other), computed stably."))
@jax.custom_jvp
def _nextafter(a, b):
    return jnp.nextafter(a, b)


_nextafter.defjvp(lambda primals, tangents: (_nextafter(*primals), tangents[0]))
register("nextafter", inplace=True, out=True, kind="pointwise")(_checked_binary(
    "nextafter", _nextafter,
    doc="`torch.nextafter(input, other, *, out=None)`: the next float after input towards other (PyTorch's "
        "gradient: 1 for input, 0 for other)."))


def _igamma_fn(complement):
    name = "igammac" if complement else "igamma"
    guard = raising_guard(NotImplementedError, f"the derivative for '{name}: input' is not implemented.")

    def fn(a, x):
        a = guard(a)
        return jsp.gammaincc(a, x) if complement else jsp.gammainc(a, x)
    return fn


register("igamma", inplace=True, out=True, kind="pointwise")(_checked_binary(
    "igamma", _igamma_fn(False),
    doc="`torch.igamma(input, other, *, out=None)`: the regularized lower incomplete gamma function P(input, "
        "other). No gradient for input, as in PyTorch."))
register("igammac", inplace=True, out=True, kind="pointwise")(_checked_binary(
    "igammac", _igamma_fn(True),
    doc="`torch.igammac(input, other, *, out=None)`: the regularized upper incomplete gamma function "
        "Q(input, other). No gradient for input, as in PyTorch."))


_heaviside_guard = raising_guard(RuntimeError, "derivative for aten::heaviside is not implemented")


def _heaviside_fn(a, v):
    r = jnp.where(a == 0, v, (a > 0).astype(a.dtype))
    return _heaviside_guard(r, a, v) if jnp.issubdtype(r.dtype, jnp.inexact) else r


_heaviside_k = P.binary("heaviside", _heaviside_fn, opmath=False)


@register("heaviside", inplace=True, out=True, kind="pointwise", grad_name="NotImplemented")
def heaviside(input, values):
    """`torch.heaviside(input, values, *, out=None)`: 0 where input < 0, values where input == 0, 1 where
    input > 0. Both tensors must share a (non-complex) dtype; no gradient, as in PyTorch."""
    _need("heaviside", input, 1, "input")
    _need("heaviside", values, 2, "values")
    if input._dtype.is_complex or values._dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input._dtype is not values._dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _heaviside_k(input, values)


# ---- frexp / ldexp ---------------------------------------------------------------------------------------
@jax.custom_jvp
def _mantissa(a):
    return jnp.frexp(a)[0]


@_mantissa.defjvp
def _mantissa_jvp(primals, tangents):
    (a,), (t,) = primals, tangents
    m, e = jnp.frexp(a)
    return m, t * jnp.ldexp(jnp.ones((), a.dtype), -e)  # d mantissa / d input = 2 ** -exponent


@P.kernel
def _frexp_k(a):
    return _mantissa(a), jnp.frexp(a)[1].astype(jnp.int32)


@register("frexp", method=True, out=True, kind="pointwise")
def frexp(input):
    """`torch.frexp(input, *, out=None)` -> (mantissa, exponent): input = mantissa * 2 ** exponent, mantissa
    in [0.5, 1) in magnitude, exponent int32. Floating-point input only."""
    _need("frexp", input, 1, "input")
    if not input._dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = _frexp_k(input._value)
    dev = input._storage.device
    return return_types.frexp((fresh(m, input._dtype, dev), fresh(e, D.int32, dev)))


def _ldexp_fn(a, b):
    return a * jnp.exp2(b)


@jax.custom_jvp
def _ldexp_int_fn(a, b):
    return a * jnp.exp2(b)


@_ldexp_int_fn.defjvp
def _ldexp_int_jvp(primals, tangents):
    # PyTorch's backward is grad * pow(2, other) in other's integer dtype: 0 for a negative exponent
    (a, b), (ta, _) = primals, tangents
    return _ldexp_int_fn(a, b), ta * jnp.where(b < 0, 0, jnp.exp2(b)).astype(a.dtype)


_ldexp_f = _checked_binary("ldexp", _ldexp_fn, INT_TO_FLOAT, refuse=lambda d: False)
_ldexp_i = _checked_binary("ldexp", _ldexp_int_fn, INT_TO_FLOAT, refuse=lambda d: False)


@register("ldexp", inplace=True, out=True, kind="pointwise")
def ldexp(input, other):
    """`torch.ldexp(input, other, *, out=None)` -> input * 2 ** other (integer inputs give the default float
    dtype). The gradient for an integer `other` is PyTorch's: `grad * pow(2, other)` computed in integers (0
    where other < 0)."""
    if isinstance(other, Tensor) and _is_int(other._dtype):
        return _ldexp_i(input, other)
    return _ldexp_f(input, other)


# ---- polygamma / mvlgamma: the kernels torch.special's names share ---------------------------------------
def _polygamma_fn(a, n):
    return M.polygamma(n, a)


_polygamma_k = P.unary("polygamma", _polygamma_fn, INT_TO_FLOAT, static=("n",))


def polygamma_checked(name, n, input):
    """polygamma with PyTorch's argument checks, `name` the function named in its TypeErrors (shared with
    torch.special.polygamma)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{name}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    _need(name, input, 2, "input")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    refuse_complex("digamma" if n == 0 else "trigamma" if n == 1 else "polygamma", input)
    return _polygamma_k(input, n=n)


@register("polygamma", method=False, out=True, kind="pointwise")
def polygamma(n, input):
    """`torch.polygamma(n, input, *, out=None)`: the n-th derivative of the digamma function, with PyTorch's
    values at the poles (n = 1: huge finite values at negative integers from the reflection formula; n >= 2:
    +-inf at non-positive integers) and gradients there (`Tensor.polygamma(n)` takes n after self)."""
    return polygamma_checked("polygamma", n, input)


@tensor_method("polygamma")
def _polygamma_method(self, n):
    """`Tensor.polygamma(n)`: `torch.polygamma(n, self)`."""
    return installed("polygamma")(n, self)


add_tensor_method("polygamma_", inplace_variant(
    "polygamma", lambda self, n: polygamma(n, self), "PolygammaBackward1"))


def _mvlgamma_fn(a, p):
    return M.mvlgamma(a, p)


_mvlgamma_k = P.unary("mvlgamma", _mvlgamma_fn, INT_TO_FLOAT, static=("p",))


def mvlgamma_checked(name, input, p):
    """mvlgamma with PyTorch's argument checks, `name` the function named in its TypeErrors (shared with
    torch.special.multigammaln)."""
    _need(name, input, 1, "input")
    if not isinstance(p, int) or isinstance(p, bool):
        raise TypeError(f"{name}(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    refuse_complex("arange_cpu", input)
    return _mvlgamma_k(input, p=p)


@register("mvlgamma", inplace=True, out=True, kind="pointwise")
def mvlgamma(input, p):
    """`torch.mvlgamma(input, p, *, out=None)`: the multivariate log-gamma function of dimension p (gradients
    from digamma, with its values at the poles). No domain check (PyTorch 2.13 has none either): elements
    below (p - 1) / 2 give lgamma's values."""
    return mvlgamma_checked("mvlgamma", input, p)

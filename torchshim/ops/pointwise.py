"""Elementwise math: arithmetic, exponentials, trigonometry, rounding, clamping, special functions.

Each entry is a jax function plus PyTorch's promotion kind; `_dispatch.unary/binary` build the front function.
"""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy import special as jsp

from .. import _dtype as D
from .._promotion import c_name, short_name
from .._tensor import Tensor
from ..autograd._names import arg, by_tensor, if_given
from . import _dispatch as P
from . import _special_math as M
from . import _subgrad as S
from ._dispatch import ALWAYS_BOOL, COMPLEX_TO_FLOAT, DEFAULT, INT_TO_FLOAT
from .._methods import add_tensor_method
from ._registry import register


def _is_int(d):
    return not (d.is_floating_point or d.is_complex)


def _dtype_of(x):
    if isinstance(x, Tensor):
        return x._dtype
    return D.bool_ if isinstance(x, bool) else D.int64 if isinstance(x, int) else D.float32


def _check_int_divisor(name, input, other):
    """PyTorch raises ZeroDivisionError for integer division by zero; jax returns garbage. Checked eagerly
    only."""
    if not (_is_int(_dtype_of(input)) and _is_int(_dtype_of(other))):
        return
    if not isinstance(other, Tensor):
        zero = other == 0
    elif isinstance(other._value, jax.core.Tracer):
        return  # under tracing no host check is possible; documented in docs/differences.md
    else:
        zero = bool(np.any(np.asarray(other._value) == 0))
    if zero:
        raise RuntimeError("ZeroDivisionError")


# ---- arithmetic ------------------------------------------------------------------------------------------
_add1 = P.binary("add", lambda a, b: a + b)
_sub1 = P.binary("sub", lambda a, b: a - b)
def fmadd(a, b, c):
    """`a * b + c` rounded once, as PyTorch's vectorised CPU kernels compute it (`vec::fmadd`, or the
    compiler's contraction): for float32 (and half/bfloat16 computed in float32) the product of two float32
    values is exact in float64, so a float64 sum rounded once to float32 is the fused result; other dtypes
    compute plainly. Shared with torchshim/optim/_functional.py."""
    if jnp.result_type(a, b, c) == jnp.float32:
        w = jnp.float64
        return (jnp.asarray(a).astype(w) * jnp.asarray(b).astype(w) + jnp.asarray(c).astype(w)).astype(
            jnp.float32)
    return a * b + c


def _add_alpha_fn(a, b, alpha):
    """a + alpha * b: PyTorch's `fmadd(b, alpha, a)`, alpha in the compute type."""
    if a.dtype == jnp.float32:
        alpha = jnp.asarray(alpha, jnp.float32)
    return fmadd(b, alpha, a)


# alpha != 1: a runtime (weakly typed) scalar, so a changing alpha (`p.add_(g, alpha=-lr)` under a schedule)
# reuses one kernel; bool and complex alphas stay compile-time constants (their promotion differs)
_add_alpha = P.binary("add", _add_alpha_fn)
_sub_alpha = P.binary("sub", lambda a, b, alpha: _add_alpha_fn(a, b, -alpha))
_add_static = P.binary("add", lambda a, b, alpha: a + b * alpha, static=("alpha",))
_sub_static = P.binary("sub", lambda a, b, alpha: a - b * alpha, static=("alpha",))


def _half_scalar(x, rd):
    """A Python number operand of a float16/bfloat16 add/sub, rounded to that dtype first (PyTorch's add
    kernel reads the wrapped scalar as a tensor of the common dtype; mul and div keep it in float32)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(np.asarray(x, rd.np))
    return x


def _with_alpha(plain, traced, static, input, other, alpha):
    """add/sub: `input (+|-) alpha * other` with PyTorch's alpha checks and its rounding for half/bfloat16
    scalars and alpha (the common dtype is promoted once, only when needed)."""
    alpha = _alpha_value(alpha)
    exact_one = type(alpha) is int and alpha == 1  # any other alpha is checked (1.0, 1+0j, True included)
    one = alpha == 1 and not isinstance(alpha, (complex, bool, np.bool_))
    both = isinstance(input, Tensor) and isinstance(other, Tensor)
    if both and exact_one:
        return plain(input, other)
    rd = P.promote(DEFAULT, (input, other))[1]
    if not exact_one:
        _check_alpha(rd, alpha)
    half = rd is D.float16 or rd is D.bfloat16
    if half and not both:
        input, other = _half_scalar(input, rd), _half_scalar(other, rd)
    if one:
        return plain(input, other)
    if isinstance(alpha, (bool, complex)):
        return static(input, other, alpha=alpha)
    if half:  # PyTorch's half kernels take alpha as the tensor's dtype
        alpha = float(np.asarray(alpha, rd.np))
    return traced(input, other, alpha=alpha)


def _alpha_value(alpha):
    """PyTorch takes a one-element tensor as alpha (a Scalar argument): its Python value."""
    return alpha.item() if isinstance(alpha, Tensor) else alpha


def _check_alpha(d, alpha):
    """PyTorch's alpha checks for an add/sub whose result dtype is `d` (bool counts as integral)."""
    if isinstance(alpha, (bool, np.bool_)):
        if d is not D.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif _is_int(d) and isinstance(alpha, (float, complex, np.floating, np.complexfloating)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    elif not d.is_complex and isinstance(alpha, (complex, np.complexfloating)):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


@register("add", inplace=True, out=True, operators=("__add__", "__radd__", "__iadd__"), kind="pointwise",
          saves="none")
def add(input, other, *, alpha=1):
    """`torch.add(input, other, *, alpha=1, out=None)` -> input + alpha * other."""
    return _with_alpha(_add1, _add_alpha, _add_static, input, other, alpha)


def _check_bool_sub(input, other):
    bi, bo = _dtype_of(input) is D.bool_, _dtype_of(other) is D.bool_
    if bi and bo:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                           "`^` or `logical_xor()` operator instead.")
    if bi or bo:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


@register("sub", inplace=True, out=True, aliases=("subtract",), operators=("__sub__", "__rsub__", "__isub__"),
          kind="pointwise", saves="none")
def sub(input, other, *, alpha=1):
    """`torch.sub(input, other, *, alpha=1, out=None)` -> input - alpha * other. Bool operands are an
    error."""
    _check_bool_sub(input, other)
    return _with_alpha(_sub1, _sub_alpha, _sub_static, input, other, alpha)


@register("rsub", method=False, kind="pointwise", saves="none",
          grad_name=by_tensor(1, "other", "RsubBackward0", "RsubBackward1"))
def rsub(input, other, *, alpha=1):
    """`torch.rsub(input, other, *, alpha=1)` -> other - alpha * input."""
    return sub(other, input, alpha=alpha)


def _scalar_operand(args, kwargs):
    return any(not isinstance(a, Tensor) for a in args[:2])


def _mul_saves(args, kwargs):
    """x * scalar saves nothing (PyTorch saves the scalar); x * y saves both."""
    return "none" if _scalar_operand(args, kwargs) else "inputs"


_mul = P.binary("mul", lambda a, b: jnp.logical_and(a, b) if a.dtype == bool else a * b)
register("mul", inplace=True, out=True, aliases=("multiply",), operators=("__mul__", "__rmul__", "__imul__"),
         kind="pointwise", saves=_mul_saves)(_mul)
_mul.__doc__ = "`torch.mul(input, other, *, out=None)` -> input * other."


def _floor_div(a, b):
    if jnp.issubdtype(a.dtype, jnp.integer):
        return jnp.floor_divide(a, b)
    # PyTorch's div_floor_floating: fmod-based, exact at integer quotients (matches Python's //).
    mod = jnp.fmod(a, b)
    div = (a - mod) / b
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floor_div = jnp.floor(div)
    floor_div = jnp.where(div - floor_div > 0.5, floor_div + 1, floor_div)
    return jnp.where(b == 0, a / b, jnp.where(div == 0, jnp.copysign(0.0, a / b), floor_div))


def _trunc_div(a, b):
    if jnp.issubdtype(a.dtype, jnp.integer):
        q = jnp.floor_divide(a, b)
        return jnp.where((q < 0) & (q * b != a), q + 1, q)
    return jnp.trunc(a / b)


def _div_saves(args, kwargs):
    # x / scalar saves nothing; scalar / x and x / y save tensors
    return "none" if len(args) > 1 and not isinstance(args[1], Tensor) else "inputs"


def _div_name(args, kwargs):
    return "DivBackward2" if kwargs.get("rounding_mode") is not None else "DivBackward0"


_true_div = P.binary("div", S.div, INT_TO_FLOAT)
_floor_divide = P.binary("floor_divide", _floor_div)
_trunc_divide = P.binary("div", _trunc_div)


@register("div", inplace=True, out=True, aliases=("divide",), operators=("__truediv__", "__itruediv__"),
          kind="pointwise", grad_name=_div_name, saves=_div_saves)
def div(input, other, *, rounding_mode=None):
    """`torch.div(input, other, *, rounding_mode=None, out=None)`; rounding_mode None, 'trunc' or 'floor'.

    Integer division by zero raises like PyTorch (checked eagerly; not under jax tracing)."""
    if rounding_mode is None:
        return _true_div(input, other)
    if rounding_mode == "trunc":
        _check_int_divisor("div", input, other)
        return _trunc_divide(input, other)
    if rounding_mode == "floor":
        _check_int_divisor("div", input, other)
        return _floor_divide(input, other)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                       f"'{rounding_mode}'")


def _rtruediv(self, other):
    """`other / self` for a number `other`: PyTorch's `Tensor.__rtruediv__` is `self.reciprocal() * other`
    (so the value rounds like that, and grad_fn is MulBackward0 after ReciprocalBackward0)."""
    return self.reciprocal() * other


add_tensor_method("__rtruediv__", _rtruediv)  # not a table op: two recorded ops, as in PyTorch


@register("true_divide", inplace=True, out=True, kind="pointwise", grad_name="DivBackward0", saves=_div_saves)
def true_divide(input, other):
    """`torch.true_divide(dividend, divisor, *, out=None)`: alias of `div(rounding_mode=None)`."""
    return _true_div(input, other)


@register("floor_divide", inplace=True, out=True,
          operators=("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
          kind="pointwise", grad_name="NotImplemented")
def floor_divide(input, other):
    """`torch.floor_divide(input, other, *, out=None)`: division rounded toward -inf (Python's //)."""
    _check_int_divisor("floor_divide", input, other)
    return _floor_divide(input, other)


def _remainder_f(a, b):
    if jnp.issubdtype(a.dtype, jnp.integer):
        return jnp.remainder(a, b)
    m = jnp.fmod(a, b)
    return jnp.where((m != 0) & ((m < 0) != (b < 0)), m + b, m)


_remainder = P.binary("remainder", _remainder_f)
_fmod = P.binary("fmod", jnp.fmod)


def _remainder_name(args, kwargs):
    if not isinstance(arg(args, kwargs, 0, "input"), Tensor):
        return "NotImplemented"
    return "RemainderBackward1" if isinstance(arg(args, kwargs, 1, "other"), Tensor) else "RemainderBackward0"


@register("remainder", inplace=True, out=True, operators=("__mod__", "__rmod__", "__imod__"),
          kind="pointwise", grad_name=_remainder_name)
def remainder(input, other):
    """`torch.remainder(input, other, *, out=None)`: Python's %, the result has the divisor's sign."""
    _check_int_divisor("remainder", input, other)
    return _remainder(input, other)


@register("fmod", inplace=True, out=True, kind="pointwise",
          grad_name=by_tensor(1, "other", "FmodBackward1", "FmodBackward0"))
def fmod(input, other):
    """`torch.fmod(input, other, *, out=None)`: C's fmod, the result has the dividend's sign."""
    _check_int_divisor("fmod", input, other)
    return _fmod(input, other)


_pow = P.binary("pow", S.pow_)


@P.kernel(static=("e", "cdt", "rdt"))
def _pow_scalar_k(a, *, e, cdt, rdt):
    c = np.float32 if cdt in (np.dtype(D.float16.np), np.dtype(D.bfloat16.np)) else cdt
    return S.pow_scalar_exp(a.astype(c), e).astype(rdt)


def _pow_scalar_exponent(input, exponent):
    """input ** (a Python number): the exponent is static, so the gradient is PyTorch's PowBackward0 (zero for
    exponent 0, and exponent * input ** (exponent - 1) with that power's own convention)."""
    cdt, rdt = P.promote(DEFAULT, (input, exponent))
    return P.fresh(_pow_scalar_k(input._value, e=exponent, cdt=cdt.np, rdt=rdt.np), rdt,
                   input._storage.device)


def _pow_name(args, kwargs):
    a = args[0] if args else kwargs.get("input", kwargs.get("self"))
    b = args[1] if len(args) > 1 else kwargs.get("exponent")
    if not isinstance(a, Tensor):
        return "PowBackward2"
    return "PowBackward1" if isinstance(b, Tensor) else "PowBackward0"


@register("pow", inplace=True, out=True, operators=("__pow__", "__rpow__", "__ipow__"), kind="pointwise",
          grad_name=_pow_name)
def pow(input, exponent):
    """`torch.pow(input, exponent, *, out=None)`; input may be a Python number when exponent is a Tensor.

    An integer tensor raised to a negative integer scalar raises, like PyTorch."""
    if (isinstance(input, Tensor) and _is_int(input._dtype) and isinstance(exponent, int)
            and not isinstance(exponent, bool) and exponent < 0):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if isinstance(input, Tensor) and isinstance(exponent, (int, float, complex)):
        return _pow_scalar_exponent(input, exponent)
    return _pow(input, exponent)


@register("float_power", inplace=True, out=True, kind="pointwise", grad_name=_pow_name)
def float_power(input, exponent):
    """`torch.float_power(input, exponent)`: pow computed in double precision (complex128 for complex)."""
    cplx = _dtype_of(input).is_complex or _dtype_of(exponent).is_complex or isinstance(exponent, complex)
    d = D.complex128 if cplx else D.float64
    a = input.to(d) if isinstance(input, Tensor) else input
    b = exponent.to(d) if isinstance(exponent, Tensor) else exponent
    return pow(a, b)


_neg = P.unary("neg", jnp.negative)


@register("neg", inplace=True, out=True, aliases=("negative",), operators=("__neg__",), kind="pointwise",
          saves="none")
def neg(input):
    """`torch.neg(input, *, out=None)` -> -input. Bool tensors are an error, as in PyTorch."""
    if isinstance(input, Tensor) and input._dtype is D.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _neg(input)


@register("positive", inplace=False, operators=("__pos__",), kind="pointwise", saves="none")
def positive(input):
    """`torch.positive(input)` -> input itself (bool is an error)."""
    if input._dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


_abs_k = P.unary("abs", S.abs_, COMPLEX_TO_FLOAT)


def _abs_inplace(self):
    if self._dtype.is_complex:
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return self._assign_from(abs(self), "abs_")


@register("abs", inplace=_abs_inplace, out=True, aliases=("absolute",), operators=("__abs__",),
          kind="pointwise")
def abs(input):
    """`torch.abs(input, *, out=None)` -> |input| (real for complex input). Bool input is an error."""
    if isinstance(input, Tensor) and input._dtype is D.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return _abs_k(input)

# ---- exponentials, logs, trigonometry: int -> default float ------------------------------------------------
_UNARY_FLOAT = {
    "exp": jnp.exp, "exp2": jnp.exp2, "log": jnp.log, "log1p": jnp.log1p, "log2": jnp.log2,
                "log10": jnp.log10,
    "expm1": jnp.expm1, "sqrt": jnp.sqrt, "rsqrt": jax.lax.rsqrt, "sin": jnp.sin, "cos": jnp.cos,
                "tan": jnp.tan,
    "asin": jnp.arcsin, "acos": jnp.arccos, "atan": jnp.arctan, "sinh": jnp.sinh, "cosh": jnp.cosh,
    "tanh": jnp.tanh, "asinh": jnp.arcsinh, "acosh": jnp.arccosh, "atanh": jnp.arctanh,
    "sigmoid": jax.nn.sigmoid, "erf": jsp.erf, "erfc": jsp.erfc, "erfinv": jsp.erfinv,
    "reciprocal": jnp.reciprocal,
    # the kernels torch.special's names share (PyTorch's values and derivatives at poles and tails)
    "lgamma": M.lgamma, "digamma": M.digamma, "i0": M.i0, "sinc": M.sinc,
    "deg2rad": jnp.deg2rad, "rad2deg": jnp.rad2deg,
}
# PyTorch's CPU kernels without complex support: NotImplementedError naming the kernel
_NO_COMPLEX = {"erf": "erf_vml_cpu", "erfc": "erfc_vml_cpu", "erfinv": "erfinv_vml_cpu",
               "lgamma": "lgamma_vml_cpu", "digamma": "digamma", "i0": "i0_vml_cpu"}
_ALIASES = {"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",), "asinh": ("arcsinh",),
            "acosh": ("arccosh",), "atanh": ("arctanh",)}
# PyTorch's node names where they aren't the camel case of the op name
_UNARY_GRAD_NAMES = {"log1p": "Log1PBackward0", "deg2rad": "Deg2RadBackward0", "rad2deg": "Rad2DegBackward0"}


def _c(x):
    return jnp.conj(x) if jnp.iscomplexobj(x) else x


def _rule(fn):
    """An explicit rule (register's grad_rule) from `fn(result, grad) -> input grad` for a unary op that saves
    its result."""
    def rule(arrays, cts, mask):
        out, g = arrays[0], cts[0]
        return [fn(out, g.astype(out.dtype)).astype(out.dtype)]
    return rule


# PyTorch's formulas in terms of the saved result (its backward reads the result: the `.data` example of the
# 0.4 migration guide depends on it)
_RESULT_RULES = {
    "exp": _rule(lambda y, g: g * _c(y)),
    "exp2": _rule(lambda y, g: g * _c(y * math.log(2.0))),
    "expm1": _rule(lambda y, g: g * _c(y + 1)),
    "sigmoid": _rule(lambda y, g: g * _c((1 - y) * y)),
    "tanh": _rule(lambda y, g: g * _c(1 - y * y)),
    "sqrt": _rule(lambda y, g: g / (2 * _c(y))),
    "rsqrt": _rule(lambda y, g: -0.5 * g * _c(y * y * y)),
    "reciprocal": _rule(lambda y, g: -g * _c(y * y)),
}


def refuse_complex(kernel, input):
    """PyTorch's NotImplementedError for complex input to a CPU kernel that has no complex version."""
    if isinstance(input, Tensor) and input._dtype.is_complex:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(input._dtype)}'")


def _float_unary(name, jfn):
    f = k = P.unary(name, jfn, INT_TO_FLOAT)
    kernel = _NO_COMPLEX.get(name)
    if kernel is not None:
        def f(input):
            refuse_complex(kernel, input)
            return k(input)
        f.__name__ = name
    f.__doc__ = (f"`torch.{name}(input, *, out=None)`: elementwise {name}; integer and bool inputs give the "
                 f"default float dtype, as in PyTorch.")
    return f


for _name, _fn in _UNARY_FLOAT.items():
    register(_name, inplace=True, out=True, aliases=_ALIASES.get(_name, ()), kind="pointwise",
             grad_name=_UNARY_GRAD_NAMES.get(_name), grad_rule=_RESULT_RULES.get(_name))(
        _float_unary(_name, _fn))




_logit_k = P.unary("logit", M.logit, INT_TO_FLOAT, static=("eps",))


def logit_eps(name, eps):
    """`eps` as a Python float or None, with PyTorch's argument check (a 0-dim tensor gives its value)."""
    if eps is None:
        return None
    if isinstance(eps, Tensor) and eps.dim() == 0 and not eps._dtype.is_complex:
        return float(eps.item())
    if isinstance(eps, (bool, int, float, np.bool_, np.integer, np.floating)):
        return float(eps)
    raise TypeError(f"{name}(): argument 'eps' (position 2) must be float, not {type(eps).__name__}")


@register("logit", inplace=True, out=True, kind="pointwise")
def logit(input, eps=None):
    """`torch.logit(input, eps=None, *, out=None)` -> log(p / (1 - p)), input clamped to [eps, 1 - eps]
    (below eps first, as PyTorch, so an eps above 0.5 gives inf); PyTorch's gradient: nan outside [0, 1]
    without eps, 0 outside [eps, 1 - eps] with it. A 0-dim tensor eps is read on the host, as in PyTorch."""
    eps = logit_eps("logit", eps)
    refuse_complex("logit_cpu", input)
    return _logit_k(input, eps=eps)



# ---- sign and rounding: integer inputs stay integers
# --------------------------------------------------------


def _int_identity(jfn):
    return lambda a: a if not jnp.issubdtype(a.dtype, jnp.inexact) else jfn(a)


_sign = P.unary("sign", lambda a: a if a.dtype == bool else jnp.sign(a))
register("sign", inplace=True, out=True, kind="pointwise")(_sign)
_sign.__doc__ = "`torch.sign(input, *, out=None)`: -1, 0 or 1 (complex input is an error; use sgn)."
_sgn = P.unary("sgn", S.sgn)
register("sgn", inplace=True, out=True, kind="pointwise")(_sgn)
_sgn.__doc__ = "`torch.sgn(input, *, out=None)`: sign, and x/|x| for complex input."

for _name, _fn in {"floor": jnp.floor, "ceil": jnp.ceil, "trunc": jnp.trunc,
                   "frac": lambda a: a - jnp.trunc(a)}.items():
    _f = P.unary(_name, _int_identity(_fn))
    _f.__doc__ = f"`torch.{_name}(input, *, out=None)`: elementwise {_name}; integer input is returned as is."
    register(_name, inplace=True, out=True, aliases=("fix",) if _name == "trunc" else (),
             kind="pointwise")(_f)


def _round_f(a, decimals):
    if not jnp.issubdtype(a.dtype, jnp.inexact):
        return a
    if decimals == 0:
        return jnp.round(a)
    if decimals > 0:
        ten = jnp.asarray(10.0 ** decimals, a.dtype)
        return jnp.round(a * ten) / ten
    ten = jnp.asarray(10.0 ** -decimals, a.dtype)
    return jnp.round(a / ten) * ten


_round_k = P.unary("round", _round_f, static=("decimals",))


@register("round", inplace=True, out=True, kind="pointwise",
          grad_name=if_given("decimals", "RoundBackward1", "RoundBackward0"))
def round(input, *, decimals=0):
    """`torch.round(input, *, decimals=0, out=None)`: round half to even, like PyTorch."""
    return _round_k(input, decimals=decimals)


# ---- clamp
# ---------------------------------------------------------------------------------------------------
# S.clamp: gradient 1 on the closed interval [min, max] (PyTorch's clamp_backward), none for NaN input
_clamp_both = P.kernel(lambda a, lo, hi, cdt: S.clamp(a.astype(cdt), jnp.asarray(lo).astype(cdt),
                                                      jnp.asarray(hi).astype(cdt)), static=("cdt",))
_clamp_min = P.binary("clamp_min", lambda a, b: S.clamp(a, b, None))
_clamp_max = P.binary("clamp_max", lambda a, b: S.clamp(a, None, b))


def _clamp(name, input, min, max):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if min is not None and max is not None and isinstance(min, Tensor) != isinstance(max, Tensor):
        got = ", ".join("Tensor" if isinstance(x, Tensor) else type(x).__name__ for x in (input, min, max))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                        "one of:")
    if max is None:
        return _clamp_min(input, min)
    if min is None:
        return _clamp_max(input, max)
    cdt, rdt = P.promote(DEFAULT, (input, min, max))
    tensors = [t for t in (input, min, max) if isinstance(t, Tensor)]
    dev = P.check_devices(tensors)
    args = [t._value if isinstance(t, Tensor) else t for t in (input, min, max)]
    try:
        out = _clamp_both(*args, cdt=cdt.np)
    except (TypeError, ValueError):
        P.broadcast_error([jnp.shape(a) for a in args])
        raise
    return P.fresh(out, rdt, dev)


def _clamp_name(args, kwargs):
    lo, hi = arg(args, kwargs, 1, "min"), arg(args, kwargs, 2, "max")
    return "ClampBackward0" if isinstance(lo, Tensor) or isinstance(hi, Tensor) else "ClampBackward1"


@register("clamp", inplace=True, out=True, kind="pointwise", grad_name=_clamp_name)
def clamp(input, min=None, max=None):
    """`torch.clamp(input, min=None, max=None, *, out=None)`: min/max both numbers or both tensors
    (broadcast).

    As in PyTorch, min > max gives max everywhere and NaN stays NaN; the result dtype follows promotion. The
    gradient is PyTorch's: 1 on the closed interval [min, max], 0 outside and for NaN."""
    return _clamp("clamp", input, min, max)


@register("clip", inplace=True, out=True, kind="pointwise", grad_name=_clamp_name)
def clip(input, min=None, max=None):
    """`torch.clip(input, min=None, max=None, *, out=None)`: alias of `clamp`."""
    return _clamp("clip", input, min, max)


register("clamp_min", inplace=True, out=True, kind="pointwise",
         grad_name=by_tensor(1, "min", "ClampMinBackward1", "ClampMinBackward0"))(_clamp_min)
_clamp_min.__doc__ = "`torch.clamp_min(input, min)`: clamp from below."
register("clamp_max", inplace=True, out=True, kind="pointwise",
         grad_name=by_tensor(1, "max", "ClampMaxBackward1", "ClampMaxBackward0"))(_clamp_max)
_clamp_max.__doc__ = "`torch.clamp_max(input, max)`: clamp from above."


# ---- interpolation and pairwise extrema
# ---------------------------------------------------------------------
def _lerp_f(a, b, w):
    return jnp.where(jnp.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


_lerp_k = P.kernel(lambda a, b, w, cdt: _lerp_f(a.astype(cdt), b.astype(cdt), jnp.asarray(w).astype(cdt)),
                   static=("cdt",))


@register("lerp", inplace=True, out=True, kind="pointwise")
def lerp(input, end, weight):
    """`torch.lerp(input, end, weight, *, out=None)` -> input + weight * (end - input), PyTorch's formula."""
    if not isinstance(end, Tensor):
        raise TypeError(f"lerp(): argument 'end' (position 2) must be Tensor, not {type(end).__name__}")
    if input._dtype is not end._dtype:
        raise RuntimeError(f"expected dtype {c_name(input._dtype)} for `end` but got dtype "
                           f"{c_name(end._dtype)}")
    tensors = [t for t in (input, end, weight) if isinstance(t, Tensor)]
    dev = P.check_devices(tensors)
    args = [t._value if isinstance(t, Tensor) else t for t in (input, end, weight)]
    try:
        out = _lerp_k(*args, cdt=input._dtype.np)
    except (TypeError, ValueError):
        P.broadcast_error([jnp.shape(a) for a in args])
        raise
    return P.fresh(out, input._dtype, dev)


def _tensor_pair(name, fn):
    def f(input, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        return fn(input, other)
    f.__name__ = name
    f.__doc__ = f"`torch.{name}(input, other, *, out=None)`: elementwise {name} of two tensors."
    return f


# gradients as PyTorch: maximum/minimum split ties in half (NaN: to both); fmax/fmin give ties to input
for _name, _fn in {"maximum": S.maximum, "minimum": S.minimum, "fmax": S.fmax, "fmin": S.fmin}.items():
    register(_name, out=True, kind="pointwise")(_tensor_pair(_name, P.binary(_name, _fn)))
for _name, _fn, _al in (("atan2", S.atan2, ("arctan2",)), ("hypot", S.hypot, ())):
    register(_name, inplace=True, out=True, aliases=_al, kind="pointwise")(
        _tensor_pair(_name, P.binary(_name, _fn, INT_TO_FLOAT)))

_copysign = P.binary("copysign", S.copysign, INT_TO_FLOAT)
register("copysign", inplace=True, out=True, kind="pointwise",
         grad_name=by_tensor(1, "other", "CopysignBackward0", "CopysignBackward1"))(_copysign)
_copysign.__doc__ = "`torch.copysign(input, other, *, out=None)`: |input| with other's sign."

def _xlogy_name(args, kwargs):
    if not isinstance(arg(args, kwargs, 0, "input"), Tensor):
        return "XlogyBackward1"
    return "XlogyBackward0" if isinstance(arg(args, kwargs, 1, "other"), Tensor) else "XlogyBackward2"


_xlogy = P.binary("xlogy", S.xlogy, INT_TO_FLOAT)
register("xlogy", inplace=True, out=True, kind="pointwise", grad_name=_xlogy_name)(_xlogy)
_xlogy.__doc__ = "`torch.xlogy(input, other, *, out=None)` -> input * log(other), 0 where input == 0."


# ---- non-finite values -----------------------------------------------------------------------------------
def _nan_to_num_f(a, nan, posinf, neginf):
    if not jnp.issubdtype(a.dtype, jnp.inexact):
        return a
    return jnp.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)


_nan_to_num_k = P.unary("nan_to_num", _nan_to_num_f, static=("nan", "posinf", "neginf"))


@register("nan_to_num", inplace=True, out=True, kind="pointwise")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """`torch.nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None)`; infinities default to the
    dtype's largest/smallest finite values."""
    return _nan_to_num_k(input, nan=nan, posinf=posinf, neginf=neginf)


def _nonfinite_test(fn, on_int):
    return lambda a: fn(a) if jnp.issubdtype(a.dtype, jnp.inexact) else on_int(a)


_never = lambda a: jnp.zeros_like(a, bool)
for _name, _fn, _on_int in (("isnan", jnp.isnan, _never), ("isinf", jnp.isinf, _never),
                            ("isfinite", jnp.isfinite, lambda a: jnp.ones_like(a, bool)),
                            ("isposinf", jnp.isposinf, _never), ("isneginf", jnp.isneginf, _never),
                            ("signbit", jnp.signbit, lambda a: a < 0)):
    _f = P.unary(_name, _nonfinite_test(_fn, _on_int), ALWAYS_BOOL)
    _f.__doc__ = f"`torch.{_name}(input)` -> bool tensor."
    register(_name, out=_name in ("isposinf", "isneginf", "signbit"), kind="pointwise")(_f)

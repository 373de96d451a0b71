"""`torch.special`'s functions as table ops under PyTorch's aten names (`special_erfcx`, ...), bound by the
torchshim/special package (`torch.special.erfcx.__name__ == "special_erfcx"`, as in PyTorch).

The gamma/zeta/error-function kernels (values at poles and tails, PyTorch's derivative formulas) are in
`_special_math.py`, the Bessel and Airy kernels in `_special_bessel.py`, the orthogonal polynomials in
`special_poly.py`. The top-level ops with a special spelling (torch.lgamma, digamma, polygamma, mvlgamma,
i0, logit, sinc in ops/pointwise.py and ops/pointwise_more.py) use these kernels, and their special names call
them. Names that PyTorch implements by calling the top-level op record that op's node
(`special.expit` -> SigmoidBackward0, `special.gammaln` -> LgammaBackward0, `special.ndtr` -> MulBackward1).

Differences from PyTorch: float32 values are computed in float64 and rounded once, so they can differ from
PyTorch's float32 kernels in the last bits (and in float32 argument reduction for |x| > 1e5 in the Bessel
functions); PyTorch's own float64 Bessel J/Y and Airy kernels are off by up to ~2e-7 absolute near
x = 5..6 and x = -2.5, torchshim's are accurate there. Subnormal float32 inputs are flushed to zero by XLA.
"""
import jax.scipy.special as jsp

from .. import _dtype as D
from .._promotion import short_name
from .._tensor import Tensor
from ..autograd._names import default_grad_name
from . import _dispatch as P
from . import _special_bessel as B
from . import _special_math as M
from ._dispatch import INT_TO_FLOAT
from ._loss_common import raising_guard
from ._registry import OPS, register
from .pointwise import logit_eps
from .pointwise_more import mvlgamma_checked, polygamma_checked

__all__ = []

_HALF = (D.float16, D.bfloat16)


def _need(name, x, pos, arg):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _refuse(kernel, dtype, half=True):
    """PyTorch's NotImplementedError for a dtype its CPU kernel lacks (complex; float16/bfloat16 unless
    `half`)."""
    if dtype.is_complex or (not half and dtype in _HALF):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(dtype)}'")


def _promoted(*xs):
    return P.promote(INT_TO_FLOAT, [x for x in xs])[0]


def _no_grad(args, kwargs):
    """grad_name for PyTorch's functions without a derivative: their results don't require grad."""
    return None


def _unary(name, kernel, cpu, *, half=True, grad_name=None, doc=""):
    """Register `special_<name>(input, *, out=None)` from a jax kernel (int/bool -> default float)."""
    op = f"special_{name}"
    k = P.unary(op, kernel, INT_TO_FLOAT)

    def f(input):
        _need(op, input, 1, "input")
        _refuse(cpu, _promoted(input), half)
        return k(input)
    f.__name__ = op
    f.__doc__ = f"`torch.special.{name}(input, *, out=None)`: {doc}"
    register(op, method=False, function=False, out=True, kind="pointwise", grad_name=grad_name)(f)


# ---- functions only torch.special has ------------------------------------------------------------------
_unary("erfcx", M.erfcx, "erfcx_cpu", half=False, doc="exp(x^2) * erfc(x), the scaled complementary error "
       "function (accurate for large x, where erfc underflows).")
_unary("log_ndtr", M.log_ndtr, "log_ndtr_cpu", half=False, doc="log of the standard normal CDF, accurate in "
       "both tails.")
_unary("ndtri", M.ndtri, "ndtri_cpu", half=False,
       doc="the inverse of the standard normal CDF (-inf at 0, inf at 1, nan outside [0, 1]).")
_unary("entr", M.entr, "entr_cpu", doc="-x * log(x) for x > 0, 0 at 0, -inf for x < 0.")
_unary("i0e", M.i0e, "i0e_cpu", grad_name="SpecialI0EBackward0", doc="exp(-|x|) * i0(x).")
_unary("i1", M.i1, "i1_cpu", doc="the modified Bessel function of the first kind of order 1.")
_unary("i1e", M.i1e, "i1e_cpu", grad_name="SpecialI1EBackward0", doc="exp(-|x|) * i1(x).")

for _name in B.__all__:
    _unary(_name, M.in_f64(getattr(B, _name)), f"{_name}_cpu", half=False, grad_name=_no_grad,
           doc=f"{_name.replace('_', ' ')} of input. No derivative (the result never requires grad), as in "
               "PyTorch.")
_unary("modified_bessel_i0", M.in_f64(lambda a: M.i0(a)), "modified_bessel_i0_cpu", half=False,
       grad_name=_no_grad, doc="the modified Bessel function I0. No derivative, as in PyTorch.")
_unary("modified_bessel_i1", M.in_f64(lambda a: M.i1(a)), "modified_bessel_i1_cpu", half=False,
       grad_name=_no_grad, doc="the modified Bessel function I1. No derivative, as in PyTorch.")


# ---- the top-level functions under their special names -----------------------------------------------------
def _ndtr(a):
    return (1 + jsp.erf(a * (2 ** -0.5))) * 0.5


_unary("ndtr", _ndtr, "erf_vml_cpu", grad_name="MulBackward1",
       doc="the standard normal CDF, (1 + erf(x / sqrt(2))) / 2 as PyTorch composes it (so 0 below about "
           "-8.3 in float64, and grad_fn MulBackward1).")


def _same_as(name, base, *, cpu=None, ints=True, params=None, grad_name=None):
    """Register `special_<name>` computing the top-level op `base` (its kernel and gradient facts)."""
    op = f"special_{name}"
    b = OPS[base]
    fn = b.fn

    def f(input, *args, **kwargs):
        _need(op, input, 1, "input")
        if cpu is not None:
            d = input._dtype
            if d.is_complex or (not ints and not d.is_floating_point):
                raise NotImplementedError(f"\"{cpu}\" not implemented for '{short_name(d)}'")
        return fn(input, *args, **kwargs)
    f.__name__ = op
    sig = params or "(input, *, out=None)"
    f.__doc__ = f"`torch.special.{name}{sig}`: `torch.{base}` under its special name (same kernel and " \
                "gradient)."
    if grad_name is None:
        grad_name = b.grad_name if b.grad_name is not None else default_grad_name(base)
    register(op, method=False, function=False, out=True, kind="pointwise", grad_name=grad_name,
             saves=b.saves, grad_rule=b.grad_rule)(f)


# torch.i0/lgamma/digamma/sinc use _special_math's kernels (PyTorch's values and derivatives at the poles),
# erf/erfc/erfinv/lgamma/digamma/i0 refuse complex input with PyTorch's error
for _name, _base in (("erf", "erf"), ("erfc", "erfc"), ("erfinv", "erfinv"), ("exp2", "exp2"),
                     ("expm1", "expm1"), ("log1p", "log1p"), ("expit", "sigmoid"), ("sinc", "sinc"),
                     ("i0", "i0"), ("gammaln", "lgamma"), ("digamma", "digamma"), ("psi", "digamma")):
    _same_as(_name, _base)
_same_as("round", "round", cpu="round_vml_cpu", ints=False, params="(input, *, decimals=0, out=None)",
         grad_name="RoundBackward1")  # PyTorch calls round.decimals


@register("special_logit", method=False, function=False, out=True, kind="pointwise",
          grad_name="LogitBackward0")
def special_logit(input, eps=None):
    """`torch.special.logit(input, eps=None, *, out=None)`: torch.logit under its special name (input clamped
    to [eps, 1 - eps] when eps is given; gradient nan outside [0, 1], or 0 outside the clamp)."""
    _need("special_logit", input, 1, "input")
    return OPS["logit"].fn(input, logit_eps("special_logit", eps))


@register("special_polygamma", method=False, function=False, out=True, kind="pointwise",
          grad_name="PolygammaBackward0")
def special_polygamma(n, input):
    """`torch.special.polygamma(n, input, *, out=None)`: torch.polygamma under its special name (PyTorch's
    values and gradients at the poles)."""
    return polygamma_checked("special_polygamma", n, input)


@register("special_multigammaln", method=False, function=False, out=True, kind="pointwise",
          grad_name="MvlgammaBackward0")
def special_multigammaln(input, p):
    """`torch.special.multigammaln(input, p, *, out=None)`: torch.mvlgamma under its special name."""
    return mvlgamma_checked("special_multigammaln", input, p)


# ---- two-argument functions --------------------------------------------------------------------------------
def invalid_combination(op, args, first="input"):
    """PyTorch's TypeError for two Python numbers given to a (Tensor, Tensor) / (Number, Tensor) /
    (Tensor, Number) function (first line; the overloads follow)."""
    got = ", ".join(type(a).__name__ for a in args)
    self_ = "self" if first == "input" else first
    return TypeError(f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
                     f"of:\n * (Tensor {first}, Tensor other, *, Tensor out = None)\n"
                     f" * (Number {self_}, Tensor other, *, Tensor out = None)\n"
                     f" * (Tensor {first}, Number other, *, Tensor out = None)\n")


def _scalar_name(prefix):
    """grad_name: <prefix>0 for two tensors, 1 when the first is a Python number, 2 when the second is."""
    def name(args, kwargs):
        a = args[0] if args else kwargs.get("input", kwargs.get("self"))
        return prefix + ("1" if not isinstance(a, Tensor) else "2" if not isinstance(
            args[1] if len(args) > 1 else kwargs.get("other"), Tensor) else "0")
    return name


def _binary(name, kernel, cpu, *, half=True, grad_name=None, doc=""):
    op = f"special_{name}"
    k = P.binary(op, kernel, INT_TO_FLOAT)

    def f(input, other):
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise invalid_combination(op, (input, other))
        _refuse(cpu, _promoted(input, other), half)
        return k(input, other)
    f.__name__ = op
    f.__doc__ = f"`torch.special.{name}(input, other, *, out=None)`: {doc} Either argument may be a Python " \
                "number."
    register(op, method=False, function=False, out=True, kind="pointwise", grad_name=grad_name)(f)


_zeta_guard = raising_guard(NotImplementedError, "the derivative for 'zeta' is not implemented.")


def _zeta_fn(x, q):
    return M.zeta(_zeta_guard(x), q)


_binary("xlog1py", M.xlog1py, "xlog1py_cpu", grad_name=_scalar_name("SpecialXlog1PyBackward"),
        doc="input * log1p(other), 0 where input == 0 (unless other is nan).")
_binary("zeta", _zeta_fn, "zeta_cpu", half=False, grad_name=_scalar_name("SpecialZetaBackward"),
        doc="the Hurwitz zeta function zeta(input, other) with PyTorch's domain rules; no derivative for "
            "input (NotImplementedError at backward, as in PyTorch).")

_xlogy = OPS["xlogy"]


@register("special_xlogy", method=False, function=False, out=True, kind="pointwise",
          grad_name=_xlogy.grad_name)
def special_xlogy(input, other):
    """`torch.special.xlogy(input, other, *, out=None)`: torch.xlogy under its special name."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise invalid_combination("special_xlogy", (input, other))
    _refuse("xlogy_cpu", _promoted(input, other))
    return _xlogy.fn(input, other)


def _gammainc(name, base):
    b = OPS[base]

    def f(input, other):
        _need(f"special_{name}", input, 1, "input")
        _need(f"special_{name}", other, 2, "other")
        return b.fn(input, other)
    f.__name__ = f"special_{name}"
    f.__doc__ = f"`torch.special.{name}(input, other, *, out=None)`: torch.{base} under its special name " \
                "(both arguments tensors; no derivative for input, as in PyTorch)."
    register(f"special_{name}", method=False, function=False, out=True, kind="pointwise",
             grad_name=default_grad_name(base))(f)


_gammainc("gammainc", "igamma")
_gammainc("gammaincc", "igammac")


# ---- softmax family --------------------------------------------------------------------------------------
@register("special_softmax", method=False, function=False, kind="activation", grad_name="SoftmaxBackward0")
def special_softmax(input, dim, dtype=None):
    """`torch.special.softmax(input, dim, dtype=None)`: torch.softmax under its special name (no out=)."""
    _need("special_softmax", input, 1, "input")
    return OPS["softmax"].fn(input, dim, dtype)


@register("special_log_softmax", method=False, function=False, kind="activation",
          grad_name="LogSoftmaxBackward0")
def special_log_softmax(input, dim, *, dtype=None):
    """`torch.special.log_softmax(input, dim, *, dtype=None)`: torch.log_softmax under its special name (dtype
    keyword-only, no out=)."""
    _need("special_log_softmax", input, 1, "input")
    return OPS["log_softmax"].fn(input, dim, dtype)


@register("special_logsumexp", method=False, function=False, out=True, kind="reduction",
          grad_name="LogsumexpBackward0")
def special_logsumexp(input, dim, keepdim=False):
    """`torch.special.logsumexp(input, dim, keepdim=False, *, out=None)`: torch.logsumexp under its special
    name."""
    _need("special_logsumexp", input, 1, "input")
    return OPS["logsumexp"].fn(input, dim, keepdim)


del _name, _base

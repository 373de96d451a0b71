"""torch.nn.functional ops, activations: relu, relu6, leaky_relu, prelu, rrelu, elu, selu, celu, gelu, silu,
mish, hardswish, hardsigmoid, hardtanh, hardshrink, softshrink, tanhshrink, threshold, logsigmoid, softsign,
softplus (softmax, softmin, log_softmax and glu are in `_act_softmax.py`).

Each op is one jitted kernel (float16/bfloat16 computed in float32 and rounded once, like PyTorch's CPU
kernels). The forwards are written so that jax's derivative is PyTorch's at the kinks: `where` picks the
branch PyTorch's backward formula uses at the boundary (relu'(0) = 0, hardtanh's bounds get 0,
leaky_relu'(0) = slope, elu'(0) from the negative branch, ...), and branches that could overflow are fed a
safe operand so that a discarded inf never turns into a NaN gradient.

The ops here take the aten signatures (`torch._C._nn.elu(input, alpha)`); `torch.nn.functional`'s Python
signatures (`inplace=`, implicit softmax dim, ...) are in `torchshim/nn/functional/activation.py`. The
in-place variants `elu_`, `leaky_relu_`, ... are built here (`inplace_variant`) so their nodes carry PyTorch's
names. rrelu draws its noise outside the differentiable op (`rrelu_with_noise`), so re-running the forward for
the pullback sees the same noise.
"""
import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._promotion import short_name
from .._random import draw, make_key
from .._tensor import Tensor
from ..autograd._ops import differentiable
from . import _dispatch as P
from . import _subgrad as S
from ._dispatch import INT_TO_FLOAT
from ._registry import make_inplace, register
from .indexing import scalar_to

__all__ = ["no_derivative", "inplace_variant", "elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_", "relu6_",
           "threshold_", "silu_", "mish_", "hardswish_", "hardsigmoid_", "rrelu_"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# ---- helpers ---------------------------------------------------------------------------------------------
def _nyi(kernel_name, d):
    return NotImplementedError(f'"{kernel_name}" not implemented for \'{short_name(d)}\'')


def _check(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _floating(kernel_name, input, complex_ok=False):
    """PyTorch's CPU activation kernels exist for floating dtypes only (some for complex too)."""
    d = input._dtype
    if not (d.is_floating_point or complex_ok and d.is_complex):
        raise _nyi(kernel_name, d)


def _clamp_like(name, input):
    """The dtype checks of ops PyTorch implements with clamp (relu, hardtanh): integers work, bool and complex
    don't."""
    d = input._dtype
    if d is D.bool_:
        raise RuntimeError("Boolean inputs not supported for relu" if name == "relu" else
                           "Bool inputs not supported for hardtanh")
    if d.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")


def _scalar_for(input, v):
    """A Python scalar argument as the op sees it: truncated to an integer for integer inputs."""
    d = input._dtype
    return int(v) if not (d.is_floating_point or d.is_complex) else float(v)


def _linear_at_ends(x, inside, f, df):
    """f(x), but where `inside` is False the value is f's first-order expansion around x itself: same value
    and first derivative, zero second derivative (PyTorch's double backward of piecewise ops at their
    breakpoints)."""
    sx = jax.lax.stop_gradient(x)
    return jnp.where(inside, f(x), f(sx) + (x - sx) * df(sx))


def no_derivative(name):
    """`f(coef, x) -> coef` whose derivative raises PyTorch's "derivative for aten::<name> is not
    implemented": applied to a backward coefficient computed from the primal input x, the first derivative
    works and the second raises, as PyTorch's backward ops without a double-backward formula. (x is an
    argument so that the error comes even where coef is piecewise constant in x.)"""
    @jax.custom_jvp
    def f(coef, x):
        return coef

    def jvp(primals, tangents):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    f.defjvp(jvp)
    return f


def inplace_variant(name, fn, grad_name=None):
    """`name_(input, *args)`: the op `fn` computed out of place and written into `input`, recorded as a node
    named `grad_name` (PyTorch names some in-place nodes differently, e.g. EluBackward1; default
    `<CamelCase(name)>Backward0`, as the out-of-place op)."""
    return make_inplace(differentiable(name + "_", fn, grad_name=grad_name), name)


# ---- rectifiers ------------------------------------------------------------------------------------------
_relu = P.unary("relu", lambda a: jnp.where(a <= 0, jnp.zeros((), a.dtype), a))


@register("relu", inplace=True, inplace_function=True, kind="activation")
def relu(input):
    """`torch.relu(input)`, `Tensor.relu()`, `torch.relu_`/`Tensor.relu_`: max(0, x), NaN propagates; integer
    inputs work (bool and complex raise, as in PyTorch). The gradient at 0 is 0."""
    _check("relu", input)
    _clamp_like("relu", input)
    return _relu(input)


def _hardtanh_f(a, lo, hi):
    """clamp(a, lo, hi) (all hi when lo > hi); the gradient passes where not (a <= lo or a >= hi)."""
    lo, hi = jnp.asarray(lo, a.dtype), jnp.asarray(hi, a.dtype)
    value = jnp.minimum(jnp.maximum(a, lo), hi)
    return jnp.where((a <= lo) | (a >= hi), jax.lax.stop_gradient(value), a)


_hardtanh = P.unary("hardtanh", _hardtanh_f, static=("lo", "hi"))


def _hardtanh_checked(name, input, min_val, max_val):
    _check(name, input)
    _clamp_like("hardtanh", input)
    if input._dtype is D.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return _hardtanh(input, lo=_scalar_for(input, min_val), hi=_scalar_for(input, max_val))


@register("hardtanh", method=False, function=False, kind="activation")
def hardtanh(input, min_val=-1.0, max_val=1.0):
    """`torch._C._nn.hardtanh(input, min_val=-1., max_val=1.)`: clamp to [min_val, max_val]; the gradient is 0
    at and beyond the bounds (PyTorch's hardtanh_backward). Integer inputs work (limits truncated)."""
    return _hardtanh_checked("hardtanh", input, min_val, max_val)


@register("relu6", method=False, function=False, kind="activation", grad_name="HardtanhBackward0")
def relu6(input):
    """`torch._C._nn.relu6(input)`: hardtanh(input, 0, 6) (PyTorch's node is HardtanhBackward0)."""
    return _hardtanh_checked("relu6", input, 0.0, 6.0)


_leaky = P.unary("leaky_relu", lambda a, slope: jnp.where(a > 0, a, a * jnp.asarray(slope, a.dtype)),
                 static=("slope",))


@register("leaky_relu", method=False, function=False, kind="activation")
def leaky_relu(input, negative_slope=0.01):
    """`torch._C._nn.leaky_relu(input, negative_slope=0.01)`: x if x > 0 else slope * x (gradient at 0 is the
    slope, as PyTorch's)."""
    _check("leaky_relu", input)
    _floating("leaky_relu_cpu", input)
    return _leaky(input, slope=float(negative_slope))


@P.kernel(static=("cdt", "rdt", "wshape"))
def _prelu_k(a, w, *, cdt, rdt, wshape):
    a, w = a.astype(cdt), w.astype(cdt).reshape(wshape)
    sa, sw = jax.lax.stop_gradient(a), jax.lax.stop_gradient(w)
    # at 0: the first derivatives of w * a and no second derivative (PyTorch's double backward tests >= 0)
    at_zero = sa * sw + (a - sa) * sw + (w - sw) * sa
    return jnp.where(a > 0, a, jnp.where(a < 0, w * a, at_zero)).astype(rdt)


@register("prelu", functional=True, kind="activation", grad_name="PreluKernelBackward0")
def prelu(input, weight):
    """`torch.prelu(input, weight)` / `Tensor.prelu` / `F.prelu`: x if x > 0 else weight * x, with weight a
    scalar, one value or one value per channel (dim 1 of input; 1-d inputs have one channel)."""
    _check("prelu", input)
    if not isinstance(weight, Tensor):
        raise TypeError("prelu(): argument 'weight' (position 2) must be Tensor, not "
                        f"{type(weight).__name__}")
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
                           f"{weight.ndim}")
    n = weight.numel()
    channels = input._shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{n} and channel size = {channels}.")
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {short_name(input._dtype)} and "
                           f"{short_name(weight._dtype)}")
    _floating("prelu_cpu", input)
    wshape = (n,) + (1,) * (input.ndim - 2) if n != 1 and input.ndim >= 2 else ()
    cdt = D.float32 if input._dtype in (D.float16, D.bfloat16) else input._dtype
    out = _prelu_k(input._value, weight._value, cdt=cdt.np, rdt=input._dtype.np, wshape=wshape)
    return P.fresh(out, input._dtype, input._storage.device)


# ---- rrelu: noise drawn outside the differentiable op ------------------------------------------------------
@P.kernel(static=("cdt", "rdt", "training", "lower", "upper"))
def _rrelu_k(a, noise, *, cdt, rdt, training, lower, upper):
    a = a.astype(cdt)
    if training:  # PyTorch's gradient in training is the noise (1 where x > 0)
        return (a * noise.astype(cdt)).astype(rdt)
    return jnp.where(a > 0, a, a * jnp.asarray((lower + upper) / 2, cdt)).astype(rdt)


def _rrelu_with_noise(input, noise, lower, upper, training):
    cdt = D.float32 if input._dtype in (D.float16, D.bfloat16) else input._dtype
    nz = noise._value if noise is not None else jnp.zeros((), input._dtype.np)
    out = _rrelu_k(input._value, nz, cdt=cdt.np, rdt=input._dtype.np, training=training, lower=float(lower),
                   upper=float(upper))
    return P.fresh(out, input._dtype, input._storage.device)


_rrelu_core = differentiable("rrelu_with_noise", _rrelu_with_noise)
_rrelu_core_ = differentiable("rrelu_with_noise_", _rrelu_with_noise, grad_name="RreluWithNoiseBackward1")


@P.kernel(static=("lower", "upper", "dt"))
def _rrelu_noise_k(raw, n, a, *, lower, upper, dt):
    cdt = np.float64 if np.dtype(dt) == np.float64 else np.float32
    r = jax.random.uniform(make_key(raw, n), a.shape, cdt, lower, upper)
    return jnp.where(a <= 0, r, jnp.ones((), cdt)).astype(dt)


def _rrelu_args(input, lower, upper, training):
    _check("rrelu", input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    _floating("rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu", input)


def _rrelu_noise(input, lower, upper, training, generator):
    if not training:
        return None
    raw, n = draw(generator)
    arr = _rrelu_noise_k(raw, n, input._value, lower=float(lower), upper=float(upper), dt=input._dtype.np)
    return P.fresh(arr, input._dtype, input._storage.device)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """`torch.rrelu_(input, lower=1/8, upper=1/3, training=False, generator=None)`: in-place `rrelu`."""
    _rrelu_args(input, lower, upper, training)
    noise = _rrelu_noise(input, lower, upper, training, generator)
    return input._assign_from(_rrelu_core_(input, noise, lower, upper, training), "rrelu_")


@register("rrelu", method=False, inplace=rrelu_, inplace_function=True, kind="composite")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """`torch.rrelu(input, lower=1/8, upper=1/3, training=False, generator=None)`: in training, x * a with a
    drawn from U(lower, upper) for each x <= 0 (torchshim's RNG: other numbers than PyTorch's, same
    distribution); otherwise leaky_relu with slope (lower + upper) / 2. The gradient is the noise (the slope
    in eval), PyTorch's RreluWithNoiseBackward0."""
    _rrelu_args(input, lower, upper, training)
    return _rrelu_core(input, _rrelu_noise(input, lower, upper, training, generator), lower, upper, training)


# ---- exponential units -------------------------------------------------------------------------------------
def _elu_f(a, alpha, scale, input_scale):
    """PyTorch's elu: the negative branch at 0 for the first derivative, zero second derivative at 0
    (elu_double_backward masks with x < 0)."""
    pos = a > 0
    safe = jnp.where(pos, jnp.zeros((), a.dtype), a)
    neg = _linear_at_ends(safe, a < 0, lambda x: jnp.expm1(x * input_scale) * (alpha * scale),
                          lambda x: jnp.exp(x * input_scale) * (alpha * scale * input_scale))
    return jnp.where(pos, a * scale, neg)


_elu = P.unary("elu", _elu_f, static=("alpha", "scale", "input_scale"))


@register("elu", method=False, function=False, kind="activation")
def elu(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """`torch._C._nn.elu(input, alpha=1, scale=1, input_scale=1)`: scale * x for x > 0, else
    scale * alpha * (exp(input_scale * x) - 1); the gradient at 0 is the negative branch's, as PyTorch's."""
    _check("elu", input)
    _floating("elu_cpu", input)
    return _elu(input, alpha=float(alpha), scale=float(scale), input_scale=float(input_scale))


def selu(input):
    """`torch.selu(input)` / `torch.selu_`: elu with PyTorch's SELU constants (node EluBackward0)."""
    _check("selu", input)
    _floating("elu_cpu", input)
    return _elu(input, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)


def celu(input, alpha=1.0):
    """`torch.celu(input, alpha=1.0)` / `torch.celu_`: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _check("celu", input)
    _floating("elu_cpu", input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _elu(input, alpha=float(alpha), scale=1.0, input_scale=1.0 / float(alpha))


# ---- smooth units ------------------------------------------------------------------------------------------
def _gelu_f(a, approximate):
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (a + 0.044715 * a * a * a)
        return 0.5 * a * (1 + jnp.tanh(inner))
    return a * 0.5 * (1 + jax.scipy.special.erf(a * (1 / math.sqrt(2.0))))


_gelu = P.unary("gelu", _gelu_f, static=("approximate",))


@register("gelu", method=False, function=False, functional=True, kind="activation")
def gelu(input, approximate="none"):
    """`torch.nn.functional.gelu(input, approximate='none')`: x * Phi(x), or its tanh approximation."""
    _check("gelu", input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating("GeluKernelImpl", input)
    return _gelu(input, approximate=approximate)


def _silu_f(a):
    if jnp.iscomplexobj(a):
        return a / (1 + jnp.exp(-a))
    return a * jax.nn.sigmoid(a)


_silu = P.unary("silu", _silu_f)


@register("silu", method=False, function=False, kind="activation")
def silu(input):
    """`torch._C._nn.silu(input)`: x * sigmoid(x) (complex inputs too, as PyTorch's CPU kernel)."""
    _check("silu", input)
    _floating("silu_cpu", input, complex_ok=True)
    return _silu(input)


@jax.custom_jvp
def _mish_f(a):
    return a * jnp.tanh(jnp.log1p(jnp.exp(a)))


def _mish_jvp(primals, tangents):
    (a,), (t,) = primals, tangents
    tsp = jnp.tanh(jnp.log1p(jnp.exp(a)))
    return a * tsp, t * (tsp + a * jax.nn.sigmoid(a) * (1 - tsp * tsp))


_mish_f.defjvp(_mish_jvp)
_mish = P.unary("mish", _mish_f)


@register("mish", method=False, function=False, kind="activation")
def mish(input):
    """`torch._C._nn.mish(input)`: x * tanh(softplus(x))."""
    _check("mish", input)
    _floating("mish_cpu", input)
    return _mish(input)


def _hardswish_f(a):
    inside = (a > -3) & (a < 3)
    return jnp.where(inside, a * (a + 3) / 6, jnp.where(a >= 3, a, a * 0))


_hardswish = P.unary("hardswish", _hardswish_f)


@register("hardswish", method=False, function=False, kind="activation")
def hardswish(input):
    """`torch._C._nn.hardswish(input)`: x * relu6(x + 3) / 6; gradients as PyTorch's hardswish_backward
    (x / 3 + 1/2 on the open interval (-3, 3), 0 below, 1 from 3 on)."""
    _check("hardswish", input)
    _floating("hardswish_cpu", input)
    return _hardswish(input)


_no_hardsigmoid_dd = no_derivative("hardsigmoid_backward")


def _hardsigmoid_value(a):
    inside = (a > -3) & (a < 3)
    return jnp.where(inside, a / 6 + 0.5, jnp.where(a <= -3, jnp.zeros((), a.dtype), jnp.ones((), a.dtype)))


@jax.custom_jvp
def _hardsigmoid_f(a):
    return _hardsigmoid_value(a)


def _hardsigmoid_jvp(primals, tangents):
    (a,), (t,) = primals, tangents
    coef = _no_hardsigmoid_dd(jnp.where((a > -3) & (a < 3), 1 / 6, 0).astype(a.dtype), a)
    return _hardsigmoid_value(a), t * coef


_hardsigmoid_f.defjvp(_hardsigmoid_jvp)


_hardsigmoid = P.unary("hardsigmoid", _hardsigmoid_f)


@register("hardsigmoid", method=False, function=False, kind="activation")
def hardsigmoid(input):
    """`torch._C._nn.hardsigmoid(input)`: relu6(x + 3) / 6; gradient 1/6 on the open interval (-3, 3); no
    second derivative (PyTorch's error)."""
    _check("hardsigmoid", input)
    _floating("hardsigmoid_cpu", input)
    return _hardsigmoid(input)


# ---- shrinkage, threshold ----------------------------------------------------------------------------------
_hardshrink = P.unary("hardshrink", lambda a, lambd: jnp.where((a >= -lambd) & (a <= lambd),
                                                               jnp.zeros((), a.dtype), a), static=("lambd",))


@register("hardshrink", functional=True, kind="activation")
def hardshrink(input, lambd=0.5):
    """`torch.hardshrink(input, lambd=0.5)` / `Tensor.hardshrink`: 0 on [-lambd, lambd], else x."""
    _check("hardshrink", input)
    _floating("hardshrink_cpu", input)
    return _hardshrink(input, lambd=float(lambd))


def _softshrink_f(a, lambd):
    return jnp.where(a > lambd, a - lambd, jnp.where(a < -lambd, a + lambd, a * 0))


_softshrink = P.unary("softshrink", _softshrink_f, static=("lambd",))


@register("softshrink", method=False, function=False, functional=True, kind="activation")
def softshrink(input, lambd=0.5):
    """`torch._C._nn.softshrink(input, lambd=0.5)`: x - lambd above lambd, x + lambd below -lambd, else 0."""
    _check("softshrink", input)
    _floating("softshrink_check", input)
    if lambd < 0:
        hi = float(jnp.finfo(input._dtype.np).max)
        raise RuntimeError(f"lambda must be in range [0, {hi:g}] for input dtype {short_name(input._dtype)}, "
                           f"but found {lambd:g}")
    return _softshrink(input, lambd=float(lambd))


_tanhshrink = P.unary("tanhshrink", lambda a: a - jnp.tanh(a), kind=INT_TO_FLOAT, opmath=False)


@register("tanhshrink", method=False, function=False, functional=True, kind="activation",
          grad_name="SubBackward0")
def tanhshrink(input):
    """`torch.nn.functional.tanhshrink(input)`: x - tanh(x); integer inputs give the default float dtype."""
    _check("tanhshrink", input)
    if input._dtype is D.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _tanhshrink(input)


def _threshold_f(a, threshold, value):
    return jnp.where(a <= jnp.asarray(threshold, a.dtype), jnp.asarray(value, a.dtype), a)


_threshold = P.unary("threshold", _threshold_f, static=("threshold", "value"), opmath=False)


def threshold(input, threshold, value):
    """`torch.threshold(input, threshold, value)` / `torch.threshold_`: `value` where x <= threshold, else x
    (threshold and value cast to the input's dtype first, as PyTorch's kernel does)."""
    _check("threshold", input)
    d = input._dtype
    if d is D.bool_ or d.is_complex:
        raise _nyi("threshold_cpu", d)
    th, v = scalar_to(threshold, d).item(), scalar_to(value, d).item()
    return _threshold(input, threshold=th, value=v)


# ---- log-sigmoid, softsign, softplus -----------------------------------------------------------------------
_logsigmoid = P.unary("logsigmoid", lambda a: -jax.nn.softplus(-a))


@register("logsigmoid", method=False, function=False, functional=True, kind="activation",
          grad_name="LogSigmoidBackward0")
def logsigmoid(input):
    """`torch.nn.functional.logsigmoid(input)`: log(1 / (1 + exp(-x))), computed stably."""
    _check("logsigmoid", input)
    _floating("log_sigmoid_cpu", input)
    return _logsigmoid(input)


def _softsign_f(a):
    mag = S.abs_(a).astype(a.dtype) if jnp.iscomplexobj(a) else a * S.sgn(a)
    return a / (mag + 1)


_softsign = P.unary("softsign", _softsign_f, kind=INT_TO_FLOAT)


@register("softsign", method=False, function=False, functional=True, kind="activation",
          grad_name="DivBackward0")
def softsign(input):
    """`torch.nn.functional.softsign(input)`: x / (1 + |x|); integer inputs give the default float dtype."""
    _check("softsign", input)
    if input._dtype is D.bool_:
        raise _nyi("abs_cpu", D.bool_)
    return _softsign(input)


def _softplus_f(a, beta, threshold):
    """PyTorch's softplus: linear where beta * x > threshold; its double backward masks with < threshold."""
    over = a * beta > threshold
    safe = jnp.where(over, jnp.zeros((), a.dtype), a)
    soft = _linear_at_ends(safe, safe * beta < threshold, lambda x: jnp.log1p(jnp.exp(x * beta)) / beta,
                           lambda x: jax.nn.sigmoid(x * beta))
    return jnp.where(over, a, soft)


_softplus = P.unary("softplus", _softplus_f, static=("beta", "threshold"))


@register("softplus", method=False, function=False, functional=True, kind="activation")
def softplus(input, beta=1.0, threshold=20.0):
    """`torch._C._nn.softplus(input, beta=1, threshold=20)`: log(1 + exp(beta * x)) / beta, and x where
    beta * x > threshold."""
    _check("softplus", input)
    _floating("softplus_cpu", input)
    return _softplus(input, beta=float(beta), threshold=float(threshold))


# ---- in-place variants of the F-only ops (torch.nn.functional.elu_, ... and F's inplace=True) --------------
elu_ = inplace_variant("elu", elu, "EluBackward1")
selu_ = inplace_variant("selu", selu, "EluBackward1")
celu_ = inplace_variant("celu", celu, "CeluBackward1")
leaky_relu_ = inplace_variant("leaky_relu", leaky_relu, "LeakyReluBackward1")
hardtanh_ = inplace_variant("hardtanh", hardtanh)
relu6_ = inplace_variant("relu6", relu6, "HardtanhBackward0")
threshold_ = inplace_variant("threshold", threshold, "ThresholdBackward1")
silu_ = inplace_variant("silu", silu)
mish_ = inplace_variant("mish", mish)
hardswish_ = inplace_variant("hardswish", hardswish)
hardsigmoid_ = inplace_variant("hardsigmoid", hardsigmoid)

# torch.selu_/celu_/threshold_: PyTorch's in-place nodes are EluBackward1, CeluBackward1, ThresholdBackward1
register("selu", method=False, inplace=selu_, inplace_function=True, kind="activation",
         grad_name="EluBackward0")(selu)
register("celu", method=False, inplace=celu_, inplace_function=True, kind="activation")(celu)
register("threshold", method=False, inplace=threshold_, inplace_function=True, kind="activation")(threshold)

from . import _act_softmax  # noqa: E402,F401  (softmax, log_softmax, softmin, glu)

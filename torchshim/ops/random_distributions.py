"""Samplers and implicit-reparameterisation gradients that torch.distributions is built on:
`torch._standard_gamma`, `torch._standard_gamma_grad`, `torch._sample_dirichlet`, `torch._dirichlet_grad` and
`torch.binomial`.

Draws take one key from a Generator (the default one or `generator=`) like every torchshim sampler and run in
one jitted kernel; the streams differ from PyTorch's (same distributions). `_standard_gamma`'s result carries
PyTorch's implicit reparameterisation gradient d sample / d alpha = -(dF/dalpha) / (dF/dx) (F the Gamma CDF),
computed exactly by jax's `random_gamma_grad`; PyTorch evaluates the same quantity with a series/asymptotic
approximation, so the two agree to about 1e-4 relative, not to the last bit. `_dirichlet_grad` is the same
implicit gradient for the Beta marginal of a Dirichlet sample (see its docstring).
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import betainc, betaln, digamma

from .. import _device as Dev
from .. import _dtype as D
from .._promotion import short_name
from .._random import draw, make_key
from .._tensor import Tensor
from ..autograd._node import record
from ..autograd.grad_mode import is_grad_enabled
from . import _dispatch as P
from ._registry import register
from .sorting import _AD_TRACERS

_FLOATS = (D.float32, D.float64)


def _nyi(kernel, d):
    return NotImplementedError(f'"{kernel}" not implemented for \'{short_name(d)}\'')


def _no_derivative(exc, msg, *tensors):
    """PyTorch's error for an op without a derivative: raised when autograd replays the op under jax's
    differentiation (the node exists, as PyTorch's does, and its backward raises)."""
    if any(isinstance(t, Tensor) and isinstance(t._value, _AD_TRACERS) for t in tensors):
        raise exc(msg)


def _same_dtype(tensors):
    d = tensors[0]._dtype
    for t in tensors[1:]:
        if t._dtype is not d:
            raise RuntimeError(f"Found dtype {short_name(t._dtype)} but expected {short_name(d)}")
    return d


def _bshape(tensors):
    shapes = [t._shape for t in tensors]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        P.broadcast_error(shapes)
        raise


def _tiny(dt):
    return np.finfo(dt).tiny


# ---- kernels ----------------------------------------------------------------------------------------------
@P.kernel
def _gamma_k(raw, n, alpha):
    """Gamma(alpha, 1) draws, clamped below at the dtype's smallest normal number as PyTorch's sampler (an
    alpha <= 0 or NaN gives that number; alpha = inf gives inf)."""
    x = jax.random.gamma(make_key(raw, n), alpha, alpha.shape, alpha.dtype)
    x = jnp.where(x > _tiny(alpha.dtype), x, _tiny(alpha.dtype))
    return jnp.where(alpha == jnp.inf, jnp.inf, x)


@P.kernel
def _dirichlet_k(raw, n, alpha):
    """Dirichlet(alpha) draws over the last dimension: log-gamma draws normalised in log space (accurate for
    small concentrations), clamped to [smallest normal, 1] as PyTorch's sampler."""
    if alpha.ndim == 0:
        return jnp.full((), np.nextafter(alpha.dtype.type(1), alpha.dtype.type(0)), alpha.dtype)
    a = jnp.where(alpha > 0, alpha, _tiny(alpha.dtype))
    lg = jax.random.loggamma(make_key(raw, n), a, a.shape, a.dtype)
    x = jnp.exp(lg - jax.scipy.special.logsumexp(lg, axis=-1, keepdims=True))
    return jnp.clip(x, _tiny(alpha.dtype), np.nextafter(alpha.dtype.type(1), alpha.dtype.type(0)))


@P.kernel
def _binomial_k(raw, n, count, prob):
    """Binomial(count, prob) draws as floats: 0 where count <= 0 or prob <= 0, count where prob >= 1."""
    cnt = jnp.floor(jnp.where(count > 0, count, 0))
    p = jnp.clip(prob, 0, 1)
    draws = jax.random.binomial(make_key(raw, n), cnt, p, count.shape, count.dtype)
    out = jnp.where(prob >= 1, count, draws)
    return jnp.where((count <= 0) | (prob <= 0), jnp.zeros_like(count), out)


_SGG_MSG = "the derivative for '_standard_gamma_grad' is not implemented."


@jax.custom_jvp
def _gamma_grad_nd(alpha, x):
    """d x / d alpha of a Gamma(alpha, 1) sample x (exact, jax's random_gamma_grad); not differentiable, as
    PyTorch's `_standard_gamma_grad`."""
    return jax.lax.random_gamma_grad(alpha, x)


@_gamma_grad_nd.defjvp
def _gamma_grad_nd_jvp(primals, tangents):
    raise NotImplementedError(_SGG_MSG)


@jax.custom_vjp
def _with_gamma_grad(alpha, x):
    """x, whose cotangent flows to alpha as g * d x / d alpha (PyTorch's StandardGammaBackward0)."""
    return x


def _wgg_fwd(alpha, x):
    return x, (alpha, x)


def _wgg_bwd(res, g):
    alpha, x = res
    return g * _gamma_grad_nd(alpha, x), jnp.zeros_like(x)


_with_gamma_grad.defvjp(_wgg_fwd, _wgg_bwd)


def _gamma_forward(arrays):
    return (_with_gamma_grad(arrays[0], arrays[1]),)


# ---- ops --------------------------------------------------------------------------------------------------
@register("_standard_gamma", method=False, kind="composite")
def _standard_gamma(input, generator=None):
    """`torch._standard_gamma(input, generator=None)`: Gamma(input, 1) draws (float32/float64), clamped below
    at the smallest normal number as PyTorch. An input requiring grad gives a result with PyTorch's
    `StandardGammaBackward0` node: the gradient is grad * d sample / d alpha (the implicit reparameterisation
    gradient, exact here; PyTorch's approximation differs by about 1e-4 relative). Its second derivative
    raises NotImplementedError as in PyTorch."""
    if input._dtype not in _FLOATS:
        raise _nyi("gamma_cpu", input._dtype)
    dev = input._storage.device
    raw, n = draw(generator)
    with jax.default_device(Dev.to_jax(dev)):
        arr = _gamma_k(raw, n, input._value)
    out = P.fresh(arr, input._dtype, dev)
    if is_grad_enabled() and input.requires_grad:
        sample = P.fresh(arr, input._dtype, dev)
        record("StandardGammaBackward0", [input, sample], [out], _gamma_forward, ("_standard_gamma",),
               saves="inputs", slots=[0])
    return out


def _sgg_grad_name(args, kwargs):
    self = args[0] if args else kwargs.get("self")
    return "StandardGammaGradBackward0" if isinstance(self, Tensor) and self.requires_grad else None


@register("_standard_gamma_grad", method=False, kind="random_grad", grad_name=_sgg_grad_name)
def _standard_gamma_grad(self, output):
    """`torch._standard_gamma_grad(self, output)`: d output / d self for Gamma(self, 1) samples `output` (the
    implicit reparameterisation gradient; broadcast, float32/float64 of one dtype). Exact (jax's
    random_gamma_grad); PyTorch's approximation differs by about 1e-4 relative. Not differentiable (backward
    raises NotImplementedError, as PyTorch)."""
    _no_derivative(NotImplementedError, _SGG_MSG, self)
    d = _same_dtype([self, output])
    if d not in _FLOATS:
        raise _nyi("_standard_gamma_grad_cpu", d)
    shape = _bshape([self, output])
    a = jnp.broadcast_to(jax.lax.stop_gradient(self._value), shape)
    x = jnp.broadcast_to(jax.lax.stop_gradient(output._value), shape)
    return P.fresh(_sgg_k(a, x), d, self._storage.device)


@P.kernel
def _sgg_k(a, x):
    return jax.lax.random_gamma_grad(a, x)


@register("_sample_dirichlet", method=False, kind="random_grad", grad_name="NotImplemented")
def _sample_dirichlet(input, generator=None):
    """`torch._sample_dirichlet(input, generator=None)`: Dirichlet(input) draws over the last dimension
    (float32/float64; a 0-dim input gives 1). No derivative: backward raises PyTorch's RuntimeError (Dirichlet
    .rsample differentiates through `_dirichlet_grad` instead)."""
    _no_derivative(RuntimeError, "derivative for aten::_sample_dirichlet is not implemented", input)
    if input._dtype not in _FLOATS:
        raise _nyi("dirichlet", input._dtype)
    dev = input._storage.device
    raw, n = draw(generator)
    with jax.default_device(Dev.to_jax(dev)):
        arr = _dirichlet_k(raw, n, input._value)
    return P.fresh(arr, input._dtype, dev)


@P.kernel
def _dirichlet_grad_k(x, alpha, total):
    """d x / d alpha / (1 - x) for x ~ Beta(alpha, total - alpha) with the other parameter held fixed, by
    the implicit function theorem on the regularised incomplete beta function I: -(dI/dalpha) / (pdf(x) (1 -
    x)). dI/dalpha is a 4-point central difference of jax's betainc (computed in float64 in the tail below
    the mean, where betainc is relatively accurate); x = 1 gives its limit (digamma(total) -
    digamma(alpha)) / (total - alpha), x = 0 gives 0."""
    dt = x.dtype
    x, a, t = (v.astype(jnp.float64) for v in (x, alpha, total))
    b = t - a
    flip = x > a / t
    y = jnp.where(flip, 1 - x, x)
    p, q = jnp.where(flip, b, a), jnp.where(flip, a, b)
    h = 1e-3 * jnp.where(flip, q, p)
    yc = jnp.clip(y, 1e-300, 1.0)

    def inc(k):  # I_y with alpha moved by k*h (alpha is q when flipped: I_x(a, b) = 1 - I_{1-x}(b, a))
        return betainc(jnp.where(flip, p, p + k * h), jnp.where(flip, q + k * h, q), yc)

    dI = (8 * (inc(1) - inc(-1)) - (inc(2) - inc(-2))) / (12 * h)
    dI = jnp.where(flip, -dI, dI)
    logpdf = (p - 1) * jnp.log(yc) + (q - 1) * jnp.log1p(-yc) - betaln(p, q)
    g = -dI / jnp.exp(logpdf) / (1 - x)
    edge = (digamma(t) - digamma(a)) / b
    g = jnp.where(x >= 1, edge, jnp.where(x <= 0, 0.0, g))
    return g.astype(dt)


@register("_dirichlet_grad", method=False, kind="random_grad", grad_name="NotImplemented")
def _dirichlet_grad(x, alpha, total):
    """`torch._dirichlet_grad(x, alpha, total)`: the implicit reparameterisation gradient of Dirichlet
    samples `x` (PyTorch's `_Dirichlet_backward` multiplies it by `grad - (x * grad).sum(-1)`): d x / d alpha
    / (1 - x) for x ~ Beta(alpha, total - alpha), the other parameter held fixed. Computed from jax's
    incomplete beta function (see `_dirichlet_grad_k`): it agrees with PyTorch's closed-form approximations to
    about 1e-11 where those are exact and to about 1e-3 relative where PyTorch approximates (large
    concentrations). Broadcast, float32/float64 of one dtype; backward raises as in PyTorch."""
    _no_derivative(RuntimeError, "derivative for aten::_dirichlet_grad is not implemented", x, alpha, total)
    d = _same_dtype([x, alpha, total])
    if d not in _FLOATS:
        raise _nyi("_dirichlet_grad_cpu", d)
    shape = _bshape([x, alpha, total])
    args = [jnp.broadcast_to(jax.lax.stop_gradient(t._value), shape) for t in (x, alpha, total)]
    return P.fresh(_dirichlet_grad_k(*args), d, x._storage.device)


@register("binomial", method=False, kind="random_grad", grad_name="NotImplemented")
def binomial(count, prob, generator=None):
    """`torch.binomial(count, prob, generator=None)`: Binomial(count, prob) draws in count's dtype
    (float32/float64, prob of the same dtype; broadcast). count <= 0 or prob <= 0 gives 0, prob >= 1 gives
    count (PyTorch never returns for NaN parameters; torchshim returns a value). Backward raises PyTorch's
    RuntimeError."""
    _no_derivative(RuntimeError, "derivative for aten::binomial is not implemented", count, prob)
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            pos = 1 if name == "count" else 2
            raise TypeError(f"binomial(): argument '{name}' (position {pos}) must be Tensor, not "
                            f"{type(t).__name__}")
        if not t._dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{short_name(t._dtype)}")
    d = _same_dtype([count, prob])
    if d not in _FLOATS:
        raise _nyi("binomial_cpu", d)
    shape = _bshape([count, prob])
    dev = P.check_devices([count, prob])
    raw, n = draw(generator)
    with jax.default_device(Dev.to_jax(dev)):
        return P.fresh(_binomial_k(raw, n, jnp.broadcast_to(count._value, shape),
                                   jnp.broadcast_to(prob._value, shape)), d, dev)

"""torch.nn.functional ops, normalization: batch_norm, layer_norm, group_norm, instance_norm,
local_response_norm, rms_norm (F.normalize is a Python composite in torchshim/nn/functional/normalization.py).

Each normalization is one jitted kernel; statistics of float16/bfloat16 inputs are computed in float32 and the
result rounded once, as PyTorch's CPU kernels. Gradients are jax's derivatives of these forwards (the batch
statistics included), i.e. PyTorch's native_*_backward formulas.

batch_norm is a composite: the differentiable op (`native_batch_norm`, node NativeBatchNormBackward0) returns
the output and the batch statistics, and the running statistics are then updated in place under no_grad with
the momentum and the unbiased variance, like PyTorch. instance_norm is PyTorch's own composite (a batch_norm
of the input viewed as (1, N*C, ...)), so its history is PyTorch's too (ViewBackward0 over NativeBatchNorm).
"""
import math
import operator

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import short_name
from ..autograd._ops import differentiable
from ..autograd.grad_mode import no_grad
from . import _dispatch as P
from ._registry import register

_REDUCED = (D.float16, D.bfloat16)


def _nyi(kernel_name, d):
    return NotImplementedError(f'"{kernel_name}" not implemented for \'{short_name(d)}\'')


def _opmath(d):
    return D.float32 if d in _REDUCED else d


def _check_mixed(input, params):
    """PyTorch's CPU rule for normalization parameters of another dtype than the input: allowed only as
    float32 parameters of a float16/bfloat16 input."""
    params = [p for p in params if p is not None]
    if not params or params[0]._dtype is input._dtype:
        return
    if input._dtype is D.float64:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for p in params:
        if p._dtype is not D.float32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")


def _arr(t):
    return None if t is None else t._value


def _shape_list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _normalized_shape(name, normalized_shape):
    if isinstance(normalized_shape, int):
        raise TypeError(f"{name}(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    return tuple(operator.index(s) for s in normalized_shape)


# ---- batch_norm --------------------------------------------------------------------------------------------
@P.kernel(static=("training", "eps", "cdt", "rdt"))
def _bn_k(x, w, b, rm, rv, *, training, eps, cdt, rdt):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    xc = x.astype(cdt)
    if training:
        mean = jnp.mean(xc, axes, keepdims=True)
        var = jnp.mean(jnp.square(xc - mean), axes, keepdims=True)
    else:
        mean, var = rm.astype(cdt).reshape(shape), rv.astype(cdt).reshape(shape)
    out = (xc - mean) * jax.lax.rsqrt(var + eps)
    if w is not None:
        out = out * w.astype(cdt).reshape(shape)
    if b is not None:
        out = out + b.astype(cdt).reshape(shape)
    n = math.prod(x.shape) // max(x.shape[1], 1) if x.ndim > 1 else 1
    unbiased = var * (n / (n - 1)) if n > 1 else var * jnp.inf
    return out.astype(rdt), mean.reshape(-1), unbiased.reshape(-1)


def _native_batch_norm(input, weight, bias, running_mean, running_var, training, eps):
    cdt = _opmath(input._dtype)
    out, mean, var = _bn_k(input._value, _arr(weight), _arr(bias), _arr(running_mean), _arr(running_var),
                           training=bool(training), eps=float(eps), cdt=cdt.np, rdt=input._dtype.np)
    dev = input._storage.device
    return P.fresh(out, input._dtype, dev), P.fresh(mean, cdt, dev), P.fresh(var, cdt, dev)


_bn_core = differentiable("native_batch_norm", _native_batch_norm)


@P.kernel(static=("momentum",))
def _ema_k(running, stat, *, momentum):
    return (stat.astype(running.dtype) * momentum + running * (1 - momentum)).astype(running.dtype)


def _update(running, stat, momentum):
    with no_grad():
        running._assign_from(_ema_k(running._value, stat._value, momentum=float(momentum)), "copy_")


def _check_features(name, num_features, t):
    if t is not None and t.numel() != num_features:
        raise RuntimeError(f"{name} should contain {num_features} elements not {t.numel()}")


@register("batch_norm", method=False, kind="composite")
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    """`torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
    cudnn_enabled)`: normalize each channel (dim 1) by the batch statistics (training) or the running ones;
    in training, running_mean/var (when given) are updated in place with `momentum` and the unbiased batch
    variance. `F.batch_norm`'s argument order and checks are in nn/functional/normalization.py."""
    num_features = input._shape[1] if input.ndim > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None:
            _check_features(name, num_features, t)
        elif not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    _check_features("weight", num_features, weight)
    _check_features("bias", num_features, bias)
    if not input._dtype.is_floating_point:
        raise _nyi("batch_norm", input._dtype)
    for pos, (name, v) in enumerate((("momentum", momentum), ("eps", eps)), 7):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"batch_norm(): argument '{name}' (position {pos}) must be float, not "
                            f"{type(v).__name__}")
    _check_mixed(input, (weight, bias, running_mean, running_var))
    # training normalises with the batch statistics: the running buffers (updated in place below) are not
    # inputs of the differentiable op, so the in-place update does not invalidate its saved tensors
    stats = (None, None) if training else (running_mean, running_var)
    out, mean, var = _bn_core(input, weight, bias, *stats, training, eps)
    if training:
        if running_mean is not None:
            _update(running_mean, mean, momentum)
        if running_var is not None:
            _update(running_var, var, momentum)
    return out


# ---- instance_norm (PyTorch's composite) -------------------------------------------------------------------
@register("instance_norm", method=False, kind="composite")
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled=True):
    """`torch.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
    cudnn_enabled)`: batch_norm of the input viewed as (1, N*C, ...); running statistics (when given) get the
    mean over the batch of the per-instance updates."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats "
                           "is false")
    b, c = input._shape[0], input._shape[1]
    shape = (1, b * c) + tuple(input._shape[2:])
    rep = [None if t is None else t.repeat(b) for t in (weight, bias, running_mean, running_var)]
    out = batch_norm(input.contiguous().view(shape), rep[0], rep[1], rep[2], rep[3], use_input_stats,
                     momentum, eps, cudnn_enabled)
    with no_grad():
        for running, repeated in ((running_mean, rep[2]), (running_var, rep[3])):
            if running is not None:
                running._assign_from(repeated.view(b, c).mean(0, False), "copy_")
    return out.view(input._shape)


# ---- layer_norm, rms_norm, group_norm ----------------------------------------------------------------------
def _check_normalized(name, input, ns, weight, bias):
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                           f"least one element, but got normalized_shape = {_shape_list(ns)}")
    for pname, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p._shape) != ns:
            raise RuntimeError(f"Expected {pname} to be of same shape as normalized_shape, but got {pname} "
                               f"of shape {_shape_list(p._shape)} and normalized_shape = {_shape_list(ns)}")
    if input.ndim < len(ns) or tuple(input._shape[input.ndim - len(ns):]) != ns:
        star = "[*, " + _shape_list(ns)[1:] if name == "layer_norm" else "[*" + _shape_list(ns)[1:]
        raise RuntimeError(f"Given normalized_shape={_shape_list(ns)}, expected input with shape {star}, but "
                           f"got input of size{_shape_list(input._shape)}")


@P.kernel(static=("nd", "eps", "cdt", "rdt"))
def _ln_k(x, w, b, *, nd, eps, cdt, rdt):
    axes = tuple(range(x.ndim - nd, x.ndim))
    xc = x.astype(cdt)
    mean = jnp.mean(xc, axes, keepdims=True)
    var = jnp.mean(jnp.square(xc - mean), axes, keepdims=True)
    out = (xc - mean) * jax.lax.rsqrt(var + eps)
    if w is not None:
        out = out * w.astype(cdt)
    if b is not None:
        out = out + b.astype(cdt)
    return out.astype(rdt)


@register("layer_norm", method=False, functional=True, kind="normalization",
          grad_name="NativeLayerNormBackward0")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """`torch.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True)` and
    `F.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05)`: normalize over the last
    len(normalized_shape) dims (biased variance), then scale and shift."""
    ns = _normalized_shape("layer_norm", normalized_shape)
    _check_normalized("layer_norm", input, ns, weight, bias)
    if not input._dtype.is_floating_point:
        raise _nyi("LayerNormKernelImpl", input._dtype)
    _check_mixed(input, (weight, bias))
    out = _ln_k(input._value, _arr(weight), _arr(bias), nd=len(ns), eps=float(eps),
                cdt=_opmath(input._dtype).np, rdt=input._dtype.np)
    return P.fresh(out, input._dtype, input._storage.device)


@P.kernel(static=("nd", "eps", "cdt", "rdt"))
def _rms_k(x, w, *, nd, eps, cdt, rdt):
    axes = tuple(range(x.ndim - nd, x.ndim))
    xc = x.astype(cdt)
    out = (xc * jax.lax.rsqrt(jnp.mean(xc * xc, axes, keepdims=True) + eps)).astype(rdt)
    return out if w is None else out * w.astype(rdt)


@register("rms_norm", method=False, functional=True, kind="normalization", grad_name="MulBackward0")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """`torch.rms_norm(input, normalized_shape, weight=None, eps=None)` / `F.rms_norm`: x / sqrt(mean(x**2) +
    eps) over the last dims, times weight; eps=None is the machine epsilon of the computation dtype (float32
    for float16/bfloat16 inputs). A weight of another dtype is cast to the input's (PyTorch warns for some
    combinations; torchshim doesn't)."""
    ns = _normalized_shape("rms_norm", normalized_shape)
    _check_normalized("rms_norm", input, ns, weight, None)
    if not (input._dtype.is_floating_point or input._dtype.is_complex):
        raise _nyi("rms_norm", input._dtype)
    cdt = _opmath(input._dtype)
    e = float(jnp.finfo(cdt.np).eps) if eps is None else float(eps)
    out = _rms_k(input._value, _arr(weight), nd=len(ns), eps=e, cdt=cdt.np, rdt=input._dtype.np)
    return P.fresh(out, input._dtype, input._storage.device)


@P.kernel(static=("groups", "eps", "cdt", "rdt"))
def _gn_k(x, w, b, *, groups, eps, cdt, rdt):
    n, c = x.shape[0], x.shape[1]
    xc = x.astype(cdt).reshape(n, groups, -1)
    mean = jnp.mean(xc, 2, keepdims=True)
    var = jnp.mean(jnp.square(xc - mean), 2, keepdims=True)
    out = ((xc - mean) * jax.lax.rsqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        out = out * w.astype(cdt).reshape(shape)
    if b is not None:
        out = out + b.astype(cdt).reshape(shape)
    return out.astype(rdt)


@register("group_norm", method=False, kind="normalization", grad_name="NativeGroupNormBackward0")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """`torch.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True)`: normalize
    each group of C / num_groups channels of each sample, then scale and shift per channel. `F.group_norm`'s
    extra checks are in nn/functional/normalization.py."""
    c = input._shape[1] if input.ndim > 1 else 1
    if c % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got "
                           f"input of shape {_shape_list(input._shape)} and num_groups={num_groups}")
    for pname, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.numel() != c):
            shown = weight._shape if weight is not None else (0,)  # PyTorch prints weight's shape for both
            raise RuntimeError(f"Expected {pname} to be a vector of size equal to the number of channels in "
                               f"input, but got {pname} of shape {_shape_list(shown)} and input of shape "
                               f"{_shape_list(input._shape)}")
    if not input._dtype.is_floating_point:
        raise _nyi("GroupNormKernelImpl", input._dtype)
    _check_mixed(input, (weight, bias))
    if input.numel() == 0:
        return P.fresh(jnp.zeros(input._shape, input._dtype.np), input._dtype, input._storage.device)
    out = _gn_k(input._value, _arr(weight), _arr(bias), groups=int(num_groups), eps=float(eps),
                cdt=_opmath(input._dtype).np, rdt=input._dtype.np)
    return P.fresh(out, input._dtype, input._storage.device)


# ---- local_response_norm -----------------------------------------------------------------------------------
@P.kernel(static=("size", "alpha", "beta", "k", "cdt", "rdt"))
def _lrn_k(x, *, size, alpha, beta, k, cdt, rdt):
    xc = x.astype(cdt)
    sq = xc * xc
    c = x.shape[1]
    pad = [(0, 0)] * x.ndim
    pad[1] = (size // 2, (size - 1) // 2)
    padded = jnp.pad(sq, pad)
    total = sum(jax.lax.slice_in_dim(padded, i, i + c, axis=1) for i in range(size))
    div = (total / size * alpha + k) ** beta
    return (xc / div).astype(rdt)


@register("local_response_norm", method=False, function=False, functional=True, kind="normalization",
          grad_name="DivBackward0")
def local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    """`F.local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0)`: x / (k + alpha * mean of x**2 over
    a window of `size` channels (zero padded)) ** beta. An empty input is returned as is."""
    if input.ndim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          input (got "
                         f"{input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    if input.ndim > 3 and input._dtype in _REDUCED:
        raise _nyi("avg_pool3d_out_frame", input._dtype)
    cdt = _opmath(input._dtype) if input._dtype.is_floating_point else D.get_default_dtype()
    rdt = input._dtype if input._dtype.is_floating_point else cdt
    out = _lrn_k(input._value, size=int(size), alpha=float(alpha), beta=float(beta), k=float(k), cdt=cdt.np,
                 rdt=rdt.np)
    return P.fresh(out, rdt, input._storage.device)

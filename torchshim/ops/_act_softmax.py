"""The softmax family and glu (table entries of the activations, imported by torchshim/ops/nn_activation.py):
softmax, log_softmax, softmin (PyTorch's `(-x).softmax`, node SoftmaxBackward0) and glu. One jitted kernel
each; 16-bit inputs are computed in float32, except that PyTorch rounds log_softmax's sum and its log to the
16-bit type along the last dim, which is reproduced."""
import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._tensor import _wrap_dim
from . import _dispatch as P
from ._registry import register
from .nn_activation import _check, _floating, _nyi

__all__ = ["softmax_dim_kernel"]


# ---- softmax family ----------------------------------------------------------------------------------------
def _log_softmax_rounded(a, dim, rdt):
    """PyTorch's 16-bit log_softmax along the last dim: the sum and its log are rounded to the 16-bit type."""
    m = jax.lax.stop_gradient(jnp.max(a, dim, keepdims=True))
    s = jnp.sum(jnp.exp(a - m), dim, keepdims=True).astype(rdt).astype(a.dtype)
    return a - m - jnp.log(s).astype(rdt).astype(a.dtype)


@P.kernel(static=("dim", "log", "neg", "cdt", "rdt"))
def _softmax_k(a, *, dim, log, neg, cdt, rdt):
    if neg:
        a = -a
    a = a.astype(cdt)
    scalar = a.ndim == 0
    if scalar:
        a = a[None]
    if log and np.dtype(rdt) != np.dtype(cdt) and dim == a.ndim - 1:
        r = _log_softmax_rounded(a, dim, rdt)
    else:
        r = jax.nn.log_softmax(a, axis=dim) if log else jax.nn.softmax(a, axis=dim)
    return (r[0] if scalar else r).astype(rdt)


def softmax_dim_kernel(input, dim, dtype, log=False, neg=False):
    """softmax/log_softmax of `input` along `dim` (cast to `dtype` first when given): PyTorch's checks."""
    name = "log_softmax" if log else "softmax"
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    d = _wrap_dim(dim, input.ndim) % max(input.ndim, 1)
    rdt = input._dtype if dtype is None else dtype
    if input.numel() == 0:
        return P.fresh(jnp.zeros(input._shape, rdt.np), rdt, input._storage.device)
    if not rdt.is_floating_point:
        last = "lastdim_" if d == max(input.ndim - 1, 0) else ""
        raise _nyi(f"{name}_{last}kernel_impl", rdt)
    cdt = D.float32 if rdt in (D.float16, D.bfloat16) else rdt
    out = _softmax_k(input._value, dim=d, log=log, neg=neg, cdt=cdt.np, rdt=rdt.np)
    return P.fresh(out, rdt, input._storage.device)


@register("softmax", kind="activation")
def softmax(input, dim, dtype=None):
    """`torch.softmax(input, dim, dtype=None)` / `Tensor.softmax(dim, dtype=None)`: exp(x) / sum(exp(x)) along
    dim (input cast to `dtype` first when given). `F.softmax`'s implicit dim is in nn/functional."""
    _check("softmax", input)
    return softmax_dim_kernel(input, dim, dtype)


@register("log_softmax", kind="activation")
def log_softmax(input, dim, dtype=None):
    """`torch.log_softmax(input, dim, dtype=None)` / `Tensor.log_softmax`: x - logsumexp(x) along dim."""
    _check("log_softmax", input)
    return softmax_dim_kernel(input, dim, dtype, log=True)


@register("softmin", method=False, function=False, kind="activation", grad_name="SoftmaxBackward0")
def softmin(input, dim, dtype=None):
    """softmax(-input, dim, dtype) (PyTorch's node is SoftmaxBackward0); `F.softmin`'s implicit dim is in
    nn/functional."""
    _check("softmin", input)
    if input._dtype is D.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return softmax_dim_kernel(input, dim, dtype, neg=True)


@P.kernel(static=("dim", "cdt", "rdt"))
def _glu_k(a, *, dim, cdt, rdt):
    a = a.astype(cdt)
    x, g = jnp.split(a, 2, axis=dim)
    return (x * jax.nn.sigmoid(g)).astype(rdt)


@register("glu", method=False, function=False, functional=True, kind="activation")
def glu(input, dim=-1):
    """`torch.nn.functional.glu(input, dim=-1)`: a * sigmoid(b) with input split in halves a, b along dim."""
    _check("glu", input)
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, input.ndim)
    if input._shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input._shape[d]}")
    _floating("glu_cpu", input)
    cdt = D.float32 if input._dtype in (D.float16, D.bfloat16) else input._dtype
    return P.fresh(_glu_k(input._value, dim=d, cdt=cdt.np, rdt=input._dtype.np), input._dtype,
                   input._storage.device)

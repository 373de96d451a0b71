"""torch.nn.functional ops, distances: cosine_similarity, pairwise_distance, pdist (`torch.cdist` is in
linalg.py).

Each is one jitted kernel with PyTorch 2.13's formula: pairwise_distance is `norm(x1 - x2 + eps, p, last
dim)`,
cosine_similarity normalizes each input by its norm clamped at eps (a clamp invisible to the gradient, as
PyTorch's no_grad `clamp_min_`) before the dot product, pdist is the p-norm of every row difference (upper
triangle, row-major) and, as PyTorch's `_pdist_backward`, has no second derivative.
"""
from functools import partial

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import short_name
from .._tensor import _wrap_dim
from . import _dispatch as P
from . import _subgrad as S
from ._loss_common import (Like, bool_sub_error, broadcast_shape, device_of, not_implemented,
                           once_differentiable, opmath, rnd, rt)
from ._registry import register

__all__ = ["check_pairwise"]


def check_pairwise(x1, x2):
    """dtype of `x1 - x2 + eps` (PyTorch's errors for bool operands)."""
    b1, b2 = x1._dtype is D.bool_, x2._dtype is D.bool_
    if b1 or b2:
        raise bool_sub_error(b1 and b2)
    return rt(Like(rt(x1, x2), max(x1.ndim, x2.ndim)), 1e-6)


@partial(P.kernel, static=("p", "eps", "keepdim", "sdt", "dt", "rdt"))
def _pairwise_k(a, b, *, p, eps, keepdim, sdt, dt, rdt):
    nd = max(a.ndim, b.ndim)
    oc = opmath(dt)
    d = rnd(a.astype(opmath(sdt)) - b.astype(opmath(sdt)), sdt).astype(oc)
    d = rnd(d + eps, dt)
    dim = nd - 1 if nd else 0
    if nd == 0:
        r = S.vector_norm(d, p, (), False)
    else:
        r = S.vector_norm(d, p, (dim,), keepdim)
    return r.astype(rdt)


@register("pairwise_distance", method=False, functional=True, kind="distance", grad_name="NormBackward1")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """`torch.pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False)`: the p-norm of `x1 - x2 + eps` over
    the last dim of the broadcast inputs (p may be any float, inf, -inf, 0). Complex inputs give a real
    result."""
    dt = check_pairwise(x1, x2)
    sdt = rt(x1, x2)
    broadcast_shape(x1._shape, x2._shape)
    rdt = dt.to_real() if dt.is_complex else dt
    r = _pairwise_k(x1._value, x2._value, p=float(p), eps=float(eps), keepdim=bool(keepdim), sdt=sdt.np,
                    dt=dt.np, rdt=rdt.np)
    return P.fresh(r, rdt, device_of(x1))


@partial(P.kernel, static=("dim", "eps", "dt"))
def _cosine_k(a, b, *, dim, eps, dt):
    oc = opmath(dt)
    a, b = jnp.broadcast_arrays(a.astype(oc), b.astype(oc))
    dims = () if dim is None else (dim,)

    def normed(x):
        n = rnd(S.vector_norm(x, 2.0, dims, True), dt)
        n = n + jax.lax.stop_gradient(jnp.maximum(n, eps) - n)  # clamp_min_ under no_grad
        return rnd(x / n, dt)
    r = jnp.sum(rnd(normed(a) * normed(b), dt), dims)
    return r.astype(dt)


@register("cosine_similarity", method=False, functional=True, kind="distance", grad_name="SumBackward1")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """`torch.cosine_similarity(x1, x2, dim=1, eps=1e-8)`: sum over `dim` of (x1 / max(|x1|, eps)) *
    (x2 / max(|x2|, eps)), inputs broadcast; the common dtype must be floating (integer inputs are
    converted)."""
    d = rt(x1, x2)
    if not d.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {short_name(d)}")
    shape = broadcast_shape(x1._shape, x2._shape)
    k = _wrap_dim(int(dim), len(shape))
    r = _cosine_k(x1._value, x2._value, dim=k if shape else None, eps=float(eps), dt=d.np)
    return P.fresh(r, d, device_of(x1))


def _pdist_value(x, p):
    n = x.shape[0]
    i, j = jnp.triu_indices(n, 1)
    diff = x[i] - x[j]
    return S.vector_norm(diff, p, (1,), False)


@partial(P.kernel, static=("p",))
def _pdist_k(x, *, p):
    if x.shape[0] <= 1:
        return jnp.zeros((0,), x.dtype)
    if x.shape[1] == 0:
        return jnp.zeros((x.shape[0] * (x.shape[0] - 1) // 2,), x.dtype)
    return once_differentiable(lambda a: _pdist_value(a, p), (x,), (), NotImplementedError,
                               "the derivative for '_pdist_backward' is not implemented.")


@register("pdist", method=False, functional=True, kind="distance")
def pdist(input, p=2):
    """`torch.pdist(input, p=2)`: the p-norm distance between each pair of rows of a 2-D input, the upper
    triangle of `cdist(input, input)` row by row. float32/float64 only; no second derivative (PyTorch's
    `_pdist_backward` has none)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    d = input._dtype
    if not d.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if d in (D.float16, D.bfloat16):
        raise not_implemented("pdist", d)
    return P.fresh(_pdist_k(input._value, p=float(p)), d, device_of(input))

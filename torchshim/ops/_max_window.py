"""Max pooling over regular windows (max_pool1d/2d/3d) as XLA window reductions.

- Values: `lax.reduce_window(max)` — one pass, NaN-propagating like PyTorch's kernel.
- Indices (`*_with_indices`, and the gradient): a variadic `reduce_window` over (value, flat index) pairs
whose
  reducer is a total order — NaN above every number, the last NaN first among NaNs, then the larger value,
  then the smaller index — so the result does not depend on XLA's reduction order and equals PyTorch's scan:
  the first maximum in row-major window order, the last NaN when there is one, and the first valid element of
  a window whose values are all the lowest one (padding carries the largest index, so it never wins a tie).
- Gradient: `custom_jvp` whose tangent is gathered at those indices, so reverse mode scatters each cotangent
to
  exactly PyTorch's index (ties included); jax's own rule for `reduce_window(max)` (select_and_scatter) picks
  other elements on ties and NaNs and is slower on CPU. Second derivatives are zero, as in PyTorch.

Window positions are never materialised as constants (an iota gives each element's flat index), which keeps
XLA's compile time to a fraction of a second for any input size.
"""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from .._fused import jit as _fjit

__all__ = ["max_pool", "max_pool_with_indices", "max_pool_values", "max_pool_indices", "lowest"]

_NO_INDEX = np.iinfo(np.int64).max


def lowest(dt):
    """The lowest value of dtype `dt` (-inf for floats), a 0-d array: the identity of max."""
    return jnp.array(-jnp.inf if jnp.issubdtype(dt, jnp.floating) else jnp.iinfo(dt).min, dt)


def _geometry(shape, kernel, stride, padding, dilation, out):
    """reduce_window arguments over all dims of `shape` (the last len(kernel) are spatial)."""
    lead = len(shape) - len(kernel)
    sp = shape[lead:]
    high = [max(0, (out[j] - 1) * stride[j] + (kernel[j] - 1) * dilation[j] + 1 - sp[j] - padding[j])
            for j in range(len(kernel))]
    return dict(window_dimensions=(1,) * lead + tuple(kernel), window_strides=(1,) * lead + tuple(stride),
                padding=((0, 0),) * lead + tuple(zip(padding, high)),
                window_dilation=(1,) * lead + tuple(dilation))


def _crop(y, out):
    return y[(Ellipsis,) + tuple(slice(0, o) for o in out)]


def _pick(a, b):
    """The pair PyTorch's scan ends on, of two (value, index) pairs (commutative and associative)."""
    (v1, i1), (v2, i2) = a, b
    if jnp.issubdtype(v1.dtype, jnp.floating):
        n1, n2 = jnp.isnan(v1), jnp.isnan(v2)
        first = jnp.where(n1 & n2, i1 > i2, jnp.where(n1 | n2, n1, jnp.where(v1 == v2, i1 < i2, v1 > v2)))
    else:
        first = jnp.where(v1 == v2, i1 < i2, v1 > v2)
    return jnp.where(first, v1, v2), jnp.where(first, i1, i2)


def _plane_index(shape, nd):
    """Each element's flat index within its spatial plane (row-major over the last nd dims)."""
    sp = shape[len(shape) - nd:]
    idx = lax.broadcasted_iota(jnp.int64, sp, 0)
    for j in range(1, nd):
        idx = idx * sp[j] + lax.broadcasted_iota(jnp.int64, sp, j)
    return jnp.broadcast_to(idx, shape)


def max_pool_indices(x, kernel, stride, padding, dilation, out):
    """PyTorch's max-pool indices (flat positions in each input plane), int64, shape x.shape[:-nd] + out."""
    x = lax.stop_gradient(x)
    geo = _geometry(x.shape, kernel, stride, padding, dilation, out)
    _, idx = lax.reduce_window((x, _plane_index(x.shape, len(kernel))),
                               (lowest(x.dtype), jnp.array(_NO_INDEX, jnp.int64)), _pick, **geo)
    return _crop(idx, out)


def _gather(x, idx, nd):
    lead = x.shape[:x.ndim - nd]
    flat = x.reshape(lead + (int(np.prod(x.shape[x.ndim - nd:])),))
    pos = idx.reshape(lead + (int(np.prod(idx.shape[idx.ndim - nd:])),))
    return jnp.take_along_axis(flat, pos, axis=-1).reshape(idx.shape)


@partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3, 4, 5))
def max_pool_values(x, kernel, stride, padding, dilation, out):
    """Max over each window (PyTorch's max_pool values); differentiable as PyTorch's (see module doc)."""
    geo = _geometry(x.shape, kernel, stride, padding, dilation, out)
    return _crop(lax.reduce_window(x, lowest(x.dtype), lax.max, **geo), out)


@max_pool_values.defjvp
def _max_pool_values_jvp(kernel, stride, padding, dilation, out, primals, tangents):
    (x,), (t,) = primals, tangents
    idx = max_pool_indices(x, kernel, stride, padding, dilation, out)
    return max_pool_values(x, kernel, stride, padding, dilation, out), _gather(t, idx, len(kernel))


@partial(_fjit, static_argnames=("kernel", "stride", "padding", "dilation", "out"))
def max_pool_with_indices(x, kernel, stride, padding, dilation, out):
    """(values, indices): values gathered at the indices, so their gradient goes to those elements."""
    idx = max_pool_indices(x, kernel, stride, padding, dilation, out)
    return _gather(x, idx, len(kernel)), idx


max_pool = _fjit(max_pool_values, static_argnums=(1, 2, 3, 4, 5))

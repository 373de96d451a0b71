"""Pooling with data-dependent positions: max_unpool2d/3d (values scattered to given flat indices) and
fractional_max_pool2d/3d (windows placed by random samples in [0, 1)). The F-level wrappers (max_unpool1d,
output-size checks, drawing the samples) are in torchshim/nn/functional/pooling.py.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._promotion import short_name
from . import _dispatch as P
from ._registry import register
from .movement import not_implemented
from .nn_conv import fmt, int_list, sizes
from .nn_pooling import max_windows
from .._fused import jit as _fjit


# ---- max unpooling -----------------------------------------------------------------------------------------
def _unpool_fwd(x, idx, n_out):
    """Scatter each plane's values to their flat indices; the last write of a duplicated index wins."""
    lead = x.shape[:-1]
    order = jnp.broadcast_to(jnp.arange(x.shape[-1]), x.shape)
    last = jnp.full(lead + (n_out,), -1, order.dtype)
    last = _scatter_planes(last, idx, order, "max")
    winner = jnp.take_along_axis(last, idx, axis=-1) == order
    target = jnp.where(winner, idx, n_out)
    out = jnp.zeros(lead + (n_out,), x.dtype)
    return _scatter_planes(out, target, x, "set")


def _scatter_planes(base, idx, vals, how):
    flat_b = base.reshape(-1, base.shape[-1])
    flat_i = idx.reshape(-1, idx.shape[-1])
    flat_v = vals.reshape(-1, vals.shape[-1])
    rows = jnp.arange(flat_b.shape[0])[:, None]
    at = flat_b.at[rows, flat_i]
    r = (
        at.max(flat_v, mode="drop")
        if how == "max"
        else at.set(flat_v, mode="drop")
        if how == "set"
        else at.add(flat_v, mode="drop")
    )
    return r.reshape(base.shape)


@partial(jax.custom_jvp, nondiff_argnums=(2,))
def _unpool(x, idx, n_out):
    return _unpool_fwd(x, idx, n_out)


@_unpool.defjvp
def _unpool_jvp(n_out, primals, tangents):
    x, idx = primals
    t, _ = tangents
    out = _unpool_fwd(x, idx, n_out)
    # PyTorch's MaxUnpoolBackward gathers the gradient at every index (duplicates included)
    return out, _scatter_planes(jnp.zeros(out.shape, out.dtype), idx, t, "add")


@partial(_fjit, static_argnames=("out",))
def _unpool_k(x, idx, out):
    nd = len(out)
    lead = x.shape[: x.ndim - nd]
    n_out = int(np.prod(out))
    r = _unpool(x.reshape(lead + (-1,)), idx.reshape(lead + (-1,)), n_out)
    return r.reshape(lead + tuple(out))


def _check_unpool_indices(idx, n_out, out):
    import jax.core as jc

    if isinstance(idx._value, jc.Tracer) or idx.numel() == 0:
        return
    a = np.asarray(idx._value).reshape(-1)
    bad = a[(a < 0) | (a >= n_out)]
    if bad.size:
        raise RuntimeError(
            f"Found an invalid max index: {bad[0]} (output volumes are of size {'x'.join(map(str, out))})"
        )


def _max_unpool(nd, input, indices, output_size, stride=None, padding=None):
    name = f"max_unpooling{nd}d"
    if indices._dtype is not D.int64:
        raise RuntimeError(
            "elements in indices should be type int64"
            + (f" but got: {short_name(indices._dtype)}" if nd == 2 else "")
        )
    out = int_list(output_size)
    words = "two elements (height, width)" if nd == 2 else "three elements (depth, height, width)"
    if nd == 2 and len(out) != 2:
        raise RuntimeError(f"There should be exactly {words} in output_size, but got {len(out)} elements.")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Input to {name} should be a {nd + 1}d or {nd + 2}d Tensor, but got a tensor with "
            f"{input.ndim} dimensions."
        )
    if nd == 3:
        s, p = int_list(stride), int_list(padding)
        if len(out) != 3:
            raise RuntimeError(
                f"There should be exactly {words} in output_size, but got {len(out)} elements."
            )
        if len(s) != 3:
            raise RuntimeError(f"There should be exactly {words} in stride, but got: {len(s)} elements.")
        if len(p) != 3:
            raise RuntimeError(f"There should be exactly {words} in padding, but got: {len(p)} elements.")
    if input._shape != indices._shape:
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor ({sizes(input)}) but "
            f"got indices tensor with shape: {sizes(indices)}"
        )
    for i in range(1, input.ndim):
        if input._shape[i] <= 0:
            raise RuntimeError(
                f"{name}_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got {sizes(input)} with dimension {i} being empty."
            )
    if nd == 3 and not all(x > 0 for x in s):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {fmt(s)}")
    dt = input._dtype
    if not dt.is_floating_point:
        raise not_implemented(f"max_unpool{nd}d", dt)
    n_out = int(np.prod(out))
    dev = input._storage.device
    shape = input._shape[:-nd] + out
    if input.numel() == 0 or n_out == 0:
        return P.fresh(jnp.zeros(shape, dt.np), dt, dev)
    _check_unpool_indices(indices, n_out, out)
    return P.fresh(_unpool_k(input._value, indices._value, out=out), dt, dev)


@register("max_unpool2d", method=False, function=False, kind="nn", grad_name="MaxUnpool2DBackward0")
def max_unpool2d(input, indices, output_size):
    """`torch._C._nn.max_unpool2d(input, indices, output_size)`: zeros of (.., H, W) with each input value at
    its flat plane index (the last of duplicated indices wins; the gradient reaches every duplicate)."""
    return _max_unpool(2, input, indices, output_size)


@register("max_unpool3d", method=False, function=False, kind="nn", grad_name="MaxUnpool3DBackward0")
def max_unpool3d(input, indices, output_size, stride, padding):
    """`torch._C._nn.max_unpool3d(input, indices, output_size, stride, padding)`."""
    return _max_unpool(3, input, indices, output_size, stride, padding)


# ---- fractional max pooling --------------------------------------------------------------------------------
def _intervals(u, n_in, n_out, k):
    """ATen's generate_intervals in the input's dtype: per plane start positions (lead..., n_out)."""
    i = jnp.arange(n_out, dtype=u.dtype)
    if n_out > 1:
        alpha = jnp.asarray(n_in - k, u.dtype) / jnp.asarray(n_out - 1, u.dtype)
        seq = ((i + u[..., None]) * alpha).astype(jnp.int64) - (u * alpha).astype(jnp.int64)[..., None]
    else:
        seq = jnp.zeros(u.shape + (n_out,), jnp.int64)
    return seq.at[..., n_out - 1].set(n_in - k) if n_out else seq


@partial(_fjit, static_argnames=("kernel", "out"))
def _fractional_k(x, samples, kernel, out):
    nd = len(kernel)
    n, c = x.shape[:2]
    u = samples[:n]
    order = (1, 0) if nd == 2 else (0, 1, 2)  # which sample drives which dim (2-d: [0] is W, [1] is H)
    wins = []
    for j in range(nd):
        start = _intervals(u[..., order[j]], x.shape[2 + j], out[j], kernel[j])
        idx = start[..., None] + jnp.arange(kernel[j])
        wins.append((idx, jnp.ones(idx.shape, bool)))
    return max_windows(x, wins, lead=2)


def _fractional(nd, input, kernel_size, output_size, random_samples):
    name = f"fractional_max_pool{nd}d"
    if random_samples._requires_grad:  # autograd's check, before the op's own
        raise RuntimeError(
            f"The function '{name}' is not differentiable with respect to argument 'random_samples'. "
            "This input cannot have requires_grad True."
        )
    k, out = int_list(kernel_size, nd), int_list(output_size, nd)
    words = "Ints" if nd == 2 else "three Ints"
    if len(k) != nd:
        raise RuntimeError(f"{name}: kernel_size must either be a single Int or tuple of {words}")
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must either be a single Int or tuple of {words}")
    fn = f"{name}()" if nd == 2 else f"{name}_out()"
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fn}: Expected {nd + 1}D or {nd + 2}D tensor, but got: {sizes(input)}")
    for i in range(1, input.ndim):
        if input._shape[i] <= 0:
            raise RuntimeError(
                f"{fn}: Expected input to have non-zero size for non-batch dimensions, but got"
                f"{sizes(input)} with dimension {i} being empty."
            )
    ins = input._shape[-nd:]
    words3 = ("height", "width") if nd == 2 else ("time", "width", "height")
    order = (0, 1) if nd == 2 else (0, 2, 1)
    for j in order:
        too_big = out[j] + k[j] - 1 > ins[j] if nd == 2 else out[j] + k[j] - 1 >= ins[j]
        if too_big:
            w = words3[j] if nd == 2 else ("time", "height", "width")[j]
            raise RuntimeError(f"{fn}: pool {w} {k[j]} too large relative to input {w} {ins[j]}")
    dt = input._dtype
    if random_samples._dtype is not dt:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    planes = input._shape[-nd - 1]
    if random_samples._shape[1] != planes:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if random_samples._shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {random_samples._shape[2]}.")
    if not dt.is_floating_point:
        raise not_implemented(f"{name}_out_frame", dt)
    dev = input._storage.device
    batched = input.ndim == nd + 2
    x = input._value if batched else input._value[None]
    shape = x.shape[:2] + out
    if x.shape[0] == 0 or 0 in out:
        vals, idx = jnp.zeros(shape, dt.np), jnp.zeros(shape, jnp.int64)
    else:
        vals, idx = _fractional_k(x, random_samples._value, kernel=k, out=out)
    if not batched:
        vals, idx = vals[0], idx[0]
    return P.fresh(vals, dt, dev), P.fresh(idx, D.int64, dev)


@register("fractional_max_pool2d", method=False, function=False, kind="nn",
          grad_name="FractionalMaxPool2DBackward0")
def fractional_max_pool2d(input, kernel_size, output_size, random_samples):
    """`torch._C._nn.fractional_max_pool2d(input, kernel_size, output_size, random_samples)` -> (output,
    indices); `random_samples` (N, C, 2) in [0, 1) place the windows (F.fractional_max_pool2d draws them)."""
    return _fractional(2, input, kernel_size, output_size, random_samples)


@register("fractional_max_pool3d", method=False, function=False, kind="nn",
          grad_name="FractionalMaxPool3DBackward0")
def fractional_max_pool3d(input, kernel_size, output_size, random_samples):
    """`torch._C._nn.fractional_max_pool3d(input, kernel_size, output_size, random_samples)` -> (output,
    indices)."""
    return _fractional(3, input, kernel_size, output_size, random_samples)

"""Adaptive pooling: adaptive_avg_pool1d/2d/3d and adaptive_max_pool1d/2d/3d (the F forms with
`return_indices` are in torchshim/nn/functional/pooling.py). Window i of a dim spans
[floor(i * in / out), ceil((i + 1) * in / out)); the reductions use nn_pooling's separable machinery (max:
PyTorch's scan order and NaN rule, gradient to the returned index). A 1x1 average is PyTorch's `mean`.
"""

import itertools
import operator
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from . import _dispatch as P
from ._registry import register
from .movement import not_implemented
from .nn_conv import _LOW, fmt, int_list, round_to, sizes
from .nn_pooling import _adaptive_axis, _check1d, _dim_range, max_windows, sum_windows
from .._fused import jit as _fjit


# ---- adaptive pooling --------------------------------------------------------------------------------------
def _scan_sum(x, wins):
    """Window sums accumulated (rounded after each addition) in x's 16-bit dtype in row-major window order
    (ATen's 3-d adaptive average loop); float32 values."""
    dt = x.dtype
    x = x.astype(jnp.float32)
    nd = len(wins)
    first = x.ndim - nd
    offs = np.array(list(itertools.product(*(range(w[0].shape[1]) for w in wins))), np.int64)
    out_shape = x.shape[:first] + tuple(w[0].shape[0] for w in wins)

    def step(acc, off):
        v, m = x, True
        for j in range(nd):
            idx, valid = (jnp.asarray(a) for a in wins[j])
            v = jnp.take(v, idx[:, off[j]], axis=first + j)
            m = m & valid[:, off[j]].reshape((-1,) + (1,) * (nd - j - 1))
        return round_to(acc + jnp.where(m, v, jnp.zeros((), v.dtype)), dt), None

    total, _ = jax.lax.scan(step, jnp.zeros(out_shape, x.dtype), jnp.asarray(offs))
    return total


@partial(_fjit, static_argnames=("out",))
def _adaptive_avg_k(x, out):
    nd = len(out)
    ins = x.shape[x.ndim - nd :]
    axes = [_adaptive_axis(ins[j], out[j]) for j in range(nd)]
    dt = x.dtype
    wins = [(a[0], a[1]) for a in axes]
    if nd == 3:  # sum in the input type, then sum / kT / kH / kW, each division rounded
        low = dt in _LOW
        total = _scan_sum(x, wins) if low else sum_windows(x, wins)
        for j, a in enumerate(axes):
            total = total / jnp.asarray(a[2].reshape((-1,) + (1,) * (nd - j - 1)), total.dtype)
            total = round_to(total, dt) if low else total
        return total.astype(dt)
    acc = jnp.float32 if dt in _LOW else dt
    total = sum_windows(x.astype(acc), wins)
    div = axes[0][2]
    for a in axes[1:]:
        div = np.multiply.outer(div, a[2])
    return (total / jnp.asarray(div, acc)).astype(dt)


@partial(_fjit, static_argnames=("out",))
def _adaptive_max_k(x, out):
    nd = len(out)
    ins = x.shape[x.ndim - nd :]
    return max_windows(x, [_adaptive_axis(ins[j], out[j])[:2] for j in range(nd)])


def _output_size_arg(output_size, input, nd):
    """F's `_list_with_default`: None entries take the input's size."""
    if isinstance(output_size, (list, tuple)):
        return tuple(
            input._shape[-nd + i] if v is None else operator.index(v) for i, v in enumerate(output_size)
        )
    return int_list(output_size, nd)


def _adaptive_avg(nd, input, output_size):
    name = f"adaptive_avg_pool{nd}d"
    out = _output_size_arg(output_size, input, nd)
    if len(out) != nd:
        raise RuntimeError(f"{name}: output_size must be {nd}")
    if any(o < 0 for o in out):
        sep = [", "] * (nd - 1) if nd == 2 else [", ", ","]  # ATen's 3-d message lacks the last space
        got = str(out[0]) + "".join(a + str(b) for a, b in zip(sep, out[1:]))
        raise RuntimeError(
            f"{name}: elements of output_size must be greater than or equal to 0 but received {{" + got + "}"
        )
    if all(o == 1 for o in out):  # ATen computes the mean over the spatial dims
        from .reduction import mean

        return mean(input, tuple(range(-1, -nd - 1, -1)), keepdim=True)
    shp = input._shape
    if nd == 2:
        if input.ndim not in (3, 4):
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {sizes(input)}")
        for i in (-2, -1):
            if shp[i] <= 0:
                raise RuntimeError(
                    "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                    f"dimensions, but input has sizes {sizes(input)} with dimension {i + input.ndim} "
                    "being empty"
                )
    else:
        for i in range(1, input.ndim):
            if shp[i] <= 0:
                raise RuntimeError(
                    "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                    f"dimensions, but input has sizes {sizes(input)} with dimension {i} being empty"
                )
        if input.ndim not in (4, 5):
            raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {sizes(input)}")
    dt = input._dtype
    if not dt.is_floating_point:
        raise not_implemented("adaptive_avg_pool2d" if nd == 2 else "adaptive_avg_pool3d_cpu", dt)
    dev = input._storage.device
    if input.numel() == 0 or 0 in out:
        return P.fresh(jnp.zeros(shp[:-nd] + out, dt.np), dt, dev)
    return P.fresh(_adaptive_avg_k(input._value, out=out), dt, dev)


def _adaptive_avg_name(nd):
    """PyTorch's adaptive average pooling to all-ones output sizes is a mean."""
    def name(args, kwargs):
        x = args[0] if args else kwargs["input"]
        out = args[1] if len(args) > 1 else kwargs["output_size"]
        out = _output_size_arg(out, x, nd)
        return "MeanBackward1" if all(o == 1 for o in out) else f"AdaptiveAvgPool{nd}DBackward0"

    return name


@register("adaptive_avg_pool2d", method=False, function=False, functional=True, kind="nn",
          grad_name=_adaptive_avg_name(2))
def adaptive_avg_pool2d(input, output_size):
    """`F.adaptive_avg_pool2d(input, output_size)` (None in output_size keeps that input size)."""
    return _adaptive_avg(2, input, output_size)


@register("adaptive_avg_pool3d", method=False, function=False, functional=True, kind="nn",
          grad_name=_adaptive_avg_name(3))
def adaptive_avg_pool3d(input, output_size):
    """`F.adaptive_avg_pool3d(input, output_size)` (None in output_size keeps that input size)."""
    return _adaptive_avg(3, input, output_size)


@register("adaptive_avg_pool1d", method=False, functional=True, kind="nn", grad_name="SqueezeBackward1")
def adaptive_avg_pool1d(input, output_size):
    """`torch.adaptive_avg_pool1d(input, output_size)` (also `F.adaptive_avg_pool1d`)."""
    _dim_range("adaptive_avg_pool1d", input, 2, 4)
    o = int_list(output_size)
    _check1d("adaptive_avg_pool1d", "output_size", o)
    return _adaptive_avg(2, input.unsqueeze(-2), (1, o[0])).squeeze(-2)


def _adaptive_max(nd, input, output_size):
    name = f"adaptive_max_pool{nd}d"
    shp = input._shape
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {sizes(input)}")
    for i in range(1, input.ndim):
        if shp[i] <= 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                f"has sizes {sizes(input)} with dimension {i} being empty"
            )
    out = int_list(output_size, nd)
    if len(out) != nd:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
    for o in out:
        if o < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {o}: {fmt(shp[:-nd] + out)}")
    dt = input._dtype
    if not dt.is_floating_point:
        raise not_implemented("adaptive_max_pool2d" if nd == 2 else "adaptive_max_pool3d_cpu", dt)
    dev = input._storage.device
    if input.numel() == 0 or 0 in out:
        shape = shp[:-nd] + out
        return P.fresh(jnp.zeros(shape, dt.np), dt, dev), P.fresh(jnp.zeros(shape, jnp.int64), D.int64, dev)
    vals, idx = _adaptive_max_k(input._value, out=out)
    return P.fresh(vals, dt, dev), P.fresh(idx, D.int64, dev)


@register("adaptive_max_pool2d", method=False, function=False, kind="nn",
          grad_name="AdaptiveMaxPool2DBackward0")
def adaptive_max_pool2d(input, output_size):
    """`torch._C._nn.adaptive_max_pool2d(input, output_size)` -> (output, indices)."""
    return _adaptive_max(2, input, output_size)


@register("adaptive_max_pool3d", method=False, function=False, kind="nn",
          grad_name="AdaptiveMaxPool3DBackward0")
def adaptive_max_pool3d(input, output_size):
    """`torch._C._nn.adaptive_max_pool3d(input, output_size)` -> (output, indices)."""
    return _adaptive_max(3, input, output_size)


@register("adaptive_max_pool1d", method=False, kind="nn", grad_name="SqueezeBackward1")
def adaptive_max_pool1d(input, output_size):
    """`torch.adaptive_max_pool1d(input, output_size)` -> (output, indices)."""
    _dim_range("adaptive_max_pool1d", input, 2, 4)
    o = int_list(output_size)
    _check1d("adaptive_max_pool1d", "output_size", o)
    for i in range(1, input.ndim):
        if input._shape[i] <= 0:
            raise RuntimeError(
                "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {sizes(input)} with dimension {i} being empty"
            )
    vals, idx = _adaptive_max(2, input.unsqueeze(-2), (1, o[0]))
    return vals.squeeze(-2), idx.squeeze(-2)


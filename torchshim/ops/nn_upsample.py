"""Upsampling kernels behind `F.interpolate`: upsample_nearest1d/2d/3d, _upsample_nearest_exact1d/2d/3d,
upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d (the `.vec` forms:
output_size or scale_factors). The F-level argument handling (size/scale_factor/recompute_scale_factor/area)
is PyTorch's Python code, ported in torchshim/nn/functional/vision.py.

Every mode is separable: per spatial dim a static (out, taps) table of source indices and weights, computed in
numpy with PyTorch's arithmetic (its opmath float type, `floorf`, the weights stored in the input dtype), then
one gather-and-weight per dim, innermost first, as ATen's generic kernel nests them. Nearest modes are pure
gathers, so integer (uint8) images stay exact and gradients accumulate into the source pixels like PyTorch's.
"""

import math
from functools import partial

import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from . import _dispatch as P
from ._registry import register
from .movement import not_implemented
from .nn_conv import int_list
from .nn_pooling import _gather
from .._fused import jit as _fjit

_DIM_LETTERS = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _opmath(dt):
    return np.float64 if dt == np.float64 else np.float32


def _scale(n_in, n_out, align_corners, scale, ot):
    """area_pixel_compute_scale."""
    if align_corners:
        return ot(n_in - 1) / ot(n_out - 1) if n_out > 1 else ot(0)
    if scale is not None and scale > 0:
        return ot(1.0 / scale)
    return ot(n_in) / ot(n_out)


def _source(scale, n_out, align_corners, cubic, ot):
    """area_pixel_compute_source_index for every output position."""
    i = np.arange(n_out)
    if align_corners:
        return (scale * i.astype(ot)).astype(ot)
    src = (scale * (i.astype(ot) + ot(0.5)) - ot(0.5)).astype(ot)
    return src if cubic else np.maximum(src, ot(0))


def _floorf(x):
    return np.floor(np.asarray(x, np.float32)).astype(np.int64)


def _guard(real, n_in, ot):
    idx = np.minimum(_floorf(real), n_in - 1)
    lam = np.minimum(np.maximum(real - idx.astype(ot), ot(0)), ot(1)).astype(ot)
    return idx, lam


def _cubic_coeffs(t, ot):
    a = ot(-0.75)

    def c1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def c2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    x1, x2 = t, ot(1) - t
    return [c2(x1 + ot(1)).astype(ot), c1(x1).astype(ot), c1(x2).astype(ot), c2(x2 + ot(1)).astype(ot)]


def _table(mode, n_in, n_out, align_corners, scale, dt):
    """(indices (out, taps), weights (out, taps) or None) for one dim."""
    ot = _opmath(dt)
    if mode in ("nearest", "nearest-exact"):
        s = _scale(n_in, n_out, False, scale, ot)
        i = np.arange(n_out)
        if mode == "nearest":
            idx = _floorf((s * i.astype(ot)).astype(ot))
        else:
            idx = _floorf((i + 0.5) * np.float64(s))
        return np.minimum(idx, n_in - 1)[:, None], None
    s = _scale(n_in, n_out, align_corners, scale, ot)
    real = _source(s, n_out, align_corners, mode == "cubic", ot)
    i0, lam = _guard(real, n_in, ot)
    if mode == "linear":
        i1 = i0 + (i0 < n_in - 1)
        return np.stack([i0, i1], 1), np.stack([(ot(1) - lam).astype(ot), lam], 1)
    idx = np.stack([np.clip(i0 - 1 + j, 0, n_in - 1) for j in range(4)], 1)
    return idx, np.stack(_cubic_coeffs(lam, ot), 1)


@partial(_fjit, static_argnames=("mode", "out", "align_corners", "scales"))
def _upsample_k(x, mode, out, align_corners, scales):
    nd = len(out)
    first = x.ndim - nd
    dt = x.dtype
    ot = _opmath(np.dtype(dt))
    vals = x if mode in ("nearest", "nearest-exact") else x.astype(ot)
    for j in reversed(range(nd)):
        idx, w = _table(mode, x.shape[first + j], out[j], align_corners, scales[j], np.dtype(dt))
        g = _gather(vals, idx, first + j, 0)
        if w is None:
            vals = g[(slice(None),) * (first + j + 1) + (0,)]
        else:
            wj = jnp.asarray(w.astype(np.dtype(dt)).astype(ot))  # ATen stores the weights as the input type
            wj = wj.reshape((1,) * (first + j) + wj.shape + (1,) * (nd - j - 1))
            terms = g * wj
            acc = terms[(slice(None),) * (first + j + 1) + (0,)]
            for t in range(1, w.shape[1]):
                acc = acc + terms[(slice(None),) * (first + j + 1) + (t,)]
            vals = acc
    if mode in ("nearest", "nearest-exact"):
        return vals
    if jnp.issubdtype(dt, jnp.integer):
        return jnp.clip(jnp.round(vals), 0, 255).astype(dt)
    return vals.astype(dt)


def _output_size(input, nd, output_size, scale_factors):
    spatial = input._shape[2:] if input.ndim >= 2 else ()
    if output_size is not None:
        if scale_factors is not None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        out = int_list(output_size)
        return out, (None,) * len(out)
    if scale_factors is not None:
        sf = tuple(float(s) for s in scale_factors)
        return tuple(int(math.floor(float(n) * s)) for n, s in zip(spatial, sf)), sf
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _common_check(input, nd, out):
    if len(out) != nd:
        raise RuntimeError(f"It is expected output_size equals to {nd}, but got size {len(out)}")
    if input.ndim != nd + 2:
        raise RuntimeError(f"It is expected input_size equals to {nd + 2}, but got size {input.ndim}")
    ins = input._shape[2:]
    names = _DIM_LETTERS[nd]
    if not (all(i > 0 for i in ins) and all(o > 0 for o in out)):
        fi = ", ".join(f"{n}: {v}" for n, v in zip(names, ins))
        fo = ", ".join(f"{n}: {v}" for n, v in zip(names, out))
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({fi}) output ({fo})"
        )


_KERNEL_NAMES = {
    ("nearest", 1): "compute_indices_weights_nearest",
    ("nearest", 2): "upsample_nearest2d_channels_last",
    ("nearest", 3): "compute_indices_weights_nearest",
    ("nearest-exact", 1): "compute_indices_weights_nearest",
    ("nearest-exact", 2): "upsample_nearest2d_channels_last",
    ("nearest-exact", 3): "compute_indices_weights_nearest",
    ("linear", 1): "compute_indices_weights_linear",
    ("linear", 2): "upsample_bilinear2d_channels_last",
    ("linear", 3): "compute_indices_weights_linear",
    ("cubic", 2): "compute_indices_weights_cubic",
}


def _upsample(mode, nd, input, output_size, scale_factors, align_corners=False):
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    out, scales = _output_size(input, nd, output_size, scale_factors)
    _common_check(input, nd, out)
    dt = input._dtype
    uint8_ok = dt is D.uint8 and (mode in ("nearest", "nearest-exact") or nd == 2)
    if not (dt.is_floating_point or uint8_ok):
        raise not_implemented(_KERNEL_NAMES[(mode, nd)], dt)
    r = _upsample_k(
        input._value, mode=mode, out=tuple(out), align_corners=bool(align_corners), scales=tuple(scales)
    )
    return P.fresh(r, dt, input._storage.device)


def _nearest(nd, exact):
    name = f"{'_upsample_nearest_exact' if exact else 'upsample_nearest'}{nd}d"
    mode = "nearest-exact" if exact else "nearest"

    def f(input, output_size, scale_factors=None):
        return _upsample(mode, nd, input, output_size, scale_factors)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`torch._C._nn.{name}(input, output_size, scale_factors)` (the .vec overload)."
    return f


def _interp(nd, name, mode):
    def f(input, output_size, align_corners, scale_factors=None):
        return _upsample(mode, nd, input, output_size, scale_factors, align_corners)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        f"`torch._C._nn.{name}(input, output_size, align_corners, scale_factors)` (the .vec overload)."
    )
    return f


# grad_fn names: PyTorch's nodes spell the dims "1D", "2D", "3D"
for _n in (1, 2, 3):
    register(f"upsample_nearest{_n}d", method=False, function=False, kind="nn",
             grad_name=f"UpsampleNearest{_n}DBackward0")(_nearest(_n, False))
    register(f"_upsample_nearest_exact{_n}d", method=False, function=False, kind="nn",
             grad_name=f"UpsampleNearestExact{_n}DBackward0")(_nearest(_n, True))
register("upsample_linear1d", method=False, function=False, kind="nn", grad_name="UpsampleLinear1DBackward0")(
    _interp(1, "upsample_linear1d", "linear")
)
register("upsample_bilinear2d", method=False, function=False, kind="nn",
         grad_name="UpsampleBilinear2DBackward0")(_interp(2, "upsample_bilinear2d", "linear"))
register("upsample_trilinear3d", method=False, function=False, kind="nn",
         grad_name="UpsampleTrilinear3DBackward0")(_interp(3, "upsample_trilinear3d", "linear"))
register("upsample_bicubic2d", method=False, function=False, kind="nn",
         grad_name="UpsampleBicubic2DBackward0")(_interp(2, "upsample_bicubic2d", "cubic"))

"""Vision functionals: padding (`constant_pad_nd`, `F.pad` with modes constant/reflect/replicate/circular),
pixel_shuffle/pixel_unshuffle, channel_shuffle, grid_sampler (F.grid_sample) and affine_grid_generator
(F.affine_grid). Upsampling (F.interpolate's kernels) lives in nn_upsample.py.

Non-constant padding is a gather along each padded dim with a static index map (reflection, clamping or
wrap-around), so its gradient accumulates into the source elements exactly as PyTorch's backward does.
"""

import operator
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._precision import for_dtype as mm_precision
from .._promotion import short_name
from .._tensor import Tensor
from . import _dispatch as P
from ._registry import register
from .indexing import scalar_to
from .movement import not_implemented
from .nn_conv import fmt, int_list, sizes
from .._fused import jit as _fjit

_LOW = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))


# ---- padding -----------------------------------------------------------------------------------------------
@partial(_fjit, static_argnames=("pads",))
def _constant_pad_k(x, value, pads):
    cfg = [(0, 0, 0)] * (x.ndim - len(pads)) + [(lo, hi, 0) for lo, hi in pads]
    return jax.lax.pad(x, value.astype(x.dtype), cfg)


def _pad_list(name, pad):
    if isinstance(pad, Tensor) or not isinstance(pad, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}"
        )
    return tuple(operator.index(p) for p in pad)


def pad_constant(input, pad, value=0):
    """ATen's constant_pad_nd (negative pads crop)."""
    pad = tuple(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    shp = input._shape
    l_inp, l_pad = input.ndim, len(pad) // 2
    l_diff = l_inp - l_pad
    if l_inp < l_pad:
        raise RuntimeError(
            "Length of pad should be no more than twice the number of dimensions of the input. Pad "
            f"length is {len(pad)}while the input has {l_inp}dimensions."
        )
    cur = list(shp)
    positive = False
    for i in range(l_diff, l_inp):
        lo, hi = pad[2 * (l_inp - i - 1)], pad[2 * (l_inp - i - 1) + 1]
        for p in (lo, hi):
            if p < 0:
                length = cur[i] + p
                if length < 0:
                    raise RuntimeError("narrow(): length must be non-negative.")
                cur[i] = length
            elif p:
                positive = True
    if positive:
        for i in range(l_pad):
            idx = len(pad) - (i + 1) * 2
            new = shp[l_diff + i] + pad[idx] + pad[idx + 1]
            if new <= 0:
                raise RuntimeError(
                    f"The input size {shp[l_diff + i]}, plus negative padding {pad[idx]} and "
                    f"{pad[idx + 1]} resulted in a negative output size, which is invalid. Check "
                    f"dimension {l_diff + i} of your input."
                )
    pads = tuple((pad[2 * (l_inp - i - 1)], pad[2 * (l_inp - i - 1) + 1]) for i in range(l_diff, l_inp))
    dt = input._dtype
    v = jnp.asarray(scalar_to(value if isinstance(value, Tensor) else float(value), dt))
    return P.fresh(_constant_pad_k(input._value, v, pads=pads), dt, input._storage.device)


@register("constant_pad_nd", method=False, kind="nn")
def constant_pad_nd(input, pad, value=0):
    """`torch.constant_pad_nd(input, pad, value=0)`: pad (last dim first) with `value`; negative pads crop."""
    return pad_constant(input, _pad_list("constant_pad_nd", pad), value)


def _reflect_index(n, lo, hi):
    j = np.arange(-lo, n + hi)
    j = np.abs(j)
    return np.where(j >= n, 2 * (n - 1) - j, j)


def _index_maps(mode, sizes_, pads):
    out = []
    for n, (lo, hi) in zip(sizes_, pads):
        if mode == "reflect":
            out.append(_reflect_index(n, lo, hi))
        elif mode == "replicate":
            out.append(np.clip(np.arange(-lo, n + hi), 0, n - 1))
        else:  # ATen crops by the negative pads first, then wraps the cropped array
            base = max(-lo, 0)
            m = n - base - max(-hi, 0)
            out.append(base + np.arange(-max(lo, 0), m + max(hi, 0)) % max(m, 1))
    return out


@partial(_fjit, static_argnames=("mode", "pads"))
def _index_pad_k(x, mode, pads):
    nd = len(pads)
    maps = _index_maps(mode, x.shape[x.ndim - nd :], pads)
    for j, m in enumerate(maps):
        x = jnp.take(x, jnp.asarray(m), axis=x.ndim - nd + j)
    return x


def _check_valid_input(input, dim):
    shp, nd = input._shape, input.ndim
    batch = nd == dim + 2
    ok = all(s != 0 for s in shp[1:]) if batch else all(s != 0 for s in shp)
    if not ok:
        raise RuntimeError(
            f"Expected {dim + 1}D or {dim + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {sizes(input)}"
        )


_ARG = {0: 4, 1: 6, 2: 8}


def _reflect_replicate(input, pad, mode):
    dim = len(pad) // 2
    kind = "reflection" if mode == "reflect" else "replication"
    _check_valid_input(input, dim)
    shp = input._shape
    spatial = shp[-dim:]
    pads = tuple((pad[2 * (dim - 1 - j)], pad[2 * (dim - 1 - j) + 1]) for j in range(dim))  # outermost first
    outs = [n + lo + hi for n, (lo, hi) in zip(spatial, pads)]
    if mode == "reflect":
        for k in range(dim):  # width first, as ATen checks
            j = dim - 1 - k
            lo, hi = pads[j]
            if not (lo < spatial[j] and hi < spatial[j]):
                raise RuntimeError(
                    f"Argument #{_ARG[k]}: Padding size should be less than the corresponding input "
                    f"dimension, but got: padding ({lo}, {hi}) at dimension {input.ndim - 1 - k} of "
                    f"input {sizes(input)}"
                )
    if not any(o >= 1 for o in outs):
        if dim == 1:
            raise RuntimeError(f"input (W: {spatial[0]}) is too small. Calculated output W: {outs[0]}")
        if dim == 2:
            sep = ") " if mode == "reflect" else " ) "
            raise RuntimeError(
                f"input (H: {spatial[0]}, W: {spatial[1]}{sep}is too small. Calculated output H: "
                f"{outs[0]} W: {outs[1]}"
            )
        raise RuntimeError(
            f"input (D: {spatial[0]} H: {spatial[1]}, W: {spatial[2]}) is too small. Calculated output "
            f"D: {outs[0]} H: {outs[1]} W: {outs[2]}"
        )
    dt = input._dtype
    if dt is D.bool_:
        raise not_implemented(f"{kind}_pad{dim}d", dt)
    return P.fresh(_index_pad_k(input._value, mode=mode, pads=pads), dt, input._storage.device)


def _circular(input, pad):
    nd_pad = len(pad) // 2
    non = input.ndim - nd_pad
    if non not in (1, 2):
        raise RuntimeError(
            "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent to "
            f"padding of length {(input.ndim - 1) * 2} or {(input.ndim - 2) * 2} respectively but got "
            f"{len(pad)}"
        )
    pads = []
    for i in range(nd_pad):
        lo, hi = pad[2 * (nd_pad - i - 1)], pad[2 * (nd_pad - i - 1) + 1]
        n = input._shape[non + i]
        if not (lo <= n and hi <= n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if n + lo + hi < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        pads.append((lo, hi))
    dt = input._dtype
    return P.fresh(_index_pad_k(input._value, mode="circular", pads=tuple(pads)), dt, input._storage.device)


_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_name(args, kwargs):
    mode = args[2] if len(args) > 2 else kwargs.get("mode", "constant")
    p = args[1] if len(args) > 1 else kwargs["pad"]
    n = len(p) // 2
    return {
        "constant": "ConstantPadNdBackward0",
        "reflect": f"ReflectionPad{n}DBackward0",
        "replicate": f"ReplicationPad{n}DBackward0",
        "circular": "CopySlices",
    }.get(mode)


@register("pad", method=False, function=False, functional=True, kind="nn", grad_name=_pad_name)
def pad(input, pad, mode="constant", value=None):
    """`F.pad(input, pad, mode='constant', value=None)`: `pad` lists (left, right) pairs from the last dim
    backwards; modes constant, reflect, replicate, circular; negative pads crop."""
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    pad = _pad_list("pad", pad)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    nd = input.ndim
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > nd * 2:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(pad)} and input of dimension {nd}"
        )
    if mode == "constant":
        return pad_constant(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    dim = len(pad) // 2
    if dim not in (1, 2, 3) or nd not in (dim + 1, dim + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {nd}D input tensor.")
    if mode == "circular":
        return _circular(input, pad)
    return _reflect_replicate(input, pad, mode)


# ---- pixel shuffle / channel shuffle -----------------------------------------------------------------------
@register("pixel_shuffle", method=False, functional=True, kind="nn")
def pixel_shuffle(input, upscale_factor):
    """`torch.pixel_shuffle(input, upscale_factor)`: (*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = operator.index(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.ndim} "
            "dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = input._shape[-3:]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    lead = input._shape[:-3]
    x = input._value.reshape(lead + (c // (r * r), r, r, h, w))
    n = len(lead)
    x = jnp.transpose(x, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return P.fresh(x.reshape(lead + (c // (r * r), h * r, w * r)), input._dtype, input._storage.device)


@register("pixel_unshuffle", method=False, functional=True, kind="nn")
def pixel_unshuffle(input, downscale_factor):
    """`torch.pixel_unshuffle(input, downscale_factor)`: (*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = operator.index(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = input._shape[-3:]
    if h % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} "
            f"is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} "
            f"is not divisible by {r}"
        )
    lead = input._shape[:-3]
    n = len(lead)
    x = input._value.reshape(lead + (c, h // r, r, w // r, r))
    x = jnp.transpose(x, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return P.fresh(x.reshape(lead + (c * r * r, h // r, w // r)), input._dtype, input._storage.device)


@register("channel_shuffle", method=False, functional=True, kind="nn")
def channel_shuffle(input, groups):
    """`torch.channel_shuffle(input, groups)`: (N, g * k, *) -> channels reordered as (N, k * g, *)."""
    g = operator.index(groups)
    if input.ndim <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes {sizes(input)}"
        )
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    c = input._shape[1]
    if c % g:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {g} groups."
        )
    shp = input._shape
    x = input._value.reshape((shp[0], g, c // g) + shp[2:])
    x = jnp.swapaxes(x, 1, 2).reshape(shp)
    return P.fresh(x, input._dtype, input._storage.device)


# ---- grid_sampler / affine_grid_generator ------------------------------------------------------------------
def _unnormalize(coord, size, align_corners):
    if align_corners:
        return ((coord + 1) / 2) * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(x, size):
    """clip_coordinates with PyTorch's gradient (0 at and beyond the bounds)."""
    hi = size - 1
    return jnp.where(x <= 0, jnp.zeros((), x.dtype), jnp.where(x >= hi, jnp.asarray(hi, x.dtype), x))


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return jnp.zeros_like(x)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = x - lo
    sign = jnp.where(x < 0, -1, 1).astype(x.dtype)
    x = x * sign
    extra = jnp.fmod(x, span)
    flips = jnp.floor(x / span).astype(jnp.int64)
    return jnp.where(flips % 2 == 0, extra + lo, span - extra + lo)


def _compute_coordinates(x, size, padding_mode, align_corners):
    if padding_mode == 1:
        x = _clip(x, size)
    elif padding_mode == 2:
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = _clip(x, size)
    return x


def _sample(inp, coords, sizes_):
    """inp (N, C, *S); coords: integer index arrays (N, *G) per spatial dim -> (N, C, *G), 0 outside."""
    n = inp.shape[0]
    inside = jnp.ones(coords[0].shape, bool)
    flat = jnp.zeros(coords[0].shape, jnp.int64)
    for c, s in zip(coords, sizes_):
        inside = inside & (c >= 0) & (c < s)
        flat = flat * s + jnp.clip(c, 0, s - 1)
    src = inp.reshape(n, inp.shape[1], -1)
    g = jnp.take_along_axis(src, flat.reshape(n, 1, -1), axis=2).reshape(inp.shape[:2] + coords[0].shape[1:])
    return jnp.where(inside[:, None], g, jnp.zeros((), inp.dtype))


def _cubic_1d(vals, t):
    a = -0.75

    def c1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def c2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    w = (c2(t + 1), c1(t), c1(1 - t), c2(2 - t))
    return vals[0] * w[0] + vals[1] * w[1] + vals[2] * w[2] + vals[3] * w[3]


@partial(_fjit, static_argnames=("mode", "padding_mode", "align_corners"))
def _grid_sample_k(inp, grid, mode, padding_mode, align_corners):
    dt = inp.dtype
    ct = jnp.float32 if dt in _LOW else dt
    inp, grid = inp.astype(ct), grid.astype(ct)
    nd = inp.ndim - 2
    sizes_ = inp.shape[2:]
    # grid's last dim is (x, y[, z]): x indexes the last spatial dim
    raw = [grid[..., nd - 1 - j] for j in range(nd)]
    if mode == 2:  # bicubic (2-d): unnormalized, not clipped; taps go through compute_coordinates
        ix = [_unnormalize(r, s, align_corners) for r, s in zip(raw, sizes_)]
        base = [jnp.floor(v) for v in ix]
        t = [v - b for v, b in zip(ix, base)]

        def tap(j, k):
            c = _compute_coordinates(base[j] - 1 + k, sizes_[j], padding_mode, align_corners)
            return c.astype(jnp.int64)

        rows = []
        for a in range(4):
            cols = [_sample(inp, [tap(0, a), tap(1, b)], sizes_) for b in range(4)]
            rows.append(_cubic_1d(cols, t[1][:, None]))
        return _cubic_1d(rows, t[0][:, None]).astype(dt)
    ix = [
        _compute_coordinates(_unnormalize(r, s, align_corners), s, padding_mode, align_corners)
        for r, s in zip(raw, sizes_)
    ]
    if mode == 1:  # nearest (round half to even, as nearbyint)
        return _sample(inp, [jnp.round(v).astype(jnp.int64) for v in ix], sizes_).astype(dt)
    lo = [jnp.floor(v) for v in ix]
    out = None
    for corner in range(2**nd):
        bits = [(corner >> (nd - 1 - j)) & 1 for j in range(nd)]
        w = None
        for j, b in enumerate(bits):
            wj = (ix[j] - lo[j]) if b else (lo[j] + 1 - ix[j])
            w = wj if w is None else w * wj
        v = _sample(inp, [(lo[j] + b).astype(jnp.int64) for j, b in enumerate(bits)], sizes_) * w[:, None]
        out = v if out is None else out + v
    return out.astype(dt)


def _check_grid_sampler(input, grid, interpolation_mode):
    if input._storage.device is not grid._storage.device:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to be on same device, but input is on "
            f"{input._storage.device} and grid is on {grid._storage.device}"
        )
    if input._dtype is not grid._dtype:
        raise RuntimeError(
            f"expected scalar type {short_name(input._dtype)} but found {short_name(grid._dtype)}"
        )
    if input._shape[0] != grid._shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got input with "
            f"sizes {sizes(input)} and grid with sizes {sizes(grid)}"
        )
    if grid._shape[-1] != input.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got "
            f"grid with sizes {sizes(grid)}"
        )
    for i in range(2, input.ndim):
        if input._shape[i] <= 0:
            raise RuntimeError(
                f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                f"sizes {sizes(input)} with dimension {i} being empty"
            )
    nd = 4 if input.ndim == 4 else 5
    if not (input.ndim == nd and grid.ndim == nd):
        raise RuntimeError(
            f"grid_sampler(): expected {nd}D input and grid with same number of dimensions, but got "
            f"input with sizes {sizes(input)} and grid with sizes {sizes(grid)}"
        )
    if nd == 5 and interpolation_mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def _grid_name(args, kwargs):
    x = args[0] if args else kwargs["input"]
    return "GridSampler2DBackward0" if x.ndim == 4 else "GridSampler3DBackward0"


@register("grid_sampler", method=False, kind="nn", grad_name=_grid_name)
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """`torch.grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)`: modes 0 bilinear,
    1 nearest, 2 bicubic (4-D only); padding 0 zeros, 1 border, 2 reflection."""
    for i, (n, t) in enumerate((("input", input), ("grid", grid))):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"grid_sampler(): argument '{n}' (position {i + 1}) must be Tensor, not {type(t).__name__}"
            )
    mode, pmode = operator.index(interpolation_mode), operator.index(padding_mode)
    _check_grid_sampler(input, grid, mode)
    dt = input._dtype
    if not dt.is_floating_point:
        raise not_implemented(
            f"grid_sampler_{input.ndim - 2}d_cpu_kernel_impl" if input.ndim == 4 else "grid_sampler_3d_cpu",
            dt,
        )
    dev = input._storage.device
    shape = input._shape[:2] + grid._shape[1:-1]
    if input._shape[0] == 0 or grid.numel() == 0 or input._shape[1] == 0:
        return P.fresh(jnp.zeros(shape, dt.np), dt, dev)
    r = _grid_sample_k(
        input._value, grid._value, mode=mode, padding_mode=pmode, align_corners=bool(align_corners)
    )
    return P.fresh(r, dt, dev)


def _linspace_from_neg_one(n, align_corners, dt):
    """ATen's linspace(-1, 1, n) (symmetric halves, computed in float32/float64, stored in dt), times
    (n - 1) / n without align_corners (two ops, each rounded to dt)."""
    if n <= 1:
        return np.zeros((1,), dt)
    ct = np.float64 if dt == np.float64 else np.float32
    step = ct(2) / ct(n - 1)
    i = np.arange(n)
    r = np.where(i < n // 2, ct(-1) + step * i.astype(ct), ct(1) - step * (n - 1 - i).astype(ct)).astype(dt)
    if not align_corners:
        r = (r * dt.type(n - 1)).astype(dt)
        r = (r / dt.type(n)).astype(dt)
    return r


@partial(_fjit, static_argnames=("size", "align_corners"))
def _affine_grid_k(theta, size, align_corners):
    dt = np.dtype(theta.dtype)
    ct = np.float32 if dt in _LOW else dt
    spatial = size[2:]
    nd = len(spatial)
    axes = [_linspace_from_neg_one(s, align_corners, dt) for s in spatial]
    base = np.ones(tuple(spatial) + (nd + 1,), ct)
    for j in range(nd):  # component j is x (last dim) for j = 0
        a = axes[nd - 1 - j].astype(ct)
        shape = [1] * nd
        shape[nd - 1 - j] = -1
        base[..., j] = np.broadcast_to(a.reshape(shape), tuple(spatial))
    flat = jnp.asarray(base.reshape(1, -1, nd + 1))
    th = theta.astype(ct)
    grid = jnp.matmul(flat, jnp.swapaxes(th, 1, 2), precision=mm_precision(dt))  # ATen: bmm
    return grid.reshape((theta.shape[0],) + tuple(spatial) + (nd,)).astype(dt)


@register("affine_grid_generator", method=False, kind="nn")
def affine_grid_generator(theta, size, align_corners):
    """`torch.affine_grid_generator(theta, size, align_corners)`: the (N, *spatial, 2|3) sampling grid of the
    affine matrices `theta` (N, 2, 3) or (N, 3, 4)."""
    size = int_list(size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    nd = len(size) - 2
    n = size[0]
    if theta.ndim != 3 or theta._shape[0] != n or theta._shape[1:] != (nd, nd + 1):
        want = [n, nd, nd + 1]
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {nd + 1}] but got: "
            f"[{theta._shape[0] if theta.ndim else 0}, {theta._shape[-1] if theta.ndim else 0}]."
            if theta.ndim == 3
            else f"shape '{fmt(want)}' is invalid for input of size {theta.numel()}"
        )
    dt = theta._dtype
    if dt in (D.float16, D.bfloat16) and min(size[2:]) <= 1:
        raise not_implemented("tensor_cpu", dt)  # ATen builds the 1-point axis with at::tensor(0, options)
    return P.fresh(
        _affine_grid_k(theta._value, size=tuple(size), align_corners=bool(align_corners)),
        dt,
        theta._storage.device,
    )


from . import nn_upsample  # noqa: E402,F401  (registers the upsampling kernels)

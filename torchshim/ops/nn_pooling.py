"""Pooling: max_pool1d/2d/3d (+ `_with_indices`; their kernels are XLA window reductions in _max_window.py),
avg_pool1d/2d/3d, and the separable window machinery shared with adaptive pooling (nn_adaptive_pool.py) and
fractional pooling (nn_unpool.py, with max_unpool).
The `F.*` forms with `return_indices`, `stride=None` and the 1-d unpool are Python wrappers in
torchshim/nn/functional/pooling.py.

Every pooling window is a rectangle, so the reductions are separable: one spatial dim at a time (the last
first), the window positions of that dim are gathered into a (out, k) block (indices and validity computed
once per geometry, or from the random samples for fractional pooling) and reduced over k. Adaptive and
fractional max pooling keep PyTorch's scan order: the first maximum in row-major window order, the last NaN
when there is one, the first valid element when every value is the lowest one; the result is *gathered* from
the chosen elements, so the gradient goes to exactly the index PyTorch returns (ties included). Average
pooling sums (float32 for 16-bit floats) and divides by PyTorch's divisor (count_include_pad,
divisor_override; integer inputs divide with truncation).
"""

import operator
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from . import _dispatch as P
from . import _max_window as MW
from ._registry import register
from .movement import not_implemented
from .nn_conv import int_list, sizes
from .._fused import jit as _fjit

_LOW = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))


def _tdiv(a, b):
    """C++ integer division (truncation toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def pool_out(size, k, pad, stride, dilation, ceil_mode):
    """ATen's pooling_output_shape, with its checks."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > _tdiv((k - 1) * dilation + 1, 2):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} "
            f"and dilation={dilation}"
        )
    out = (size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


# ---- static window geometry (numpy) ----------------------------------------------------------------------
def _regular_axis(n_in, n_out, k, s, p, d):
    """Window positions of one dim: (idx (out, k) clipped into range, valid (out, k))."""
    pos = (np.arange(n_out) * s - p)[:, None] + np.arange(k)[None, :] * d
    valid = (pos >= 0) & (pos < n_in)
    return np.clip(pos, 0, max(n_in - 1, 0)), valid


def _adaptive_axis(n_in, n_out):
    o = np.arange(n_out)
    start = (o * n_in) // n_out
    end = ((o + 1) * n_in + n_out - 1) // n_out
    k = int((end - start).max()) if n_out else 1
    pos = start[:, None] + np.arange(k)[None, :]
    valid = pos < end[:, None]
    return np.clip(pos, 0, max(n_in - 1, 0)), valid, (end - start)


def _avg_divisor(n_in, n_out, k, s, p, count_include_pad):
    start = np.arange(n_out) * s - p
    end = np.minimum(start + k, n_in + p)
    size = end - start
    lo, hi = np.maximum(start, 0), np.minimum(end, n_in)
    return size if count_include_pad else np.maximum(hi - lo, 0)


# ---- separable reductions (jax) ----------------------------------------------------------------------------
def _gather(v, idx, ax, lead):
    """Gather the (out, k) window positions `idx` (static (o, k), or per-plane (lead..., o, k)) along axis
    ax of v: v.shape[:ax] + (o, k) + v.shape[ax + 1:]."""
    o, k = idx.shape[-2:]
    shape = idx.shape[:-2] + (1,) * (ax - lead) + (o * k,) + (1,) * (v.ndim - ax - 1)
    i = jnp.asarray(idx).reshape(shape)
    g = jnp.take_along_axis(v, i, axis=ax)
    return g.reshape(v.shape[:ax] + (o, k) + v.shape[ax + 1 :])


def _mask(valid, ax, ndim, lead):
    o, k = valid.shape[-2:]
    return jnp.asarray(valid).reshape(valid.shape[:-2] + (1,) * (ax - lead) + (o, k) + (1,) * (ndim - ax - 2))


def _choose(g, m, axis):
    """The window slot PyTorch's max scan ends on: last NaN, else first maximum, else (all lowest) first
    valid."""
    m = jnp.broadcast_to(m, g.shape)
    low = MW.lowest(g.dtype)
    vm = jnp.where(m, g, low)
    k = jnp.where(jnp.max(vm, axis=axis) == low, jnp.argmax(m, axis=axis), jnp.argmax(vm, axis=axis))
    if jnp.issubdtype(g.dtype, jnp.floating):
        isn = jnp.isnan(g) & m
        last = g.shape[axis] - 1 - jnp.argmax(jnp.flip(isn, axis=axis), axis=axis)
        k = jnp.where(jnp.any(isn, axis=axis), last, k)
    return jnp.expand_dims(k, axis)


def max_windows(x, wins, lead=0):
    """Max over separable windows: x (..., *in) with wins [(idx, valid)] per spatial dim. Returns (values,
    flat input index int64). `lead`: number of leading dims the per-plane indices carry."""
    nd = len(wins)
    first = x.ndim - nd
    in_sizes = x.shape[first:]
    vals, coords = x, []
    for j in reversed(range(nd)):
        ax = first + j
        idx, valid = wins[j]
        g = _gather(vals, idx, ax, lead)
        m = _mask(valid, ax, g.ndim, lead)
        k = _choose(g, m, ax + 1)
        pos = jnp.broadcast_to(_mask(idx, ax, g.ndim, lead), g.shape).astype(jnp.int64)
        vals = jnp.take_along_axis(g, k, axis=ax + 1).squeeze(ax + 1)
        coords = [
            jnp.take_along_axis(_gather(c, idx, ax, lead), k, axis=ax + 1).squeeze(ax + 1) for c in coords
        ]
        coords.append(jnp.take_along_axis(pos, k, axis=ax + 1).squeeze(ax + 1))
    flat = 0
    for j, c in zip(reversed(range(nd)), coords):
        flat = flat + c * int(np.prod(in_sizes[j + 1 :], dtype=np.int64))
    return vals, jnp.asarray(flat, jnp.int64)


def sum_windows(x, wins):
    nd = len(wins)
    first = x.ndim - nd
    vals = x
    for j in reversed(range(nd)):
        ax = first + j
        idx, valid = wins[j]
        g = _gather(vals, idx, ax, 0)
        vals = jnp.where(_mask(valid, ax, g.ndim, 0), g, jnp.zeros((), g.dtype)).sum(axis=ax + 1)
    return vals


# ---- max pooling -------------------------------------------------------------------------------------------
_DIMNAMES = {2: ("H", "W"), 3: ("T", "H", "W")}


def _list_arg(name, what, v, nd, allow_empty=False):
    words = {2: "two", 3: "three"}[nd]
    v = int_list(v, 1) if not isinstance(v, (list, tuple)) else int_list(v)
    ok = len(v) in (1, nd) or (allow_empty and not v)
    if not ok:
        if what == "stride":
            tail = (
                f"stride must either be omitted, a single int, or a tuple of {words} ints"
                if nd == 2
                else f"stride must either be omitted, a single int, or a tuple of {words} ints"
            )
        elif what == "dilation":
            tail = f"dilation must be either a single int, or a tuple of {words} ints"
        else:
            tail = f"{what} must either be a single int, or a tuple of {words} ints"
        raise RuntimeError(f"{name}: {tail}")
    return v


def _full(v, nd, default=None):
    if not v:
        return default
    return v * nd if len(v) == 1 else tuple(v)


def _shape_check(
    input, nd, k, s, p, d, out, avg3d=False, fn_name="max_pool3d_with_indices_out_cpu_template()"
):
    """pool2d_shape_check / pool3d_shape_check."""
    names = _DIMNAMES[nd]
    shp = input._shape
    if not all(x > 0 for x in k):
        raise RuntimeError(
            "kernel size should be greater than zero, but got "
            + " ".join(f"k{n}: {x}" for n, x in zip(names, k))
        )
    if not all(x > 0 for x in s):
        raise RuntimeError(
            "stride should be greater than zero, but got " + " ".join(f"d{n}: {x}" for n, x in zip(names, s))
        )
    if not all(x > 0 for x in d):
        raise RuntimeError(
            "dilation should be greater than zero, but got "
            + " ".join(f"dilation{n}: {x}" for n, x in zip(names, d))
        )
    ins = shp[-nd:]
    if nd == 2:
        valid = shp[1] != 0 and shp[2] != 0
        if not ((input.ndim == 3 and shp[0] != 0 and valid) or (input.ndim == 4 and valid and shp[3] != 0)):
            raise RuntimeError(
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                f"got:{sizes(input)}"
            )
        if not (k[1] // 2 >= p[1] and k[0] // 2 >= p[0]):
            raise RuntimeError(
                f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
                f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}"
            )
    else:
        if input.ndim not in (4, 5):
            raise RuntimeError(f"{fn_name}: Expected 4D or 5D tensor for input, but got: {sizes(input)}")
        for i in range(input.ndim):
            if input.ndim == 5 and i == 0:
                continue
            if shp[i] <= 0:
                raise RuntimeError(
                    f"{fn_name}: Expected input's non-batch dimensions to have positive length, but "
                    f"input has a shape of {sizes(input)} and non-batch dimension {shp[i]} has length "
                    "zero!"
                )
        if avg3d and not all(i >= kk for i, kk in zip(ins, k)):
            raise RuntimeError(
                f"input image (T: {ins[0]} H: {ins[1]} W: {ins[2]}) smaller than kernel size (kT: "
                f"{k[0]} kH: {k[1]} kW: {k[2]})"
            )
        if not (k[0] // 2 >= p[0] and k[2] // 2 >= p[2] and k[1] // 2 >= p[1]):
            raise RuntimeError(
                f"pad should be smaller than or equal to half of kernel size, but got kT: {k[0]} kW: "
                f"{k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}"
            )
    if not all(o >= 1 for o in out):
        c = shp[-nd - 1]
        raise RuntimeError(
            f"Given input size: ({'x'.join(map(str, (c,) + ins))}). Calculated output size: ("
            f"{'x'.join(map(str, (c,) + tuple(out)))}). Output size is too small"
        )


def _max_pool_nd(nd, name, input, kernel_size, stride, padding, dilation, ceil_mode, indices=True):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    short = f"max_pool{nd}d"
    k = _full(_list_arg(short, "kernel_size", kernel_size, nd), nd)
    s = _full(_list_arg(short, "stride", stride, nd, allow_empty=True), nd, k)
    p = _full(_list_arg(short, "padding", padding, nd), nd)
    d = _full(_list_arg(short, "dilation", dilation, nd), nd)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    ins = input._shape[-nd:]
    out = tuple(pool_out(ins[j], k[j], p[j], s[j], d[j], bool(ceil_mode)) for j in range(nd))
    _shape_check(input, nd, k, s, p, d, out)
    dt = input._dtype
    if dt is D.bool_ or dt.is_complex:
        raise not_implemented(short, dt)
    dev = input._storage.device
    if not indices:
        return P.fresh(MW.max_pool(input._value, k, s, p, d, out), dt, dev), None
    vals, idx = MW.max_pool_with_indices(input._value, kernel=k, stride=s, padding=p, dilation=d, out=out)
    return P.fresh(vals, dt, dev), P.fresh(idx, D.int64, dev)


def _max_pool_with_indices(nd):
    name = f"max_pool{nd}d_with_indices"

    def f(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return _max_pool_nd(nd, name, input, kernel_size, stride, padding, dilation, ceil_mode)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (
        f"`torch._C._nn.{name}(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)` -> "
        "(output, indices): indices are flat positions in each input plane."
    )
    return f


def _max_pool(nd):
    name = f"max_pool{nd}d"

    def f(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return _max_pool_nd(nd, name, input, kernel_size, stride, padding, dilation, ceil_mode, False)[0]

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`torch.{name}(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)`."
    return f


for _n in (2, 3):
    register(f"max_pool{_n}d", method=False, kind="nn", grad_name=f"MaxPool{_n}DWithIndicesBackward0")(
        _max_pool(_n))
    register(f"max_pool{_n}d_with_indices", method=False, function=False, kind="nn",
             grad_name=f"MaxPool{_n}DWithIndicesBackward0")(_max_pool_with_indices(_n))


def _check1d(fn, arg, v):
    if len(v) != 1:
        raise RuntimeError(f"{fn}() argument '{arg}' should contain one int (got {len(v)})")


def _dim_range(fn, t, lo, hi):
    if not lo <= t.ndim < hi:
        raise RuntimeError(
            f"Expected {lo} to {hi - 1} dimensions, but got {t.ndim}-dimensional tensor for argument #1 "
            f"'self' (while checking arguments for {fn})"
        )


@register("max_pool1d_with_indices", method=False, kind="nn", grad_name="SqueezeBackward1")
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """`torch.max_pool1d_with_indices(input, kernel_size, stride=[], padding=0, dilation=1,
    ceil_mode=False)`."""
    k, s = int_list(kernel_size), int_list(stride)
    if not s:
        s = k
    _dim_range("max_pool1d", input, 2, 4)
    p, d = int_list(padding), int_list(dilation)
    for arg, v in (("kernel_size", k), ("stride", s), ("padding", p), ("dilation", d)):
        _check1d("max_pool1d", arg, v)
    out, idx = _max_pool_nd(
        2,
        "max_pool1d_with_indices",
        input.unsqueeze(-2),
        (1, k[0]),
        (1, s[0]),
        (0, p[0]),
        (1, d[0]),
        ceil_mode,
    )
    return out.squeeze(-2), idx.squeeze(-2)


@register("max_pool1d", method=False, kind="nn", grad_name="SqueezeBackward1")
def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """`torch.max_pool1d(input, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)`."""
    shp = input._shape
    if not (
        (input.ndim == 2 and shp[0] != 0 and shp[1] != 0) or (input.ndim == 3 and shp[1] != 0 and shp[2] != 0)
    ):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
            f"input, but got:{sizes(input)}"
        )
    k, s, p, d = int_list(kernel_size), int_list(stride), int_list(padding), int_list(dilation)
    if len(k) != 1:
        raise RuntimeError(
            f"max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got "
            f"size {len(k)}"
        )
    if len(s) > 1:
        raise RuntimeError(
            "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but "
            f"got size {len(s)}"
        )
    if len(p) != 1:
        raise RuntimeError(
            f"max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got "
            f"size {len(p)}"
        )
    if len(d) != 1:
        raise RuntimeError(
            f"max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got "
            f"size {len(d)}"
        )
    s = s or k
    if k[0] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k[0]}")
    if s[0] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s[0]}")
    if p[0] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p[0]}")
    if p[0] > k[0] // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p[0]} and "
            f"kernel_size={k[0]}"
        )
    if d[0] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d[0]}")
    ow = pool_out(shp[-1], k[0], p[0], s[0], d[0], bool(ceil_mode))
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")
    # PyTorch runs max_pool1d_with_indices when the input requires grad, else its own kernel (floating only)
    if not input._dtype.is_floating_point and not input._requires_grad:
        raise not_implemented("max_pool1d_impl", input._dtype)
    out = _max_pool_nd(2, "max_pool1d_with_indices", input.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]),
                       (1, d[0]), ceil_mode, False)[0]
    return out.squeeze(-2)


# ---- average pooling ---------------------------------------------------------------------------------------
@partial(_fjit, static_argnames=("kernel", "stride", "padding", "out", "count_include_pad", "divisor"))
def _avg_pool_k(x, kernel, stride, padding, out, count_include_pad, divisor):
    nd = len(kernel)
    ins = x.shape[x.ndim - nd :]
    wins = [_regular_axis(ins[j], out[j], kernel[j], stride[j], padding[j], 1) for j in range(nd)]
    dt = x.dtype
    acc = jnp.float32 if dt in _LOW else dt
    total = sum_windows(x.astype(acc), wins)
    if divisor is None:
        div = np.ones((), np.int64)
        for j in range(nd):
            dj = _avg_divisor(ins[j], out[j], kernel[j], stride[j], padding[j], count_include_pad)
            div = np.multiply.outer(div, dj) if div.ndim else dj
        div = div.reshape(out)
    else:
        div = np.asarray(divisor)
    if jnp.issubdtype(acc, jnp.integer):
        safe = jnp.broadcast_to(jnp.asarray(np.where(div == 0, 1, div), acc), total.shape)
        return jax.lax.div(total, safe).astype(dt)
    return (total / jnp.asarray(div, acc)).astype(dt)


def _avg_pool_nd(nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    name = f"avg_pool{nd}d"
    words = {2: "two", 3: "three"}[nd]
    k, s, p = (
        int_list(kernel_size, 1),
        int_list(stride, 1) if stride is not None else (),
        int_list(padding, 1),
    )
    either = "either " if nd == 2 else ""
    if len(k) not in (1, nd):
        raise RuntimeError(f"{name}: kernel_size must {either}be a single int, or a tuple of {words} ints")
    if len(s) not in (0, 1, nd):
        raise RuntimeError(
            f"{name}: stride must {either}be omitted, a single int, or a tuple of {words} ints"
        )
    if len(p) not in (1, nd):
        raise RuntimeError(f"{name}: padding must {either}be a single int, or a tuple of {words} ints")
    k, p = _full(k, nd), _full(p, nd)
    s = _full(s, nd, k)
    if nd == 3 and input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and operator.index(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    if nd == 2 and input.ndim < 3:
        from .._tensor import _wrap_dim

        _wrap_dim(-3, input.ndim)
    ins = input._shape[-nd:]
    out = tuple(pool_out(ins[j], k[j], p[j], s[j], 1, bool(ceil_mode)) for j in range(nd))
    _shape_check(input, nd, k, s, p, (1,) * nd, out, avg3d=True, fn_name="avg_pool3d()")
    dt = input._dtype
    ok = dt.is_floating_point and (nd == 2 or dt not in (D.float16, D.bfloat16)) or dt is D.int64
    if not ok:
        raise not_implemented("avg_pool2d" if nd == 2 else "avg_pool3d_out_frame", dt)
    r = _avg_pool_k(
        input._value,
        kernel=k,
        stride=s,
        padding=p,
        out=out,
        count_include_pad=bool(count_include_pad),
        divisor=None if divisor_override is None else int(divisor_override),
    )
    return P.fresh(r, dt, input._storage.device)


@register("avg_pool2d", method=False, function=False, functional=True, kind="nn",
          grad_name="AvgPool2DBackward0")
def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """`F.avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)`."""
    return _avg_pool_nd(
        2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


@register("avg_pool3d", method=False, function=False, functional=True, kind="nn",
          grad_name="AvgPool3DBackward0")
def avg_pool3d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """`F.avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)` (float16/bfloat16 raise, as on PyTorch's CPU)."""
    return _avg_pool_nd(
        3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


@register("avg_pool1d", method=False, functional=True, kind="nn", grad_name="SqueezeBackward1")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """`torch.avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)`
    (also `F.avg_pool1d`)."""
    k = int_list(kernel_size)
    s = int_list(stride) if stride is not None else ()
    s = s or k
    p = int_list(padding)
    _dim_range("avg_pool1d", input, 2, 4)
    for arg, v in (("kernel_size", k), ("stride", s), ("padding", p)):
        _check1d("avg_pool1d", arg, v)
    out = _avg_pool_nd(
        2, input.unsqueeze(-2), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode, count_include_pad, None
    )
    return out.squeeze(-2)


from . import nn_adaptive_pool, nn_unpool  # noqa: E402,F401  (register adaptive pooling, unpooling, fractional)

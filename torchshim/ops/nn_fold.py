"""Convolutions computed tap by tap, as ATen does: conv_tbc (one matrix product per kernel tap, accumulated
into the output) and im2col / col2im, the aten ops behind `F.unfold` and `F.fold` (their Python wrappers are
in torchshim/nn/functional/conv.py: one strided slice, or one strided accumulation, per kernel tap).
float16/bfloat16 accumulations are rounded after each addition, as ATen's loops do.
"""

import operator
from functools import partial

import jax.numpy as jnp

from .. import _dtype as D
from .._precision import for_dtype as mm_precision
from .._promotion import short_name
from . import _dispatch as P
from ._registry import register
from .movement import not_implemented
from .nn_conv import _LOW, _tensor, device_of, int_list, round_to, sizes
from .._fused import jit as _fjit


# ---- conv_tbc ----------------------------------------------------------------------------------------------
@partial(_fjit, static_argnames=("pad", "olen"))
def _tbc_k(x, w, b, pad, olen):
    """ATen's loop: output = bias; output[o:o+t] += input[i:i+t] @ weight[k] for each kernel tap k."""
    ilen, batch = x.shape[:2]
    kw, cout = w.shape[0], w.shape[2]
    dt = x.dtype
    acc = jnp.float32 if dt in _LOW else dt
    prec = mm_precision(dt)  # ATen: one addmm per tap
    out = jnp.broadcast_to(b.astype(dt).astype(acc), (olen, batch, cout))
    real_pad = _tdiv(olen - ilen + kw - 1, 2)
    for k in range(kw):
        i_shift, o_shift = max(0, k - real_pad), max(0, real_pad - k)
        t = min(ilen + real_pad - k, olen) - o_shift
        if t > 0:
            prod = jnp.matmul(x[i_shift : i_shift + t].astype(acc), w[k].astype(acc), precision=prec)
            r = out[o_shift : o_shift + t] + prod
            out = out.at[o_shift : o_shift + t].set(round_to(r, dt) if dt in _LOW else r)
    return out.astype(dt)


def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@register("conv_tbc", method=False, functional=True, kind="nn")
def conv_tbc(input, weight, bias, pad=0):
    """`torch.conv_tbc(input, weight, bias, pad=0)`: 1-d convolution of a (time, batch, channel) input with a
    (kernel_width, in_channels, out_channels) weight, computed as ATen does (one matrix product per tap)."""
    for i, (n, t) in enumerate((("self", input), ("weight", weight), ("bias", bias))):
        _tensor("conv_tbc", i + 1, n, t)
    pad = operator.index(pad)
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input._shape[2] != weight._shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight._shape[2] != bias._shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input._dtype.is_complex and any(t._requires_grad for t in (input, weight, bias)):
        raise RuntimeError(
            "conv_tbc does not support automatic differentiation for outputs with complex dtype."
        )
    ilen, batch = input._shape[:2]
    kw, cout = weight._shape[0], weight._shape[2]
    olen = ilen - kw + 1 + pad * 2
    if olen < 0:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {olen}: [{olen}, {batch}, {cout}]"
        )
    dt = input._dtype
    real_pad = _tdiv(olen - ilen + kw - 1, 2)
    runs = any(min(ilen + real_pad - k, olen) - max(0, real_pad - k) > 0 for k in range(kw))
    if runs and input.numel() and weight.numel():
        if dt is D.bool_:
            raise not_implemented("addmm_impl_cpu_", dt)
        if weight._dtype is not dt:
            raise RuntimeError(
                f"self and mat2 must have the same dtype, but got {short_name(dt)} and "
                f"{short_name(weight._dtype)}"
            )
    dev = device_of(input, weight, bias)
    return P.fresh(_tbc_k(input._value, weight._value, bias._value, pad=pad, olen=olen), dt, dev)


# ---- im2col / col2im (F.unfold / F.fold) -------------------------------------------------------------------
def _pairs(name, **params):
    out = {}
    for k, v in params.items():
        v = int_list(v, 2)
        if len(v) != 2:
            raise RuntimeError(f"It is expected {k} equals to 2, but got size {len(v)}")
        out[k] = v
    return out


def _geometry_checks(order, kernel_size, dilation, padding, stride):
    msgs = {
        "kernel": (
            all(k > 0 for k in kernel_size),
            "kernel size should be greater than zero, but got kernel_height: "
            f"{kernel_size[0]} kernel_width: {kernel_size[1]}",
        ),
        "dilation": (
            all(d > 0 for d in dilation),
            "dilation should be greater than zero, but got dilation_height: "
            f"{dilation[0]} dilation_width: {dilation[1]}",
        ),
        "padding": (
            all(p >= 0 for p in padding),
            f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: {padding[1]}",
        ),
        "stride": (
            all(s > 0 for s in stride),
            "stride should be greater than zero, but got stride_height: "
            f"{stride[0]} stride_width: {stride[1]}",
        ),
    }
    for key in order:
        ok, msg = msgs[key]
        if not ok:
            raise RuntimeError(msg)


def _blocks(size, k, d, p, s):
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


@partial(_fjit, static_argnames=("kernel_size", "dilation", "padding", "stride", "out"))
def _im2col_k(x, kernel_size, dilation, padding, stride, out):
    n, c = x.shape[:2]
    xp = jnp.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    cols = []
    for i in range(kernel_size[0]):
        for j in range(kernel_size[1]):
            h0, w0 = i * dilation[0], j * dilation[1]
            cols.append(
                xp[
                    :,
                    :,
                    h0 : h0 + (out[0] - 1) * stride[0] + 1 : stride[0],
                    w0 : w0 + (out[1] - 1) * stride[1] + 1 : stride[1],
                ]
            )
    cols = jnp.stack(cols, axis=2)  # (n, c, kh*kw, oh, ow)
    return cols.reshape(n, c * kernel_size[0] * kernel_size[1], out[0] * out[1])


def im2col(input, kernel_size, dilation, padding, stride):
    """`torch._C._nn.im2col(input, kernel_size, dilation, padding, stride)`: the kernel of `F.unfold`."""
    _tensor("im2col", 1, "input", input)
    a = _pairs("im2col", kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    ks, dl, pd, st = a["kernel_size"], a["dilation"], a["padding"], a["stride"]
    _geometry_checks(("kernel", "dilation", "padding", "stride"), ks, dl, pd, st)
    nd = input.ndim
    shp = input._shape
    if nd < 3:
        from .._tensor import _wrap_dim

        _wrap_dim(2, nd)  # PyTorch reads input.size(2) first: its IndexError
    valid = shp[1] != 0 and shp[2] != 0
    if not ((nd == 3 and shp[0] != 0 and valid) or (nd == 4 and valid and shp[3] != 0)):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {sizes(input)}"
        )
    h, w = shp[-2:]
    out = (_blocks(h, ks[0], dl[0], pd[0], st[0]), _blocks(w, ks[1], dl[1], pd[1], st[1]))
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size=({ks[0]}, {ks[1]}), dilation=("
            f"{dl[0]}, {dl[1]}), padding=({pd[0]}, {pd[1]}), calculated shape of the array of sliding "
            f"blocks as ({out[0]}, {out[1]}), but its components must be at least one."
        )
    dt = input._dtype
    if not (dt.is_floating_point or dt.is_complex or dt is D.bool_):
        raise not_implemented("im2col_out_cpu", dt)
    x = input._value if nd == 4 else input._value[None]
    r = _im2col_k(x, kernel_size=ks, dilation=dl, padding=pd, stride=st, out=out)
    return P.fresh(r if nd == 4 else r[0], dt, input._storage.device)


@partial(_fjit, static_argnames=("output_size", "kernel_size", "dilation", "padding", "stride", "blocks"))
def _col2im_k(x, output_size, kernel_size, dilation, padding, stride, blocks):
    n = x.shape[0]
    kh, kw = kernel_size
    c = x.shape[1] // (kh * kw)
    dt = x.dtype
    low = dt in _LOW  # 16-bit floats: each addition rounded, as ATen's col2im loop
    acc = jnp.int32 if dt == jnp.bool_ else (jnp.float32 if low else dt)
    cols = x.reshape(n, c, kh, kw, blocks[0], blocks[1]).astype(acc)
    hp, wp = output_size[0] + 2 * padding[0], output_size[1] + 2 * padding[1]
    hp = max(hp, (blocks[0] - 1) * stride[0] + (kh - 1) * dilation[0] + 1)
    wp = max(wp, (blocks[1] - 1) * stride[1] + (kw - 1) * dilation[1] + 1)
    out = jnp.zeros((n, c, hp, wp), acc)
    for i in range(kh):
        for j in range(kw):
            h0, w0 = i * dilation[0], j * dilation[1]
            sl = (
                slice(None),
                slice(None),
                slice(h0, h0 + (blocks[0] - 1) * stride[0] + 1, stride[0]),
                slice(w0, w0 + (blocks[1] - 1) * stride[1] + 1, stride[1]),
            )
            r = out[sl] + cols[:, :, i, j]
            out = out.at[sl].set(round_to(r, dt) if low else r)
    out = out[:, :, padding[0] : padding[0] + output_size[0], padding[1] : padding[1] + output_size[1]]
    return (out != 0) if dt == jnp.bool_ else out.astype(dt)


def col2im(input, output_size, kernel_size, dilation, padding, stride):
    """`torch._C._nn.col2im(input, output_size, kernel_size, dilation, padding, stride)`: the kernel of
    `F.fold` (overlapping values are summed)."""
    _tensor("col2im", 1, "input", input)
    a = _pairs(
        "col2im",
        output_size=output_size,
        kernel_size=kernel_size,
        dilation=dilation,
        padding=padding,
        stride=stride,
    )
    os_, ks, dl, pd, st = a["output_size"], a["kernel_size"], a["dilation"], a["padding"], a["stride"]
    _geometry_checks(("kernel", "stride", "dilation", "padding"), ks, dl, pd, st)
    nd, shp = input.ndim, input._shape
    if not ((nd == 2 and shp[0] != 0 and shp[1] != 0) or (nd == 3 and shp[1] != 0 and shp[2] != 0)):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {sizes(input)}"
        )
    planes, length = shp[-2], shp[-1]
    if planes % (ks[0] * ks[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
            f"got input.size(1)={planes} and kernel_size=({ks[0]}, {ks[1]})."
        )
    bh, bw = _blocks(os_[0], ks[0], dl[0], pd[0], st[0]), _blocks(os_[1], ks[1], dl[1], pd[1], st[1])
    desc = (
        f"Given output_size=({os_[0]}, {os_[1]}), kernel_size=({ks[0]}, {ks[1]}), "
        f"dilation=({dl[0]}, {dl[1]}), "
        f"padding=({pd[0]}, {pd[1]}), stride=({st[0]}, {st[1]}), "
    )
    if length != bh * bw:
        raise RuntimeError(
            f"{desc}expected size of input's dimension 2 to match the calculated number of sliding "
            f"blocks {bh} * {bw} = {bh * bw}, but got input.size(2)={length}."
        )
    if bh < 1 or bw < 1:
        raise RuntimeError(
            f"{desc}calculated shape of the array of sliding blocks as ({bh}, {bw}), which is too small "
            "(non-positive)"
        )
    if os_[0] < 1 or os_[1] < 1:
        raise RuntimeError(
            f"Expected output spatial size to be positive, but got: output_size=({os_[0]}, {os_[1]})."
        )
    dt = input._dtype
    if not (dt.is_floating_point or dt.is_complex or dt is D.bool_):
        raise not_implemented("col2im_out_cpu", dt)
    x = input._value if nd == 3 else input._value[None]
    r = _col2im_k(x, output_size=os_, kernel_size=ks, dilation=dl, padding=pd, stride=st, blocks=(bh, bw))
    return P.fresh(r if nd == 3 else r[0], dt, input._storage.device)


register("im2col", method=False, function=False, kind="nn", grad_name="Im2ColBackward0")(im2col)
register("col2im", method=False, function=False, kind="nn", grad_name="Col2ImBackward0")(col2im)

"""Convolutions: `convolution`, conv1d/2d/3d (padding as numbers or 'same'/'valid'), conv_transpose1d/2d/3d,
conv_tbc and im2col/col2im (the aten ops behind `F.unfold`/`F.fold`) are in nn_fold.py.

Every convolution is one `jax.lax.conv_general_dilated` call in a jitted kernel (static geometry); transposed
convolutions are the same call with the input dilated by the stride and the kernel flipped and regrouped.
Checks follow ATen's `_convolution` (argument expansion, check_shape_forward) and the CPU backend it would
pick (slow_conv2d / slow_conv_dilated / slow_conv_transpose: which dtypes each supports). float16/bfloat16 are
computed in float32 and rounded once; complex inputs use PyTorch's 3-multiplication (Gauss) decomposition, so
their values and `grad_fn` (AddBackward0) are PyTorch's.
"""

import math
import operator
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._promotion import c_name, can_cast, promote_types, short_name
from .._tensor import Tensor
from .._warnings import warn_once
from . import _dispatch as P
from ._registry import register
from .movement import not_implemented
from .reduction import invalid_args
from .._fused import jit as _fjit

HI = jax.lax.Precision.HIGHEST
_LOW = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))


def round_to(x, dt):
    """float32 `x` rounded to the 16-bit float type `dt` (kept float32): an explicit rounding XLA can't elide
    (it may otherwise keep float16/bfloat16 intermediates in float32, `xla_allow_excess_precision`)."""
    fi = jnp.finfo(dt)
    return jax.lax.reduce_precision(x, exponent_bits=fi.nexp, mantissa_bits=fi.nmant)


# ---- argument parsing shared with pooling/vision -----------------------------------------------------------
def int_list(v, n=None):
    """PyTorch's parsing of an `int[n]` argument: an int is repeated n times (once for `int[]`), a sequence is
    taken as it is."""
    if isinstance(v, Tensor):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return tuple(operator.index(x) for x in v)
    v = operator.index(v)
    return (v,) * (n or 1)


def fmt(seq):
    """An int list as PyTorch prints it: [1, 2]."""
    return "[" + ", ".join(str(x) for x in seq) + "]"


def sizes(t):
    return fmt(t._shape)


def device_of(*tensors):
    return P.check_devices([t for t in tensors if t is not None])


def _type_str(d):
    """`tensor.type().toString()` in ATen messages: torch.FloatTensor, CPUComplexFloatType."""
    if d.is_complex:
        return f"CPU{short_name(d)}Type"
    return f"torch.{short_name(d)}Tensor"


def _tensor(name, pos, argname, x):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}(): argument '{argname}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )


# ---- ATen's checks -----------------------------------------------------------------------------------------
def _expand(vals, name, dim):
    if len(vals) == 1:
        return vals * dim
    if len(vals) != dim:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dim} values to match the "
            f"convolution dimensions, but got {name}={fmt(vals)}"
        )
    return tuple(vals)


def _check_shape_forward(input, weight, bias, padding, stride, dilation, transposed, output_padding, groups):
    k, wd = input.ndim, weight.ndim
    ws = weight._shape
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if wd != k:
        raise RuntimeError(
            f"Expected {wd}-dimensional input for {wd}-dimensional weight {fmt(ws)}, but got {k}-"
            f"dimensional input of size {sizes(input)} instead"
        )
    if ws[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
            f"weight of size {fmt(ws)} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
            f"got weight of size [{fmt(ws)}] instead"
        )
    if not transposed:
        if input._shape[1] != ws[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {fmt(ws)}, expected input{sizes(input)} to "
                f"have {ws[1] * groups} channels, but got {input._shape[1]} channels instead"
            )
        if bias is not None and (bias.ndim != 1 or bias._shape[0] != ws[0]):
            raise RuntimeError(
                f"Given weight of size {fmt(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                f"elements, but got bias of size {sizes(bias)} instead"
            )
        ins = [input._shape[i] + 2 * padding[i - 2] for i in range(2, k)]
        ker = [dilation[i - 2] * (ws[i] - 1) + 1 for i in range(2, k)]
        if any(a < b for a, b in zip(ins, ker)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, ins))}). Kernel "
                f"size: ({' x '.join(map(str, ker))}). Kernel size can't be greater than actual input "
                "size"
            )
    else:
        if input._shape[1] != ws[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {fmt(ws)}, expected input{sizes(input)} to have "
                f"{ws[0]} channels, but got {input._shape[1]} channels instead"
            )
        if bias is not None and (bias.ndim != 1 or bias._shape[0] != ws[1] * groups):
            raise RuntimeError(
                f"Given transposed=1, weight of size {fmt(ws)}, expected bias to be 1-dimensional "
                f"with {ws[1] * groups} elements, but got bias of size {sizes(bias)} instead"
            )


_HW = ("height", "width")
_DHW = ("depth", "height", "width")


def _named(label, vals, sep=" "):
    names = _DHW if len(vals) == 3 else _HW
    return sep.join(f"{label}_{n}: {v}" for n, v in zip(names, vals))


def _use_mkldnn(input, weight, stride, dilation, transposed, output_padding, groups):
    """ATen's ConvParams::use_mkldnn for CPU float32 (a multi-threaded build): which backend, hence which
    messages (oneDNN's dtype/dilation checks) and which output-size behaviour."""
    if input._dtype is not D.float32:
        return False
    if transposed and any(o >= s for o, s in zip(output_padding, stride)):  # is_output_padding_big
        return False
    shp = input._shape if input.ndim != 3 else (input._shape[0], input._shape[1], 1, input._shape[2])
    ws = weight._shape if weight.ndim != 3 else weight._shape[:2] + (1,) + weight._shape[2:]
    return groups > 1 or (ws[-1] > 3 and ws[-2] > 3) or shp[0] > 1 or math.prod(shp[:4]) > 20480


def _backend_checks(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """The CPU kernel PyTorch dispatches to: its geometry checks and the dtypes it is instantiated for.
    Returns True when PyTorch's result is an empty tensor without computing (oneDNN with a zero-size
    output)."""
    nd = input.ndim - 2
    dt = input._dtype
    as2d = (lambda v, fill: (fill,) + v) if nd == 1 else (lambda v, fill: v)
    if dt.is_complex:
        for other, what in ((weight, "weight"), (bias, "bias")):
            if other is not None and other._dtype is not dt:
                raise RuntimeError(
                    f"Input type ({_type_str(dt)}) and {what} type ({_type_str(other._dtype)}) should "
                    "be the same"
                )
        return False
    if _use_mkldnn(input, weight, stride, dilation, transposed, output_padding, groups):
        if not transposed and any(d <= 0 for d in dilation):
            raise RuntimeError("non-positive dilation is not supported")
        for other, what in ((weight, "weight"), (bias, "bias")):
            if other is not None and other._dtype is not dt:
                raise RuntimeError(
                    f"Input type ({_type_str(dt)}) and {what} type ({_type_str(other._dtype)}) should "
                    f"be the same or input should be a MKLDNN tensor and {what} is a dense tensor"
                )
        if transposed:
            if any(d <= 0 for d in dilation):  # oneDNN's own errors
                raise RuntimeError(
                    "dimensions are invalid"
                    if nd == 3
                    else "could not create a primitive descriptor for the deconvolution forward propagation "
                    "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get additional "
                    "diagnostic information."
                )
            outs = _transposed_size(
                input._shape[2:], weight._shape[2:], stride, padding, dilation, output_padding
            )
            if any(o < 0 for o in outs):
                raise RuntimeError("could not construct a memory descriptor using a format tag")
            return any(o == 0 for o in outs)
        return False
    if transposed:
        d2, s2, op2 = as2d(dilation, 1), as2d(stride, 1), as2d(output_padding, 0)
        if any(s <= 0 for s in s2):
            raise RuntimeError(f"stride should be greater than zero, but got {_named('stride', s2)}")
        if any(d <= 0 for d in d2):
            raise RuntimeError(
                f"dilation should be greater than zero, but got {_named('dilation', d2, ', ')}"
            )
        if not all(o < s or o < d for o, s, d in zip(op2, s2, d2)):
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"{_named('output_padding', op2)} {_named('stride', s2)} {_named('dilation', d2)}"
            )
        kernel = "slow_conv_transpose3d_out_cpu" if nd == 3 else "slow_conv_transpose2d_out_cpu"
        ok = dt.is_floating_point or dt is D.int64
    elif any(d != 1 for d in dilation):
        if any(d <= 0 for d in dilation):
            raise RuntimeError(f"dilation should be greater than zero, but got {fmt(as2d(dilation, 1))}")
        kernel, ok = "slow_conv_dilated<>", dt.is_floating_point or dt is D.int64
    else:
        kernel, ok = ("compute_columns3d" if nd == 3 else "slow_conv2d_cpu"), dt is not D.bool_
    if not ok:
        raise not_implemented(kernel, dt)
    if weight._dtype is not dt:
        raise RuntimeError(f"expected scalar type {short_name(dt)} but found {short_name(weight._dtype)}")
    if transposed:
        ins = as2d(input._shape[2:], 1)
        outs = as2d(
            _transposed_size(input._shape[2:], weight._shape[2:], stride, padding, dilation, output_padding),
            1,
        )
        if any(o < 1 for o in outs):
            raise RuntimeError(
                f"Given input size per channel: ({' x '.join(map(str, ins))}). Calculated output size "
                f"per channel: ({' x '.join(map(str, outs))}). Output size is too small"
            )
        if bias is not None and bias._dtype is not dt and nd == 3:
            raise RuntimeError(f"expected scalar type {short_name(dt)} but found {short_name(bias._dtype)}")
        if bias is not None and not can_cast(promote_types(dt, bias._dtype), dt):
            raise RuntimeError(
                f"result type {short_name(promote_types(dt, bias._dtype))} can't be cast to the "
                f"desired output type {short_name(dt)}"
            )
    return False


def _transposed_size(ins, ks, stride, padding, dilation, output_padding):
    return tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, k, s, p, d, op in zip(ins, ks, stride, padding, dilation, output_padding)
    )


def _output_size(ins, ks, stride, padding, dilation):
    return tuple(
        (i + 2 * p - d * (k - 1) - 1) // s + 1 for i, k, s, p, d in zip(ins, ks, stride, padding, dilation)
    )


# ---- the kernel --------------------------------------------------------------------------------------------
def _conv_real(x, w, stride, padding, dilation, transposed, output_padding, groups):
    nd = x.ndim - 2
    pet = None
    if x.dtype in _LOW:
        pet = jnp.float32
    if not transposed:
        return jax.lax.conv_general_dilated(
            x,
            w,
            stride,
            [(p, p) for p in padding],
            rhs_dilation=dilation,
            feature_group_count=groups,
            precision=HI,
            preferred_element_type=pet,
        )
    ks = w.shape[2:]
    cin, cout_g = w.shape[0], w.shape[1]
    w = w.reshape((groups, cin // groups, cout_g) + ks)
    w = jnp.swapaxes(w, 1, 2).reshape((groups * cout_g, cin // groups) + ks)
    w = jnp.flip(w, axis=tuple(range(2, 2 + nd)))
    pads = [
        (d * (k - 1) - p, d * (k - 1) - p + op) for k, p, d, op in zip(ks, padding, dilation, output_padding)
    ]
    return jax.lax.conv_general_dilated(
        x,
        w,
        (1,) * nd,
        pads,
        lhs_dilation=stride,
        rhs_dilation=dilation,
        feature_group_count=groups,
        precision=HI,
        preferred_element_type=pet,
    )


def _conv_transpose_lowp(x, w, stride, padding, dilation, output_padding, groups):
    """float16/bfloat16 transposed convolution as ATen's slow_conv_transpose computes it: the columns
    (input x weight, float32 accumulation) rounded to the input type, then col2im adding them into the output
    one kernel tap at a time, each addition rounded."""
    import itertools

    dt = x.dtype
    nd = x.ndim - 2
    n, cin = x.shape[:2]
    ins, ks = x.shape[2:], w.shape[2:]
    cout_g = w.shape[1]
    xg = x.reshape((n, groups, cin // groups) + ins).astype(jnp.float32)
    wg = w.reshape((groups, cin // groups, cout_g) + ks).astype(jnp.float32)
    sp = "defhij"[:nd]
    kk = "klmpqr"[:nd]
    cols = round_to(jnp.einsum(f"ngc{sp},gco{kk}->ngo{kk}{sp}", xg, wg, precision=HI), dt)
    outs = _transposed_size(ins, ks, stride, padding, dilation, output_padding)
    full = tuple(
        max((i - 1) * s + (k - 1) * d + 1, p + o)
        for i, k, s, d, p, o in zip(ins, ks, stride, dilation, padding, outs)
    )
    out = jnp.zeros((n, groups, cout_g) + full, jnp.float32)
    for off in itertools.product(*(range(k) for k in ks)):
        sl = (slice(None),) * 3 + tuple(
            slice(o * d, o * d + (i - 1) * s + 1, s) for o, d, i, s in zip(off, dilation, ins, stride)
        )
        out = out.at[sl].set(round_to(out[sl] + cols[(slice(None),) * 3 + off], dt))
    crop = tuple(slice(p, p + o) for p, o in zip(padding, outs))
    return out[(slice(None),) * 3 + crop].reshape((n, groups * cout_g) + outs).astype(dt)


def _with_bias(out, b, dt):
    if b is not None:
        out = out + b.astype(out.dtype).reshape((-1,) + (1,) * (out.ndim - 2))
    return out.astype(dt)


@partial(_fjit, static_argnames=("stride", "padding", "dilation", "transposed", "output_padding", "groups"))
def _conv_k(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    geo = (stride, padding, dilation, transposed, output_padding, groups)
    dt = x.dtype
    if jnp.iscomplexobj(
        x
    ):  # PyTorch's Gauss trick: a = xr*wr, b = xi*wi, c = (xr+xi)*(wr+wi); a - b + i(c - a - b)
        xr, xi, wr, wi = jnp.real(x), jnp.imag(x), jnp.real(w), jnp.imag(w)
        br = bi = None
        if b is not None:
            br, bi = jnp.real(b), jnp.imag(b)
        a = _with_bias(_conv_real(xr, wr, *geo), br, xr.dtype)
        bb = _conv_real(xi, wi, *geo)
        c = _with_bias(_conv_real(xr + xi, wr + wi, *geo), None if b is None else br + bi, xr.dtype)
        return (a - bb).astype(dt) + 1j * (c - a - bb).astype(dt)
    if dt == jnp.bool_:
        return jnp.zeros((0,), dt)  # never reached with data (the Empty backend only)
    if transposed and dt in _LOW:
        return _with_bias(
            _conv_transpose_lowp(x, w, stride, padding, dilation, output_padding, groups), b, dt
        )
    return _with_bias(_conv_real(x, w, *geo), b, dt)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """`torch.convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    groups)`: ATen's generic convolution (N spatial dims from the weight's rank)."""
    _tensor("convolution", 1, "input", input)
    _tensor("convolution", 2, "weight", weight)
    if bias is not None:
        _tensor("convolution", 3, "bias", bias)
    groups = operator.index(groups)
    if weight.ndim - 2 <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = weight.ndim - 2
    stride = _expand(int_list(stride), "stride", dim)
    padding = _expand(int_list(padding), "padding", dim)
    dilation = _expand(int_list(dilation), "dilation", dim)
    output_padding = _expand(int_list(output_padding), "output_padding", dim)
    transposed = bool(transposed)
    _check_shape_forward(input, weight, bias, padding, stride, dilation, transposed, output_padding, groups)
    dev = device_of(input, weight, bias)
    dt = input._dtype
    if input.numel() == 0:  # ATen's Empty backend: no kernel, no dtype checks
        ws = weight._shape
        if transposed:
            outs = _transposed_size(input._shape[2:], ws[2:], stride, padding, dilation, output_padding)
            shape = (input._shape[0], ws[1] * groups) + outs
        else:
            outs = _output_size(input._shape[2:], ws[2:], stride, padding, dilation)
            shape = (input._shape[0], ws[0] if input._shape[1] else 0) + outs
        return P.fresh(jnp.zeros(shape, dt.np), dt, dev)
    if _backend_checks(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
        outs = _transposed_size(
            input._shape[2:], weight._shape[2:], stride, padding, dilation, output_padding
        )
        shape = (input._shape[0], weight._shape[1] * groups) + outs
        return P.fresh(jnp.zeros(shape, dt.np), dt, dev)
    b = None if bias is None else bias._value
    out = _conv_k(
        input._value,
        weight._value,
        b,
        stride=stride,
        padding=padding,
        dilation=dilation,
        transposed=transposed,
        output_padding=output_padding,
        groups=groups,
    )
    return P.fresh(out, dt, dev)


# ---- grad_fn names (all convolutions) ----------------------------------------------------------------------
# PyTorch's nodes: convolutions end in ConvolutionBackward0, unbatched inputs in a squeeze, complex ones in
# the Gauss trick's add
def _conv_name(nd):
    def name(args, kwargs):
        x = args[0] if args else kwargs.get("input")
        if nd and x.ndim == nd + 1:
            return "SqueezeBackward1"
        return "AddBackward0" if x.is_complex() else "ConvolutionBackward0"

    return name


register("convolution", method=False, kind="nn", grad_name=_conv_name(0))(convolution)


# ---- conv1d/2d/3d, conv_transpose1d/2d/3d ------------------------------------------------------------------
def _batchify(input, nd, name):
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
            f"size: {sizes(input)}"
        )
    return (input, True) if input.ndim == nd + 2 else (input.unsqueeze(0), False)


def _unbatch(out, batched):
    return out if batched else out.squeeze(0)


def _same_padding(input, weight, stride, dilation, groups):
    """ATen's _convolution_same: symmetric padding, or the extra (right-hand) zero for even effective
    kernels."""
    k = weight.ndim
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = k - 2
    if k != input.ndim:
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight{sizes(weight)}, but got "
            f"{input.ndim}-dimensional input of size {sizes(input)} instead"
        )
    if len(stride) not in (dim, 1):
        raise RuntimeError(f"stride cannot broadcast to {dim} dimensions")
    if len(dilation) not in (dim, 1):
        raise RuntimeError(f"dilation cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    left, right = [], []
    for i in range(dim):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        total = d * (weight._shape[i + 2] - 1)
        left.append(total // 2)
        right.append(total - total // 2)
    if left == right:
        return input, tuple(left)
    warn_once(
        "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of "
        "the input be created",
        stacklevel=4,
    )
    pad_nd = [0] * (2 * dim)
    for i in range(dim):
        delta = right[i] - left[i]
        idx = 2 * (dim - 1 - i)
        if delta > 0:
            pad_nd[idx + 1] = delta
        else:
            pad_nd[idx] = delta
            left[i] = right[i]
    from .nn_vision import pad_constant

    return pad_constant(input, pad_nd, 0), tuple(left)


def _conv_nd(nd):
    name = f"conv{nd}d"

    def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
        if (
            not isinstance(input, Tensor)
            or not isinstance(weight, Tensor)
            or bias is not None
            and not isinstance(bias, Tensor)
        ):
            raise invalid_args(name, input, weight, *(() if bias is None else (bias,)))
        if bias is not None and bias._dtype is not input._dtype:
            raise RuntimeError(
                f"Input type ({c_name(input._dtype)}) and bias type ({c_name(bias._dtype)}) should "
                "be the same"
            )
        x, batched = _batchify(input, nd, name)
        stride, dilation = int_list(stride, nd), int_list(dilation, nd)
        groups = operator.index(groups)
        if isinstance(padding, str):
            if padding == "same":
                x, padding = _same_padding(x, weight, stride, dilation, groups)
            elif padding == "valid":
                padding = (0,)
            else:
                raise RuntimeError(f"Invalid padding string: '{padding}'")
        else:
            padding = int_list(padding, nd)
        out = convolution(x, weight, bias, stride, padding, dilation, False, (0,), groups)
        return _unbatch(out, batched)

    conv.__name__ = conv.__qualname__ = name
    conv.__doc__ = (
        f"`torch.{name}(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)` (also "
        f"`F.{name}`); padding may be 'same' or 'valid'."
    )
    return conv


def _conv_transpose_nd(nd):
    name = f"conv_transpose{nd}d"

    def conv_transpose(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        if (
            not isinstance(input, Tensor)
            or not isinstance(weight, Tensor)
            or bias is not None
            and not isinstance(bias, Tensor)
        ):
            raise invalid_args(name, input, weight, *(() if bias is None else (bias,)))
        if isinstance(padding, str):
            raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
        x, batched = _batchify(input, nd, name)
        out = convolution(
            x,
            weight,
            bias,
            int_list(stride, nd),
            int_list(padding, nd),
            int_list(dilation, nd),
            True,
            int_list(output_padding, nd),
            operator.index(groups),
        )
        return _unbatch(out, batched)

    conv_transpose.__name__ = conv_transpose.__qualname__ = name
    conv_transpose.__doc__ = (
        f"`torch.{name}(input, weight, bias=None, stride=1, padding=0, output_padding=0, "
        f"groups=1, dilation=1)` (also `F.{name}`)."
    )
    return conv_transpose


for _n in (1, 2, 3):
    register(f"conv{_n}d", method=False, functional=True, kind="nn", grad_name=_conv_name(_n))(_conv_nd(_n))
    register(f"conv_transpose{_n}d", method=False, functional=True, kind="nn", grad_name=_conv_name(_n))(
        _conv_transpose_nd(_n))


from . import nn_fold  # noqa: E402,F401  (registers im2col/col2im)

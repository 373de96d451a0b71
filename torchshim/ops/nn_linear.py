"""torch.nn.functional ops, linear layers: `F.linear` (PyTorch has no `torch.linear`) and `torch.bilinear` /
`F.bilinear`.

Each runs as one jitted kernel; the checks (and so the error messages) and the `grad_fn` names follow the ATen
path PyTorch takes: `linear` is `addmm(bias, input, weight.t())` for a 2-D input with bias, the same on the
input flattened to 2-D for a contiguous input with a 1-D bias (viewed back: `ViewBackward0`), and otherwise
`matmul(input, weight.t())` followed by an in-place `add_(bias)`. Products run at `Precision.HIGHEST` (float32
ones at the float32 matmul precision), half types accumulate in float32 (as linalg.py).
"""
import math

import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import c_name, can_cast, result_type_of, short_name
from .._tensor import Tensor, _wrap_dim
from . import _dispatch as P
from ._registry import register
from .linalg import _matmul_check, _matmul_name, _mm_check, mm_precision
from .linalg_addmm import _expand_check
from .movement import not_implemented

_LOW = (D.float16.np, D.bfloat16.np)


def _tensor_arg(name, pos, argname, x, optional=False):
    if optional and x is None:
        return
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _prod(a, b):
    """a @ b, accumulating half types in float32 (the result stays float32 for them: round once, later)."""
    pet = jnp.float32 if a.dtype in _LOW else None
    return jnp.matmul(a, b, precision=mm_precision(a.dtype), preferred_element_type=pet)


@P.kernel(static=("path", "out_shape", "rdt"))
def _linear_k(x, w, b, path, out_shape, rdt):
    wt = w.T if w.ndim == 2 else w
    if path == "flat":  # addmm(bias, input as (n, k), weight.t()), rounded once
        x2 = x.reshape((math.prod(x.shape[:-1]), x.shape[-1]))
        r = _prod(x2, wt)
        r = r + b.astype(r.dtype)
        return r.astype(rdt).reshape(out_shape)
    r = _prod(x, wt).astype(x.dtype)  # matmul's result
    if b is None:
        return r
    ct = jnp.float32 if rdt in _LOW else jnp.promote_types(r.dtype, b.dtype)
    return (r.astype(ct) + b.astype(ct)).astype(rdt)  # output.add_(bias)


def _linear_path(input, bias):
    if bias is None:
        return "matmul"
    if input.ndim == 2 or (input.is_contiguous() and bias.ndim == 1):
        return "flat"
    return "add"


def _addmm_checks(bias, m1_shape, m1_dtype, weight):
    """addmm(bias, mat1, weight.t())'s checks, in ATen's order."""
    if bias._dtype is not weight._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {short_name(bias._dtype)} and "
                           f"{short_name(weight._dtype)}")
    if m1_dtype is not weight._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {short_name(m1_dtype)} and "
                           f"{short_name(weight._dtype)}")
    if weight.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {weight.ndim}-D tensor")
    wt_shape = weight._shape[::-1]
    _mm_check(m1_shape, wt_shape, m1_dtype, weight._dtype)
    shape = (m1_shape[0], wt_shape[1])
    _expand_check(bias, shape)
    return shape


class _Transposed:
    """Shape/dtype stand-in for `weight.t()` in matmul's checks."""

    def __init__(self, w):
        self._shape = w._shape[::-1]
        self.shape = self._shape
        self.ndim = w.ndim
        self._dtype = w._dtype
        self._requires_grad = w._requires_grad
        self._stride = w._stride[::-1]


def _linear_name(args, kwargs):
    names = ("input", "weight", "bias")
    vals = dict(zip(names, args))
    vals.update(kwargs)
    input, weight, bias = vals["input"], vals["weight"], vals.get("bias")
    path = _linear_path(input, bias)
    if path == "flat":
        return "AddmmBackward0" if input.ndim == 2 else "ViewBackward0"
    if path == "add":
        return "AddBackward0"
    return _matmul_name((input, _Transposed(weight)), {})


@register("linear", method=False, function=False, functional=True, kind="nn", grad_name=_linear_name)
def linear(input, weight, bias=None):
    """`torch.nn.functional.linear(input, weight, bias=None)`: `input @ weight.T + bias`.

    input (*, in_features), weight (out_features, in_features) or (in_features,), bias broadcastable to the
    result. Same dtype required (no promotion), as PyTorch; errors follow PyTorch's addmm/matmul path.

    >>> F.linear(torchshim.ones(2, 3), torchshim.ones(4, 3)).shape
    torch.Size([2, 4])
    """
    _tensor_arg("linear", 1, "input", input)
    _tensor_arg("linear", 2, "weight", weight)
    _tensor_arg("linear", 3, "bias", bias, optional=True)
    di, dw = input.ndim, weight.ndim
    if di == 0 or dw == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {di}D and {dw}D")
    if dw > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {dw}D")
    dev = P.check_devices([t for t in (input, weight, bias) if t is not None])
    path = _linear_path(input, bias)
    rdt = input._dtype
    if path == "flat":
        m1 = (math.prod(input._shape[:-1]), input._shape[-1])
        shape = _addmm_checks(bias, m1, input._dtype, weight)
        out_shape = input._shape[:-1] + (shape[1],)
    else:
        wt = _Transposed(weight)
        _matmul_check(input, wt)
        out_shape = _matmul_shape(input._shape, wt._shape)
        if path == "add":
            rshape = P.broadcast_error((out_shape, bias._shape))
            operands = ((out_shape, rdt), (bias._shape, bias._dtype))
            rt = result_type_of([d for shp, d in operands if shp], [d for shp, d in operands if not shp], [])
            if rshape != out_shape:
                raise RuntimeError(f"output with shape {list(out_shape)} doesn't match the broadcast shape "
                                   f"{list(rshape)}")
            if not can_cast(rt, rdt):
                raise RuntimeError(f"result type {short_name(rt)} can't be cast to the desired output type "
                                   f"{short_name(rdt)}")
    b = None if bias is None else bias._value
    arr = _linear_k(input._value, weight._value, b, path=path, out_shape=tuple(out_shape), rdt=rdt.np)
    return P.fresh(arr, rdt, dev)


def _matmul_shape(sa, sb):
    if len(sa) == 1 and len(sb) == 1:
        return ()
    if len(sb) == 1:
        return tuple(sa[:-1])
    if len(sa) == 1:
        return tuple(sb[:-2]) + (sb[-1],)
    batch = P.broadcast_error((sa[:-2], sb[:-2]))
    return tuple(batch) + (sa[-2], sb[-1])


# ---- bilinear -------------------------------------------------------------------------------------------
def _size(t, d):
    """`t.sym_size(d)` with PyTorch's errors."""
    if t.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return t._shape[_wrap_dim(d, t.ndim)]


@P.kernel(static=("out_shape", "rdt"))
def _bilinear_k(x1, x2, w, b, out_shape, rdt):
    a = x1.reshape((-1, x1.shape[-1])) if x1.ndim else x1.reshape((1, 1))
    c = x2.reshape((-1, x2.shape[-1])) if x2.ndim else x2.reshape((1, 1))
    pet = jnp.float32 if rdt in _LOW else None
    # ATen's _trilinear: sum over in1 first (a rounded intermediate), then over in2
    prec = mm_precision(rdt)
    t = jnp.einsum("bi,oij->boj", a, w, precision=prec, preferred_element_type=pet).astype(rdt)
    r = jnp.einsum("boj,bj->bo", t, c, precision=prec, preferred_element_type=pet).astype(rdt)
    r = r.reshape(out_shape)
    if b is None:
        return r
    ct = jnp.float32 if rdt in _LOW else rdt
    return (r.astype(ct) + b.astype(ct)).astype(rdt)


def _bilinear_name(args, kwargs):
    """The grad_fn name; also PyTorch's refusal to record a complex bilinear (the name is asked for exactly
    when the tape records a node, i.e. when PyTorch's _trilinear autograd check runs)."""
    if args[0]._dtype.is_complex:
        raise RuntimeError("_trilinear does not support automatic differentiation for outputs with complex "
                           "dtype.")
    bias = args[3] if len(args) > 3 else kwargs.get("bias")
    return "AddBackward0" if bias is not None else "ViewBackward0"


@register("bilinear", method=False, functional=True, kind="nn", grad_name=_bilinear_name)
def bilinear(input1, input2, weight, bias=None):
    """`torch.bilinear(input1, input2, weight, bias=None)` / `F.bilinear`: `y[..., o] = x1[..., i] W[o, i, j]
    x2[..., j] + b[o]`.

    input1 (*, in1), input2 (*, in2) with the same leading dims, weight (out, in1, in2), bias (out,). All
    tensors must have one dtype; checks and messages follow ATen's bilinear."""
    for pos, (nm, x) in enumerate((("input1", input1), ("input2", input2), ("weight", weight)), 1):
        _tensor_arg("bilinear", pos, nm, x)
    _tensor_arg("bilinear", 4, "bias", bias, optional=True)
    d1, d2, dw = input1._dtype, input2._dtype, weight._dtype
    same = d1 is d2 and d1 is dw and (bias is None or d1 is bias._dtype)
    if not same:
        msg = (f"All tensors must have the same dtype, got input1: {c_name(d1)}, input2: {c_name(d2)}, "
               f"weight: {c_name(dw)}")
        if bias is not None:
            msg += f", bias: {c_name(bias._dtype)}"
        raise RuntimeError(msg)
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1._shape[i] != input2._shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1._shape[i]} and {input2._shape[i]}")
    n1, w1 = _size(input1, input1.ndim - 1), _size(weight, 1)
    if n1 != w1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {n1} but expected {w1}")
    n2, w2 = _size(input2, input2.ndim - 1), _size(weight, 2)
    if n2 != w2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {n2} but expected {w2}")
    if bias is not None and _size(bias, 0) != _size(weight, 0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {_size(bias, 0)} but "
                           "expected "
                           f"{_size(weight, 0)}")
    if weight.ndim != 3:
        raise RuntimeError("number of dimensions must match")
    if d1 is D.bool_:
        raise not_implemented("bmm", d1)
    dev = P.check_devices([t for t in (input1, input2, weight, bias) if t is not None])
    out_shape = input1._shape[:-1] + (weight._shape[0],)
    if bias is not None:
        P.broadcast_error((out_shape, bias._shape))  # `output + bias`'s broadcasting error
    b = None if bias is None else bias._value
    arr = _bilinear_k(input1._value, input2._value, weight._value, b, out_shape=tuple(out_shape), rdt=d1.np)
    return P.fresh(arr, d1, dev)

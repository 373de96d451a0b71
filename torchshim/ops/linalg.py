"""Linear algebra, the products: matmul family (mm, bmm, mv, dot, vdot, outer, inner), tensordot, kron, and
the checks of ATen's product kernels. The add* products are in `linalg_addmm.py`, einsum in `einsum.py`,
inverse, det and the other matrix functions in `linalg_matrix.py`.

Products run at `Precision.HIGHEST` (half types accumulate in float32), matching PyTorch's CPU results;
float32/complex64 products follow `torch.set_float32_matmul_precision` (`_precision.for_dtype`, read while a
kernel is traced). Checks reproduce the ATen kernel PyTorch would dispatch to (matmul's messages depend on
its fold/bmm path, chosen from the strides exactly as `should_fold` does).
"""
import math

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .._errors import LinAlgError  # noqa: F401  (imported from here by linalg_matrix.py)
from .._precision import for_dtype as mm_precision
from .._promotion import c_name, short_name
from .._tensor import Tensor, _wrap_dim
from ..autograd._names import arg
from . import _dispatch as P
from ._dispatch import DEFAULT
from ._registry import register
from .movement import checked_out, not_implemented, same_dtype_out

HI = jax.lax.Precision.HIGHEST
_LOW = (D.float16.np, D.bfloat16.np)


def _mm(a, b):
    pet = jnp.float32 if a.dtype in _LOW else None
    return jnp.matmul(a, b, precision=mm_precision(a.dtype), preferred_element_type=pet).astype(a.dtype)


@P.kernel
def _matmul_k(a, b):
    return _mm(a, b)


def _new(array, dtype, like):
    return P.fresh(array, dtype, like._storage.device)


def _tensor_arg(name, pos, argname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{argname}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


# ---- the checks of the ATen product kernels --------------------------------------------------------------
def _mm_check(sa, sb, da, db):
    if sa[1] != sb[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})")
    if da is not db:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {c_name(da)} != "
                           f"{c_name(db)}")
    if da is D.bool_:
        raise not_implemented("addmm_impl_cpu_", da)


def _mv_check(sm, sv, dm, dv, ds=None, sself=None):
    ds = dv if ds is None else ds
    n = sm[0] if sself is None else (sself[0] if sself else 1)
    if sm[1] != sv[0] or (sself is not None and math.prod(sself) not in (sm[0], 1)):
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({sm[0]}x{sm[1]}), vec ({sv[0]})")
    if not (ds is dm is dv):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {short_name(ds)}, "
                           f"{short_name(dm)}, and {short_name(dv)}")
    if dm is D.bool_:
        raise not_implemented("addmv_impl_cpu", dm)


def _dot_check(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._dtype is not b._dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{short_name(a._dtype)} and {short_name(b._dtype)}")
    n, m = a._shape[0], b._shape[0]
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                           f"number of elements, but got {n} and {m} elements respectively")
    if a._dtype is D.bool_:
        raise not_implemented("dot", a._dtype)


def _bmm_check(s1, s2, d1, d2, kernel="bmm"):
    if (s2[0], s2[1]) != (s1[0], s1[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{s1[0]}, "
                           f"{s1[2]}] but got: [{s2[0]}, {s2[1]}].")
    if d1 is not d2:
        raise RuntimeError(f"expected scalar type {short_name(d1)} but found {short_name(d2)}")
    if d1 is D.bool_:
        raise not_implemented(kernel, d1)


def _bmm_dims(b1, b2):
    if b1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")


def _should_fold(a, b):
    """ATen's should_fold: can the larger operand be folded into a matrix without a copy?"""
    larger = a.ndim >= b.ndim
    if larger:
        shape, stride, d2, grad = a._shape, a._stride, b.ndim, b._requires_grad
    else:
        shape = b._shape[:-2] + (b._shape[-1], b._shape[-2])
        stride = b._stride[:-2] + (b._stride[-1], b._stride[-2])
        d2, grad = a.ndim, a._requires_grad
    if not (len(shape) >= 3 and d2 <= 2):
        return False
    if grad:
        return True
    if a.ndim == 2:
        return False
    if math.prod(shape) == 0:
        return True
    return all(stride[i] == stride[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _matmul_check(a, b):
    d1, d2 = a.ndim, b.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return _dot_check(a, b)
    if d1 == 2 and d2 == 1:
        return _mv_check(a._shape, b._shape, a._dtype, b._dtype)
    if d1 <= 2 and d2 == 2:
        return _mm_check(a._shape if d1 == 2 else (1,) + a._shape, b._shape, a._dtype, b._dtype)
    if _should_fold(a, b):
        if d2 > d1:  # fold the transposed right operand: (b.mT) @ (a.T)
            s1 = b._shape[:-2] + (b._shape[-1], b._shape[-2])
            s2, dt1, dt2 = (a._shape[::-1] if d1 == 2 else a._shape), b._dtype, a._dtype
        else:
            s1, s2, dt1, dt2 = a._shape, b._shape, a._dtype, b._dtype
        folded = (math.prod(s1[:-1]), s1[-1])
        return _mm_check(folded, s2, dt1, dt2) if len(s2) == 2 else _mv_check(folded, s2, dt1, dt2)
    n = a._shape[-2] if d1 > 1 else 1
    m2, p = (b._shape[-2], b._shape[-1]) if d2 > 1 else (b._shape[0], 1)
    batch = P.broadcast_error((a._shape[:-2], b._shape[:-2]))
    nb = math.prod(batch)
    _bmm_check((nb, n, a._shape[-1]), (nb, m2, p), a._dtype, b._dtype)


def _matmul_out(r, out):
    if r.ndim == 0:
        return _dot_out(r, out)
    same_dtype_out(r, out)


def _dot_out(r, out):
    if out._dtype is not r._dtype:
        raise RuntimeError(f"result dtype {short_name(out._dtype)} does not match input dtype "
                           f"{short_name(r._dtype)}")


# ---- products --------------------------------------------------------------------------------------------
def _matmul_name(args, kwargs):
    """The node PyTorch's matmul ends in: dot, mv, mm, bmm, or a view of a folded mm."""
    a, b = args[0], args[1]
    da, db = a.ndim, b.ndim
    if da == 1 and db == 1:
        return "DotBackward0"
    if da == 2 and db == 1:
        return "MvBackward0"
    if da == 2 and db == 2:
        return "MmBackward0"
    if da == 1 and db == 2:
        return "SqueezeBackward4"
    if db == 2 and da > 2:
        return "UnsafeViewBackward0"
    return "UnsafeViewBackward0" if da > 2 and db > 2 and (a.shape[:-2] != b.shape[:-2]) else "BmmBackward0" \
        if da == 3 and db == 3 else "UnsafeViewBackward0"


@register("matmul", operators=("__matmul__", "__rmatmul__"), kind="linalg", grad_name=_matmul_name)
@checked_out(_matmul_out)
def matmul(input, other):
    """`torch.matmul(input, other, *, out=None)` / `@`: dot, mv, mm or broadcast batched products by ndim.

    Same dtypes required (no promotion), as PyTorch; error messages follow PyTorch's dispatch path. There is
    no in-place `@=` (as in PyTorch, `x @= y` rebinds x)."""
    _tensor_arg("matmul", 1, "input", input)
    _tensor_arg("matmul", 2, "other", other)
    _matmul_check(input, other)
    return _new(_matmul_k(input._value, other._value), input._dtype, input)


@register("mm", kind="linalg")
@checked_out(same_dtype_out)
def mm(input, mat2):
    """`torch.mm(input, mat2, *, out=None)`: matrix product of two 2-D tensors of one dtype."""
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_check(input._shape, mat2._shape, input._dtype, mat2._dtype)
    return _new(_matmul_k(input._value, mat2._value), input._dtype, input)


@register("bmm", kind="linalg")
@checked_out(same_dtype_out)
def bmm(input, mat2):
    """`torch.bmm(input, mat2, *, out=None)`: batched matrix product of 3-D tensors (no broadcasting)."""
    _bmm_dims(input, mat2)
    _bmm_check(input._shape, mat2._shape, input._dtype, mat2._dtype)
    return _new(_matmul_k(input._value, mat2._value), input._dtype, input)


@register("mv", kind="linalg")
@checked_out(same_dtype_out)
def mv(input, vec):
    """`torch.mv(input, vec, *, out=None)`: matrix-vector product."""
    if not (input.ndim == 2 and vec.ndim == 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    _mv_check(input._shape, vec._shape, input._dtype, vec._dtype)
    return _new(_matmul_k(input._value, vec._value), input._dtype, input)


@register("dot", kind="linalg")
@checked_out(_dot_out)
def dot(input, tensor):
    """`torch.dot(input, tensor, *, out=None)`: inner product of two 1-D tensors of one dtype."""
    _dot_check(input, tensor)
    return _new(_matmul_k(input._value, tensor._value), input._dtype, input)


@P.kernel
def _vdot_k(a, b):
    return _mm(jnp.conj(a), b)


@register("vdot", kind="linalg")
@checked_out(_dot_out)
def vdot(input, other):
    """`torch.vdot(input, other, *, out=None)`: dot product with the first argument conjugated."""
    _dot_check(input, other)
    return _new(_vdot_k(input._value, other._value), input._dtype, input)


@P.kernel(static=("dt",))
def _outer_k(a, b, dt):
    return a.astype(dt)[:, None] * b.astype(dt)[None, :]


@register("outer", out=True, aliases=("ger",), kind="linalg", grad_name="MulBackward0")
def outer(input, vec2):
    """`torch.outer(input, vec2, *, out=None)` (alias ger): outer product of 1-D tensors, promoting like
    mul."""
    if input.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    dt = P.promote(DEFAULT, (input, vec2))[1]
    return _new(_outer_k(input._value, vec2._value, dt=dt.np), dt, input)


@P.kernel(static=("dt",))
def _mul_k(a, b, dt):
    return a.astype(dt) * b.astype(dt)


def _tensordot_out(r, out):
    if out._dtype is not r._dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {short_name(r._dtype)}, but "
                           f"got an output tensor with dtype {short_name(out._dtype)}")


def _inner_name(args, kwargs):
    a, b = arg(args, kwargs, 0, "input"), arg(args, kwargs, 1, "other")
    return "MulBackward0" if a.ndim == 0 or b.ndim == 0 else "ViewBackward0"


@register("inner", kind="linalg", grad_name=_inner_name)
@checked_out(_tensordot_out)
def inner(input, other):
    """`torch.inner(input, other, *, out=None)`: sum-product over the last dims (a 0-D operand multiplies)."""
    if input.ndim == 0 or other.ndim == 0:
        dt = P.promote(DEFAULT, (input, other))[1]
        return _new(_mul_k(input._value, other._value, dt=dt.np), dt, input)
    if input._shape[-1] != other._shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._shape)} and {list(other._shape)}")
    return _tensordot(input, other, [-1], [-1])


@P.kernel(static=("sum1", "sum2", "da", "db"))
def _tensordot_k(a, b, sum1, sum2, da, db):
    if sum1:
        a = jnp.sum(a, axis=sum1, keepdims=True, dtype=a.dtype)
    if sum2:
        b = jnp.sum(b, axis=sum2, keepdims=True, dtype=b.dtype)
    pet = jnp.float32 if a.dtype in _LOW else None
    return jnp.tensordot(a, b, axes=(da, db), precision=mm_precision(a.dtype),
                         preferred_element_type=pet).astype(a.dtype)


def _tensordot(a, b, dims1, dims2):
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    sum1, sum2 = [], []
    for x, y in zip(dims1, dims2):
        s1, s2 = a._shape[_wrap_dim(x, a.ndim)], b._shape[_wrap_dim(y, b.ndim)]
        if s2 == 1:
            sum1.append(_wrap_dim(x, a.ndim))
        elif s1 == 1:
            sum2.append(_wrap_dim(y, b.ndim))
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {x} and "
                               f"second has size {s2} in dim {y}")
    da, db = [], []
    for dims, nd, out in ((dims1, a.ndim, da), (dims2, b.ndim, db)):
        for d in dims:
            w = _wrap_dim(d, nd)
            if w in out:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            out.append(w)
    if a._dtype is D.bool_:
        free = math.prod(s for i, s in enumerate(a._shape) if i not in da) * \
            math.prod(s for i, s in enumerate(b._shape) if i not in db)
        raise not_implemented("dot" if free == 1 else "addmm_impl_cpu_", a._dtype)
    arr = _tensordot_k(a._value, b._value, sum1=tuple(sum1), sum2=tuple(sum2), da=tuple(da), db=tuple(db))
    return _new(arr, a._dtype, a)


def _dim_list(x, argname, pos):
    if isinstance(x, int):
        raise TypeError(f"tensordot(): argument '{argname}' (position {pos}) must be tuple of ints, not int")
    return [int(v) for v in x]


@register("tensordot", method=False, kind="linalg", grad_name="ViewBackward0")
@checked_out(_tensordot_out)
def tensordot(a, b, dims=2):
    """`torch.tensordot(a, b, dims=2, out=None)`: dims an int, a pair of dim lists, or a tensor of either.

    Contracted dims of size 1 broadcast (summed first), as in PyTorch. dims given as a tensor are read on the
    host, as PyTorch does; under jax tracing such a tensor (even `torch.tensor(1)` built inside the traced
    function) is a tracer whose values are unknown, so it raises RuntimeError: pass ints there."""
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    if isinstance(dims, Tensor):
        if isinstance(dims._value, jax.core.Tracer):
            raise RuntimeError("tensordot: dims given as a tensor decide the output shape, so they cannot be "
                               "a traced value under jax tracing; pass dims as an int or as lists of ints")
        dims = dims.tolist() if dims.numel() > 1 else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return _tensordot(a, b, list(range(-dims, 0)), list(range(dims)))
    da, db = dims
    return _tensordot(a, b, _dim_list(da, "dims_self", 3), _dim_list(db, "dims_other", 4))


@P.kernel(static=("dt",))
def _kron_k(a, b, dt):
    nd = max(a.ndim, b.ndim)
    a = a.astype(dt).reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.astype(dt).reshape((1,) * (nd - b.ndim) + b.shape)
    x = a.reshape(tuple(v for s in a.shape for v in (s, 1)))
    y = b.reshape(tuple(v for s in b.shape for v in (1, s)))
    r = jnp.logical_and(x, y) if dt == jnp.bool_ else x * y
    return r.reshape(tuple(p * q for p, q in zip(a.shape, b.shape)))


@register("kron", out=True, kind="linalg", grad_name="UnsafeViewBackward0")
def kron(input, other):
    """`torch.kron(input, other, *, out=None)`: Kronecker product (promoting like mul)."""
    dt = P.promote(DEFAULT, (input, other))[1]
    return _new(_kron_k(input._value, other._value, dt=dt.np), dt, input)

"""Linear algebra: matmul family (mm, bmm, mv, dot, vdot, outer, inner, addmm/addmv/addbmm/baddbmm), einsum,
tensordot, kron, inverse, det, logdet, slogdet, cross, cdist, matrix_power, pinverse, and the removed `solve`.

Products run in float32 at `Precision.HIGHEST` (half types accumulate in float32), matching PyTorch's CPU
results. Checks reproduce the ATen kernel PyTorch would dispatch to (matmul's messages depend on its fold/bmm
path, chosen from the strides exactly as `should_fold` does).
"""
import collections
import math

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .. import return_types
from .._promotion import c_name, can_cast, short_name
from .._tensor import Tensor, _wrap_dim
from .._warnings import warn_once
from ..autograd._names import arg, complex_input
from . import _dispatch as P
from ._dispatch import DEFAULT
from ._registry import register
from .movement import checked_out, not_implemented, same_dtype_out
from .views import expand

HI = jax.lax.Precision.HIGHEST
_LOW = (D.float16.np, D.bfloat16.np)


class LinAlgError(RuntimeError):
    """`torch.linalg.LinAlgError` (torch._C._LinAlgError): a RuntimeError raised for singular inputs."""



def _mm(a, b):
    pet = jnp.float32 if a.dtype in _LOW else None
    return jnp.matmul(a, b, precision=HI, preferred_element_type=pet).astype(a.dtype)


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
    return jnp.tensordot(a, b, axes=(da, db), precision=HI, preferred_element_type=pet).astype(a.dtype)


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


# ---- add* products -----------------------------------------------------------------------------------------
def _expand_check(t, shape):
    """PyTorch's expand errors (it reports the last mismatching dim; views.expand reports the first)."""
    if t.ndim > len(shape):
        expand(t, shape)
    for i in range(1, t.ndim + 1):
        s, c = shape[-i], t._shape[-i]
        if c != s and c != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({c}) at "
                               f"non-singleton dimension {len(shape) - i}.  Target sizes: {list(shape)}.  "
                               f"Tensor sizes: {list(t._shape)}")


def _scalars(dt, beta, alpha):
    if not (dt.is_floating_point or dt.is_complex) and dt is not D.bool_:
        return int(beta), int(alpha)
    return beta, alpha


@P.kernel(static=("beta", "alpha", "shape", "batch_sum"))
def _addmm_k(inp, a, b, beta, alpha, shape, batch_sum):
    prod = _mm(a, b)
    if batch_sum:
        prod = jnp.sum(prod, axis=0, dtype=prod.dtype)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:
        return jnp.broadcast_to(prod, shape)
    base = jnp.broadcast_to(inp, shape)
    return (base if beta == 1 else base * beta) + prod


def _bad_inplace(fn, name, resize=False):
    def ip(self, *args, **kwargs):
        r = fn(self, *args, **kwargs)
        if r._shape != self._shape and resize:
            self._resize_storage(r._shape)  # addbmm_ resizes a broadcastable self, silently, as PyTorch does
        if r._shape != self._shape:
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self._shape)} and output tensor "
                               f"size {list(r._shape)} should match")
        return self._assign_from(r, name + "_")
    ip.__name__ = name + "_"
    ip.__doc__ = f"In-place version of :meth:`Tensor.{name}` (self must already have the result's shape)."
    return ip


def _run_add(input, m1, m2, beta, alpha, shape, batch_sum=False):
    beta, alpha = _scalars(m1._dtype, beta, alpha)
    arr = _addmm_k(input._value, m1._value, m2._value, beta=beta, alpha=alpha, shape=shape,
                   batch_sum=batch_sum)
    return _new(arr, m1._dtype, m1)


def _addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """`torch.addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None)`: beta * input + alpha * (mat1 @ mat2).

    beta == 0 ignores input (NaN included); integer dtypes truncate beta/alpha to integers, as PyTorch."""
    if input._dtype is not mat2._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {short_name(input._dtype)} and "
                           f"{short_name(mat2._dtype)}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {short_name(mat1._dtype)} and "
                           f"{short_name(mat2._dtype)}")
    for nm, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{nm} must be a matrix, got {m.ndim}-D tensor")
    _mm_check(mat1._shape, mat2._shape, mat1._dtype, mat2._dtype)
    shape = (mat1._shape[0], mat2._shape[1])
    _expand_check(input, shape)
    return _run_add(input, mat1, mat2, beta, alpha, shape)


addmm = register("addmm", inplace=_bad_inplace(_addmm, "addmm"),
                 kind="linalg")(checked_out(same_dtype_out)(_addmm))


def _addmv(input, mat, vec, *, beta=1, alpha=1):
    """`torch.addmv(input, mat, vec, *, beta=1, alpha=1, out=None)`: beta * input + alpha * (mat @ vec)."""
    if not (mat.ndim == 2 and vec.ndim == 1 and input.ndim <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    _mv_check(mat._shape, vec._shape, mat._dtype, vec._dtype, input._dtype, input._shape)
    return _run_add(input, mat, vec, beta, alpha, (mat._shape[0],))


addmv = register("addmv", inplace=_bad_inplace(_addmv, "addmv"),
                 kind="linalg")(checked_out(same_dtype_out)(_addmv))


def _size(t, d):
    return t._shape[_wrap_dim(d, t.ndim)]


def _addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """`torch.addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None)`:
    beta * input + alpha * sum_b(batch1[b] @ batch2[b])."""
    shape = (_size(batch1, 1), _size(batch2, 2))
    _expand_check(input, shape)
    _bmm_dims(batch1, batch2)
    if batch1._shape[0] != batch2._shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1._shape[0]} and "
                           f"{batch2._shape[0]}")
    if batch1._shape[2] != batch2._shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1._shape[1]}x{batch1._shape[2]} and "
                           f"{batch2._shape[1]}x{batch2._shape[2]})")
    if batch1._shape[0]:
        for a, b, msg in ((input, batch2, "self and mat2"), (batch1, batch2, "mat1 and mat2")):
            if a._dtype is not b._dtype:
                raise RuntimeError(f"{msg} must have the same dtype, but got {short_name(a._dtype)} and "
                                   f"{short_name(b._dtype)}")
        if input._dtype is D.bool_:
            raise not_implemented("addmm_impl_cpu_", input._dtype)
    return _run_add(input, batch1, batch2, beta, alpha, shape, batch_sum=True)


def _addbmm_out(r, out):
    if out._dtype is not r._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {short_name(out._dtype)} and "
                           f"{short_name(r._dtype)}")


addbmm = register("addbmm", inplace=_bad_inplace(_addbmm, "addbmm", resize=True),
                  kind="linalg")(checked_out(_addbmm_out)(_addbmm))


def _baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """`torch.baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None)`:
    beta * input + alpha * (batch1 @ batch2), batched."""
    shape = (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2))
    _expand_check(input, shape)
    if input._dtype is not batch1._dtype or input._dtype is not batch2._dtype:
        if input._dtype is not batch1._dtype:
            raise RuntimeError(f"Input dtypes must be the same, got: input {c_name(input._dtype)}, batch1: "
                               f"{c_name(batch1._dtype)}, batch2: {c_name(batch2._dtype)}")
    _bmm_dims(batch1, batch2)
    _bmm_check(batch1._shape, batch2._shape, batch1._dtype, batch2._dtype, "baddbmm")
    return _run_add(input, batch1, batch2, beta, alpha, shape)


baddbmm = register("baddbmm", inplace=_bad_inplace(_baddbmm, "baddbmm"), kind="linalg")(
    checked_out(same_dtype_out)(_baddbmm))


# ---- einsum ------------------------------------------------------------------------------------------------
@P.kernel(static=("eq", "shapes", "dt"))
def _einsum_k(arrs, eq, shapes, dt):
    arrs = [jnp.broadcast_to(a.astype(dt), s) for a, s in zip(arrs, shapes)]
    pet = jnp.float32 if dt in _LOW else None
    return jnp.einsum(eq, *arrs, precision=HI, preferred_element_type=pet).astype(dt)


def _sublist_equation(args):
    def sub(n):
        if n is Ellipsis:
            return "..."
        if 0 <= n < 26:
            return chr(ord("A") + n)
        if 26 <= n < 52:
            return chr(ord("a") + n - 26)
        raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
    eq = ",".join("".join(sub(s) for s in sl) for sl in args[1::2])
    if len(args) % 2 == 1:
        return eq + "->" + "".join(sub(s) for s in args[-1]), args[:-1:2]
    return eq, args[::2]


def _parse_terms(lhs, nops):
    terms, cur, i = [[]], 0, 0
    while i < len(lhs):
        ch = lhs[i]
        if ch == ",":
            cur += 1
            if cur >= nops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            terms.append([])
        elif lhs.startswith("...", i):
            terms[-1].append("...")
            i += 2
        elif ch != " ":
            if not ch.isascii() or not ch.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            terms[-1].append(ch)
        i += 1
    if cur != nops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return terms


def _einsum_name(args, kwargs):
    """PyTorch's einsum ends in a permute (one operand, no sum), a sum, a mul (no contraction) or a view."""
    eq = args[0] if args and isinstance(args[0], str) else None
    if eq is None or "->" not in eq:
        return "ViewBackward0"
    lhs, out = eq.replace(" ", "").split("->")
    ops = lhs.split(",")
    letters = set(lhs.replace(",", "").replace(".", ""))
    summed = letters - set(out)
    if len(ops) == 1:
        return "SumBackward1" if summed or (lhs.count(".") and not out.count(".")) else "PermuteBackward0"
    return "MulBackward0" if not summed and len(ops) == 2 else "ViewBackward0"


@register("einsum", method=False, kind="linalg", grad_name=_einsum_name)
def einsum(*args):
    """`torch.einsum(equation, *operands)`; also the list-of-operands and sublist forms.

    Size-1 dims broadcast. Operands must share a dtype when a label is contracted across operands (PyTorch's
    bmm path); otherwise they promote (its mul path)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                         "one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        eq, ops = _sublist_equation(args)
    else:
        eq, ops = args[0], args[1:]
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = tuple(ops[0])
    lhs, arrow, rhs = eq.partition("->")
    if len(ops) > 2 and len(lhs.split(",")) != len(ops):
        raise ValueError(f"Number of einsum subscripts, {len(lhs.split(','))}, must be equal to the number "
                         f"of operands, {len(ops)}.")
    terms = _parse_terms(lhs, len(ops))
    ell_n = 0
    for k, (t, op) in enumerate(zip(terms, ops)):
        labels = [c for c in t if c != "..."]
        if "..." in t:
            if len(labels) > op.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) is "
                                   f"more than the number of dimensions ({op.ndim}) for operand {k}")
            ell_n = max(ell_n, op.ndim - len(labels))
        elif len(labels) != op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) does not "
                               f"match the number of dimensions ({op.ndim}) for operand {k} and no ellipsis "
                               "was given")
    spare = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in eq][:ell_n]
    sizes, counts, n_ops, full = {}, collections.Counter(), collections.Counter(), []
    for k, (t, op) in enumerate(zip(terms, ops)):
        n_ell = op.ndim - sum(c != "..." for c in t)
        expanded = []
        for c in t:
            expanded.extend(spare[ell_n - n_ell:] if c == "..." else [c])
        for c, s in zip(expanded, op._shape):
            p = sizes.get(c)
            if p is None or p == 1:
                sizes[c] = s
            elif s != 1 and s != p:
                if c in spare:
                    raise RuntimeError(f"einsum(): dimension {spare.index(c)} covered by ellipsis in operand "
                                       f"{k}has size {s} which does not broadcast with previously seen "
                                       f"ellipsis with size {p} for the respective dimension")
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which does not "
                                   f"broadcast with previously seen size {p}")
        counts.update(expanded)
        n_ops.update(set(expanded))
        full.append(expanded)
    if arrow:
        out = []
        for i, c in enumerate(rhs.replace("...", "\0")):
            if c == "\0":
                out.extend(spare)
            elif c != " ":
                if not c.isascii() or not c.isalpha():
                    j = len(lhs) + 2 + i + 2 * rhs.replace("...", "\0")[:i].count("\0")
                    raise RuntimeError(f"einsum(): invalid subscript given at index {j} in the equation "
                                       "string, subscripts must be in [a-zA-Z]")
                if c in out:
                    raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
                if c not in counts:
                    raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for "
                                       "any input operand")
                out.append(c)
    else:
        out = spare + sorted(c for c in counts if counts[c] == 1 and c not in spare)
    contracted = any(n_ops[c] > 1 and c not in out for c in n_ops)
    dts = [op._dtype for op in ops]
    if contracted and any(d is not dts[0] for d in dts):
        other = next(d for d in dts if d is not dts[0])
        raise RuntimeError(f"expected scalar type {short_name(dts[0])} but found {short_name(other)}")
    if contracted and dts[0] is D.bool_:
        raise not_implemented("bmm", dts[0])
    dt = P.promote(DEFAULT, ops)[1] if not contracted else dts[0]
    dev = P.check_devices(ops)
    shapes = tuple(tuple(sizes[c] for c in f) for f in full)
    equation = ",".join("".join(f) for f in full) + "->" + "".join(out)
    return P.fresh(_einsum_k(tuple(op._value for op in ops), eq=equation, shapes=shapes, dt=dt.np), dt, dev)


# ---- inverse / det / logdet / slogdet / solve ------------------------------------------------------------
def _check_square(name, t):
    if t.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if t._shape[-1] != t._shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {t._shape[-2]} by "
                           f"{t._shape[-1]} matrices")
    if not (t._dtype.is_floating_point or t._dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{short_name(t._dtype)}")
    if t._dtype.np in _LOW:
        raise not_implemented("lu_cpu", t._dtype)


@jax.jit
def _inv_k(a):
    if a.size == 0:
        return a, jnp.zeros(a.shape[:-2], jnp.int32)
    lu = jax.lax.linalg.lu(a)[0]
    zero = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    info = jnp.where(jnp.any(zero, -1), jnp.argmax(zero, -1) + 1, 0)
    return jnp.linalg.inv(a), info


def _inverse(input, name="linalg.inv"):
    _check_square(name, input)
    inv, info = _inv_k(input._value)
    if not isinstance(info, jax.core.Tracer) and info.size and bool(jnp.any(info)):
        flat = info.reshape(-1)
        b = int(jnp.argmax(flat != 0))
        where = f"(Batch element {b}): " if input.ndim > 2 else ""
        raise LinAlgError(f"{name}: {where}The diagonal element {int(flat[b])} is zero, the inversion could "
                          "not be completed because the input matrix is singular.")
    return _new(inv, input._dtype, input)


@register("inverse", kind="linalg", grad_name="LinalgInvExBackward0")
@checked_out(same_dtype_out)
def inverse(input):
    """`torch.inverse(input, *, out=None)` (= torch.linalg.inv): singular inputs raise `_LinAlgError` (a
    RuntimeError) with PyTorch's message; the check reads the LU pivots eagerly (skipped under tracing)."""
    return _inverse(input)


@P.kernel
def _det_k(a):
    return jnp.linalg.det(a)


@register("det", kind="linalg", grad_name="LinalgDetBackward0")
def det(input):
    """`torch.det(input)` (= torch.linalg.det) of a square matrix or batch."""
    _check_square("linalg.det", input)
    return _new(_det_k(input._value), input._dtype, input)


@P.kernel
def _slogdet_k(a):
    sign, logabs = jnp.linalg.slogdet(a)
    return sign.astype(a.dtype), logabs


@P.kernel
def _logdet_k(a):
    sign, logabs = jnp.linalg.slogdet(a)
    if jnp.iscomplexobj(a):
        return (logabs + jnp.log(sign)).astype(a.dtype)
    return jnp.where(sign < 0, jnp.nan, logabs).astype(a.dtype)


slogdet_result = return_types._make("slogdet", ("sign", "logabsdet"))  # torch.return_types.slogdet


@register("slogdet", kind="linalg", grad_name="LinalgSlogdetBackward0")
@checked_out(same_dtype_out)
def slogdet(input):
    """`torch.slogdet(input, *, out=None)` -> (sign, logabsdet); a singular matrix gives (0, -inf)."""
    _check_square("linalg.slogdet", input)
    sign, logabs = _slogdet_k(input._value)
    return slogdet_result((_new(sign, input._dtype, input), _new(logabs, input._dtype.to_real(), input)))


@register("logdet", kind="linalg", grad_name=complex_input("AddBackward0", "WhereBackward0"))
def logdet(input):
    """`torch.logdet(input)`: log det; NaN for a negative determinant, -inf for a singular matrix."""
    _check_square("logdet", input)
    return _new(_logdet_k(input._value), input._dtype, input)


_SOLVE_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.solve` is deprecated in favor "
    "of `torch.linalg.solve`. `torch.linalg.solve` has its arguments reversed and does not return the LU "
    "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` "
    "or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\nX = "
    "torch.linalg.solve(A, B)")


@register("solve", kind="linalg")
def solve(input, A, *, out=None):
    """`torch.solve(B, A)`: removed in PyTorch 2.x, where it always raises RuntimeError; so does torchshim.

    The 0.x/1.x behaviour ((solution, LU)) would contradict PyTorch 2.13, so it is not provided, and neither
    is the older `torch.gesv` name (absent from PyTorch 2.13). Use `torch.linalg.solve(A, B)`."""
    raise RuntimeError(_SOLVE_REMOVED)


# ---- cross / cdist / matrix_power / pinverse -------------------------------------------------------------


@P.kernel(static=("dim", "shape"))
def _cross_k(a, b, dim, shape):
    return jnp.cross(jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape), axis=dim)


@register("cross", kind="linalg", grad_name="LinalgCrossBackward0")
@checked_out(same_dtype_out)
def cross(input, other, dim=None):
    """`torch.cross(input, other, dim=None, *, out=None)`: without dim, the first dim of size 3 (deprecated;
    warns once per process, like PyTorch). Operands broadcast; dtypes must match."""
    if dim is None:
        warn_once("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                  "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change "
                  "to agree with that of linalg.cross in a future release.", UserWarning, stacklevel=3)
        dim = next((i for i, s in enumerate(input._shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, input.ndim)
    if input._shape[d] != 3 or other._shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input._shape[d]} "
                           f"and {other._shape[d]}")
    shape = P.broadcast_error((input._shape, other._shape))
    if input._dtype is not other._dtype:
        raise RuntimeError(f"expected scalar type {short_name(input._dtype)} but found "
                           f"{short_name(other._dtype)}")
    if input._dtype is D.bool_:
        raise not_implemented("cross", input._dtype)
    return _new(_cross_k(input._value, other._value, dim=d, shape=shape), input._dtype, input)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


@P.kernel(static=("p", "use_mm", "batch"))
def _cdist_k(x1, x2, p, use_mm, batch):
    x1 = jnp.broadcast_to(x1, batch + x1.shape[-2:])
    x2 = jnp.broadcast_to(x2, batch + x2.shape[-2:])
    if use_mm:
        n1 = jnp.sum(x1 * x1, -1, keepdims=True)
        n2 = jnp.sum(x2 * x2, -1, keepdims=True)
        a = jnp.concatenate([-2 * x1, n1, jnp.ones_like(n1)], -1)
        b = jnp.concatenate([x2, jnp.ones_like(n2), n2], -1)
        r = jnp.matmul(a, jnp.swapaxes(b, -1, -2), precision=HI)
        return jnp.sqrt(jnp.maximum(r, 0))
    d = jnp.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return jnp.sum(d != 0, -1).astype(x1.dtype)
    if p == math.inf:
        return jnp.max(d, -1, initial=0)
    if p == 1:
        return jnp.sum(d, -1)
    if p == 2:
        return jnp.sqrt(jnp.sum(d * d, -1))
    return jnp.sum(d ** p, -1) ** (1.0 / p)


@register("cdist", method=False, kind="linalg")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """`torch.cdist(x1, x2, p=2.0, compute_mode=...)`: p-norm distances between row sets (batch dims
    broadcast).

    p == 2 uses PyTorch's matmul formula when compute_mode asks for it (default: either side has > 25
    rows)."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for nm, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {nm} got: {x.ndim}D")
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} X2: "
                           f"{x2._shape[-1]}")
    for nm, x in (("X1", x1), ("X2", x2)):
        if not x._dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {nm} got: {short_name(x._dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = P.broadcast_error((x1._shape[:-2], x2._shape[:-2]))
    if x1._dtype is not x2._dtype:
        raise RuntimeError(f"expected scalar type {short_name(x1._dtype)} but found {short_name(x2._dtype)}")
    if x1._dtype.np in _LOW:
        raise not_implemented("cdist", x1._dtype)
    mode = _CDIST_MODES[compute_mode]
    r1, r2 = x1._shape[-2], x2._shape[-2]
    use_mm = p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))
    return _new(_cdist_k(x1._value, x2._value, p=float(p), use_mm=use_mm, batch=batch), x1._dtype, x1)


@P.kernel(static=("n",))
def _mpow_k(a, n):
    if n == 0:
        return jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n <= 3:
        r = a
        for _ in range(n - 1):
            r = _mm(r, a)
        return r
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else _mm(z, z)
        if bit:
            result = z if result is None else _mm(result, z)
    return result


def _mpow_out(r, out):
    if not can_cast(r._dtype, out._dtype):
        raise RuntimeError(f"matrix_power: Expected result to be safely castable from {short_name(r._dtype)} "
                           f"dtype, but got result with dtype {short_name(out._dtype)}")
    same_dtype_out(r, out)


def _matrix_power_name(args, kwargs):
    a, n = arg(args, kwargs, 0, "input"), arg(args, kwargs, 1, "n")
    if n == 0:
        return "CopyBackwards"
    if n == 1:
        return "CloneBackward0"
    if n == -1:
        return "LinalgInvExBackward0"
    return "MmBackward0" if a.ndim == 2 else "UnsafeViewBackward0"


@register("matrix_power", kind="linalg", grad_name=_matrix_power_name)
@checked_out(_mpow_out)
def matrix_power(input, n):
    """`torch.matrix_power(input, n, *, out=None)`: n-th power by repeated squaring; n < 0 inverts first."""
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if input._shape[-1] != input._shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{input._shape[-2]} by {input._shape[-1]} matrices")
    if n < 0:
        input, n = _inverse(input), -n
    return _new(_mpow_k(input._value, n=int(n)), input._dtype, input)


@P.kernel(static=("rcond",))
def _pinv_k(a, rcond):
    if a.size == 0:
        return jnp.zeros(a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype)
    return jnp.linalg.pinv(a, rtol=rcond).astype(a.dtype)


@register("pinverse", kind="linalg", grad_name="LinalgPinvBackward0")
def pinverse(input, rcond=1e-15):
    """`torch.pinverse(input, rcond=1e-15)`: Moore-Penrose pseudo-inverse via SVD (singular values <= rcond *
    max are dropped)."""
    if input.ndim < 2 or not (input._dtype.is_complex or input._dtype in (D.float32, D.float64)):
        raise RuntimeError(f"linalg.pinv({short_name(input._dtype)}{{{list(input._shape)}}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or cdouble types")
    return _new(_pinv_k(input._value, rcond=float(rcond)), input._dtype, input)

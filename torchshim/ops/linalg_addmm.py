"""The add* products: addmm, addmv, addbmm, baddbmm (`beta * input + alpha * product`), with PyTorch's
checks and its in-place and `out=` rules."""
import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import c_name, short_name
from .._tensor import _wrap_dim
from . import _dispatch as P
from ._registry import register
from .movement import checked_out, not_implemented, same_dtype_out
from .views import expand
from .linalg import _mm, _new, _mm_check, _mv_check, _bmm_check, _bmm_dims


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

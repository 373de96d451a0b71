"""Strided view geometry, as PyTorch's: (shape, stride, storage_offset) over a flat storage.

Every view op (slicing, view/reshape, transpose, permute, expand, diagonal, unfold, as_strided, ...) only
computes a new geometry in Python. Reading a view and writing through it are done by `read` and `write`,
jitted per geometry: a non-overlapping view is lowered to slice/reshape/transpose/broadcast of the flat storage
("stride lattice"); anything else falls back to a gather with a constant index map.
"""
from functools import lru_cache, partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["contiguous_strides", "is_contiguous", "compute_view_stride", "read", "write", "has_overlap"]


@lru_cache(maxsize=4096)
def contiguous_strides(shape):
    """Row-major strides of `shape`, computed like PyTorch (sizes of 0 count as 1)."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(shape[i + 1], 1)
    return tuple(strides)


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def is_contiguous(shape, stride):
    """PyTorch's `is_contiguous`: dims of size 1 may have any stride; empty tensors are contiguous."""
    if numel(shape) == 0:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride)):
        if size != 1:
            if st != expected:
                return False
            expected *= size
    return True


def compute_view_stride(oldshape, oldstride, newshape):
    """Strides for viewing (oldshape, oldstride) as newshape without a copy, or None (PyTorch's computeStride)."""
    if len(oldshape) == 0:
        return (1,) * len(newshape)
    n = numel(oldshape)
    if n == 0 and tuple(oldshape) == tuple(newshape):
        return tuple(oldstride)
    newstride = [0] * len(newshape)
    if n == 0:
        for d in range(len(newshape) - 1, -1, -1):
            newstride[d] = 1 if d == len(newshape) - 1 else max(newshape[d + 1], 1) * newstride[d + 1]
        return tuple(newstride)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1
                             and oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


@lru_cache(maxsize=4096)
def index_map(shape, stride, offset):
    """Flat storage index of every element of the view, as an int array of the view's shape."""
    idx = np.full(shape, offset, dtype=np.int64)
    for d, (size, st) in enumerate(zip(shape, stride)):
        r = np.arange(size, dtype=np.int64) * st
        idx = idx + r.reshape((size,) + (1,) * (len(shape) - d - 1))
    return idx


def has_overlap(shape, stride):
    """PyTorch's definite internal overlap: a dim of size > 1 with stride 0 (an expanded tensor).

    Like PyTorch, other self-overlapping layouts (as_strided, unfold with step < size) are not detected.
    """
    return any(st == 0 and size > 1 for size, st in zip(shape, stride))


@lru_cache(maxsize=4096)
def _lattice(shape, stride, offset):
    """A plan to read the view with slice/reshape/transpose, or None when the view is irregular."""
    dims = [i for i in range(len(shape)) if shape[i] != 1 and stride[i] != 0]
    order = sorted(dims, key=lambda i: -stride[i])
    for a, b in zip(order, order[1:]):
        sa, sb = stride[a], stride[b]
        if sa <= sb or sa % sb or sa // sb < shape[b]:
            return None
    if not order:
        return dict(order=(), lattice=(1,), extent=1, slices=(), perm=(), dims=())
    lattice = [shape[order[0]]]
    for a, b in zip(order, order[1:]):
        lattice.append(stride[a] // stride[b])
    lattice.append(stride[order[-1]])
    extent = numel(lattice)
    slices = (slice(None),) + tuple(slice(0, shape[b]) for b in order[1:]) + (0,)
    pos = {d: k for k, d in enumerate(order)}
    perm = tuple(pos[d] for d in dims)  # from lattice order back to ascending dim order
    return dict(order=tuple(order), lattice=tuple(lattice), extent=extent, slices=slices, perm=perm,
                dims=tuple(dims))


def _segment(flat, offset, extent):
    end = offset + extent
    if end > flat.shape[0]:
        flat = jnp.pad(flat, (0, end - flat.shape[0]))
    return lax.slice(flat, (offset,), (end,)), flat


@partial(jax.jit, static_argnums=(1, 2, 3))
def read(array, shape, stride, offset):
    """The view (shape, stride, offset) of the storage whose array is `array` (any shape)."""
    flat = array.reshape(-1)
    if numel(shape) == 0:
        return jnp.zeros(shape, array.dtype)
    plan = _lattice(shape, stride, offset)
    if plan is None:
        return flat[index_map(shape, stride, offset)]
    seg, _ = _segment(flat, offset, plan["extent"])
    out = seg.reshape(plan["lattice"])[plan["slices"]]
    out = out.transpose(plan["perm"]) if plan["perm"] else out.reshape(())
    keep = set(plan["dims"])
    out = out.reshape(tuple(shape[i] if i in keep else 1 for i in range(len(shape))))
    return jnp.broadcast_to(out, shape)


@partial(jax.jit, static_argnums=(2, 3, 4))
def write(array, values, shape, stride, offset):
    """The storage array after writing `values` (the view's shape, storage dtype) through the view."""
    if numel(shape) == 0:
        return array
    flat = array.reshape(-1)
    n = flat.shape[0]
    plan = _lattice(shape, stride, offset)
    values = jnp.broadcast_to(values, shape).astype(array.dtype)
    if plan is None:
        return flat.at[index_map(shape, stride, offset).reshape(-1)].set(values.reshape(-1)).reshape(array.shape)
    seg, padded = _segment(flat, offset, plan["extent"])
    vals = values.reshape(tuple(shape[i] for i in plan["dims"]))
    inv = tuple(plan["dims"].index(d) for d in plan["order"])  # ascending dim order -> lattice order
    vals = vals.transpose(inv) if inv else vals.reshape(())
    seg = seg.reshape(plan["lattice"]).at[plan["slices"]].set(vals).reshape(-1)
    padded = lax.dynamic_update_slice(padded, seg, (offset,))
    return padded[:n].reshape(array.shape)

"""Strided view geometry, as PyTorch's: (shape, stride, storage_offset) over a flat storage.

Every view op (slicing, view/reshape, transpose, permute, expand, diagonal, unfold, as_strided, ...) only
computes a new geometry in Python. Reading a view and writing through it are done by `read` and `write`,
jitted per (shape, stride) with the offset a runtime argument: a non-overlapping view is lowered to
slice/reshape/transpose/broadcast of the flat storage ("stride lattice"); anything else falls back to a gather
with a constant index map.
"""
from functools import lru_cache, partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from ._fused import jit as _fjit

__all__ = ["contiguous_strides", "is_contiguous", "compute_view_stride", "read", "read_many", "write",
           "has_overlap", "lens_of", "derive_lens", "lens_numel", "storage_as", "storage_from",
           "read_relative", "write_relative"]


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
    """Strides for viewing (oldshape, oldstride) as newshape without a copy, or None (PyTorch's
    computeStride)."""
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


def _segment(flat, offset, extent, pad):
    """flat[offset:offset + extent] for a traced `offset`; `pad` (static): the segment runs past the end, so
    the storage is zero-extended first (dynamic_slice would clamp the start instead)."""
    if pad:
        flat = jnp.pad(flat, (0, extent))
    return lax.dynamic_slice(flat, (offset,), (extent,)), flat


def _read_flat(flat, shape, stride, offset, pad):
    if numel(shape) == 0:
        return jnp.zeros(shape, flat.dtype)
    plan = _lattice(shape, stride, 0)
    if plan is None:
        return flat[index_map(shape, stride, 0) + offset]
    seg, _ = _segment(flat, offset, plan["extent"], pad)
    out = seg.reshape(plan["lattice"])[plan["slices"]]
    out = out.transpose(plan["perm"]) if plan["perm"] else out.reshape(())
    keep = set(plan["dims"])
    out = out.reshape(tuple(shape[i] if i in keep else 1 for i in range(len(shape))))
    return jnp.broadcast_to(out, shape)


def _write_flat(flat, values, shape, stride, offset, pad):
    n = flat.shape[0]
    plan = _lattice(shape, stride, 0)
    values = jnp.broadcast_to(values, shape).astype(flat.dtype)
    if plan is None:
        return flat.at[(index_map(shape, stride, 0) + offset).reshape(-1)].set(values.reshape(-1))
    seg, padded = _segment(flat, offset, plan["extent"], pad)
    vals = values.reshape(tuple(shape[i] for i in plan["dims"]))
    inv = tuple(plan["dims"].index(d) for d in plan["order"])  # ascending dim order -> lattice order
    vals = vals.transpose(inv) if inv else vals.reshape(())
    seg = seg.reshape(plan["lattice"]).at[plan["slices"]].set(vals).reshape(-1)
    padded = lax.dynamic_update_slice(padded, seg, (offset,))
    return padded[:n]


def _needs_pad(array, shape, stride, offset, lens):
    """Whether the view's lattice segment runs past the end of the storage (a static choice of kernel)."""
    if numel(shape) == 0:
        return False
    plan = _lattice(shape, stride, 0)
    return plan is not None and offset + plan["extent"] > lens_numel(array.size, lens)


def read(array, shape, stride, offset, lens=None):
    """The view (shape, stride, offset) of the storage whose array is `array` (any shape), seen through `lens`
    (see `storage_as`; None: the storage's own elements). One compiled kernel per (shape, stride, lens): the
    offset is a runtime argument, so `x[i]` for every i shares one kernel."""
    return _read(array, offset, shape, stride, _needs_pad(array, shape, stride, offset, lens), lens)


@partial(_fjit, static_argnums=(2, 3, 4, 5))
def _read(array, offset, shape, stride, pad, lens):
    if lens is None:
        return _read_flat(array.reshape(-1), shape, stride, offset, pad)
    kind, conj, neg = lens
    return _flags(_read_flat(storage_as(array, kind), shape, stride, offset, pad), conj, neg)


def read_many(array, shape, stride, offsets, lens=None):
    """`stack([read(array, shape, stride, o, lens) for o in offsets])`, in one kernel: the views of one
    storage that differ only by their offset (`x[i]` for many i, as a DataLoader's collate stacks them) are
    read by `read`'s own lowering vmapped over the offsets. One compiled kernel per (number of views, shape,
    stride, lens)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    pad = _needs_pad(array, shape, stride, int(offsets.max()), lens)
    return _read_many(array, offsets, shape, stride, pad, lens)


@partial(_fjit, static_argnums=(2, 3, 4, 5))
def _read_many(array, offsets, shape, stride, pad, lens):
    return jax.vmap(lambda offset: _read(array, offset, shape, stride, pad, lens))(offsets)


def write(array, values, shape, stride, offset, lens=None):
    """The storage array after writing `values` (the view's shape, storage dtype) through the view."""
    if numel(shape) == 0:
        return array
    return _write(array, values, offset, shape, stride, _needs_pad(array, shape, stride, offset, lens), lens)


@partial(_fjit, static_argnums=(3, 4, 5, 6))
def _write(array, values, offset, shape, stride, pad, lens):
    if lens is None:
        return _write_flat(array.reshape(-1), values, shape, stride, offset, pad).reshape(array.shape)
    kind, conj, neg = lens
    flat = storage_as(array, kind)
    values = _flags(_as_dtype(values, flat.dtype), conj, neg)
    return storage_from(_write_flat(flat, values, shape, stride, offset, pad), kind, array)


# ---- lenses: views whose elements are not the storage's own (complex views, lazy conj / neg) -------------
# A tensor's `_lens` is None, or (kind, conj, neg): `kind` "split" views a complex storage as its real
# components (real/imag/view_as_real: geometry in units of the real dtype, element 2k+1 is the imaginary part
# of storage element k), "pair" views a real storage as complex numbers (view_as_complex), ("bits", storage
# dtype, view dtype) reinterprets the storage's bytes as another dtype (Tensor.view(dtype)), None keeps the
# storage's elements; `conj` / `neg` are PyTorch's lazy conjugate / negative bits, applied on read and undone
# on write. The geometry (shape, stride, offset) is always in the units of the tensor's own dtype.

def lens_of(storage, dtype, conj=False, neg=False):
    """The lens of a tensor of torch `dtype` over a storage: `storage` is whether the storage's elements are
    complex (its components are then `dtype`'s), or the storage array's numpy dtype (any pairing: a
    component pairing is "split"/"pair", another dtype a bit-cast ("bits", storage dtype, view dtype))."""
    if isinstance(storage, (bool, np.bool_)):
        kind = None if storage == dtype.is_complex else ("split" if storage else "pair")
    else:
        kind = _pairing(np.dtype(storage), np.dtype(dtype.np))
    return None if kind is None and not conj and not neg else (kind, conj, neg)


def _component(d):
    return np.dtype(np.float32) if d == np.complex64 else np.dtype(np.float64) if d == np.complex128 else None


def _pairing(s, t):
    if s == t:
        return None
    if s.kind == "c" and _component(s) == t:
        return "split"
    if t.kind == "c" and _component(t) == s:
        return "pair"
    return ("bits", s, t)


def derive_lens(array, dtype):
    """The lens of a tensor of `dtype` over a storage array, when nothing else is known (no conj/neg bit)."""
    return lens_of(array.dtype.kind == "c", dtype)


def lens_numel(n, lens):
    """The number of elements of a storage of `n` elements, counted in the units of a tensor with `lens`."""
    kind = lens[0] if lens is not None else None
    if isinstance(kind, tuple):  # ("bits", storage dtype, view dtype)
        return n * kind[1].itemsize // kind[2].itemsize
    return 2 * n if kind == "split" else n // 2 if kind == "pair" else n


def storage_as(array, kind):
    """The flat storage in the units of a view of `kind`: real components ("split"), complex pairs
    ("pair")."""
    flat = array.reshape(-1)
    if isinstance(kind, tuple):
        return _bitcast(flat, kind[1], kind[2])
    if kind == "split":
        return jnp.stack([jnp.real(flat), jnp.imag(flat)], -1).reshape(-1)
    if kind == "pair":
        n = flat.shape[0] // 2
        return lax.complex(flat[0:2 * n:2], flat[1:2 * n:2])
    return flat


def storage_from(flat, kind, array):
    """Inverse of `storage_as`: the storage array (`array`'s shape and dtype) holding `flat`."""
    if isinstance(kind, tuple):
        new = _bitcast(flat, kind[2], kind[1])
        rest = array.reshape(-1)[new.shape[0]:]
        return (jnp.concatenate([new, rest]) if rest.shape[0] else new).reshape(array.shape)
    if kind == "split":
        pairs = flat.reshape(-1, 2)
        return lax.complex(pairs[:, 0], pairs[:, 1]).reshape(array.shape)
    if kind == "pair":
        comps = jnp.stack([jnp.real(flat), jnp.imag(flat)], -1).reshape(-1)
        rest = array.reshape(-1)[comps.shape[0]:]
        return jnp.concatenate([comps, rest]).reshape(array.shape)
    return flat.reshape(array.shape)


def _carrier(d):
    """The real numeric dtype lax.bitcast_convert_type works in for elements of `d`."""
    return np.dtype(np.uint8) if d == np.bool_ else _component(d) or d


def _bitcast(flat, s, t):
    """The flat array `flat` (numpy dtype s) read as dtype t: its bytes reinterpreted (Tensor.view(dtype)); a
    trailing part too short for a whole t element is dropped."""
    if s.kind == "c":
        flat = jnp.stack([jnp.real(flat), jnp.imag(flat)], -1).reshape(-1)
    elif s == np.bool_:
        flat = flat.astype(np.uint8)
    cs, ct = _carrier(s), _carrier(t)
    if cs.itemsize > ct.itemsize:
        out = lax.bitcast_convert_type(flat, ct).reshape(-1)
    elif cs.itemsize < ct.itemsize:
        r = ct.itemsize // cs.itemsize
        n = flat.shape[0] // r
        out = lax.bitcast_convert_type(flat[:n * r].reshape(n, r), ct)
    else:
        out = lax.bitcast_convert_type(flat, ct)
    if t.kind == "c":
        n = out.shape[0] // 2
        return lax.complex(out[0:2 * n:2], out[1:2 * n:2])
    return out != 0 if t == np.bool_ else out


def _as_dtype(values, dtype):
    values = jnp.asarray(values)
    if jnp.iscomplexobj(values) and not np.issubdtype(dtype, np.complexfloating):
        values = jnp.real(values)
    return values.astype(dtype)


def _flags(x, conj, neg):
    if conj:
        x = jnp.conj(x)
    return -x if neg else x


def _components(value, lens, is_complex):
    """The storage-level components of a tensor value: its lens' conj/neg undone, complex split into
    (re, im)."""
    conj, neg = (lens[1], lens[2]) if lens is not None else (False, False)
    value = _flags(value, conj, neg)
    return jnp.stack([jnp.real(value), jnp.imag(value)], -1) if is_complex else value


def _from_components(comps, lens, is_complex):
    conj, neg = (lens[1], lens[2]) if lens is not None else (False, False)
    value = lax.complex(comps[..., 0], comps[..., 1]) if is_complex else comps
    return _flags(value, conj, neg)


@lru_cache(maxsize=1024)
def component_positions(bgeom, vgeom):
    """For two tensors over one storage, each (shape, stride, offset, lens, is_complex): the position in the
    flattened components of the first (see `_components`) of each component of the second (its shape, plus a
    trailing 2 when complex). Component units are the storage's real scalars."""
    def comp_index(shape, stride, offset, is_complex):
        idx = index_map(shape, stride, offset)
        return np.stack([2 * idx, 2 * idx + 1], -1) if is_complex else idx
    bidx = comp_index(bgeom[0], bgeom[1], bgeom[2], bgeom[4]).reshape(-1)
    vidx = comp_index(vgeom[0], vgeom[1], vgeom[2], vgeom[4])
    where = np.full(int(max(bidx.max(initial=0), vidx.max(initial=0))) + 1, -1, np.int64)
    where[bidx] = np.arange(bidx.shape[0])
    return where[vidx]


def read_relative(base_value, bgeom, vgeom):
    """The value of view `vgeom` from the value of `bgeom` (both as in `component_positions`)."""
    comps = _components(base_value, bgeom[3], bgeom[4]).reshape(-1)
    return _from_components(comps[component_positions(bgeom, vgeom)], vgeom[3], vgeom[4])


def write_relative(base_value, values, bgeom, vgeom, dtype):
    """The value of `bgeom` after writing `values` (cast to the view's `dtype`) through view `vgeom`."""
    pos = component_positions(bgeom, vgeom)
    vals = _as_dtype(jnp.broadcast_to(values, vgeom[0]), dtype)
    comps = _components(base_value, bgeom[3], bgeom[4])
    new = comps.reshape(-1).at[pos.reshape(-1)].set(_components(vals, vgeom[3], vgeom[4]).reshape(-1))
    return _from_components(new.reshape(comps.shape), bgeom[3], bgeom[4])

"""Movement ops: cat/stack and friends, flip/roll/rot90, repeat/tile/repeat_interleave, triangles and
diagonals, block_diag, atleast_Nd, meshgrid, cartesian_prod, take_along_dim.

Checks (with PyTorch's messages) run on shapes and dtypes first; each op then runs one jitted jax kernel whose
Python-level parameters (dims, shifts, sizes, dtypes) are static. `checked_out` gives ops whose `out=` dtype
rule is stricter than castability their exact PyTorch error; the write itself is the registry's `write_out`.
"""
import functools

import jax
import jax.numpy as jnp

from .. import _dtype as D
from .. import _view as V
from .._promotion import c_name, can_cast, short_name
from .._tensor import Tensor, _wrap_dim
from .._warnings import warn_once
from ..autograd._names import arg, ndim_name
from . import _dispatch as P
from ._dispatch import DEFAULT
from ._registry import register, write_out
from .copy import clone  # noqa: F401  (re-exported: views.contiguous used to import it from here)
from .views import expand, reshape, shape_arg, view
from .._fused import jit as _fjit

__all__ = ["checked_out", "same_dtype_out", "cat_tensors", "not_implemented"]


# ---- out= with PyTorch's stricter dtype rules ------------------------------------------------------------
def checked_out(check):
    """Decorator: `fn` plus `out=`; `check(result, out)` raises PyTorch's error before the registry's
    write."""
    def deco(fn):
        @functools.wraps(fn)
        def f(*args, out=None, **kwargs):
            r = fn(*args, **kwargs)
            if out is None:
                return r
            if isinstance(r, tuple):
                for o, x in zip(out, r):
                    if isinstance(o, Tensor):
                        check(x, o)
                for o, x in zip(out, r):
                    write_out(o, x)
                return type(r)(tuple(out)) if hasattr(r, "_fields") else tuple(out)
            if isinstance(out, Tensor):
                check(r, out)
            return write_out(out, r)
        return f
    return deco


def same_dtype_out(r, out):
    """The structured-kernel rule: out must have exactly the result's dtype."""
    if out._dtype is not r._dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {c_name(r._dtype)}, but got "
                           f"{c_name(out._dtype)} instead")


def _cat_out(r, out):
    if not can_cast(r._dtype, out._dtype):
        raise TypeError("torch.cat(): input types can't be cast to the desired output type "
                        f"{short_name(out._dtype)}")


def not_implemented(kernel, dtype):
    """PyTorch's error for a dtype an ATen kernel has no instantiation for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(dtype)}'")


def _tensor_list(name, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def _int_tuple(x):
    if isinstance(x, Tensor):
        x = x.tolist()
    return (int(x),) if isinstance(x, int) or not hasattr(x, "__iter__") else tuple(int(v) for v in x)


def _wrap_dims(dims, nd):
    out = []
    for d in dims:
        w = _wrap_dim(d, nd)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out)


def _new(array, dtype, like):
    return P.fresh(array, dtype, like._storage.device)


# ---- cat / stack -----------------------------------------------------------------------------------------
@P.kernel(static=("dim", "dt"))
def _cat_k(arrs, dim, dt):
    return jnp.concatenate([a.astype(dt) for a in arrs], axis=dim)


@P.kernel(static=("dim", "dt"))
def _stack_k(arrs, dim, dt):
    return jnp.stack([a.astype(dt) for a in arrs], axis=dim)


@P.kernel(static=("dim", "dt"))
def _stack_many_k(arr, dim, dt):
    return jnp.moveaxis(arr.astype(dt), 0, dim)


@P.kernel(static=("dim", "dt"))
def _cat_many_k(arr, dim, dt):
    shape = arr.shape[1:]
    out = jnp.moveaxis(arr.astype(dt), 0, dim)
    return out.reshape(shape[:dim] + (arr.shape[0] * shape[dim],) + shape[dim + 1:])


def _views_of_one_storage(tensors):
    """The tensors' contents as one (n, *shape) array when they are n >= 2 views of one storage with one
    shape, stride, dtype and lens (the samples `x[i]` a DataLoader's collate stacks), read in one kernel
    (`_view.read_many`) instead of one read per view; else None."""
    if len(tensors) < 2:
        return None
    t0 = tensors[0]
    st, shape, stride, dtype, lens = t0._storage, t0._shape, t0._stride, t0._dtype, t0._lens
    for t in tensors:
        if (t._storage is not st or t._shape != shape or t._stride != stride or t._dtype is not dtype
                or t._lens != lens):
            return None
    return V.read_many(st.array, shape, stride, [t._offset for t in tensors], lens)


def cat_tensors(tensors, dim):
    """`torch.cat` on a list of Tensors: PyTorch's checks, promotion, and the legacy skip of 1-D empties."""
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not t._shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dt = P.promote(DEFAULT, tensors)[1]
    dev = P.check_devices(tensors)
    keep = [(i, t) for i, t in enumerate(tensors) if t._shape != (0,)]
    if not keep:  # every input is a legacy (0,) tensor: the result is one too
        return P.fresh(_cat_k(tuple(t._value for t in tensors), dim=0, dt=dt.np), dt, dev)
    ref = keep[0][1]
    nd = ref.ndim
    d = _wrap_dim(dim, nd)
    for i, t in keep:
        if t.ndim != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {t.ndim}")
        for k in range(nd):
            if k != d and t._shape[k] != ref._shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref._shape[k]} but got size {t._shape[k]} for tensor number {i} in the "
                                   "list.")
    if len(keep) == len(tensors):
        many = _views_of_one_storage(tensors)
        if many is not None:
            return P.fresh(_cat_many_k(many, dim=d, dt=dt.np), dt, dev)
    return P.fresh(_cat_k(tuple(t._value for _, t in keep), dim=d, dt=dt.np), dt, dev)


@register("cat", method=False, aliases=("concat", "concatenate"), kind="movement", saves="none")
@checked_out(_cat_out)
def cat(tensors, dim=0, *, axis=None):
    """`torch.cat(tensors, dim=0, *, out=None)` (aliases concat, concatenate; `axis=` as numpy).

    PyTorch's promotion across inputs; 1-D tensors of shape (0,) are skipped (legacy rule)."""
    return cat_tensors(_tensor_list("cat", tensors), dim if axis is None else axis)


@register("stack", method=False, kind="movement", saves="none")
@checked_out(_cat_out)
def stack(tensors, dim=0):
    """`torch.stack(tensors, dim=0, *, out=None)`: join equal-shaped tensors along a new dim (promoting)."""
    tensors = _tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shp = tensors[0]._shape
    d = _wrap_dim(dim, len(shp) + 1)
    for i, t in enumerate(tensors):
        if t._shape != shp:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shp)} at entry 0 "
                               f"and {list(t._shape)} at entry {i}")
    dt = P.promote(DEFAULT, tensors)[1]
    dev = P.check_devices(tensors)
    many = _views_of_one_storage(tensors)
    if many is not None:
        return P.fresh(_stack_many_k(many, dim=d, dt=dt.np), dt, dev)
    return P.fresh(_stack_k(tuple(t._value for t in tensors), dim=d, dt=dt.np), dt, dev)


def _nonempty(name, tensors):
    tensors = _tensor_list(name, tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


@register("hstack", method=False, kind="movement", grad_name="CatBackward0", saves="none")
@checked_out(_cat_out)
def hstack(tensors):
    """`torch.hstack(tensors, *, out=None)`: cat along dim 0 for 1-D inputs, else dim 1."""
    rep = [_atleast(t, 1) for t in _nonempty("hstack", tensors)]
    return cat_tensors(rep, 0 if rep[0].ndim == 1 else 1)


@register("vstack", method=False, aliases=("row_stack",), kind="movement",
          grad_name="CatBackward0", saves="none")
@checked_out(_cat_out)
def vstack(tensors):
    """`torch.vstack(tensors, *, out=None)` (alias row_stack): atleast_2d, then cat along dim 0."""
    return cat_tensors([_atleast(t, 2) for t in _nonempty("vstack", tensors)], 0)


@register("dstack", method=False, kind="movement", grad_name="CatBackward0", saves="none")
@checked_out(_cat_out)
def dstack(tensors):
    """`torch.dstack(tensors, *, out=None)`: atleast_3d, then cat along dim 2."""
    return cat_tensors([_atleast(t, 3) for t in _nonempty("dstack", tensors)], 2)


@register("column_stack", method=False, kind="movement", grad_name="CatBackward0", saves="none")
@checked_out(_cat_out)
def column_stack(tensors):
    """`torch.column_stack(tensors, *, out=None)`: 0-D/1-D inputs become columns, then hstack."""
    rep = [reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in _nonempty("column_stack", tensors)]
    return cat_tensors(rep, 0 if rep[0].ndim == 1 else 1)


# ---- atleast_Nd ------------------------------------------------------------------------------------------
def _atleast(t, n):
    nd = t.ndim
    if nd >= n:
        return t
    if n == 1 or nd == 0:
        return reshape(t, (1,) * n)
    if n == 2:
        return reshape(t, (1,) + t._shape)
    return reshape(t, (1,) + t._shape + (1,)) if nd == 1 else reshape(t, t._shape + (1,))


def _atleast_fn(n):
    def f(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(_atleast(t, n) for t in _tensor_list(f"atleast_{n}d", tensors[0]))
        if len(tensors) == 1:
            return _atleast(tensors[0], n)
        return tuple(_atleast(t, n) for t in tensors)
    f.__name__ = f"atleast_{n}d"
    f.__doc__ = (f"`torch.atleast_{n}d(*tensors)`: views with at least {n} dims; one tensor in, one out, "
                 "else a tuple.")
    return f


for _n in (1, 2, 3):
    register(f"atleast_{_n}d", method=False, kind="movement", saves="none",
             grad_name="ViewBackward0" if _n == 1 else ndim_name(["ViewBackward0", "UnsqueezeBackward0"]))(
        _atleast_fn(_n))


# ---- flip / roll / rot90 ---------------------------------------------------------------------------------
@P.kernel(static=("dims",))
def _flip_k(a, dims):
    return jnp.flip(a, axis=dims) if dims else a


@register("flip", kind="movement", saves="none")
def flip(input, *args, dims=None):
    """`torch.flip(input, dims)`; `Tensor.flip(*dims)`. Difference: torch.flip also accepts an int here."""
    dims = _wrap_dims(shape_arg(args if dims is None else (dims,), "flip"), input.ndim)
    return _new(_flip_k(input._value, dims=dims if input.ndim else ()), input._dtype, input)


@register("fliplr", kind="movement", grad_name="FlipBackward0", saves="none")
def fliplr(input):
    """`torch.fliplr(input)`: flip dim 1 (input must be >= 2-D)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


@register("flipud", kind="movement", grad_name="FlipBackward0", saves="none")
def flipud(input):
    """`torch.flipud(input)`: flip dim 0 (input must be >= 1-D)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


@P.kernel(static=("shifts", "dims"))
def _roll_k(a, shifts, dims):
    if not dims:
        return jnp.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    return jnp.roll(a, shifts, axis=dims)


@register("roll", kind="movement", saves="none")
def roll(input, shifts, dims=None):
    """`torch.roll(input, shifts, dims=None)`: shifts/dims int or tuple; no dims rolls the flattened
    tensor."""
    shifts = _int_tuple(shifts)
    dims = () if dims is None else _int_tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims or len(shifts) != 1:
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        dims = tuple(_wrap_dim(d, input.ndim) for d in dims)
    if input.numel() == 0:
        return clone(input)
    return _new(_roll_k(input._value, shifts=shifts, dims=dims), input._dtype, input)


@P.kernel(static=("k", "axes"))
def _rot90_k(a, k, axes):
    return jnp.rot90(a, k, axes)


@register("rot90", kind="movement", saves="none")
def rot90(input, k=1, dims=(0, 1)):
    """`torch.rot90(input, k=1, dims=[0, 1])`: rotate by 90 degrees k times from dims[0] towards dims[1]."""
    dims = tuple(dims)
    nd = input.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    axes = (_wrap_dim(dims[0], nd), _wrap_dim(dims[1], nd))
    if axes[0] == axes[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = "
                           f"{dims[1]}")
    return _new(_rot90_k(input._value, k=k % 4, axes=axes), input._dtype, input)


# ---- repeat / tile / repeat_interleave ---------------------------------------------------------------------
@P.kernel(static=("padded", "reps"))
def _tile_k(a, padded, reps):
    return jnp.tile(a.reshape(padded), reps)


def _repeat(t, reps):
    if len(reps) < t.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           "of tensor")
    padded = (1,) * (len(reps) - t.ndim) + t._shape
    target = [p * r for p, r in zip(padded, reps)]
    for r, n in zip(reps, target):
        if r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {target}")
    return _new(_tile_k(t._value, padded=padded, reps=tuple(reps)), t._dtype, t)


@register("repeat", function=False, kind="movement", saves="none")
def repeat(self, *sizes):
    """`Tensor.repeat(*sizes)`: tile the tensor (len(sizes) >= ndim; leading sizes add dims). Always a
    copy."""
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    return _repeat(self, shape_arg(sizes, "repeat"))


@register("tile", kind="movement", grad_name="RepeatBackward0", saves="none")
def tile(input, *args, dims=None):
    """`torch.tile(input, dims)`: `repeat` with dims left-padded by 1s to input.ndim."""
    reps = shape_arg(args if dims is None else (dims,), "tile")
    return _repeat(input, (1,) * (input.ndim - len(reps)) + reps)


@P.kernel(static=("axis", "total"))
def _ri_k(a, r, axis, total):
    return jnp.repeat(a, r, axis=axis, total_repeat_length=total)


@P.kernel(static=("total",))
def _ri_index_k(r, total):
    return jnp.repeat(jnp.arange(r.shape[0], dtype=r.dtype), r, total_repeat_length=total)


@_fjit
def _ri_stats(r):
    return jnp.sum(r), jnp.min(r, initial=0)


def _repeats_total(r, output_size):
    """Checks on a 1-D repeats tensor; the output length (from the values when concrete, else output_size)."""
    if r.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if r._dtype not in (D.int32, D.int64):
        raise not_implemented("repeat_interleave_cpu", r._dtype)
    val = r._value
    if isinstance(val, jax.core.Tracer):
        if output_size is None:
            raise RuntimeError("repeat_interleave: the output size depends on the values of repeats, so it "
                               "cannot run under jax tracing without output_size; pass output_size=")
        return int(output_size)
    total, low = (int(v) for v in _ri_stats(val))
    if low < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and int(output_size) != total:
        raise RuntimeError("allocated size does not match required size")
    return total


def _repeat_interleave_name(args, kwargs):
    r = arg(args, kwargs, 1, "repeats")
    return "IndexSelectBackward0" if isinstance(r, Tensor) and r.numel() != 1 else "ViewBackward0"


@register("repeat_interleave", kind="movement", grad_name=_repeat_interleave_name)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """`torch.repeat_interleave(input, repeats, dim=None, *, output_size=None)` and
    `torch.repeat_interleave(repeats)` (-> indices repeated by their counts).

    A repeats tensor's values decide the output size: they are read eagerly (with PyTorch's checks); under jax
    tracing `output_size` is required instead (without it: RuntimeError), and the values are not checked."""
    if repeats is None:
        total = _repeats_total(input, output_size)
        return _new(_ri_index_k(input._value, total=total), input._dtype, input)
    x = input
    if dim is None:
        x, d = reshape(input, (-1,)), 0
    else:
        d = _wrap_dim(dim, input.ndim)
    if not isinstance(repeats, Tensor):
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        _wrap_dim(d + 1, x.ndim + 1)  # PyTorch unsqueezes at dim + 1 (rejects dim=0 on a 0-D input)
        n = x._shape[d] * repeats
        return _new(_ri_k(x._value, repeats, axis=d, total=n), x._dtype, x)
    size = x._shape[d] if x.ndim else 1
    if repeats.ndim == 0 or repeats._shape == (1,):
        r = expand(reshape(repeats, (1,)), (size,))
    elif repeats.ndim == 1:
        if repeats._shape[0] != size:
            raise RuntimeError("repeats must have the same size as input along dim, but got repeats.size(0) "
                               f"= {repeats._shape[0]} and input.size({d}) = {size}")
        r = repeats
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    total = _repeats_total(r, output_size)
    return _new(_ri_k(x._value, r._value, axis=d, total=total), x._dtype, x)


# ---- triangles and diagonals -----------------------------------------------------------------------------
@P.kernel(static=("k", "upper"))
def _tri_k(a, k, upper):
    return jnp.triu(a, k) if upper else jnp.tril(a, k)


def _tri(name, upper):
    @checked_out(same_dtype_out)
    def f(input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return _new(_tri_k(input._value, k=int(diagonal), upper=upper), input._dtype, input)
    f.__name__ = name
    f.__doc__ = (f"`torch.{name}(input, diagonal=0, *, out=None)`: the {'upper' if upper else 'lower'} "
                 "triangle of the last two dims; in-place `Tensor." + name + "_`.")
    return f


tril = register("tril", inplace=True, kind="movement", saves="none")(_tri("tril", False))
triu = register("triu", inplace=True, kind="movement", saves="none")(_tri("triu", True))


@P.kernel(static=("k",))
def _diag_k(a, k):
    return jnp.diag(a, k) if a.ndim == 1 else jnp.diagonal(a, k)


@register("diag", kind="movement", saves="none",
          grad_name=ndim_name(["DiagEmbedBackward0", "DiagEmbedBackward0", "DiagonalBackward0_copy"]))
@checked_out(same_dtype_out)
def diag(input, diagonal=0):
    """`torch.diag(input, diagonal=0, *, out=None)`: 1-D -> square matrix, 2-D -> its diagonal (a copy)."""
    if input.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return _new(_diag_k(input._value, k=int(diagonal)), input._dtype, input)


@P.kernel(static=("offset", "d1", "d2"))
def _diag_embed_k(a, offset, d1, d2):
    n = a.shape[-1]
    m = n + abs(offset)
    i = jnp.arange(n)
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    out = jnp.zeros(a.shape[:-1] + (m, m), a.dtype).at[..., r, c].set(a)
    return jnp.moveaxis(out, (-2, -1), (d1, d2))


@register("diag_embed", kind="movement", saves="none")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """`torch.diag_embed(input, offset=0, dim1=-2, dim2=-1)`: the last dim becomes diagonals of new
    matrices."""
    nd = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _new(_diag_embed_k(input._value, offset=int(offset), d1=d1, d2=d2), input._dtype, input)


@register("diagflat", kind="movement", grad_name="DiagEmbedBackward0", saves="none")
def diagflat(input, offset=0):
    """`torch.diagflat(input, offset=0)`: diag of the flattened input."""
    return _new(_diag_k(input._value.reshape(-1), k=int(offset)), input._dtype, input)


@P.kernel(static=("dt",))
def _trace_k(a, dt):
    acc = jnp.float32 if a.dtype in (D.float16.np, D.bfloat16.np) else dt
    return jnp.trace(a, dtype=acc).astype(dt)


@register("trace", kind="movement", saves="none")
def trace(input):
    """`torch.trace(input)`: sum of the main diagonal of a matrix; integer inputs give int64."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    dt = input._dtype
    if dt is D.bool_:
        raise not_implemented("trace", dt)
    if not (dt.is_floating_point or dt.is_complex):
        dt = D.int64
    return _new(_trace_k(input._value, dt=dt.np), dt, input)


@P.kernel(static=("rows", "cols", "dt"))
def _block_diag_k(arrs, rows, cols, dt):
    out = jnp.zeros((sum(rows), sum(cols)), dt)
    r = c = 0
    for a, h, w in zip(arrs, rows, cols):
        out = out.at[r:r + h, c:c + w].set(a.reshape(h, w).astype(dt))
        r, c = r + h, c + w
    return out


@register("block_diag", method=False, kind="movement")
def block_diag(*tensors):
    """`torch.block_diag(*tensors)`: a block-diagonal matrix (0-D -> 1x1, 1-D -> one row); promotes dtypes."""
    if not tensors:
        from .creation import place
        dt = D.get_default_dtype()
        from .. import _device as Dev
        dev = Dev.get_default_device()
        return P.fresh(place(jnp.zeros((1, 0), dt.np), dev), dt, dev)
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} "
                               f"has {t.ndim} dimensions")
    shapes = [(1, 1) if t.ndim == 0 else (1, t._shape[0]) if t.ndim == 1 else t._shape for t in tensors]
    dt = P.promote(DEFAULT, tensors)[1]
    dev = P.check_devices(tensors)
    arr = _block_diag_k(tuple(t._value for t in tensors), rows=tuple(s[0] for s in shapes),
                        cols=tuple(s[1] for s in shapes), dt=dt.np)
    return P.fresh(arr, dt, dev)


# ---- meshgrid / cartesian_prod / take_along_dim
# ---------------------------------------------------------------


def _check_same(tensors):
    for a, b in zip(tensors, tensors[1:]):
        if a._dtype is not b._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if a._storage.device != b._storage.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")


@register("meshgrid", method=False, kind="movement", grad_name="ExpandBackward0")
def meshgrid(*tensors, indexing=None):
    """`torch.meshgrid(*tensors, indexing=None)`: views (expanded, like PyTorch) of 0-D/1-D inputs.

    indexing None means 'ij' and warns once, as PyTorch does."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warn_once("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                  "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    _check_same(tensors)
    refs = list(tensors)
    swap = indexing == "xy" and len(refs) >= 2
    if swap:
        refs[0], refs[1] = refs[1], refs[0]
    elif indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in refs:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: \n"
                               f"[ tensor of shape {list(t._shape)} ]")
    shape = tuple(t.numel() for t in refs)
    grids = []
    for i, t in enumerate(refs):
        vs = [1] * len(refs)
        vs[i] = -1
        grids.append(expand(view(t, vs), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@P.kernel
def _cartesian_k(arrs):
    return jnp.stack([g.reshape(-1) for g in jnp.meshgrid(*arrs, indexing="ij")], axis=1)


@register("cartesian_prod", method=False, kind="movement", grad_name="StackBackward0")
def cartesian_prod(*tensors):
    """`torch.cartesian_prod(*tensors)`: rows of all combinations of 1-D inputs (one input is returned as
    is)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._shape)}")
    if len(tensors) == 1:
        return tensors[0]
    _check_same(tensors)
    return _new(_cartesian_k(tuple(t._value for t in tensors)), tensors[0]._dtype, tensors[0])


@P.kernel(static=("dim", "shape"))
def _take_along_k(a, idx, dim, shape):
    a = jnp.broadcast_to(a, shape[:dim] + (a.shape[dim],) + shape[dim + 1:])
    idx = jnp.broadcast_to(idx, shape)
    return jnp.take_along_axis(a, jnp.mod(idx, a.shape[dim]) if a.shape[dim] else idx, axis=dim)


@_fjit
def _first_oob(idx, n):
    bad = (idx < 0) | (idx >= n)
    return jnp.any(bad), idx[jnp.argmax(bad)]


@P.kernel
def _take_flat_k(a, idx):
    return a.reshape(-1)[idx.reshape(-1)]


@register("take_along_dim", kind="movement", grad_name="GatherBackward0")
@checked_out(same_dtype_out)
def take_along_dim(input, indices, dim=None):
    """`torch.take_along_dim(input, indices, dim=None, *, out=None)`: gather along dim with broadcasting.

    As PyTorch 2.13 on CPU: with `dim`, indices wrap modulo the dim size; without, the flattened gather checks
    bounds (eagerly; not under jax tracing)."""
    if dim is None:
        if indices._dtype not in (D.int32, D.int64):
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        n = input.numel()
        if indices.numel() and not isinstance(indices._value, jax.core.Tracer):
            bad, v = _first_oob(indices._value.reshape(-1), n)
            if bool(bad):
                raise RuntimeError(f"index {int(v)} is out of bounds for dimension 0 with size {n}")
        return _new(_take_flat_k(input._value, indices._value), input._dtype, input)
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
                           "dimensions for indices")
    if indices._dtype is not D.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{short_name(indices._dtype)}")
    d = _wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    a_shape = input._shape[:d] + (indices._shape[d],) + input._shape[d + 1:]
    shape = P.broadcast_error((a_shape, indices._shape))
    return _new(_take_along_k(input._value, indices._value, dim=d, shape=shape), input._dtype, input)

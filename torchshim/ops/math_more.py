"""The remaining math names of issue 12: `isreal`, `gradient`, `histogramdd`, `hash_tensor`, `nonzero_static`,
`empty_permuted`, `slice_inverse`, `torch.resize_as_`.

The Tensor methods of the same family that are not table ops (`resize`/`resize_as`, `set_`, `record_stream`,
`module_load`) are in ops/tensor_state.py.
"""
import builtins as _b
import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .. import _view as V
from .. import return_types
from .._promotion import short_name
from .._tensor import Tensor, _wrap_dim
from . import _dispatch as P
from ._dispatch import ALWAYS_BOOL, fresh
from ._registry import installed, register
from .binning import _need, _no_derivative
from .slicing import _check_as_strided
from .tensor_state import _C_TYPES
from .view_copies import slice_scatter as _slice_scatter

__all__ = ["isreal", "gradient", "histogramdd", "hash_tensor", "nonzero_static", "empty_permuted",
           "slice_inverse", "resize_as_"]


# ---- isreal ----------------------------------------------------------------------------------------------
def _isreal_f(a):
    if jnp.iscomplexobj(a):
        return jnp.imag(a) == 0
    return jnp.ones(a.shape, bool)


isreal = P.unary("isreal", _isreal_f, ALWAYS_BOOL, opmath=False)
isreal.__doc__ = """`torch.isreal(input)` -> bool tensor: True where the element's imaginary part is 0 (every
element of a real tensor)."""
register("isreal", kind="pointwise")(isreal)


# ---- gradient --------------------------------------------------------------------------------------------
def _along(c, d, ndim):
    """1-d tensor c shaped to broadcast along dim d of an ndim tensor."""
    return c.reshape([-1 if i == d else 1 for i in range(ndim)])


def _grad_uniform(f, d, h, edge_order):
    n = f._shape[d]
    nar = f.narrow
    parts = []
    if edge_order == 1:
        parts.append((nar(d, 1, 1) - nar(d, 0, 1)) / h)
    else:
        parts.append((nar(d, 0, 1) * -1.5 + nar(d, 1, 1) * 2.0 - nar(d, 2, 1) * 0.5) / h)
    if n > 2:
        parts.append((nar(d, 2, n - 2) - nar(d, 0, n - 2)) / (2.0 * h))
    if edge_order == 1:
        parts.append((nar(d, n - 1, 1) - nar(d, n - 2, 1)) / h)
    else:
        parts.append((nar(d, n - 3, 1) * 0.5 - nar(d, n - 2, 1) * 2.0 + nar(d, n - 1, 1) * 1.5) / h)
    return installed("cat")(parts, d)


def _grad_coords(f, d, c, edge_order):
    n, nd = f._shape[d], f.ndim
    nar = f.narrow
    dx = c[1:] - c[:-1]
    parts = []
    if edge_order == 1:
        parts.append((nar(d, 1, 1) - nar(d, 0, 1)) / dx[0])
    else:
        a1, a2 = dx[0], dx[1]
        parts.append(nar(d, 0, 1) * (-(2.0 * a1 + a2) / (a1 * (a1 + a2)))
                     + nar(d, 1, 1) * ((a1 + a2) / (a1 * a2)) + nar(d, 2, 1) * (-a1 / (a2 * (a1 + a2))))
    if n > 2:
        x1, x2 = dx[:-1], dx[1:]
        a = _along(-x2 / (x1 * (x1 + x2)), d, nd)
        b = _along((x2 - x1) / (x1 * x2), d, nd)
        cc = _along(x1 / (x2 * (x1 + x2)), d, nd)
        parts.append(nar(d, 0, n - 2) * a + nar(d, 1, n - 2) * b + nar(d, 2, n - 2) * cc)
    if edge_order == 1:
        parts.append((nar(d, n - 1, 1) - nar(d, n - 2, 1)) / dx[-1])
    else:
        a1, a2 = dx[-2], dx[-1]
        parts.append(nar(d, n - 3, 1) * (a2 / (a1 * (a1 + a2))) + nar(d, n - 2, 1) * (-(a2 + a1) / (a1 * a2))
                     + nar(d, n - 1, 1) * ((2.0 * a2 + a1) / (a2 * (a1 + a2))))
    return installed("cat")(parts, d)


@register("gradient", method=False, kind="composite")
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """`torch.gradient(input, *, spacing=1, dim=None, edge_order=1)` -> tuple of tensors: second-order
    central differences inside, first- or second-order one-sided differences at the edges, along each dim
    (all dims by default). `spacing` is a scalar, a list of scalars (one per dim) or a list of 1-d coordinate
    tensors. Integer input gives the default float dtype. Composed of differentiable ops.

    Difference: a coordinate tensor whose length differs from the dim's size raises here (PyTorch reads past
    its end)."""
    _need("gradient", input, 1, "input")
    nd = input.ndim
    spacing = 1 if spacing is None else spacing
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [_wrap_dim(dim, nd)]
    else:
        dims = [_wrap_dim(int(d), nd) for d in dim]
    if isinstance(spacing, (tuple, list)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list "
                                   f"of length equal to 'self.dim() = {nd}', since dim argument was not "
                                   f"given, but got a list of length {len(spacing)}")
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                               f"and dim arguments to have the same length, but got a spacing argument of "
                               f"length {len(spacing)} and a dim argument of length {len(dims)}.")
        spacings = list(spacing)
    elif isinstance(spacing, Tensor):
        raise TypeError("gradient() received an invalid combination of arguments - got (Tensor, "
                        "spacing=Tensor), but expected one of:")
    else:
        spacings = [spacing] * len(dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input._shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input
    if not (f._dtype.is_floating_point or f._dtype.is_complex):
        f = f.to(D.get_default_dtype())
    out = []
    for d, s in zip(dims, spacings):
        if isinstance(s, Tensor):
            if s.ndim != 1 or s._shape[0] != f._shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and of "
                                   f"size {f._shape[d]} along dim {d}, but got a tensor of shape "
                                   f"{list(s._shape)}")
            out.append(_grad_coords(f, d, s, edge_order))
        else:
            out.append(_grad_uniform(f, d, s, edge_order))
    return tuple(out)


# ---- histogramdd -----------------------------------------------------------------------------------------
@P.kernel(static=("nbins", "density", "weighted"))
def _histdd_k(x, given, w, nbins, density, weighted):
    nd = x.shape[-1]
    pts = x.reshape(-1, nd)
    edges = []
    for k, e in enumerate(given):
        if e is None:  # equal bins over the data's range (torch: min - 0.5, max + 0.5 when they are equal)
            col = pts[:, k]
            lo = jnp.min(col) if col.size else jnp.zeros((), x.dtype)
            hi = jnp.max(col) if col.size else jnp.zeros((), x.dtype)
            same = lo == hi
            lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
            e = jnp.linspace(lo, hi, nbins[k] + 1, dtype=x.dtype)
        edges.append(e)
    flat = jnp.zeros(pts.shape[0], jnp.int64)
    inside = jnp.ones(pts.shape[0], bool)
    for k, e in enumerate(edges):
        v = pts[:, k]
        n = nbins[k]
        idx = jnp.searchsorted(e, v, side="right") - 1
        idx = jnp.where(v == e[-1], n - 1, idx)
        inside = inside & (v >= e[0]) & (v <= e[-1])
        flat = flat * n + jnp.clip(idx, 0, _b.max(n - 1, 0))
    total = math.prod(nbins)
    ww = w.reshape(-1).astype(x.dtype) if weighted else jnp.ones(pts.shape[0], x.dtype)
    hist = jnp.zeros(total, x.dtype).at[jnp.where(inside, flat, total)].add(ww, mode="drop")
    hist = hist.reshape(nbins)
    if density:
        vol = jnp.ones((), x.dtype)
        for k, e in enumerate(edges):
            shape = [1] * nd
            shape[k] = nbins[k]
            vol = vol * jnp.diff(e).reshape(shape)
        hist = hist / (jnp.sum(hist) * vol)
    return hist, edges


@register("histogramdd", method=False, kind="binning", grad_name="NotImplemented", saves="none")
def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """`torch.histogramdd(input, bins, *, range=None, weight=None, density=False)` -> (hist, bin_edges):
    the histogram of the points in input's innermost dimension (size D). `bins`: an int (D equal counts), D
    ints, or D 1-d tensors of increasing edges; `range`: 2*D floats (default each coordinate's min and max).
    Floating-point input only; no gradient (backward raises, as in PyTorch).

    Traces under jax.jit; eagerly, with `range` left to the data, the data's range is checked on the host
    for PyTorch's "not finite" error. out= is not provided."""
    _need("histogramdd", input, 1, "input")
    _no_derivative(RuntimeError, "derivative for aten::_histogramdd_from_bin_cts is not implemented", input,
                   weight)
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    nd = input._shape[-1]
    dt, dev = input._dtype, input._storage.device
    if range is not None and len(range) != 2 * nd:
        raise RuntimeError(f"torch.histogramdd: for a {nd}-dimensional histogram range should have "
                           f"{2 * nd} elements, but got {len(range)}")
    if range is not None:
        for k in _b.range(nd):
            lo, hi = float(range[2 * k]), float(range[2 * k + 1])
            if lo > hi:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max "
                                   f"{hi:g} for dimension {k}")
    if not dt.is_floating_point:
        kernel = "histogram_cpu" if range is not None else "histogramdd"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(dt)}'")
    if isinstance(bins, int):
        bins = [bins] * nd
    bins = list(bins)
    if len(bins) != nd:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the "
                           "input.")
    if weight is not None:
        if weight._shape != input._shape[:-1]:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the same "
                               f"shape as the input tensor excluding its innermost dimension, but got input "
                               f"with shape {list(input._shape)} and weight with shape {list(weight._shape)}")
        if weight._dtype is not dt:
            raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and weight "
                               f"tensor should have the same dtype, but got input({_C_TYPES[dt.name]}), and "
                               f"weight({_C_TYPES[weight._dtype.name]})")
    given = []
    for k, b in enumerate(bins):
        if isinstance(b, Tensor):
            if b.ndim != 1:
                raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got "
                                   f"{b.ndim} dimensions in the bins tensor for dimension {k}")
            given.append(b._value.astype(dt.np))
            continue
        if b <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for dimension {k}")
        if range is None:
            given.append(None)
            continue
        lo, hi = float(range[2 * k]), float(range[2 * k + 1])
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {k}'s range [{lo:g}, {hi:g}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        given.append(jnp.linspace(lo, hi, int(b) + 1, dtype=dt.np))
    if range is None and not isinstance(input._value, jax.core.Tracer) and input.numel():
        pts = np.asarray(input._value).reshape(-1, nd)  # PyTorch's check of the data's range (a sync)
        for k, b in enumerate(bins):
            if not isinstance(b, Tensor):
                lo, hi = pts[:, k].min(), pts[:, k].max()
                if not (np.isfinite(lo) and np.isfinite(hi)):
                    raise RuntimeError(f"torch.histogramdd: dimension {k}'s range [{lo:g}, {hi:g}] is not "
                                       "finite")
    nbins = tuple(int(g.shape[0]) - 1 if g is not None else int(b) for g, b in zip(given, bins))
    w = None if weight is None else weight._value
    hist, edges = _histdd_k(input._value, given, w, nbins=nbins, density=bool(density),
                            weighted=weight is not None)
    return return_types.histogramdd((fresh(hist, dt, dev), tuple(fresh(jnp.asarray(e), dt, dev)
                                                                   for e in edges)))


# ---- hash_tensor -----------------------------------------------------------------------------------------
@P.kernel(static=("dims", "keepdim"))
def _hash_k(a, dims, keepdim):
    if jnp.issubdtype(a.dtype, jnp.floating):
        bits = jax.lax.bitcast_convert_type(a.astype(jnp.float64), jnp.uint64)
    else:
        bits = jax.lax.bitcast_convert_type(a.astype(jnp.int64), jnp.uint64)
    r = jax.lax.reduce(bits, np.uint64(0), jax.lax.bitwise_xor, dims)
    if keepdim:
        r = jnp.expand_dims(r, dims)
    return r


@register("hash_tensor", kind="reduction", grad_name="NotImplemented", saves="none")
def hash_tensor(input, dim=(), *, keepdim=False, mode=0):
    """`torch.hash_tensor(input, dim=[], *, keepdim=False, mode=0)` -> uint64 tensor: the xor of the
    elements' 64-bit patterns (each element first widened to float64, or to int64 for integers and bool),
    over `dim` (all dims when empty). Only mode 0 exists."""
    _need("hash_tensor", input, 1, "input")
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    dims = [dim] if isinstance(dim, int) else list(dim)
    nd = input.ndim
    if not dims and input.numel() == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    dims = tuple(sorted({_wrap_dim(int(d), nd) for d in dims})) if dims else tuple(_b.range(nd))
    for d in dims:
        if input.ndim and input._shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    if input._dtype.is_complex:
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{short_name(input._dtype)}'")
    out = _hash_k(input._value, dims=dims, keepdim=bool(keepdim))
    return fresh(out, D.uint64, input._storage.device)


# ---- nonzero_static --------------------------------------------------------------------------------------
@P.kernel(static=("size", "fill_value"))
def _nonzero_static_k(a, size, fill_value):
    if a.ndim == 0:
        return jnp.zeros((size, 0), jnp.int64)
    idx = jnp.nonzero(a, size=size, fill_value=fill_value)
    return jnp.stack([i.astype(jnp.int64) for i in idx], axis=1)


@register("nonzero_static", kind="indexing", grad_name="NotImplemented", saves="none")
def nonzero_static(input, *, size, fill_value=-1):
    """`torch.nonzero_static(input, *, size, fill_value=-1)` -> (size, ndim) int64: the coordinates of the
    first `size` nonzero elements (row-major order), padded with rows of `fill_value`. Unlike `nonzero`, the
    shape does not depend on the values: it traces under jax.jit."""
    _need("nonzero_static", input, 1, "input")
    for name, v in (("size", size), ("fill_value", fill_value)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"nonzero_static(): argument '{name}' must be int, not {type(v).__name__}")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    out = _nonzero_static_k(input._value, size=int(size), fill_value=int(fill_value))
    return fresh(out, D.int64, input._storage.device)


# ---- empty_permuted --------------------------------------------------------------------------------------
@register("empty_permuted", method=False, kind="creation")
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """`torch.empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
    requires_grad=False, pin_memory=False)`: a tensor of shape `size` whose dims are laid out in memory in
    the order `physical_layout` (outermost first): `empty(size[l] for l in layout).permute(inverse)`, not a
    view. Difference: zero-filled (PyTorch's memory is uninitialised)."""
    size = [int(s) for s in size]
    physical_layout = [int(p) for p in physical_layout]
    n = len(size)
    if n != len(physical_layout):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"i.e. len(size) = {n} is not equal to len(physical_layout) = "
                           f"{len(physical_layout)}")
    seen = set()
    for i, p in enumerate(physical_layout):
        if not 0 <= p < n:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {n - 1}, but got {p} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if "
                               "you want it.")
        if p in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(p)
    phys = [size[p] for p in physical_layout]
    base = installed("zeros")(phys, dtype=dtype, layout=layout, device=device)
    pstride = V.contiguous_strides(tuple(phys))
    stride = [0] * n
    for i, p in enumerate(physical_layout):
        stride[p] = pstride[i]
    t = Tensor._make(base._storage, tuple(size), tuple(stride), 0, base._dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


# ---- slice_inverse ---------------------------------------------------------------------------------------
def _slice_inverse_name(args, kwargs):
    """The grad_fn name, asked for exactly when the tape records a node: PyTorch refuses complex outputs."""
    if args[0]._dtype.is_complex and args[0].requires_grad:
        raise RuntimeError("slice_inverse does not support automatic differentiation for outputs with "
                           "complex dtype.")
    return "SliceInverseBackward0"


@register("slice_inverse", kind="view", saves="none", grad_name=_slice_inverse_name)
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """`torch.slice_inverse(input, src, dim=0, start=None, end=None, step=1)`: the inverse of
    `src.slice(dim, start, end, step)` (functionalization's view replay): a view of input's storage with
    src's size, stride and storage offset (dim/start/end/step only shape the gradient: input gets
    grad[slice], src the rest)."""
    _need("slice_inverse", input, 1, "input")
    _need("slice_inverse", src, 2, "src")
    if input._storage is not src._storage and isinstance(input._value, jax.core.Tracer):
        # autograd's replay of the op on plain arrays (or a trace apart from src): the value its gradient
        # assumes, src with input in the slice (SliceInverseBackward0 gives input grad[slice], src the rest)
        return _slice_scatter(src, input, dim, start, end, step)
    _check_as_strided(input, src._shape, src._stride, src._offset)
    return input._as_view(src._shape, src._stride, src._offset)


# ---- torch.resize_as_ ------------------------------------------------------------------------------------
@register("resize_as_", method=False, kind="composite")
def resize_as_(input, the_template, *, memory_format=None):
    """`torch.resize_as_(input, the_template, *, memory_format=None)`: `input.resize_as_(the_template)`."""
    _need("resize_as_", input, 1, "input")
    _need("resize_as_", the_template, 2, "the_template")
    return input.resize_as_(the_template, memory_format=memory_format)

"""View ops: each computes a new (shape, stride, offset) over the same storage, exactly as PyTorch does.

Nothing here touches jax: reading and writing through views is `_view.read/write`. `reshape`, `flatten` and
`contiguous` return views when PyTorch would, copies otherwise.
"""
import warnings

from .. import _view as V
from .._tensor import Tensor, _wrap_dim
from ._registry import register

__all__ = ["shape_arg"]


def shape_arg(args, name="view"):
    """Sizes given as varargs ints or one sequence (PyTorch's IntArrayRef parsing)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = a.__index__()
        if not isinstance(a, int):
            if name == "view":
                raise TypeError(f"view() received an invalid combination of arguments - got "
                                f"({', '.join(type(v).__name__ for v in args)}), but expected one of:\n"
                                " * (torch.dtype dtype)\n * (tuple of ints size)")
            raise TypeError(f"{name}(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(a).__name__} at pos {len(out)}")
        out.append(int(a))
    return tuple(out)


def infer_size(shape, numel):
    """Replace a single -1 in `shape` so the product is `numel`; PyTorch's errors otherwise."""
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
        else:
            known *= s
    if infer is not None:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:infer] + (numel // known,) + shape[infer + 1:]
    if V.numel(shape) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


@register("view", function=False, kind="view")
def view(self, *shape, dtype=None):
    """`Tensor.view(*shape)`: a view with a new shape; raises when the strides don't allow it.

    `Tensor.view(dtype)` (bit reinterpretation) is supported for equal item sizes as a copy, not a view."""
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Tensor)):
        dtype = shape[0]
    if dtype is not None:
        from .copy import view_dtype
        return view_dtype(self, dtype)
    shape = infer_size(shape_arg(shape), self.numel())
    stride = V.compute_view_stride(self._shape, self._stride, shape)
    if stride is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
    return self._as_view(shape, stride, self._offset)


@register("view_as", function=False, kind="view")
def view_as(self, other):
    """`Tensor.view_as(other)` -> `self.view(other.size())`."""
    return view(self, other._shape)


@register("reshape", kind="view")
def reshape(input, *shape):
    """`torch.reshape(input, shape)`: a view when the strides allow (like PyTorch), else a contiguous copy."""
    shape = infer_size(shape_arg(shape, "reshape"), input.numel())
    stride = V.compute_view_stride(input._shape, input._stride, shape)
    if stride is None:  # a copy, not a view of one (PyTorch's _unsafe_view): no _base, own version counter
        from ._dispatch import fresh
        return fresh(input._value.reshape(shape), input._dtype, input._storage.device)
    return input._as_view(shape, stride, input._offset)


@register("reshape_as", function=False, kind="view")
def reshape_as(self, other):
    """`Tensor.reshape_as(other)` -> `self.reshape(other.size())`."""
    return reshape(self, other._shape)


@register("flatten", kind="view")
def flatten(input, start_dim=0, end_dim=-1):
    """`torch.flatten(input, start_dim=0, end_dim=-1)`: a view when possible; a 0-dim input gives shape (1,)."""
    nd = input.ndim
    if nd == 0:
        _wrap_dim(start_dim, 0)
        _wrap_dim(end_dim, 0)
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._shape[:s] + (V.numel(input._shape[s:e + 1]),) + input._shape[e + 1:]
    return reshape(input, shape)


@register("unflatten", kind="view")
def unflatten(input, dim, sizes):
    """`torch.unflatten(input, dim, sizes)`: split one dim into `sizes` (one -1 allowed)."""
    d = _wrap_dim(dim, input.ndim)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        full = infer_size(sizes, input._shape[d])
    except RuntimeError as e:
        if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
                           f"({input._shape[d]}) in the input tensor") from None
    return view(input, input._shape[:d] + full + input._shape[d + 1:])


@register("transpose", aliases=("swapaxes", "swapdims"), inplace=lambda self, d0, d1: _inplace_geometry(
    self, transpose(self, d0, d1)), kind="view")
def transpose(input, dim0, dim1):
    """`torch.transpose(input, dim0, dim1)`: a view with two dims swapped."""
    nd = input.ndim
    if nd == 0:
        _wrap_dim(dim0, 0)
        _wrap_dim(dim1, 0)
        return input._as_view((), (), input._offset)
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    shape, stride = list(input._shape), list(input._stride)
    shape[a], shape[b] = shape[b], shape[a]
    stride[a], stride[b] = stride[b], stride[a]
    return input._as_view(shape, stride, input._offset)


def _inplace_geometry(self, v):
    """Make self adopt the geometry of its view `v` (t_, transpose_, squeeze_, unsqueeze_, as_strided_)."""
    self._shape, self._stride, self._offset = v._shape, v._stride, v._offset
    self._natural = v._natural
    self._cache = None
    return self


@register("t", inplace=lambda self: _inplace_geometry(self, t(self)), kind="view")
def t(input):
    """`torch.t(input)`: transpose of a tensor with <= 2 dims (0-D and 1-D are returned as they are)."""
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return transpose(input, 0, 1) if input.ndim == 2 else input._as_view(input._shape, input._stride,
                                                                          input._offset)


def _T(self):
    if self.ndim == 0:
        _deprecated_0d("Tensor.T", "This function is the identity in these cases.")
    elif self.ndim != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                      "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                      "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                      "tensor.", UserWarning, stacklevel=2)
    return permute(self, tuple(range(self.ndim - 1, -1, -1)))


def _deprecated_0d(what, advice):
    warnings.warn(f"{what} is deprecated on 0-D tensors. {advice}", UserWarning, stacklevel=3)


def _mT(self):
    if self.ndim == 0:
        _deprecated_0d("Tensor.mT", "This function is the identity in these cases.")
        return self._as_view((), (), self._offset)
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D "
                           "tensor.")
    return transpose(self, -2, -1)


def _conj(t):
    return t.conj() if t._dtype.is_complex else t


def _H(self):
    if self.ndim == 0:
        _deprecated_0d("Tensor.H", "Consider using x.conj().")
        return _conj(self._as_view((), (), self._offset))
    if self.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""))
    return _conj(transpose(self, 0, 1))


def _mH(self, what="Tensor.mH", err="tensor.mH"):
    if self.ndim == 0:
        _deprecated_0d(what, "Consider using x.conj().")
        return _conj(self._as_view((), (), self._offset))
    if self.ndim < 2:
        raise RuntimeError(f"{err} is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return _conj(transpose(self, -2, -1))


Tensor.T = property(_T, doc="`x.T`: all dims reversed (deprecated by PyTorch for ndim != 2).")
Tensor.mT = property(_mT, doc="`x.mT`: the last two dims transposed.")
Tensor.H = property(_H, doc="`x.H`: conjugate transpose of a matrix.")
Tensor.mH = property(_mH, doc="`x.mH`: conjugate transpose of the last two dims.")


@register("adjoint", kind="view")
def adjoint(input):
    """`torch.adjoint(input)` -> `input.mH`."""
    return _mH(input, "adjoint()", "tensor.adjoint()")


@register("permute", kind="view")
def permute(input, *dims):
    """`torch.permute(input, dims)`: a view with dims reordered."""
    dims = shape_arg(dims, "permute")
    nd = input.ndim
    if len(dims) != nd:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           "length of the desired ordering of dimensions i.e. input.dim() = "
                           f"{nd} is not equal to len(dims) = {len(dims)}")
    dims = [_wrap_dim(d, nd) for d in dims]
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return input._as_view([input._shape[d] for d in dims], [input._stride[d] for d in dims], input._offset)


@register("movedim", aliases=("moveaxis",), kind="view")
def movedim(input, source, destination):
    """`torch.movedim(input, source, destination)`: move dims (int or sequence) to new positions."""
    if isinstance(source, int) != isinstance(destination, int):
        kinds = ", ".join("int" if isinstance(v, int) else type(v).__name__ for v in (source, destination))
        raise TypeError(f"movedim() received an invalid combination of arguments - got ({kinds}), but expected "
                        "one of:\n * (int source, int destination)\n * (tuple of ints source, tuple of ints "
                        "destination)")
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
                           f"same number of dims as destination ({dst} dims)")
    nd = input.ndim
    src = [_wrap_dim(d, nd) for d in src]
    dst = [_wrap_dim(d, nd) for d in dst]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source) if not isinstance(source, int) else source})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` "
                           f"({list(destination) if not isinstance(destination, int) else destination})")
    if nd == 0:
        return input._as_view((), (), input._offset)
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(input, order)


@register("expand", function=False, kind="view")
def expand(self, *sizes):
    """`Tensor.expand(*sizes)`: a view broadcasting size-1 dims (stride 0); -1 keeps a dim."""
    sizes = shape_arg(sizes, "expand")
    nd = self.ndim
    if len(sizes) < nd:
        raise RuntimeError(f"expand({self.type()}{{{list(self._shape)}}}, size={list(sizes)}): the number of sizes "
                           f"provided ({len(sizes)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({nd})")
    # PyTorch's inferExpandGeometry, from the last dim backwards
    n = len(sizes)
    shape, stride = [0] * n, [0] * n
    for i in range(n - 1, -1, -1):
        d = i - (n - nd)
        size = self._shape[d] if d >= 0 else 1
        st = self._stride[d] if d >= 0 else shape[i + 1] * stride[i + 1] if i + 1 < n else 0
        target = sizes[i]
        if target == -1:
            if d < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(f"The expanded size of the tensor ({target}) must match the existing size ({size}) "
                                   f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                                   f"{list(self._shape)}")
            if target < 0:
                raise RuntimeError("numel: integer multiplication overflow")
            size, st = target, 0
        shape[i], stride[i] = size, st
    return self._as_view(shape, stride, self._offset)


@register("expand_as", function=False, kind="view")
def expand_as(self, other):
    """`Tensor.expand_as(other)` -> `self.expand(other.size())`."""
    return expand(self, other._shape)


@register("broadcast_to", kind="view")
def broadcast_to(input, size):
    """`torch.broadcast_to(input, size)` -> `input.expand(size)`."""
    return expand(input, tuple(size))


@register("squeeze", inplace=lambda self, dim=None: _inplace_geometry(self, squeeze(self, dim)), kind="view")
def squeeze(input, dim=None):
    """`torch.squeeze(input, dim=None)`: drop size-1 dims (all, one, or a tuple); others are kept silently."""
    nd = input.ndim
    if dim is None:
        dims = {i for i, s in enumerate(input._shape) if s == 1}
    else:
        wrapped = [_wrap_dim(d, nd) for d in ((dim,) if isinstance(dim, int) else dim)]
        for i, d in enumerate(wrapped):
            if d in wrapped[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        dims = {d for d in wrapped if nd and input._shape[d] == 1}
    keep = [i for i in range(nd) if i not in dims]
    return input._as_view([input._shape[i] for i in keep], [input._stride[i] for i in keep], input._offset)


@register("unsqueeze", inplace=lambda self, dim: _inplace_geometry(self, unsqueeze(self, dim)), kind="view")
def unsqueeze(input, dim):
    """`torch.unsqueeze(input, dim)`: insert a size-1 dim at `dim` (in [-ndim-1, ndim])."""
    nd = input.ndim
    d = _wrap_dim(dim, nd + 1)
    st = input._shape[d] * input._stride[d] if d < nd else 1
    shape = input._shape[:d] + (1,) + input._shape[d:]
    stride = input._stride[:d] + (st,) + input._stride[d:]
    return input._as_view(shape, stride, input._offset)


@register("narrow", kind="view")
def narrow(input, dim, start, length):
    """`torch.narrow(input, dim, start, length)`: the view `input[..., start:start+length, ...]` along dim."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    if isinstance(start, Tensor):
        if start.ndim != 0 or start._dtype.is_floating_point or start._dtype.is_complex:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = start.__index__()
    size = input._shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    shape = list(input._shape)
    shape[d] = length
    return input._as_view(shape, input._stride, input._offset + start * input._stride[d])


@register("select", kind="view")
def select(input, dim, index):
    """`torch.select(input, dim, index)`: the view with `dim` removed at position `index`."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    index = index.__index__() if isinstance(index, Tensor) else index
    if not isinstance(index, int):
        raise TypeError(f"select(): argument 'index' (position 2) must be int, not {type(index).__name__}")
    size = input._shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._shape)} at "
                         f"dimension {d}")
    if index < 0:
        index += size
    shape = input._shape[:d] + input._shape[d + 1:]
    stride = input._stride[:d] + input._stride[d + 1:]
    return input._as_view(shape, stride, input._offset + index * input._stride[d])


@register("unbind", kind="view")
def unbind(input, dim=0):
    """`torch.unbind(input, dim=0)` -> tuple of views, one per index along dim."""
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, input.ndim)
    return tuple(select(input, d, i) for i in range(input._shape[d]))


@register("split", kind="view")
def split(tensor, split_size_or_sections, dim=0):
    """`torch.split(tensor, split_size_or_sections, dim=0)` -> tuple of views (the last may be smaller)."""
    d = _wrap_dim(dim, tensor.ndim)
    size = tensor._shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0:
            if size != 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                                   f"{size}")
            return (tensor._as_view(tensor._shape, tensor._stride, tensor._offset),)
        sections = [min(step, size - s) for s in range(0, size, step)] or [0]
    else:
        sections = list(split_size_or_sections)
        for s in sections:
            if not isinstance(s, int):
                raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, "
                                f"but found element of type {type(s).__name__} at pos {sections.index(s)}")
        if any(s < 0 for s in sections):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sections}")
        if sum(sections) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={sections}")
    out, start = [], 0
    for n in sections:
        out.append(narrow(tensor, d, start, n))
        start += n
    return tuple(out)


@register("split_with_sizes", kind="view")
def split_with_sizes(input, split_sizes, dim=0):
    """`torch.split_with_sizes(input, split_sizes, dim=0)`."""
    return split(input, list(split_sizes), dim)


@register("chunk", kind="view")
def chunk(input, chunks, dim=0):
    """`torch.chunk(input, chunks, dim=0)`: up to `chunks` views of size ceil(n / chunks)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, input.ndim)
    size = input._shape[d]
    step = -(-size // chunks)
    if step == 0:
        return tuple(narrow(input, d, 0, 0) for _ in range(chunks)) if size == 0 else (input,)
    return split(input, step, d)


@register("tensor_split", kind="view")
def tensor_split(input, indices_or_sections, dim=0):
    """`torch.tensor_split(input, indices_or_sections, dim=0)`: numpy.array_split semantics, as views."""
    d = _wrap_dim(dim, input.ndim)
    size = input._shape[d]
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t._dtype.name != "int64":
            from .._promotion import short_name
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{short_name(t._dtype)}")
        if t.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {t.ndim} dims")
        indices_or_sections = t.tolist()
    elif not isinstance(indices_or_sections, (int, tuple, list)):
        raise TypeError(f"tensor_split() received an invalid combination of arguments - got "
                        f"({type(indices_or_sections).__name__}), but expected one of:\n"
                        " * (tuple of ints indices, int dim = 0)\n * (Tensor tensor_indices_or_sections, int dim = 0)"
                        "\n * (int sections, int dim = 0)")
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds = [0]
        for i in range(n):
            bounds.append(bounds[-1] + q + (1 if i < r else 0))
    else:
        bounds = [0] + [min(max(int(i), 0), size) for i in indices_or_sections] + [size]
    out = []
    for a, b in zip(bounds, bounds[1:]):
        a = min(a, size)
        out.append(narrow(input, d, a, max(b - a, 0)))
    return tuple(out)


@register("diagonal", kind="view")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """`torch.diagonal(input, offset=0, dim1=0, dim2=1)`: a view of the diagonal, appended as the last dim."""
    nd = input.ndim
    a, b = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    start = input._offset
    if offset >= 0:
        n = max(min(input._shape[a], input._shape[b] - offset), 0)
        start += offset * input._stride[b] if n else 0
    else:
        n = max(min(input._shape[a] + offset, input._shape[b]), 0)
        start += -offset * input._stride[a] if n else 0
    keep = [i for i in range(nd) if i not in (a, b)]
    shape = [input._shape[i] for i in keep] + [n]
    stride = [input._stride[i] for i in keep] + [input._stride[a] + input._stride[b]]
    return input._as_view(shape, stride, start)


@register("unfold", function=False, kind="view")
def unfold(self, dimension, size, step):
    """`Tensor.unfold(dimension, size, step)`: a view of all windows of `size` along dim, stride `step`."""
    nd = self.ndim
    d = _wrap_dim(dimension, nd) if nd else 0 * _wrap_dim(dimension, 0)
    cur = self._shape[d] if nd else 1
    if size > cur:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {cur} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if not nd:
        return self._as_view((size,), (1,), self._offset)
    shape = list(self._shape)
    stride = list(self._stride)
    shape[d] = (cur - size) // step + 1
    stride[d] = self._stride[d] * step
    return self._as_view(shape + [size], stride + [self._stride[d]], self._offset)


def _check_as_strided(self, size, stride, offset):
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if V.numel(size) == 0:
        return
    need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    have = self._storage.numel
    if need > have:
        isz = self._dtype.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {isz} requiring a storage size of {need * isz} are out of bounds for storage "
                           f"of size {have * isz}")


@register("as_strided", inplace=lambda self, size, stride, storage_offset=None: _inplace_geometry(
    self, as_strided(self, size, stride, storage_offset)), kind="view")
def as_strided(input, size, stride, storage_offset=None):
    """`torch.as_strided(input, size, stride, storage_offset=None)`: any geometry over input's storage.

    Reads of irregular layouts use a gather; writes through self-overlapping layouts keep one of the values."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    offset = input._offset if storage_offset is None else int(storage_offset)
    _check_as_strided(input, size, stride, offset)
    return input._as_view(size, stride, offset)


@register("contiguous", function=False, kind="view")
def contiguous(self, memory_format=None):
    """`Tensor.contiguous()`: self when already contiguous, else a contiguous copy."""
    if self.is_contiguous():
        return self
    from ._dispatch import fresh
    return fresh(self._value, self._dtype, self._storage.device)


@register("broadcast_tensors", method=False, kind="view")
def broadcast_tensors(*tensors):
    """`torch.broadcast_tensors(*tensors)` -> tuple of expanded views sharing one broadcast shape."""
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}")
    from ._dispatch import broadcast_error
    shape = broadcast_error([t._shape for t in tensors]) if tensors else ()
    return tuple(expand(t, shape) for t in tensors)


@register("broadcast_shapes", method=False)
def broadcast_shapes(*shapes):
    """`torch.broadcast_shapes(*shapes)` -> torch.Size: the broadcast of shapes given as ints or sequences,
    with PyTorch's (torch._refs) error messages."""
    from collections.abc import Sequence

    from .._tensor import Size
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    if not shapes:
        return Size([])
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * max(len(s) for s in shapes)
    for arg, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            if shape[idx] == 1:
                continue
            if common[idx] != shape[idx]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! Mismatching "
                                   f"argument at index {arg} had {shape}; but expected shape should be broadcastable "
                                   f"to {common}")
    for k, s in enumerate(common):
        if not isinstance(s, int):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {k} is '{type(s).__name__}')")
    return Size(common)

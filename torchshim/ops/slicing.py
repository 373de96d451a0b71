"""Views that pick part of a tensor: narrow, select, unbind, split, split_with_sizes, chunk, tensor_split,
diagonal, unfold, as_strided (the reshaping and permuting views are in `views.py`)."""
from .. import _view as V
from .._tensor import Tensor, _wrap_dim
from .._methods import add_tensor_method
from ..autograd import _names as N
from ._registry import register
from .views import _combo, _concrete, _inplace_geometry, _int, _methods, _pub, shape_arg


_MISSING = object()


@register("narrow", method=False, kind="view", grad_name="SliceBackward0", saves="none")
def narrow(input, dim, start, length=_MISSING, *, _m=False):
    """`torch.narrow(input, dim, start, length)`: the view `input[..., start:start+length, ...]` along dim;
    `start` may be a 0-dim integral tensor."""
    args = (dim, start) if length is _MISSING else (dim, start, length)
    if length is _MISSING or not all(isinstance(v, int) for v in (dim, length)) or not isinstance(start,
                                                                                                  (int,
                                                                                                   Tensor)):
        _combo("narrow", args, _m)
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    if isinstance(start, Tensor):
        if start.ndim != 0 or start._dtype.is_floating_point or start._dtype.is_complex:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = _concrete(start, "narrow", "start")
    size = input._shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    shape = list(input._shape)
    shape[d] = length
    return input._as_view(shape, input._stride, input._offset + start * input._stride[d])


@register("select", method=False, kind="view", saves="none")
def select(input, dim, index, *, _m=False):
    """`torch.select(input, dim, index)`: the view with `dim` removed at position `index`."""
    dim = _int(dim, "select", "dim", 2 - bool(_m))
    index = _int(index, "select", "index", 3 - bool(_m))
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    size = input._shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._shape)} at "
                         f"dimension {d}")
    if index < 0:
        index += size
    shape = input._shape[:d] + input._shape[d + 1:]
    stride = input._stride[:d] + input._stride[d + 1:]
    return input._as_view(shape, stride, input._offset + index * input._stride[d])


@register("unbind", method=False, kind="view", saves="none")
def unbind(input, dim=0, *, _m=False):
    """`torch.unbind(input, dim=0)` -> tuple of views, one per index along dim."""
    dim = _int(dim, "unbind", "dim", 2 - bool(_m))
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, input.ndim)
    return tuple(select(input, d, i) for i in range(input._shape[d]))


def _split_name(args, kwargs):
    s = N.arg(args, kwargs, 1, "split_size_or_sections", kwargs.get("split_size"))
    return "SplitWithSizesBackward0" if isinstance(s, (tuple, list)) else "SplitBackward0"


@register("split", method=False, kind="view", grad_name=_split_name, saves="none")
def split(tensor, split_size_or_sections, dim=0):
    """`torch.split(tensor, split_size_or_sections, dim=0)` -> tuple of views (the last may be smaller);
    `Tensor.split(split_size, dim=0)`."""
    if not isinstance(split_size_or_sections, int) or isinstance(split_size_or_sections, bool):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    dim = _int(dim, "split", "dim", 3)
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, tensor.ndim)
    size = tensor._shape[d]
    step = split_size_or_sections
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0:
        if size != 0:
            raise RuntimeError("split_size can only be 0 if dimension size is 0, but got dimension size of "
                               f"{size}")
        return (tensor._as_view(tensor._shape, tensor._stride, tensor._offset),)
    return _pieces(tensor, d, [min(step, size - s) for s in range(0, size, step)] or [0])


def _split_method(self, split_size, dim=0):
    return _pub("split")(self, split_size, dim)


_split_method.__name__ = _split_method.__qualname__ = "split"
_split_method.__doc__ = "`Tensor.split(split_size, dim=0)`: see `torch.split`."
add_tensor_method("split", _split_method)


def _pieces(tensor, d, sections):
    out, start = [], 0
    for n in sections:
        out.append(narrow(tensor, d, start, n))
        start += n
    return tuple(out)


@register("split_with_sizes", method=False, kind="view", saves="none")
def split_with_sizes(input, split_sizes, dim=0, *, _m=False):
    """`torch.split_with_sizes(input, split_sizes, dim=0)`: views of the given sizes (summing to the dim)."""
    if not isinstance(split_sizes, (tuple, list)):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' (position {2 - bool(_m)}) must be tuple "
                        f"of ints, not {type(split_sizes).__name__}")
    sections = list(shape_arg((split_sizes,), "split_with_sizes", "split_sizes", 2 - bool(_m)))
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, input.ndim)
    size = input._shape[d]
    if any(s < 0 for s in sections):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sections}")
    if sum(sections) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                           f"size at dimension {d}), but got split_sizes={sections}")
    return _pieces(input, d, sections)


@register("chunk", method=False, kind="view", grad_name="SplitBackward0", saves="none")
def chunk(input, chunks, dim=0, *, _m=False):
    """`torch.chunk(input, chunks, dim=0)`: up to `chunks` views of size ceil(n / chunks)."""
    chunks = _int(chunks, "chunk", "chunks", 2 - bool(_m))
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, input.ndim)
    size = input._shape[d]
    step = -(-size // chunks)
    if step == 0:
        return tuple(narrow(input, d, 0, 0) for _ in range(chunks)) if size == 0 else (input,)
    return split(input, step, d)


@register("tensor_split", method=False, kind="view", grad_name="SliceBackward0", saves="none")
def tensor_split(input, indices_or_sections=_MISSING, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None, _m=False):
    """`torch.tensor_split(input, indices_or_sections, dim=0)` (or `sections=`, `indices=`,
    `tensor_indices_or_sections=`): numpy.array_split semantics, as views. Indices are slice bounds (negative
    ones count from the end). A tensor of indices is read on the host (it sets the output shapes)."""
    for v in (sections, indices, tensor_indices_or_sections):
        if v is not None:
            indices_or_sections = v
    if indices_or_sections is _MISSING:
        _combo("tensor_split", (), _m)
    ios = indices_or_sections
    if not isinstance(ios, (int, tuple, list, Tensor)) or isinstance(ios, bool):
        _combo("tensor_split", (ios,), _m)
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 "
                           "dims")
    d = _wrap_dim(dim, input.ndim)
    size = input._shape[d]
    if isinstance(ios, Tensor):
        if ios._dtype.name != "int64":
            from .._promotion import short_name
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                               f"got {short_name(ios._dtype)}")
        if ios.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
                               f"or one-dimensional tensor, but got a tensor with {ios.ndim} dims")
        import jax
        if isinstance(ios._value, jax.core.Tracer):
            raise RuntimeError("tensor_split(): the tensor argument 'tensor_indices_or_sections' sets the "
                               "result's geometry and can't be read under jax tracing; pass Python ints")
        ios = ios.item() if ios.ndim == 0 else [int(i) for i in ios.tolist()]
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(size, ios)
        return _pieces(input, d, [q + (1 if i < r else 0) for i in range(ios)])
    bounds = list(shape_arg((ios,), "tensor_split", "indices", 2 - bool(_m)))

    def clamp(i):
        return min(max(i + size if i < 0 else i, 0), size)

    out, prev = [], 0
    for i in bounds + [size]:
        a, b = clamp(prev), clamp(i)
        out.append(narrow(input, d, a, max(b - a, 0)))
        prev = i
    return tuple(out)


_methods("squeeze", "squeeze")
_methods("unsqueeze", "unsqueeze")
_methods("narrow", "narrow")
_methods("select", "select")
_methods("unbind", "unbind")
_methods("split_with_sizes", "split_with_sizes")
_methods("chunk", "chunk")
_methods("tensor_split", "tensor_split")


@register("diagonal", method=False, kind="view", saves="none")
def diagonal(input, offset=0, dim1=0, dim2=1, *, _m=False):
    """`torch.diagonal(input, offset=0, dim1=0, dim2=1)`: a view of the diagonal, appended as the last dim."""
    offset = _int(offset, "diagonal", "offset", 2 - bool(_m))
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


_methods("diagonal", "diagonal")


@register("unfold", function=False, kind="view", saves="none")
def unfold(self, dimension, size, step):
    """`Tensor.unfold(dimension, size, step)`: a view of all windows of `size` along dim, stride `step`."""
    dimension, size, step = (_int(v, "unfold", n, k + 1) for k, (v, n) in
                             enumerate(((dimension, "dimension"), (size, "size"), (step, "step"))))
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
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    need = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    have = V.lens_numel(self._storage.numel, self._lens)  # in this tensor's units (complex views)
    if V.numel(size) and need > have:  # PyTorch: an empty geometry fits any storage
        isz = self._dtype.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                           f"{offset}, and itemsize {isz} requiring a storage size of {need * isz} are out "
                           f"of bounds for storage of size {have * isz}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")


@register("as_strided", inplace=lambda self, size, stride, storage_offset=None: _inplace_geometry(
    self, "as_strided", (size, stride, storage_offset)), kind="view", saves="none")
def as_strided(input, size, stride, storage_offset=None):
    """`torch.as_strided(input, size, stride, storage_offset=None)`: any geometry over input's storage.

    Reads of irregular layouts use a gather; writes through self-overlapping layouts keep one of the
    values."""
    size = shape_arg((size,), "as_strided", "size", unpack=True)
    stride = shape_arg((stride,), "as_strided", "stride", unpack=True)
    offset = input._offset if storage_offset is None else _int(storage_offset, "as_strided", "storage_offset",
                                                               4)
    _check_as_strided(input, size, stride, offset)
    return input._as_view(size, stride, offset)

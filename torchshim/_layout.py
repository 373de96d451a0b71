"""`torch.layout` and `torch.memory_format`: the objects, and PyTorch's stride rules for memory formats.

`torch.strided` is the only layout torchshim stores; the sparse/MKLDNN/jagged layouts exist as objects (so
code can name and compare them) and creation functions raise NotImplementedError for them. The memory formats
are PyTorch's: `contiguous_format` (row-major), `preserve_format` (keep the input's dense strides),
`channels_last` (NHWC strides of a 4-D tensor) and `channels_last_3d` (NDHWC of a 5-D tensor).
"""

__all__ = [
    "layout",
    "memory_format",
    "strided",
    "sparse_coo",
    "sparse_csr",
    "sparse_csc",
    "sparse_bsr",
    "sparse_bsc",
    "jagged",
    "contiguous_format",
    "preserve_format",
    "channels_last",
    "channels_last_3d",
    "legacy_contiguous_format",
]


class _Named:
    """A singleton named like `torch.<name>`; the type can't be instantiated from Python (as in PyTorch)."""

    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'torch.{cls.__name__}' instances")

    @classmethod
    def _create(cls, name):
        obj = object.__new__(cls)
        obj._name = name
        _BY_NAME[name] = obj
        return obj

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return (_by_name, (self._name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


_BY_NAME = {}


def _by_name(name):
    return _BY_NAME[name]


class layout(_Named):
    """`torch.layout`: how a tensor's elements are stored (`torch.strided` for every torchshim tensor)."""

    __slots__ = ()


class memory_format(_Named):
    """`torch.memory_format`: the dimension order of a dense tensor's strides."""

    __slots__ = ()


strided = layout._create("strided")
sparse_coo = layout._create("sparse_coo")
sparse_csr = layout._create("sparse_csr")
sparse_csc = layout._create("sparse_csc")
sparse_bsr = layout._create("sparse_bsr")
sparse_bsc = layout._create("sparse_bsc")
_mkldnn = layout._create("_mkldnn")
jagged = layout._create("jagged")

contiguous_format = memory_format._create("contiguous_format")
preserve_format = memory_format._create("preserve_format")
channels_last = memory_format._create("channels_last")
channels_last_3d = memory_format._create("channels_last_3d")
legacy_contiguous_format = contiguous_format  # PyTorch: the same object

PUBLIC = {name: obj for name, obj in _BY_NAME.items()}
PUBLIC.update(legacy_contiguous_format=legacy_contiguous_format)


def _tp(x):
    """The type name PyTorch's argument parser prints (`torch.layout`, `str`, `NoneType`)."""
    t = type(x)
    # torchshim's dtype class: module `torchshim._dtype`, or `torch` once install_as_torch() renamed it
    ours = t.__name__ == "dtype" and t.__module__.split(".")[0] in ("torchshim", "torch")
    if isinstance(x, _Named) or ours:
        return "torch." + t.__name__
    return t.__name__


def check_layout(fname, value, filled=False):
    """A factory's `layout=` argument: None or torch.strided (torch.jagged too: PyTorch's plain factories give
    a strided tensor for it); PyTorch's TypeError for other types, its RuntimeError for a filled
    (`ones`/`full`) sparse COO tensor, and NotImplementedError for the other layouts, which torchshim does not
    store."""
    if value is None or value is strided or value is jagged:
        return
    if not isinstance(value, layout):
        raise TypeError(f"{fname}(): argument 'layout' must be torch.layout, not {_tp(value)}")
    if filled and value is sparse_coo:
        raise RuntimeError("full(...) is not implemented for sparse layout")
    raise NotImplementedError(
        f"torchshim: {fname}(layout={value}) is not supported: torchshim tensors are "
        "dense (torch.strided) only"
    )


def check_memory_format(fname, value, optional=True):
    """The memory_format argument of `fname`: a torch.memory_format (or None where PyTorch's is optional);
    PyTorch's TypeError otherwise. Returns it, None read as preserve_format."""
    if value is None and optional:
        return preserve_format
    if not isinstance(value, memory_format):
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, not {_tp(value)}")
    return value


_RANK = {channels_last: (4, "channels_last"), channels_last_3d: (5, "channels_last_3d")}


def check_rank(ndim, fmt):
    """PyTorch's error for a channels-last format on a tensor of the wrong rank."""
    rank, name = _RANK[fmt]
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {name} format")


def format_strides(shape, fmt):
    """The strides of a new tensor of `shape` in memory format `fmt` (contiguous or channels-last: PyTorch's
    `empty_tensor_restride`, with its rank errors)."""
    if fmt is contiguous_format:
        strides = [1] * len(shape)
        for i in range(len(shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * max(shape[i + 1], 1)
        return tuple(strides)
    check_rank(len(shape), fmt)
    order = (1, 3, 2, 0) if fmt is channels_last else (1, 4, 3, 2, 0)  # innermost first
    strides = [0] * len(shape)
    cur = 1
    for d in order:  # get_channels_last_strides_*d: sizes as they are (a 0 size makes the outer strides 0)
        strides[d] = cur
        cur *= shape[d]
    return tuple(strides)


def _channels_last_contiguous(shape, stride, order):
    expected = 1
    for d in order:
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def is_contiguous_as(shape, stride, fmt, plain):
    """`Tensor.is_contiguous(memory_format=fmt)`; `plain` is the row-major answer (other formats give it)."""
    if fmt is channels_last:
        return len(shape) == 4 and _channels_last_contiguous(shape, stride, (1, 3, 2, 0))
    if fmt is channels_last_3d:
        return len(shape) == 5 and _channels_last_contiguous(shape, stride, (1, 4, 3, 2, 0))
    return plain


def _strides_like(shape, stride, order):
    """PyTorch's is_channels_last_strides_2d_s4 / _3d_s5 (strides that *look* channels-last)."""
    if stride[1] == 0:
        return False
    lo = 0
    for d in order:
        if shape[d] == 0 or stride[d] < lo:
            return False
        if d == 0 and lo == stride[1]:
            return False
        lo = stride[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest_memory_format(shape, stride):
    """PyTorch's `suggest_memory_format()`: channels_last(_3d) when the strides look like it, else
    contiguous."""
    if len(shape) == 4 and _strides_like(shape, stride, (1, 3, 2, 0)):
        return channels_last
    if len(shape) == 5 and _strides_like(shape, stride, (1, 4, 3, 2, 0)):
        return channels_last_3d
    return contiguous_format

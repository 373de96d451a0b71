"""Dtype and device movement, the Tensor methods `to`, `type`, `cpu`, `cuda` and `float()`, `long()`, ...
(registered as Tensor methods; the op that copies is `_dispatch.convert`)."""
from .. import _device as Dev
from .. import _dtype as D
from .. import _layout as L
from .._dtype import legacy_type_name
from .._methods import add_tensor_method, tensor_method
from .._tensor import Tensor
from ._dispatch import convert
from .copy import relayout_
from .legacy_types import resolve_legacy_type


@tensor_method("type")
def type_method(self, dtype=None, non_blocking=False, **kwargs):
    """`x.type()` -> 'torch.FloatTensor'; `x.type(torch.DoubleTensor)` or `x.type('torch.IntTensor')`
    casts."""
    if dtype is None:
        return legacy_type_name(self._dtype, self._storage.device)
    d, dev = resolve_legacy_type(dtype)
    out = self.to(d)
    if dev is not None and dev != out.device.type:
        out = out.to(dev)
    return out


@tensor_method()
def to(self, *args, **kwargs):
    """`to(dtype)`, `to(device, dtype=None)`, `to(other)`, with `non_blocking`, `copy`, `memory_format`.

    Returns self when nothing changes (unless copy=True), like PyTorch; a copy keeps self's dense strides
    (memory_format=torch.preserve_format) or takes the format's."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    fmt = L.check_memory_format("to", kwargs.pop("memory_format", None))
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, Dev.device, int)) and not isinstance(a, bool):
            device = a
        elif isinstance(a, bool):
            continue  # legacy positional non_blocking / copy
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    dev = self._storage.device if device is None else Dev.canonical(device)
    dt = self._dtype if dtype is None else dtype
    if dev is self._storage.device and dt is self._dtype and not copy and (
            fmt is L.preserve_format or L.suggest_memory_format(self._shape, self._stride) is fmt):
        return self
    if fmt is not L.preserve_format and fmt is not L.contiguous_format:
        L.check_rank(len(self._shape), fmt)
    out = convert(self, dt, dev)
    if fmt is L.preserve_format and self._stride == out._stride:
        return out  # contiguous stays contiguous
    return relayout_(out, self._stride, fmt)


@tensor_method()
def cpu(self, memory_format=None):
    """`Tensor.cpu(memory_format=torch.preserve_format)`: `self.to("cpu")`."""
    return self.to("cpu", memory_format=memory_format)


@tensor_method()
def cuda(self, device=None, non_blocking=False, memory_format=None):
    """`Tensor.cuda(device=None, non_blocking=False, memory_format=torch.preserve_format)`:
    `self.to(device)`."""
    if device is None:
        device = "cuda"
    elif isinstance(device, int):
        device = f"cuda:{device}"
    return self.to(device, memory_format=memory_format)


@tensor_method()
def _cast(self, d):
    return self.to(d)


def _dtype_method(name, d):
    def m(self, memory_format=None):
        return self.to(d, memory_format=memory_format)
    m.__name__, m.__qualname__ = name, "Tensor." + name
    m.__doc__ = (f"`Tensor.{name}(memory_format=torch.preserve_format)`: "
                 f"`self.to(torch.{d.name}, memory_format=...)`.")
    return m


for _n, _d in (("float", D.float32), ("double", D.float64), ("half", D.float16), ("bfloat16", D.bfloat16),
               ("int", D.int32), ("long", D.int64), ("short", D.int16), ("char", D.int8), ("byte", D.uint8),
               ("bool", D.bool_), ("cfloat", D.complex64), ("cdouble", D.complex128)):
    add_tensor_method(_n, _dtype_method(_n, _d))

"""torch dtypes and their jax/numpy counterparts: the only place the two are mapped.

`torchshim.float32 is torchshim.float`, `str(torchshim.int64) == 'torch.int64'`, like PyTorch.
"""
import ml_dtypes
import numpy as np

__all__ = ["dtype", "get_default_dtype", "set_default_dtype", "finfo", "iinfo"]


class dtype:
    """A torch dtype: `torch.float32`, `torch.int64`, ... (`torch.dtype` in PyTorch).

    Attributes match PyTorch: `is_floating_point`, `is_complex`, `is_signed`, `itemsize`.
    """

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_legacy_name")

    def __init__(self, name, np_dtype, legacy_name=None):
        self.name = name
        self.np = np.dtype(np_dtype)
        kind = self.np.kind
        self.is_complex = kind == "c"
        self.is_floating_point = kind == "f" or np_dtype in _ML_FLOATS
        self.is_signed = kind in "ifc" or np_dtype in _ML_FLOATS
        self.itemsize = self.np.itemsize
        self._legacy_name = legacy_name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self):
        """`dtype.to_real()`: the real counterpart of a complex dtype (itself otherwise)."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        """`dtype.to_complex()`: the complex counterpart of a floating dtype."""
        return {"float32": complex64, "float64": complex128, "float16": complex64}.get(self.name, self)


_ML_FLOATS = (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)

float32 = dtype("float32", np.float32, "FloatTensor")
float64 = dtype("float64", np.float64, "DoubleTensor")
float16 = dtype("float16", np.float16, "HalfTensor")
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, "BFloat16Tensor")
complex64 = dtype("complex64", np.complex64, "ComplexFloatTensor")
complex128 = dtype("complex128", np.complex128, "ComplexDoubleTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
int8 = dtype("int8", np.int8, "CharTensor")
int16 = dtype("int16", np.int16, "ShortTensor")
int32 = dtype("int32", np.int32, "IntTensor")
int64 = dtype("int64", np.int64, "LongTensor")
bool_ = dtype("bool", np.bool_, "BoolTensor")
uint16 = dtype("uint16", np.uint16)
uint32 = dtype("uint32", np.uint32)
uint64 = dtype("uint64", np.uint64)
float8_e4m3fn = dtype("float8_e4m3fn", ml_dtypes.float8_e4m3fn)
float8_e5m2 = dtype("float8_e5m2", ml_dtypes.float8_e5m2)

ALL = (float32, float64, float16, bfloat16, complex64, complex128, uint8, int8, int16, int32, int64, bool_,
       uint16, uint32, uint64, float8_e4m3fn, float8_e5m2)

# Public names, aliases included (torch.float is torch.float32, ...).
PUBLIC = {d.name: d for d in ALL}
PUBLIC.update(float=float32, double=float64, half=float16, cfloat=complex64, cdouble=complex128,
              short=int16, int=int32, long=int64)

_BY_NP = {d.np: d for d in ALL}


def _dtype_by_name(name):
    return PUBLIC[name]


def from_numpy_dtype(np_dtype):
    """The torch dtype of a numpy/jax dtype; TypeError for ones PyTorch lacks."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
            "uint16, uint8, and bool.") from None


def to_jax(d):
    """The numpy dtype jax uses for torch dtype `d`."""
    return d.np


_default = [float32]


def get_default_dtype():
    """`torch.get_default_dtype()` -> the dtype of `torch.tensor(1.5)` and of `torch.zeros(2)`."""
    return _default[0]


def set_default_dtype(d):
    """`torch.set_default_dtype(d)`; PyTorch accepts float32, float64, float16 and bfloat16 only."""
    if not isinstance(d, dtype) or d not in (float32, float64, float16, bfloat16):
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def default_complex():
    """The complex dtype matching the default float (complex128 when the default is float64)."""
    return complex128 if _default[0] is float64 else complex64


class finfo:
    """`torch.finfo(dtype)`: bits, eps, max, min, tiny, smallest_normal, resolution, dtype."""

    def __init__(self, type=None):
        type = get_default_dtype() if type is None else type
        if not (type.is_floating_point or type.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = ml_dtypes.finfo(type.to_real().np)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.tiny)
        self.smallest_normal = self.tiny
        self.resolution = float(info.resolution)
        self.dtype = type.to_real().name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """`torch.iinfo(dtype)`: bits, max, min, dtype."""

    def __init__(self, type):
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        if type is bool_:
            self.bits, self.min, self.max = 8, 0, 1
        else:
            info = np.iinfo(type.np)
            self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def legacy_type_name(dtype, device):
    """PyTorch's legacy type name of a tensor: 'torch.FloatTensor', 'torch.cuda.LongTensor', ..."""
    name = dtype._legacy_name or (dtype.name.capitalize() + "Tensor")
    return f"torch.cuda.{name}" if device.type == "cuda" else f"torch.{name}"

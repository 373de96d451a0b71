"""PyTorch's type promotion (not JAX's): `promote_types`, `result_type`, `can_cast`.

Categories bool < integer < floating < complex. Within a category, a dimensioned tensor outranks a 0-dim
tensor, which outranks a Python scalar; a higher category always wins (int tensor + 2.5 -> default float).
"""
from functools import lru_cache

from . import _dtype as D

__all__ = ["promote_types", "result_type", "can_cast", "category"]

_INTS = (D.uint8, D.int8, D.int16, D.int32, D.int64)
_BAREBONES_UINT = (D.uint16, D.uint32, D.uint64)
_FLOAT8 = (D.float8_e4m3fn, D.float8_e5m2)
_SHORT = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool",
          "float16": "Half", "float32": "Float", "float64": "Double", "bfloat16": "BFloat16",
          "complex64": "ComplexFloat", "complex128": "ComplexDouble", "uint16": "UInt16", "uint32": "UInt32",
          "uint64": "UInt64", "float8_e4m3fn": "Float8_e4m3fn", "float8_e5m2": "Float8_e5m2"}


def short_name(d):
    """PyTorch's C++ name of a dtype as used in error messages: Float, Long, Bool, ..."""
    return _SHORT[d.name]


_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}


def c_name(d):
    """The C++ type name PyTorch prints in some messages: float, double, long int, ..."""
    return _C_NAMES.get(d.name, d.name)


def category(d):
    """0 bool, 1 integer, 2 floating, 3 complex."""
    if d is D.bool_:
        return 0
    if d.is_complex:
        return 3
    if d.is_floating_point:
        return 2
    return 1


@lru_cache(maxsize=None)
def promote_types(a, b):
    """`torch.promote_types(type1, type2)` -> the smallest dtype both can be cast to, by PyTorch's table."""
    if a is b:
        return a
    if a in _FLOAT8 or b in _FLOAT8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote "
                           f"{short_name(a)} and {short_name(b)}")
    if a in _BAREBONES_UINT or b in _BAREBONES_UINT:
        other = b if a in _BAREBONES_UINT else a
        if other.is_floating_point:
            return other
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to "
                           f"promote {short_name(a)} and {short_name(b)}")
    ca, cb = category(a), category(b)
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if category(hi) == 3 and category(lo) == 2:
            return D.complex128 if lo is D.float64 else hi
        return hi
    if ca == 1:
        if a is D.uint8 or b is D.uint8:
            other = b if a is D.uint8 else a
            return D.int16 if other is D.int8 else other
        return a if a.itemsize > b.itemsize else b
    if ca == 2:
        if {a.name, b.name} == {"float16", "bfloat16"}:
            return D.float32
        return a if a.itemsize > b.itemsize else b
    return a if a.itemsize > b.itemsize else b


def _combine(higher, lower):
    # c10's combine_categories: the higher-priority tier keeps its dtype unless a lower tier is a higher
    # category.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        if higher.is_floating_point:
            return D.complex128 if higher is D.float64 else D.complex64
        return lower
    if higher.is_floating_point:
        return higher
    if higher is D.bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def _wrapped_dtype(v):
    if isinstance(v, bool):
        return D.bool_
    if isinstance(v, int):
        return D.int64
    if isinstance(v, float):
        return D.get_default_dtype()
    if isinstance(v, complex):
        return D.default_complex()
    raise TypeError(f"result_type(): unsupported operand {type(v).__name__}")


def result_type_of(dims, zeros, wrapped):
    """Promote three tiers of dtypes: dimensioned tensors, 0-dim tensors, Python scalars."""
    dim_r = zero_r = wrap_r = None
    for d in dims:
        dim_r = d if dim_r is None else promote_types(dim_r, d)
    for d in zeros:
        zero_r = d if zero_r is None else promote_types(zero_r, d)
    for d in wrapped:
        wrap_r = d if wrap_r is None else promote_types(wrap_r, d)
    return _combine(dim_r, _combine(zero_r, wrap_r))


def result_type(*operands):
    """`torch.result_type(tensor1, tensor2)`: the dtype an arithmetic op on the operands would give.

    Operands are Tensors or Python numbers (bool, int, float, complex).
    """
    dims, zeros, wrapped = [], [], []
    for v in operands:
        d = getattr(v, "dtype", None)
        if d is None or not isinstance(d, D.dtype):
            wrapped.append(_wrapped_dtype(v))
        elif v.ndim == 0:
            zeros.append(d)
        else:
            dims.append(d)
    return result_type_of(dims, zeros, wrapped)


def can_cast(from_, to):
    """`torch.can_cast(from_, to)`: casting allowed by PyTorch's rules (no category downgrade)."""
    return category(from_) <= category(to)

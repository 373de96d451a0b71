"""Torch functions and Tensor methods on sparse COO tensors: `SparseTensor.__torch_function__` looks the call
up here by PyTorch's name (`torch.mm`, `Tensor.mm`, `S @ D`, `S + T`, ...); a name without a sparse
implementation raises instead of reading dense elements (docs/differences.md, "Sparse tensors"):
- ops PyTorch also lacks on the SparseCPU backend: PyTorch's NotImplementedError "Could not run 'aten::<name>'
  with arguments from the 'SparseCPU' backend." (first sentence);
- reshape/view-like, expand, contiguous, dense add: PyTorch's own RuntimeError text;
- ops PyTorch implements for sparse and torchshim does not (abs, relu, pow, select, cat, in-place
  arithmetic, ...): NotImplementedError "torchshim: <name>() on a sparse COO tensor is not implemented".

Also the dense Tensor's sparse-related methods (`to_sparse`, `to_dense`, `is_coalesced`, `indices`, ...) with
PyTorch's errors for a strided tensor, and the other layouts' conversions, which raise NotImplementedError
naming the layout.
"""
from .. import _layout as L
from .._methods import add_tensor_method
from .._tensor import Tensor
from . import sparse_ops as SO
from ._registry import installed
from ._subclass import DisableTorchFunctionSubclass
from .sparse_tensor import SparseTensor

__all__ = ["torch_function", "HANDLERS", "layout_error"]

HANDLERS = {}


def _handles(*names):
    def deco(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return deco


def _sp(x):
    return type(x) is SparseTensor


# ----- the dispatcher ---------------------------------------------------------------------------------------
# Tensor methods whose dense implementation reads only the size, dtype and device
_METADATA = frozenset({"size", "dim", "ndimension", "numel", "nelement", "element_size", "get_device",
                       "is_floating_point", "is_complex", "is_signed", "__len__", "is_same_size",
                       "is_nonzero_size"})
# ops PyTorch implements for sparse COO tensors that torchshim does not
_PYTORCH_HAS = frozenset({
    "abs", "relu", "sqrt", "pow", "square", "sin", "tan", "tanh", "asin", "atan", "sinh", "asinh", "atanh",
    "ceil", "floor", "round", "trunc", "frac", "sign", "sgn", "signbit", "neg_", "expm1", "log1p", "erf",
    "erfinv", "deg2rad", "rad2deg", "nan_to_num", "isnan", "isinf", "isposinf", "isneginf", "angle", "conj",
    "select", "index_select", "unsqueeze", "permute", "narrow_copy", "unbind", "__getitem__", "cat", "stack",
    "zero_", "mul_", "add_", "sub_", "div_", "copy_", "resize_as_", "sparse_resize_", "zeros_like",
    "empty_like", "new_zeros", "new_empty", "floor_divide", "remainder", "any", "isclose", "hspmm", "smm",
    "sspaddmm", "norm", "mT", "mH", "adjoint", "sum_to_size", "log_softmax", "softmax", "threshold",
    "_to_dense", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc", "__deepcopy__",
    "__iter__", "repeat_interleave", "masked_select", "addmv", "bmm", "sub", "lerp", "true_divide", "cos",
})


def torch_function(func, args, kwargs):
    """What `SparseTensor.__torch_function__` runs for the public function `func`."""
    name = getattr(func, "__torchshim_method__", None) or getattr(func, "__name__", str(func))
    h = HANDLERS.get(name)
    if h is not None:
        return h(*args, **kwargs)
    own = SparseTensor.__dict__.get(name)
    if callable(own):
        return own(*args, **kwargs)
    if name in _METADATA:
        with DisableTorchFunctionSubclass():
            return func(*args, **kwargs)
    raise unsupported(name)


def unsupported(name):
    if name in _PYTORCH_HAS:
        return NotImplementedError(
            f"torchshim: {name}() on a sparse COO tensor is not implemented (PyTorch has it; torchshim "
            "implements the subset listed in docs/differences.md, 'Sparse tensors'); call .to_dense() first")
    return NotImplementedError(
        f"Could not run 'aten::{name}' with arguments from the 'SparseCPU' backend. This could be because "
        "the operator doesn't exist for this backend. (torchshim implements the sparse COO subset listed in "
        "docs/differences.md, 'Sparse tensors'; call .to_dense() first.)")


def layout_error(what, layout):
    """The error for a sparse layout other than COO (CSR, CSC, BSR, BSC)."""
    return NotImplementedError(f"torchshim: {what}: the {layout} layout is not supported (torchshim has "
                               "strided and sparse COO tensors only; use torch.sparse_coo_tensor / "
                               "Tensor.to_sparse())")


def _no_out(out, name):
    if out is not None:
        raise NotImplementedError(f"torchshim: {name}(out=...) with a sparse operand is not supported")


# ----- products ---------------------------------------------------------------------------------------------
@_handles("mm", "spmm")
def _mm(input, mat2, *, out=None):
    _no_out(out, "mm")
    if _sp(input) and _sp(mat2):
        raise NotImplementedError("torchshim: sparse @ sparse products are not supported; densify one "
                                  "operand")
    if _sp(input):
        if mat2.dim() != 2:
            raise RuntimeError("mat2 must be a matrix")
        return SO.spmm(input, mat2)
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    return SO.dense_spmm(input, mat2)


@_handles("matmul")
def _matmul(input, other, *, out=None):
    _no_out(out, "matmul")
    if _sp(input) and not _sp(other) and input.dim() == 2 and other.dim() in (1, 2):
        return SO.spmm(input, other, "MvBackward0" if other.dim() == 1 else "MmBackward0")
    if _sp(other) and not _sp(input) and input.dim() == 2 and other.dim() == 2:
        return SO.dense_spmm(input, other)
    raise NotImplementedError("torchshim: matmul with a sparse operand supports 2-D sparse @ 1-D/2-D dense "
                              "and "
                              "2-D dense @ 2-D sparse")


@_handles("mv")
def _mv(input, vec, *, out=None):
    _no_out(out, "mv")
    if not _sp(input) or _sp(vec) or vec.dim() != 1:
        raise unsupported("mv")
    return SO.spmm(input, vec, "MvBackward0")


@_handles("addmm", "_addmm")
def _addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    _no_out(out, "addmm")
    if _sp(input) or _sp(mat2) or not _sp(mat1):
        raise NotImplementedError("torchshim: addmm with sparse operands supports a sparse mat1 only")
    return SO.addmm(input, mat1, mat2, beta, alpha)


# ----- arithmetic -------------------------------------------------------------------------------------------
def _scalar_like(x):
    return not isinstance(x, Tensor) or (not _sp(x) and x.dim() == 0)


@_handles("add")
def _add(input, other, *, alpha=1, out=None):
    _no_out(out, "add")
    return _add_sub(input, other, alpha, "AddBackward0")


@_handles("sub", "subtract")
def _sub(input, other, *, alpha=1, out=None):
    _no_out(out, "sub")
    return _add_sub(input, other, -alpha, "SubBackward0")


def _add_sub(input, other, alpha, name):
    if _sp(input) and _sp(other):
        return SO.add(input, other, alpha, name)
    if _sp(other) and isinstance(input, Tensor):
        return installed("add")(input, SO.to_dense(other), alpha=alpha)
    raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")


@_handles("mul", "multiply")
def _mul(input, other, *, out=None):
    _no_out(out, "mul")
    s, o = (input, other) if _sp(input) else (other, input)
    if _sp(o):
        raise NotImplementedError("torchshim: sparse * sparse is not supported")
    if _scalar_like(o):
        return SO.with_values(s, installed("mul")(s._sp_values, o))
    return SO.mask_mul(s, o)


@_handles("div", "divide", "true_divide")
def _div(input, other, *, rounding_mode=None, out=None):
    _no_out(out, "div")
    if not _sp(input) or not _scalar_like(other):
        raise unsupported("div")
    return SO.with_values(input, installed("div")(input._sp_values, other, rounding_mode=rounding_mode))


@_handles("neg", "negative")
def _neg(input, *, out=None):
    _no_out(out, "neg")
    return SO.with_values(input, installed("neg")(input._sp_values))


# ----- conversions and copies -------------------------------------------------------------------------------
_VALUE_METHODS = ("double", "float", "half", "bfloat16", "int", "long", "short", "char", "byte", "bool",
                  "cfloat", "cdouble", "cpu", "clone")


def _values_method(name):
    def h(self, *args, **kwargs):
        v = getattr(self._sp_values, name)(*args, **kwargs)
        return self if v is self._sp_values else SO.with_values(self, v)
    return h


for _n in _VALUE_METHODS:
    HANDLERS[_n] = _values_method(_n)


@_handles("to")
def _to(self, *args, **kwargs):
    args = tuple(a._dtype if _sp(a) else a for a in args)
    v = self._sp_values.to(*args, **kwargs)
    return self if v is self._sp_values else SO.with_values(self, v)


@_handles("type_as")
def _type_as(self, other):
    return _to(self, other._dtype)


@_handles("to_dense")
def _to_dense(self, dtype=None, *, masked_grad=None):
    return SO.to_dense(self, dtype)


@_handles("coalesce")
def _coalesce(self):
    return SO.coalesce(self)


@_handles("to_sparse")
def _to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    if layout is not None and layout is not L.sparse_coo:
        raise layout_error("to_sparse", layout)
    if sparse_dim is not None and sparse_dim != self.sparse_dim():
        raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument !="
                           "self.sparse_dim() is not supported")
    return self


@_handles("to_sparse_coo")
def _to_sparse_coo(self):
    return self


@_handles("sparse_mask")
def _sparse_mask(input, mask):
    if not _sp(input):
        return sparse_mask(input, mask)
    raise NotImplementedError("torchshim: sparse_mask of a sparse tensor is not supported")


@_handles("contiguous")
def _contiguous(self, memory_format=L.contiguous_format):
    raise RuntimeError("unsupported memory format option Contiguous")


@_handles("reshape", "flatten", "reshape_as", "view_as", "unflatten", "ravel")
def _reshape(*args, **kwargs):
    raise RuntimeError("reshape is not implemented for sparse tensors")


@_handles("expand", "expand_as", "broadcast_to")
def _expand(*args, **kwargs):
    raise RuntimeError("expand is unsupported for Sparse tensors")


@_handles("item", "__bool__", "__float__", "__int__", "__index__", "__complex__")
def _item(self, *args, **kwargs):
    raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


# ----- shape ---------------------------------------------------------------------------------------------
def _dim(d, n):
    if not -n <= d < n:
        lo, hi = (-n, n - 1) if n else (-1, 0)
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d % n if n else 0


@_handles("t")
def _t(self):
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but self is "
                           f"{self.sparse_dim()} sparse and {self.dense_dim()} dense")
    if self.dim() < 2:
        return SO.with_values(self, SO.alias("TBackward0", self._sp_values))
    return SO.transpose(self, 0, 1, "TBackward0")


@_handles("transpose", "swapaxes", "swapdims")
def _transpose(self, dim0, dim1):
    n = self.dim()
    return SO.transpose(self, _dim(dim0, n), _dim(dim1, n), "TransposeBackward0")


# ----- reductions -------------------------------------------------------------------------------------------
@_handles("sum")
def _sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    _no_out(out, "sum")
    if keepdim:
        raise NotImplementedError("torchshim: sum(keepdim=True) of a sparse tensor is not supported")
    if dim is None:
        return SO.sum_dims(input, tuple(range(input.dim())), "SumBackward0", dtype)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return SO.sum_dims(input, tuple(sorted({_dim(d, input.dim()) for d in dims})), "SumBackward1", dtype)


# ----- the dense Tensor's sparse methods (a sparse tensor reaches HANDLERS above first) ---------------------
def _strided_error(name, what="sparse coordinate tensor"):
    return RuntimeError(f"{name} expected {what} layout but got Strided")


def _cpu_backend_error(name):
    return NotImplementedError(f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. This "
                               "could be because the operator doesn't exist for this backend.")


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """`Tensor.to_sparse(sparseDims)` / `to_sparse(*, layout=None, blocksize=None, dense_dim=None)`: the COO
    tensor of the nonzero entries (reads the values on the host, as PyTorch's nonzero synchronises)."""
    if layout is not None and layout is not L.sparse_coo:
        raise layout_error("to_sparse", layout)
    if blocksize is not None:
        raise RuntimeError("dense_to_sparse: conversion from Strided to Sparse with blocksize argument given "
                           "is not supported")
    name = "ToSparseBackward0" if sparse_dim is not None else "ToSparseBackward1"
    if sparse_dim is None and dense_dim is not None:
        sparse_dim = self.dim() - dense_dim
    return SO.dense_to_sparse(self, sparse_dim, name)


def to_sparse_coo(self):
    """`Tensor.to_sparse_coo()`: `to_sparse()`."""
    return to_sparse(self)


def to_dense(self, dtype=None, *, masked_grad=None):
    """`Tensor.to_dense(dtype=None, *, masked_grad=None)`: a strided tensor is returned as it is (or cast)."""
    return self if dtype is None or dtype is self._dtype else self.to(dtype)


def is_coalesced(self):
    raise _strided_error("is_coalesced")


def coalesce(self):
    raise _strided_error("coalesce")


def indices(self):
    raise _strided_error("indices")


def values(self):
    raise _strided_error("values", "sparse tensor")


def sparse_dim(self):
    """`Tensor.sparse_dim()`: 0 for a strided tensor."""
    return 0


def dense_dim(self):
    """`Tensor.dense_dim()`: every dim of a strided tensor."""
    return self.dim()


def _indices(self):
    raise _cpu_backend_error("_indices")


def _values(self):
    raise _cpu_backend_error("_values")


def _nnz(self):
    raise _cpu_backend_error("_nnz")


def sparse_mask(self, mask):
    """`Tensor.sparse_mask(mask)`: the entries of this dense tensor at the indices of sparse `mask`, as a
    sparse tensor with mask's pattern (`SparseMaskBackward0`)."""
    if not _sp(mask):
        raise RuntimeError("sparse_mask expects mask to be sparse coordinate tensor layout but got Strided")
    if tuple(self._shape) != tuple(mask._shape):
        raise RuntimeError("sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(self._shape)} but mask has size {list(mask._shape)}.")
    vals = SO.run("SparseMaskBackward0", SO._gather, [self, mask._sp_indices], self._dtype, slots=[0])
    return SO.with_values(mask, vals)


for _f in (to_sparse, to_sparse_coo, to_dense, is_coalesced, coalesce, indices, values, sparse_dim, dense_dim,
           _indices, _values, _nnz, sparse_mask):
    add_tensor_method(_f.__name__, _f)


def _other_layout(name, layout, what):
    def f(self, *args, **kwargs):
        if _sp(self) or what is None:
            raise layout_error(f"Tensor.{name}()", layout)
        raise RuntimeError(f"{name} expected {what} layout but got {'Sparse' if _sp(self) else 'Strided'}")
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`Tensor.{name}()`: NotImplementedError ({layout} tensors are not supported)."
    return f


for _n, _lay in (("to_sparse_csr", L.sparse_csr), ("to_sparse_csc", L.sparse_csc),
                 ("to_sparse_bsr", L.sparse_bsr), ("to_sparse_bsc", L.sparse_bsc)):
    add_tensor_method(_n, _other_layout(_n, _lay, None))
    HANDLERS[_n] = _other_layout(_n, _lay, None)
for _n, _what in (("crow_indices", "sparse row compressed tensor"),
                  ("col_indices", "sparse row compressed tensor"),
                  ("ccol_indices", "sparse column compressed tensor"),
                  ("row_indices", "sparse column compressed tensor")):
    def _compressed(self, *args, _n=_n, _what=_what, **kwargs):
        raise RuntimeError(f"{_n} expected {_what} layout but got {'Sparse' if _sp(self) else 'Strided'}")
    _compressed.__name__ = _n
    add_tensor_method(_n, _compressed)
    HANDLERS[_n] = _compressed
add_tensor_method("is_sparse_csr", False)

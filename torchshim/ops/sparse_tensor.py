"""Sparse COO tensors: the `SparseTensor` class (a Tensor subclass holding `indices` and `values` Tensors).

Design (docs/differences.md, "Sparse tensors"): torchshim's Tensor is strided, so a `torch.sparse_coo`
tensor is an instance of `SparseTensor(Tensor)`: `_sp_indices` (int64, `(sparse_dim, nnz)`), `_sp_values`
(`(nnz, *dense_shape)`), `_sp_coalesced`, plus the Tensor fields that describe it (`_shape` = its size,
`_dtype` = the values' dtype, a storage that only carries the device: reading its array raises, so a dense
kernel can never silently read a sparse tensor). Every torch function and Tensor method reaches
`SparseTensor.__torch_function__` (ops/sparse_dispatch.py), which runs the sparse implementation or raises
PyTorch's "not supported for sparse" error; the class is activated in the protocol when the first sparse
tensor is made, so programs without sparse tensors keep the one-check fast path.

Autograd: the differentiable content of a sparse tensor is its values tensor. `requires_grad`, `grad_fn`,
`is_leaf` are the values'; a leaf sparse tensor's `.grad` is the sparse tensor of its values' gradient,
coalesced (PyTorch's masked gradient). Difference: PyTorch gives a sparse leaf a *dense* gradient through
`torch.mm`/`matmul`/`addmm` (the full dense product); here it is masked to the leaf's pattern, as
`torch.sparse.mm` gives it.
"""
import numpy as np

from .. import _layout as L
from .. import _tensor_str as TS
from .._storage import Storage
from .._tensor import Tensor
from . import _override as O

__all__ = ["SparseTensor", "make_sparse", "is_sparse_coo", "host_indices"]


class _DeviceOnlyStorage(Storage):
    """A sparse tensor's storage: only its device; there are no dense elements to read."""

    __slots__ = ()

    @property
    def array(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    @property
    def address(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


def _disabled(func):
    func._torchshim_disabled = True  # no activation when the class is created (see activate below)
    return func


@_disabled
def _torch_function(cls, func, types, args=(), kwargs=None):
    from .sparse_dispatch import torch_function
    return torch_function(func, args, kwargs or {})


class SparseTensor(Tensor):
    """A `torch.sparse_coo` tensor (see the module docstring). `type(t)` is this subclass, not `Tensor`
    itself (a difference from PyTorch); `isinstance(t, torch.Tensor)` holds."""

    __slots__ = ("_sp_indices", "_sp_values", "_sp_coalesced")
    __torch_function__ = classmethod(_torch_function)
    layout = L.sparse_coo
    is_sparse = True
    is_sparse_csr = False

    # ----- metadata -----------------------------------------------------------------------------------
    def sparse_dim(self):
        """`Tensor.sparse_dim()`: the number of sparse dimensions."""
        return self._sp_indices._shape[0]

    def dense_dim(self):
        """`Tensor.dense_dim()`: the number of dense dimensions (the values' dims after the first)."""
        return len(self._sp_values._shape) - 1

    def _nnz(self):
        return self._sp_values._shape[0]

    def is_coalesced(self):
        """`Tensor.is_coalesced()`: True when the indices are sorted and unique (as marked when built)."""
        return self._sp_coalesced

    def _indices(self):
        """`Tensor._indices()`: the indices as stored (uncoalesced too), without history."""
        return self._sp_indices.detach()

    def _values(self):
        """`Tensor._values()`: the values as stored, an alias without history (as PyTorch's)."""
        return self._sp_values.detach()

    def indices(self):
        """`Tensor.indices()`: the indices of a coalesced tensor (PyTorch's error otherwise)."""
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._sp_indices.detach()

    def values(self):
        """`Tensor.values()`: the values of a coalesced tensor, differentiable (`ValuesBackward0`)."""
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        from .sparse_ops import alias
        return alias("ValuesBackward0", self._sp_values)

    def stride(self, dim=None):
        """PyTorch reports zero strides for a sparse tensor."""
        return (0,) * len(self._shape) if dim is None else 0

    def is_contiguous(self, *args, **kwargs):
        return False

    def data_ptr(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def storage(self):
        raise NotImplementedError("Cannot access storage of SparseTensorImpl")

    untyped_storage = storage

    @property
    def nbytes(self):
        raise RuntimeError("nbytes is not defined for sparse tensors.  If you want the size of the "
                           "constituent tensors, add the nbytes of the indices and values.  If you want "
                           "the size of the  equivalent dense tensor, multiply numel() by element_size()")

    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def __reduce_ex__(self, proto):
        raise NotImplementedError("torchshim: pickling / torch.save of sparse tensors is not supported; save "
                                  "t._indices(), t._values() and t.shape instead")

    # ----- autograd: the values' state -------------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._sp_values._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._sp_values.requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        """`requires_grad_(requires_grad=True)`: on the values (a leaf sparse tensor's values are private)."""
        self._sp_values.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self._sp_values._grad_fn is None

    @property
    def grad_fn(self):
        return self._sp_values.grad_fn

    @property
    def grad(self):
        """A leaf's gradient: sparse, coalesced, on this tensor's pattern (see the module docstring)."""
        v = self._sp_values
        if v._grad_fn is not None:
            return Tensor.grad.fget(self)  # PyTorch's non-leaf warning; None
        if v._grad is None:
            return None
        from .sparse_ops import grad_of_leaf
        return grad_of_leaf(self, v._grad)

    @grad.setter
    def grad(self, g):
        if g is None:
            self._sp_values._grad = None
            return
        if not isinstance(g, SparseTensor) or g._shape != self._shape:
            raise NotImplementedError("torchshim: a sparse tensor's .grad can only be set to None or to a "
                                      "sparse tensor of the same size and pattern")
        from .sparse_ops import values_on_pattern
        self._sp_values._grad = values_on_pattern(self, g)

    def detach(self):
        """`detach()`: the same indices and values, without history."""
        return make_sparse(self._sp_indices, self._sp_values.detach(), self._shape, self._sp_coalesced)

    def backward(self, *args, **kwargs):
        raise NotImplementedError("torchshim: backward() from a sparse tensor is not supported; reduce it "
                                  "(torch.sparse.sum) or call .to_dense() first")

    # ----- printing -------------------------------------------------------------------------------------
    def __repr__(self, *, tensor_contents=None):
        return sparse_repr(self)

    __str__ = __repr__


def sparse_repr(t):
    """PyTorch's repr of a sparse COO tensor: `tensor(indices=tensor(...), values=tensor(...), size=(..),
    nnz=.., [dtype=..,] layout=torch.sparse_coo[, requires_grad=True | grad_fn=<..>])`."""
    from .. import _dtype as D
    indent = len("tensor(")
    default = D.get_default_dtype()
    default_complex = D.complex128 if default is D.float64 else D.complex64
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append("device='" + str(t.device) + "'")
    suffixes += ["size=" + str(tuple(t._shape)), "nnz=" + str(t._nnz())]
    if t._dtype not in (default, default_complex, D.int64, D.bool_):
        suffixes.append("dtype=" + str(t._dtype))
    suffixes.append("layout=torch.sparse_coo")
    parts = []
    for prefix, part in (("indices=tensor(", t._sp_indices), ("values=tensor(", t._sp_values)):
        s = TS._tensor_str(part.detach(), indent + len(prefix))
        if part.numel() == 0:
            s += ", size=" + str(tuple(part._shape))
        parts.append(prefix + s + ")")
    body = parts[0] + ",\n" + " " * indent + parts[1]
    grad_fn = t.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{TS._grad_fn_name(grad_fn)}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return TS._add_suffixes("tensor(" + body, suffixes, indent, force_newline=True)


def is_sparse_coo(x):
    return type(x) is SparseTensor


def make_sparse(indices, values, size, coalesced):
    """A SparseTensor over `indices` (int64 Tensor) and `values` (Tensor, its history kept) of `size`."""
    if SparseTensor not in O._TYPES:
        O.activate(SparseTensor)  # from now on torch functions look for sparse arguments
    t = SparseTensor._make(_DeviceOnlyStorage(None, values._storage.device), tuple(size), (0,) * len(size), 0,
                           values._dtype, lens=None, natural=False)
    t._sp_indices = indices
    t._sp_values = values
    t._sp_coalesced = bool(coalesced)
    return t


def host_indices(t, what="this operation"):
    """The indices of sparse tensor `t` as a numpy array: ops whose result's number of elements depends on
    the index values (coalesce, sum over a dim, ...) read them on the host, as PyTorch synchronises there."""
    import jax
    arr = t._sp_indices._value
    if isinstance(arr, jax.core.Tracer):
        raise RuntimeError(f"torchshim: {what} on a sparse tensor needs its indices on the host (its "
                           "result's "
                           "nnz depends on them), which is not possible while tracing (jax.jit / "
                           "torch.compile); coalesce the tensor outside the traced function")
    return np.asarray(arr)


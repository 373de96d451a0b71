"""`torch.sparse`: products, sums and softmax of sparse COO tensors (ops/sparse_*.py), the invariant-check
switch, and PyTorch's errors for the compressed layouts (CSR/CSC/BSR/BSC), which torchshim does not have."""
from .. import _api  # noqa: F401 (installs the op table)

from ..ops import sparse_ops as _SO

from ..ops.sparse_api import INVARIANTS as _INVARIANTS
from ..ops.sparse_dispatch import _dim, layout_error
from ..ops.sparse_tensor import SparseTensor as _Sparse

__all__ = ["addmm", "check_sparse_tensor_invariants", "mm", "sum", "softmax", "log_softmax", "sampled_addmm",
           "spsolve", "as_sparse_gradcheck"]



def mm(mat1, mat2, reduce=None):
    """`torch.sparse.mm(mat1, mat2, reduce=None)`: sparse @ dense (or dense @ sparse) -> dense, with gradients
    for the dense operand and the sparse operand's values (`SparseAddmmBackward0`; a sparse leaf's gradient is
    sparse on its pattern). Differences: sparse @ sparse and `reduce=` raise NotImplementedError."""
    if reduce is not None:
        raise NotImplementedError("torchshim: torch.sparse.mm(reduce=...) is not supported")
    if type(mat1) is _Sparse and type(mat2) is _Sparse:
        raise NotImplementedError("torchshim: torch.sparse.mm of two sparse tensors is not supported")
    if type(mat1) is _Sparse:
        return _SO.spmm(mat1, mat2, "SparseAddmmBackward0", sparse_addmm=True)
    if type(mat2) is _Sparse:
        return _SO.dense_spmm(mat1, mat2)
    return mat1.mm(mat2)



def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """`torch.sparse.addmm(mat, mat1, mat2, *, beta=1., alpha=1.)`: beta * mat + alpha * (mat1 @ mat2) for a
    sparse `mat1` and dense `mat`, `mat2`."""
    if type(mat1) is not _Sparse:
        return mat.addmm(mat1, mat2, beta=beta, alpha=alpha)
    return _SO.addmm(mat, mat1, mat2, beta, alpha, "SparseAddmmBackward0")



def sum(input, dim=None, dtype=None):  # noqa: A001 (PyTorch's name)
    """`torch.sparse.sum(input, dim=None, dtype=None)`: every dim -> a dense scalar (`SumBackward0`); some
    dims -> sparse (coalesced; reads the indices on the host) or dense when every sparse dim is summed
    (`SparseSumBackward0`)."""
    if type(input) is not _Sparse:
        return input.sum(dtype=dtype) if dim is None else input.sum(dim, dtype=dtype)
    if dim is None:
        return _SO.sum_dims(input, tuple(range(input.dim())), "SumBackward0", dtype)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(sorted({_dim(d, input.dim()) for d in dims}))
    name = "SumBackward0" if len(dims) == input.dim() else "SparseSumBackward0"
    return _SO.sum_dims(input, dims, name, dtype)


def _softmax(input, dim, dtype, log):
    if type(input) is not _Sparse:
        raise NotImplementedError("torchshim: torch.sparse.softmax of a strided tensor is not supported; use "
                                  "torch.softmax")
    return _SO.softmax(input, _dim(dim, input.dim()), log, dtype)



def softmax(input, dim, *, dtype=None):
    """`torch.sparse.softmax(input, dim, *, dtype=None)`: softmax over the specified entries along `dim`
    (unspecified ones count as -inf), a sparse result on the input's (coalesced) pattern."""
    return _softmax(input, dim, dtype, False)



def log_softmax(input, dim, *, dtype=None):
    """`torch.sparse.log_softmax(input, dim, *, dtype=None)`: see `softmax`."""
    return _softmax(input, dim, dtype, True)


def sampled_addmm(*args, **kwargs):
    """`torch.sparse.sampled_addmm`: NotImplementedError (it needs a CSR tensor)."""
    raise layout_error("torch.sparse.sampled_addmm", "torch.sparse_csr")


def spsolve(*args, **kwargs):
    """`torch.sparse.spsolve`: NotImplementedError (it needs a CSR tensor)."""
    raise layout_error("torch.sparse.spsolve", "torch.sparse_csr")


def as_sparse_gradcheck(gradcheck):
    """`torch.sparse.as_sparse_gradcheck(gradcheck)`: NotImplementedError (torchshim's gradcheck is dense)."""
    raise NotImplementedError("torchshim: torch.sparse.as_sparse_gradcheck is not supported")


class check_sparse_tensor_invariants:
    """`torch.sparse.check_sparse_tensor_invariants(enable=True)`: a context manager / decorator switching the
    default of `sparse_coo_tensor(check_invariants=)`; `enable()`, `disable()`, `is_enabled()`."""

    @staticmethod
    def is_enabled():
        return _INVARIANTS.enabled

    @staticmethod
    def enable():
        _INVARIANTS.enabled = True

    @staticmethod
    def disable():
        _INVARIANTS.enabled = False

    def __init__(self, enable=True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated. Use a different context "
                               "manager instance for context nesting.")
        self.saved_state = _INVARIANTS.enabled
        _INVARIANTS.enabled = self.state
        return self

    def __exit__(self, *exc):
        _INVARIANTS.enabled = self.saved_state
        self.saved_state = None

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with check_sparse_tensor_invariants(self.state):
                return func(*args, **kwargs)
        return wrapped




"""The top-level sparse constructors and products: `torch.sparse_coo_tensor`, `torch.spmm`, and the other
layouts' constructors (`torch.sparse_csr_tensor`, ...), which raise NotImplementedError naming the layout.
`torchshim.sparse` (the `torch.sparse` namespace) builds on these."""
import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from . import sparse_ops as SO
from ._override import overridable
from ._registry import installed
from .sparse_dispatch import _mm, layout_error
from .sparse_tensor import SparseTensor, make_sparse

__all__ = ["sparse_coo_tensor", "spmm", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
           "sparse_bsc_tensor", "sparse_compressed_tensor"]


class _Invariants:
    enabled = False  # torch.sparse.check_sparse_tensor_invariants


INVARIANTS = _Invariants()


def _as_tensor(x, dtype=None):
    if isinstance(x, Tensor):
        return x if dtype is None or x._dtype is dtype else x.to(dtype)
    return installed("tensor")(x, dtype=dtype)


def _check_invariants(idx, size, nnz):
    a = np.asarray(idx._value)
    for d in range(a.shape[0]):
        if nnz and a[d].min() < 0:
            raise RuntimeError(f"found negative index {int(a[d].min())} for dim {d}")
        if nnz and a[d].max() >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                               f"index {int(a[d].max())}")


@overridable
def sparse_coo_tensor(indices=None, values=None, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """`torch.sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
    requires_grad=False, check_invariants=None, is_coalesced=None)` (also `sparse_coo_tensor(size, ...)`:
    an empty one). The values are aliased, not copied (as in PyTorch); values that require grad give a
    non-leaf tensor (`SparseCooTensorWithDimsAndTensorsBackward0`).

    Synchronises (reads the indices on the host) only where PyTorch does: `check_invariants=True` and a
    size inferred from the indices. Differences: only the CPU device; `pin_memory` must be False;
    `is_coalesced=True` is trusted without the check PyTorch makes under `check_invariants`."""
    if pin_memory:
        raise RuntimeError("torchshim: pin_memory=True needs an accelerator; this build has none")
    if values is None and indices is not None and not isinstance(indices, Tensor) and size is None:
        indices, size = None, indices  # sparse_coo_tensor(size)
    if indices is None:
        if size is None:
            raise TypeError("sparse_coo_tensor() missing required argument 'size'")
        dt = dtype or D.get_default_dtype()
        idx = installed("zeros")((len(size), 0), dtype=D.int64)
        vals = installed("zeros")((0,), dtype=dt)
        s = make_sparse(idx, vals, tuple(int(n) for n in size), True)
        return s.requires_grad_() if requires_grad else s
    idx = _as_tensor(indices)
    idx = idx if idx._dtype is D.int64 else idx.detach().to(D.int64)
    vals = _as_tensor(values, dtype)
    if device is not None:
        vals = vals.to(device)
    if idx.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx._shape)}")
    sd, nnz = idx._shape
    v_nnz = vals._shape[0] if vals.dim() else 1
    if v_nnz != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz "
                           "from "
                           f"values: {v_nnz}")
    dense_shape = tuple(vals._shape[1:])
    if size is None:
        a = np.asarray(idx._value)
        if nnz and a.min() < 0:
            d = int(np.argmax((a < 0).any(axis=1)))
            raise RuntimeError(f"found negative index {int(a[d].min())} for dim {d}")
        size = tuple(int(a[d].max()) + 1 if nnz else 0 for d in range(sd)) + dense_shape
    size = tuple(int(n) for n in size)
    if len(size) != sd + len(dense_shape):
        raise RuntimeError("'len(size) == sparse_dim + dense_dim' is not satisfied: "
                           f"len(size) = {len(size)}, "
                           f"sparse_dim = {sd}, dense_dim = {len(dense_shape)}")
    if tuple(size[sd:]) != dense_shape:
        raise RuntimeError(f"values has incorrect size, expected {list((nnz,) + tuple(size[sd:]))}, got "
                           f"{list(vals._shape)}")
    if check_invariants or (check_invariants is None and INVARIANTS.enabled):
        _check_invariants(idx, size, nnz)
    if vals._requires_grad and is_grad_enabled():
        if requires_grad:
            raise RuntimeError("torchshim: sparse_coo_tensor(requires_grad=True) of values that already "
                               "require grad")
        vals = SO.alias("SparseCooTensorWithDimsAndTensorsBackward0", vals)
    else:
        vals = vals.detach()
        if requires_grad:
            vals.requires_grad_()
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    return make_sparse(idx.detach(), vals, size, coalesced)


@overridable
def spmm(input, mat2):
    """`torch.spmm(input, mat2)`: `torch.mm` (a sparse first operand gives a dense product)."""
    if type(input) is SparseTensor or type(mat2) is SparseTensor:
        return _mm(input, mat2)
    return installed("mm")(input, mat2)


def _constructor(name, layout):
    def f(*args, **kwargs):
        raise layout_error(f"torch.{name}", layout)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`torch.{name}(...)`: NotImplementedError ({layout} tensors are not supported)."
    return f


sparse_csr_tensor = _constructor("sparse_csr_tensor", L.sparse_csr)
sparse_csc_tensor = _constructor("sparse_csc_tensor", L.sparse_csc)
sparse_bsr_tensor = _constructor("sparse_bsr_tensor", L.sparse_bsr)
sparse_bsc_tensor = _constructor("sparse_bsc_tensor", L.sparse_bsc)
sparse_compressed_tensor = _constructor("sparse_compressed_tensor", "compressed sparse (CSR/CSC/BSR/BSC)")

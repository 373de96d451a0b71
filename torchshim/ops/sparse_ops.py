"""The computations on sparse COO tensors (ops/sparse_tensor.py): products, conversions, coalescing, sums,
softmax, sums of sparse tensors.

Each differentiable step is one jitted kernel of the values (and dense operands), recorded on the tape
under PyTorch's node name with PyTorch's `next_functions` layout (`record(..., slots=)`): gradients flow to
the values (so to whatever the values were computed from) and to dense operands. The index arithmetic is
traceable (segment sums, gathers, scatters) except where the result's nnz depends on the index values
(coalesce, `to_sparse` of a dense tensor, a sum over some of the sparse dims, the merge of two coalesced
tensors): those read the indices on the host, where PyTorch synchronises too.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._promotion import promote_types
from .._tensor import fresh
from ..autograd._node import record
from ..autograd.grad_mode import is_grad_enabled
from .sparse_tensor import host_indices, make_sparse
from .._fused import jit as _fjit

__all__ = ["run", "alias", "to_dense", "coalesce", "grad_of_leaf", "values_on_pattern", "spmm", "dense_spmm",
           "addmm", "add", "mask_mul", "transpose", "sum_dims", "softmax", "dense_to_sparse", "with_values"]

_KERNELS = {}


def _kernel(fn, static):
    k = (fn, static)
    j = _KERNELS.get(k)
    if j is None:
        jitted = _fjit(functools.partial(fn, **dict(static)))

        def forward(arrays):
            return (jitted(*arrays),)
        j = _KERNELS[k] = (jitted, forward)
    return j


def run(name, fn, inputs, dtype, static=(), slots=None, saves="none"):
    """`fn(*arrays of inputs, **static)` jitted, as a fresh Tensor of `dtype`, recorded as node `name`."""
    jitted, forward = _kernel(fn, tuple(static))
    out = fresh(jitted(*[t._value for t in inputs]), dtype, inputs[0]._storage.device)
    if is_grad_enabled():
        record(name, inputs, [out], forward, ("sparse", fn, tuple(static)), saves=saves, slots=slots)
    return out


def _index_tensor(arr, device):
    return fresh(jnp.asarray(arr, jnp.int64), D.int64, device)


def with_values(s, values, coalesced=None):
    """The sparse tensor with `s`'s indices and size and new `values`."""
    return make_sparse(s._sp_indices, values, s._shape, s._sp_coalesced if coalesced is None else coalesced)


# ----- kernels ----------------------------------------------------------------------------------------------
def _identity(v):
    return v + jnp.zeros((), v.dtype) if v.dtype != jnp.bool_ else v


def _scatter(idx, vals, *, shape):
    z = jnp.zeros(shape, vals.dtype)
    at = z.at[tuple(idx)]
    return at.max(vals) if vals.dtype == jnp.bool_ else at.add(vals)


def _gather(x, idx):
    return x[tuple(idx)]


def _seg_sum(vals, seg, *, n):
    return jax.ops.segment_sum(vals, seg, num_segments=n)


def _spmm(idx, vals, dense, *, rows):
    v = vals.reshape(vals.shape + (1,) * (dense.ndim - 1))
    return jax.ops.segment_sum(v * dense[idx[1]], idx[0], num_segments=rows)


def _dense_spmm(dense, idx, vals, *, cols):
    contrib = dense[:, idx[0]] * vals  # (m, nnz)
    return jax.ops.segment_sum(contrib.T, idx[1], num_segments=cols).T


def _addmm(m, idx, vals, dense, *, rows, beta, alpha):
    prod = _spmm(idx, vals, dense, rows=rows)
    prod = prod if alpha == 1 else alpha * prod
    return prod if beta == 0 else (m if beta == 1 else beta * m) + prod


def _merge(v1, v2, p1, p2, *, n, alpha):
    out = jnp.zeros((n,) + v1.shape[1:], v1.dtype).at[p1].add(v1)
    return out.at[p2].add(v2 if alpha == 1 else alpha * v2)


def _cat(v1, v2, *, alpha):
    return jnp.concatenate([v1, v2 if alpha == 1 else alpha * v2])


def _mask_mul(idx, vals, dense):
    return vals * dense[tuple(idx)]


def _sum_values(vals, *, axes):
    return jnp.sum(vals, axis=axes)


def _seg_sum_axes(vals, seg, *, n, axes):
    return jax.ops.segment_sum(jnp.sum(vals, axis=axes) if axes else vals, seg, num_segments=n)


def _seg_softmax(vals, seg, *, n, log):
    m = jax.lax.stop_gradient(jax.ops.segment_max(vals, seg, num_segments=n))[seg]
    e = jnp.exp(vals - m)
    s = jax.ops.segment_sum(e, seg, num_segments=n)[seg]
    return vals - m - jnp.log(s) if log else e / s


def _mean_dups(g, inv, count, *, n):
    return jax.ops.segment_sum(g, inv, num_segments=n) / count.reshape((-1,) + (1,) * (g.ndim - 1))


def _take_rows(idx, rows):
    return idx[jnp.asarray(rows)]


# ----- host index arithmetic --------------------------------------------------------------------------------
def _keys(idx, sizes):
    """Row-major linear keys of index columns (numpy int64)."""
    keys = np.zeros(idx.shape[1], np.int64)
    for d, n in enumerate(sizes):
        keys = keys * max(int(n), 1) + idx[d]
    return keys


def _unkeys(keys, sizes):
    out = np.zeros((len(sizes), keys.shape[0]), np.int64)
    for d in range(len(sizes) - 1, -1, -1):
        n = max(int(sizes[d]), 1)
        out[d] = keys % n
        keys = keys // n
    return out


def _unique(s, dims, what):
    """(new index array over `dims`, inverse, count) of the distinct index columns of `s` over `dims`."""
    idx = host_indices(s, what)[list(dims)]
    sizes = [s._shape[d] for d in dims]
    uniq, inv, count = np.unique(_keys(idx, sizes), return_inverse=True, return_counts=True)
    return _unkeys(uniq, sizes), inv.reshape(-1), count


# ----- operations ------------------------------------------------------------------------------------------
def alias(name, t):
    """A copy of `t` recorded as node `name` (the identity: `ValuesBackward0`, `TBackward0`, ...)."""
    return run(name, _identity, [t], t._dtype)


def to_dense(s, dtype=None):
    """`Tensor.to_dense(dtype=None)`: the dense tensor (duplicates summed), `ToDenseBackward0`."""
    vals = s._sp_values if dtype is None or dtype is s._dtype else s._sp_values.to(dtype)
    return run("ToDenseBackward0", _scatter, [s._sp_indices, vals], vals._dtype,
               (("shape", tuple(s._shape)),), slots=[1])


def coalesce(s):
    """`Tensor.coalesce()`: sorted unique indices, duplicates summed (`CoalesceBackward0`); syncs."""
    if s._sp_coalesced:
        return s
    dev = s._storage.device
    new_idx, inv, _ = _unique(s, range(s.sparse_dim()), "coalesce()")
    vals = run("CoalesceBackward0", _seg_sum, [s._sp_values, _index_tensor(inv, dev)], s._dtype,
               (("n", new_idx.shape[1]),))
    return make_sparse(_index_tensor(new_idx, dev), vals, s._shape, True)


def grad_of_leaf(s, g):
    """The sparse gradient of leaf `s` from its values' gradient `g`: on s's coalesced pattern (every
    duplicate of an index carries the same gradient, the gradient at that position)."""
    if s._sp_coalesced:
        return make_sparse(s._sp_indices, g, s._shape, True)
    dev = s._storage.device
    new_idx, inv, count = _unique(s, range(s.sparse_dim()), ".grad")
    jitted, _ = _kernel(_mean_dups, (("n", new_idx.shape[1]),))
    vals = jitted(g._value, jnp.asarray(inv), jnp.asarray(count, g._value.dtype))
    return make_sparse(_index_tensor(new_idx, dev), fresh(vals, g._dtype, dev), s._shape, True)


def values_on_pattern(s, g):
    """The values of sparse `g` read at the positions of `s`'s indices (for `s.grad = g`)."""
    dense = to_dense(g.detach())
    jitted, _ = _kernel(_gather, ())
    return fresh(jitted(dense._value, s._sp_indices._value), g._dtype, s._storage.device)


def _check_mm(s, dense, op="addmm"):
    from .._promotion import short_name
    if s.sparse_dim() != 2 or s.dense_dim() != 0:
        raise NotImplementedError(f"torchshim: {op} of a sparse tensor needs 2 sparse and 0 dense dims, got "
                                  f"sparse_dim={s.sparse_dim()}, dense_dim={s.dense_dim()}")
    if type(dense) is not type(s) and dense._dtype is not s._dtype:
        raise RuntimeError(f"expected scalar type {short_name(s._dtype)} but found "
                           f"{short_name(dense._dtype)}")


def spmm(s, dense, name="MmBackward0", sparse_addmm=False):
    """sparse (2-D COO) @ dense (2-D, or 1-D for mv): one segment-sum kernel."""
    _check_mm(s, dense)
    if dense.dim() not in (1, 2) or dense._shape[0] != s._shape[1]:
        got = dense._shape[0] if dense.dim() else 0
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s._shape[1]}, got {got}")
    slots = [None, 1, 2] if sparse_addmm else [1, 2]
    return run(name, _spmm, [s._sp_indices, s._sp_values, dense], s._dtype, (("rows", s._shape[0]),),
               slots=slots, saves="inputs")


def dense_spmm(dense, s, name="MmBackward0"):
    """dense (2-D) @ sparse (2-D COO)."""
    _check_mm(s, dense)
    if dense.dim() != 2 or dense._shape[1] != s._shape[0]:
        got = dense._shape[1] if dense.dim() == 2 else 0
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s._shape[0]}, got {got}")
    return run(name, _dense_spmm, [dense, s._sp_indices, s._sp_values], s._dtype, (("cols", s._shape[1]),),
               slots=[0, 2], saves="inputs")


def addmm(m, s, dense, beta=1, alpha=1, name="AddmmBackward0"):
    """beta * m + alpha * (s @ dense), `m` dense (broadcast to the result's shape)."""
    _check_mm(s, dense)
    if dense.dim() != 2 or dense._shape[0] != s._shape[1]:
        got = dense._shape[0] if dense.dim() else 0
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s._shape[1]}, got {got}")
    out_shape = (s._shape[0], dense._shape[1])
    if m._shape != out_shape:
        m = m.expand(*out_shape)
    return run(name, _addmm, [m, s._sp_indices, s._sp_values, dense], s._dtype,
               (("rows", s._shape[0]), ("beta", beta), ("alpha", alpha)), slots=[0, 2, 3], saves="inputs")


def add(s, t, alpha=1, name="AddBackward0"):
    """sparse + alpha * sparse (same size): coalesced inputs merge into a coalesced result (syncs);
    otherwise the entries are concatenated (uncoalesced)."""
    if s._shape != t._shape:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(s._shape)} while other has size {list(t._shape)} (FYI: dense-sparse "
                           "addition "
                           "does not currently support broadcasting)")
    if s.sparse_dim() != t.sparse_dim():
        raise NotImplementedError("torchshim: adding sparse tensors with different sparse_dim is not "
                                  "supported")
    dtype = promote_types(s._dtype, t._dtype)
    v1 = s._sp_values if s._dtype is dtype else s._sp_values.to(dtype)
    v2 = t._sp_values if t._dtype is dtype else t._sp_values.to(dtype)
    dev = s._storage.device
    if s._sp_coalesced and t._sp_coalesced and not _traced(s, t):
        sd = s.sparse_dim()
        sizes = s._shape[:sd]
        k1 = _keys(host_indices(s), sizes)
        k2 = _keys(host_indices(t), sizes)
        uniq, inv = np.unique(np.concatenate([k1, k2]), return_inverse=True)
        p1, p2 = _index_tensor(inv[:len(k1)], dev), _index_tensor(inv[len(k1):], dev)
        vals = run(name, _merge, [v1, v2, p1, p2], dtype, (("n", len(uniq)), ("alpha", alpha)), slots=[0, 1])
        return make_sparse(_index_tensor(_unkeys(uniq, sizes), dev), vals, s._shape, True)
    idx = fresh(jnp.concatenate([s._sp_indices._value, t._sp_indices._value], axis=1), D.int64, dev)
    vals = run(name, _cat, [v1, v2], dtype, (("alpha", alpha),))
    return make_sparse(idx, vals, s._shape, s._nnz() + t._nnz() == 0)


def _traced(*ts):
    return any(isinstance(t._sp_indices._value, jax.core.Tracer) for t in ts)


def mask_mul(s, dense):
    """sparse * dense of the same size: a sparse result on s's pattern (`MulBackward0`)."""
    if tuple(dense._shape) != tuple(s._shape):
        raise NotImplementedError(f"torchshim: sparse * dense needs equal sizes, got {list(s._shape)} and "
                                  f"{list(dense._shape)}")
    dtype = promote_types(s._dtype, dense._dtype)
    v = s._sp_values if s._dtype is dtype else s._sp_values.to(dtype)
    d = dense if dense._dtype is dtype else dense.to(dtype)
    vals = run("MulBackward0", _mask_mul, [s._sp_indices, v, d], dtype, slots=[1, 2], saves="inputs")
    return with_values(s, vals)


def transpose(s, d0, d1, name):
    """Swap two sparse dims (the indices' rows); the values are an alias recorded as `name`."""
    sd = s.sparse_dim()
    if d0 >= sd or d1 >= sd:
        raise NotImplementedError("torchshim: transposing a dense dim of a hybrid sparse tensor is not "
                                  "supported")
    rows = list(range(sd))
    rows[d0], rows[d1] = rows[d1], rows[d0]
    jitted, _ = _kernel(_take_rows, (("rows", tuple(rows)),))
    idx = fresh(jitted(s._sp_indices._value), D.int64, s._storage.device)
    size = list(s._shape)
    size[d0], size[d1] = size[d1], size[d0]
    coalesced = s._sp_coalesced and d0 == d1
    return make_sparse(idx, alias(name, s._sp_values), size, coalesced)


def sum_dims(s, dims, name, dtype=None):
    """Sum over `dims` (normalized): dense when every sparse dim is summed, else sparse and coalesced."""
    vals = s._sp_values if dtype is None else s._sp_values.to(dtype)
    sd = s.sparse_dim()
    dense_axes = tuple(sorted(d - sd + 1 for d in dims if d >= sd))
    kept = [d for d in range(sd) if d not in dims]
    if not kept:
        return run(name, _sum_values, [vals], vals._dtype, (("axes", (0,) + dense_axes),))
    dev = s._storage.device
    new_idx, inv, _ = _unique(s, kept, "sum(dim)")
    out = run(name, _seg_sum_axes, [vals, _index_tensor(inv, dev)], vals._dtype,
              (("n", new_idx.shape[1]), ("axes", dense_axes)))
    size = [s._shape[d] for d in kept] + [n for d, n in enumerate(s._shape) if d >= sd and d not in dims]
    return make_sparse(_index_tensor(new_idx, dev), out, size, True)


def softmax(s, dim, log, dtype=None):
    """`torch.sparse.softmax / log_softmax(input, dim, dtype=None)`: over the specified entries along `dim`
    (unspecified ones count as -inf); an uncoalesced input is coalesced first (syncs)."""
    if s.dense_dim() != 0:
        raise NotImplementedError("torchshim: torch.sparse.softmax of a hybrid sparse tensor is not "
                                  "supported")
    if not s._sp_coalesced:
        s = coalesce(s)
    vals = s._sp_values if dtype is None else s._sp_values.to(dtype)
    other = [d for d in range(s.sparse_dim()) if d != dim]
    sizes = tuple(s._shape[d] for d in other)
    n = int(np.prod(sizes)) if sizes else 1
    jitted, _ = _kernel(_seg_keys, (("rows", tuple(other)), ("sizes", sizes)))
    seg = fresh(jitted(s._sp_indices._value), D.int64, s._storage.device)
    name = "SparseLogSoftmaxBackward0" if log else "SparseSoftmaxBackward0"
    out = run(name, _seg_softmax, [vals, seg], vals._dtype, (("n", n), ("log", log)), saves="inputs")
    return make_sparse(s._sp_indices, out, s._shape, True)


def _seg_keys(idx, *, rows, sizes):
    keys = jnp.zeros(idx.shape[1], idx.dtype)
    for r, n in zip(rows, sizes):
        keys = keys * max(n, 1) + idx[r]
    return keys


def dense_to_sparse(x, sparse_dim=None, name="ToSparseBackward1"):
    """A dense tensor's COO form: the nonzero entries (rows of the last dense dims with any nonzero) in
    row-major order, coalesced. Reads the values on the host (PyTorch's nonzero synchronises too)."""
    nd = x.dim()
    sd = nd if sparse_dim is None else sparse_dim
    if not 0 <= sd <= nd:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{nd}] range, but {sd} is "
                           "given")
    dev = x._storage.device
    arr = x._value
    if isinstance(arr, jax.core.Tracer):
        raise RuntimeError("torchshim: to_sparse() reads the tensor's nonzero pattern on the host, which is "
                           "not possible while tracing (jax.jit / torch.compile)")
    a = np.asarray(arr)
    if sd == 0:
        idx = np.zeros((0, 1), np.int64)
    else:
        nz = a != 0
        mask = nz.any(axis=tuple(range(sd, nd))) if sd < nd else nz
        idx = np.stack(np.nonzero(mask)).astype(np.int64).reshape(sd, -1)
    idx_t = _index_tensor(idx, dev)
    if sd == 0:
        vals = run(name, _unsqueeze0, [x], x._dtype)
    else:
        vals = run(name, _gather, [x, idx_t], x._dtype, slots=[0])
    return make_sparse(idx_t, vals, x._shape, True)


def _unsqueeze0(x):
    return x[None]

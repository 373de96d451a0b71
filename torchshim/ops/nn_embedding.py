"""Embeddings: torch.embedding, torch.embedding_renorm_, F.embedding_bag and F.one_hot (F.embedding's Python
signature, with max_norm, is in nn/functional/sparse.py).

Lookups are one jitted gather; indices are checked on the host for PyTorch's errors (IndexError "index out of
range in self" instead of jax's silent clamping), except under jax tracing where values can't be read. The
weight gradient is jax's scatter-add of the gathered rows' cotangents: padding_idx's row gets none (the row is
read through stop_gradient) and scale_grad_by_freq divides each occurrence's contribution by its index's count
in the batch, as PyTorch's embedding_dense_backward. Only dense gradients exist (sparse=True raises).

embedding_bag reduces bags of rows (given by offsets into a 1-d input, or the rows of a 2-d input) with sum
(optionally weighted by per_sample_weights), mean or max; padding_idx entries are left out (and not counted);
empty bags give zeros; max's gradient goes to the first maximal entry of each bag, as PyTorch's CPU kernel.
Only the output is returned (torch.embedding_bag's offset2bag/bag_size/max_indices are not provided).
"""
import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._dtype import legacy_type_name
from ..autograd._ops import differentiable
from . import _dispatch as P
from ._registry import register
from .indexing import _host
from .nn_activation import no_derivative

_INDEX_DTYPES = (D.int64, D.int32)


def _check_indices(name, indices, arg="indices", pos=1):
    if indices._dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"Expected tensor for argument #{pos} '{arg}' to have one of the following scalar "
                           "types: Long, Int; but got "
                           f"{legacy_type_name(indices._dtype, indices._storage.device)} "
                           f"instead (while checking arguments for {name})")


def _traced(t):
    return isinstance(t._value, jax.core.Tracer)


# ---- embedding ---------------------------------------------------------------------------------------------
@P.kernel(static=("padding_idx", "scale_grad_by_freq"))
def _embedding_k(w, idx, *, padding_idx, scale_grad_by_freq):
    if padding_idx is not None:
        row = jnp.arange(w.shape[0]).reshape((-1,) + (1,) * (w.ndim - 1))
        w = jnp.where(row == padding_idx, jax.lax.stop_gradient(w), w)
    out = jnp.take(w, idx, axis=0, mode="clip")
    if not scale_grad_by_freq:
        return out
    counts = jnp.zeros(w.shape[0], w.dtype).at[idx.reshape(-1)].add(1)
    scale = (1 / jnp.take(counts, idx, mode="clip")).reshape(idx.shape + (1,))
    fixed = jax.lax.stop_gradient(out)
    return fixed + (out - fixed) * scale.astype(out.dtype)


@register("embedding", method=False, kind="indexing")
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """`torch.embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False)`: the rows
    `weight[indices]`, shape indices.shape + (embedding_dim,). padding_idx >= 0 gets no gradient.

    Difference: sparse=True raises (torchshim's gradients are dense)."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices("embedding", indices)
    if sparse:
        raise NotImplementedError("torchshim: embedding(sparse=True) is not supported (gradients are dense); "
                                  "use sparse=False")
    a = _host(indices._value)
    if a is not None and a.size and (a.min() < 0 or a.max() >= weight._shape[0]):
        raise IndexError("index out of range in self")
    pad = int(padding_idx) if padding_idx is not None and 0 <= padding_idx < weight._shape[0] else None
    out = _embedding_k(weight._value, indices._value, padding_idx=pad,
                       scale_grad_by_freq=bool(scale_grad_by_freq))
    return P.fresh(out, weight._dtype, weight._storage.device)


@P.kernel(static=("max_norm", "norm_type"))
def _renorm_k(w, idx, *, max_norm, norm_type):
    used = jnp.zeros(w.shape[0], bool).at[idx.reshape(-1)].set(True, mode="drop")
    wc = w.astype(jnp.float32) if w.dtype in (jnp.float16, jnp.bfloat16) else w
    norm = jnp.linalg.vector_norm(wc, ord=norm_type, axis=1).astype(w.dtype).astype(jnp.float64)
    scale = (max_norm / (norm + 1e-7)).astype(wc.dtype)
    return jnp.where((used & (norm > max_norm))[:, None], (wc * scale[:, None]).astype(w.dtype), w)


@register("embedding_renorm_", method=False, kind="indexing")
def embedding_renorm_(input, indices, max_norm, norm_type):
    """`torch.embedding_renorm_(input, indices, max_norm, norm_type)`: in place, each row of `input` named in
    `indices` whose norm_type-norm exceeds max_norm is scaled to norm max_norm (by
    max_norm / (norm + 1e-7))."""
    if input.ndim != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {input.ndim}-dimensional tensor for "
                           "argument #1 'self' (while checking arguments for embedding_renorm_)")
    _check_indices("embedding_renorm_", indices, pos=2)
    v = input._shape[0]
    a = _host(indices._value)
    if a is not None and a.size:
        bad = [i for i in np.unique(a) if not -v <= i < v]
        if bad:
            raise IndexError(f"select(): index {int(bad[0])} out of range for tensor of size "
                             f"[{v}, {input._shape[1]}] at dimension 0")
    idx = jnp.where(indices._value < 0, indices._value + v, indices._value)
    new = _renorm_k(input._value, idx, max_norm=float(max_norm), norm_type=float(norm_type))
    return input._assign_from(new, "embedding_renorm_")


# ---- embedding_bag -----------------------------------------------------------------------------------------
# PyTorch has no double backward for embedding_bag's backward (raised when a gradient flows back into it).
_NO_BAG_DD = "the derivative for '_embedding_bag_backward' is not implemented."
_NO_PSW_DD = "derivative for aten::_embedding_bag_per_sample_weights_backward is not implemented"
_no_psw_dd = no_derivative("_embedding_bag_per_sample_weights_backward")


def _raiser(error):
    """The identity, whose derivative raises `error`."""
    @jax.custom_jvp
    def f(x):
        return x

    def jvp(primals, tangents):
        raise type(error)(*error.args)
    f.defjvp(jvp)
    return f


def _guard(error):
    """The identity whose pullback can't be differentiated (`error` when it is)."""
    raiser = _raiser(error)

    @jax.custom_vjp
    def f(x):
        return x
    f.defvjp(lambda x: (x, None), lambda _, g: (raiser(g),))
    return f


_guard_bag, _guard_psw = _guard(NotImplementedError(_NO_BAG_DD)), _guard(RuntimeError(_NO_PSW_DD))


@jax.custom_jvp
def _first_order_only(x):
    """x with a zero first derivative whose own derivative raises (PyTorch's per_sample_weights error)."""
    return x


def _first_order_only_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return x, t * _no_psw_dd(jnp.zeros((), x.dtype), x)


_first_order_only.defjvp(_first_order_only_jvp)


def _weighted(rows, psw):
    """rows * psw[:, None]: both first derivatives, and a second derivative that raises like PyTorch's."""
    r, p = _first_order_only(rows), _first_order_only(psw)[:, None]
    psw = psw[:, None]
    return rows * p + r * psw - r * p


@P.kernel(static=("mode", "num_bags", "padding_idx"))
def _bag_k(w, idx, offsets, psw, *, mode, num_bags, padding_idx):
    n = idx.shape[0]
    pos = jnp.arange(n)
    bag = jnp.searchsorted(offsets, pos, side="right") - 1
    valid = (bag >= 0) & (bag < num_bags)
    if padding_idx is not None:
        valid = valid & (idx != padding_idx)
    seg = jnp.where(valid, bag, num_bags)  # one extra segment collects what no bag takes
    rows = jnp.take(w, idx, axis=0, mode="clip")
    if mode == "max":
        lowest = jnp.asarray(-jnp.inf, w.dtype)
        vals = jnp.where(valid[:, None], rows, lowest)
        m = jax.ops.segment_max(jax.lax.stop_gradient(vals), seg, num_segments=num_bags + 1)
        hit = valid[:, None] & (jax.lax.stop_gradient(rows) == m[seg])
        first = jax.ops.segment_min(jnp.where(hit, pos[:, None], n), seg, num_segments=num_bags + 1)
        first = first[:num_bags]
        padded = jnp.concatenate([rows, jnp.zeros((1, w.shape[1]), w.dtype)])
        return _guard_bag(jnp.take_along_axis(padded, first, axis=0))
    contrib = rows if psw is None else _weighted(rows, psw.astype(w.dtype))
    contrib = jnp.where(valid[:, None], contrib, jnp.zeros((), w.dtype))
    total = jax.ops.segment_sum(contrib, seg, num_segments=num_bags + 1)[:num_bags]
    guard = _guard_bag if psw is None else _guard_psw
    if mode == "sum":
        return guard(total)
    count = jax.ops.segment_sum(valid.astype(w.dtype), seg, num_segments=num_bags + 1)[:num_bags, None]
    return guard(jnp.where(count > 0, total / jnp.where(count > 0, count, 1), jnp.zeros((), w.dtype)))


def _embedding_bag_core(weight, input, offsets, per_sample_weights, mode, num_bags, padding_idx):
    out = _bag_k(weight._value, input._value, offsets._value,
                 None if per_sample_weights is None else per_sample_weights._value, mode=mode,
                 num_bags=num_bags, padding_idx=padding_idx)
    return P.fresh(out, weight._dtype, weight._storage.device)


_bag_core = differentiable("embedding_bag", _embedding_bag_core)


_WEIRD = ("Expected i < index_size to be true, but got false.  (Could this error message be improved?  If "
          "so, please report an enhancement request to PyTorch.)")


def _bag_value_checks(input, offsets, num_weights, mode, dtype):
    """PyTorch's value errors (host-side; skipped under jax tracing). Its CPU kernels differ: float32 and
    16-bit sum and mean (fbgemm) reject decreasing offsets and report a bad index by position only in the
    first bag."""
    a, o = _host(input._value), _host(offsets._value)
    if a is None or o is None:
        return
    if o.size and o[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                           f"from position 0. However, got {int(o[0])}")
    if o.size and o[-1] > a.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {a.size} but got offsets[-1] "
                           f"of {int(o[-1])}")
    bad = (a < 0) | (a >= num_weights)
    fbgemm = mode != "max" and dtype in (D.float32, D.float16, D.bfloat16)
    if fbgemm and (np.diff(o) < 0).any():
        raise RuntimeError(_WEIRD)
    if not bad.any():
        return
    first = int(np.argmax(bad))
    if not fbgemm:
        raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                           f"{int(a[first])}")
    if int(np.searchsorted(o, first, side="right")) - 1 > 0:
        raise RuntimeError(_WEIRD)
    raise RuntimeError(f"Index {first} of input takes value {int(a[first])} which is not in the valid range "
                       f"[0, {num_weights})")


@register("embedding_bag", method=False, function=False, functional=True, kind="composite")
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """`F.embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
    mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None)`: sums,
    means or maxes of bags of embeddings; max_norm renormalizes the used rows of weight in place first.

    Differences: sparse=True and scale_grad_by_freq=True raise (dense gradients only); torch.embedding_bag
    (the aten form with four outputs) is not provided."""
    import warnings

    from ..autograd.grad_mode import no_grad
    if weight._dtype is D.int64 and input._dtype.is_floating_point:
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input._shape != per_sample_weights._shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
                         f"then it must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a "
                             "mini-batch of fixed length sequences. However, found offsets of type "
                             f"{_type_str(offsets)}")
        if input._shape[1] == 0:
            raise RuntimeError("step must be nonzero")
        offsets = P.fresh(jnp.arange(0, input.numel(), input._shape[1], dtype=input._dtype.np), input._dtype,
                          input._storage.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight.detach(), input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is "
                                  f"only supported for mode='sum' (got mode='{mode}'). Please open a feature "
                                  "request on GitHub.")
    _check_indices("embedding_bag", input)
    _check_indices("embedding_bag", offsets)
    if not weight._dtype.is_floating_point:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar "
                           "types: Half, BFloat16, Float, Double; but got "
                           f"{legacy_type_name(weight._dtype, weight._storage.device)} instead (while "
                           "checking arguments for embedding_bag)")
    if per_sample_weights is not None and per_sample_weights._dtype is not weight._dtype:
        dev = weight._storage.device
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for "
                           "argument "
                           f"#1 'per_sample_weights'; but type {legacy_type_name(weight._dtype, dev)} does "
                           f"not equal {legacy_type_name(per_sample_weights._dtype, dev)} (while checking "
                           "arguments for embedding_bag)")
    num_weights = weight._shape[0]
    if padding_idx is not None:
        if not -num_weights <= padding_idx < num_weights:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num_weights} through "
                               f"{num_weights - 1}, but got {padding_idx}")
        padding_idx = padding_idx % num_weights
    if sparse or scale_grad_by_freq:
        raise NotImplementedError("torchshim: embedding_bag(sparse=True / scale_grad_by_freq=True) is not "
                                  "supported")
    _bag_value_checks(input, offsets, num_weights, mode, weight._dtype)
    num_bags = max(offsets._shape[0] - (1 if include_last_offset else 0), 0)
    return _bag_core(weight, input, offsets, per_sample_weights, mode, num_bags, padding_idx)


def _type_str(x):
    return "<class 'torch.Tensor'>" if type(x).__name__ == "Tensor" else str(type(x))


# ---- one_hot -----------------------------------------------------------------------------------------------
@P.kernel(static=("num_classes",))
def _one_hot_k(a, *, num_classes):
    return (a[..., None] == jnp.arange(num_classes, dtype=a.dtype)).astype(jnp.int64)


@register("one_hot", method=False, function=False, functional=True, kind="indexing")
def one_hot(tensor, num_classes=-1):
    """`F.one_hot(tensor, num_classes=-1)`: int64 one-hot encodings, shape tensor.shape + (num_classes,);
    num_classes=-1 infers max + 1 (a value-dependent shape: not possible under jax tracing, where it raises).
    Values are checked like PyTorch's (eagerly only)."""
    if tensor._dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = _host(tensor._value)
    if num_classes == -1:
        if a is None:
            raise RuntimeError("one_hot(num_classes=-1) has a value-dependent output shape: it can't run "
                               "under jax tracing; pass num_classes")
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a is not None and a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes < 0:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = _one_hot_k(tensor._value, num_classes=int(num_classes))
    return P.fresh(out, D.int64, tensor._storage.device)

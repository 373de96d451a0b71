"""The packing side of the recurrent ops (torchshim/ops/nn_rnn.py): `torch._pack_padded_sequence`,
`torch._pad_packed_sequence` and `pad_sequence` (the kernels behind `torch.nn.utils.rnn`), the host copies of
batch sizes and lengths, and the index arrays that lay packed rows out as a padded time-major batch.

Lengths and batch sizes decide shapes, so they are read on the host (PyTorch also requires them on the
CPU). Tensors made here from host values remember them (`host_tensor`), so a PackedSequence built from Python
lengths also works under jax tracing, where every array is a tracer.
"""
import functools
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._promotion import short_name
from .._tensor import Tensor
from ..autograd._ops import differentiable
from . import _dispatch as P
from ._registry import register


# ---- host values of small integer tensors (batch sizes, lengths) ------------------------------------------
_HOST = weakref.WeakKeyDictionary()  # Storage -> (array, numpy copy): values known on the host at creation


def host_tensor(values, device=None):
    """An int64 tensor of `values` (numpy) whose host copy is remembered, so it can be read under tracing."""
    from .. import _device as Dev
    arr = np.asarray(values, dtype=np.int64)
    t = P.fresh(jnp.asarray(arr), D.int64, device or Dev.CPU)
    _HOST[t._storage] = (t._storage.array, arr)
    return t


def maybe_host(t):
    """The values of `t` as numpy when known on the host (remembered, or concrete), else None."""
    rec = _HOST.get(t._storage)
    if rec is not None and rec[0] is t._storage.array and t._natural:
        return rec[1]
    arr = t._value
    return None if isinstance(arr, jax.core.Tracer) else np.asarray(arr)


def host_values(t, what):
    """The values of integer tensor `t` as numpy (a remembered host copy, or a device read); under jax tracing
    without a remembered copy, a RuntimeError naming `what`."""
    host = maybe_host(t)
    if host is None:
        raise RuntimeError(f"{what} must be known on the host, not computed under jax tracing: build it from "
                           "Python lengths (pack_padded_sequence(..., lengths=[...]) or pack_sequence)")
    return host


@functools.lru_cache(maxsize=256)
def _packed_index(batch_sizes):
    """Host index arrays that lay packed rows out as a time-major padded batch and back, per direction."""
    bs = np.asarray(batch_sizes, dtype=np.int64)
    steps, batch = len(bs), int(bs[0])
    n = int(bs.sum())
    offsets = np.concatenate([[0], np.cumsum(bs)[:-1]])
    t = np.arange(steps)[:, None]
    b = np.arange(batch)[None, :]
    valid = b < bs[:, None]
    lengths = valid.sum(0)
    fwd = np.where(valid, offsets[:, None] + b, n)
    src_t = np.clip(lengths[None, :] - 1 - t, 0, steps - 1)
    rev = np.where(valid, fwd[src_t, b], n)
    rows_t = np.repeat(np.arange(steps), bs)
    rows_b = np.concatenate([np.arange(k) for k in bs])
    out_f = rows_t * batch + rows_b
    out_r = (lengths[rows_b] - 1 - rows_t) * batch + rows_b
    return tuple(a.astype(np.int64) if a.dtype != bool else a for a in (fwd, rev, valid, out_f, out_r))


# ---- packing ---------------------------------------------------------------------------------------------
@P.kernel(static=())
def _take_rows_k(x, idx):
    return x.reshape((-1,) + x.shape[2:])[idx]


def _pack_rows(input, idx):
    return P.fresh(_take_rows_k(input._value, idx._value), input._dtype, input._storage.device)


_pack_core = differentiable("_pack_padded_sequence_rows", _pack_rows, grad_name="PackPaddedSequenceBackward0")


def _lengths_host(lengths):
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1 or lengths._dtype is not D.int64 or lengths.device.type != "cpu":
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D "
                               f"{lengths.device.type} {short_name(lengths._dtype)} tensor")
        return host_values(lengths, "lengths")
    return np.asarray(lengths, dtype=np.int64)


@register("_pack_padded_sequence", method=False, kind="composite")
def _pack_padded_sequence(input, lengths, batch_first):
    """`torch._pack_padded_sequence(input, lengths, batch_first)`: (data, batch_sizes) of a padded batch whose
    sequence lengths (a 1-D CPU int64 tensor, sorted decreasing) are read on the host."""
    lens = _lengths_host(lengths)
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input._shape[0], input._shape[1]
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lens.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.shape[0]} "
                           f"(batch_size={batch})")
    if batch and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in "
                           "'lengths' that is <= 0")
    if np.any(lens[1:] > lens[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                           "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                           "pack_sequence to sidestep this requirement if you do not need ONNX "
                           "exportability.")
    if batch and lens[0] > steps:
        raise RuntimeError(f"Expected the lengths to be at most the padded length {steps}, got "
                           f"{int(lens[0])}")
    top = int(lens[0]) if batch else 0
    bs = (lens[None, :] > np.arange(top)[:, None]).sum(1)
    idx = np.concatenate([t * batch + np.arange(k) for t, k in enumerate(bs)]) if top else \
        np.zeros(0, np.int64)
    idx_t = P.fresh(jnp.asarray(idx.astype(np.int64)), D.int64, input._storage.device)
    return _pack_core(input, idx_t), host_tensor(bs)


@P.kernel(static=("steps", "batch", "pad"))
def _pad_rows_k(data, idx, *, steps, batch, pad):
    ext = jnp.concatenate([data, jnp.full((1,) + data.shape[1:], pad, data.dtype)])
    return ext[idx].reshape((steps, batch) + data.shape[1:])


def _pad_rows(data, idx, steps, batch, padding_value):
    out = _pad_rows_k(data._value, idx._value, steps=steps, batch=batch, pad=padding_value)
    return P.fresh(out, data._dtype, data._storage.device)


_pad_core = differentiable("_pad_packed_sequence_rows", _pad_rows, grad_name="CopySlices")


@register("_pad_packed_sequence", method=False, kind="composite")
def _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length):
    """`torch._pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length)`: (padded,
    lengths) of packed data, padded to `total_length` steps with `padding_value`."""
    bs = host_values(batch_sizes, "batch_sizes").astype(np.int64)
    steps = len(bs)
    batch = int(bs[0]) if steps else 0
    if total_length < steps:
        raise RuntimeError("Expected total_length to be at least the length of the longest sequence in "
                           f"input, but got total_length={total_length} and max sequence length being "
                           f"{steps}")
    n = int(bs.sum())
    fwd = _packed_index(tuple(int(b) for b in bs))[0] if steps else np.zeros((0, batch), np.int64)
    full = np.full((total_length, batch), n, np.int64)
    full[:steps] = fwd
    idx = full.reshape(-1)
    idx_t = P.fresh(jnp.asarray(idx), D.int64, data._storage.device)
    out = _pad_core(data, idx_t, int(total_length), batch, float(padding_value))
    if batch_first:
        out = out.transpose(0, 1)
    lengths = (bs[None, :] > np.arange(batch)[:, None]).sum(1) if steps else np.zeros(0, np.int64)
    return out, host_tensor(lengths)


def _copy_check(slot, src):
    """`slot.copy_(src)`'s broadcasting errors (TensorIterator's infer_size, then the output-shape check)."""
    nd = max(len(slot), len(src))
    a, b = (1,) * (nd - len(slot)) + tuple(slot), (1,) * (nd - len(src)) + tuple(src)
    for i in range(nd - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                               f"non-singleton dimension {i}")
    shape = tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(a, b))
    if shape != tuple(slot):
        raise RuntimeError(f"output with shape {list(slot)} doesn't match the broadcast shape {list(shape)}")


@P.kernel(static=("batch_first", "pad", "left", "length"))
def _pad_sequence_k(seqs, *, batch_first, pad, left, length):
    out = []
    trailing = seqs[0].shape[1:]
    for s in seqs:
        s = jnp.broadcast_to(s, s.shape[:1] + trailing)
        widths = [(length - s.shape[0], 0) if left else (0, length - s.shape[0])] + [(0, 0)] * (s.ndim - 1)
        out.append(jnp.pad(s.astype(seqs[0].dtype), widths, constant_values=jnp.asarray(pad, seqs[0].dtype)))
    r = jnp.stack(out, 0)
    return r if batch_first else jnp.swapaxes(r, 0, 1)


@register("pad_sequence", method=False, function=False, kind="nn", grad_name="CopySlices")
def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """`torch._C._nn.pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right')`:
    stack tensors of shape (L_i, *) into (max L, B, *) (or (B, max L, *)), padding on the right or left. The
    result has the first sequence's dtype."""
    seqs = list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if seqs[0].ndim == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = seqs[0]._shape[1:]
    for s in seqs:
        if s.ndim == 0:
            raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
        _copy_check((s._shape[0],) + trailing, s._shape)
    length = max(s._shape[0] for s in seqs)
    dt = seqs[0]._dtype
    pad = padding_value
    if dt is D.bool_:
        pad = bool(padding_value)
    elif not (dt.is_floating_point or dt.is_complex):
        pad = int(padding_value)
    out = _pad_sequence_k([s._value for s in seqs], batch_first=bool(batch_first), pad=pad,
                          left=padding_side == "left", length=length)
    return P.fresh(out, dt, seqs[0]._storage.device)

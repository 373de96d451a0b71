"""`torch.nn.utils.rnn`: PackedSequence and the packing helpers, ported from PyTorch 2.13 over the op table's
`_pack_padded_sequence`, `_pad_packed_sequence` and `pad_sequence` (torchshim/ops/_rnn_packing.py).

Differences from PyTorch: sequence lengths and batch sizes are read on the host (PyTorch requires them on the
CPU too); under jax tracing they must be host values (lengths given as a Python list, or a PackedSequence made
by these functions, whose batch sizes remember their host copy). `enforce_sorted=False` sorts the lengths on
the host (a stable descending sort).
"""
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ..._api import arange, empty_like, int64
from ..._tensor import Tensor
from ...ops import _rnn_packing as _ops
from ...ops._registry import installed

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]

_pad_sequence = installed("pad_sequence")  # with autograd recording


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    """`PackedSequence(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None)`: the packed data
    of a batch of variable-length sequences (time step after time step), the batch size at each step, and the
    permutation that sorted the batch by length. Build it with `pack_padded_sequence` / `pack_sequence`."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                unsorted_indices))

    def pin_memory(self):
        """The same sequence with `data` (and the indices) in pinned memory (a copy here)."""
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        """`to(...)` as `Tensor.to` on `data`; the indices follow data's device, batch_sizes stays on the
        CPU."""
        from ..modules._convert import _parse_to
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        _device, _dtype, non_blocking, convert_to_format = _parse_to(*args, **kwargs)

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)
        sorted_indices = bind(self.sorted_indices, call_to)
        unsorted_indices = bind(self.unsorted_indices, call_to)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        """`to('cuda', ...)`."""
        from ..._api import tensor
        ex = tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        """`to('cpu', ...)`."""
        from ..._api import tensor
        ex = tensor((), dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        from ..._api import double
        return self.to(dtype=double)

    def float(self):
        from ..._api import float as float_
        return self.to(dtype=float_)

    def half(self):
        from ..._api import half
        return self.to(dtype=half)

    def long(self):
        from ..._api import long
        return self.to(dtype=long)

    def int(self):
        from ..._api import int as int_
        return self.to(dtype=int_)

    def short(self):
        from ..._api import short
        return self.to(dtype=short)

    def char(self):
        from ..._api import int8
        return self.to(dtype=int8)

    def byte(self):
        from ..._api import uint8
        return self.to(dtype=uint8)

    @property
    def is_cuda(self):
        """Whether `data` is on a cuda device."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether `data` is in pinned memory."""
        return self.data.is_pinned()


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                "manually. They should be instantiated by functions like pack_sequence and "
                "pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    """`invert_permutation(permutation)`: the inverse of a permutation tensor (None for None)."""
    if permutation is None:
        return None
    host = _ops.maybe_host(permutation)
    if host is not None and host.ndim == 1 and np.array_equal(np.sort(host), np.arange(host.size)):
        inverse = np.empty_like(host)
        inverse[host] = np.arange(host.size)
        return _ops.host_tensor(inverse, permutation._storage.device).to(dtype=permutation.dtype)
    output = empty_like(permutation)
    output.scatter_(0, permutation, arange(0, permutation.numel(), device=permutation.device))
    return output


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """`pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True)`: pack a padded batch
    (T, B, *) (or (B, T, *)) of sequences with the given lengths (a list or a CPU tensor). With
    enforce_sorted=True the lengths must be sorted in decreasing order; otherwise the batch is sorted here (a
    stable sort) and the permutation kept in the result."""
    if isinstance(lengths, Tensor):
        host = _ops.host_values(lengths.to(dtype=int64), "lengths")
    else:
        host = np.asarray(lengths, dtype=np.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        order = np.argsort(-host, kind="stable")
        host = host[order]
        sorted_indices = _ops.host_tensor(order, input._storage.device)
        batch_dim = 0 if batch_first else 1
        input = input.index_select(batch_dim, sorted_indices)
    data, batch_sizes = _ops._pack_padded_sequence(input, _ops.host_tensor(host), batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """`pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None)`: the inverse
    of `pack_padded_sequence`: (padded (T, B, *) or (B, T, *), lengths), in the original batch order."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in "
                             f"input, but got total_length={total_length} and max sequence length being "
                             f"{max_seq_length}")
        max_seq_length = total_length
    padded_output, lengths = _ops._pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                                       padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        order = _ops.maybe_host(unsorted_indices)
        if order is not None:
            lengths = _ops.host_tensor(_ops.host_values(lengths, "lengths")[order])
        else:
            lengths = lengths[unsorted_indices.cpu()]
        return padded_output.index_select(batch_dim, unsorted_indices), lengths
    return padded_output, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """`pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side='right')`: stack a list of
    (L_i, *) tensors into (max L, B, *) (or (B, max L, *)), padded with `padding_value` on the right or
    left."""
    if not isinstance(sequences, Iterable):
        msg = f"pad_sequence: Expected iterable for input sequences, but got arg of type: {type(sequences)}"
        raise RuntimeError(msg)
    sequences = tuple(sequences)
    return _pad_sequence(sequences, batch_first, padding_value, padding_side)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """`unpad_sequence(padded_sequences, lengths, batch_first=False)`: the list of unpadded sequences (as
    PyTorch, a time-major input is transposed in place first)."""
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    if isinstance(lengths, Tensor):
        lens = [int(v) for v in _ops.host_values(lengths, "lengths")]
    else:
        lens = list(lengths)
    for seq, length in zip(padded_sequences, lens, strict=True):
        unpadded_sequences.append(seq[:length])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    """`pack_sequence(sequences, enforce_sorted=True)`: pack a list of (L_i, *) tensors (sorted by decreasing
    length unless enforce_sorted=False)."""
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """`unpack_sequence(packed_sequences)`: the list of (L_i, *) tensors of a PackedSequence, in original
    order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)


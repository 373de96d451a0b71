"""`torch.frombuffer` and `torch.from_file`: tensors from raw bytes.

Difference from PyTorch (docs/differences.md, "frombuffer and from_file"): PyTorch's tensor shares the
buffer's (or the mapped file's) memory; torchshim's tensors are immutable jax arrays, so both read the bytes
once, at the call: later writes to the buffer or file are not seen, and writes to the tensor do not reach
them. `from_file(shared=True)` creates or extends the file as PyTorch does, but warns that writes are not
written back.
"""
import os
import warnings

import numpy as np

from . import _api

__all__ = ["frombuffer", "from_file"]


def _as_numpy_dtype(dtype):
    return (dtype or _api.get_default_dtype()).np


def _from_bytes(raw, dtype, requires_grad=False):
    """A 1-D tensor of `dtype` from bytes (a copy)."""
    arr = np.frombuffer(raw, dtype=np.uint8 if dtype is _api.bool else dtype.np)
    if dtype is _api.bool:
        arr = arr != 0
    return _api.tensor(arr.copy(), dtype=dtype, requires_grad=requires_grad)


def frombuffer(buffer, *, dtype=None, count=-1, offset=0, requires_grad=False):
    """`torch.frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor`: a 1-D tensor
    of the buffer's bytes from `offset`, `count` elements (-1: all). PyTorch's ValueErrors for bad
    lengths/offsets. Difference: a copy of the bytes (see the module docstring), so no warning for a
    read-only buffer."""
    if dtype is None:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.contiguous:
        raise RuntimeError("could not retrieve buffer from object")
    raw = view.cast("B") if view.format != "B" or view.ndim != 1 else view
    length, size = len(raw), dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) "
                             "must be a "
                             f"multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} "
                         "bytes) must "
                         f"not be greater than actual buffer length ({length} bytes)")
    return _from_bytes(raw[offset:offset + count * size], dtype, requires_grad)


_SHARED_WARNED = [False]


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """`torch.from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
    pin_memory=False, requires_grad=False) -> Tensor`: `size` elements of `dtype` read from the start of the
    file. With `shared=True` the file is created (or extended with zeros) to hold them, as in PyTorch.
    Difference: the tensor is a copy read at the call; with `shared=True` a UserWarning says that writes to
    the tensor are not written to the file (see the module docstring)."""
    dtype = dtype or _api.get_default_dtype()
    if layout is not None and layout is not _api.strided:
        raise RuntimeError(f"from_file: only the strided layout is supported, got {layout}")
    if device is not None and _api.device(device).type != "cpu":
        raise RuntimeError("from_file: only CPU tensors can be mapped to files")
    if pin_memory:
        raise RuntimeError("from_file: tensors backed by a memory-mapped file cannot be created in pinned "
                           "memory")
    nbytes = size * dtype.itemsize
    if size < 0:
        raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot allocate "
                           "memory (12)")
    if shared:
        if not _SHARED_WARNED[0]:
            warnings.warn("torchshim: from_file(shared=True) reads the file once; writes to the tensor "
                          "are not "
                          "written back to the file (torchshim tensors are immutable jax arrays).",
                          UserWarning, stacklevel=2)
            _SHARED_WARNED[0] = True
        with open(filename, "ab") as f:  # create, or extend with zeros, as MAP_SHARED with O_CREAT does
            have = f.tell()
            if have < nbytes:
                f.truncate(nbytes)
    elif not os.path.exists(filename):
        raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No such file or "
                           "directory (2)")
    have = os.path.getsize(filename)
    if have < nbytes:
        raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required mapping size "
                           f"<{nbytes}>")
    if size == 0:
        return _api.empty(0, dtype=dtype, requires_grad=requires_grad)
    with open(filename, "rb") as f:
        raw = f.read(nbytes)
    return _from_bytes(raw, dtype, requires_grad)

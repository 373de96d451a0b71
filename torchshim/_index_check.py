"""Index range checks without a device round trip per call.

PyTorch raises for an index out of range where JAX would clamp silently, so every indexing op must look at its
index values, which means copying them to the host (a sync: the host waits for all queued work). The minimum
and maximum of a storage's integer array are remembered with that array (a write rebinds the array, which
drops them), so an index tensor that is checked again (the same targets every step, a view of a checked
tensor) costs no second round trip, and one whose storage is all in range needs no exact search.
"""
import jax
import numpy as np

from . import _fused

__all__ = ["first_out_of_range", "note_host_range", "storage_range"]


def note_host_range(storage, host):
    """Remember the min/max of `host` (a numpy copy of `storage.array`, integer dtype) for the current
    array."""
    if host.size and host.dtype.kind in "iub":
        storage._range = (storage.array, int(host.min()), int(host.max()))


def _storage_range(storage):
    r = storage._range
    if r is not None and r[0] is storage.array:
        return r[1], r[2]
    arr = storage.array
    if isinstance(arr, jax.core.Tracer):
        return None
    host = np.asarray(arr)
    if host.size == 0:
        return None
    note_host_range(storage, host)
    return storage._range[1], storage._range[2]


def storage_range(storage):
    """(min, max) of an integer storage's elements (read once per array and remembered), or None when its
    array is traced, not computed yet (fused eager mode) or empty."""
    if _fused.pending(storage._array):
        return None
    return _storage_range(storage)


def first_out_of_range(t, lo, hi):
    """The first value (C order) of index tensor `t` outside [lo, hi), or None when all are inside, `t` is
    empty, or its values are traced (checks are skipped under jax tracing)."""
    if t.numel() == 0:
        return None
    r = _storage_range(t._storage)
    if r is None:
        return None
    if lo <= r[0] and r[1] < hi:
        return None
    a = np.asarray(t._value)  # rare: something in the storage is out of range; find it in the view itself
    bad = (a < lo) | (a >= hi)
    return int(a[bad].flat[0]) if bad.any() else None

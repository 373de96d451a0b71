"""Storage: the one jax array that a tensor and all its views share.

A storage's array keeps the shape it was created with for its whole life; tensors that cover it in that
natural layout read it directly, other views go through `_view.read`/`_view.write`. A write rebinds
`array`; jax arrays themselves are never mutated.
"""
import itertools

from ._fused._lazy import LazyArray

__all__ = ["Storage", "UntypedStorage"]

_addresses = itertools.count(1)

# Set by torch.compile (compiler/_capture.py) while it traces a program: an object with `read(storage)`,
# `write(storage)` and `new(storage)`, told of every storage array read, rebound and created, so the program
# finds the state it reads (its inputs), what it writes (its outputs) and what it creates that outlives it.
hook = None


class Storage:
    """Shared state of a tensor and its views: `array` (jax array), `device` (torch.device), a fake
    address, `shared` (set by `Tensor.share_memory_()`: a mark, nothing is shared between processes)."""

    __slots__ = ("_array", "device", "_addr", "_range", "shared", "__weakref__")

    def __init__(self, array, device):
        self._array = array
        self.device = device
        self.shared = False
        self._addr = None
        self._range = None  # (array, min, max) of an integer array, once known on the host (see _index_check)
        if hook is not None:
            hook.new(self)

    @property
    def array(self):
        """The storage's jax array (immutable; a write rebinds it)."""
        if hook is not None:
            hook.read(self)
        a = self._array
        if type(a) is LazyArray and a.value is not None:  # fused eager mode: a recorded value, now computed
            self._array = a = a.value
        return a

    @array.setter
    def array(self, value):
        if hook is not None:
            hook.write(self)
        self._array = value

    @property
    def address(self):
        """A stable fake base address, so `data_ptr()` is equal for aliases and differs between storages."""
        if self._addr is None:
            self._addr = next(_addresses) << 40
        return self._addr

    @property
    def numel(self):
        return self.array.size


class UntypedStorage:
    """What `Tensor.untyped_storage()` returns: enough for `data_ptr()`, `nbytes()`, `size()` and identity
    checks."""

    def __init__(self, storage):
        self._storage = storage

    def data_ptr(self):
        return self._storage.address

    def nbytes(self):
        return self._storage.array.size * self._storage.array.dtype.itemsize

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    @property
    def device(self):
        return self._storage.device

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and other._storage is self._storage

    def __hash__(self):
        return id(self._storage)

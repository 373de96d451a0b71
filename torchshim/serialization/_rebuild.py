"""What a checkpoint's pickle calls when it loads: storages and PyTorch's `torch._utils._rebuild_*` functions,
rebuilding torchshim tensors.

`persistent_load` hands the rebuild functions a `TypedStorage` (bytes of one saved storage, its dtype and
device). The first tensor built on it creates one torchshim `Storage` (a jax array on the target device);
every later tensor with the same key views that storage, so saved views still share memory after loading.
`naturalize` then gives each storage the shape of a tensor that covers it whole (the fast path of
`Tensor._value`).
"""
import threading

import jax
import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .. import _view as V
from .._storage import Storage
from .._tensor import Tensor

__all__ = ["StorageType", "LoadedStorage", "TypedStorage", "Unsupported", "STORAGE_DTYPES"]

# `torch.<Name>Storage` -> dtype name (PyTorch's legacy storage classes,
# torch.storage._dtype_to_storage_type_map)
STORAGE_DTYPES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16", "LongStorage": "int64",
    "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool", "BFloat16Storage": "bfloat16", "ComplexDoubleStorage": "complex128",
    "ComplexFloatStorage": "complex64", "QInt8Storage": "qint8", "QInt32Storage": "qint32",
    "QUInt8Storage": "quint8", "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4",
}

_tls = threading.local()  # the load in progress: map_location, byteswap, tensors created (see enter_load)


def enter_load(map_location, byteswap):
    """Start a load on this thread (loads may nest: a __setstate__ can call torch.load); returns the outer
    load's state for `exit_load`."""
    saved = tuple(getattr(_tls, k, None) for k in ("map_location", "byteswap", "created"))
    _tls.map_location, _tls.byteswap, _tls.created = map_location, byteswap, []
    return saved


def exit_load(saved):
    _tls.map_location, _tls.byteswap, _tls.created = saved


class Unsupported:
    """A global that PyTorch's checkpoints may name but torchshim has no equivalent of (quantized dtypes,
    sparse tensor classes, ...): it unpickles (as in PyTorch's weights_only allowlist) and raises when
    used."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"torchshim cannot load {self._name}: it has no equivalent in torchshim")


def dtype_of(name):
    """The torchshim dtype named `name` ('float32'), or an `Unsupported` stand-in for PyTorch-only dtypes."""
    d = D.PUBLIC.get(name)
    return d if isinstance(d, D.dtype) else Unsupported("torch." + name)


class StorageType:
    """`torch.serialization.StorageType(name)`: a legacy storage class (`torch.FloatStorage`) met in a pickle;
    `.dtype` is its element type. KeyError for names that are not storage classes, as in PyTorch."""

    def __init__(self, name):
        try:
            self._dtype = dtype_of(STORAGE_DTYPES[name])
        except KeyError as e:
            raise KeyError(f'pickle storage type "{name}" is not recognized') from e

    @property
    def dtype(self):
        return self._dtype

    def __str__(self):
        return f"StorageType(dtype={self.dtype})"


class UntypedStorageClass:
    """Stands for `torch.storage.UntypedStorage` / `TypedStorage` (the class names a pickle may contain)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"<class '{self._name}'>"

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"torchshim cannot construct {self._name} while loading")


class LoadedStorage:
    """The storage torch.load hands to a `map_location` callable: the bytes of one saved storage on a device.
    Supports what such callables use: `device`, `nbytes()`, `size()`, `cpu()`, `cuda(device=None)`,
    `to(device=...)`. (PyTorch passes a `torch.UntypedStorage`; this is torchshim's stand-in.) In the legacy
    format the bytes are read after the pickle: `_data` is None until then."""

    def __init__(self, data, device=Dev.CPU, nbytes=None):
        self._data = data  # a numpy uint8 array
        self._nbytes = len(data) if nbytes is None else nbytes
        self.device = device

    def nbytes(self):
        return self._nbytes

    def size(self):
        return self._nbytes

    __len__ = size

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def _moved(self, device):
        return LoadedStorage(self._data, device, self._nbytes)

    def to(self, *, device=None, non_blocking=False):
        """A storage holding the same bytes on `device`."""
        return self._moved(Dev.canonical(device))

    def cpu(self):
        return self if self.device.type == "cpu" else self._moved(Dev.CPU)

    def cuda(self, device=None, non_blocking=False):
        if isinstance(device, int):
            device = f"cuda:{device}"
        return self._moved(Dev.canonical("cuda" if device is None else device))

    def __repr__(self):
        return f"LoadedStorage(nbytes={self.nbytes()}, device={self.device})"


class TypedStorage:
    """One saved storage seen with an element dtype (PyTorch's TypedStorage); `offset` (elements) is for the
    legacy format's storage views. `shim(dtype)` is the torchshim Storage that tensors built on it share."""

    def __init__(self, untyped, dtype, offset=0, root=None):
        self._untyped = untyped
        self.dtype = dtype
        self.offset = offset
        self._root = root
        self._shims = {}
        self._shapes = {}
        self.tensors = []

    @property
    def device(self):
        return self._untyped.device

    def nbytes(self):
        return self._untyped.nbytes()

    def shim(self, dtype, shape=None):
        """The torchshim Storage of these bytes read as `dtype` (created on first use, one per dtype, with
        `shape` if given: the shape of a tensor covering it whole; filled when the bytes are known)."""
        if self._root is not None:
            return self._root.shim(dtype)
        st = self._shims.get(dtype)
        if st is None:
            if isinstance(dtype, Unsupported):
                dtype()
            st = Storage(np.empty((0,), dtype.np), self._untyped.device)  # placeholder until filled
            self._shapes[dtype] = shape
            self._shims[dtype] = st
            if self._untyped._data is not None:
                self._fill(st, dtype)
        return st

    def fill(self, untyped):
        """Set the bytes (legacy format: read after the pickle) and fill the storages built so far."""
        self._untyped = untyped
        for dtype, st in self._shims.items():
            self._fill(st, dtype)

    def _fill(self, st, dtype):
        raw = np.frombuffer(self._untyped._data, dtype=np.uint8)
        n = len(raw) // dtype.itemsize
        arr = raw[:n * dtype.itemsize].view(dtype.np)
        if getattr(_tls, "byteswap", False):
            arr = arr.byteswap()
        shape = self._shapes.get(dtype)
        if shape is not None and V.numel(shape) == arr.size:
            arr = arr.reshape(shape)
        device = self._untyped.device
        st.array = jax.device_put(arr, Dev.to_jax(device))
        st.device = device


def storage_nbytes(shape, stride, offset, itemsize):
    """PyTorch's computeStorageNbytes: bytes a geometry needs from the start of its storage."""
    size = 1
    for s, st in zip(shape, stride):
        if s == 0:
            return 0
        size += st * (s - 1)
    return itemsize * (offset + size)


def conj_neg(metadata):
    return bool(metadata) and bool(metadata.get("conj") or metadata.get("neg"))


def _tensor_on(storage, dtype, storage_offset, size, stride, metadata=None):
    """A torchshim tensor viewing `storage` (a TypedStorage) as `dtype` with the given geometry."""
    if not isinstance(storage, TypedStorage):
        raise TypeError(f"expected a storage, got {type(storage).__name__}")
    if not all(isinstance(s, int) for s in (*size, *stride, storage_offset)):
        raise TypeError("set_() received an invalid combination of arguments: sizes, strides and the storage "
                        "offset must be ints")
    size, stride = tuple(size), tuple(stride)
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    offset = storage_offset + storage.offset
    whole = (offset == 0 and not conj_neg(metadata) and V.numel(size) * dtype.itemsize == storage.nbytes()
             and stride == V.contiguous_strides(size))
    st = storage.shim(dtype, size if whole else None)
    conj, neg = bool((metadata or {}).get("conj")), bool((metadata or {}).get("neg"))
    need = storage_nbytes(size, stride, offset, dtype.itemsize)
    have = storage.nbytes() // dtype.itemsize * dtype.itemsize
    if need > have:  # PyTorch's set_ would grow the storage, which a loaded one refuses
        raise RuntimeError("Trying to resize storage that is not resizable")
    lens = V.lens_of(dtype.is_complex, dtype, conj, neg)
    t = Tensor._make(st, size, stride, offset, dtype, lens=lens)
    (storage._root or storage).tensors.append(t)
    return t


def _track(t):
    """Let `naturalize` see `t` (an alias made while loading, e.g. a Parameter over a loaded tensor)."""
    created = getattr(_tls, "created", None)
    if created is not None:
        created.append(t)
    return t


def naturalize(storages):
    """Give each loaded storage the shape of a tensor covering it whole, so that tensor (and its aliases)
    read it directly: the fast path of `Tensor._value`."""
    users = {}
    for typed in storages:
        for t in typed.tensors:
            users.setdefault(id(t._storage), []).append(t)
    for t in getattr(_tls, "created", None) or []:
        if id(t._storage) in users:
            users[id(t._storage)].append(t)
    for typed in storages:
        for st in typed._shims.values():
            group = users.get(id(st), [])
            whole = next((t for t in group if t._lens is None and t._offset == 0 and V.numel(t._shape) ==
                          st.array.size and t._stride == V.contiguous_strides(t._shape)), None)
            if whole is None:
                continue
            if st.array.shape != whole._shape:
                st.array = st.array.reshape(whole._shape)
            for t in group:
                t._natural = (t._lens is None and t._offset == 0 and t._shape == st.array.shape
                              and t._stride == V.contiguous_strides(t._shape))
                t._cache = None


# ---- torch._utils._rebuild_* ----------------------------------------------------------------------------
def _rebuild_tensor(storage, storage_offset, size, stride):
    """`torch._utils._rebuild_tensor`: a tensor of the storage's dtype viewing it."""
    return _tensor_on(storage, storage.dtype, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    """`torch._utils._rebuild_tensor_v2` (a typed storage; metadata carries the conj/neg bits). Backward
    hooks are not restored (PyTorch saves none)."""
    t = _tensor_on(storage, storage.dtype, storage_offset, size, stride, metadata)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    """`torch._utils._rebuild_tensor_v3`: an untyped storage read as `dtype` (uint16/32/64, float8, ...)."""
    if isinstance(dtype, Unsupported):
        dtype()
    t = _tensor_on(storage, dtype, storage_offset, size, stride, metadata)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """`torch._utils._rebuild_parameter`."""
    from ..nn.parameter import Parameter
    return _track(Parameter(data, requires_grad))


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """`torch._utils._rebuild_parameter_with_state`: a Parameter with Python attributes."""
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


_PRIVATE = frozenset(Tensor.__slots__)


def _set_obj_state(obj, state):
    """`torch._utils._set_obj_state`. Difference: torchshim's private Tensor fields can't be set this way."""
    if isinstance(state, tuple):
        if not len(state) == 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for part in (dict_state, slots_state):
        for k, v in (part or {}).items():
            if isinstance(obj, Tensor) and k in _PRIVATE:
                raise RuntimeError(f"torchshim cannot restore the attribute {k!r} of a tensor")
            setattr(obj, k, v)
    return obj


def _rebuild_from_type_v2(func, new_type, args, state):
    """`torch._tensor._rebuild_from_type_v2`: a tensor subclass, or a tensor with Python attributes."""
    ret = _track(func(*args))
    if type(ret) is not new_type:
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise RuntimeError(f"cannot rebuild a tensor as {new_type!r}")
        ret.__class__ = new_type
    setstate = getattr(type(ret), "__setstate__", None)
    if setstate is not None:
        ret.__setstate__(state)
    else:
        ret = _set_obj_state(ret, state)
    return ret


def restore_device(device):
    """The device a `_rebuild_device_tensor_*` tensor goes to under the current load's map_location."""
    ml = getattr(_tls, "map_location", None)
    if ml is None:
        return device
    if isinstance(ml, dict):
        return ml.get(device, device)
    if isinstance(ml, (str, bytes, Dev.device)):
        return ml.decode() if isinstance(ml, bytes) else ml
    raise RuntimeError("Callable map_location not supported with _rebuild_wrapper_subclass or "
                       "_rebuild_device_tensor_from_numpy")


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    """`torch._utils._rebuild_device_tensor_from_cpu_tensor`."""
    t = data.to(dtype=dtype, device=restore_device(device))
    t.requires_grad = requires_grad
    return t


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    """`torch._utils._rebuild_device_tensor_from_numpy`."""
    from ..ops.tensor_data import from_numpy
    t = from_numpy(data).to(dtype=dtype, device=restore_device(device))
    t.requires_grad = requires_grad
    return t


def _unsupported_rebuild(what):
    def rebuild(*args, **kwargs):
        raise NotImplementedError(f"torchshim cannot load {what}")
    rebuild.__name__ = rebuild.__qualname__ = "_rebuild_" + what.replace(" ", "_")
    return rebuild


_rebuild_qtensor = _unsupported_rebuild("quantized tensors")
_rebuild_sparse_tensor = _unsupported_rebuild("sparse tensors")
_rebuild_nested_tensor = _unsupported_rebuild("nested tensors")
_rebuild_meta_tensor_no_storage = _unsupported_rebuild("meta tensors (torchshim has no meta device)")
_rebuild_wrapper_subclass = _unsupported_rebuild("wrapper tensor subclasses")


def _get_layout(name):
    """`torch.serialization._get_layout('torch.strided')` -> the layout object."""
    from .. import _layout
    if not isinstance(name, str) or not name.startswith("torch.") or name[6:] not in _layout._BY_NAME:
        raise KeyError(name)
    return _layout._BY_NAME[name[6:]]


REBUILDS = {f.__name__: f for f in (
    _rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3, _rebuild_parameter,
    _rebuild_parameter_with_state,
    _rebuild_device_tensor_from_cpu_tensor, _rebuild_device_tensor_from_numpy)}
REBUILDS.update(_rebuild_qtensor=_rebuild_qtensor, _rebuild_sparse_tensor=_rebuild_sparse_tensor,
                _rebuild_nested_tensor=_rebuild_nested_tensor,
                _rebuild_meta_tensor_no_storage=_rebuild_meta_tensor_no_storage,
                _rebuild_wrapper_subclass=_rebuild_wrapper_subclass)

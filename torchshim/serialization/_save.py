"""`torch.save` in PyTorch's formats, written without PyTorch.

A pure-Python pickler (`pickle._Pickler`, so GLOBAL opcodes can name `torch.*` objects that are not importable
here) reduces torchshim objects exactly as PyTorch 2.13 reduces its own: a tensor becomes
`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict()[, metadata])`
(`_rebuild_tensor_v3(..., dtype)` over a `torch.storage.UntypedStorage` for uint16/32/64 and float8), a
Parameter `_rebuild_parameter(data, requires_grad, OrderedDict())`, a tensor with Python attributes
`torch._tensor._rebuild_from_type_v2`, dtypes `torch.float32`, and storages persistent ids
`('storage', torch.FloatStorage, key, 'cpu', numel)`. Each storage is written once, so views keep sharing it.
For the same object, `data.pkl` and every other record come out byte-identical to PyTorch's.
"""
import io
import os
import pickle
import struct
import sys
import types
from collections import OrderedDict

import numpy as np

from .. import _dtype as D
from .._layout import layout, memory_format
from .._storage import UntypedStorage
from .._tensor import Size, Tensor
from .._device import device as _device
from ._names import G, TorchName, torch_name
from ._rebuild import STORAGE_DTYPES
from ._zip import ZipWriter, archive_name_of

__all__ = ["save"]

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_STORAGE_NAME = {v: k for k, v in STORAGE_DTYPES.items()}  # dtype name -> 'FloatStorage'
_V3 = ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2")


class _StorageRef:
    """What a tensor's reduction passes as its storage: the torchshim Storage, and the element dtype of a
    TypedStorage (None: an UntypedStorage)."""

    __slots__ = ("storage", "dtype")

    def __init__(self, storage, dtype):
        self.storage, self.dtype = storage, dtype


def _fresh(s):
    """A new str object equal to `s`: PyTorch builds these strings in C++, so the pickle memo never merges
    them with equal strings elsewhere in the object (the 'cpu' location tag, a user's 'conj' key)."""
    return s[:1] + s[1:]


def _location(dev):
    """PyTorch's location tag: 'cpu' (one shared string, as PyTorch's is) or 'cuda:<index>'."""
    if dev.type == "cpu":
        return "cpu"
    return dev.type if dev.index is None else f"{dev.type}:{dev.index}"


def _obj_state(t):
    """`torch._utils._get_obj_state`: a tensor's Python attributes (None when it has none)."""
    getstate = getattr(type(t), "__getstate__", None)
    if getstate is not None and getstate is not object.__getstate__:
        return t.__getstate__()
    return dict(t.__dict__) or None


def _reduce_plain(t):
    """`Tensor._reduce_ex_internal` for a dense tensor."""
    args_tail = ()
    if t._dtype.name in _V3:
        func, ref = G("torch._utils", "_rebuild_tensor_v3"), _StorageRef(t._storage, None)
        args_tail = (t._dtype,)
    else:
        func, ref = G("torch._utils", "_rebuild_tensor_v2"), _StorageRef(t._storage, t._dtype)
    # fresh tuples, as PyTorch's `tuple(self.size())` are (the pickle memo must not merge them)
    args = (ref, t._offset, tuple([*t._shape]), tuple([*t._stride]), t.requires_grad,
            OrderedDict()) + args_tail
    metadata = {}
    if t._lens is not None and t._lens[1]:
        metadata[_fresh("conj")] = True
    if t._lens is not None and t._lens[2]:
        metadata[_fresh("neg")] = True
    if metadata:
        args = args + (metadata,)
    return func, args


def _reduce_tensor(t):
    """`Tensor.__reduce_ex__` / `Parameter.__reduce_ex__` as PyTorch 2.13 writes them."""
    from ..nn.parameter import Parameter, UninitializedTensorMixin
    if isinstance(t, UninitializedTensorMixin):
        return (type(t), (t.requires_grad,))
    state = _obj_state(t)
    if issubclass(type(t), Parameter):
        if not state:
            return (G("torch._utils", "_rebuild_parameter"), (t.data, t.requires_grad, OrderedDict()))
        return (G("torch._utils", "_rebuild_parameter_with_state"),
                (t.data, t.requires_grad, OrderedDict(), state))
    func, args = _reduce_plain(t)
    if type(t) is Tensor and not state:
        return (func, args)
    return (G("torch._tensor", "_rebuild_from_type_v2"), (func, type(t), args, state))


class _Pickler(pickle._Pickler):
    """Python's pickler, with PyTorch's reductions for torchshim objects and torch names for its globals."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol, persistent_id):
        super().__init__(file, protocol)
        self._pid = persistent_id

    def persistent_id(self, obj):
        return self._pid(obj)

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return _reduce_tensor(obj)
        if type(obj) is Size:
            return (G("torch", "Size"), (tuple(obj),))
        if isinstance(obj, _device):
            kind = _fresh(obj.type)
            return (G("torch", "device"), (kind,) if obj.index is None else (kind, obj.index))
        if isinstance(obj, layout):
            return (G("torch.serialization", "_get_layout"), (repr(obj),))
        return NotImplemented

    def _write_global(self, obj, module, name):
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + module.encode("utf-8") + b"\n" + name.encode("utf-8") + b"\n")
        self.memoize(obj)

    def save_global(self, obj, name=None):
        mapped = torch_name(obj, name)
        if mapped is None:
            return super().save_global(obj, name)
        self._write_global(obj, *mapped)

    def _save_torch_name(self, obj):
        self._write_global(obj, obj.module, obj.name)

    def _save_dtype(self, obj):
        self._write_global(obj, "torch", obj.name)

    def _save_memory_format(self, obj):
        self._write_global(obj, "torch", obj._name)

    dispatch[TorchName] = _save_torch_name
    dispatch[D.dtype] = _save_dtype
    dispatch[memory_format] = _save_memory_format
    dispatch[types.FunctionType] = save_global


class _Storages:
    """The persistent-id side of a save: one key per torchshim Storage, PyTorch's dtype-consistency check."""

    def __init__(self, legacy=False):
        self.legacy = legacy
        self.keys = {}       # id(Storage) -> key string
        self.saved = {}      # key -> (Storage, element dtype)
        self.dtypes = {}     # id(Storage) -> storage dtype (the check PyTorch does by data_ptr)
        self.containers = set()  # nn.Module classes already written (legacy format)

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            st, dtype = obj.storage, obj.dtype
        elif isinstance(obj, UntypedStorage):
            st, dtype = obj._storage, None
        elif self.legacy and isinstance(obj, type) and _is_module_class(obj):
            if obj in self.containers:  # the second time is the class inside the id tuple itself
                return None
            self.containers.add(obj)
            return ("module", obj, None, None)
        else:
            return None
        nbytes = st.array.size * st.array.dtype.itemsize
        if dtype is None:
            storage_type, storage_dtype, numel = G("torch.storage", "UntypedStorage"), D.uint8, nbytes
        else:
            storage_type = G("torch", _STORAGE_NAME[dtype.name])
            storage_dtype, numel = dtype, nbytes // dtype.itemsize
        if self.dtypes.setdefault(id(st), storage_dtype) is not storage_dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as "
                               "different "
                               "types")
        key = self.keys.get(id(st))
        if key is None:
            key = str(st.address) if self.legacy else str(len(self.keys))
            self.keys[id(st)] = key
            self.saved[key] = (st, storage_dtype)
        if self.legacy:
            return ("storage", storage_type, key, _location(st.device), numel, None)
        return ("storage", storage_type, key, _location(st.device), numel)


def _is_module_class(cls):
    from ..nn.modules.module import Module
    return issubclass(cls, Module)


def _storage_bytes(st):
    """The bytes of a storage, in its element order (a host copy of the jax array)."""
    a = np.ascontiguousarray(np.asarray(st.array)).reshape(-1)
    return a.view(np.uint8)


def _save_zip(obj, writer, protocol, disable_byteorder):
    storages = _Storages()
    buf = io.BytesIO()
    _Pickler(buf, protocol, storages.persistent_id).dump(obj)
    writer.write_record("data.pkl", buf.getvalue())
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", b"64")
    if not disable_byteorder:
        writer.write_record("byteorder", sys.byteorder.encode())
    for key, (st, _) in storages.saved.items():
        writer.write_record(f"data/{key}", _storage_bytes(st))


def _save_legacy(obj, f, protocol):
    storages = _Storages(legacy=True)
    sys_info = {"protocol_version": PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                "type_sizes": {"short": struct.calcsize("=h"), "int": struct.calcsize("=i"),
                               "long": struct.calcsize("=l")}}
    pickle.dump(MAGIC_NUMBER, f, protocol=protocol)
    pickle.dump(PROTOCOL_VERSION, f, protocol=protocol)
    pickle.dump(sys_info, f, protocol=protocol)
    _Pickler(f, protocol, storages.persistent_id).dump(obj)
    keys = sorted(storages.saved)
    pickle.dump(keys, f, protocol=protocol)
    f.flush()
    for key in keys:
        st, dtype = storages.saved[key]
        data = _storage_bytes(st)
        f.write(struct.pack("<q", len(data) // dtype.itemsize))
        f.write(data)


def _parentdir(name):
    """PyTorch's parentdir(): everything before the last '/' (or '\\')."""
    end = name.rfind("/")
    if end < 0:
        end = name.rfind("\\")
    return "" if end < 0 else name[:end]


def save(obj, f, pickle_module=pickle, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True)

    `torch.save`: writes `obj` to `f` (a path or a binary file object with `write`) in PyTorch's zip
    format (the pre-1.6 format with `_use_new_zipfile_serialization=False`). Files load in real PyTorch
    (`weights_only=True` when `obj` holds only tensors, containers and primitives), and tensors sharing
    storage are saved once.

    Differences from PyTorch: `pickle_module` is accepted but the pickling is always done by Python's
    `pickle` machinery (a pure-Python pickler that can name `torch.*` globals); torchshim classes and
    functions (a whole `nn.Module`) are written under the matching `torch.*` names.

    >>> buf = io.BytesIO(); torchshim.save({"w": torchshim.ones(2)}, buf)
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' "
                             "attribute")
    if isinstance(f, (str, os.PathLike)):
        f = os.fspath(f)
    if not _use_new_zipfile_serialization:
        if isinstance(f, str):
            with open(f, "wb") as fh:
                _save_legacy(obj, fh, pickle_protocol)
        else:
            _save_legacy(obj, f, pickle_protocol)
            f.flush()
        return
    if isinstance(f, str):
        name = archive_name_of(f)
        if not name:
            raise RuntimeError(f"[enforce fail at inline_container.cc:720] . invalid file name: {f}")
        parent = _parentdir(f)
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
        try:
            name.encode("ascii")
        except UnicodeEncodeError:
            name = "archive"
        with open(f, "wb") as fh:
            writer = ZipWriter(fh.write, name)
            _save_zip(obj, writer, pickle_protocol, _disable_byteorder_record)
            writer.end()
        return
    write = getattr(f, "write", None)
    if not callable(write):
        raise TypeError(f"Buffer of {str(type(f)).strip('<>')} has no callable attribute 'write'")
    writer = ZipWriter(write, "archive")
    _save_zip(obj, writer, pickle_protocol, _disable_byteorder_record)
    writer.end()
    if hasattr(f, "flush"):
        f.flush()

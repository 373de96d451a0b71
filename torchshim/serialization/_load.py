"""`torch.load`: PyTorch's zip checkpoints (and the pre-1.6 format) into torchshim objects, following
torch/serialization.py's `load`, `_load` and `_legacy_load` (PyTorch 2.13).
"""
import io
import mmap as _mmap
import os
import pickle
import re
import struct
import sys
import warnings

import numpy as np

from .. import _device as Dev
from . import _weights_only_unpickler
from . import _names
from . import _rebuild as R
from ._zip import ZipReader

__all__ = ["load"]

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source.")
DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


def _wo_message(message):
    """PyTorch's wrapping of a weights_only UnpicklingError (torch.load's `_get_wo_message`)."""
    has_unsafe_global = re.search(r"GLOBAL (\S+) was not an allowed global by default.", message) is not None
    has_blocklist = re.search(r"whose module (\S+) is blocked", message) is not None
    has_import = re.search(r"(\S+) must be (\S+) to load", message) is not None
    if has_unsafe_global:
        updated = ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                   "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                   f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please "
                   "check "
                   "the recommended steps in the following error message.\n\tWeightsUnpickler error: "
                   + message)
    else:
        if has_import:
            return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
        updated = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if not has_blocklist:
            updated += ("Please file an issue with the following so that we can make `weights_only=True` "
                        "compatible with your use case: WeightsUnpickler error: ")
        updated += "\n\n" + message
    return updated + DOCS_MESSAGE


def _maybe_decode_ascii(s):
    return s.decode("ascii") if isinstance(s, bytes) else s


# ---- where storages go -------------------------------------------------------------------------------------
def _validate_cuda(location):
    """PyTorch's `_validate_device(location, 'cuda')`: the torchshim cuda device, or its errors."""
    from .. import cuda
    if not cuda.is_available():
        raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                           "is "
                           "False. If you are running on a CPU-only machine, please use torch.load with "
                           "map_location=torch.device('cpu') to map your storages to the CPU.")
    d = Dev.device(location)
    index = cuda.current_device() if d.index is None else d.index
    count = cuda.device_count()
    if index >= count:
        raise RuntimeError(f"Attempting to deserialize object on CUDA device {index} but "
                           f"torch.cuda.device_count() is {count}. Please use torch.load with map_location "
                           "to map "
                           "your storages to an existing device.")
    return Dev.device("cuda", index)


def default_restore_location(storage, location):
    """`torch.serialization.default_restore_location(storage, location)`: `storage` moved to the device tag
    `location` ('cpu', 'cuda', 'cuda:1'); RuntimeError for tags torchshim can't place."""
    if isinstance(location, Dev.device):
        location = str(location)
    if location == "cpu":
        return storage.cpu()
    if location == "cuda" or re.match("cuda(:|[0-9]+)", location):
        return storage.to(device=_validate_cuda(location))
    if location == "meta":
        raise NotImplementedError("torchshim has no meta device")
    raise RuntimeError("don't know how to restore data location of torch.storage.UntypedStorage (tagged "
                       "with "
                       f"{location})")


def _get_restore_location(map_location):
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        return lambda storage, location: default_restore_location(storage,
                                                                  map_location.get(location, location))
    if isinstance(map_location, (str, bytes)):
        return lambda storage, location: default_restore_location(storage, map_location)
    if isinstance(map_location, Dev.device):
        return lambda storage, location: default_restore_location(storage, str(map_location))

    def restore_location(storage, location):
        result = map_location(storage, location)
        if result is None:
            result = default_restore_location(storage, location)
        return result
    return restore_location


def _check_restored(storage):
    if not isinstance(storage, R.LoadedStorage):
        raise TypeError(f"map_location must return a storage (or None), got {type(storage).__name__}")
    return storage


# ---- zip checkpoints -----------------------------------------------------------------------------------
def _load(zip_file, map_location, pickle_module, mm=None, **pickle_load_args):
    restore_location = _get_restore_location(map_location)
    loaded = {}
    if zip_file.has_record(".format_version"):
        zip_file.get_record(".format_version")
    byteorder = b"little"
    if zip_file.has_record("byteorder"):
        byteorder = zip_file.get_record("byteorder")
        if byteorder not in [b"little", b"big"]:
            raise ValueError("Unknown endianness type: " + byteorder.decode())
    byteswap = byteorder.decode() != sys.byteorder
    if zip_file.has_record(".storage_alignment"):
        int(zip_file.get_record(".storage_alignment"))

    def load_tensor(dtype, nbytes, key, location):
        name = f"data/{key}"
        if mm is not None:
            start, size = zip_file.get_record_offset(name), zip_file.record_size(name)
            data = np.frombuffer(mm, dtype=np.uint8, count=min(size, max(0, len(mm) - start)), offset=start)
        else:
            data = np.frombuffer(zip_file.get_record(name), dtype=np.uint8)
        if len(data) != nbytes:
            raise RuntimeError(f"record size ({len(data)} bytes) does not match expected size "
                               f"({nbytes} bytes = {nbytes} elements * 1 bytes/element) for dtype Byte")
        storage = _check_restored(restore_location(R.LoadedStorage(data), location))
        typed = R.TypedStorage(storage, dtype)
        loaded[key] = typed
        return typed

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _maybe_decode_ascii(saved_id[0])
        if typename != "storage":
            raise AssertionError("Unknown typename for persistent_load, expected 'storage' but got "
                                 f"'{typename}'")
        storage_type, key, location, numel = saved_id[1:]
        dtype = R.dtype_of("uint8") if storage_type is _names.UNTYPED_STORAGE else storage_type.dtype
        if key in loaded:
            typed = loaded[key]
            return typed if typed.dtype is dtype else R.TypedStorage(typed._untyped, dtype, root=typed)
        if isinstance(dtype, R.Unsupported):
            dtype()
        return load_tensor(dtype, numel * dtype.itemsize, key, _maybe_decode_ascii(location))

    data_file = io.BytesIO(zip_file.get_record("data.pkl"))
    unpickler = _unpickler(pickle_module, data_file, pickle_load_args)
    unpickler.persistent_load = persistent_load
    saved = R.enter_load(map_location, byteswap)
    try:
        result = unpickler.load()
        R.naturalize(loaded.values())
        zip_file.serialization_id.decode("utf-8")  # PyTorch logs it as a str: UnicodeDecodeError if corrupt
    finally:
        R.exit_load(saved)
    return result


def _unpickler(pickle_module, file, pickle_load_args):
    if pickle_module is _weights_only_unpickler:
        return _weights_only_unpickler.Unpickler(file, **pickle_load_args)

    class UnpicklerWrapper(pickle_module.Unpickler):
        def find_class(self, mod_name, name):
            if type(name) is str and "Storage" in name:
                try:
                    return R.StorageType(name)
                except KeyError:
                    pass
            found = _names.resolve(mod_name, name)
            return found if found is not None else super().find_class(mod_name, name)

    return UnpicklerWrapper(file, **pickle_load_args)


# ---- pre-1.6 checkpoints ------------------------------------------------------------------------------
def _legacy_load(f, map_location, pickle_module, **pickle_load_args):
    restore_location = _get_restore_location(map_location)
    deserialized = {}
    if _is_tarfile(f):
        raise NotImplementedError("torchshim cannot load the legacy .tar checkpoint format (PyTorch < 0.4)")

    def persistent_load(saved_id):
        if not isinstance(saved_id, tuple):
            raise AssertionError(f"saved_id must be a tuple, got {type(saved_id).__name__}")
        typename = _maybe_decode_ascii(saved_id[0])
        data = saved_id[1:]
        if typename == "module":
            return data[0]
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        storage_type, root_key, location, numel, view_metadata = data
        location = _maybe_decode_ascii(location)
        dtype = R.dtype_of("uint8") if storage_type is _names.UNTYPED_STORAGE else storage_type.dtype
        if isinstance(dtype, R.Unsupported):
            dtype()
        if root_key not in deserialized:
            empty = R.LoadedStorage(None, nbytes=numel * dtype.itemsize)
            storage = _check_restored(restore_location(empty, location))
            deserialized[root_key] = R.TypedStorage(storage, dtype)
        typed = deserialized[root_key]
        if view_metadata is not None:
            view_key, offset, view_size = view_metadata
            if view_key not in deserialized:
                deserialized[view_key] = R.TypedStorage(typed._untyped, dtype, offset=offset, root=typed)
            return deserialized[view_key]
        return typed

    magic_number = pickle_module.load(f, **pickle_load_args)
    if magic_number != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version = pickle_module.load(f, **pickle_load_args)
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol_version}")
    pickle_module.load(f, **pickle_load_args)  # sys_info
    unpickler = _unpickler(pickle_module, f, pickle_load_args)
    unpickler.persistent_load = persistent_load
    saved = R.enter_load(map_location, False)
    try:
        result = unpickler.load()
        _read_legacy_storages(f, pickle_module, pickle_load_args, deserialized)
        R.naturalize(deserialized.values())
    finally:
        R.exit_load(saved)
    return result


def _read_legacy_storages(f, pickle_module, pickle_load_args, deserialized):
    """The storages' bytes, after the pickle: int64 element count then the elements, for each key."""
    keys = pickle_module.load(f, **pickle_load_args)
    for key in keys:
        if key not in deserialized:
            raise AssertionError(f"storage key {key!r} not found in deserialized_objects")
        typed = deserialized[key]
        (numel,) = struct.unpack("<q", f.read(8))
        nbytes = numel * typed.dtype.itemsize
        raw = f.read(nbytes)
        if numel != typed.nbytes() // typed.dtype.itemsize or len(raw) != nbytes:
            raise RuntimeError("storage has wrong size: expected %d got %d" %
                               (typed.nbytes() // typed.dtype.itemsize, numel))
        untyped = typed._untyped
        typed.fill(R.LoadedStorage(np.frombuffer(raw, np.uint8), untyped.device, nbytes))


def _is_tarfile(f):
    """Whether `f` (at its start, backed by a real file) is the legacy tar format PyTorch tries first."""
    try:
        if f.fileno() < 0 or f.tell() != 0:
            return False
    except (AttributeError, io.UnsupportedOperation):
        return False
    head = f.read(512)
    f.seek(0)
    return len(head) == 512 and head[257:262] == b"ustar"


# ---- torch.load ------------------------------------------------------------------------------------------
def _is_path(f):
    return isinstance(f, (str, os.PathLike))


def _check_seekable(f):
    try:
        f.seek(f.tell())
        return True
    except (io.UnsupportedOperation, AttributeError) as e:
        for p in ("seek", "tell"):
            if p in str(e):
                raise type(e)(str(e) + ". You can only torch.load from a file that is seekable. Please "
                                       "pre-load "
                              "the data into a buffer like io.BytesIO and try to load from it "
                              "instead.") from None
        raise


def _is_zipfile(f):
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


def _load_safetensors(path, map_location):
    device = "cpu"
    if map_location is not None:
        if isinstance(map_location, (str, bytes, Dev.device)):
            device = str(map_location)
        elif isinstance(map_location, dict):
            raise RuntimeError("Loading safetensors file with dict map_location is not supported. Use a "
                               "device "
                               "string or torch.device instead.")
        elif callable(map_location):
            raise RuntimeError("Loading safetensors file with callable map_location is not supported. Use a "
                               "device string or torch.device instead.")
    try:
        import safetensors.numpy  # noqa: F401
    except ImportError as e:
        raise RuntimeError("Attempting to load a safetensors file but safetensors is not installed. Please "
                           "install safetensors with: pip install safetensors") from e
    from ..ops.tensor_data import from_numpy
    arrays = safetensors.numpy.load_file(path)
    return {k: from_numpy(v).to(device) for k, v in arrays.items()}


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """load(f, map_location=None, pickle_module=pickle, *, weights_only=True, mmap=None, **pickle_load_args)

    `torch.load`: reads a checkpoint written by `torch.save` (real PyTorch's or torchshim's, zip or pre-1.6
    format) from a path or a seekable binary file object, into torchshim tensors. `map_location` (a device,
    a device string, a dict of location tags, or a callable `(storage, location) -> storage | None`) moves
    storages; `weights_only=True` (the default) uses PyTorch's restricted unpickler
    (`torchshim.serialization._weights_only_unpickler`), so an untrusted file can't run code: anything
    outside the allowlist (extend it with `torch.serialization.add_safe_globals`) raises
    `pickle.UnpicklingError` with PyTorch's message. `weights_only=False` unpickles anything, mapping
    `torch.*` globals to torchshim's.

    Differences from PyTorch: storages are copied into jax arrays (with `mmap=True` the file is mapped, which
    saves one copy); callables given as `map_location` receive a `LoadedStorage`; TorchScript archives, the
    pre-0.4 tar format, quantized/sparse/nested tensors and the meta device are not supported.

    >>> state = torchshim.load("model.pt", map_location="cpu")
    """
    weights_only_not_set = weights_only is None
    if weights_only_not_set:
        weights_only = pickle_module is None
    true_values = ["1", "y", "yes", "true"]
    force_wo = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no_wo = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_wo and force_no_wo:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    elif force_wo:
        weights_only = True
    elif force_no_wo and weights_only_not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since "
                      "the`weights_only` "
                      "argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
                      UserWarning, stacklevel=2)
        weights_only = False
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args != {} and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    mmap = bool(mmap)
    if "encoding" not in pickle_load_args:
        pickle_load_args["encoding"] = "utf-8"
    if _is_path(f) and os.fspath(f).endswith(".safetensors"):
        return _load_safetensors(os.fspath(f), map_location)
    unpickler_module = _weights_only_unpickler if weights_only else pickle_module
    if _is_path(f):
        with open(f, "rb") as opened:
            return _load_opened(opened, f, map_location, unpickler_module, weights_only, mmap,
                                pickle_load_args)
    _check_seekable(f)
    return _load_opened(f, f, map_location, unpickler_module, weights_only, mmap, pickle_load_args)


def _load_opened(opened, f, map_location, pickle_module, weights_only, mmap, pickle_load_args):
    try:
        if _is_zipfile(opened):
            zip_file = ZipReader(opened)
            if "constants.pkl" in zip_file.get_all_records():
                warnings.warn("'torch.load' received a zip file that looks like a TorchScript archive "
                              "dispatching "
                              "to 'torch.jit.load' (call 'torch.jit.load' directly to silence this warning)",
                              UserWarning, stacklevel=3)
                if weights_only:
                    raise RuntimeError("Cannot use ``weights_only=True`` with TorchScript archives passed to "
                                       "``torch.load``. " + UNSAFE_MESSAGE)
                raise NotImplementedError("torchshim cannot load TorchScript archives")
            mm = None
            if mmap:
                if not _is_path(f):
                    raise ValueError("f must be a file path in order to use the mmap argument")
                mm = _mmap.mmap(opened.fileno(), 0, access=_mmap.ACCESS_READ)
            return _load(zip_file, map_location, pickle_module, mm, **pickle_load_args)
        if mmap:
            f_name = "" if not isinstance(f, str) else f"{f}, "
            raise RuntimeError("mmap can only be used with files saved with "
                               f"`torch.save({f_name}_use_new_zipfile_serialization=True), "
                               "please torch.save your checkpoint with this option in order to use mmap.")
        return _legacy_load(opened, map_location, pickle_module, **pickle_load_args)
    except pickle.UnpicklingError as e:
        if weights_only:
            raise pickle.UnpicklingError(_wo_message(str(e))) from None
        raise

"""PyTorch's restricted unpickler for `torch.load(weights_only=True)`, ported from
torch/_weights_only_unpickler.py (PyTorch 2.13) with torchshim objects behind the allowed names.

Only the opcodes a state dict needs are interpreted; GLOBAL resolves names through a fixed allowlist (tensor
rebuild functions, storages, dtypes, `torch.Size`, `torch.device`, `collections.OrderedDict`, ...; see
`torchshim.serialization._names.allowed_globals`) plus what the user added with
`torch.serialization.add_safe_globals`; modules `sys`, `os`, `posix` and `nt` are refused outright. REDUCE,
NEWOBJ and BUILD only act on allowed objects, so loading an untrusted file runs no code outside that set.

Difference from PyTorch: a torchshim class added with `add_safe_globals` (say `torchshim.nn.Linear`) is also
allowed under its PyTorch name (`torch.nn.modules.linear.Linear`), so files written by PyTorch find it.
"""
import warnings
from _codecs import encode  # noqa: F401  (allowlisted as _codecs.encode)
from collections import Counter, OrderedDict
from pickle import (APPEND, APPENDS, BINFLOAT, BINGET, BININT, BININT1, BININT2, BINPERSID, BINPUT,
                    BINUNICODE,
                    BUILD, EMPTY_DICT, EMPTY_LIST, EMPTY_SET, EMPTY_TUPLE, GLOBAL, LONG1, LONG_BINGET,
                    LONG_BINPUT, MARK, NEWFALSE, NEWOBJ, NEWTRUE, NONE, PROTO, REDUCE, SETITEM, SETITEMS,
                    SHORT_BINSTRING, STOP, TUPLE, TUPLE1, TUPLE2, TUPLE3, UnpicklingError, bytes_types,
                    decode_long)
from struct import unpack
from sys import maxsize

__all__ = ["Unpickler", "load", "get_globals_in_pkl"]

# modules in this list are never allowed, even if the user attempts to allowlist functions/classes from them
_blocklisted_modules = ["sys", "os", "posix", "nt"]

_marked_safe_globals_set = set()

# Python 2 names (torch._utils.IMPORT_MAPPING / NAME_MAPPING, adapted from _compat_pickle)
IMPORT_MAPPING = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
    "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}
NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"), ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"), ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"), ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"), ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"),
    ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"), ("UserList", "UserList"):
    ("collections", "UserList"), ("UserString", "UserString"): ("collections", "UserString"),
    ("__builtin__", "basestring"): ("builtins", "str"), ("exceptions", "StandardError"):
    ("builtins", "Exception"), ("UserDict", "UserDict"): ("collections", "UserDict"),
}


def _add_safe_globals(safe_globals):
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set.union(set(safe_globals))


def _get_safe_globals():
    return list(_marked_safe_globals_set)


def _clear_safe_globals():
    global _marked_safe_globals_set
    _marked_safe_globals_set = set()


def _remove_safe_globals(globals_to_remove):
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set - set(globals_to_remove)


class _safe_globals:
    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        _add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _remove_safe_globals(self.safe_globals)


def _get_user_allowed_globals():
    from ._names import torch_name
    rc = {}
    for f in _marked_safe_globals_set:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full path), but got "
                                 "tuple "
                                 f"of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                                f"{type(f[1])}")
            f, name = f
            rc[name] = f
        else:
            module, name = f.__module__, f.__qualname__
            rc[f"{module}.{name}"] = f
            mapped = torch_name(f)
            if mapped is not None:
                rc[".".join(mapped)] = f
    return rc


def _get_allowed_globals():
    from ._names import allowed_globals
    return allowed_globals()


def _parameter():
    from ..nn.parameter import Parameter
    return Parameter


def _tensor():
    from .._tensor import Tensor
    return Tensor


def _tensor_setstate(inst, state):
    """`Tensor.__setstate__` (what BUILD does for a Tensor/Parameter): only (requires_grad, _, hooks)."""
    if len(state) in (4, 5):
        raise NotImplementedError("torchshim cannot load the legacy (pre-0.4) tensor pickle format")
    inst.requires_grad = state[0]


def _read_global_instruction(readline):
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    # Patch since torch.save default protocol is 2; users will be running this code in python > 3
    if (module, name) in NAME_MAPPING:
        module, name = NAME_MAPPING[(module, name)]
    elif module in IMPORT_MAPPING:
        module = IMPORT_MAPPING[module]
    return module, name


_SKIP = {op[0]: n for op, n in (
    (NEWOBJ, 0), (REDUCE, 0), (BUILD, 0), (APPEND, 0), (APPENDS, 0), (SETITEM, 0), (SETITEMS, 0), (MARK, 0),
    (TUPLE, 0), (TUPLE1, 0), (TUPLE2, 0), (TUPLE3, 0), (NONE, 0), (NEWFALSE, 0), (NEWTRUE, 0),
    (EMPTY_TUPLE, 0),
    (EMPTY_LIST, 0), (EMPTY_DICT, 0), (EMPTY_SET, 0), (BINPERSID, 0), (BININT, 4), (BININT1, 1), (BININT2, 2),
    (BINFLOAT, 8), (BINGET, 1), (LONG_BINGET, 4), (BINPUT, 1), (LONG_BINPUT, 4))}


def get_globals_in_pkl(file):
    """The `module.name` of every GLOBAL in a pickle, found statically (nothing is loaded)."""
    globals_in_checkpoint = set()
    read, readline = file.read, file.readline
    while True:
        key = read(1)
        if not key:
            raise EOFError
        if not isinstance(key, bytes_types):
            raise AssertionError(f"Expected bytes, got {type(key).__name__}")
        if key[0] == GLOBAL[0]:
            module, name = _read_global_instruction(readline)
            globals_in_checkpoint.add(f"{module}.{name}")
        elif key[0] in _SKIP:
            if _SKIP[key[0]]:
                read(_SKIP[key[0]])
        elif key[0] == BINUNICODE[0]:
            strlen = unpack("<I", read(4))[0]
            if strlen > maxsize:
                raise UnpicklingError("String is too long")
            read(strlen)
        elif key[0] in {SHORT_BINSTRING[0], LONG1[0]}:
            read(read(1)[0])
        elif key[0] == PROTO[0]:
            read(1)
        elif key[0] == STOP[0]:
            return globals_in_checkpoint
        else:
            raise UnpicklingError(f"Unsupported operand {key[0]}")


_NJT = ["torch.nested._internal.nested_tensor.NestedTensor",
        "torch.nested._internal.nested_tensor._rebuild_njt",
        "torch._dynamo.decorators._DimRange"]
_DTENSOR = ["torch.distributed.device_mesh.DeviceMesh", "torch.distributed.tensor._dtensor_spec.DTensorSpec",
            "torch.distributed.tensor._dtensor_spec.TensorMeta", "torch.distributed.tensor.DTensor",
            "torch.distributed.tensor.placement_types.Partial",
            "torch.distributed.tensor.placement_types.Replicate",
            "torch.distributed.tensor.placement_types.Shard"]


class Unpickler:
    """The weights-only unpickler: `Unpickler(file, encoding="bytes").load()`; set `persistent_load` to
    resolve storage ids."""

    def __init__(self, file, *, encoding="bytes"):
        self.encoding = encoding
        self.readline = file.readline
        self.read = file.read
        self.memo = {}
        self.proto = -1

    def _global(self, readline):
        module, name = _read_global_instruction(readline)
        full_path = f"{module}.{name}"
        if module in _blocklisted_modules:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module {module} is "
                                  "blocked.")
        allowed = _get_allowed_globals()
        if full_path in allowed:
            return allowed[full_path]
        user = self._user
        if full_path in user:
            return user[full_path]
        if full_path in _NJT:
            raise UnpicklingError("``torch.nested`` and ``torch._dynamo`` must be imported to load nested "
                                  "jagged "
                                  "tensors (NJTs)")
        if full_path in _DTENSOR:
            raise UnpicklingError("``torch.distributed.tensor`` must be imported to load DTensors")
        builtins_name = "builtins"
        if builtins_name in full_path and builtins_name == full_path[:len(builtins_name)]:
            full_path = full_path[len(builtins_name):]
            full_path = (full_path[1:] if len(full_path) > 0 and full_path[0] == "."
                         else builtins_name + full_path)
        raise UnpicklingError(
            f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
            "if you trust this class/function.")

    def _allowed_value(self, obj):
        return id(obj) in self._allowed_ids

    def load(self):
        """Read a pickled object representation from the open file; return the reconstituted object."""
        self._user = _get_user_allowed_globals()
        self._allowed_ids = {id(v) for v in _get_allowed_globals().values()} | {id(v) for v in
                                                                                  self._user.values()}
        self.metastack = []
        self.stack = []
        self.append = self.stack.append
        read = self.read
        while True:
            key = read(1)
            if not key:
                raise EOFError
            if not isinstance(key, bytes_types):
                raise AssertionError(f"Expected bytes, got {type(key).__name__}")
            op = key[0]
            # Risky operators
            if op == GLOBAL[0]:
                self.append(self._global(self.readline))
            elif op == NEWOBJ[0]:
                args = self.stack.pop()
                cls = self.stack.pop()
                if cls is _parameter():
                    self.append(cls(*args))
                elif self._allowed_value(cls):
                    self.append(cls.__new__(cls, *args))
                else:
                    raise UnpicklingError("Can only create new object for nn.Parameter or classes "
                                          "allowlisted "
                                          f"via `add_safe_globals` but got {cls}")
            elif op == REDUCE[0]:
                args = self.stack.pop()
                func = self.stack[-1]
                if not self._allowed_value(func):
                    error_msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        error_msg += f" which belongs to {func.__self__}"
                    raise UnpicklingError(error_msg)
                self.stack[-1] = func(*args)
            elif op == BUILD[0]:
                state = self.stack.pop()
                inst = self.stack[-1]
                if type(inst) is _tensor() or type(inst) is _parameter():
                    _tensor_setstate(inst, state)
                elif type(inst) is OrderedDict:
                    inst.__dict__.update(state)
                elif self._allowed_value(type(inst)):
                    if hasattr(inst, "__setstate__"):
                        inst.__setstate__(state)
                    else:
                        # mimics load_build in pickle
                        slotstate = None
                        if isinstance(state, tuple) and len(state) == 2:
                            state, slotstate = state
                        if state:
                            inst.__dict__.update(state)
                        if slotstate:
                            for k, v in slotstate.items():
                                setattr(inst, k, v)
                else:
                    raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                          "allowlisted "
                                          f"via `add_safe_globals`, but got {type(inst)}")
            # Stack manipulation
            elif op == APPEND[0]:
                item = self.stack.pop()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(list_obj)}")
                list_obj.append(item)
            elif op == APPENDS[0]:
                items = self.pop_mark()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only extend lists, but got {type(list_obj)}")
                list_obj.extend(items)
            elif op == SETITEM[0]:
                (v, k) = (self.stack.pop(), self.stack.pop())
                self._check_set_item_target("SETITEM")
                self.stack[-1][k] = v
            elif op == SETITEMS[0]:
                items = self.pop_mark()
                self._check_set_item_target("SETITEMS")
                for i in range(0, len(items), 2):
                    self.stack[-1][items[i]] = items[i + 1]
            elif op == MARK[0]:
                self.metastack.append(self.stack)
                self.stack = []
                self.append = self.stack.append
            elif op == TUPLE[0]:
                items = self.pop_mark()
                self.append(tuple(items))
            elif op == TUPLE1[0]:
                self.stack[-1] = (self.stack[-1],)
            elif op == TUPLE2[0]:
                self.stack[-2:] = [(self.stack[-2], self.stack[-1])]
            elif op == TUPLE3[0]:
                self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]
            # Basic types construction
            elif op == NONE[0]:
                self.append(None)
            elif op == NEWFALSE[0]:
                self.append(False)
            elif op == NEWTRUE[0]:
                self.append(True)
            elif op == EMPTY_TUPLE[0]:
                self.append(())
            elif op == EMPTY_LIST[0]:
                self.append([])
            elif op == EMPTY_DICT[0]:
                self.append({})
            elif op == EMPTY_SET[0]:
                self.append(set())
            elif op == BININT[0]:
                self.append(unpack("<i", read(4))[0])
            elif op == BININT1[0]:
                self.append(self.read(1)[0])
            elif op == BININT2[0]:
                self.append(unpack("<H", read(2))[0])
            elif op == BINFLOAT[0]:
                self.append(unpack(">d", self.read(8))[0])
            elif op == BINUNICODE[0]:
                strlen = unpack("<I", read(4))[0]
                if strlen > maxsize:
                    raise UnpicklingError("String is too long")
                self.append(str(read(strlen), "utf-8", "surrogatepass"))
            elif op == SHORT_BINSTRING[0]:
                strlen = read(1)[0]
                strdata = read(strlen)
                if self.encoding != "bytes":
                    strdata = strdata.decode(self.encoding, "strict")
                self.append(strdata)
            elif op == BINPERSID[0]:
                pid = self.stack.pop()
                # Only allow persistent load of storage
                if type(pid) is not tuple and type(pid) is not int:
                    raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
                if type(pid) is tuple and len(pid) > 0 and _maybe_decode_ascii(pid[0]) != "storage":
                    raise UnpicklingError("Only persistent_load of storage is allowed, but got "
                                          f"{type(pid[0])}")
                self.append(self.persistent_load(pid))
            elif op in (BINGET[0], LONG_BINGET[0]):
                idx = (read(1) if op == BINGET[0] else unpack("<I", read(4)))[0]
                self.append(self.memo[idx])
            elif op in (BINPUT[0], LONG_BINPUT[0]):
                i = (read(1) if op == BINPUT[0] else unpack("<I", read(4)))[0]
                if i < 0:
                    raise ValueError("negative argument")
                self.memo[i] = self.stack[-1]
            elif op == LONG1[0]:
                n = read(1)[0]
                self.append(decode_long(read(n)))
            # First and last deserializer ops
            elif op == PROTO[0]:
                self.proto = read(1)[0]
                if self.proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {self.proto} in the checkpoint, which was not the default "
                        "pickle protocol used by `torch.load` (2). The weights_only Unpickler might not "
                        "support "
                        "all instructions implemented by this protocol, please file an issue for adding "
                        "support "
                        "if you encounter this.", stacklevel=2)
            elif op == STOP[0]:
                return self.stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {op}")

    def pop_mark(self):
        """The items pushed on the stack after the last MARK."""
        items = self.stack
        self.stack = self.metastack.pop()
        self.append = self.stack.append
        return items

    def _check_set_item_target(self, opcode):
        if type(self.stack[-1]) not in [dict, OrderedDict, Counter]:
            raise UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                                  "collections.Counter, but "
                                  f"got {type(self.stack[-1])}")

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")


def _maybe_decode_ascii(bytes_str):
    return bytes_str.decode("ascii") if isinstance(bytes_str, bytes) else bytes_str


def load(file, *, encoding="ASCII"):
    """`pickle.load` with the weights-only restrictions."""
    return Unpickler(file, encoding=encoding).load()

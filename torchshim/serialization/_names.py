"""The two-way map between PyTorch's global names (as a pickle writes them: `torch._utils._rebuild_tensor_v2`,
`torch.FloatStorage`, `torch.nn.modules.linear.Linear`) and torchshim's objects.

Saving: `torch_name(obj)` gives the (module, name) a torchshim class or function is written under, so files
load in real PyTorch; `TorchName` stand-ins write names of PyTorch objects torchshim does not have.
Loading: `allowed_globals()` is PyTorch's weights_only allowlist with torchshim objects as values;
`resolve(module, name)` finds the torchshim equivalent of any `torch.*` global (weights_only=False).
"""
import functools
import importlib
import sys

from .. import _dtype as D
from . import _rebuild as R

__all__ = ["TorchName", "torch_name", "allowed_globals", "resolve", "G"]


class TorchName:
    """A stand-in written to a pickle as `GLOBAL module name` (one object per name, so the pickler's memo
    writes each name once, as PyTorch's files do)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.module}.{self.name} is a name written into checkpoints, not callable here")

    def __repr__(self):
        return f"<torch global {self.module}.{self.name}>"


@functools.lru_cache(maxsize=None)
def G(module, name):
    """The TorchName for `module.name` (cached: the same object every time)."""
    return TorchName(module, name)


@functools.lru_cache(maxsize=None)
def _top_level():
    """id -> name of the torchshim objects PyTorch pickles as `torch.<name>` (Tensor, Size, device, ...)."""
    from .. import _api as torchshim
    from .. import _layout
    from ..ops import legacy_types as _legacy
    out = {}
    for name in ("Tensor", "Size", "device", "dtype", "Generator", "layout", "memory_format", "finfo",
                 "iinfo"):
        obj = getattr(torchshim, name, None)
        if obj is not None:
            out[id(obj)] = name
    for name in _legacy.__all__:
        out[id(getattr(_legacy, name))] = name
    out[id(_layout.layout)] = "layout"
    return out


def torch_name(obj, name=None):
    """(module, qualname) PyTorch would pickle torchshim class/function `obj` under, or None when `obj` is not
    torchshim's (the pickler then writes it as usual). Objects of `torchshim` itself are `torch.<name>`;
    others keep their module path with `torchshim` renamed `torch`, without private trailing modules (and
    the submodules of torchshim's `nn.functional` package) when the parent exports the object
    (`torchshim.nn.functional.activation.relu` -> `torch.nn.functional.relu`)."""
    top = _top_level().get(id(obj))
    if top is not None:
        return "torch", top
    module = getattr(obj, "__module__", None) or ""
    if module != "torchshim" and not module.startswith("torchshim."):
        return None
    qualname = name or getattr(obj, "__qualname__", None) or obj.__name__
    from .. import _api as torchshim
    if "." not in qualname and getattr(torchshim, qualname, None) is obj:
        return "torch", qualname
    parts = module.split(".")
    while len(parts) > 2 and (parts[-1].startswith("_") or ".".join(parts[:-1]) == "torchshim.nn.functional"):
        parent = sys.modules.get(".".join(parts[:-1]))
        if getattr(parent, qualname, None) is not obj:
            break
        parts.pop()
    if (parts[1:2] == ["ops"] or any(p.startswith("_") for p in parts)) and "." not in qualname:  # op table
        for public in _PUBLIC_MODULES:
            if getattr(sys.modules.get(public), qualname, None) is obj:
                return "torch" + public[len("torchshim"):], qualname
    mapped = "torch" + ".".join(parts)[len("torchshim"):]
    return _MOVED.get((mapped, qualname), (mapped, qualname))


# classes torchshim defines in another module than PyTorch does
_MOVED = {("torch.nn.modules.attention", "MultiheadAttention"):
          ("torch.nn.modules.activation", "MultiheadAttention")}
_PUBLIC_MODULES = ("torchshim", "torchshim.nn.functional", "torchshim.linalg", "torchshim.special",
                   "torchshim.fft")


# ---- loading ------------------------------------------------------------------------------------------
_PYTORCH_DTYPES = (
    "bfloat16 bits16 bits1x8 bits2x4 bits4x2 bits8 bool complex128 complex32 complex64 float16 float32 "
    "float4_e2m1fn_x2 float64 float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu int16 "
    "int32 int64 int8 qint32 qint8 quint2x4 quint4x2 quint8 uint16 uint32 uint64 uint8").split() + \
    [f"int{i}" for i in range(1, 8)] + [f"uint{i}" for i in range(1, 8)]
_TENSOR_CLASSES = "BFloat16 Bool Byte Char Double Float Half Int Long Short".split()
_SPARSE_CLASSES = "BFloat16 Byte Char Double Float Half Int Long Short".split()
_QSCHEMES = ("per_tensor_affine", "per_tensor_symmetric", "per_channel_affine", "per_channel_symmetric",
             "per_channel_affine_float_qparams")


@functools.lru_cache(maxsize=None)
def allowed_globals():
    """PyTorch 2.13's weights_only allowlist (`_weights_only_unpickler._get_allowed_globals`): full name ->
    the torchshim object (or an `Unsupported` stand-in) the unpickler pushes for it."""
    import collections
    from _codecs import encode

    from .. import _api as torchshim
    from .. import cuda as C
    from ..ops.legacy_types import __all__ as legacy
    from ..nn.parameter import Parameter
    rc = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": R._get_layout,
        "torch.Size": torchshim.Size,
        "torch.Tensor": torchshim.Tensor,
        "torch.device": torchshim.device,
        "_codecs.encode": encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
    }
    for name in _PYTORCH_DTYPES:
        rc["torch." + name] = R.dtype_of(name)
    for kind in _TENSOR_CLASSES:
        name = kind + "Tensor"
        rc["torch." + name] = getattr(torchshim, name) if name in legacy else R.Unsupported("torch." + name)
        rc["torch.cuda." + name] = getattr(C, name, None) or R.Unsupported("torch.cuda." + name)
    for kind in _SPARSE_CLASSES:
        for prefix in ("torch.sparse.", "torch.cuda.sparse."):
            rc[prefix + kind + "Tensor"] = R.Unsupported(prefix + kind + "Tensor")
    for name in R.STORAGE_DTYPES:
        rc["torch." + name] = R.StorageType(name)
        if not name.startswith("Q"):
            rc["torch.cuda." + name] = R.StorageType(name)
    rc["torch.storage.TypedStorage"] = TYPED_STORAGE
    rc["torch.storage.UntypedStorage"] = UNTYPED_STORAGE
    for q in _QSCHEMES:
        rc["torch." + q] = R.Unsupported("torch." + q)
    for name, fn in R.REBUILDS.items():
        rc["torch._utils." + name] = fn
    rc["torch._tensor._rebuild_from_type_v2"] = R._rebuild_from_type_v2
    return rc


TYPED_STORAGE = R.UntypedStorageClass("torch.storage.TypedStorage")
UNTYPED_STORAGE = R.UntypedStorageClass("torch.storage.UntypedStorage")


# PyTorch modules a pickle names that torchshim has no module for
_TORCH_MODULES = {"torch._utils", "torch._tensor", "torch.serialization", "torch.storage", "torch.sparse",
                  "torch._C", "torch._C._nn", "torch._C._VariableFunctions", "torch._C._special",
                  "torch._C._linalg", "torch._C._fft"}


def _lookup(module_name, qualname):
    """getattr chain `qualname` on module `module_name`, or None."""
    try:
        obj = importlib.import_module(module_name)
    except ImportError:
        return None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def resolve(module, name):
    """The torchshim object for pickle global `module.name` (weights_only=False loading): PyTorch's
    allowlisted names first, then `torchshim.<rest of module>`, then its parent packages (so
    `torch.nn.modules.linear.Linear` finds `torchshim.nn.Linear` wherever torchshim defines it). Names
    outside `torch` are imported as pickle does."""
    if module == "torch.tensor":
        module = "torch._tensor"
    full = f"{module}.{name}"
    known = allowed_globals().get(full)
    if known is not None:
        return known
    if module == "torch._tensor" and name == "Tensor":
        return allowed_globals()["torch.Tensor"]
    if module != "torch" and not module.startswith("torch."):
        return None
    if module == "torch" and name in D.PUBLIC:
        return D.PUBLIC[name]
    shim_module = "torchshim" + module[len("torch"):]
    try:
        importlib.import_module(shim_module)
        exists = True
    except ImportError:
        exists = False
    parts = shim_module.split(".")
    while parts:
        obj = _lookup(".".join(parts), name)
        if obj is not None:
            return obj
        parts.pop()
    for public in _PUBLIC_MODULES:  # PyTorch's C functions (torch._C._nn.gelu, ...) by their public names
        obj = _lookup(public, name)
        if obj is not None:
            return obj
    if not exists and module not in _TORCH_MODULES:
        raise ModuleNotFoundError(f"No module named {module!r}")
    raise AttributeError(f"Can't get attribute {name!r} on <module {module!r}>")

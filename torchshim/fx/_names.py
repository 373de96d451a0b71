"""Names in torch.fx: the qualified name of a call target as PyTorch prints it (`torch.relu`,
`torch.nn.functional.relu`, `operator.add`, `builtins.getattr`, `__main__.my_fn`), and the namespace that
gives Nodes and generated-code globals unique, legal Python names (`sum` -> `sum_1`, `seq.0` -> `seq_0`).

torchshim's functions are named as PyTorch's (`torchshim.relu` prints as `torch.relu`), so graph printouts
and generated code read as under PyTorch.
"""
import builtins
import keyword
import re
from collections import defaultdict

__all__ = ["qualified_name", "snake_case", "Namespace", "torch_name", "type_repr"]

_ILLEGAL_CHARS = re.compile("[^0-9a-zA-Z_]+")
_SUFFIX = re.compile(r"(.*)_(\d+)$")
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])|(?<=[A-Z])([A-Z])(?=[a-z])")
# names the generated code's globals reserve (PyTorch's set)
CUSTOM_BUILTINS = ("inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree")

_TORCH_NAMES = None  # id(function) -> "torch.<name>" for torchshim's public functions


def _public_names(refresh=False):
    global _TORCH_NAMES
    if _TORCH_NAMES is None or refresh:
        from .. import _api
        from ..nn import functional as F
        names = {}
        for n, v in vars(F).items():
            if callable(v) and not n.startswith("__") and not isinstance(v, type):
                names.setdefault(id(v), "torch.nn.functional." + n)
        from ..ops._registry import OPS
        # an op's own name before its aliases: torch.cat, not torch.concatenate
        primary = {id(getattr(_api, n)): "torch." + n for n in OPS if hasattr(_api, n)}
        for n, v in vars(_api).items():
            if callable(v) and not n.startswith("__") and not isinstance(v, type):
                names[id(v)] = primary.get(id(v), "torch." + n)
        for n in ("Tensor", "Size", "dtype", "device", "Generator", "layout", "memory_format"):
            names.setdefault(id(getattr(_api, n)), "torch." + n)  # type annotations print as PyTorch's
        outer = {}
        for ns in (vars(F), vars(_api)):
            for v in ns.values():
                if id(v) in names:
                    inner = getattr(v, "__wrapped__", None)
                    while inner is not None:  # a wrapper's inner function stands for the public one
                        outer.setdefault(id(inner), v)
                        inner = getattr(inner, "__wrapped__", None)
        _OUTER.clear()
        _OUTER.update(outer)
        _TORCH_NAMES = names
    return _TORCH_NAMES


_OUTER = {}  # id(inner function) -> the public function wrapping it


def public_function(fn):
    """The public torchshim function that `fn` is the inner part of (`fn` itself otherwise): what a
    `__torch_function__` override receives may be an inner layer when the public function is wrapped again
    (autocast)."""
    if id(fn) in _public_names():
        return fn
    out = _OUTER.get(id(fn))
    if out is None and (getattr(fn, "__module__", None) or "").startswith("torchshim"):
        _public_names(refresh=True)
        out = _OUTER.get(id(fn))
    return fn if out is None else out


def torch_name(obj):
    """`torch.<name>` / `torch.nn.functional.<name>` when `obj` is one of torchshim's public functions."""
    name = _public_names().get(id(obj))
    if name is None and (getattr(obj, "__module__", None) or "").startswith("torchshim"):
        name = _public_names(refresh=True).get(id(obj))  # a public function rebound since the last look
    return name


def type_repr(t):
    """A type annotation as fx prints it (`torch.Tensor`, `int`, `mymodule.Foo`)."""
    if isinstance(t, type):
        name = torch_name(t)
        if name is not None:
            return name
        if t.__module__ == "builtins":
            return t.__qualname__
        return f"{t.__module__}.{t.__qualname__}"
    if t is Ellipsis:
        return "..."
    return repr(t)


def qualified_name(func):
    """`module.name` of a call target, as PyTorch's fx prints it."""
    if getattr(builtins, getattr(func, "__name__", ""), None) is func:
        return "builtins." + func.__name__
    from ..ops._namespace import OpOverload, OpOverloadPacket
    if isinstance(func, (OpOverload, OpOverloadPacket)):  # torch.ops.aten.relu.default, as PyTorch
        return "torch.ops." + str(func)
    name = torch_name(func)
    if name is not None:
        return name
    module = getattr(func, "__module__", None) or ""
    fname = getattr(func, "__name__", None) or type(func).__name__
    if module == "_operator":
        module = "operator"
    if isinstance(func, type):
        fname = func.__qualname__
    if module == "torchshim" or module.startswith("torchshim."):
        module = "torch" + module[len("torchshim"):]
    return f"{module}.{fname}" if module else fname


def snake_case(s):
    """`CamelCase` -> `camel_case` (fx's node-name hint for a class target)."""
    return _CAMEL.sub(lambda m: "_" + (m.group(1) or m.group(2)), s).lower()


class Namespace:
    """Unique legal Python names: `create_name(candidate, obj)` returns the same name for the same `obj`."""

    def __init__(self):
        self._obj_to_name = {}
        self._used = set()
        self._base_count = defaultdict(int)

    def create_name(self, candidate, obj):
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)][0]
        candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = "_" + candidate
        m = _SUFFIX.match(candidate)
        base, num = (m.group(1), int(m.group(2))) if m else (candidate, None)
        candidate = base if num is None else f"{base}_{num}"
        if not num:
            num = self._base_count[base]
        while candidate in self._used or self._illegal(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = (candidate, obj)  # obj kept alive so its id stays unique
        return candidate

    def associate_name_with_obj(self, name, obj):
        """Make `name` the name of `obj`."""
        self._obj_to_name[id(obj)] = (name, obj)

    def _rename_object(self, obj, name):
        self._obj_to_name[id(obj)] = (name, obj)

    def _illegal(self, name, obj):
        if name in keyword.kwlist:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        return name in CUSTOM_BUILTINS

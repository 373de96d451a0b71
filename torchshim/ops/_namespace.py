"""`torch.ops` as users see it: `torch.ops.<namespace>.<op>` (an `OpOverloadPacket`) and
`torch.ops.<namespace>.<op>.<overload>` (an `OpOverload`), reached as attributes of the package
`torchshim.ops` (its module `__getattr__`, ops/__init__.py; the package's own submodules keep their names).

- `torch.ops.aten.<name>` is torchshim's function `torch.<name>` (or the Tensor method, for `add_`, `to`,
  `detach`), with PyTorch's overload names for common ops (`aten.add.Tensor`, `aten.sum.dim_IntList`) and
  `default` otherwise.
- Other namespaces hold the ops defined with `torch.library` (custom ops, `Library.define`) and by torchshim
  itself (`torch.ops.profiler._record_function_enter`, torchshim/profiler/_ops.py): `define(schema, call)`.
- Calls go through the `__torch_function__` protocol with the packet / overload as the function, so torch.fx
  records `torch.ops.aten.relu.default` as the node's target, as PyTorch does.

Differences from PyTorch: aten ops call torchshim's public function (its argument handling, not the aten
schema's), have no `_schema`, and have only the tensor overloads listed in `_ATEN_OVERLOADS` (plus `default`);
namespaces named as one of this package's modules (`torch.ops.linalg`, `torch.ops.random`, ...) are those
modules.
"""
import threading

from ._override import NO_OVERRIDE, _TYPES, dispatch

__all__ = ["OpOverload", "OpOverloadPacket", "OpNamespace", "namespace", "define", "undefine", "lookup"]

_DEFS = {}  # namespace -> {op name -> OpOverloadPacket}
_NAMESPACES = {}
_ATEN = {}  # name -> OpOverloadPacket, made on first access
_LOCK = threading.Lock()

# PyTorch's tensor overload names where an op's main overload is not `default`
_BINARY = ("Tensor", "Scalar", "out")
_CMP = ("Tensor", "Scalar")
_ATEN_OVERLOADS = {
    "add": _BINARY, "sub": _BINARY, "mul": _BINARY, "rsub": ("Tensor", "Scalar"),
    "div": ("Tensor", "Scalar", "Tensor_mode", "Scalar_mode", "out", "out_mode"),
    "pow": ("Tensor_Tensor", "Tensor_Scalar", "Scalar"), "sum": ("default", "dim_IntList", "IntList_out"),
    "mean": ("default", "dim", "out"), "max": ("default", "other", "dim"), "min": ("default", "other", "dim"),
    "where": ("self", "ScalarOther", "ScalarSelf", "Scalar"), "transpose": ("int",), "softmax": ("int",),
    "log_softmax": ("int",), "select": ("int",), "eq": _CMP, "ne": _CMP, "lt": _CMP, "le": _CMP, "gt": _CMP,
    "ge": _CMP, "clamp": ("default", "Tensor"), "add_": ("Tensor", "Scalar"), "sub_": ("Tensor", "Scalar"),
    "mul_": ("Tensor", "Scalar"), "div_": ("Tensor", "Tensor_mode", "Scalar", "Scalar_mode"),
    "fill_": ("Scalar", "Tensor"), "squeeze": ("default", "dim", "dims"), "flatten": ("using_ints",),
    "std": ("default", "dim", "correction"), "var": ("default", "dim", "correction"),
    "remainder": ("Tensor", "Scalar"), "fmod": ("Tensor", "Scalar"), "split": ("Tensor", "sizes"),
    "to": ("device", "dtype", "other"), "empty": ("memory_format",), "masked_fill": ("Scalar", "Tensor"),
    "lerp": ("Scalar", "Tensor"), "bitwise_and": _CMP, "bitwise_or": _CMP, "bitwise_xor": _CMP,
    "prod": ("default", "dim_int"), "any": ("default", "dim", "dims"), "all": ("default", "dim", "dims"),
    "round": ("default", "decimals"), "floor_divide": ("default", "Scalar"), "sort": ("default", "stable"),
    "scatter": ("value", "src", "reduce", "value_reduce"), "norm": ("Scalar", "ScalarOpt_dim"),
}


class OpOverload:
    """`torch._ops.OpOverload`: one overload of an op (`torch.ops.aten.add.Tensor`); calling it runs it."""

    def __init__(self, packet, overload_name, schema, fn):
        self._overloadpacket, self._overloadname = packet, overload_name
        self._schema_obj, self._op = schema, fn
        self._namespace, self._opname = packet._namespace, packet._opname
        key = "default" if overload_name in ("", "default") else overload_name
        self.__name__ = f"{self._opname}.{key}"
        self.__qualname__ = self._opname
        self.__module__ = "torch._ops." + self._namespace

    @property
    def _schema(self):
        if self._schema_obj is None:
            raise AttributeError(f"torchshim has no schema for {self}: aten ops call torchshim's "
                                 f"torch.{self._opname}")
        return self._schema_obj

    @property
    def overloadpacket(self):
        return self._overloadpacket

    @property
    def op(self):
        return self._op

    @property
    def namespace(self):
        return self._namespace

    def name(self):
        ov = "" if self._overloadname in ("", "default") else "." + self._overloadname
        return f"{self._namespace}::{self._opname}{ov}"

    def __call__(self, *args, **kwargs):
        if _TYPES:
            r = dispatch(self, args, kwargs)
            if r is not NO_OVERRIDE:
                return r
        return self._op(*args, **kwargs)

    def __str__(self):
        return f"{self._namespace}.{self.__name__}"

    def __repr__(self):
        ov = self.__name__.split(".")[-1]
        return f"<OpOverload(op='{self._namespace}.{self._opname}', overload='{ov}')>"

    def __hash__(self):
        return id(self)


class OpOverloadPacket:
    """`torch._ops.OpOverloadPacket`: every overload of one op (`torch.ops.aten.add`); calling it picks the
    first overload whose schema accepts the arguments (aten ops: torchshim's function)."""

    def __init__(self, namespace, name, fn=None):
        self._namespace, self._opname = namespace, name
        self._overloads = {}  # name ('default' for '') -> OpOverload, in definition order
        self._fn = fn  # aten: torchshim's function
        self.__name__ = self.__qualname__ = name
        self.__module__ = "torch._ops." + namespace
        self._qualified_op_name = f"{namespace}::{name}"

    @property
    def op(self):
        return self._fn if self._fn is not None else self._overloads["default"]._op

    def overloads(self):
        return list(self._overloads)

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(f"'OpOverloadPacket' object has no attribute '{key}'")
        ovs = self.__dict__.get("_overloads", {})
        if key in ovs:
            return ovs[key]
        raise AttributeError(f"The underlying op of '{self}' has no overload name '{key}'")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._overloads))

    def __call__(self, *args, **kwargs):
        if _TYPES:
            r = dispatch(self, args, kwargs)
            if r is not NO_OVERRIDE:
                return r
        if self._fn is not None:
            return self._fn(*args, **kwargs)
        ovs = list(self._overloads.values())
        if len(ovs) == 1:
            return ovs[0]._op(*args, **kwargs)
        errors = []
        for ov in ovs:
            try:
                ov._schema_obj.bind(args, kwargs)
            except RuntimeError as e:
                errors.append(str(e))
                continue
            return ov._op(*args, **kwargs)
        raise RuntimeError("Overloaded torch operator invoked from Python failed to match any schema:\n"
                           + "\n\n".join(errors) + "\n\n")

    def __str__(self):
        return f"{self._namespace}.{self._opname}"

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self._opname}')>"

    def __hash__(self):
        return id(self)


class OpNamespace:
    """`torch._ops._OpNamespace`: `torch.ops.<name>`; its attributes are the ops defined in it."""

    def __init__(self, name):
        self.name = name
        self.__name__ = "torch.ops." + name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        packet = lookup(self.name, op_name)
        if packet is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        return packet

    def __dir__(self):
        return sorted(_DEFS.get(self.name, {}))

    def __repr__(self):
        return f"<module 'torch.ops.{self.name}' from 'torch.ops'>"

    def __iter__(self):
        return iter(sorted(_DEFS.get(self.name, {})))


OpNamespace.__name__ = "_OpNamespace"


def namespace(name):
    """The `torch.ops.<name>` object (the same object on every access)."""
    with _LOCK:
        ns = _NAMESPACES.get(name)
        if ns is None:
            ns = _NAMESPACES[name] = OpNamespace(name)
        return ns


def _aten(name):
    from ._registry import OPS, PUBLIC
    from .._tensor import Tensor
    fn = PUBLIC.get(name)
    if fn is None:
        m = getattr(Tensor, name, None)
        if not callable(m) or name.startswith("_") or isinstance(m, type):
            return None
        fn = m
    packet = OpOverloadPacket("aten", name, fn)
    names = _ATEN_OVERLOADS.get(name)
    if names is None:
        op = OPS.get(name)
        names = ("default", "out") if op is not None and op.out else ("default",)
    for ov in names:
        packet._overloads[ov] = OpOverload(packet, ov, None, fn)
    return packet


def lookup(ns, name):
    """The OpOverloadPacket `torch.ops.<ns>.<name>`, or None."""
    packet = _DEFS.get(ns, {}).get(name)
    if packet is None and ns == "aten":
        with _LOCK:
            packet = _ATEN.get(name)
            if packet is None and name not in _ATEN:
                packet = _ATEN[name] = _aten(name)
    return packet


def define(schema, fn):
    """Add the overload `schema` (an ops/_schema.FunctionSchema named `ns::op`) to `torch.ops`, run by
    `fn(*args, **kwargs)`; returns its OpOverload. RuntimeError when that overload exists."""
    ns, _, name = schema.name.partition("::")
    with _LOCK:
        packet = _DEFS.setdefault(ns, {}).get(name)
        if packet is None:
            packet = _DEFS[ns][name] = OpOverloadPacket(ns, name)
        key = schema.overload_name or "default"
        if key in packet._overloads:
            raise RuntimeError(f"Tried to register an operator ({schema}) with the same name and overload "
                               "name multiple times. Each overload's schema should only be registered with a "
                               "single call to def().")
        ov = packet._overloads[key] = OpOverload(packet, key, schema, fn)
    return ov


def undefine(overload):
    """Remove an OpOverload made by `define` (and its packet when it was the last)."""
    with _LOCK:
        packet = overload._overloadpacket
        packet._overloads.pop(overload._overloadname, None)
        if not packet._overloads:
            _DEFS.get(packet._namespace, {}).pop(packet._opname, None)

"""`torch.library.custom_op` and its `CustomOpDef` (`register_kernel`, `register_fake`, `register_autograd`),
`triton_op` / `wrap_triton`."""
import importlib.util

from .. import _api as torch
from ..ops._namespace import define, lookup
from ..ops._schema import parse_schema
from ._entry import OpEntry
from ._infer_schema import infer_schema

__all__ = ["CustomOpDef", "custom_op", "triton_op", "wrap_triton", "device_types_of", "entry_of"]

def entry_of(op):
    """The OpEntry of `op` ("ns::name[.overload]", an OpOverload/Packet or a CustomOpDef), or None."""
    if isinstance(op, CustomOpDef):
        return op._entry
    if isinstance(op, str):
        ns, sep, rest = op.partition("::")
        name, _, overload = rest.partition(".")
        packet = lookup(ns, name) if sep else None
        if packet is None:
            return None
        op = packet._overloads.get(overload or "default")
    if op is not None and hasattr(op, "_overloads"):  # a packet: its default overload
        op = op._overloads.get("default")
    return getattr(op, "_library_entry", None)


def device_types_of(device_types):
    """[device type strings] (None: every device) with PyTorch's error for an unknown one."""
    if device_types is None:
        return [None]
    if isinstance(device_types, (str, torch.device)):
        device_types = [device_types]
    out = []
    for d in device_types:
        out.append(torch.device(d).type if isinstance(d, str) else d.type)
    return out


class CustomOpDef:
    """`torch._library.custom_ops.CustomOpDef`: what `@custom_op` returns; calling it calls the op."""

    def __init__(self, namespace, name, schema_text, fn, device_types=None):
        self._namespace, self._name = namespace, name
        self._qualname = f"{namespace}::{name}"
        self._schema = parse_schema(f"{self._qualname}{schema_text}")
        self._init_fn = fn
        entry = self._entry = OpEntry(self._schema, custom=True, fn_name=fn.__name__)
        for d in device_types_of(device_types):
            entry.kernels[d] = fn
        old = lookup(namespace, name)
        if old is not None and getattr(old._overloads.get("default"), "_library_entry", None) is not None:
            from ..ops._namespace import undefine
            undefine(old._overloads["default"])  # PyTorch lets a custom op be defined again
        self._opoverload = define(self._schema, entry)
        entry.opoverload = self._opoverload
        self._opoverload._library_entry = entry

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        return self._opoverload(*args, **kwargs)

    def register_kernel(self, device_types, fn=None, /):
        """`register_kernel(device_types, fn=None)`: the implementation for those device types."""
        types = device_types_of(device_types)

        def inner(fn):
            for d in types:
                self._entry.kernels[d] = fn
            return fn
        return inner if fn is None else inner(fn)

    def register_fake(self, fn, /):
        """`register_fake(fn)`: outputs' shapes and dtypes from the inputs' (used under jax tracing)."""
        self._entry.fake = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """`register_autograd(backward, *, setup_context=None)`: the op's backward formula."""
        self._entry.backward, self._entry.setup_context = backward, setup_context


def _split_name(name):
    ns, name = name.split("::")  # PyTorch's unpacking errors for a name without (or with two) '::'
    return ns, name


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """`torch.library.custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None,
    tags=None)`: wrap `fn` as the op `torch.ops.<ns>.<name>` (schema inferred from its type hints unless
    `schema=` is given). Difference from PyTorch: `tags` are accepted and not used (torchshim has no
    compiler passes that read them)."""
    def inner(fn):
        ns, opname = _split_name(name)
        text = schema if schema is not None else infer_schema(fn, mutates_args=mutates_args)
        return CustomOpDef(ns, opname, text, fn, device_types)
    return inner if fn is None else inner(fn)


def triton_op(name, fn=None, /, *, mutates_args, schema=None):
    """`torch.library.triton_op`: a custom op whose body launches triton kernels through `wrap_triton`
    (which needs the triton package and a GPU: on torchshim it raises)."""
    return custom_op(name, fn, mutates_args=mutates_args, schema=schema)


def wrap_triton(triton_kernel, /):
    """`torch.library.wrap_triton`: raises here (triton kernels need triton and a CUDA GPU; torchshim runs on
    jax)."""
    if importlib.util.find_spec("triton") is None:
        raise ModuleNotFoundError("No module named 'triton'")
    raise RuntimeError("wrap_triton: torchshim cannot launch triton kernels (it runs on jax, without CUDA); "
                       "write the op's body with torch operations instead")

"""`torch.library.Library` (`define`, `impl`, `_destroy`) and the module-level registration functions
(`define`, `impl`, `register_kernel`, `register_fake`, `register_autograd`, `impl_abstract`)."""
import sys
import warnings
import weakref

from ..ops._namespace import define as _define_op, undefine
from ..ops._schema import parse_schema
from ._custom_op import CustomOpDef, device_types_of, entry_of
from ._entry import OpEntry

__all__ = ["Library", "define", "impl", "register_kernel", "register_fake", "register_autograd",
           "impl_abstract", "fallthrough_kernel"]

_DEF_SITES = {}  # namespace -> where its live DEF Library was made
_BUILTIN = ("aten", "prim", "prims", "profiler", "quantized", "mkldnn", "_native", "higher_order")
# dispatch key -> where Library.impl puts the kernel (device type / 'fake' / 'autograd')
_KEYS = {"": None, "CompositeImplicitAutograd": None, "CompositeExplicitAutograd": None, "CPU": "cpu",
         "CUDA": "cuda", "Meta": "fake", "Autograd": "autograd", "AutogradCPU": "autograd",
         "AutogradCUDA": "autograd"}
_OTHER_KEYS = ("Python", "Functionalize", "FuncTorchBatched", "BackendSelect", "ADInplaceOrView",
               "AutocastCPU", "AutocastCUDA", "PreDispatch", "XLA", "MPS", "XPU", "HIP", "Lazy",
               "PrivateUse1", "SparseCPU", "SparseCUDA", "QuantizedCPU", "FuncTorchVmapMode", "Batched",
               "CompositeExplicitAutogradNonFunctional", "AutogradOther", "Tracer", "Conjugate", "Negative",
               "ZeroTensor", "NestedTensorCPU", "AutogradNestedTensor")


def _site(depth=2):
    f = sys._getframe(depth)
    return f"{f.f_code.co_filename}:{f.f_lineno}"


def fallthrough_kernel():
    """`torch.library.fallthrough_kernel`: a dummy marking a fallthrough registration."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


class Library:
    """`torch.library.Library(ns, kind, dispatch_key="")`: kind "DEF" (the one library that defines the
    namespace's ops), "FRAGMENT" (more definitions), "IMPL" (implementations only)."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        site = _site()
        if kind == "DEF":
            prev = _DEF_SITES.get(ns) or (f"<torchshim built-in namespace {ns}>" if ns in _BUILTIN else None)
            if prev is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put "
                    "all of your definitions in a single TORCH_LIBRARY block.  If you were trying to specify "
                    "implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you "
                    "really intended to define operators for a single namespace in a distributed way, you "
                    "can use TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of "
                    f"TORCH_LIBRARY was registered at {prev}; latest registration was registered at {site}")
            _DEF_SITES[ns] = site
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._site = site
        self._defs = []  # OpOverloads this library defined
        self._impls = []  # (entry, slot, key, previous) this library registered
        # PyTorch's Library unregisters everything when it is garbage collected
        self._finalizer = weakref.finalize(self, _undo, self._impls, self._defs, ns, kind, site)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """`define(schema, alias_analysis="", *, tags=())`: define an op; returns its name."""
        if self.kind == "IMPL":
            name = schema.split("(")[0]
            raise RuntimeError(f'def("{name}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL '
                               'block.  '
                               "All def()s should be placed in the (unique) TORCH_LIBRARY block for their "
                               f"namespace.  (Error occurred while processing TORCH_LIBRARY_IMPL block at "
                               f"{self._site})")
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        s = parse_schema(schema, self.ns)
        ns = s.name.partition("::")[0]
        if ns != self.ns:
            raise RuntimeError(
                f"Explicitly provided namespace ({ns}) in schema string does not match namespace of "
                f"enclosing TORCH_LIBRARY block ({self.ns}).  Move this definition to the (unique) "
                "TORCH_LIBRARY block corresponding to this namespace (and consider deleting the namespace "
                "from your schema string.)  (Error occurred while processing TORCH_LIBRARY block at "
                f"{self._site})")
        entry = OpEntry(s, custom=False)
        try:
            ov = _define_op(s, entry)
        except RuntimeError as e:
            raise RuntimeError(f"{e} Duplicate registration: registered at {_site()}.") from None
        entry.opoverload = ov
        ov._library_entry = entry
        self._defs.append(ov)
        return s.name.partition("::")[2]

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """`impl(op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False)`: register `fn` as
        the op's kernel for `dispatch_key` (CPU, CUDA, Meta, Autograd, CompositeImplicitAutograd, ...)."""
        if with_keyset:
            raise NotImplementedError("torchshim: Library.impl(with_keyset=True) is not supported (torchshim "
                                      "has no dispatcher, so there is no DispatchKeySet to pass)")
        key = dispatch_key or self.dispatch_key
        if key not in _KEYS:
            if key in _OTHER_KEYS:
                raise NotImplementedError(f"torchshim: Library.impl for dispatch key {key} is not supported "
                                          f"(supported: {', '.join(k for k in _KEYS if k)})")
            raise RuntimeError(f"could not parse dispatch key: {key}")
        if isinstance(op_name, str):
            qual = op_name if "::" in op_name else f"{self.ns}::{op_name}"
        else:
            qual = op_name.name()
        entry = entry_of(qual)
        if entry is None:
            ns = qual.partition("::")[0]
            if ns in _BUILTIN:
                raise NotImplementedError("torchshim: Library.impl cannot replace the kernels of "
                                          f"torchshim's built-in op {qual}")
            raise RuntimeError(f"operator {qual} does not exist")
        if fn is fallthrough_kernel:
            raise NotImplementedError("torchshim: fallthrough kernels are not supported (torchshim has no "
                                      "dispatcher)")
        slot = _KEYS[key]
        if slot == "fake":
            self._impls.append((entry, "fake", None, entry.fake))
            entry.fake = fn
        elif slot == "autograd":
            self._impls.append((entry, "autograd_kernel", None, entry.autograd_kernel))
            entry.autograd_kernel = fn
        else:
            if slot in entry.kernels and not allow_override:
                warnings.warn("Warning only once for all operators,  other operators may also "
                              "be overridden.\n  Overriding a previously registered kernel for the same "
                              f"operator and the same dispatch key\n  operator: {entry.schema}\n  "
                              f"dispatch key: {key}",
                              UserWarning, stacklevel=2)
            self._impls.append((entry, "kernels", slot, entry.kernels.get(slot, _MISSING)))
            entry.kernels[slot] = fn

    def _destroy(self):
        """Undo every registration this library made (also done when the library is garbage collected)."""
        self._finalizer()


def _undo(impls, defs, ns, kind, site):
    for entry, attr, slot, prev in reversed(impls):
        if attr == "kernels":
            if prev is _MISSING:
                entry.kernels.pop(slot, None)
            else:
                entry.kernels[slot] = prev
        else:
            setattr(entry, attr, prev)
    for ov in defs:
        undefine(ov)
    if kind == "DEF" and _DEF_SITES.get(ns) == site:
        del _DEF_SITES[ns]
    impls.clear()
    defs.clear()


_MISSING = object()
_KEEP = []  # libraries made by the module-level functions (kept alive, as PyTorch's _keep_alive)


def _lib_for(qualname, lib):
    if lib is not None:
        return lib
    ns = qualname.partition("::")[0]
    lib = Library(ns, "FRAGMENT")
    _KEEP.append(lib)
    return lib


def define(qualname, schema, *, lib=None, tags=()):
    """`torch.library.define(qualname, schema, *, lib=None, tags=())`: define the op `qualname`
    ("ns::name") with `schema` ("(Tensor x) -> Tensor")."""
    ns, _, name = qualname.partition("::")
    _lib_for(qualname, lib).define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """`torch.library.impl(qualname, types, func=None, *, lib=None)` (also the old `impl(lib, name,
    dispatch_key)`): register `func` as the op's kernel for the device types `types`."""
    if isinstance(qualname, Library):
        library, name, key = qualname, types, func

        def register_lib(fn):
            library.impl(name, fn, key)
            return fn
        return register_lib
    keys = ["CompositeExplicitAutograd" if d is None else ("Meta" if d == "meta" else d.upper())
            for d in device_types_of(types if types != "default" else None)]

    def register(fn):
        library = _lib_for(qualname, lib)
        for k in keys:
            library.impl(qualname, fn, k, allow_override=True)
        return fn
    return register if func is None else register(func)


def _entry_or_error(op, what):
    entry = entry_of(op)
    if entry is None:
        if isinstance(op, str):
            ns, _, rest = op.partition("::")
            if what == "register_autograd":
                from ..ops import _namespace
                getattr(_namespace.namespace(ns), rest.partition(".")[0])  # PyTorch's AttributeError
            raise RuntimeError(f"operator {op} does not exist")
        raise ValueError(f"{what}({op}): expected a string (\"ns::name\"), a CustomOpDef or an OpOverload "
                         "defined with torch.library")
    return entry


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """`torch.library.register_kernel(op, device_types, func=None, /, *, lib=None)`."""
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)
    entry = _entry_or_error(op, "register_kernel")
    types = device_types_of(device_types)

    def register(fn):
        for d in types:
            entry.kernels[d] = fn
        return fn
    return register if func is None else register(func)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """`torch.library.register_fake(op, func=None, /, *, lib=None, allow_override=False)`: the op's fake
    implementation (output shapes/dtypes from the inputs'), used by torchshim under jax tracing."""
    entry = _entry_or_error(op, "register_fake")

    def register(fn):
        entry.fake = fn
        return fn
    return register if func is None else register(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """`torch.library.impl_abstract`: the deprecated name of `register_fake`."""
    warnings.warn("torch.library.impl_abstract was renamed to torch.library.register_fake. Please use that "
                  "instead; we will remove torch.library.impl_abstract in a future version of PyTorch.",
                  DeprecationWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """`torch.library.register_autograd(op, backward, /, *, setup_context=None, lib=None)`."""
    entry = _entry_or_error(op, "register_autograd")
    entry.backward, entry.setup_context = backward, setup_context

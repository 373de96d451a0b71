"""`torch.fx._symbolic_trace`: `Tracer`, `symbolic_trace`, `wrap`.

Tracing runs the module's `forward` on Proxies. While it runs, `Module.__call__` is routed through
`Tracer.call_module` (leaf modules become `call_module` nodes, others are traced through),
`Module.__getattr__` through `Tracer.getattr` (parameters become `get_attr` nodes), and every function given
to `wrap` is replaced in its module's globals by a recorder. All of it is restored when tracing ends.
"""
import builtins
import functools
import inspect
import warnings

from .._tensor import Tensor
from ..nn.modules.container import Sequential
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from .graph import Graph
from .node import map_aggregate
from .proxy import ParameterProxy, Proxy, TracerBase

__all__ = ["Tracer", "symbolic_trace", "wrap", "PH"]

_WRAPPED = {}  # (id(globals), name) -> globals dict, from `wrap`


class PHBase:
    """The placeholder marker of `concrete_args` (PyTorch's `torch.fx.PH`)."""

    def __repr__(self):
        return "PH"


PH = PHBase()


def wrap(fn_or_name):
    """`torch.fx.wrap(fn_or_name)`: at a module's top level, make calls of that global function record a
    `call_function` node (instead of being traced through) whenever a Proxy is among the arguments."""
    frame = inspect.currentframe().f_back
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    if callable(fn_or_name):
        name = fn_or_name.__code__.co_name if hasattr(fn_or_name, "__code__") else fn_or_name.__name__
    elif isinstance(fn_or_name, str):
        name = fn_or_name
    else:
        raise AssertionError("wrap must be called with the name of a function or the function itself")
    _WRAPPED[(id(frame.f_globals), name)] = frame.f_globals
    return fn_or_name


def _find_proxy(*objects):
    found = []

    def look(x):
        if isinstance(x, Proxy) and not found:
            found.append(x)
    map_aggregate(objects, look)
    return found[0] if found else None


class _Patcher:
    def __init__(self):
        self._undo = []

    def patch(self, owner, name, value, is_dict=False):
        if is_dict:
            old = owner.get(name, _MISSING)
            owner[name] = value
        else:
            old = owner.__dict__.get(name, _MISSING)
            setattr(owner, name, value)
        self._undo.append((owner, name, old, is_dict))

    def restore(self):
        for owner, name, old, is_dict in reversed(self._undo):
            if is_dict:
                if old is _MISSING:
                    owner.pop(name, None)
                else:
                    owner[name] = old
            elif old is _MISSING:
                delattr(owner, name)
            else:
                setattr(owner, name, old)
        self._undo.clear()


_MISSING = object()


def _wrapped_recorder(orig):
    @functools.wraps(orig)
    def recorder(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return orig(*args, **kwargs)
        p = proxy.tracer.create_proxy("call_function", orig, args, kwargs)
        p.node.meta["is_wrapped"] = True
        return p
    return recorder


class Tracer(TracerBase):
    """`torch.fx.Tracer(autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False)`.

    As PyTorch's, `autowrap_modules` functions are recorded when called through a name in the traced
    function's globals (`from math import sqrt`), not through the module attribute (`math.sqrt`)."""

    def __init__(self, autowrap_modules=(), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        import math
        if autowrap_modules == ():
            autowrap_modules = (math,)
        self._autowrap_function_ids = {id(v) for m in autowrap_modules for k, v in vars(m).items()
                                       if not k.startswith("_") and callable(v)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_modules = tuple(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None
        self.root = None
        self.tensor_attrs = {}

    # ----- overridable policy ------------------------------------------------------------------------
    def is_leaf_module(self, m, module_qualified_name):
        """Whether `m` is recorded as a `call_module` node: modules of torch.nn (torchshim.nn) except
        Sequential."""
        mod = type(m).__module__ or ""
        from_nn = mod.startswith("torchshim.nn") or mod.startswith("torch.nn")
        return from_nn and not isinstance(m, Sequential)

    def path_of_module(self, mod):
        """The qualified name of `mod` in the root module."""
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for n, p in self.root.named_modules():
            if mod is p:
                return n
        raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A module call: a `call_module` node for a leaf, else `forward` traced through."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A module attribute read while tracing: a parameter of the root becomes a `get_attr` node."""
        def maybe_proxy(collection, value, cache):
            for n, p in collection:
                if value is p:
                    if n not in cache:
                        factory = None
                        if self.param_shapes_constant and isinstance(value, Parameter):
                            def factory(node, n=n, value=value):
                                return ParameterProxy(self, node, n, value)
                        cache[n] = self.create_proxy("get_attr", n, (), {}, proxy_factory_fn=factory)
                    return cache[n]
            return None
        if isinstance(attr_val, Parameter):
            found = maybe_proxy(self.root.named_parameters(), attr_val, parameter_proxy_cache)
            if found is not None:
                return found
        if self.proxy_buffer_attributes and isinstance(attr_val, Tensor):
            found = maybe_proxy(self.root.named_buffers(), attr_val, parameter_proxy_cache)
            if found is not None:
                return found
        return attr_val

    def create_arg(self, a):
        """As TracerBase's, plus: parameters and buffers of the root become `get_attr` nodes, other tensors
        become `_tensor_constant<N>` attributes of the root, submodules their path."""
        if isinstance(a, Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Tensor):
            for n, b in self.root.named_buffers():
                if a is b:
                    return self.create_node("get_attr", n, (), {})
            qualname = self.tensor_attrs.get(id(a), (None,))[0]
            if not qualname:
                qualname = self.get_fresh_qualname("_tensor_constant")
                setattr(self.root, qualname, a)
                self.tensor_attrs[id(a)] = (qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        if isinstance(a, Module):
            return self.path_of_module(a)
        return super().create_arg(a)

    def get_fresh_qualname(self, prefix):
        """`prefix<N>` for the first N not yet an attribute of the root."""
        i = 0
        while hasattr(self.root, f"{prefix}{i}"):
            i += 1
        return f"{prefix}{i}"

    # ----- tracing -----------------------------------------------------------------------------------
    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """The placeholders of `root_fn`'s parameters (concrete_args: values used as constants)."""
        fn = inspect.unwrap(root_fn)
        co = fn.__code__
        total = co.co_argcount + co.co_kwonlyargcount
        names = iter(co.co_varnames)
        args = []
        skip = 0
        if is_module:
            if total == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip = 1
            next(names)
            args.append(self.root)
        sig = inspect.signature(fn)
        if isinstance(concrete_args, tuple):
            if len(concrete_args) != len(sig.parameters) - skip:
                raise RuntimeError(f"Tracing expected {len(sig.parameters)} arguments but got "
                                   f"{len(concrete_args)} concrete arguments")
            concrete_args = dict(zip(list(sig.parameters)[skip:], concrete_args))
        concrete_args = concrete_args or {}

        def placeholder(name):
            if name in concrete_args:
                return self._concrete_placeholders(name, sig.parameters[name], concrete_args[name])
            param = sig.parameters[name]
            default = () if param.default is inspect.Parameter.empty else (param.default,)
            return self.create_proxy("placeholder", name, default, {},
                                     type_expr=fn.__annotations__.get(name, None))
        arg_names = [next(names) for _ in range(skip, total)]
        args.extend(placeholder(n) for n in arg_names)
        if co.co_kwonlyargcount > 0 or co.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
            if co.co_flags & inspect.CO_VARARGS:
                args.append(self.create_proxy("placeholder", "*" + next(names), (), {}))
            if co.co_flags & inspect.CO_VARKEYWORDS:
                args.append(self.create_proxy("placeholder", "**" + next(names), (), {}))
            root_fn = _patch_function(root_fn)
        return root_fn, args

    def _concrete_placeholders(self, name, param, value):
        """A concrete argument, as PyTorch specializes it: each leaf of `value` gets a placeholder
        `<name>_<n>`; a PH leaf stays symbolic (that placeholder's Proxy), a bool/number/str/dtype/... leaf is
        used as a constant with a `torch._assert(placeholder == value)` check recorded, None with
        `_assert_is_none`; other leaves are used as they are (with PyTorch's warning)."""
        from .._device import device
        from .._dtype import dtype
        from .._layout import layout, memory_format
        from .._api import _assert
        count = [0]
        base = (str, int, float, bool, complex, dtype, device, memory_format, layout)

        def leaf(x):
            count[0] += 1
            default = () if param.default is inspect.Parameter.empty else (param.default,)
            out = self.create_proxy("placeholder", f"{name}_{count[0]}", default, {})
            if isinstance(x, PHBase):
                return out
            msg = f"{name} has been specialized to have value {x} but got another value"
            if type(x) in base and not isinstance(x, Tensor):
                _assert(out == x, msg)
            elif x is None:
                self.create_proxy("call_function", _assert_is_none, (out, msg), {})
            else:
                warnings.warn(f"Was not able to add assertion to guarantee correct input {name} to "
                              "specialized function. It is up to the user to make sure that your inputs "
                              "match the inputs you specialized the function with.", stacklevel=4)
            return x

        def tree(x):
            if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
                return type(x)(tree(e) for e in x)
            if isinstance(x, dict):
                return {k: tree(v) for k, v in x.items()}
            return leaf(x)
        return tree(value)

    def trace(self, root, concrete_args=None):
        """Trace `root` (a Module or a function) into a Graph (`self.graph`)."""
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
            self.submodule_paths = {mod: name for name, mod in root.named_modules()}
        else:
            self.root = Module()
            fn = root
        self.graph = Graph(tracer_cls=type(self))
        self.tensor_attrs = {}
        self._collect_tensor_attrs(self.root, [])
        fn_globals = getattr(inspect.unwrap(fn), "__globals__", {})
        fn, args = self.create_args_for_root(fn, isinstance(root, Module), concrete_args)
        cache = {}
        patcher = _Patcher()
        tracer = self
        orig_getattr, orig_call = Module.__getattr__, Module.__call__

        def module_getattr_wrapper(mod, attr):
            return tracer.getattr(attr, orig_getattr(mod, attr), cache)

        def module_call_wrapper(mod, *args, **kwargs):
            def forward(*a, **k):
                return orig_call(mod, *a, **k)
            return tracer.call_module(mod, forward, args, kwargs)
        try:
            patcher.patch(Module, "__getattr__", module_getattr_wrapper)
            patcher.patch(Module, "__call__", module_call_wrapper)
            for (_, name), globs in list(_WRAPPED.items()):
                orig = globs.get(name, getattr(builtins, name, None))  # wrap("len"): the builtin
                if orig is not None and not getattr(orig, "__fx_recorder__", False):
                    rec = _wrapped_recorder(orig)
                    rec.__fx_recorder__ = True
                    patcher.patch(globs, name, rec, is_dict=True)
            self._autowrap(patcher, fn_globals)
            result = fn(*args)
            self.create_node("output", "output", (self.create_arg(result),), {},
                             type_expr=getattr(fn, "__annotations__", {}).get("return", None))
        finally:
            patcher.restore()
        self.submodule_paths = None
        return self.graph

    def _autowrap(self, patcher, fn_globals):
        for name, value in list(fn_globals.items()):
            if not name.startswith("_") and callable(value) and id(value) in self._autowrap_function_ids:
                patcher.patch(fn_globals, name, _autowrap_recorder(value), is_dict=True)

    def _collect_tensor_attrs(self, m, prefix):
        for k, v in m.__dict__.items():
            if isinstance(v, Tensor):
                self.tensor_attrs[id(v)] = (".".join(prefix + [k]), v)
        for k, v in m.named_children():
            self._collect_tensor_attrs(v, prefix + [k])

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("submodule_paths", None)
        return state


def _assert_is_none(value, msg):
    """The check recorded for a concrete argument specialized to None."""
    assert value is None, msg


def _autowrap_recorder(orig):
    @functools.wraps(orig)
    def recorder(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return orig(*args, **kwargs)
        p = proxy.tracer.create_proxy("call_function", orig, args, kwargs)
        p.node.meta["is_wrapped"] = True
        return p
    return recorder


def _patch_function(fn):
    """A copy of `fn` whose keyword-only, `*args` and `**kwargs` parameters are plain positional ones, so
    that each gets its placeholder's Proxy as it is (as PyTorch's tracer does)."""
    import types
    inner = inspect.unwrap(fn)
    co = inner.__code__
    extra = bool(co.co_flags & inspect.CO_VARARGS) + bool(co.co_flags & inspect.CO_VARKEYWORDS)
    code = co.replace(co_flags=co.co_flags & ~(inspect.CO_VARARGS | inspect.CO_VARKEYWORDS),
                      co_argcount=co.co_argcount + co.co_kwonlyargcount + extra, co_kwonlyargcount=0)
    return types.FunctionType(code, inner.__globals__, inner.__name__, inner.__defaults__, inner.__closure__)


def symbolic_trace(root, concrete_args=None):
    """`torch.fx.symbolic_trace(root, concrete_args=None)`: trace a Module or function into a GraphModule
    (named after the module's class, or the function's name)."""
    from .graph_module import GraphModule
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


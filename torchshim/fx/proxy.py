"""`torch.fx.proxy`: `Proxy` (a traced value: every operation on it records a Node), `Attribute` (a lazily
recorded `getattr`), `ParameterProxy`, `GraphAppendingTracer`, `TraceError`.

Functions of torchshim called with a Proxy reach `Proxy.__torch_function__` through the hook at the public
function entry (ops/_override.py), as PyTorch's `__torch_function__` protocol does.
"""
import operator

from ..ops import _override
from ._names import public_function
from .node import Node, map_aggregate

__all__ = ["Proxy", "Attribute", "ParameterProxy", "GraphAppendingTracer", "TraceError", "TracerBase"]


class TraceError(ValueError):
    """Raised for operations a symbolic trace cannot record (control flow on a Proxy, iteration)."""


class TracerBase:
    """The part of a Tracer that turns values into Node arguments and records nodes."""

    graph = None
    record_stack_traces = False
    check_mutable_operations = False
    trace_asserts = False
    proxy_buffer_attributes = False
    traced_func_name = "forward"
    scope = None

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        """Record a node in `self.graph`."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node):
        """The Proxy of a new node."""
        return Proxy(node, self)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        """Record a node from Python values (Proxies become their Nodes) and return its Proxy."""
        args_ = self.create_arg(args)
        kwargs_ = self.create_arg(kwargs)
        if not isinstance(args_, tuple) or not isinstance(kwargs_, dict):
            raise AssertionError("create_proxy: args must be a tuple and kwargs a dict")
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a):
        """A value as a Node argument: Proxies as Nodes, containers mapped, constants as they are."""
        from .._device import device
        from .._dtype import dtype
        from .._layout import layout, memory_format
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, Node):
            return a
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return type(a)(*(self.create_arg(e) for e in a))
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(e) for e in a)
        if isinstance(a, dict):
            out = {}
            for k, v in a.items():
                k = self.create_arg(k)
                if isinstance(k, Node):
                    raise RuntimeError("Keys for dictionaries used as an argument cannot contain a Node. "
                                       f"Got key: {k}")
                out[k] = self.create_arg(v)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if a is None or a is Ellipsis or isinstance(a, (str, int, float, bool, complex, dtype, device, layout,
                                                        memory_format)):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj):
        """`bool(proxy)`: an error, a traced value can't decide control flow."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj):
        """`iter(proxy)`: an error."""
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a "
                         "loop or as a *args or **kwargs function argument. See the torch.fx docs on "
                         "pytorch.org for a more detailed explanation of what types of control flow can be "
                         "traced, and check out the Proxy docstring for help troubleshooting Proxy iteration "
                         "errors")

    def keys(self, obj):
        """`proxy.keys()` (for `**proxy`): a call_method node."""
        return Attribute(obj, "keys")()


class GraphAppendingTracer(TracerBase):
    """The tracer of a Proxy made directly on a Graph's Node: records into that graph."""

    def __init__(self, graph):
        super().__init__()
        self.graph = graph
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}


class Proxy:
    """`torch.fx.Proxy(node, tracer=None)`: stands for `node`'s value while tracing; operations on it (Python
    operators, method calls, attribute reads, torch functions) append nodes to the tracer's graph."""

    def __init__(self, node, tracer=None):
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node
        if type(self) not in _override._TYPES:
            _override.activate(type(self))

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"):
            raise AttributeError(k)
        return Attribute(self, k)

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__ = d

    def __deepcopy__(self, memo):
        import copy
        new = Proxy.__new__(Proxy)
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            new.__dict__[k] = v if k == "tracer" else copy.deepcopy(v, memo)
        return new

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        return self.tracer.iter(self)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want this call to "
                           "be recorded, please call torch.fx.wrap('len') at module scope")

    def keys(self):
        """`proxy.keys()`."""
        return self.tracer.keys(self)

    @classmethod
    def __torch_function__(cls, orig_method, types, args=None, kwargs=None):
        args = args if args else ()
        kwargs = kwargs if kwargs else {}
        tracers = {}

        def find_tracer(a):
            if isinstance(a, Proxy):
                tracers[a.tracer] = None
        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while trying to trace "
                               f"operations {orig_method}")
        tracer = next(iter(tracers))
        method = getattr(orig_method, "__torchshim_method__", None)
        if method is not None:
            return tracer.create_proxy("call_method", method, args, kwargs)
        return tracer.create_proxy("call_function", public_function(orig_method), args, kwargs)


class Attribute(Proxy):
    """`proxy.attr`: recorded as `getattr(proxy, 'attr')` when used as a value, or as `call_method` when
    called."""

    def __init__(self, root, attr):
        self.root, self.attr, self.tracer = root, attr, root.tracer
        self._node = None
        if type(self) not in _override._TYPES:
            _override.activate(type(self))

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr, (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


class ParameterProxy(Proxy):
    """A Proxy for a parameter whose shape facts (`shape`, `size()`, `dim()`, `ndim`, `numel()`,
    `nelement()`) are answered from the real parameter (Tracer(param_shapes_constant=True)). As PyTorch's,
    `size()` takes no dimension argument."""

    def __init__(self, tracer, node, name, param):
        super().__init__(node, tracer)
        self.param, self.name = param, name

    def __repr__(self):
        return f"ParameterProxy({self.name})"

    @property
    def shape(self):
        return self.param.shape

    def size(self):
        return self.param.size()

    def dim(self):
        return self.param.dim()

    @property
    def ndim(self):
        return self.param.ndim

    def numel(self):
        return self.param.numel()

    def nelement(self):
        return self.param.nelement()


def _binary(op):
    def impl(self, rhs):
        return self.tracer.create_proxy("call_function", op, (self, rhs), {})
    return impl


def _reflected(op):
    def impl(self, lhs):
        return self.tracer.create_proxy("call_function", op, (lhs, self), {})
    return impl


def _unary(op):
    def impl(self):
        return self.tracer.create_proxy("call_function", op, (self,), {})
    return impl


_REFLECTABLE = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift", "and_", "or_",
                "xor", "matmul")
for _name in _REFLECTABLE + ("getitem", "eq", "ne", "lt", "gt", "le", "ge"):
    _dunder = _name.rstrip("_")
    setattr(Proxy, f"__{_dunder}__", _binary(getattr(operator, _name)))
for _name in _REFLECTABLE:
    _dunder = _name.rstrip("_")
    setattr(Proxy, f"__r{_dunder}__", _reflected(getattr(operator, _name)))
for _name in ("neg", "pos", "invert"):
    setattr(Proxy, f"__{_name}__", _unary(getattr(operator, _name)))
Proxy.__hash__ = object.__hash__

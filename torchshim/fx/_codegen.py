"""Python source of a Graph's `forward`, as PyTorch's fx writes it: one statement per node, the values freed
after their last use (`;  x = None`), operators as Python syntax (`add = x + y`), torch functions by their
qualified name (`torch.relu(x)`), other functions as globals of the generated module.
"""
import builtins
import math
import operator
import sys

from ._names import Namespace, qualified_name, torch_name, type_repr

__all__ = ["PythonCode", "python_code"]

_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.floordiv: "//",
           operator.truediv: "/", operator.mod: "%", operator.pow: "**", operator.lshift: "<<",
           operator.rshift: ">>", operator.and_: "&", operator.or_: "|", operator.xor: "^",
           operator.matmul: "@", operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.gt: ">",
           operator.le: "<=", operator.ge: ">="}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


class PythonCode:
    """`torch.fx.graph.PythonCode`: `src` (the source) and `globals` (the names it needs)."""

    def __init__(self, src, globals, _lineno_map=None):
        self.src, self.globals, self._lineno_map = src, globals, _lineno_map


def _torch_module():
    return sys.modules["torchshim"]


def _format_target(base, target):
    out = base
    for elem in target.split("."):
        out = f"{out}.{elem}" if elem.isidentifier() else f'getattr({out}, "{elem}")'
    return out


class _Globals:
    def __init__(self, graph):
        from .._device import device
        self.namespace = Namespace()
        for node in graph.nodes:  # node names are taken first
            self.namespace.create_name(node.name, None)
        self.values = {"inf": math.inf, "nan": math.nan, "NoneType": type(None), "torch": _torch_module(),
                       "device": device}

    def add(self, obj):
        """The expression naming `obj` in the generated code (a new global unless it's a torch name)."""
        name = torch_name(obj)
        if name is not None:
            return name
        if getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
            return obj.__name__
        qualified = qualified_name(obj)
        if qualified.startswith("torch.") and _resolve(qualified) is obj:  # torch.fx._symbolic_trace.<fn>
            return qualified
        hint = qualified_name(obj).replace(".", "_")
        name = self.namespace.create_name(hint, obj)
        self.values[name] = obj
        return name


def _resolve(qualified):
    obj = _torch_module()
    for atom in qualified.split(".")[1:]:
        obj = getattr(obj, atom, None)
        if obj is None:
            return None
    return obj


def _repr(arg, g):
    """repr of an argument in generated code (functions and classes become globals)."""
    if isinstance(arg, (list, tuple)) and not hasattr(arg, "_fields"):
        items = [_repr(a, g) for a in arg]
        if isinstance(arg, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + (",)" if len(items) == 1 else ")")
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {_repr(v, g)}" for k, v in arg.items()) + "}"
    if isinstance(arg, type) or callable(arg) and hasattr(arg, "__name__") and not hasattr(arg, "_make"):
        return g.add(arg)
    if isinstance(arg, float) and not math.isfinite(arg):
        return "inf" if arg > 0 else "-inf" if arg < 0 else "nan"
    return repr(arg)


def _annotation(t, g):
    """A type annotation in generated code (a class outside torch and builtins becomes a global)."""
    text = type_repr(t)
    if isinstance(t, type) and not text.startswith("torch.") and t.__module__ != "builtins":
        return g.add(t)
    return text


def _args(args, kwargs, g):
    parts = [_repr(a, g) for a in args] + [f"{k} = {_repr(v, g)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _statement(node, g):
    name, args, kwargs, target = node.name, node.args, node.kwargs, node.target
    if node.op == "get_attr":
        return f"{name} = {_format_target('self', target)}"
    if node.op == "call_module":
        return f"{name} = {_format_target('self', target)}({_args(args, kwargs, g)})"
    if node.op == "call_method":
        return f"{name} = {_format_target(_repr(args[0], g), target)}({_args(args[1:], kwargs, g)})"
    if node.op == "output":
        return f"return {_repr(args[0], g)}"
    # call_function
    if not kwargs:
        if target in _BINARY and len(args) == 2:
            return f"{name} = {_repr(args[0], g)} {_BINARY[target]} {_repr(args[1], g)}"
        if target in _UNARY and len(args) == 1:
            return f"{name} = {_UNARY[target]}{_repr(args[0], g)}"
        if target is operator.getitem and len(args) == 2:
            return f"{name} = {_repr(args[0], g)}[{_repr(args[1], g)}]"
        if target is builtins.getattr and len(args) == 2 and isinstance(args[1], str) \
                and args[1].isidentifier():
            return f"{name} = {_repr(args[0], g)}.{args[1]}"
    return f"{name} = {g.add(target)}({_args(args, kwargs, g)})"


def python_code(graph, root_module="self"):
    """`Graph.python_code(root_module)`: the `forward` source and its globals."""
    nodes = list(graph.nodes)
    g = _Globals(graph)
    last_uses = {}
    seen = set()
    for node in reversed(nodes):
        for inp in node._input_nodes:
            if inp not in seen:
                seen.add(inp)
                last_uses.setdefault(node, []).append(inp)
    params, body, wrapped = [], [], []
    returns = ""
    for node in nodes:
        if node.op == "placeholder":
            t = node.target
            annotation = "" if node.type is None else f" : {_annotation(node.type, g)}"
            params.append(t + annotation + ("" if not node.args else f" = {_repr(node.args[0], g)}"))
            raw = t.replace("*", "")
            if raw != node.name:  # the parameter's Python name was taken: `input_1 = input`
                body.append(f"{node.name} = {raw}")
            continue
        if node.op == "output" and node.type is not None:
            returns = f" -> {_annotation(node.type, g)}"
        if node.op == "call_function" and node.meta.get("is_wrapped"):
            wrapped.append(g.add(node.target))
        line = _statement(node, g)
        if node.op != "output":
            dead = list(last_uses.get(node, ()))
            if not node.users:
                dead.append(node)
            if dead:
                line += ";  " + " = ".join(n.name for n in dead) + " = None"
        body.append(line)
    code = "".join(line + "\n" for line in body)
    code = "\n".join("    " + line for line in code.split("\n"))
    wrap_stmts = "\n".join(f'torch.fx._symbolic_trace.wrap("{n}")' for n in dict.fromkeys(wrapped))
    src = f"\n{wrap_stmts}\n\ndef forward({', '.join([root_module] + params)}){returns}:\n{code}"
    return PythonCode(src, g.values)

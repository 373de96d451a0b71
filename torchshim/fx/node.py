"""`torch.fx.node`: `Node` (one operation of a Graph), `map_arg`, `map_aggregate`.

A Node's `args`/`kwargs` may hold other Nodes at any depth of tuples, lists, dicts and slices; setting them
keeps `all_input_nodes` and each input's `users` (an insertion-ordered dict, as PyTorch's) up to date.
"""
import operator

from ._names import qualified_name, type_repr

__all__ = ["Node", "map_arg", "map_aggregate", "Target", "Argument"]

Target = object
Argument = object

_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")


def map_aggregate(a, fn):
    """`map_aggregate(a, fn)`: apply `fn` to each leaf of the nested tuples/lists/dicts/slices `a`."""
    t = type(a)
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(e, fn) for e in a)
        return mapped if t is tuple or not hasattr(a, "_fields") else t(*mapped)
    if isinstance(a, list):
        return [map_aggregate(e, fn) for e in a]
    if isinstance(a, dict):
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """`map_arg(a, fn)`: apply `fn` to each Node in the nested argument structure `a`."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def _format_arg(arg):
    """An argument as Graph's printout writes it: Nodes as `%name`, strings unquoted."""
    if isinstance(arg, tuple) and hasattr(arg, "_fields"):
        return repr(arg)
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for a in arg)
        return "(" + items + (",)" if len(arg) == 1 else ")")
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """`torch.fx.Node(graph, name, op, target, args, kwargs, return_type=None)`: one operation of a Graph.

    op is one of placeholder, get_attr, call_function, call_method, call_module, output."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPS:
            raise AssertionError(f"Unknown op '{op}'")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a Callable is expected")
        if op in ("placeholder", "call_method", "call_module", "get_attr") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a str is expected")
        self.graph, self.name, self.op, self.target = graph, name, op, target
        self._input_nodes = {}
        self.users = {}
        self.type = return_type
        self._prev = self._next = self
        self._erased = False
        self._args, self._kwargs = (), {}
        self.meta = {}
        self.__update_args_kwargs(tuple(args), dict(kwargs))

    # ----- linked list -------------------------------------------------------------------------------
    @property
    def next(self):
        """The next Node in the graph's list."""
        return self._next

    @property
    def prev(self):
        """The previous Node in the graph's list."""
        return self._prev

    def prepend(self, x):
        """Insert `x` before this node (moving it if it is already in the graph)."""
        if self is x:
            raise AssertionError("Cannot prepend self")
        if self.graph is not x.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        x._remove_from_list()
        p = self._prev
        p._next, x._prev = x, p
        x._next, self._prev = self, x

    def append(self, x):
        """Insert `x` after this node (moving it if it is already in the graph)."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # ----- arguments ---------------------------------------------------------------------------------
    @property
    def args(self):
        """The positional arguments (a tuple); setting it updates the use lists."""
        return self._args

    @args.setter
    def args(self, a):
        self.__update_args_kwargs(tuple(a), self._kwargs)

    @property
    def kwargs(self):
        """The keyword arguments (a dict); setting it updates the use lists."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self.__update_args_kwargs(self._args, dict(k))

    @property
    def all_input_nodes(self):
        """The distinct Nodes in args and kwargs, in order of appearance."""
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        """Set `args[idx] = arg`."""
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx, arg):
        """Insert `arg` at position `idx` of args."""
        args = list(self.args)
        args.insert(idx, arg)
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        """Set `kwargs[key] = arg`."""
        self.kwargs = {**self.kwargs, key: arg}

    def __update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        collect = self._input_nodes.setdefault
        map_arg(new_args, lambda n: collect(n))
        map_arg(new_kwargs, lambda n: collect(n))
        self._args, self._kwargs = new_args, new_kwargs
        for n in self._input_nodes:
            n.users.setdefault(self)

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False):
        """Replace every use of this node by `replace_with` (users for which `delete_user_cb` is true);
        returns the users changed."""
        if propagate_meta:
            if len(replace_with.meta) != 0:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, propagate_meta=True), "
                                     "but replace_with already has .meta keys")
            replace_with.meta.update(self.meta)
        to_process = [u for u in self.users if delete_user_cb is None or delete_user_cb(u)]
        for user in to_process:
            user.replace_input_with(self, replace_with)
        return to_process

    def replace_input_with(self, old_input, new_input):
        """Replace every occurrence of `old_input` in this node's arguments with `new_input`."""
        def swap(n):
            return new_input if n is old_input else n
        self.__update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # ----- facts -------------------------------------------------------------------------------------
    @property
    def stack_trace(self):
        """The user's stack trace recorded at tracing (`meta['stack_trace']`), or None."""
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random=True):
        """Whether dead-code elimination must keep this node: placeholders, output, functions marked by
        `has_side_effect` (and `torch._assert`-like ones), random draws when `impure_random`, and calls of
        modules whose `_is_impure` is true."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            if self.target in _SIDE_EFFECTS:
                return True
            return impure_random and qualified_name(self.target) in _RANDOM
        if self.op == "call_module":
            mod = self.graph.owning_module
            if mod is None:
                return False
            try:
                sub = mod.get_submodule(self.target)
            except AttributeError:
                return False
            return bool(getattr(sub, "_is_impure", False))
        return False

    def _pretty_print_target(self, target):
        if isinstance(target, str):
            return target
        return qualified_name(target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """The node's line in the Graph printout (`%name : [num_users=N] = op[target=...](args, kwargs)`)."""
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
            typ = f"{_type_repr(self.type)} " if self.type is not None else ""
            default = f"(default={self.args[0]})" if self.args else ""
            return f"%{self.name} : {typ}[num_users={len(self.users)}] = placeholder[target={self.target}]" \
                + default
        if self.op == "output":
            if self.type is not None and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]!r}"
        typ = f"{_type_repr(self.type)} " if self.type is not None else ""
        head = f"%{self.name} : {typ}[num_users={len(self.users)}] = " \
            f"{self.op}[target={self._pretty_print_target(self.target)}]"
        if self.op == "get_attr":
            return head
        return head + f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"

    def __repr__(self):
        return self.name


_SIDE_EFFECTS = {operator.setitem}
_RANDOM = {"torch." + n for n in ("rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                                  "randint_like", "bernoulli", "multinomial", "normal", "poisson")}


def has_side_effect(fn):
    """`torch.fx.has_side_effect(fn)`: mark `fn` impure (dead-code elimination keeps its calls)."""
    _SIDE_EFFECTS.add(fn)
    return fn


def _type_repr(t):
    return type_repr(t)

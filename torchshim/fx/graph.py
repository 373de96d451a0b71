"""`torch.fx.graph`: `Graph`, the ordered list of Nodes of a traced program, with the editing API
(create_node, inserting_before/after, erase_node, node_copy, graph_copy), checks (`lint`), dead-code
elimination, the printout (`str(graph)`) and Python code generation (`python_code`, in _codegen.py)."""
import copy
import inspect
import warnings

from ._codegen import PythonCode, python_code
from ._names import Namespace, qualified_name, snake_case
from .node import Node, map_arg

__all__ = ["Graph", "PythonCode"]


class _NodeList:
    def __init__(self, graph, direction="_next"):
        self._graph, self._direction = graph, direction

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root, d = self._graph._root, self._direction
        cur = getattr(root, d)
        while cur is not root:
            if not cur._erased:
                yield cur
            cur = getattr(cur, d)

    def __reversed__(self):
        return _NodeList(self._graph, "_prev" if self._direction == "_next" else "_next")


class _InsertPoint:
    """The insertion point, set at once; `with` restores the previous one on exit."""

    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.graph._insert = self.orig_insert


class Graph:
    """`torch.fx.Graph(owning_module=None, tracer_cls=None, tracer_extras=None)`."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._co_fields = {}

    @property
    def owning_module(self):
        """The GraphModule this graph belongs to (or None)."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        """The nodes in order (a live view: iteration survives erasing the current node)."""
        return _NodeList(self)

    def output_node(self):
        """The graph's output node."""
        for n in reversed(self.nodes):
            if n.op == "output":
                return n
        raise AssertionError("graph has no output node")

    def find_nodes(self, *, op, target=None, sort=True):
        """The nodes with `op` (and `target` when given)."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ----- creating nodes ----------------------------------------------------------------------------
    def _target_to_str(self, target):
        if isinstance(target, str):
            op = target[2:-2] if target.startswith("__") and target.endswith("__") else target
        else:
            op = snake_case(getattr(target, "__name__", None) or type(target).__name__)
        return op

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Create a Node at the insertion point (by default the end of the graph)."""
        if op not in ("call_function", "call_method", "get_attr", "call_module", "placeholder", "output"):
            raise AssertionError(f"Unknown op '{op}'")
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        """An input of the graph (`default_value` makes it optional in the generated signature)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        """A read of the owning module's attribute `qualified_name` (warns when it is missing)."""
        mod = self.owning_module
        if mod is not None:
            try:
                obj = mod
                for atom in qualified_name.split("."):
                    obj = getattr(obj, atom)
            except AttributeError:
                warnings.warn("Attempted to insert a get_attr Node with no underlying reference in the "
                              "owning GraphModule! Call GraphModule.add_submodule to add the necessary "
                              "submodule, GraphModule.add_parameter to add the necessary Parameter, or "
                              "nn.Module.register_buffer to add the necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        """A call of the owning module's submodule `module_name`."""
        if self.owning_module is not None:
            try:
                self.owning_module.get_submodule(module_name)
            except AttributeError:
                warnings.warn("Attempted to insert a call_module Node with no underlying reference in the "
                              "owning GraphModule! Call GraphModule.add_submodule to add the necessary "
                              "submodule", stacklevel=2)
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        """A call of the method `method_name` on `args[0]`."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        """A call of the Python callable `the_function`."""
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        """The graph's return value."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        """A copy of `node` (from any graph) in this graph, its Node arguments mapped by `arg_transform`."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy the nodes of `g` into this graph (filling `val_map` old -> new); returns the mapped output
        value (and the output node when `return_output_node`)."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return (rv, node) if return_output_node else rv
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = memo if memo else {}
        g = Graph(tracer_cls=self._tracer_cls)
        out = g.graph_copy(self, val_map=memo, return_output_node=True)
        if out is not None:
            rv, node = out
            g.output(rv, type_expr=getattr(node, "type", None))
        return g

    # ----- editing -----------------------------------------------------------------------------------
    def inserting_before(self, n=None):
        """Set the insertion point before `n` (the graph's start when None); usable as a `with` block."""
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        """Set the insertion point after `n` (the graph's end when None); usable as a `with` block."""
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase):
        """Remove a node without users from the graph."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} users "
                               f"in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        p, n = to_erase._prev, to_erase._next
        p._next, n._prev = n, p  # the erased node keeps its links, so an iteration over it goes on
        to_erase._erased = True
        self._len -= 1
        to_erase.args, to_erase.kwargs = (), {}

    def eliminate_dead_code(self, is_impure_node=None):
        """Erase the nodes without users that are not impure; returns whether anything changed."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self):
        """Check the graph's invariants: node ownership, definition before use, use lists, unique names,
        and (with an owning module) that call_module/get_attr targets exist."""
        seen, names = set(), set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node.op not in ("placeholder", "call_method", "call_module", "call_function", "get_attr",
                               "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this Graph, "
                                       "but was used as an argument! If you are copying nodes from another "
                                       "graph, make sure to use ``arg_transform`` on node_copy() to remap "
                                       f"values\n"
                                       f"{self}")
                if arg not in seen:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been "
                                       "defined! Please check that Nodes in the graph are topologically "
                                       "ordered\n"
                                       f"{self}")
                if node not in arg.users:
                    raise RuntimeError(f"Node {node} is not in the users of its input {arg}")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen.add(node)
            names.add(node.name)
        mod = self.owning_module
        if mod is not None:
            for node in self.nodes:
                if node.op in ("get_attr", "call_module"):
                    obj = mod
                    for i, atom in enumerate(node.target.split(".")):
                        if not hasattr(obj, atom):
                            seen_qual = ".".join(node.target.split(".")[:i])
                            raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                               f"attribute {atom} of {seen_qual}")
                        obj = getattr(obj, atom)

    # ----- output ------------------------------------------------------------------------------------
    def python_code(self, root_module, *, verbose=False, include_stride=False, include_device=False,
                    colored=False):
        """`python_code(root_module)`: a PythonCode whose `src` defines `forward(root_module, ...)`.
        Difference from PyTorch: the verbose/stride/device/colored annotations are not written."""
        return python_code(self, root_module)

    def on_generate_code(self, make_transformer):
        """Not supported: torchshim's code generation has no transformer hook."""
        raise NotImplementedError("torchshim.fx: Graph.on_generate_code is not supported")

    def __str__(self):
        lines = ["graph():"]
        for node in self.nodes:
            lines.append("    " + node.format_node())
        return "\n".join(lines)

    def print_tabular(self):
        """Print the nodes as a table (needs the `tabulate` package, as PyTorch's)."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found on this "
                  "machine. Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n._pretty_print_target(n.target), n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))


def _qualname(t):
    return qualified_name(t)

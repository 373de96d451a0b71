"""`torch.fx.graph_module`: `GraphModule`, a Module whose `forward` is Python source generated from a Graph
and exec'd (`code`, `recompile`), holding the root's submodules, parameters and buffers the graph uses.

Each GraphModule instance has its own class (so `forward` can be regenerated per instance), named after the
traced module's class, as PyTorch's. Pickling stores the generated code and re-traces it on load (as
PyTorch's does); `copy.deepcopy` copies the graph.
"""
import copy
import linecache
import os

from ..nn.modules.module import Module
from .graph import Graph

__all__ = ["GraphModule", "reduce_graph_module"]

_NEXT_ID = [0]


def _exec_forward(src, globals_):
    _NEXT_ID[0] += 1
    key = f"<eval_with_key>.{_NEXT_ID[0]}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)  # tracebacks show the generated code
    g = dict(globals_)
    exec(compile(src, key, "exec"), g)
    return g["forward"]


def _copy_attr(from_module, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    from .._tensor import Tensor
    from ..nn.parameter import Parameter
    if isinstance(orig, Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module, target):
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    from .._tensor import Tensor
    from ..nn.parameter import Parameter
    if isinstance(from_obj, Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


class GraphModule(Module):
    """`torch.fx.GraphModule(root, graph, class_name='GraphModule')`: `root` is a Module (the attributes the
    graph's get_attr/call_module nodes name are copied from it) or a dict of qualified name -> value."""

    def __new__(cls, *args, **kwargs):
        for t in cls.__mro__:
            if t.__qualname__.split(".")[-1] != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name="GraphModule"):
        super().__init__()
        self.__class__.__name__ = class_name
        self.__class__.__qualname__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError("Node " + str(node) + " referenced target " + node.target
                                           + " but that target was not provided in ``root``!")
                    targets.append(node.target)
            for t in sorted(targets, key=lambda t: t.count(".")):
                _assign_attr(root[t], self, t)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph
        self._tracer_cls = graph._tracer_cls if graph._tracer_cls is not None \
            and "<locals>" not in graph._tracer_cls.__qualname__ else None
        self.meta = {}

    @property
    def graph(self):
        """The Graph; assigning one regenerates `code` and `forward`."""
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self):
        """The Python source of `forward`."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self):
        """Regenerate `code` and `forward` from `graph` (after editing it); returns the PythonCode."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        type(self).forward = _exec_forward(self._code, python_code.globals)
        return python_code

    def add_submodule(self, target, m):
        """Install `m` at the dotted path `target`, creating empty Modules on the way; False when a module on
        the way is not a Module."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                setattr(mod, item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Remove the submodule at `target`; False when there is none."""
        atoms = target.split(".")
        path, target_submod = atoms[:-1], atoms[-1]
        mod = self
        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, target_submod):
            return False
        if not isinstance(getattr(mod, target_submod), Module):
            return False
        delattr(mod, target_submod)
        return True

    def delete_all_unused_submodules(self):
        """Remove the submodules no `call_module`/`get_attr` node uses."""
        used = []
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                atoms = node.target.split(".")
                used.extend(".".join(atoms[:i]) for i in range(1, len(atoms) + 1))
        used = set(used)
        to_delete = [name for name, _ in self.named_modules() if name and name not in used]
        for name in to_delete:
            self.delete_submodule(name)

    def print_readable(self, print_output=True, include_stride=False, include_device=False, colored=False,
                       **kwargs):
        """The module as a class definition; printed when `print_output`, returned as a string.
        Difference from PyTorch: no per-node stack traces or tensor annotations."""
        name = self.__class__.__name__
        lines = [f"class {name}(torch.nn.Module):"]
        body = self._code.strip("\n").split("\n")
        first = True
        for line in body:
            if not line.strip():
                continue
            if line.startswith("torch.fx._symbolic_trace.wrap"):
                continue
            lines.append("    " + line)
            if first and line.startswith("def "):
                lines.append("        # No stacktrace found for following nodes")
                first = False
        out = "\n".join(lines) + "\n"
        if print_output:
            print(out)
        return out

    def to_folder(self, folder, module_name="FxModule"):
        """`to_folder(folder, module_name='FxModule')`: write `module.py` (a Module class `module_name` with
        the generated forward), `state_dict.pt` and `__init__.py`, importable by PyTorch or torchshim.
        Difference from PyTorch: submodules must be torch.nn layers (written by their repr); PyTorch pickles
        other submodules to `<name>.pt`, torchshim raises NotImplementedError for them."""
        from .. import serialization
        from .._tensor import Tensor
        from ..nn.parameter import Parameter
        os.makedirs(folder, exist_ok=True)
        serialization.save(self.state_dict(), os.path.join(folder, "state_dict.pt"))
        header = ["import torch", "from math import inf", "from math import nan", "NoneType = type(None)",
                  "import torch", "from torch import device", "import torch.fx._pytree as fx_pytree",
                  "import torch.utils._pytree as pytree", ""]
        init = ["from torch.nn import *", f"class {module_name}(torch.nn.Module):", "    def __init__(self):",
                "        super().__init__()"]
        for name, m in self.named_children():
            if not (type(m).__module__ or "").startswith("torchshim.nn") or type(m) is Module \
                    or "\n" in repr(m):
                raise NotImplementedError(f"torchshim.fx: to_folder writes torch.nn layers only; submodule "
                                          f"'{name}' is {type(m).__name__}")
            init.append(f"        setattr(self, '{name}', {m!r})")
        for name, t in list(self._parameters.items()) + list(self._buffers.items()):
            if not isinstance(t, Tensor):
                continue
            empty = f"torch.empty({list(t.shape)}, dtype={t.dtype})"
            if isinstance(t, Parameter):
                init.append(f"        setattr(self, '{name}', torch.nn.Parameter({empty}))")
            else:
                init.append(f"        self.register_buffer('{name}', {empty})")
        path = os.path.join(folder, "state_dict.pt")
        init.append(f"        self.load_state_dict(torch.load(r'{path}'))")
        code = "\n".join("    " + line if line.strip() else "" for line in self._code.split("\n"))
        with open(os.path.join(folder, "module.py"), "w") as f:
            f.write("\n" + "\n".join(header) + "\n" + "\n".join(init) + "\n" + code + "\n")
        with open(os.path.join(folder, "__init__.py"), "w") as f:
            f.write(f"from .module import {module_name}\n")

    def __str__(self):
        orig = super().__str__()
        return "\n".join([orig, self._code,
                          "# To see more debug info, please use `graph_module.print_readable()`"])

    def __copy__(self):
        res = GraphModule(self, self.graph)
        res.meta = getattr(self, "meta", {})
        return res

    def __deepcopy__(self, memo):
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        fake = Module()
        fake.__dict__ = copy.deepcopy(self.__dict__, memo)
        GraphModule.__init__(res, fake, fake.__dict__["_graph"])
        for attr in ("_state_dict_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     "meta", "training"):
            if attr in self.__dict__:
                setattr(res, attr, copy.deepcopy(self.__dict__[attr], memo))
        return res

    def __reduce__(self):
        python_code = self.recompile()
        body = self.__dict__.copy()
        del body["_graph"]
        body.pop("_code", None)
        extra = {k: v for k, v in python_code.globals.items()
                 if k not in ("inf", "nan", "NoneType", "torch", "device")}
        return reduce_graph_module, (body, self._code, extra)


def reduce_graph_module(body, src, extra_globals, class_name="GraphModule"):
    """Rebuild a pickled GraphModule: exec its code and re-trace it with every submodule a leaf."""
    from .._device import device
    from ._codegen import _torch_module
    from ._symbolic_trace import Tracer
    import math
    globals_ = {"inf": math.inf, "nan": math.nan, "NoneType": type(None), "torch": _torch_module(),
                "device": device, **extra_globals}
    forward = _exec_forward(src, globals_)

    class CodeOnlyModule(Module):
        def __init__(self, body):
            super().__init__()
            self.__dict__ = body

    CodeOnlyModule.forward = forward
    com = CodeOnlyModule(body)

    class KeepModules(Tracer):
        def is_leaf_module(self, m, qualname):
            return True

    graph = KeepModules().trace(com)
    return GraphModule(com, graph, class_name)



"""`torch.fx`: a Python-level symbolic tracer over torchshim's public API.

`symbolic_trace(module_or_fn)` runs `forward` on Proxies and records a `Graph` of `Node`s (placeholder,
get_attr, call_function, call_method, call_module, output); `GraphModule` turns a Graph back into a Module
whose `forward` is generated Python source; `Interpreter`/`Transformer` run or rewrite a graph node by node;
`subgraph_rewriter.replace_pattern` rewrites patterns; `passes.shape_prop.ShapeProp` records shapes.

torchshim functions called with a Proxy record a `call_function` node through the `__torch_function__` hook
at the public function entry (ops/_override.py), as PyTorch's functions do. Node names, graph printouts and
generated code read as PyTorch's (`torch.relu`, `torch.nn.functional.relu`, `operator.add`).

Differences from PyTorch: no `CodeGen` customisation (`Graph.set_codegen`), no `torch.fx.experimental`
(symbolic shapes, proxy_tensor), no stack traces in `print_readable`; see docs/differences.md.
"""
from . import graph, graph_module, interpreter, node, proxy, subgraph_rewriter  # noqa: F401
from . import passes  # noqa: F401
from ._symbolic_trace import PH, Tracer, symbolic_trace, wrap  # noqa: F401
from .graph import Graph  # noqa: F401
from .graph_module import GraphModule  # noqa: F401
from .interpreter import Interpreter, Transformer  # noqa: F401
from .node import Node, has_side_effect, map_arg  # noqa: F401
from .proxy import Proxy  # noqa: F401
from .subgraph_rewriter import replace_pattern  # noqa: F401
from . import _symbolic_trace  # noqa: F401

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node",
           "Proxy", "replace_pattern", "has_side_effect", "map_arg", "PH"]

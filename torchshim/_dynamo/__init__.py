"""`torch._dynamo`: the names scripts touch — `config` (suppress_errors, recompile_limit/cache_size_limit,
...), `reset`, `disable`, `allow_in_graph`, `mark_dynamic`/`mark_static`/`maybe_mark_dynamic`, `explain`,
`is_compiling`, `optimize`, `exc` (Unsupported, InvalidBackend), `list_backends`. torchshim's torch.compile
traces with jax (compiler/_program.py); there is no bytecode analysis, so these map onto that engine."""
from ..compiler import _stance, allow_in_graph, disable, is_compiling, reset  # noqa: F401
from ..compiler._compile import compile as _compile, list_backends  # noqa: F401
from . import exc  # noqa: F401

config = _stance.config

__all__ = ["config", "reset", "disable", "allow_in_graph", "mark_dynamic", "mark_static",
           "maybe_mark_dynamic",
           "is_compiling", "optimize", "explain", "list_backends", "exc", "run"]


def mark_dynamic(t, index, *, min=None, max=None):
    """`torch._dynamo.mark_dynamic(t, index)`: a hint that dimension `index` of `t` varies. Difference:
    torchshim traces one program per shape (jax shapes are static), so the mark is recorded on the tensor and
    otherwise has no effect; a changing dimension retraces (docs/compile.md)."""
    dims = t.__dict__.setdefault("_dynamo_dynamic_indices", set())
    dims.update([index] if isinstance(index, int) else index)


def maybe_mark_dynamic(t, index):
    """`torch._dynamo.maybe_mark_dynamic(t, index)`: as `mark_dynamic`."""
    mark_dynamic(t, index)


def mark_static(t, index=None):
    """`torch._dynamo.mark_static(t, index=None)`: shapes are static in torchshim already; recorded only."""
    t.__dict__.setdefault("_dynamo_static_indices", set()).update([] if index is None else [index])


def optimize(backend="inductor", *, nopython=False, dynamic=None, **kwargs):
    """`torch._dynamo.optimize(backend, nopython=False)`: a decorator compiling its function
    (`nopython=True` is fullgraph)."""
    def deco(fn):
        return _compile(fn, backend=backend if isinstance(backend, str) else "inductor", fullgraph=nopython,
                        dynamic=dynamic)
    return deco


def run(fn=None):
    """`torch._dynamo.run(fn)`: fn (runs as compiled code already does)."""
    return fn


class ExplainOutput:
    """What `torch._dynamo.explain(fn)(*args)` returns: graph and break counts and the break reasons."""

    def __init__(self, graph_count, graph_break_count, break_reasons):
        self.graph_count = graph_count
        self.graph_break_count = graph_break_count
        self.break_reasons = break_reasons
        self.op_count = None

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 "Break Reasons:"]
        lines += [f"  Break Reason 1:\n    Reason: {r}" for r in self.break_reasons]
        return "\n".join(lines)


def explain(f, *extra_args, **extra_kwargs):
    """`torch._dynamo.explain(f)(*args, **kwargs) -> ExplainOutput`: traces `f` once as torch.compile does
    (fullgraph) and reports one graph, or the graph break that stops it."""
    def inner(*args, **kwargs):
        cf = _compile(f, fullgraph=True)
        try:
            cf(*args, **kwargs)
        except exc.Unsupported as e:
            return ExplainOutput(0, 1, [str(e)])
        return ExplainOutput(1, 0, [])
    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner

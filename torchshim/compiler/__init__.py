"""`torch.compiler`: the user-facing switches of torch.compile (compiler/_program.py traces and runs the
programs). `is_compiling()` is True while a compiled function's Python code is being traced."""
import warnings

from . import _capture, _stance as _stance_state
from ._compile import _REGISTRY, OptimizedModule, compile, list_backends  # noqa: F401

__all__ = ["compile", "list_backends", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable",
           "reset", "allow_in_graph", "assume_constant_result", "cudagraph_mark_step_begin", "set_stance",
           "substitute_in_graph"]


def is_compiling():
    """`torch.compiler.is_compiling() -> bool`: True while torch.compile traces the calling code."""
    return _capture.active() is not None


def is_dynamo_compiling():
    """`torch.compiler.is_dynamo_compiling() -> bool`: as `is_compiling()`."""
    return _capture.active() is not None


def is_exporting():
    """`torch.compiler.is_exporting() -> bool`: False."""
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """`torch.compiler.disable(fn=None, recursive=True, *, reason=None)`: fn itself; with no fn, a decorator.
    Difference: PyTorch runs a disabled function eagerly between two graphs; torchshim does not split
    programs, so called from compiled code it is traced into the program (same results; a host read inside
    it is a graph break of the whole call)."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    return fn


def reset():
    """`torch.compiler.reset()`: drops every compiled function's programs (the next call traces again)."""
    _REGISTRY.reset()


def allow_in_graph(fn):
    """`torch.compiler.allow_in_graph(fn)`: fn (or a list of them) unchanged."""
    return fn


def assume_constant_result(fn):
    """`torch.compiler.assume_constant_result(fn)`: fn unchanged."""
    return fn


def substitute_in_graph(original_fn, *, can_constant_fold_through=False, skip_signature_check=False):
    """`torch.compiler.substitute_in_graph(original_fn)`: a decorator returning the polyfill unchanged."""
    return lambda fn: fn


def cudagraph_mark_step_begin():
    """`torch.compiler.cudagraph_mark_step_begin()`: no CUDA graphs here; nothing to mark."""


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """`torch.compiler.set_stance(stance='default', ...)`: 'default', 'force_eager', 'eager_on_recompile',
    'fail_on_recompile', 'eager_then_compile', 'aot_eager_then_compile'. 'force_eager' runs compiled
    functions eagerly; 'fail_on_recompile' raises instead of tracing again; the others compile as
    'default'."""
    if force_backend is not None and stance != "default":
        warnings.warn("force_backend is only used with stance 'default'", stacklevel=2)
    _stance_state.set_stance(stance)

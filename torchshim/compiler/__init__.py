"""`torch.compiler`: the user-facing switches of torch.compile. torchshim runs compiled code eagerly
(`torch.compile` validates its arguments, then calls the model), so `is_compiling()` is always False and the
graph-break helpers (`disable`, `allow_in_graph`, `assume_constant_result`) return their function."""
import warnings

from ._compile import OptimizedModule, compile, list_backends  # noqa: F401

__all__ = ["compile", "list_backends", "is_compiling", "is_dynamo_compiling", "is_exporting", "disable",
           "reset", "allow_in_graph", "assume_constant_result", "cudagraph_mark_step_begin", "set_stance",
           "substitute_in_graph"]


def is_compiling():
    """`torch.compiler.is_compiling() -> bool`: False (nothing is traced by a compiler here)."""
    return False


def is_dynamo_compiling():
    """`torch.compiler.is_dynamo_compiling() -> bool`: False."""
    return False


def is_exporting():
    """`torch.compiler.is_exporting() -> bool`: False."""
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """`torch.compiler.disable(fn=None, recursive=True, *, reason=None)`: fn itself (it already runs
    eagerly); with no fn, a decorator."""
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    return fn


def reset():
    """`torch.compiler.reset()`: clears torch.compile's caches; torchshim's compile keeps none."""


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


_stance = ["default"]


def set_stance(stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
    """`torch.compiler.set_stance(stance='default', ...)`: 'default', 'force_eager', 'eager_on_recompile',
    'fail_on_recompile', 'eager_then_compile', 'aot_eager_then_compile'; stored, unchecked at this call as
    in PyTorch (everything runs eagerly)."""
    if force_backend is not None and stance != "default":
        warnings.warn("force_backend is only used with stance 'default'", stacklevel=2)
    _stance[0] = stance

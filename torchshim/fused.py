"""`torchshim.fused`: fused eager mode, torchshim's own (PyTorch has no such module).

In fused mode, eager ops are recorded instead of dispatched one by one; the recorded sequence (a *segment*)
runs as one jitted XLA program when a value must exist: a host read (`item()`, `tolist()`, `numpy()`,
printing, `bool(t)`, an op whose output shape depends on values), the end of `optimizer.step()`, a
`torch.compile`d call, a collective, or the length limit (`TORCHSHIM_FUSED_MAX_OPS`, default 10000 ops).
Programs are cached by the segment's structure (ops, static arguments, shapes, dtypes, wiring), so a training
loop compiles its few segments once. Eager semantics are unchanged: views, in-place writes, version counters,
autograd, errors and random streams are those of op mode. docs/performance.md ("Fused eager mode") has the
details, the flush points and how to debug a recompilation (`TORCHSHIM_LOGS=recompiles`).

Turn it on with `torchshim.set_eager_mode("fused")`, `TORCHSHIM_EAGER=fused` or `python -m torchshim run
--fused script.py`.
"""
from ._fused import clear_cache, flush, get_mode, reset_stats, set_mode, stats  # noqa: F401

__all__ = ["stats", "reset_stats", "flush", "clear_cache", "get_mode", "set_eager_mode", "eager_mode"]


def set_eager_mode(mode):
    """`torchshim.set_eager_mode(mode)`: "fused" records eager ops and runs them as cached XLA programs;
    "op" (the default) runs each op when it is called. Switching runs whatever is pending."""
    set_mode(mode)


def eager_mode():
    """The current eager mode, "op" or "fused"."""
    return get_mode()

"""Fused eager mode's machinery (base layer): kernels record instead of running, and recorded op sequences
run as cached jitted programs. `docs/performance.md` ("Fused eager mode") describes it for users;
`torchshim.fused` is the public module.

- `_jit.jit`: the `jax.jit` every torchshim kernel is made with (records in fused mode);
- `_lazy.LazyArray`: a recorded value; `concrete(x)` its array;
- `_segment`: the pending segment, `flush(why)`;
- `_program`: the program cache, stats, recompile log, op-by-op fallback.
"""
import os

from . import _program, _segment
from ._jit import jit
from ._lazy import LazyArray, concrete, concrete_tree
from ._state import MODES, STATE

__all__ = ["jit", "LazyArray", "concrete", "concrete_tree", "flush", "set_mode", "get_mode",
           "stats", "reset_stats", "clear_cache", "step_boundary", "pending", "check_later", "settle"]

flush = _segment.flush
check_later = _program.check_later


def pending(x):
    """Whether `x` is a recorded value whose segment has not run yet."""
    return type(x) is LazyArray and x.value is None
stats = _program.stats
reset_stats = _program.reset_stats
clear_cache = _program.clear_cache


def set_mode(mode):
    """Switch eager execution: "op" (each op runs when called) or "fused" (ops are recorded and run as
    segments). Switching runs what is pending."""
    if mode not in MODES:
        raise ValueError(f"eager mode must be one of {list(MODES)}, got {mode!r}")
    try:
        flush("set_eager_mode")  # an error of the pending ops (a deferred index check) propagates...
    finally:
        STATE.fused = mode == "fused"  # ...after the switch


def get_mode():
    """The current eager mode: "op" or "fused"."""
    return "fused" if STATE.fused else "op"


def settle(storages):
    """Replace each storage's recorded value by its computed array (running what is pending first): for code
    that hands storage arrays to jax programs of its own (torch.compile's, torch.jit's)."""
    for st in storages:
        a = st._array
        if type(a) is LazyArray:
            st._array = a.force("a compiled program's input")


def step_boundary(why):
    """A natural end of a segment (an optimizer step, a collective): run what is pending."""
    if STATE.seg is not None:
        flush(why)


def _before_fork():
    # a forked child (a DataLoader worker, multiprocessing) starts with every value computed and nothing
    # pending: it must not share (and each run) one pending segment with its parent
    if STATE.seg is not None:
        flush("os.fork()")


os.register_at_fork(before=_before_fork)

_env = os.environ.get("TORCHSHIM_EAGER", "").strip().lower()
if _env:
    set_mode(_env)

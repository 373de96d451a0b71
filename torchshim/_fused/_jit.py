"""`jit`: `jax.jit` for torchshim's kernels, which in fused eager mode records the call instead of running it.

Every kernel of the op table, the view reads/writes and the tape's pullbacks are made by this `jit`. In op
mode (the default) a call is the jax.jit call (one Python call more). In fused mode (`_state.STATE.fused`) a
call with no jax tracer among its arguments is appended to the pending segment (`_segment.record`): its
outputs are LazyArrays of the shapes and dtypes jax infers (`jax.eval_shape`, once per kernel and argument
signature) and the segment later runs as one jitted program.
"""
import functools
import inspect

import jax

from . import _segment
from ._state import STATE

__all__ = ["jit", "Kernel"]


class Kernel:
    """What the recorder needs of a kernel: the jitted function, which positional/keyword arguments are
    static, and its name (for logs and errors)."""

    __slots__ = ("jitted", "static_pos", "static_names", "name")

    def __init__(self, jitted, static_pos, static_names, name):
        self.jitted = jitted
        self.static_pos = static_pos
        self.static_names = static_names
        self.name = name


def _static_sets(fn, static_argnums, static_argnames):
    """(static positions, static keyword names), each completed through fn's signature as jax.jit does."""
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    pos, names = set(static_argnums or ()), set(static_argnames or ())
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    for i, p in enumerate(params):
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            if p.name in names:
                pos.add(i)
            if i in pos and p.kind is p.POSITIONAL_OR_KEYWORD:
                names.add(p.name)
    return frozenset(pos), frozenset(names)


def jit(fn=None, *, static_argnums=None, static_argnames=None, **jit_kwargs):
    """`jax.jit(fn, static_argnums=, static_argnames=, ...)` that fused eager mode records (see the module
    docstring). Usable as `@jit`, `@partial(jit, static_argnames=...)` and `jit(fn, ...)`."""
    if fn is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 **jit_kwargs)
    jitted = jax.jit(fn, static_argnums=static_argnums, static_argnames=static_argnames, **jit_kwargs)
    pos, names = _static_sets(fn, static_argnums, static_argnames)
    kernel = Kernel(jitted, pos, names, getattr(fn, "__name__", "kernel"))
    record = _segment.record

    def call(*args, **kwargs):
        if STATE.fused:
            return record(kernel, args, kwargs)
        return jitted(*args, **kwargs)

    functools.update_wrapper(call, fn)
    call.jitted = jitted
    call.kernel = kernel
    for name in ("lower", "trace", "eval_shape", "_cache_size", "clear_cache"):  # jax.jit's own methods
        if hasattr(jitted, name):
            setattr(call, name, getattr(jitted, name))
    return call

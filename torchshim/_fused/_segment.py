"""The pending segment of fused eager mode: recording kernel calls, and running them (`flush`).

A record is `(signature, sources)`:
- signature = (kernel, argument template, keyword template, leaf avals): the kernel, its static arguments and
  the structure of its dynamic ones (leaves replaced by `LEAF`), and each dynamic leaf's (shape, dtype, weak
  type) -- or its Python type for a Python number, which jax.jit treats as a weakly typed value;
- sources: where each dynamic leaf comes from: an `int` is a slot of the segment's inputs (concrete arrays,
  deduplicated by identity, and Python numbers), a pair `(r, j)` is output j of record r.
The records are the program's structure: equal structures (and the same outputs still referenced at the
flush) share one compiled program (`_program`). The cache key is `Segment.key`, the same structure as a flat
list of integers made while recording (each signature's number, then each leaf's source: `2 * slot` for an
input, `2 * (r << 8 | j) + 1` for output j of record r), cheap to hash and compare.
"""
import itertools
import threading

import jax
import numpy as np

from . import _lazy, _program
from ._lazy import LazyArray
from ._state import CONCRETE_TYPES as _concrete_types, STATE

__all__ = ["Segment", "record", "flush", "LEAF"]

LEAF = ("<leaf>",)  # a dynamic leaf's place in a template (compared by value: a tuple no caller can pass)
_SCALARS = (int, float, bool, complex)
_out_avals = {}  # signature -> (output treedef, [(shape, dtype, weak_type)], number) from jax.eval_shape
_OUT_AVALS_MAX = 200_000
_numbers = itertools.count(1)  # signature numbers (never reused, so a number names one signature)


class Segment:
    """The ops recorded since the last flush."""

    __slots__ = ("records", "key", "outs", "inputs", "input_ids", "error", "checks")

    def __init__(self):
        self.records = []  # (signature, sources)
        self.key = []  # the records as integers (see the module docstring)
        self.outs = []  # per record: its output LazyArrays
        self.inputs = []  # concrete arrays and Python numbers, by slot
        self.input_ids = {}  # id(array) -> slot
        self.error = None  # the exception that stopped this segment's program, if any
        self.checks = []  # (LazyArray, check(numpy array), 'file:line'): value checks run after the program


class _Direct(Exception):
    """A dynamic argument the recorder does not take (a jax tracer, an unknown object): call the kernel."""


def _input(x, seg, srcs, avals, aval):
    slot = seg.input_ids.get(id(x))
    if slot is None:
        slot = seg.input_ids[id(x)] = len(seg.inputs)
        seg.inputs.append(x)
    srcs.append(slot)
    avals.append(aval)
    return LEAF


def _walk(x, seg, srcs, avals):
    """x's template; appends each dynamic leaf's source and aval."""
    t = type(x)
    if t is LazyArray:
        v = x.value
        if v is not None:
            return _walk(v, seg, srcs, avals)
        if x.seg is not seg:
            x.force()  # a value of a segment that failed: force raises
            return _walk(x.value, seg, srcs, avals)
        srcs.append((x.rec, x.idx))
        avals.append((x.shape, x.dtype, x.weak_type))
        return LEAF
    if t in _concrete_types:
        return _input(x, seg, srcs, avals, (x.shape, x.dtype, x.weak_type))
    if t is list or t is tuple:
        return (t, tuple([_walk(e, seg, srcs, avals) for e in x]))
    if t is dict:
        return (dict, tuple([(k, _walk(v, seg, srcs, avals)) for k, v in x.items()]))
    if t in _SCALARS:
        seg.inputs.append(x)  # never deduplicated (1 and 1.0 and True are equal keys)
        srcs.append(len(seg.inputs) - 1)
        avals.append(t)
        return LEAF
    if x is None:
        return None
    if isinstance(x, jax.core.Tracer):
        raise _Direct
    if isinstance(x, jax.Array):
        _concrete_types.add(t)
        return _walk(x, seg, srcs, avals)
    if isinstance(x, (np.ndarray, np.generic)):
        return _input(x, seg, srcs, avals, (x.shape, x.dtype, False))
    raise _Direct


def build(template, leaves):
    """The argument `template` describes, with its leaves taken in order from iterator `leaves`."""
    if template is LEAF:
        return next(leaves)
    if template is None:
        return None
    t, items = template
    if t is dict:
        return {k: build(v, leaves) for k, v in items}
    return t([build(e, leaves) for e in items])


def call_args(kernel, targs, tkw, leaves):
    """(args, kwargs) of a recorded call from its templates and its dynamic leaves (an iterator)."""
    sp, sn = kernel.static_pos, kernel.static_names
    args = [a if i in sp else build(a, leaves) for i, a in enumerate(targs)]
    kwargs = {k: (v if k in sn else build(v, leaves)) for k, v in tkw}
    return args, kwargs


def _infer(sig, seg, srcs):
    """(output treedef, output avals) of a recorded call, by jax.eval_shape on its abstract arguments."""
    kernel, targs, tkw, avals = sig
    leaves = []
    for s, av in zip(srcs, avals):
        if type(s) is int:
            leaves.append(seg.inputs[s])
        else:
            leaves.append(jax.ShapeDtypeStruct(av[0], av[1], weak_type=av[2]))

    def on_leaves(*leaves):  # static arguments stay out of eval_shape's (abstracted) arguments
        args, kwargs = call_args(kernel, targs, tkw, iter(leaves))
        return kernel.jitted(*args, **kwargs)
    out = jax.eval_shape(on_leaves, *leaves)
    flat, tree = jax.tree_util.tree_flatten(out)
    if len(_out_avals) > _OUT_AVALS_MAX:
        _out_avals.clear()
    avals = [(tuple(o.shape), o.dtype, bool(getattr(o, "weak_type", False))) for o in flat]
    if len(avals) > 255:
        raise _Direct  # more outputs than a source code holds (none of torchshim's kernels)
    return tree, avals, next(_numbers)


# One pending segment per process, shared by its threads: recording and flushing hold this lock, so a flush
# from another thread (multiprocessing's queue feeder pickling a DataLoader batch, say) never runs a
# segment while a record is half made, and a record never appends to a segment that has run.
_LOCK = threading.RLock()


def record(kernel, args, kwargs):
    """Append `kernel(*args, **kwargs)` to the pending segment; its outputs as LazyArrays."""
    if STATE.suspended:
        return _direct(kernel, args, kwargs)
    with _LOCK:
        return _record(kernel, args, kwargs)


def _record(kernel, args, kwargs):
    seg = STATE.seg
    if seg is None:
        seg = STATE.seg = Segment()
    srcs, avals = [], []
    n_inputs = len(seg.inputs)
    sp = kernel.static_pos
    try:
        targs = tuple([a if i in sp else _walk(a, seg, srcs, avals) for i, a in enumerate(args)])
        if kwargs:
            sn = kernel.static_names
            tkw = tuple([(k, v if k in sn else _walk(v, seg, srcs, avals)) for k, v in kwargs.items()])
        else:
            tkw = ()
        sig = (kernel, targs, tkw, tuple(avals))
        out = _out_avals.get(sig)
        if out is None:
            out = _out_avals[sig] = _infer(sig, seg, srcs)
            if STATE.seg is not seg:  # tracing the kernel ran the segment (a host read in its Python code)
                return _record(kernel, args, kwargs)
    except _Direct:
        _unwind(seg, n_inputs)
        return _direct(kernel, args, kwargs)
    except BaseException:
        _unwind(seg, n_inputs)
        raise
    r = len(seg.records)
    seg.records.append((sig, srcs))
    tree, out_avals, number = out
    key = seg.key
    key.append(number)
    for s in srcs:
        key.append(2 * s if type(s) is int else 2 * (s[0] << 8 | s[1]) + 1)
    lazies = [LazyArray(s, d, w, seg, r, j) for j, (s, d, w) in enumerate(out_avals)]
    seg.outs.append(lazies)
    result = lazies[0] if tree.num_nodes == 1 and len(lazies) == 1 else tree.unflatten(lazies)
    if r + 1 >= STATE.max_ops:
        flush("the segment reached its length limit (TORCHSHIM_FUSED_MAX_OPS)")
    return result


def _unwind(seg, n_inputs):
    """Forget the inputs a failed record added."""
    for x in seg.inputs[n_inputs:]:
        if seg.input_ids.get(id(x)) is not None and seg.input_ids[id(x)] >= n_inputs:
            del seg.input_ids[id(x)]
    del seg.inputs[n_inputs:]


def _direct(kernel, args, kwargs):
    """Run the kernel now (inside a jax trace, or with an argument the recorder does not take)."""
    return kernel.jitted(*_lazy.concrete_tree(args), **_lazy.concrete_tree(kwargs))


def flush(why="flush"):
    """Run the pending segment (if any): every recorded value still referenced gets its array."""
    with _LOCK:
        seg = STATE.seg
        if seg is None:
            return
        STATE.seg = None
        if seg.records:
            _program.run(seg, why)


_lazy._flush = flush

"""Running a segment: one cached `jax.jit` program per segment structure, with counts and recompile reasons.

The cache key is the segment's records (each kernel, its static arguments, the avals of its dynamic
arguments and their wiring) and which outputs are still referenced when it runs (the program returns only
those; XLA drops the rest). The cache keeps `STATE.cache_size` programs (least recently used dropped).

A structure (the key without shapes) compiled for more than `STATE.recompile_limit` shape signatures is
marked dynamic: its segments then run op by op (each recorded kernel called in turn, as op mode would), and
`TORCHSHIM_LOGS=recompiles` says so once. Each compile after the first of a flush site is logged there with
its reason: the first op whose shapes or dtypes differ from the site's previous program, or the op where the
recorded sequence itself changed.
"""
import collections
import os
import sys
import time

import jax
import numpy as np

from ._state import CONCRETE_TYPES as _concrete_types, STATE

__all__ = ["run", "stats", "reset_stats", "clear_cache", "check_later"]

_cache = collections.OrderedDict()  # key -> jitted program
_structures = collections.Counter()  # structure (no shapes) -> programs compiled for it
_dynamic = set()  # structures that run op by op
_last_at_site = {}  # flush reason -> records of the last program compiled at it
_REFS_WHEN_DEAD = None  # sys.getrefcount of an output nothing else references (measured below)


class _Stats:
    def __init__(self):
        self.segments = 0
        self.ops = 0
        self.compiles = 0
        self.cache_hits = 0
        self.op_by_op_segments = 0
        self.compile_s = 0.0
        self.run_s = 0.0
        self.evictions = 0
        self.flush_reasons = collections.Counter()


_stats = _Stats()


def _log_names():
    return {n.strip() for n in os.environ.get("TORCHSHIM_LOGS", "").split(",") if n.strip()}


def _log_on():
    """TORCHSHIM_LOGS names `recompiles` (each compile and its reason), `fused` (that, and every flush) or
    `all`."""
    return bool(_log_names() & {"recompiles", "fused", "all"})


def _log(msg):
    print(f"[torchshim fused] {msg}", file=sys.stderr, flush=True)


def _user_line():
    """'file:line' of the innermost frame outside torchshim and jax (where the user's code stands)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(here) and "/jax/" not in fn and "/jaxlib/" not in fn and "<frozen" not in fn:
            return f"{fn}:{f.f_lineno}"
        f = f.f_back
    return "?"


def _live(seg):
    dead = _REFS_WHEN_DEAD
    live = []
    for r, outs in enumerate(seg.outs):
        for j in range(len(outs)):
            if sys.getrefcount(outs[j]) > dead:
                live.append((r, j))
    return tuple(live)


def _measure_dead_refs():
    from ._lazy import LazyArray
    outs = [LazyArray((), None, False, None, 0, 0)]
    return sys.getrefcount(outs[0])


def _donatable(seg, live):
    """The inputs the program may donate (write its outputs into): concrete jax arrays nothing but the
    segment references any more (a parameter or optimizer state the step has replaced), each matched to a
    kept output of its shape and dtype (XLA reuses a donated buffer only for such an output)."""
    wanted = collections.Counter((seg.outs[r][j].shape, seg.outs[r][j].dtype) for r, j in live)
    inputs, concrete = seg.inputs, _concrete_types
    donate = []
    for i in range(len(inputs)):
        if type(inputs[i]) in concrete and sys.getrefcount(inputs[i]) <= 2:  # the list's and the argument's
            k = (inputs[i].shape, inputs[i].dtype)
            if wanted[k] > 0:
                wanted[k] -= 1
                donate.append(i)
    return tuple(donate)


def _split(inputs, donate):
    """(donated inputs, kept inputs): the program's two arguments."""
    if not donate:
        return [], inputs
    d = set(donate)
    return [inputs[i] for i in donate], [x for i, x in enumerate(inputs) if i not in d]


def _make_program(records, live, donate, n_inputs):
    from ._segment import call_args
    steps = [(sig[0], sig[1], sig[2], srcs) for sig, srcs in records]
    d = set(donate)
    kept_at = [i for i in range(n_inputs) if i not in d]

    def program(donated, kept):
        inputs = [None] * n_inputs
        for i, x in zip(donate, donated):
            inputs[i] = x
        for i, x in zip(kept_at, kept):
            inputs[i] = x
        env = []
        for kernel, targs, tkw, srcs in steps:
            leaves = [inputs[s] if type(s) is int else env[s[0]][s[1]] for s in srcs]
            args, kwargs = call_args(kernel, targs, tkw, iter(leaves))
            env.append(jax.tree_util.tree_leaves(kernel.jitted(*args, **kwargs)))
        return [env[r][j] for r, j in live]
    return program


def _structure(records):
    return tuple((sig[0], sig[1], sig[2], tuple(srcs)) for sig, srcs in records)


def _difference(old, new):
    """Why `new` records differ from `old` (the first differing op), in words."""
    for i, (a, b) in enumerate(zip(old, new)):
        if a == b:
            continue
        ka, kb = a[0][0], b[0][0]
        if ka is not kb:
            return f"op #{i} is `{kb.name}` where the previous program had `{ka.name}`"
        if a[0][:3] == b[0][:3] and a[1] == b[1]:
            was = [_show(v) for v in a[0][3]]
            now = [_show(v) for v in b[0][3]]
            return f"op #{i} `{kb.name}` input shapes/dtypes changed: {was} -> {now}"
        return f"op #{i} `{kb.name}` static arguments or inputs changed"
    if len(old) != len(new):
        return f"{len(new)} ops where the previous program had {len(old)}"
    return "other ops' outputs are still referenced"


def _show(aval):
    if isinstance(aval, tuple):
        return f"{getattr(aval[1], 'name', aval[1])}{list(aval[0])}"
    return aval.__name__


def run(seg, why):
    """Run segment `seg` (ended by `why`): its still referenced outputs get their arrays."""
    global _REFS_WHEN_DEAD
    if _REFS_WHEN_DEAD is None:
        _REFS_WHEN_DEAD = _measure_dead_refs()
    st = _stats
    st.segments += 1
    st.ops += len(seg.records)
    st.flush_reasons[why] += 1
    live = _live(seg)
    records = seg.records
    if "fused" in _log_names():
        _log(f"running a segment of {len(records)} ops ({len(live)} outputs kept), ended by {why} at "
             f"{_user_line()}")
    donate = _donatable(seg, live) if STATE.donate else ()
    key = (tuple(seg.key), live, donate)
    prog = _cache.get(key)
    args = _split(seg.inputs, donate)
    seg.inputs = None  # the donated arrays' last reference: they are the program's now
    t0 = time.perf_counter()
    try:
        if prog is not None:
            _cache.move_to_end(key)
            st.cache_hits += 1
            with jax.ensure_compile_time_eval():
                results = prog(*args)
            st.run_s += time.perf_counter() - t0
        else:
            structure = _structure(records)
            program = _make_program(records, live, donate, len(args[0]) + len(args[1]))
            if structure in _dynamic:
                st.op_by_op_segments += 1
                with jax.ensure_compile_time_eval():
                    results = program(*args)
                st.run_s += time.perf_counter() - t0
            else:
                results = _compile_and_run(seg, why, key, records, structure, program, args, bool(donate))
                st.compile_s += time.perf_counter() - t0
    except BaseException as e:
        seg.error = e  # its outputs keep `seg` and no value: reading one raises
        raise
    outs = seg.outs
    for (r, j), v in zip(live, results):
        outs[r][j].value = v
    for o_list in outs:
        for o in o_list:
            o.seg = None
    _run_checks(seg.checks)


def _run_checks(checks):
    """The value checks ops deferred to this flush (index bounds, class targets), in the order of the ops."""
    for lazy, check, where in checks:
        try:
            check(np.asarray(lazy.value))
        except Exception as e:
            e.add_note(f"(torchshim fused eager mode: found when the recorded ops ran; the op was called at "
                       f"{where}. TORCHSHIM_EAGER=op raises it at the op itself.)")
            raise


def check_later(lazy, check):
    """Run `check(values)` (a numpy array; it raises PyTorch's error for bad values) on pending `lazy`'s
    values once its segment has run; the error then names the Python line of the op."""
    lazy.seg.checks.append((lazy, check, _user_line()))


def _compile_and_run(seg, why, key, records, structure, program, args, donating):
    st = _stats
    n = _structures[structure] = _structures[structure] + 1
    if n > STATE.recompile_limit:
        _dynamic.add(structure)
        if _log_on():
            _log(f"a segment of {len(records)} ops (ended by {why}, at {_user_line()}) was compiled for "
                 f"{n - 1} different shapes; it runs op by op from now on")
        st.op_by_op_segments += 1
        with jax.ensure_compile_time_eval():
            return program(*args)
    if _log_on():
        site = why
        old = _last_at_site.get(site)
        if old is not None:
            _log(f"recompiling a segment of {len(records)} ops (ended by {why}, at {_user_line()}): "
                 f"{_difference(old, records)}")
        else:
            _log(f"compiling a segment of {len(records)} ops (ended by {why}, at {_user_line()})")
        _last_at_site[site] = records
    prog = jax.jit(program, donate_argnums=(0,) if donating else ())
    with jax.ensure_compile_time_eval():
        results = prog(*args)
    st.compiles += 1
    _cache[key] = prog
    if len(_cache) > STATE.cache_size:
        _cache.popitem(last=False)
        st.evictions += 1
    return results


def stats():
    """Counts of fused eager mode since the start (or `reset_stats()`): a dict of segments, ops, compiles,
    cache_hits, op_by_op_segments, compile_s, run_s (dispatch time of cached programs), evictions,
    cache_size, flush_reasons."""
    st = _stats
    return {"segments": st.segments, "ops": st.ops, "compiles": st.compiles, "cache_hits": st.cache_hits,
            "op_by_op_segments": st.op_by_op_segments, "compile_s": st.compile_s, "run_s": st.run_s,
            "evictions": st.evictions, "cache_size": len(_cache), "flush_reasons": dict(st.flush_reasons)}


def reset_stats():
    """Zero the counts of `stats()` (the program cache stays)."""
    global _stats
    _stats = _Stats()


def clear_cache():
    """Drop every compiled segment program and the shape history of segment structures."""
    _cache.clear()
    _structures.clear()
    _dynamic.clear()
    _last_at_site.clear()

"""A compiled function: its cache of XLA programs, how one is traced, and how a call runs one.

`CompiledFunction(fn)(*args, **kwargs)`:

1. Guards. The arguments and what `fn` reaches (`_guards.roots_of`) are walked: the *signature* (shapes,
   dtypes, `requires_grad`, `.grad`, `training`, Python scalars, structure; storages numbered by first
   appearance, so aliasing is guarded but identity is not) picks the cache entry, together with the grad mode
   and the matmul precision. The tensors found are the candidate inputs, by position in the walk.
2. Trace (on a miss). Discovery trace: `fn` runs under `jax.jit` tracing with every walked storage lifted (its
   array replaced by an input tracer) and the storage hook on (`_capture.Capture`): it tells which lifted
   storages are used and written, which pre-existing storages were read without being lifted (*misses*),
   which generators were drawn from, which storages the call creates that outlive it, whether `backward()`
   ran and whether the outputs require grad. Every Python-level effect of that trace (new `.grad`s,
   optimizer state, attributes) is then undone, and the final program is traced with exactly those inputs:
   written inputs are donated (memory does not double), misses lifted. A forward whose outputs require grad
   and that runs no `backward()` becomes one tape node (`_node.CompiledNode`): its forward is the program
   under `jax.vjp`, its backward one compiled program over the saved residuals.
3. Run. The inputs' current arrays go in; results come back as fresh tensors (views of inputs stay views);
   written storages, storages created by the trace that outlive it, and generators' draw counts are updated.

Collectives (torch.distributed's all_reduce, broadcast, all_gather(_into_tensor) on the world group of more
than one process; see distributed/_traced.py): when the discovery trace records one (`Capture.collectives`),
the final program is the user function inside `jax.shard_map` over the world Mesh (axis "r", `_collective`):
each input and output is this rank's array (the global array is the ranks' arrays concatenated along dim 0,
0-d arrays as (1,)), and each call first agrees with the other ranks on the program (a clear error, not a
hang, when they differ). A compiled forward whose outputs require grad (a tape node) cannot hold collectives:
it is a graph break. Programs without collectives are unchanged.

A host read (`.item()`, `bool(t)`, `print(t)`, `.numpy()`, data-dependent shapes) cannot be traced: with
`fullgraph=True` it raises `torch._dynamo.exc.Unsupported` naming the user's file and line; otherwise the call
runs eagerly (all of it; the program is not split) with one warning per site, and later calls with the same
signature run eagerly without tracing again.
"""
import collections
import hashlib
import linecache
import os
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from .. import _dtype as _D
from .. import _fused, _precision, _random
from ..ops import _autocast
from .._tensor import Tensor, fresh
from ..autograd import _engine
from ..autograd import _node
from ..autograd.grad_mode import is_grad_enabled, no_grad, set_grad_enabled
from . import _capture, _guards, _log, _stance
from ._capture import Capture, rng_inputs

__all__ = ["CompiledFunction", "Unsupported", "RECOMPILE_LIMIT"]

RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit's default
_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_JAX = os.path.dirname(os.path.abspath(jax.__file__))


class _NotFound(RuntimeError):
    """The traced code reads state the program cannot take as an input it differentiates."""


class Unsupported(RuntimeError):
    """`torch._dynamo.exc.Unsupported`: what `fullgraph=True` raises at a graph break."""


_BREAK_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                 jax.errors.TracerIntegerConversionError, jax.errors.NonConcreteBooleanIndexError)


def _break_reason(e):
    """Why exception `e`, raised while tracing, is a graph break (a host read), or None."""
    if isinstance(e, _BREAK_ERRORS):
        names = _frames(e)
        if "__bool__" in names:
            return ("Data-dependent branching: bool() of a tensor (an `if` or `while` on it) needs its value "
                    "on the host")
        for n in ("item", "tolist", "numpy", "__repr__", "__str__", "__format__", "__int__",
                  "__float__", "__index__", "__len__"):
            if n in names:
                return f"Tensor.{n}() needs the tensor's value on the host"
        return "a tensor's value is needed on the host (" + type(e).__name__ + ")"
    if isinstance(e, RuntimeError) and "jax tracing" in str(e):
        return str(e).split("\n")[0]
    return None


def _frames(e):
    names = []
    tb = e.__traceback__
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return names


def _user_site(e):
    """(file, line) of the innermost frame of `e`'s traceback outside torchshim and jax."""
    tb = e.__traceback__
    site = None
    while tb is not None:
        f = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not (f.startswith(_PKG) or f.startswith(_JAX) or "/jax/" in f or "/jaxlib/" in f):
            site = (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return site


# ---- results: the return value as a template over tensor slots --------------------------------------------
class _Slot:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def _template(x, out):
    """`x` with every Tensor replaced by a `_Slot`; the tensors are appended to `out`."""
    if isinstance(x, Tensor):
        out.append(x)
        return _Slot(len(out) - 1)
    if isinstance(x, tuple):
        items = [_template(v, out) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    if isinstance(x, list):
        return [_template(v, out) for v in x]
    if isinstance(x, dict):
        return type(x)((k, _template(v, out)) for k, v in x.items())
    return x


def _fill(t, values):
    if isinstance(t, _Slot):
        return values[t.i]
    if isinstance(t, tuple):
        items = [_fill(v, values) for v in t]
        return type(t)(*items) if hasattr(t, "_fields") else tuple(items)
    if isinstance(t, list):
        return [_fill(v, values) for v in t]
    if isinstance(t, dict):
        return type(t)((k, _fill(v, values)) for k, v in t.items())
    return t


# ---- one call's view of the state -------------------------------------------------------------------------
class _Key:
    """A hashable wrapper of a (large) signature tuple whose hash is computed once."""

    __slots__ = ("value", "hash")

    def __init__(self, value):
        self.value = value
        self.hash = hash(value)

    def __hash__(self):
        return self.hash

    def __eq__(self, other):
        return self is other or (isinstance(other, _Key) and self.hash == other.hash
                                      and self.value == other.value)


class _RootsWalk:
    """The walk of what a compiled function reaches, kept between calls while its checks hold."""

    __slots__ = ("walked", "key", "tensors", "storages", "owner", "rel", "ids")

    def __init__(self, roots):
        self.walked = _guards.walk(roots)
        self.key = _Key(self.walked[0])
        self.tensors = self.walked[1]
        self.storages, self.owner, self.rel = _number(self.tensors)
        self.ids = {id(s): k for k, s in enumerate(self.storages)}


def _number(tensors):
    """(distinct storages in order of first appearance, the first tensor over each, each tensor's number)."""
    order = {}
    storages = []
    owner = []
    rel = []
    for t in tensors:
        st = t._storage
        k = order.get(id(st))
        if k is None:
            k = order[id(st)] = len(storages)
            storages.append(st)
            owner.append(t)
        rel.append(k)
    return storages, owner, tuple(rel)


class _State:
    """The walk of one call: signature, tensors, and the distinct storages in order of first appearance (the
    arguments' first). The walk of the roots is reused from the previous call while its checks hold."""

    __slots__ = ("sig", "tensors", "storages", "owner", "walked", "roots_walk")

    def __init__(self, args, kwargs, roots, last=None):
        self.walked = ((args, kwargs), roots)
        asig, atensors = _guards.walk((args, kwargs))[:2]
        if last is not None and _guards.unchanged(last.walked, roots):
            rw = last
        else:
            rw = _RootsWalk(roots)
        self.roots_walk = rw
        if not atensors:
            self.sig = (0, asig, rw.key, rw.rel)
            self.tensors, self.storages, self.owner = rw.tensors, rw.storages, rw.owner
            return
        storages, owner, arel = _number(atensors)
        shared = [rw.ids.get(id(s)) for s in storages]
        if any(k is not None for k in shared):  # an argument aliases the state: number everything together
            storages, owner, rel = _number(atensors + rw.tensors)
        else:
            n = len(storages)
            storages = storages + rw.storages
            owner = owner + rw.owner
            rel = (arel, n)
        self.sig = (len(atensors), asig, rw.key, rel if isinstance(rel, tuple) and len(rel) == 2 and
                    isinstance(rel[1], int) else rel, rw.rel)
        self.tensors = atensors + rw.tensors
        self.storages = storages
        self.owner = owner  # the first tensor seen over each storage


class _Entry:
    """One compiled program and how to feed it and apply its results."""

    __slots__ = ("eager", "program", "inputs", "donated", "donate", "misses", "external", "survivors", "gens",
                 "draws", "template", "outs", "float_idx", "mode", "primals", "diff_forward", "name", "calls",
                 "collectives")


def _modes():
    """Global modes a trace specialises on besides grad mode and matmul precision: autocast (per device type:
    dtype) and the default dtype."""
    if _autocast._on[0]:
        st = _autocast.state()
        ac = tuple(sorted((k, st["dtype"].get(k)) for k in st["enabled"]))
    else:
        ac = ()
    return ac, _D.get_default_dtype()


class CompiledFunction:
    """The callable `torch.compile(fn)` returns for a function (and the engine of a compiled module)."""

    _no_guard = True  # found by another compiled function's walk: guarded by identity, not walked

    def __init__(self, fn, *, fullgraph=False, dynamic=None, name=None, roots=None):
        self.fn = fn
        self.fullgraph = fullgraph
        self.dynamic = dynamic
        self.name = name or getattr(fn, "__qualname__", None) or type(fn).__name__
        self._roots = roots
        self.cache = collections.OrderedDict()
        self.traces = 0  # programs traced (tests and stats count recompilations with it)
        self.warned = set()
        self.eager_all = False
        self._last_walk = None
        self.one_shots = 0  # calls in a row that changed their own guards (run eagerly)

    def roots(self):
        return self._roots() if self._roots is not None else _guards.roots_of(self.fn)

    def reset(self):
        self.cache.clear()
        self.eager_all = False

    # ----- call ---------------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self.eager_all or _stance.force_eager() or _capture.active() is not None:
            return self.fn(*args, **kwargs)  # inside another compiled function's trace: traced into it
        _fused.step_boundary("a torch.compile'd call")  # fused eager mode: the program reads computed state
        state = _State(args, kwargs, self.roots(), self._last_walk)
        _fused.settle(state.storages)
        self._last_walk = state.roots_walk
        key = (state.sig, is_grad_enabled(), _precision.name(), _modes())
        entry = self.cache.get(key)
        if entry is None:
            if len(self.cache) >= _stance.recompile_limit():
                if _stance.fail_on_recompile():
                    raise RuntimeError(f"torch.compile: {self.name} would recompile (limit "
                                       f"{_stance.recompile_limit()} reached)")
                _log.warn_once(self, "limit", f"torch.compile: {self.name} was traced {len(self.cache)} "
                               "times (recompile_limit); it now runs eagerly. Retraces come from changing "
                               "guards: TORCHSHIM_LOGS=recompiles shows which.")
                self.eager_all = True
                return self.fn(*args, **kwargs)
            _log.recompile(self, key, state)
            return self._trace_and_run(key, state, args, kwargs)
        self.cache.move_to_end(key)
        if entry.eager:
            return self.fn(*args, **kwargs)
        return _run(entry, state)

    # ----- tracing ------------------------------------------------------------------------------------------
    def _trace_and_run(self, key, state, args, kwargs):
        snap = _Snapshot(state)
        grad = is_grad_enabled()
        try:
            entry = self._build(state, args, kwargs, grad, snap)
        except Exception as e:  # noqa: BLE001 - every trace failure falls back to the eager call
            snap.restore()
            why = _break_reason(e)
            site = _user_site(e)
            where = f"{site[0]}:{site[1]}" if site else self.name
            if self.fullgraph:
                if why is None:
                    raise
                code = linecache.getline(site[0], site[1]).strip() if site else ""
                raise Unsupported(f"Graph break at {where} ({code}): {why}. torch.compile(fullgraph=True) "
                                  "needs the whole function as one program; move the host read out of the "
                                  "compiled function or use fullgraph=False.") from None
            if why is not None:
                _log.warn_once(self, where, f"torch.compile: graph break at {where}: {why}; this call of "
                               f"{self.name} runs eagerly (torchshim does not split programs at breaks).")
            else:
                _log.warn_once(self, ("fail", type(e).__name__), f"torch.compile: {self.name} could not be "
                               f"traced ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                               "it runs eagerly for these inputs.")
            entry = _Entry()
            entry.eager = True
            self.cache[key] = entry
            return self.fn(*args, **kwargs)
        if entry is None:
            # this call changes the state the program would be guarded on: it runs eagerly (a program built
            # for it could never be reused); the next call, on the new state, compiles
            self.one_shots += 1
            if self.one_shots > _stance.recompile_limit():
                _log.warn_once(self, "oneshot", f"torch.compile: every call of {self.name} changes the state "
                               "it reads (Python attributes, optimizer state, .grad); it now runs eagerly. "
                               "TORCHSHIM_LOGS=recompiles shows what changes.")
                self.eager_all = True
            return self.fn(*args, **kwargs)
        self.one_shots = 0
        self.cache[key] = entry
        return _run(entry, state)

    def _build(self, state, args, kwargs, grad, snap):
        storages = state.storages
        gens = [_random.default_generator]
        misses = []
        for _ in range(4):
            probe = self._discover(state, storages, misses, gens, args, kwargs, grad)
            snap.restore()
            if not probe.misses and not probe.new_gens:
                break
            misses = misses + probe.misses
            gens = gens + probe.new_gens
        else:
            raise RuntimeError("torch.compile: the traced state did not settle after 4 traces")
        if probe.changes_state:
            return None
        mode = "forward" if (probe.out_grad and not probe.backward) else "step"
        if probe.collectives and mode == "forward":
            raise RuntimeError(f"{probe.collectives[0].split('(')[0]} cannot run inside jax tracing of a "
                               "compiled forward whose outputs require grad (torch.compile traces "
                               "collectives only into programs that run no tape node)")
        if mode == "forward" and probe.foreign:
            # a tensor that requires grad, read but not found by the walk, would get no gradient
            raise _NotFound(f"the function reads {len(probe.foreign)} tensor(s) that require grad which "
                            "torch.compile could not find from its arguments, closure, globals or module "
                            f"(e.g. one of shape {tuple(probe.foreign[0]._shape)}); their gradients need the "
                            "eager path")
        entry = self._final(state, storages, misses, gens, probe, mode, args, kwargs, grad)
        self.traces += 1
        return entry

    def _discover(self, state, storages, misses, gens, args, kwargs, grad):
        """The discovery trace (see the module docstring); returns what it learnt."""
        lifted = list(storages) + list(misses)
        probe = _Probe()

        known = {id(s) for s in lifted}

        def program(arrays, rng):
            with Capture(lifted, arrays, gens, rng) as cap, _GradInputs() as watch:
                runs = _engine.runs
                with set_grad_enabled(grad):
                    res = self.fn(*args, **kwargs)
                outs = []
                _template(res, outs)
                known.update(cap._created_ids)
                probe.backward = _engine.runs != runs
                probe.out_grad = any(t._requires_grad for t in outs)
                probe.out_storages = {id(t._storage) for t in outs}
                probe.foreign = [t for t in watch.tensors if id(t._storage) not in known]
                del res, outs
                # a call that changes the state it is guarded on (creates optimizer state, a first .grad)
                # leaves a program no later call could use
                walked = state.walked
                probe.changes_state = (_guards.walk(walked[1])[0] != state.roots_walk.walked[0]
                                       or _guards.walk(walked[0])[0] != state.sig[1])
                probe.misses = list(cap.misses)
                probe.new_gens = list(cap.new_generators)
                probe.written = set(cap.written)
                probe.used = set(cap.used)
                probe.collectives = list(cap.collectives)
                cap.restore()
            return 0
        arrays = [s._array for s in lifted]
        jax.jit(program).trace(arrays, [tuple(jnp.asarray(v) for v in r) for r in rng_inputs(gens)])
        probe.index = {id(s): i for i, s in enumerate(lifted)}
        return probe

    def _final(self, state, storages, misses, gens, probe, mode, args, kwargs, grad):
        """Trace and compile the program that runs (see the module docstring)."""
        n_walk = len(storages)
        used = [i for i in range(n_walk) if id(storages[i]) in probe.used or id(storages[i]) in probe.written
                or id(storages[i]) in probe.out_storages]
        e = _Entry()
        e.eager = False
        e.mode = mode
        e.name = self.name
        e.calls = 0
        # inputs by position in the walk: the written ones (argument 0, donated by a training step), then the
        # others (argument 1), then the misses (argument 2), then the generators' (key, count) (argument 3)
        e.donated = [i for i in used if id(storages[i]) in probe.written]
        e.inputs = [i for i in used if id(storages[i]) not in probe.written]
        e.donate = mode == "step"
        e.misses = list(misses)
        e.gens = list(gens)
        e.primals = []
        axis = "r" if probe.collectives else None
        if mode == "forward":
            used_ids = {id(storages[i]) for i in used}
            for t in state.tensors:
                if (t._requires_grad and not t._natural and id(t._storage) in used_ids
                        and (t._dtype.is_floating_point or t._dtype.is_complex)):
                    raise _NotFound("a tensor that requires grad is a view of part of its storage (shape "
                                    f"{tuple(t._shape)}); a compiled forward differentiates whole storages "
                                    "only, so this call runs eagerly")
            for i in e.inputs:
                t = state.owner[i]
                if t._requires_grad and t._natural and (t._dtype.is_floating_point or t._dtype.is_complex):
                    e.primals.append(i)
        meta = {}
        fn = self.fn

        def run_user(don, kept, miss_arrays, rng):
            lifted = [storages[i] for i in e.donated] + [storages[i] for i in e.inputs] + list(misses)
            arrays = list(don) + list(kept) + list(miss_arrays)
            n_in = len(e.donated) + len(e.inputs)
            with Capture(lifted, arrays, gens, rng) as cap:
                cap.axis = axis
                if mode == "forward":
                    with no_grad():
                        res = fn(*args, **kwargs)
                else:
                    with set_grad_enabled(grad):
                        res = fn(*args, **kwargs)
                outs = []
                template = _template(res, outs)
                lifted_pos = {id(s): k for k, s in enumerate(lifted)}
                out_arrays, specs, float_idx = [], [], []
                new_index = {}
                for t in outs:
                    st = t._storage
                    geom = (t._shape, t._stride, t._offset, t._dtype, st.device)
                    k = lifted_pos.get(id(st))
                    if mode == "forward" and (t._dtype.is_floating_point or t._dtype.is_complex):
                        float_idx.append(len(out_arrays))
                        specs.append(("new", len(out_arrays), (t._shape, None, 0, t._dtype, st.device)))
                        out_arrays.append(t._value)
                    elif k is not None and k < n_in:
                        specs.append(("walk", (e.donated + e.inputs)[k], geom))
                    elif k is not None:
                        specs.append(("miss", k - n_in, geom))
                    else:
                        j = new_index.get(id(st))
                        if j is None:
                            j = new_index[id(st)] = len(out_arrays)
                            out_arrays.append(st._array)
                        specs.append(("new", j, geom))
                don_out = []
                for i, a in zip(e.donated, don):
                    st = storages[i]
                    don_out.append(st._array if id(st) in cap.written else a)
                miss_out = [s._array for s in misses]
                ext = [s for s, _ in cap.external.values()]
                ext_out = [s._array for s in ext]
                new_of = {id(t._storage): k for k, t in enumerate(outs) if specs[k][0] == "new"}
                del res, outs
                t = st = None
                surv = cap.survivors()
                for n, s in enumerate(surv):  # a returned tensor whose storage outlives the call aliases it
                    k = new_of.get(id(s))
                    if k is not None and specs[k][2][1] is not None:
                        j = specs[k][1]
                        specs = [("surv", n, sp[2]) if sp[0] == "new" and sp[1] == j and sp[2][1] is not None
                                 else sp for sp in specs]
                surv_out = [s._array for s in surv]
                if cap.collectives and axis is None:
                    raise RuntimeError("torch.distributed collectives cannot run inside jax tracing "
                                       "here: the discovery trace saw none")
                meta.update(template=template, specs=specs, ext=ext, surv=surv, draws=list(cap.draws),
                            float_idx=float_idx, collectives=list(cap.collectives))
                cap.restore()
            return out_arrays, (don_out, miss_out, ext_out, surv_out)

        don0 = [storages[i]._array for i in e.donated]
        kept0 = [storages[i]._array for i in e.inputs]
        miss0 = [s._array for s in misses]
        rng0 = [tuple(jnp.asarray(v) for v in r) for r in rng_inputs(gens)]
        ppos = [e.inputs.index(i) for i in e.primals]

        def diff_forward(prim, don, kept, miss_arrays, rng):
            k2 = list(kept)
            for p, a in zip(ppos, prim):
                k2[p] = a
            outs, rest = run_user(don, k2, miss_arrays, rng)
            return [outs[j] for j in meta["float_idx"]], (outs, rest)

        if ppos:
            def program(don, kept, miss_arrays, rng):
                _, vjp_fn, (outs, rest) = jax.vjp(
                    lambda prim: diff_forward(prim, don, kept, miss_arrays, rng), [kept[p] for p in ppos],
                    has_aux=True)
                return outs, rest, vjp_fn
        else:
            def program(don, kept, miss_arrays, rng):
                outs, rest = run_user(don, kept, miss_arrays, rng)
                return outs, rest, None
        if axis is not None:
            e.program = _collective(program, (don0, kept0, miss0, rng0), e.donate, self.name, meta)
        else:
            jitted = jax.jit(program, donate_argnums=(0,) if e.donate else ())
            e.program = jitted.trace(don0, kept0, miss0, rng0).lower().compile()
        e.collectives = meta["collectives"]
        e.diff_forward = diff_forward if ppos else None
        e.template = meta["template"]
        e.outs = meta["specs"]
        e.float_idx = meta["float_idx"]
        e.external = meta["ext"]
        e.survivors = meta["surv"]
        e.draws = meta["draws"]
        # the survivors hold tracers until the first run writes them; nothing reads them before that
        return e


def _collective(program, args, donate, name, meta):
    """The program of a function that contains collectives: `program` inside `jax.shard_map` over the world
    Mesh (axis "r"), compiled; returns the callable `_run` calls with this rank's arrays. Each call agrees
    with the other ranks on the program's signature, builds the global inputs and returns this rank's
    outputs."""
    rt = _capture.collective_runtime
    mesh = rt.mesh()
    n = mesh.devices.size
    leaves, tree = jax.tree.flatten(args)
    in_nd = [np.ndim(a) for a in leaves]
    out = {}

    def body(*flat):
        flat = [a.reshape(()) if nd == 0 else a for a, nd in zip(flat, in_nd)]
        outs, rest, _ = program(*jax.tree.unflatten(tree, flat))
        res, out["tree"] = jax.tree.flatten((outs, rest))
        out["nd"] = [a.ndim for a in res]
        return [a.reshape(1) if a.ndim == 0 else a for a in res]

    smap = jax.shard_map(body, mesh=mesh, in_specs=tuple(P("r") for _ in leaves), out_specs=P("r"),
                         check_vma=False)
    n_don = len(args[0]) if donate else 0
    sharding = NamedSharding(mesh, P("r"))
    specs = []
    for a in leaves:
        shape = tuple(np.shape(a)) or (1,)
        specs.append(jax.ShapeDtypeStruct((n * shape[0],) + shape[1:], jnp.asarray(a).dtype,
                                          sharding=sharding))
    compiled = jax.jit(smap, donate_argnums=tuple(range(n_don))).trace(*specs).lower().compile()
    colls = meta["collectives"]
    digest = hashlib.sha1(repr([(s.shape, str(s.dtype)) for s in specs] + colls).encode()).hexdigest()[:12]
    shown = ", ".join(colls[:3]) + (f", ... ({len(colls)} in all)" if len(colls) > 3 else "")
    signature = f"compiled {name} (program {digest}: {shown})"
    out_nd, out_tree = out["nd"], out["tree"]

    def call(don, kept, miss, rng):
        if rt.mesh() is not mesh:
            raise RuntimeError(f"torch.compile: {name} holds collectives compiled for a process group that "
                               "was destroyed; call torch.compiler.reset() after init_process_group")
        rt.agree(signature)
        flat = [rt.to_global(a) for a in jax.tree.leaves((don, kept, miss, rng))]
        res = compiled(*flat)
        outs, rest = jax.tree.unflatten(out_tree, [rt.to_local(a, nd) for a, nd in zip(res, out_nd)])
        return outs, rest, None
    call.signature = signature
    return call


class _GradInputs:
    """`with _GradInputs() as w:` the tensors that require grad and are inputs of ops recorded on the tape."""

    def __init__(self):
        self.tensors = []
        self._ids = set()

    def see(self, inputs):
        for t in inputs:
            if t._requires_grad and id(t) not in self._ids:
                self._ids.add(id(t))
                self.tensors.append(t)

    def __enter__(self):
        _node.record_watchers.append(self.see)
        return self

    def __exit__(self, *exc):
        _node.record_watchers.remove(self.see)
        return False


class _Probe:
    __slots__ = ("misses", "new_gens", "written", "used", "backward", "out_grad", "index", "changes_state",
                 "out_storages", "foreign", "collectives")


class _Snapshot:
    """Python state the walk reached, copied before a trace and put back after a discovery trace or a failure:
    tensors' `.grad`/autograd fields, and the contents of the dicts, lists and objects visited."""

    def __init__(self, state):
        self.tensors = [(t, t._grad, t._grad_fn, t._requires_grad, t._output_nr) for t in state.tensors]
        self.objects = []
        seen = set()
        for o in _guards.containers(state.walked):
            if id(o) in seen:
                continue
            seen.add(id(o))
            if isinstance(o, dict):
                self.objects.append((o, dict(o)))
            elif isinstance(o, list):
                self.objects.append((o, list(o)))
            else:
                d = getattr(o, "__dict__", None)
                if isinstance(d, dict):
                    self.objects.append((d, dict(d)))

    def restore(self):
        for t, g, fn, rg, nr in self.tensors:
            t._grad, t._grad_fn, t._requires_grad, t._output_nr = g, fn, rg, nr
        for o, copy in self.objects:
            if isinstance(o, dict):
                if o != copy or len(o) != len(copy):
                    o.clear()
                    o.update(copy)
            else:
                o[:] = copy


_BWD = jax.jit(lambda vjp_fn, cts: vjp_fn(cts))


def _donatable(a):
    """`a`, or a copy of it when something besides its storage holds it (a clone shares its array): a donated
    array is deleted, and another storage may still read it."""
    if sys.getrefcount(a) > 3:
        return jnp.array(a, copy=True)
    return a


def _run(e, state):
    """Run entry `e` on the call's state; returns the call's result."""
    storages = state.storages
    _fused.settle(e.misses)
    if e.donate:
        don = [_donatable(storages[i]._array) for i in e.donated]
    else:  # a forward keeps its inputs (create_graph differentiates it again from them)
        don = [storages[i]._array for i in e.donated]
    kept = [storages[i]._array for i in e.inputs]
    miss = [s._array for s in e.misses]
    rng = rng_inputs(e.gens)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
        outs, (don_out, miss_out, ext_out, surv_out), vjp_fn = e.program(don, kept, miss, rng)
    node_inputs = None
    if e.diff_forward is not None and is_grad_enabled():
        node_inputs = (don, kept, miss, rng)
    del don
    # (outside any trace the storage hook is off: the arrays are rebound directly)
    for i, a in zip(e.donated, don_out):
        storages[i]._array = a
        state.owner[i]._vc.value += 1
    for s, a in zip(e.misses, miss_out):
        s._array = a
    for s, a in zip(e.external, ext_out):
        s._array = a
    for s, a in zip(e.survivors, surv_out):
        s._array = a
    for g, n in zip(e.gens, e.draws):
        g._count += n
    e.calls += 1
    values = []
    bases = {}
    for kind, ref, (shape, stride, offset, dtype, device) in e.outs:
        if kind == "new":
            base = bases.get(ref)
            if base is None:
                base = bases[ref] = fresh(outs[ref], _dtype_of(outs[ref], dtype), device)
            if stride is None or ((shape, stride, offset) == (base._shape, base._stride, 0)
                                  and dtype is base._dtype):
                t = base
            else:
                t = Tensor._make(base._storage, shape, stride, offset, dtype, base._vc, base)
        elif kind == "walk":
            owner = state.owner[ref]
            t = Tensor._make(storages[ref], shape, stride, offset, dtype, owner._vc, owner)
        elif kind == "miss":
            t = Tensor._make(e.misses[ref], shape, stride, offset, dtype)
        else:
            t = Tensor._make(e.survivors[ref], shape, stride, offset, dtype)
        values.append(t)
    if node_inputs is not None:
        diff = [values[k] for k, sp in enumerate(e.outs) if sp[0] == "new" and sp[2][1] is None]
        _attach_node(e, state, diff, vjp_fn, node_inputs)
    return _fill(e.template, values)


def _dtype_of(arr, dtype):
    """The facade dtype of a program output: `dtype` unless the array holds another (a view's base)."""
    from .. import _dtype as D
    try:
        return D.from_numpy_dtype(arr.dtype) if arr.dtype != dtype.np else dtype
    except (AttributeError, TypeError, KeyError):
        return dtype


def _attach_node(e, state, outputs, vjp_fn, node_inputs):
    """One tape node (`CompiledFunctionBackward`) from the primal tensors to the floating outputs: its
    backward runs the saved residuals through one compiled program; create_graph differentiates
    `e.diff_forward`."""
    if not outputs:
        return
    inputs = [state.owner[i] for i in e.primals]
    don, kept, miss, rng = node_inputs

    def forward(prim):
        return tuple(e.diff_forward(list(prim), don, kept, miss, rng)[0])
    node = _node.record("CompiledFunctionBackward", inputs, outputs, forward, None, saves="inputs",
                        node_cls=_node.CompiledFunctionBackward)
    if node is not None:
        node._vjp = vjp_fn
        node._bwd = _BWD

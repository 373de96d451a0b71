"""The XLA program behind a traced or scripted function or module.

`Program(fn, module, name, mode)`: `fn(*args, **kwargs)` is the Python code; `module` (or None) owns the state
— its parameters and buffers are program *inputs*, read at every call (so `load_state_dict` after tracing is
seen), and buffers the code writes (BatchNorm's running statistics in training mode) are program outputs,
written back after each call. The pure function of one input signature is

    pure(state_arrays, input_arrays, rng) -> (output_arrays, written_state_arrays, written_input_arrays)

traced under `jax.jit` with the module's storages lifted (`compiler._capture.Capture`: reads of other
tensors are constants of the program; random ops draw from the default generator's key, an input, so every
call draws fresh numbers as eager code would). Tensor-to-Python conversions follow `_host`: frozen on the
example inputs (`mode='trace'`), or a `HostRead` that makes the signature run eagerly (`mode='script'`).

One program is compiled per input signature (shapes, dtypes and devices of the tensor inputs, the other
arguments' values, the modules' `training` flags, the state's shapes and dtypes, grad mode). When an input or
parameter requires grad, a call is one autograd node (`CompiledFunctionBackward`) whose backward is the
compiled vjp of the program.
"""
import jax
import jax.numpy as jnp
import numpy as np

from .. import _fused, _random
from .._tensor import Tensor, fresh
from ..autograd import _node
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..compiler import _capture
from ..compiler._capture import Capture, rng_inputs
from . import _host

__all__ = ["Program", "Entry", "module_state", "template", "fill", "to_json", "from_json", "OUTPUT_ERROR"]

OUTPUT_ERROR = ("Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from "
                "traced functions")
_DICT_ERROR = ("Encountering a dict at the output of the tracer might cause the trace to be "
               "incorrect, this is "
               "only valid if the container structure does not change based on the module's inputs. Consider "
               "using a constant container instead (e.g. for `list`, use a `tuple` instead. for "
               "`dict`, use a "
               "`NamedTuple` instead). If you absolutely need this and know the side effects, pass "
               "strict=False to trace() to allow this behavior.")
_BWD = jax.jit(lambda vjp_fn, cts: vjp_fn(cts))


# ---- argument and result structure ------------------------------------------------------------------------
class Slot:
    """The place of the i-th tensor in a structure."""
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i

    def __eq__(self, other):
        return isinstance(other, Slot) and other.i == self.i

    def __hash__(self):
        return hash(("slot", self.i))


def template(x, out):
    """`x` with every Tensor replaced by a `Slot` (the tensors are appended to `out`)."""
    if isinstance(x, Tensor):
        out.append(x)
        return Slot(len(out) - 1)
    if isinstance(x, tuple):
        items = [template(v, out) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    if isinstance(x, list):
        return [template(v, out) for v in x]
    if isinstance(x, dict):
        return {k: template(v, out) for k, v in x.items()}
    return x


def fill(t, values):
    """The structure `t` with its slots replaced by `values`."""
    if isinstance(t, Slot):
        return values[t.i]
    if isinstance(t, tuple):
        items = [fill(v, values) for v in t]
        return type(t)(*items) if hasattr(t, "_fields") else tuple(items)
    if isinstance(t, list):
        return [fill(v, values) for v in t]
    if isinstance(t, dict):
        return {k: fill(v, values) for k, v in t.items()}
    return t


def check_output(t, strict):
    """PyTorch's checks on a traced function's result: tensors in tuples, lists and dicts only; a dict (or a
    list, which PyTorch also flags under strict) needs strict=False."""
    if isinstance(t, Slot):
        return
    if isinstance(t, dict):
        if strict:
            raise RuntimeError(_DICT_ERROR)
        for v in t.values():
            check_output(v, strict)
        return
    if isinstance(t, (tuple, list)):
        for v in t:
            check_output(v, strict)
        return
    raise RuntimeError(OUTPUT_ERROR)


def hashable(t):
    """A hashable form of a structure of slots and Python values (the non-tensor part of a signature)."""
    if isinstance(t, (Slot, str, bytes, int, float, bool, complex, type(None))):
        return (type(t), t)
    if isinstance(t, (tuple, list)):
        return (type(t), tuple(hashable(v) for v in t))
    if isinstance(t, dict):
        return (dict, tuple((k, hashable(v)) for k, v in t.items()))
    try:
        hash(t)
        return (type(t), t)
    except TypeError:
        return (type(t), id(t))


def to_json(t):
    """A JSON-able form of a structure of slots and plain Python values (saved programs)."""
    if isinstance(t, Slot):
        return {"slot": t.i}
    if isinstance(t, tuple):
        return {"tuple": [to_json(v) for v in t]}
    if isinstance(t, list):
        return [to_json(v) for v in t]
    if isinstance(t, dict):
        return {"dict": [[k, to_json(v)] for k, v in t.items()]}
    if t is None or isinstance(t, (bool, int, float, str)):
        return t
    raise RuntimeError(f"torch.jit.save: a traced program with a {type(t).__name__} argument cannot be saved "
                       "(only tensors, numbers, strings and None in tuples, lists and dicts)")


def from_json(j):
    if isinstance(j, list):
        return [from_json(v) for v in j]
    if isinstance(j, dict):
        if "slot" in j:
            return Slot(j["slot"])
        if "tuple" in j:
            return tuple(from_json(v) for v in j["tuple"])
        return {k: from_json(v) for k, v in j["dict"]}
    return j


# ---- module state -----------------------------------------------------------------------------------------
def module_state(module):
    """(names, tensors) of the module's distinct parameter and buffer storages (first name of each)."""
    if module is None:
        return [], []
    names, tensors, seen = [], [], set()
    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        if t is None or id(t._storage) in seen:
            continue
        seen.add(id(t._storage))
        names.append(name)
        tensors.append(t)
    return names, tensors


def _floating(dtype):
    return dtype.is_floating_point or dtype.is_complex


# ---- one program -------------------------------------------------------------------------------------------
class Entry:
    """The compiled program of one input signature, and what its trace learnt."""

    def __init__(self):
        self.eager = False
        self.pure = None
        self.compiled = None
        self.jaxpr = None
        self.vjps = {}
        self.meta = {}

    def vjp_program(self, sp, ip):
        """The jitted forward-with-vjp over state positions `sp` and input positions `ip`."""
        key = (tuple(sp), tuple(ip))
        prog = self.vjps.get(key)
        if prog is None:
            float_idx = self.meta["float_idx"]
            pure = self.pure

            def program(state, ins, rng):
                def f(prim):
                    s, i = _with_primals(state, ins, sp, ip, prim)
                    outs, new_state, in_new = pure(s, i, rng)
                    return [outs[j] for j in float_idx], (outs, new_state, in_new)
                _, vjp_fn, aux = jax.vjp(f, [state[p] for p in sp] + [ins[p] for p in ip], has_aux=True)
                return aux, vjp_fn
            prog = self.vjps[key] = jax.jit(program)
        return prog


def _with_primals(state, ins, sp, ip, prim):
    s, i = list(state), list(ins)
    for k, p in enumerate(sp):
        s[p] = prim[k]
    for k, p in enumerate(ip):
        i[p] = prim[len(sp) + k]
    return s, i


def make_pure(fn, storages, in_template, in_meta, host, mode, meta, warn=False):
    """The pure function of one signature (see the module docstring); `meta` is filled by its trace."""
    gens = [_random.default_generator]

    def pure(state_arrays, in_arrays, rng):
        with Capture(storages, state_arrays, gens, rng) as cap:
            ctx = _host.replaying(host, warn=warn and not meta) if mode == "trace" else _host.forbidding()
            with ctx, no_grad():
                ins = [fresh(a, dt, dev) for a, (dt, dev) in zip(in_arrays, in_meta)]
                args, kwargs = fill(in_template, ins)
                res = fn(*args, **kwargs)
            outs = []
            out_template = template(res, outs)
            out_arrays = [t._value for t in outs]
            written = [k for k, s in enumerate(storages) if id(s) in cap.written]
            new_state = [storages[k]._array for k in written]
            in_written = [k for k, t in enumerate(ins) if t._storage._array is not in_arrays[k]]
            in_new = [ins[k]._value for k in in_written]
            meta.update(out_template=out_template, written=written, in_written=in_written, draws=cap.draws[0],
                        out_meta=[(t._dtype, t._storage.device) for t in outs],
                        float_idx=[j for j, t in enumerate(outs) if _floating(t._dtype)])
            del res, outs, ins, args, kwargs
            cap.restore()
        return out_arrays, new_state, in_new
    return pure


def specs_of(arrays):
    return jax.tree.map(lambda a: jax.ShapeDtypeStruct(np.shape(a), a.dtype), arrays)


class Program:
    """The programs of one traced or scripted callable (see the module docstring)."""

    def __init__(self, fn, module, name, mode, host=None):
        self.fn = fn
        self.module = module
        self.name = name
        self.mode = mode  # 'trace' (conversions frozen on `host`) or 'script' (a conversion: eager signature)
        self.host = host or []
        self.cache = {}
        self.traces = 0
        self.last = None  # (key, entry) of the last program built or run
        self.example = None  # trace: the entry of the example inputs
        self.on_eager = None  # called with (reason) when a signature falls back to eager (script)

    # ----- signature ----------------------------------------------------------------------------------------
    def _signature(self, args, kwargs):
        ins = []
        tmpl = template((tuple(args), dict(kwargs)), ins)
        names, state = module_state(self.module)
        training = () if self.module is None else tuple(m.training for m in self.module.modules())
        key = (hashable(tmpl), tuple((t._shape, t._dtype, t._storage.device) for t in ins),
               tuple((n, t._storage._array.shape, t._dtype) for n, t in zip(names, state)), training,
               is_grad_enabled())
        return key, tmpl, ins, names, state

    # ----- call ---------------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _capture.active() is not None:  # inside another program's trace: traced into it
            return self.fn(*args, **kwargs)
        key, tmpl, ins, names, state = self._signature(args, kwargs)
        entry = self.cache.get(key)
        if entry is None:
            entry = self.build(key, tmpl, ins, names, state)
        if entry.eager:
            return self.fn(*args, **kwargs)
        self.last = (key, entry)
        return run(entry, [t._storage for t in state], state, ins)

    def entry_for(self, args, kwargs):
        """The entry of this call's signature (built if absent)."""
        key, tmpl, ins, names, state = self._signature(args, kwargs)
        entry = self.cache.get(key)
        if entry is None:
            entry = self.build(key, tmpl, ins, names, state)
        return entry

    def build(self, key, tmpl, ins, names, state, warn=False, host=None):
        """Trace and compile the program of one signature."""
        storages = [t._storage for t in state]
        in_meta = [(t._dtype, t._storage.device) for t in ins]
        e = Entry()
        e.key = key
        e.pure = make_pure(self.fn, storages, tmpl, in_meta, self.host if host is None else host, self.mode,
                           e.meta, warn)
        e.meta_in = dict(in_template=tmpl, in_meta=in_meta, names=names,
                         state_meta=[(t._dtype, t._storage.device) for t in state])
        _fused.settle(storages)  # fused eager mode: computed arrays, not recorded values
        state0 = [s._array for s in storages]
        in0 = [_fused.concrete(t._value) for t in ins]
        rng0 = _rng([_random.default_generator])
        try:
            traced = jax.jit(e.pure).trace(specs_of(state0), specs_of(in0), specs_of(rng0))
        except _host.HostRead as err:
            if self.mode != "script":
                raise
            e.eager = True
            if host is None:
                self.cache[key] = e
            if self.on_eager is not None:
                self.on_eager(str(err))
            return e
        e.jaxpr = traced.jaxpr
        e.specs = (specs_of(state0), specs_of(in0), specs_of(rng0))
        if host is None:
            e.compiled = traced.lower().compile()
            self.cache[key] = e
            self.traces += 1
            self.last = (key, e)
        return e


def _rng(gens):
    return [tuple(jnp.asarray(v) for v in r) for r in rng_inputs(gens)]


def run(e, storages, state, ins, call=None):
    """Run entry `e` on the current state arrays and the inputs; writes back state and inputs; returns the
    result. `call` (saved programs): the callable to run instead of `e.compiled`/`e.vjp_program`."""
    _fused.settle(storages)  # fused eager mode: computed arrays, not recorded values
    state_arrays = [s._array for s in storages]
    in_arrays = [_fused.concrete(t._value) for t in ins]
    gen = _random.default_generator
    rng = _rng([gen])
    meta = e.meta
    sp, ip = [], []
    if is_grad_enabled() and meta["float_idx"]:
        sp = [k for k, t in enumerate(state) if t._requires_grad and t._natural and _floating(t._dtype)]
        ip = [k for k, t in enumerate(ins) if t._requires_grad and _floating(t._dtype)]
    vjp_fn = None
    if sp or ip:
        prog = e.vjp_program(sp, ip) if call is None else call.vjp_program(sp, ip)
        (outs, new_state, in_new), vjp_fn = prog(state_arrays, in_arrays, rng)
    else:
        outs, new_state, in_new = (e.compiled if call is None else call)(state_arrays, in_arrays, rng)
    for k, a in zip(meta["written"], new_state):
        storages[k].array = a
        state[k]._vc.value += 1
    if meta["in_written"]:
        with no_grad():
            for k, a in zip(meta["in_written"], in_new):
                ins[k].copy_(fresh(a, ins[k]._dtype, ins[k]._storage.device))
    gen._count += meta["draws"]
    values = [fresh(a, dt, dev) for a, (dt, dev) in zip(outs, meta["out_meta"])]
    if vjp_fn is not None:
        prim = [state[k] for k in sp] + [ins[k] for k in ip]
        pure = e.pure if call is None else call.pure

        def forward(arrays):
            s, i = _with_primals(state_arrays, in_arrays, sp, ip, list(arrays))
            o = pure(s, i, rng)[0]
            return tuple(o[j] for j in meta["float_idx"])
        node = _node.record("CompiledFunctionBackward", prim, [values[j] for j in meta["float_idx"]], forward,
                            None, saves="inputs", node_cls=_node.CompiledFunctionBackward)
        if node is not None:
            node._vjp = vjp_fn
            node._bwd = _BWD
    return fill(meta["out_template"], values)

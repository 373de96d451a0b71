"""Tape nodes: what one recorded op keeps for backward.

A `Node` (PyTorch's `torch.autograd.graph.Node`) has `next_functions`: one edge per input of the op as
PyTorch lists them, an edge being `(node, output_nr)` — the node that produced that input, or the
`AccumulateGrad` of a leaf — or `(None, 0)` for an input that needs no gradient.

`FnNode` is the node of every op in the table; each node is an instance of a class named after it
(`type(z.grad_fn).__name__ == "MulBackward0"`, made once per name by `node_class`). Its pullback is a pure jax
function `pullback(saved_arrays, cotangents) -> input gradients`: by default `jax.vjp` of the op's own forward
(recomputed from the saved inputs inside one cached `jax.jit`), or an explicit rule. Because the pullback is a
pure jax function of saved tensors and cotangents, running it under `create_graph=True` is itself a recorded
`FnNode` whose pullback is the vjp of that pullback — so gradients work to any order.

`record` is the one node builder (ops, in-place writes, view histories, create_graph); `run_forward` runs a
forward jitted per key for callers that have no outputs yet.
"""
import itertools
import threading
import traceback
import weakref

import jax
import jax.numpy as jnp

from .. import _view as V
from .._tensor import fresh
from .._dtype import legacy_type_name
from .._hooks import HookDict, RemovableHandle
from .._fused import jit as _fjit

__all__ = ["Node", "FnNode", "AccumulateGrad", "SavedTensor", "gradient_edge", "shown_grad_fn",
           "take_view_history", "record", "run_forward", "node_class"]

_seq = itertools.count()
_anomaly = threading.local()


def anomaly_enabled():
    return getattr(_anomaly, "enabled", False)


class Node:
    """`torch.autograd.graph.Node`: `name()`, `next_functions`, `register_hook`, `register_prehook`,
    `metadata`."""

    __slots__ = ("_name", "_edges", "_seq", "_hooks", "_pre_hooks", "_tensor_pre_hooks", "_retain_hooks",
                 "_metadata", "_trace", "__weakref__")

    def __init__(self, name, edges):
        self._name = name
        self._edges = edges
        self._seq = next(_seq)
        self._hooks = None
        self._pre_hooks = None
        self._tensor_pre_hooks = None  # {output_nr: [hook]} from Tensor.register_hook on non-leaf outputs
        self._retain_hooks = None  # {output_nr: weakref(tensor)} from retain_grad()
        self._metadata = None
        self._trace = traceback.format_stack()[:-3] if anomaly_enabled() else None

    def name(self):
        return self._name

    def __repr__(self):
        return f"<{self._name} object at {hex(id(self))}>"

    @property
    def next_functions(self):
        return tuple((e[0], e[1]) if e is not None else (None, 0) for e in self._edges)

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """`hook(grad_inputs, grad_outputs) -> new grad_inputs or None`, run after this node's backward."""
        if self._hooks is None:
            self._hooks = HookDict()
        h = RemovableHandle(self._hooks)
        self._hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        """`hook(grad_outputs) -> new grad_outputs or None`, run before this node's backward."""
        if self._pre_hooks is None:
            self._pre_hooks = HookDict()
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _register_tensor_hook(self, nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = HookDict()
        hooks = self._tensor_pre_hooks.setdefault(nr, HookDict())
        h = RemovableHandle(hooks)
        hooks[h.id] = fn
        return h

    # subclasses: n_outputs, output_meta(i) -> (shape, dtype, device), apply(grads, create_graph) -> grads
    def _release(self):
        pass


class AccumulateGrad(Node):
    """The sink for a leaf tensor's gradient: accumulates into `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__("torch::autograd::AccumulateGrad", ())
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"

    n_outputs = 1

    def output_meta(self, i):
        v = self.variable
        return v._shape, v._dtype, v._storage.device


AccumulateGrad.__module__ = "builtins"  # PyTorch's node classes print as <class 'AccumulateGrad'>


def accumulate_node(t):
    """The AccumulateGrad of leaf `t` (one per leaf while anything holds it, like PyTorch's weak
    grad_accumulator)."""
    ref = t._node
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._node = weakref.ref(acc)
    return acc


def gradient_edge(t):
    """The edge gradients for tensor `t` flow into, or None when `t` does not require grad.

    This is a *use* of `t` (an op's input, a backward root, a hook): a view whose base (or a sibling view) was
    modified in place since its history was recorded takes its regenerated history here, as in PyTorch."""
    if not t._requires_grad:
        if t._diff_view and t._base is not None and t._base._requires_grad:
            return take_view_history(t)
        return None
    if _stale_view(t):
        return take_view_history(t)
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (accumulate_node(t), 0)


def shown_grad_fn(t):
    """`t.grad_fn`, changing neither `t` nor the graph: a stale view shows the history it takes when next used
    (built once per version and kept in `_PENDING` until then, so `v.grad_fn is v.grad_fn`)."""
    if t._requires_grad and _stale_view(t):
        return _view_history(t)
    return t._grad_fn


def _stale_view(t):
    return t._diff_view and t._grad_version != t._vc.value and t._base is not None and t._base._requires_grad


# id(view) -> (weakref(view), version, node): the regenerated history a `grad_fn` read built, not yet taken
_PENDING = {}


def _view_history(t):
    """The history of view `t` after its base was modified in place: a strided read of the base's current
    history (PyTorch's AsStridedBackward0), built at most once per version of `t`."""
    key, version = id(t), t._vc.value
    entry = _PENDING.get(key)
    if entry is not None and entry[0]() is t and entry[1] == version:
        return entry[2]
    from ._creation_meta import check_use
    from ._inplace import read_node
    check_use(t)
    node = read_node(t)
    _PENDING[key] = (weakref.ref(t, lambda _, k=key: _PENDING.pop(k, None)), version, node)
    return node


def take_view_history(t):
    """View `t` takes its regenerated history (it is used, or was just written through)."""
    node = _view_history(t)
    _PENDING.pop(id(t), None)
    t._grad_fn, t._output_nr, t._requires_grad, t._grad_version = node, 0, True, t._vc.value
    return (node, 0)


# ---- saved tensors ----------------------------------------------------------------------------------------
_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
          "have already been freed). Saved intermediate values of the graph are freed when you call "
          ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
          "graph a second time or if you need to access saved tensors after calling backward.")


class SavedTensor:
    """A tensor saved for backward: its value (read again at backward, as PyTorch reads the shared storage),
    its version at save time (checked at backward), and its gradient edge (for create_graph)."""

    __slots__ = ("storage", "geom", "array", "vc", "version", "dtype", "device", "edge", "is_output",
                 "checked",
                 "_leaf_ref", "_hooked", "_tref", "_out_nr", "_mutation_ctx")

    def __init__(self, t, is_output=False, checked=True):
        self.storage = t._storage
        self.geom = None if t._natural else (t._shape, t._stride, t._offset, t._lens)
        self.array = t._value
        self.vc = t._vc
        self.version = t._vc.value
        self.dtype = t._dtype
        self.device = t._storage.device
        self.is_output = is_output
        self.checked = checked
        self.edge = None if is_output else gradient_edge(t)
        self._leaf_ref = None
        self._hooked = None
        self._tref = weakref.ref(t)
        self._out_nr = 0
        self._mutation_ctx = _saved_state.mutation  # graph.allow_mutation_on_saved_tensors: keep own array
        hooks = _saved_hooks()
        if hooks is not None and (checked or is_output):  # what PyTorch saves (linear ops save nothing)
            pack, unpack = hooks
            self._hooked = (pack(t), unpack)

    def value(self, owner_name, owner, nr):
        """The saved array at backward time; raises PyTorch's error when it was modified in place since."""
        if self._mutation_ctx is not None:
            if self._mutation_ctx.closed:
                raise AssertionError("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                                     "contextin which the graph was originally recorded.")
            return self.array
        if self.checked and self.vc.value != self.version:
            raise RuntimeError(_modified_msg(self, owner_name, nr))
        if self._hooked is not None:
            packed, unpack = self._hooked
            out = unpack(packed)
            if not hasattr(out, "_value"):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result "
                                f"of type {type(out).__name__}")
            return out._value
        if not self.checked and not self.is_output:
            # not version-checked: the pre-write input of an in-place op (autograd/_inplace.py _uncheck_saved)
            # or an input of a linear op; its own array, not what was written into the storage since
            return self.array
        arr = self.storage.array
        if self.geom is None:
            if arr is self.array or getattr(arr, "shape", None) != getattr(self.array, "shape", None):
                return self.array
            return arr
        if arr.size == 0:
            return self.array
        return V.read(arr, *self.geom)

    def as_tensor(self, owner, nr, array):
        """A tensor with this saved value and the saved history (what create_graph differentiates through)."""
        t = fresh(array, self.dtype, self.device)
        edge = (owner, nr) if self.is_output else self.edge
        if edge is not None:
            t._requires_grad = True
            if isinstance(edge[0], AccumulateGrad):
                t._node = weakref.ref(edge[0])
                self._leaf_ref = edge[0]  # keep the accumulator alive while the proxy is in use
            else:
                t._grad_fn, t._output_nr = edge
        return t


def _modified_msg(saved, owner_name, nr):
    import re
    kind = legacy_type_name(saved.dtype, saved.device)
    shape = list(saved.array.shape)
    t = saved._tref()
    fn, out_nr = (t.grad_fn, t._output_nr) if t is not None else (None, 0)  # a view's regenerated history
    if fn is None and saved.is_output:
        fn, out_nr = owner_name, nr
    where = ""
    if fn is not None:
        name = fn if isinstance(fn, str) else fn.name()
        where = f", which is output {out_nr} of {re.sub(r'Backward[0-9]*$', '', name)},"
    return ("one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [{kind} {shape}]{where} is at version {saved.vc.value}; expected version "
            f"{saved.version} instead. Hint: enable anomaly detection to find the operation that failed to "
            "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


class _SavedState(threading.local):
    """Per-thread saved-tensor hooks: a stack of (pack, unpack) and the reason they are disabled, if so."""
    stack = None
    disabled = None
    mutation = None  # the active allow_mutation_on_saved_tensors context


_saved_state = _SavedState()


def _saved_hooks():
    stack = _saved_state.stack
    return stack[-1] if stack else None


# ---- the op node -----------------------------------------------------------------------------------------
_PULLBACKS = {}  # (forward key, mask) -> jitted pullback
_FORWARDS = {}  # forward key -> jitted forward
_NOT_JITTABLE = set()  # keys whose jitted call failed under tracing (then they run eagerly)
# What a forward or pullback may raise only because jax traces it: jax's tracer errors, and RuntimeError,
# which torchshim's data-dependent ops raise under tracing (boolean-mask indexing, masked_select, unique,
# ...). The eager rerun tells them from the op's own errors, which it raises again (see `_jit_or_eager`).
_TRACE_ERRORS = (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
                 jax.errors.TracerBoolConversionError, jax.errors.TracerIntegerConversionError,
                 jax.errors.NonConcreteBooleanIndexError, RuntimeError)


def _jit_or_eager(jitted, eager, args, key):
    """`jitted(*args)`; when that fails under tracing, `eager(*args)`, and `key` joins `_NOT_JITTABLE` if the
    eager run succeeds (an error it raises too is the op's own, and propagates from the eager run)."""
    try:
        return jitted(*args)
    except _TRACE_ERRORS:
        pass
    out = eager(*args)
    _NOT_JITTABLE.add(key)
    return out


def _conj_if_complex(a):
    return jnp.conj(a) if jnp.iscomplexobj(a) else a


def vjp_pullback(forward, mask):
    """`pullback(arrays, cotangents)` of `forward(arrays) -> tuple of outputs`, w.r.t. the positions in
    `mask`.

    PyTorch's complex convention (gradients are conjugate Wirtinger derivatives) is jax's vjp conjugated on
    both sides."""
    def pullback(arrays, cts):
        diff = [a for a, m in zip(arrays, mask) if m]

        def f(*d):
            it = iter(d)
            return forward([next(it) if m else a for a, m in zip(arrays, mask)])
        outs, vjp = jax.vjp(f, *diff)
        cts = tuple(_conj_if_complex(c).astype(o.dtype) if not jnp.iscomplexobj(o) or jnp.iscomplexobj(c)
                    else _conj_if_complex(c.astype(o.dtype)) for c, o in zip(cts, outs))
        return [_conj_if_complex(g) for g in vjp(cts)]
    return pullback


def cached_pullback(key, forward, mask):
    """The jitted pullback for (key, mask), or None when it can't be cached or jitted (then run it
    eagerly)."""
    if key is None:
        return None
    k = (key, mask)
    pb = _PULLBACKS.get(k)
    if pb is None:
        if k in _NOT_JITTABLE:
            return None
        pb = _PULLBACKS[k] = _fjit(vjp_pullback(forward, mask))
    return pb


class FnNode(Node):
    """The node of a recorded jax function: `forward(arrays) -> outputs` over saved inputs, or an explicit
    rule. Nodes are instances of `node_class(name)`, a subclass named like PyTorch's node class."""

    __slots__ = ("_forward", "_key", "_mask", "_saved", "_outs", "_rule", "_freed", "_ins", "_linear",
                 "_where")

    def __init__(self, name, edges, forward, key, mask, saved, outs, ins, rule=None, where=None):
        super().__init__(name, edges)
        self._forward = forward  # forward(arrays) -> tuple(out arrays); None with a rule
        self._key = key  # hashable identity of forward (None: not cacheable)
        self._mask = mask  # which saved positions are differentiable inputs
        self._saved = saved  # [SavedTensor]
        self._outs = outs  # [(shape, dtype, device)] of the differentiable outputs
        self._ins = ins  # [(shape, dtype, device)] of the differentiable inputs
        self._rule = rule  # explicit rule: rule(saved_arrays, cts) -> grads of the differentiable inputs
        self._freed = False
        self._linear = all(not s.checked and not s.is_output for s in saved)
        self._where = where  # index in edges of each differentiable input's gradient; None: edges are them

    @property
    def n_outputs(self):
        return len(self._outs)

    def output_meta(self, i):
        return self._outs[i]

    def _release(self):
        if any(s.checked or s.is_output for s in self._saved):
            self._freed = True
            self._saved = [_Freed(s) for s in self._saved]

    def saved_arrays(self):
        if self._freed:
            raise RuntimeError(_FREED)
        return [s.value(self._name, self, i) for i, s in enumerate(self._saved)]

    def pullback_fn(self):
        """(pure pullback(arrays, cts), cache key or None)."""
        if self._rule is not None:
            rule, mask = self._rule, self._mask
            return (lambda arrays, cts: rule(arrays, cts, mask)), ("rule", self._key, mask)
        return vjp_pullback(self._forward, self._mask), (None if self._key is None else ("vjp", self._key,
                                                                                           self._mask))

    def apply(self, grads, create_graph):
        """Gradients for the differentiable inputs, given gradients (Tensors or None) for the outputs."""
        arrays = self.saved_arrays()
        cts = [g._value if g is not None else jnp.zeros(m[0], m[1].np) for g, m in zip(grads, self._outs)]
        if create_graph:
            pb, pkey = self.pullback_fn()
            if self._rule is None and self._linear:  # the pullback does not depend on the inputs' values
                ins = [fresh(a, s.dtype, s.device) for s, a in zip(self._saved, arrays)]
            else:
                ins = [s.as_tensor(self, i, a) for i, (s, a) in enumerate(zip(self._saved, arrays))]
            gts = [g if g is not None else fresh(c, m[1], m[2]) for g, c, m in zip(grads, cts, self._outs)]
            n = len(arrays)

            def forward(a):
                return tuple(pb(a[:n], a[n:]))
            res = run_forward(forward, pkey, ins + gts, self._ins)
            record(self._name.replace("Backward", "BackwardBackward", 1), ins + gts, res, forward, pkey)
            return self._spread(res)
        if self._rule is not None:
            res = _jitted_rule(self._rule)(arrays, cts, self._mask)
        else:
            res = _run_pullback(self._key, self._forward, self._mask, arrays, cts)
        return self._spread([fresh(r, m[1], m[2]) for r, m in zip(res, self._ins)])

    def _spread(self, grads):
        """The gradients of the differentiable inputs, laid out like the edges (None where none flows)."""
        where = self._where
        if where is None:
            return grads
        out = [None] * len(self._edges)
        for k, g in zip(where, grads):
            out[k] = g
        return out


class _Freed:
    __slots__ = ("checked", "is_output")

    def __init__(self, s):
        self.checked, self.is_output = s.checked, s.is_output


_RULES_JIT = {}


def _jitted_rule(rule):
    f = _RULES_JIT.get(rule)
    if f is None:
        f = _RULES_JIT[rule] = _fjit(rule, static_argnums=2)
    return f


def _run_pullback(key, forward, mask, arrays, cts):
    pb = cached_pullback(key, forward, mask)
    if pb is None:
        return vjp_pullback(forward, mask)(arrays, cts)
    # a data-dependent op (boolean masks, nonzero) runs its vjp eagerly, non-differentiable inputs concrete
    res = _jit_or_eager(pb, vjp_pullback(forward, mask), (arrays, cts), (key, mask))
    if (key, mask) in _NOT_JITTABLE:
        _PULLBACKS.pop((key, mask), None)
    return res


def run_forward(forward, key, inputs, out_meta):
    """`forward(arrays of tensor inputs) -> tuple of arrays` as Tensors with metadata `out_meta`
    [(shape, dtype, device)], jitted once per `key` (None: run eagerly). Records nothing: see `record`."""
    arrays = [t._value for t in inputs]
    if key is None or (key, "fwd") in _NOT_JITTABLE:
        out_arrays = forward(arrays)
    else:
        fwd = _FORWARDS.get(key)
        if fwd is None:
            fwd = _FORWARDS[key] = _fjit(forward)
        out_arrays = _jit_or_eager(fwd, forward, (arrays,), (key, "fwd"))
    return [fresh(a, m[1], m[2]) for a, m in zip(out_arrays, out_meta)]


class CompiledFunctionBackward(FnNode):
    """PyTorch's `CompiledFunctionBackward`: the node of a compiled forward (torch.compile). Its backward
    runs one compiled program over the residuals the forward saved (`_vjp`, a jax vjp closure); with
    `create_graph` it differentiates the node's forward as any node does."""

    __slots__ = ("_vjp", "_bwd")
    __module__ = "builtins"

    def apply(self, grads, create_graph):
        if create_graph or self._vjp is None:
            return super().apply(grads, create_graph)
        if self._freed:
            raise RuntimeError(_FREED)
        cts = [g._value if g is not None else jnp.zeros(m[0], m[1].np) for g, m in zip(grads, self._outs)]
        res = self._bwd(self._vjp, cts)[0]
        return self._spread([fresh(r, m[1], m[2]) for r, m in zip(res, self._ins)])

    def _release(self):
        super()._release()
        if self._freed:
            self._vjp = None


_CLASSES = {}


def node_class(name):
    """The class of nodes named `name`: a subclass of FnNode called `name` (PyTorch's `MulBackward0`, shown
    as `<class 'MulBackward0'>`), made on first use."""
    cls = _CLASSES.get(name)
    if cls is None:
        cls = _CLASSES.setdefault(name, type(name, (FnNode,), {"__slots__": (), "__module__": "builtins",
                                                               "__qualname__": name}))
    return cls


def rename(node, name):
    """Give op node `node` PyTorch's name `name` (an in-place variant's node, e.g. TBackward1): its `name()`
    and its class change together."""
    node._name = name
    node.__class__ = node_class(name)


def _differentiable_dtype(t):
    d = t._dtype
    return d.is_floating_point or d.is_complex


# Callables given the inputs of every recorded node (torch.func's vmap/jvp find the tensors that require grad
# which the transformed function captures from outside, func/_capture.py).
record_watchers = []


def record(name, inputs, outputs, forward, key, *, saves="inputs", rule=None, slots=None, node_cls=None):
    """Attach a node `name` to `outputs` (fresh Tensors already computed from `inputs`) if any input requires
    grad; returns the node, or None.

    forward(arrays of all `inputs`) -> tuple of arrays of `outputs`: the default pullback is its vjp, jitted
    once per `key` (hashable; None: not cacheable).
    saves: 'inputs' (version-checked like PyTorch's saved inputs), 'none' (linear ops: nothing checked),
    'output' (the result is saved instead of the inputs).
    rule: an explicit pullback `rule(saved_arrays, cotangents, mask) -> [gradient of each input where mask]`
    replacing the vjp of `forward`; saved_arrays are the inputs' (or with saves='output', [output]).
    slots: the node's inputs as PyTorch lists them in `next_functions`: for each, an index into `inputs`, or
    None for an input that is not a tensor here (a Python scalar PyTorch wraps as a tensor, an absent optional
    tensor), whose edge is always `(None, 0)`. Default: the floating-point and complex tensor inputs, in order
    (integer and bool tensors are indices and masks, not differentiable inputs, in PyTorch). An input that
    requires grad and is not listed gets an edge after the listed ones.
    node_cls: the node's class (a subclass of FnNode; default `node_class(name)`)."""
    edge_of = [gradient_edge(t) for t in inputs]
    mask = tuple(e is not None for e in edge_of)
    if not any(mask):
        return None
    if record_watchers:  # torch.func transforms over jax tracers collect the tensors they capture
        for w in record_watchers:
            w(inputs)
    if slots is None:
        slots = [i for i, t in enumerate(inputs) if _differentiable_dtype(t)]
    edges = [None if i is None else edge_of[i] for i in slots]
    where = None
    if len(edges) != len(inputs) or not all(mask) or any(i != k for k, i in enumerate(slots)):
        pos = {i: k for k, i in enumerate(slots) if i is not None}
        where = []
        for i, e in enumerate(edge_of):
            if e is not None:
                if i not in pos:
                    pos[i] = len(edges)
                    edges.append(e)
                where.append(pos[i])
        where = tuple(where)
    if saves == "output":
        saved = [SavedTensor(outputs[0], is_output=True)]
    else:
        saved = [SavedTensor(t, checked=saves == "inputs") for t in inputs]
    ins = [(t._shape, t._dtype, t._storage.device) for t, m in zip(inputs, mask) if m]
    outs = [(o._shape, o._dtype, o._storage.device) for o in outputs]
    node = (node_cls or node_class(name))(name, edges, forward, key, mask, saved, outs, ins, rule, where)
    for i, o in enumerate(outputs):
        o._requires_grad = True
        o._grad_fn = node
        o._output_nr = i
    return node

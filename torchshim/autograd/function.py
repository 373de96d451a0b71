"""`torch.autograd.Function`: user-defined ops with a hand-written backward.

`apply` runs `forward` with grad mode off, then (when an input requires grad) attaches a backward node to the
outputs. The node is the `ctx` object itself, as in PyTorch: `out.grad_fn` is an instance of
`<Name>Backward`, and whatever `forward` stored on `ctx` is there in `backward`. `backward` runs with grad
mode equal to `create_graph`, so a backward written with differentiable ops supports double backward. The node
has an edge per tensor argument (`(None, 0)` in `next_functions` when that tensor needs no gradient).
"""
import functools

from .._tensor import Tensor, filled
from . import _node as N
from .grad_mode import is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["Function", "FunctionCtx", "once_differentiable", "BackwardCFunction"]


class FunctionCtx:
    """What `forward`/`setup_context` receive as `ctx`: `save_for_backward`, `saved_tensors`, `mark_dirty`,
    `mark_non_differentiable`, `set_materialize_grads`, `needs_input_grad`, and free attributes."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument 0 is of type "
                                f"{type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs):
        raise RuntimeError("mark_shared_storage is deprecated. Tensors with shared storages are "
                           "automatically tracked. Note that calls to `set_()` are not tracked")


class BackwardCFunction(FunctionCtx, N.Node):
    """The backward node of a custom Function (and its ctx)."""

    def __init__(self, fn_cls):
        N.Node.__init__(self, fn_cls.__name__ + "Backward", [])
        self._forward_cls = fn_cls
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved = None
        self._freed = False
        self._out_meta = []
        self._input_slots = []  # for each argument: its index into edges (tensors), or None

    def name(self):
        return self._name

    def __repr__(self):
        return f"<torch.autograd.function.{self._name} object at {hex(id(self))}>"

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(N._FREED)
        if self._saved is None:
            return tuple(self.to_save)
        if self._saved == ():  # inside forward: nothing is saved yet (PyTorch's empty tuple)
            return ()
        out = []
        for i, s in enumerate(self._saved):
            if s is None:
                out.append(None)
                continue
            arr = s.value(self._name, self, i)
            t = s._tref()
            if t is not None and s.vc.value == s.version and not s.is_output and t._grad_fn is None:
                out.append(t)  # a leaf (or plain tensor) comes back as itself, like PyTorch
            else:
                out.append(s.as_tensor(self, s._out_nr if s.is_output else i, arr))
        return tuple(out)

    saved_variables = saved_tensors

    @property
    def n_outputs(self):
        return len(self._out_meta)

    def output_meta(self, i):
        return self._out_meta[i]

    def _release(self):
        if self._saved:
            self._freed = True
            self._saved = None

    def apply(self, grads, create_graph):
        # one gradient per output of forward, None for a non-tensor one (its meta is None); materialized
        # gradients are zeros like the output, its dtype included (int64 zeros for an index output)
        if self.materialize_grads:
            grads = [g if g is not None or m is None else filled(m[0], 0, m[1], m[2])
                     for g, m in zip(grads, self._out_meta)]
        backward = self._forward_cls.backward
        res = backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n_args = len(self.needs_input_grad)
        if len(res) < n_args or any(r is not None for r in res[n_args:]):
            raise RuntimeError(f"function {self._name} returned an incorrect number of gradients (expected "
                               f"{n_args}, got {len(res)})")
        out = [None] * len(self._edges)
        for pos, slot in enumerate(self._input_slots):
            if slot is None or self._edges[slot] is None:
                continue
            g = res[pos]
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"expected Tensor or None as gradient, but got {type(g).__name__}")
            out[slot] = g
        return out


class _FunctionMeta(type):
    """Gives each Function subclass its backward node class name (`<Name>Backward`)."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})


def _uses_setup_context(cls):
    return getattr(cls, "setup_context", None) is not getattr(Function, "setup_context", None)


class Function(metaclass=_FunctionMeta):
    """`torch.autograd.Function`: subclass with static `forward(ctx, *args)` (or `forward(*args)` plus
    `setup_context(ctx, inputs, output)`) and `backward(ctx, *grad_outputs)`; call with `apply`."""

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions are all "
                      "static, so you should invoke them on the class itself. Instantiating an autograd "
                      "function will raise an error in a future version of PyTorch.", DeprecationWarning,
                      stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please "
                           "use new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use "
                                  "it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run `forward` and record the backward node when an input requires grad."""
        if cls.backward is Function.backward and getattr(cls, "vjp", Function.vjp) is not Function.vjp:
            cls.backward = cls.vjp
        ctx = cls._backward_cls(cls)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        recording = is_grad_enabled() and any(ctx.needs_input_grad)
        ctx._saved = ()  # `saved_tensors` inside forward: empty, as in PyTorch
        with no_grad():
            if _uses_setup_context(cls):
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        return _wrap_outputs(ctx, args, out, recording)


def _wrap_outputs(ctx, args, out, recording):
    is_tuple = isinstance(out, tuple)
    outs = list(out) if is_tuple else [out]
    inputs_by_id = {id(a): a for a in args if isinstance(a, Tensor)}
    dirty = {id(t) for t in ctx.dirty_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    if not dirty <= {id(o) for o in outs}:
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as "
                           "output. The inputs that are modified inplace must all be outputs of the "
                           "Function.")
    for t in {id(t): t for t in ctx.dirty_tensors}.values():
        t._vc.value += 1  # PyTorch bumps each dirty tensor's version once more
    if not recording:
        grad_on = is_grad_enabled()
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and id(o) in inputs_by_id and id(o) not in dirty:
                # a new alias of the input: a view of it in grad mode, a plain alias under no_grad
                outs[i] = _alias(o) if grad_on else Tensor._make(o._storage, o._shape, o._stride, o._offset,
                                                                 o._dtype, o._vc, None, o._lens)
        _save(ctx, outs, recording=False)
        return tuple(outs) if is_tuple else outs[0]
    edges, slots = [], []  # one edge per tensor argument, (None, 0) where it needs no gradient, as PyTorch
    for a in args:
        if isinstance(a, Tensor):
            slots.append(len(edges))
            edges.append(N.gradient_edge(a) if a._requires_grad else None)
        else:
            slots.append(None)
    ctx._edges = edges
    ctx._input_slots = slots
    # every output of forward has a gradient slot (output_nr = its position; None meta: not a tensor)
    view_kind = "multi" if sum(isinstance(o, Tensor) for o in outs) > 1 else "custom"
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            ctx._out_meta.append(None)
            continue
        marked = id(o) in non_diff  # before aliasing: the mark names the object forward returned
        is_dirty = id(o) in dirty
        if is_dirty:
            if o._requires_grad and o._grad_fn is None and not o._diff_view:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                                   "operation.")
        elif id(o) in inputs_by_id:
            o = outs[i] = _alias(o)
        ctx._out_meta.append((o._shape, o._dtype, o._storage.device))
        if marked or not (o._dtype.is_floating_point or o._dtype.is_complex):
            o._requires_grad = False
        else:
            o._grad_fn, o._output_nr, o._requires_grad = ctx, i, True
            if o._base is not None and not is_dirty:
                # a view made in forward, or an input returned as is: its history is this node (not a strided
                # read of its base), and writing through it, or using it after its base was modified in
                # place, raises PyTorch's CreationMeta error (autograd/_creation_meta.py)
                o._diff_view, o._grad_version = True, o._vc.value
                o.__dict__["_cmeta"] = (view_kind, "", i)
    _save(ctx, outs, recording=True)
    return tuple(outs) if is_tuple else outs[0]


def _alias(t):
    a = Tensor._make(t._storage, t._shape, t._stride, t._offset, t._dtype, t._vc,
                     t._base if t._base is not None
                     else t, t._lens)
    # an alias with its own history (the Function's node), not a strided read of the base
    a._diff_view = False
    return a


def _save(ctx, outs, recording):
    if not recording:
        ctx._saved = None
        return
    out_ids = {id(o): k for k, o in enumerate(o for o in outs if isinstance(o, Tensor) and o._grad_fn is ctx)}
    saved = []
    for t in ctx.to_save:
        if t is None:
            saved.append(None)
            continue
        is_out = id(t) in out_ids
        s = N.SavedTensor(t, is_output=is_out)
        s._out_nr = out_ids.get(id(t), 0)
        saved.append(s)
    ctx._saved = saved


def once_differentiable(fn):
    """Decorator for `backward`: runs it with grad mode off; differentiating its result again raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled():
            return outputs
        requires = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        if not requires:
            return outputs
        tup = outputs if isinstance(outputs, tuple) else (outputs,)
        node = _DelayedError("trying to differentiate twice a function that was marked with "
                             "@once_differentiable", [N.gradient_edge(a) for a in args
                                                      if isinstance(a, Tensor) and a._requires_grad])
        res = []
        for o in tup:
            if isinstance(o, Tensor):
                o = _alias(o)
                o._grad_fn, o._output_nr, o._requires_grad = node, len(node._out_meta), True
                node._out_meta.append((o._shape, o._dtype, o._storage.device))
            res.append(o)
        return tuple(res) if isinstance(outputs, tuple) else res[0]
    return wrapper


class _DelayedError(N.Node):
    __slots__ = ("_msg", "_out_meta")

    def __init__(self, msg, edges):
        super().__init__("DelayedError", edges)
        self._msg = msg
        self._out_meta = []

    @property
    def n_outputs(self):
        return len(self._out_meta)

    def output_meta(self, i):
        return self._out_meta[i]

    def apply(self, grads, create_graph):
        raise RuntimeError(self._msg)


_ = set_grad_enabled

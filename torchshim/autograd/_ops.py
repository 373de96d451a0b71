"""Differentiability for every op in the table, derived from its forward.

`differentiable(op)` wraps an op's front function: when grad mode is on and an input requires grad, the op
runs (with recording off inside it, so a composite op is one node) and a `FnNode` is attached to its
floating-point outputs. The node's pullback is `jax.vjp` of the same front function re-run on the saved input
arrays, jitted once per (op, non-tensor arguments, tensor dtypes); an explicit rule from the op's registration
replaces it where PyTorch saves the result (sigmoid, tanh, exp, ...). The op's facts (node name, what it
saves, its rule) are arguments: `register()` keeps them on the op's entry and `install()` passes them here.
"""
import numbers

import jax.numpy as jnp

from .. import _dtype as D
from .. import _view as V
from .._tensor import Tensor, fresh
from ._creation_meta import tag_views
from . import _forward
from ._names import default_grad_name
from ._node import record
from .grad_mode import _state

__all__ = ["differentiable", "any_requires_grad", "flat_outputs"]


class _Slot:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def _scan(x, tensors):
    """`x` with every Tensor replaced by a _Slot (collected into `tensors`)."""
    if isinstance(x, Tensor):
        tensors.append(x)
        return _Slot(len(tensors) - 1)
    t = type(x)
    if t is list or t is tuple:
        return t(_scan(v, tensors) for v in x)
    if t is dict:
        return {k: _scan(v, tensors) for k, v in x.items()}
    return x


def _fill(x, tensors):
    if isinstance(x, _Slot):
        return tensors[x.i]
    t = type(x)
    if t is list or t is tuple:
        return t(_fill(v, tensors) for v in x)
    if t is dict:
        return {k: _fill(v, tensors) for k, v in x.items()}
    return x


class _Unhashable(Exception):
    pass


def _freeze(x):
    """A hashable key for a template (non-tensor arguments are part of the compiled pullback's identity)."""
    if isinstance(x, _Slot):
        return ("#", x.i)
    t = type(x)
    if t is list or t is tuple:
        return (t.__name__,) + tuple(_freeze(v) for v in x)
    if t is dict:
        return ("dict",) + tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    if t is slice:
        return ("slice", _freeze(x.start), _freeze(x.stop), _freeze(x.step))
    if x is None or x is Ellipsis or isinstance(x, (numbers.Number, str, D.dtype)):
        if isinstance(x, float) and x != x:
            return ("nan",)
        return (t, x)
    try:
        hash(x)
    except TypeError:
        raise _Unhashable() from None
    if hasattr(x, "__dict__") and type(x).__hash__ is object.__hash__:
        raise _Unhashable()  # identity-hashed objects (generators, ...) would pin a new compile per object
    return (t, x)


def _requires(x):
    if isinstance(x, Tensor):
        return x._requires_grad
    t = type(x)
    if t is list or t is tuple:
        for v in x:
            if _requires(v):
                return True
    return False


def any_requires_grad(args, kwargs):
    for a in args:
        if _requires(a):
            return True
    if kwargs:
        for a in kwargs.values():
            if _requires(a):
                return True
    return False


def flat_outputs(out):
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(flat_outputs(o))
        return res
    return []


def _differentiable_dtype(t):
    return t._dtype.is_floating_point or t._dtype.is_complex


def differentiable(name, fn, *, grad_name=None, saves=None, grad_rule=None, view=False):
    """`fn` (an op's front function) recording a tape node when an input requires grad.

    grad_name: the node's name (`grad_fn` class name), a string or callable(args, kwargs) -> str; default
      `<CamelCase(name)>Backward0`. A callable returning None: this call records nothing and its outputs do
      not require grad (PyTorch's `output_differentiability: [False]`, e.g. `view(dtype)`).
    saves: what the node saves for backward, 'inputs' (tensor inputs, version-checked), 'none' (nothing
      checked: linear ops, views), 'output' (the result, for `grad_rule`), or callable(args, kwargs) -> one of
      those; default 'output' with a `grad_rule`, else 'inputs'.
    grad_rule: an explicit pullback `rule(saved_arrays, cotangents, mask) -> [gradient of each input where
      mask]` replacing the vjp of `fn`; saved_arrays are [result] with saves='output', else the inputs'. An
      op with several outputs saves its inputs and has no rule.
    view: the op returns views of its first input (they are tagged as PyTorch's CreationMeta,
      autograd/_creation_meta.py).
    """
    bw_name = default_grad_name(name) if grad_name is None else grad_name
    policy = saves if saves is not None else "output" if grad_rule is not None else "inputs"
    rule = grad_rule

    def op(*args, **kwargs):
        if _fw.level is not None and _forward.has_dual(args, kwargs):  # forward AD: one check otherwise
            return _forward.op_with_tangents(plain, args, kwargs, lambda picked: _jvp_forward(
                fn, args, kwargs, picked))
        return plain(*args, **kwargs)

    def plain(*args, **kwargs):
        if not _state.enabled or not any_requires_grad(args, kwargs):
            out = fn(*args, **kwargs)
            if view and args and isinstance(args[0], Tensor) and (args[0]._diff_view
                                                                  or args[0]._requires_grad):
                n = bw_name(args, kwargs) if callable(bw_name) else bw_name
                if n is not None:
                    tag_views(args, out, n, _state.enabled)
            return out
        _state.enabled = False
        try:
            out = fn(*args, **kwargs)
        finally:
            _state.enabled = True
        n = bw_name(args, kwargs) if callable(bw_name) else bw_name
        if n is None:  # this call's outputs are not differentiable
            return out
        tensors = []
        template = _scan((args, kwargs), tensors)
        ids = {id(t) for t in tensors}
        flat = flat_outputs(out)
        picked = tuple(i for i, o in enumerate(flat) if id(o) not in ids and o._grad_fn is None
                       and _differentiable_dtype(o))
        if not picked:
            return out
        outputs = [flat[i] for i in picked]
        if name in GEOMETRY_OPS:
            metas = tuple((t._dtype, t._storage.device, t._shape, t._stride, t._offset, t._storage.numel)
                          for t in tensors)
        else:
            metas = tuple((t._dtype, t._storage.device) for t in tensors)
        try:
            key = (fn, _freeze(template), metas, picked)
        except _Unhashable:
            key = None
        forward = _make_forward(fn, template, metas, picked)
        saves = policy(args, kwargs) if callable(policy) else policy
        r = rule
        if saves == "output" and (r is None or len(outputs) != 1):
            saves, r = "inputs", None
        node = record(n, tensors, outputs, forward, key, saves=saves, rule=r)
        if node is not None and tensors and any(o._base is not None for o in outputs):
            for o in outputs:
                o._grad_version = o._vc.value
        if view:
            tag_views(args, out, n, True)
        return out
    if name in GEOMETRY_OPS:
        _GEOMETRY_FNS.add(fn)
    op.__name__ = getattr(fn, "__name__", name)
    op.__qualname__ = getattr(fn, "__qualname__", name)
    op.__doc__ = fn.__doc__
    op.__wrapped__ = fn
    return op


_fw = _forward.STATE


def _jvp_forward(fn, args, kwargs, picked):
    """(forward(arrays of the tensor inputs) -> arrays of the flat outputs `picked`, cache key or None) for
    forward-mode AD (autograd/_forward.py)."""
    tensors = []
    template = _scan((args, kwargs), tensors)
    if fn in _GEOMETRY_FNS:
        metas = tuple((t._dtype, t._storage.device, t._shape, t._stride, t._offset, t._storage.numel)
                      for t in tensors)
    else:
        metas = tuple((t._dtype, t._storage.device) for t in tensors)
    try:
        key = ("jvp", fn, _freeze(template), metas, picked)
    except _Unhashable:
        key = None
    return _make_forward(fn, template, metas, picked), key


_GEOMETRY_FNS = set()  # the front functions of GEOMETRY_OPS (filled by `differentiable`)


# Ops whose result depends on where the input sits in its storage (`as_strided` reads storage positions): the
# replayed forward rebuilds each input as a view with its original geometry over a zero storage, so the
# pullback routes gradients by storage position, as PyTorch's AsStridedBackward0 does.
GEOMETRY_OPS = frozenset({"as_strided"})


def _replay_view(arr, dtype, device, shape, stride, offset, numel):
    idx = V.index_map(shape, stride, offset).reshape(-1)
    buf = jnp.zeros((numel,), arr.dtype).at[idx].set(arr.reshape(-1))
    return fresh(buf, dtype, device)._as_view(shape, stride, offset)


def _make_forward(fn, template, metas, picked):

    def forward(arrays):
        ts = [fresh(a, m[0], m[1]) if len(m) == 2 else _replay_view(a, *m) for a, m in zip(arrays, metas)]
        args, kwargs = _fill(template, ts)
        prev = _state.enabled
        _state.enabled = False
        try:
            out = fn(*args, **kwargs)
        finally:
            _state.enabled = prev
        flat = flat_outputs(out)
        return tuple(flat[i]._value for i in picked)
    return forward


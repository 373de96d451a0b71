"""Forward-mode AD (the machinery behind `torch.autograd.forward_ad`): tangents carried beside tensors.

A tensor's tangent at the current dual level sits in its `__dict__` under `_fw_grad` as `(level token,
tangent Tensor)`; a token is one `dual_level` entry, so tangents die with their level. Every table op runs
through `_ops.differentiable`, which checks `STATE.level` (one attribute read) and, when a level is open and
an input carries a tangent, calls `op_with_tangents`: the op runs as usual, then
- a view output of a dual input whose tangent lies on a storage laid out like the primal's gets the same view
  of that tangent storage (so the tangent of a view is a view of the tangent, as in PyTorch);
- other floating-point/complex outputs get `jax.jvp` of the op's pure forward (the same replayable forward
  the tape's pullbacks use), jitted per (op, non-tensor arguments, dtypes, which inputs are dual).
Writes (`_inplace.assign`: in-place ops, `copy_`, `x[i] = v`, `out=`) call `on_assign`: the written tensor's
tangent becomes the value's tangent (zeros when the value has none), written in place into the existing
tangent storage, so views of it see the change.
"""
import threading

import jax
import jax.numpy as jnp

from .. import _view as V
from .._storage import Storage
from .._tensor import Tensor
from .._fused import jit as _fjit

__all__ = ["STATE", "tangent_of", "set_tangent", "has_dual", "op_with_tangents", "on_assign",
           "parallel_tangent", "convert_tangent", "attach_tangents"]


class _FwState:
    """`level`: the token (an object) of the open dual level, or None (then ops skip forward AD entirely);
    `index`: its public level number (0)."""
    level = None
    index = -1


STATE = _FwState()
_guard = threading.local()


def tangent_of(t):
    """The tangent of `t` at the open level, or None. A differentiable view without its own tangent whose
    base has one laid out like the base sees the same view of it (views made before the base got one)."""
    tok = STATE.level
    if tok is None:
        return None
    e = t.__dict__.get("_fw_grad")
    if e is not None and e[0] is tok:
        return e[1]
    b = t._base
    if b is not None and t._diff_view:
        e = b.__dict__.get("_fw_grad")
        if e is not None and e[0] is tok:
            return view_of_tangent(b, e[1], t)
    return None


def set_tangent(t, tangent):
    """Attach `tangent` (a Tensor or None) to `t` at the open level."""
    if tangent is None:
        t.__dict__.pop("_fw_grad", None)
    else:
        t.__dict__["_fw_grad"] = (STATE.level, tangent)


def _parallel(primal, tangent):
    """Whether `tangent` views a storage shaped like `primal`'s with the same geometry (then any view of the
    primal maps to the same view of the tangent)."""
    return (tangent._storage.array.shape == primal._storage.array.shape and tangent._shape == primal._shape
            and tangent._stride == primal._stride and tangent._offset == primal._offset
            and tangent._dtype is primal._dtype and tangent._lens == primal._lens)


def view_of_tangent(primal, tangent, view):
    """The tangent of `view` (a view of `primal`'s storage) as a view of `tangent`, or None when the tangent's
    layout does not follow the primal's."""
    if not _parallel(primal, tangent):
        return None
    root = tangent._base if tangent._base is not None else tangent
    return Tensor._make(tangent._storage, view._shape, view._stride, view._offset, view._dtype, tangent._vc,
                        root, view._lens)


def parallel_tangent(primal, tangent):
    """`tangent`, or a copy of it laid out like `primal` (same storage size and geometry) when it is not."""
    if _parallel(primal, tangent):
        return tangent
    t = _zeros_like_layout(primal)
    t._write(tangent._value)
    return t


def _scan(x, out):
    if isinstance(x, Tensor):
        out.append(x)
    elif type(x) is list or type(x) is tuple:
        for v in x:
            _scan(v, out)
    elif type(x) is dict:
        for v in x.values():
            _scan(v, out)


def has_dual(args, kwargs):
    """Whether any tensor among the arguments has a tangent at the open level."""
    ts = []
    _scan(args, ts)
    if kwargs:
        _scan(kwargs, ts)
    for t in ts:
        if tangent_of(t) is not None:
            return True
    return False


_JVPS = {}


def _jvp_fn(forward, dual_idx):
    def run(arrays, tangents):
        def f(*duals):
            a = list(arrays)
            for i, d in zip(dual_idx, duals):
                a[i] = d
            return forward(a)
        return jax.jvp(f, tuple(arrays[i] for i in dual_idx), tuple(tangents))[1]
    return run


def _is_diff(t):
    return t._dtype.is_floating_point or t._dtype.is_complex


def op_with_tangents(plain, args, kwargs, make_forward):
    """Run `plain(*args, **kwargs)` (the op with its tape recording) and attach tangents to its outputs.
    `make_forward(tensors, picked) -> (forward(arrays) -> picked output arrays, cache key or None, tensors)`
    gives the op's pure forward over all its tensor inputs."""
    if getattr(_guard, "on", False):
        return plain(*args, **kwargs)
    out = plain(*args, **kwargs)
    from ._ops import flat_outputs
    flat = flat_outputs(out)
    tensors = []
    _scan(args, tensors)
    if kwargs:
        _scan(kwargs, tensors)
    ids = {id(t) for t in tensors}
    tans = [tangent_of(t) if _is_diff(t) else None for t in tensors]
    todo = []
    for i, o in enumerate(flat):
        if id(o) in ids or not _is_diff(o):
            continue
        tv = None
        if o._base is not None:
            for t, tt in zip(tensors, tans):
                if tt is not None and t._storage is o._storage:
                    tv = view_of_tangent(t, tt, o)
                    if tv is not None:
                        break
        if tv is not None:
            set_tangent(o, tv)
        else:
            todo.append(i)
    if not todo:
        return out
    forward, key = make_forward(tuple(todo))
    _jvp_into(forward, key, tensors, tans, [flat[i] for i in todo])
    return out


def attach_tangents(forward, key, inputs, outputs):
    """Give `outputs` (computed by `forward(arrays of inputs)` -> their arrays) the tangents of `jax.jvp` of
    `forward` at the inputs' tangents (for writes that are not table ops, e.g. `x[index] = v`)."""
    tans = [tangent_of(t) if _is_diff(t) else None for t in inputs]
    if any(tt is not None for tt in tans):
        _jvp_into(forward, key, inputs, tans, outputs)


def _jvp_into(forward, key, tensors, tans, outputs):
    dual_idx = tuple(k for k, tt in enumerate(tans) if tt is not None)
    arrays = [t._value for t in tensors]
    tangents = [tans[k]._value.astype(arrays[k].dtype) for k in dual_idx]
    _guard.on = True
    try:
        run = None if key is None else _JVPS.get((key, dual_idx))
        if run is None:
            run = _fjit(_jvp_fn(forward, dual_idx))
            if key is not None:
                _JVPS[(key, dual_idx)] = run
        try:
            res = run(arrays, tangents)
        except Exception:  # data-dependent ops can't be traced: run eagerly (its own errors propagate)
            res = _jvp_fn(forward, dual_idx)(arrays, tangents)
            if key is not None:
                _JVPS[(key, dual_idx)] = _jvp_fn(forward, dual_idx)
    finally:
        _guard.on = False
    for o, r in zip(outputs, res):
        if _is_diff(o):
            st = Storage(r.astype(o._dtype.np), o._storage.device)
            set_tangent(o, Tensor._make(st, o._shape, V.contiguous_strides(o._shape), 0, o._dtype))


def convert_tangent(t, out, forward):
    """`out` = a dtype/device conversion of `t` (forward(arrays) -> (converted,)): its tangent converted the
    same way."""
    tt = tangent_of(t)
    if tt is not None and _is_diff(out):
        r = forward([tt._value])[0]
        set_tangent(out, Tensor._make(Storage(r, out._storage.device), out._shape,
                                      V.contiguous_strides(out._shape), 0, out._dtype))


def on_assign(self, value):
    """`self <- value` is about to happen (an in-place op, copy_, x[i] = v, out=): update self's tangent."""
    if getattr(_guard, "assign", False):
        return
    vt = tangent_of(value) if isinstance(value, Tensor) else None
    st = tangent_of(self)
    if vt is None and st is None:
        return
    if not _is_diff(self):
        return
    _guard.assign = True
    try:
        if st is None:
            base = self._base if self._diff_view else None
            if base is not None:
                bt = tangent_of(base)
                if bt is None:
                    bt = _zeros_like_layout(base)
                    set_tangent(base, bt)
                st = view_of_tangent(base, bt, self)
            if st is None:
                st = _zeros_like_layout(self)
            set_tangent(self, st)
        st._write(vt._value if vt is not None else jnp.zeros((), st._storage.array.dtype))
    finally:
        _guard.assign = False


def _zeros_like_layout(t):
    """A zero tangent laid out like `t` (a storage of the same size and dtype, the same geometry); a
    contiguous one for tensors with a lens (complex components, conj/neg bits)."""
    st = t._storage
    if t._lens is not None:
        return Tensor._make(Storage(jnp.zeros(t._shape, t._dtype.np), st.device), t._shape,
                            V.contiguous_strides(t._shape), 0, t._dtype)
    root = Tensor._make(Storage(jnp.zeros(st.array.shape, st.array.dtype), st.device), st.array.shape,
                        V.contiguous_strides(st.array.shape), 0, t._dtype)
    if t._natural:
        return root
    return Tensor._make(root._storage, t._shape, t._stride, t._offset, t._dtype, root._vc, root, t._lens)

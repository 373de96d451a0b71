"""In-place writes with autograd: every mutation of a Tensor goes through `assign`.

- A leaf that requires grad (or a view of one) may not be written in grad mode (PyTorch's errors).
- Writing into a tensor that is not a view rebases its history onto the written value (the in-place op's node
  becomes its `grad_fn`, like PyTorch's `rebase_history`); inputs of that node saved from the overwritten
  tensor keep their old (immutable) arrays, so they are not reported as modified.
- Writing through a view of a base that requires grad (or writing a value that requires grad) gives the base
  a `CopySlices` node: `base_new = write(base_old, value)` at the view's place, differentiated by jax; the
  view and its siblings are then strided reads of the base's new history (`AsStridedBackward0`): the written
  view takes it at once; a sibling when it is next used (`_node.gradient_edge`; reading `grad_fn` shows it
  without attaching it, `_node.shown_grad_fn`).
"""
from functools import lru_cache

import jax.numpy as jnp
import numpy as np

from .. import _view as V
from .._tensor import Tensor, fresh
from . import _forward
from ._creation_meta import check_write
from ._node import record, take_view_history
from .grad_mode import is_grad_enabled

__all__ = ["assign", "read_node"]


def _needs_autograd(self, vt):
    if vt is not None and vt._requires_grad:
        return True
    if self._requires_grad:
        return True
    return self._diff_view and self._base is not None and self._base._requires_grad


def assign(self, value, opname):
    """Write `value` (a Tensor, jax array or number; broadcast and cast to self) into self; returns self."""
    vt = value if isinstance(value, Tensor) else None
    if _forward.STATE.level is not None:
        _forward.on_assign(self, value)  # forward AD: the written tensor's tangent follows the value's
    if not is_grad_enabled() or not _needs_autograd(self, vt):
        self._write(vt._value if vt is not None else value)
        return self
    if self._diff_view:
        check_write(self)
    base = self._base if self._diff_view else None
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if base is None and self._requires_grad and self._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if vt is None:
        arr = jnp.broadcast_to(jnp.asarray(value, self._dtype.np), self._shape)
        vt = fresh(arr, self._dtype, self._storage.device)
    # what the value's node saved of the tensor being overwritten is its pre-write array: not "modified"
    _uncheck_saved(vt._grad_fn, self._storage)
    if base is not None and not (self.is_set_to(base) and self._lens == base._lens):
        _copy_slices(self, base, vt)
        return self
    if base is not None:  # a view covering all of its base: write the base itself
        base._assign_from(vt, opname)
        if base._requires_grad:
            take_view_history(self)
        return self
    node = vt._grad_fn
    if node is not None and vt._shape == self._shape and vt._dtype is self._dtype and vt._vc is not self._vc:
        # the in-place op's own node becomes self's history (PyTorch's rebase_history)
        self._write(vt._value)
        self._grad_fn, self._output_nr, self._requires_grad = node, vt._output_nr, True
        return self
    shape, dtype = self._shape, self._dtype
    # PyTorch's copy_ lists (self, src) whatever src's dtype; fill_/zero_ with a number list only self
    record(_copy_name(opname), [self, vt], [self], _cast_forward(shape, dtype), ("copy", shape, dtype),
           saves="none", slots=(0, 1) if isinstance(value, Tensor) else (0,))
    self._write(vt._value)
    return self


def _uncheck_saved(node, storage):
    """The in-place op's node saved its `self` (first input) before the write: that array is still right."""
    saved = getattr(node, "_saved", None)
    if saved and getattr(saved[0], "storage", None) is storage and not saved[0].is_output:
        saved[0].checked = False


def _copy_name(opname):
    return {"copy_": "CopyBackwards", "fill_": "FillBackward0", "zero_": "ZeroBackward0"}.get(
        opname, "CopyBackwards")


def _fit(v, shape, dtype):
    if jnp.iscomplexobj(v) and not np.issubdtype(dtype, np.complexfloating):
        v = jnp.real(v)
    return jnp.broadcast_to(v.astype(dtype), shape)


@lru_cache(maxsize=None)
def _cast_forward(shape, dtype):
    def forward(arrays):
        return (_fit(arrays[1], shape, dtype.np),)
    return forward


def _copy_slices(view, base, vt):
    """`view <- vt` where view is a differentiable view of `base`: base gets a CopySlices node."""
    geom = _relative(base, view)
    shape, dtype = view._shape, view._dtype
    record("CopySlices", [base, vt], [base], _write_forward(geom, shape, dtype),
           ("copyslices", geom, shape, dtype),
           saves="none")
    view._write(vt._value)
    take_view_history(view)


_REPLAYED = ("ConjBackward0", "ViewAsRealBackward0", "ViewAsComplexBackward0")


def read_node(view):
    """The node 'strided read of the base's current history' for `view`, built on an alias of it (`view`
    itself is left as it is)."""
    base = view._base
    geom = _relative(base, view)
    old = view._grad_fn  # views PyTorch can't express as_strided (conj, view_as_real/complex) keep their name
    name = old.name() if old is not None and old.name() in _REPLAYED else "AsStridedBackward0"
    alias = Tensor._make(view._storage, view._shape, view._stride, view._offset, view._dtype, view._vc, base,
                         view._lens)
    return record(name, [base], [alias], _read_forward(geom), ("asstrided", geom), saves="none")


def _relative(base, view):
    """A hashable description of where `view` sits inside `base` (both over the same storage)."""
    if base._natural:
        return ("natural", view._shape, view._stride, view._offset, view._lens)
    if base._lens is not None or view._lens is not None:  # complex components or conj/neg bits (_view.py)
        return ("lens",) + tuple((t._shape, t._stride, t._offset, t._lens, t._dtype.is_complex)
                                 for t in (base, view))
    return ("map", (base._shape, base._stride, base._offset), (view._shape, view._stride, view._offset))


@lru_cache(maxsize=1024)
def _positions(geom):
    """For a non-natural base: position in base.ravel() of each view element."""
    _, (bs, bst, bo), (vs, vst, vo) = geom
    bidx = V.index_map(bs, bst, bo).reshape(-1)
    where = {int(k): i for i, k in enumerate(bidx)}
    vidx = V.index_map(vs, vst, vo).reshape(-1)
    return np.array([where[int(k)] for k in vidx], dtype=np.int64).reshape(vs)


def _read(arr, geom):
    if geom[0] == "natural":
        return V.read(arr, *geom[1:])
    if geom[0] == "lens":
        return V.read_relative(arr, geom[1], geom[2])
    return arr.reshape(-1)[_positions(geom)]


@lru_cache(maxsize=1024)
def _read_forward(geom):
    def forward(arrays):
        return (_read(arrays[0], geom),)
    return forward


@lru_cache(maxsize=1024)
def _write_forward(geom, shape, dtype):
    def forward(arrays):
        base, val = arrays
        val = _fit(val, shape, dtype.np)  # the view's dtype
        if geom[0] == "natural":
            return (V.write(base, val, *geom[1:]),)
        if geom[0] == "lens":
            return (V.write_relative(base, val, geom[1], geom[2], dtype.np),)
        pos = _positions(geom)
        return (base.reshape(-1).at[pos.reshape(-1)].set(val.reshape(-1)).reshape(base.shape),)
    return forward

"""Tensors that require grad and that a function transformed over jax tracers (vmap, jvp) captures from
outside (closures, module parameters): found while it runs, then made inputs of the transform's tape node.

While the transform runs, `Watch` sees the inputs of every tape node recorded (autograd/_node.py
`record_watchers`); a tensor that requires grad and whose array is not a tracer of the transform's own trace
(or of one nested in it) is captured. The node's forward then re-runs the transform with the captured
tensors' storage arrays swapped for the arrays jax differentiates (restored afterwards; version counters are
not touched)."""
import jax

from .. import _view as V
from ..autograd import _node

__all__ = ["Watch", "swapped", "Outer"]


def _inner(arr, level):
    """Whether jax value `arr` belongs to trace `level` or to a trace nested inside it."""
    if not isinstance(arr, jax.core.Tracer):
        return False
    t = getattr(arr, "_trace", None)
    while t is not None:
        if t is level:
            return True
        t = getattr(t, "parent_trace", None)
    return False


class Watch:
    """`with Watch() as w:` ... `w.level = <the transform's trace>` once known; `w.tensors`: the captured
    tensors that require grad, in first-use order."""

    def __init__(self):
        self.level = None
        self.tensors = []
        self._ids = set()

    def see(self, inputs):
        if self.level is None:
            return
        for t in inputs:
            if t._requires_grad and id(t) not in self._ids and not _inner(t._storage.array, self.level):
                self._ids.add(id(t))
                self.tensors.append(t)

    def __enter__(self):
        _node.record_watchers.append(self.see)
        return self

    def __exit__(self, *exc):
        _node.record_watchers.remove(self.see)
        return False


class swapped:
    """`with swapped(tensors, arrays):` each tensor reads the given array (written at its place in its
    storage) inside the block; the storages' arrays are restored after."""

    def __init__(self, tensors, arrays):
        self.tensors, self.arrays = tensors, arrays

    def __enter__(self):
        self.saved = [(t._storage, t._storage.array) for t in self.tensors]
        for t, a in zip(self.tensors, self.arrays):
            st = t._storage
            if t._natural:
                st.array = a
            else:
                st.array = V.write(st.array, a, t._shape, t._stride, t._offset, t._lens)
        return self

    def __exit__(self, *exc):
        for st, a in reversed(self.saved):
            st.array = a
        return False


class Outer:
    """`with Outer(inner) as o:` while a function runs on the fresh leaves `inner` (grad, vjp), `o.found`
    tells whether a recorded op used a tensor that requires grad from outside (a captured parameter, a
    closure): then the transform's results keep their history, as PyTorch's do."""

    def __init__(self, inner):
        self.ids = {id(t) for t in inner}
        self.found = False
        self.start = None

    def see(self, inputs):
        if self.found:
            return
        for t in inputs:
            if t._requires_grad and id(t) not in self.ids:
                fn = t._grad_fn
                if fn is None or fn._seq < self.start:
                    self.found = True
                    return

    def __enter__(self):
        self.start = next(_node._seq)
        _node.record_watchers.append(self.see)
        return self

    def __exit__(self, *exc):
        _node.record_watchers.remove(self.see)
        return False

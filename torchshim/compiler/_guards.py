"""Guards of a compiled program: the state its trace was specialised on, found by walking what the function
reaches.

`walk(roots)` visits the call's arguments and what the function can reach without running it — its closure
cells, the globals its code names (and, one level at a time, those of the functions it names), a bound
method's `self` — descending into tensors, modules, optimizers, schedulers, containers and plain objects. It
returns the *signature* (a hashable tuple: each tensor's storage identity and geometry, dtype,
`requires_grad` and `.grad`; each module's `training` flag and structure; Python scalars by value; object
identities elsewhere) and the tensors found. A compiled program is reused only when the signature is equal;
otherwise the function is traced again.

Limits (docs/compile.md): lists and tuples of more than 16 plain Python values are not guarded (counters and
histories would retrace every call); objects are followed 8 levels deep; functions stored in objects are
guarded by identity.
"""
import numbers
import types

import numpy as np

from .._tensor import Tensor

__all__ = ["walk", "roots_of", "containers"]

_SCALARS = (bool, int, float, complex, str, bytes, type(None))
_MAX_DEPTH = 8
_MAX_PLAIN = 16
_SKIP_TYPES = (types.ModuleType, type, types.BuiltinFunctionType, types.MethodWrapperType)


class _Walk:
    __slots__ = ("sig", "tensors", "seen", "objects")

    def __init__(self, collect=False):
        self.sig = []
        self.tensors = []
        self.seen = {}
        self.objects = [] if collect else None  # the dicts, lists and objects visited (containers())

    def tensor(self, t):
        st = t._storage
        g = t._grad
        # storage identity is not guarded: inputs are read by position in the walk (aliasing is: _State)
        self.sig.append((type(t), t._shape, t._stride, t._offset, t._dtype, t._requires_grad,
                         t._grad_fn is None, st.device,
                         None if g is None else (g._shape, g._stride, g._offset, g._dtype)))
        self.tensors.append(t)
        if g is not None:
            self.tensors.append(g)

    def visit(self, x, depth):
        if isinstance(x, _SCALARS):
            self.sig.append((type(x), x))
            return
        if isinstance(x, Tensor):
            self.tensor(x)
            return
        i = id(x)
        if i in self.seen:
            self.sig.append(("seen", self.seen[i]))
            return
        self.seen[i] = len(self.seen)
        if self.objects is not None:
            self.objects.append(x)
        if depth > _MAX_DEPTH or isinstance(x, _SKIP_TYPES):
            self.sig.append(("id", i))
            return
        if isinstance(x, dict):
            self.sig.append((dict, len(x)))
            for k, v in x.items():
                self.key(k)
                self.visit(v, depth + 1)
            return
        if isinstance(x, (list, tuple)):
            if len(x) > _MAX_PLAIN and all(isinstance(v, _SCALARS) for v in x):
                self.sig.append((type(x), "long"))
                return
            self.sig.append((type(x), len(x)))
            for v in x:
                self.visit(v, depth + 1)
            return
        if isinstance(x, (set, frozenset)):
            self.sig.append((type(x), len(x)))
            return
        if isinstance(x, numbers.Number) or hasattr(x, "is_floating_point") and hasattr(x, "itemsize"):
            self.sig.append((type(x), x))  # numpy scalars, torch dtypes
            return
        if isinstance(x, np.ndarray):
            self.sig.append((np.ndarray, i, x.shape, x.dtype))
            return
        if isinstance(x, (types.FunctionType, types.MethodType, types.LambdaType)):
            self.sig.append(("fn", i))
            return
        d = getattr(x, "__dict__", None)
        if d is None:
            try:
                hash(x)
                self.sig.append((type(x), x))  # devices, dtypes, enums, other hashable values
            except TypeError:
                self.sig.append(("id", i))
            return
        self.sig.append((type(x),))
        for k, v in d.items():
            if k.startswith("_") and k.endswith("hooks") and isinstance(v, dict):
                self.sig.append((k, len(v)))
                continue
            self.sig.append(k)
            self.visit(v, depth + 1)

    def key(self, k):
        if isinstance(k, Tensor):
            self.sig.append(("key", id(k)))
        elif isinstance(k, _SCALARS) or isinstance(k, tuple):
            self.sig.append(k)
        else:
            self.sig.append(("key", id(k)))


def roots_of(fn, depth=2):
    """What `fn` can reach without running: a bound method's `self`, closure cells, and the globals its code
    (and its nested code objects) names — with the same for the functions among them, `depth` levels down."""
    out = []
    seen = set()

    def add(f, d):
        if id(f) in seen:
            return
        seen.add(id(f))
        self_ = getattr(f, "__self__", None)
        if self_ is not None and not isinstance(self_, types.ModuleType):
            out.append(self_)
        f = getattr(f, "__func__", f)
        code = getattr(f, "__code__", None)
        if code is None:
            return
        for cell in f.__closure__ or ():
            try:
                v = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            out.append(v)
            if d > 0 and isinstance(v, types.FunctionType):
                add(v, d - 1)
        g = f.__globals__
        for name in _names(code):
            if name in g:
                v = g[name]
                if isinstance(v, (types.ModuleType, type)):
                    continue
                out.append(v)
                if d > 0 and isinstance(v, types.FunctionType):
                    add(v, d - 1)
    add(fn, depth)
    return out


def _names(code):
    names = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names.extend(_names(c))
    return names


def walk(roots):
    """(signature tuple, tensors found in order) of the objects `roots`."""
    w = _Walk()
    for r in roots:
        w.visit(r, 0)
    return tuple(w.sig), w.tensors


def containers(roots):
    """Every dict, list and object (with a `__dict__`) the walk of `roots` visits."""
    w = _Walk(collect=True)
    for r in roots:
        w.visit(r, 0)
    return w.objects

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
histories would retrace every call); objects other than modules, dicts and lists are followed 8 levels deep;
functions stored in objects are guarded by identity.
"""
import numbers
import types

import numpy as np

from .._tensor import Tensor

__all__ = ["walk", "roots_of", "containers", "unchanged", "tensor_meta"]

_SCALARS = (bool, int, float, complex, str, bytes, type(None))
_MAX_DEPTH = 8
_MAX_PLAIN = 16
_SKIP_TYPES = (types.ModuleType, type, types.BuiltinFunctionType, types.MethodWrapperType)


def tensor_meta(t):
    """What is guarded of a tensor found again at the same place: geometry, dtype, autograd state, its storage
    and its `.grad` (identity and geometry)."""
    g = t._grad
    return (t._storage, t._shape, t._stride, t._offset, t._dtype, t._requires_grad, t._grad_fn is None,
            None if g is None else (id(g), g._storage, g._shape, g._stride, g._offset, g._dtype))


class _Walk:
    """One walk: `sig` (the signature), `tensors` (found, in order), `checks` (how to confirm cheaply that a
    later walk would give the same: each visited value's container, key and value), `objects` (containers
    visited, when collecting)."""

    __slots__ = ("sig", "tensors", "seen", "objects", "checks")

    def __init__(self, collect=False):
        self.sig = []
        self.tensors = []
        self.seen = {}
        self.objects = [] if collect else None
        self.checks = []

    def tensor(self, t, c, k):
        st = t._storage
        g = t._grad
        # storage identity is not in the signature: inputs are read by position in the walk (aliasing is, by
        # numbering storages in _State)
        self.sig.append((type(t), t._shape, t._stride, t._offset, t._dtype, t._requires_grad,
                         t._grad_fn is None, st.device,
                         None if g is None else (g._shape, g._stride, g._offset, g._dtype)))
        self.checks.append((2, c, k, t, tensor_meta(t)))
        self.tensors.append(t)
        if g is not None:
            self.tensors.append(g)

    def visit(self, x, depth, c, k):
        if isinstance(x, _SCALARS):
            self.sig.append((type(x), x))
            self.checks.append((1, c, k, x, None))
            return
        if isinstance(x, Tensor):
            self.tensor(x, c, k)
            return
        self.checks.append((0, c, k, x, None))
        i = id(x)
        if i in self.seen:
            self.sig.append(("seen", self.seen[i]))
            return
        self.seen[i] = len(self.seen)
        if self.objects is not None:
            self.objects.append(x)
        if depth > _MAX_DEPTH or isinstance(x, _SKIP_TYPES) or getattr(type(x), "_no_guard", False):
            self.sig.append(("id", i))
            return
        if isinstance(x, dict):
            self.sig.append((dict, len(x)))
            self.checks.append((3, x, None, None, len(x)))
            for key, v in x.items():
                self.key(key)
                self.visit(v, depth, x, key)
            return
        if isinstance(x, (list, tuple)):
            if len(x) > _MAX_PLAIN and not (isinstance(x[0], Tensor) or hasattr(x[0], "_parameters")):
                self.sig.append((type(x), "long"))  # histories, datasets: not guarded (module docstring)
                return
            self.sig.append((type(x), len(x)))
            self.checks.append((3, x, None, None, len(x)))
            for n, v in enumerate(x):
                self.visit(v, depth, x, n)
            return
        if isinstance(x, (set, frozenset)):
            self.sig.append((type(x), len(x)))
            self.checks.append((3, x, None, None, len(x)))
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
        self.checks.append((3, d, None, None, len(d)))
        for key, v in d.items():
            if key.startswith("_") and key.endswith("hooks") and isinstance(v, dict):
                self.sig.append((key, len(v)))
                self.checks.append((3, v, None, None, len(v)))
                continue
            self.sig.append(key)
            # containers and modules do not count as levels: a module tree of any depth is walked whole
            self.visit(v, depth if _is_module(x) else depth + 1, d, key)

    def key(self, k):
        if isinstance(k, Tensor):
            self.sig.append(("key", id(k)))
        elif isinstance(k, _SCALARS) or isinstance(k, tuple):
            self.sig.append(k)
        else:
            self.sig.append(("key", id(k)))


def _is_module(x):
    return "_parameters" in x.__dict__ and "_modules" in x.__dict__


def unchanged(walked, roots):
    """Whether walk result `walked` of earlier roots still holds for `roots` (the same walk would give the
    same result): the roots are the same objects and every check holds."""
    old = walked[3]
    if len(old) != len(roots):
        return False
    for a, b in zip(old, roots):
        if a is not b and (type(a) is not type(b) or not isinstance(a, _SCALARS) or a != b):
            return False
    for kind, c, k, x, m in walked[2]:
        if kind == 3:
            if len(c) != m:
                return False
            continue
        try:
            v = c[k]
        except (KeyError, IndexError, TypeError):
            return False
        if kind == 0:
            if v is not x:
                return False
        elif kind == 1:
            if v is not x and (type(v) is not type(x) or v != x):
                return False
        elif v is not x or tensor_meta(v) != m:
            return False
    return True


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


_CODE_NAMES = {}


def _names(code):
    """The global names `code` and the code objects nested in it use (cached per code object)."""
    names = _CODE_NAMES.get(code)
    if names is None:
        names = list(code.co_names)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                names.extend(_names(c))
        names = _CODE_NAMES[code] = tuple(dict.fromkeys(names))
    return names


def walk(roots):
    """(signature tuple, tensors found in order, checks, roots) of the objects `roots`."""
    w = _Walk()
    roots = list(roots)
    for n, r in enumerate(roots):
        w.visit(r, 0, roots, n)
    checks = [c for c in w.checks if c[1] is not roots]  # the roots themselves are compared by unchanged()
    return tuple(w.sig), w.tensors, checks, roots


def containers(roots):
    """Every dict, list and object (with a `__dict__`) the walk of `roots` visits."""
    w = _Walk(collect=True)
    roots = list(roots)
    for n, r in enumerate(roots):
        w.visit(r, 0, roots, n)
    return w.objects

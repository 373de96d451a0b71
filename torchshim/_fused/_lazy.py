"""`LazyArray`: the value of an op recorded, not yet run, in fused eager mode.

It stands where a jax array would (in a storage, a tensor's view cache, a saved tensor) and knows its shape,
dtype and weak type without running anything. Reading its numbers (`np.asarray`, `bool`, `float`, `item`,
`tolist`, printing, any jax array attribute it lacks) runs the pending segment first (`_segment.flush`) and
then answers from the computed array, which it keeps (`value`). Handing it to a jax function that flattens
its arguments (`jax.jit`, `jax.device_put`, `jax.tree_util`) does the same: it is a pytree node whose one
child is the computed array. `jax.numpy` functions reject it (JAX no longer converts unknown objects): code
that calls jax outside a kernel must pass `concrete(x)`.
"""
import operator

import jax
import numpy as np

__all__ = ["LazyArray", "concrete", "concrete_tree"]

# set by _segment (which imports this module): flush(reason) runs the pending segment
_flush = None


class LazyArray:
    """A recorded op's output: (shape, dtype, weak_type) now, `value` (a jax array) after its segment ran."""

    __slots__ = ("shape", "dtype", "weak_type", "value", "seg", "rec", "idx", "__weakref__")

    def __init__(self, shape, dtype, weak_type, seg, rec, idx):
        self.shape = shape
        self.dtype = dtype
        self.weak_type = weak_type
        self.value = None
        self.seg = seg
        self.rec = rec
        self.idx = idx

    # ----- metadata (no run) -------------------------------------------------------------------------------
    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    # ----- reads (run the segment) -------------------------------------------------------------------------
    def force(self, why="a value was read"):
        """The computed jax array (runs the pending segment if this value is part of it)."""
        v = self.value
        if v is None:
            _flush(why)
            v = self.value
            if v is None:
                raise RuntimeError("torchshim fused mode: a recorded value was dropped before it was read "
                                   "(internal error; set TORCHSHIM_EAGER=op to run op by op)")
        return v

    def __array__(self, dtype=None, copy=None):
        a = np.asarray(self.force("a host read (numpy)"))
        return a if dtype is None else a.astype(dtype, copy=False)

    def __bool__(self):
        return bool(self.force("a host read (bool)"))

    def __int__(self):
        return int(self.force("a host read (int)"))

    def __float__(self):
        return float(self.force("a host read (float)"))

    def __complex__(self):
        return complex(self.force("a host read (complex)"))

    def __index__(self):
        return self.force("a host read (index)").__index__()

    def item(self, *args):
        return self.force("a host read (item)").item(*args)

    def tolist(self):
        return self.force("a host read (tolist)").tolist()

    def __repr__(self):
        if self.value is None:
            return f"LazyArray(shape={self.shape}, dtype={self.dtype}, pending)"
        return repr(self.value)

    def __getattr__(self, name):
        # anything else a jax array has (`at`, `devices()`, `sharding`, methods): the computed array's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.force(f"jax array attribute {name!r}"), name)

    def __getitem__(self, idx):
        return self.force("an index read")[idx]

    def __iter__(self):
        return iter(self.force("iteration"))


# Operators on a LazyArray are recorded like kernels (the autograd engine adds gradients with `+`): one jitted
# function per operator, made on first use (`_jit` imports this module). Operands jax would not take give
# NotImplemented, as a jax array's operators do.
_OPERATORS = {
    "__add__": operator.add, "__sub__": operator.sub, "__mul__": operator.mul,
    "__truediv__": operator.truediv, "__floordiv__": operator.floordiv, "__mod__": operator.mod,
    "__pow__": operator.pow, "__matmul__": operator.matmul, "__and__": operator.and_, "__or__": operator.or_,
    "__xor__": operator.xor, "__lshift__": operator.lshift, "__rshift__": operator.rshift,
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
    "__eq__": operator.eq, "__ne__": operator.ne,
}
_REFLECTED = ("__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__", "__rpow__",
              "__rmatmul__", "__rand__", "__ror__", "__rxor__", "__rlshift__", "__rrshift__")
_UNARY = {"__neg__": operator.neg, "__pos__": operator.pos, "__abs__": operator.abs,
          "__invert__": operator.invert}
_kernels = {}


def _kernel(name, fn):
    k = _kernels.get(name)
    if k is None:
        from ._jit import jit
        fn = (lambda f: lambda a, b: f(b, a))(fn) if name in _REFLECTED else fn
        k = _kernels[name] = jit(fn)
    return k


def _operand(x):
    return isinstance(x, (LazyArray, jax.Array, np.ndarray, np.generic, bool, int, float, complex))


def _binary_dunder(name, fn):
    def method(self, other):
        if not _operand(other):
            return NotImplemented
        return _kernel(name, fn)(self, other)
    method.__name__ = name
    return method


def _unary_dunder(name, fn):
    def method(self):
        return _kernel(name, fn)(self)
    method.__name__ = name
    return method


for _name, _fn in _OPERATORS.items():
    setattr(LazyArray, _name, _binary_dunder(_name, _fn))
for _name in _REFLECTED:
    setattr(LazyArray, _name, _binary_dunder(_name, _OPERATORS["__" + _name[3:]]))
for _name, _fn in _UNARY.items():
    setattr(LazyArray, _name, _unary_dunder(_name, _fn))
LazyArray.__hash__ = None  # elementwise ==, as a jax array's (so unhashable, like one)


def concrete(x):
    """`x` itself, or a LazyArray's computed array (running its segment if needed)."""
    return x.force() if type(x) is LazyArray else x


def concrete_tree(tree):
    """`tree` (a list/tuple/dict of arrays and other values) with every LazyArray replaced by its array."""
    t = type(tree)
    if t is LazyArray:
        return tree.force()
    if t is list or t is tuple:
        return t(concrete_tree(x) for x in tree)
    if t is dict:
        return {k: concrete_tree(v) for k, v in tree.items()}
    return tree


jax.tree_util.register_pytree_node(LazyArray, lambda x: ((x.force("a jax function's argument"),), None),
                                   lambda aux, children: children[0])

"""`LazyArray`: the value of an op recorded, not yet run, in fused eager mode.

It stands where a jax array would (in a storage, a tensor's view cache, a saved tensor) and knows its shape,
dtype and weak type without running anything. Reading its numbers (`np.asarray`, `bool`, `float`, `item`,
`tolist`, printing, any jax array attribute it lacks) runs the pending segment first (`_segment.flush`) and
then answers from the computed array, which it keeps (`value`). Handing it to a jax function that flattens
its arguments (`jax.jit`, `jax.device_put`, `jax.tree_util`) does the same: it is a pytree node whose one
child is the computed array. `jax.numpy` functions reject it (JAX no longer converts unknown objects): code
that calls jax outside a kernel must pass `concrete(x)`.
"""
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


def _binary_dunder(name):
    def method(self, *other):
        return getattr(self.force(f"operator {name}"), name)(*other)
    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
              "__matmul__", "__rmatmul__", "__neg__", "__pos__", "__abs__", "__invert__", "__and__",
              "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lt__", "__le__", "__gt__", "__ge__",
              "__lshift__", "__rlshift__", "__rshift__", "__rrshift__"):
    setattr(LazyArray, _name, _binary_dunder(_name))

for _name in ("__eq__", "__ne__"):  # elementwise, as a jax array's (so unhashable, like one)
    setattr(LazyArray, _name, _binary_dunder(_name))
LazyArray.__hash__ = None


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

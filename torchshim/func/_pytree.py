"""The small pytree that `torch.func` needs, with PyTorch's node types (tuple, list, dict, namedtuple,
OrderedDict; everything else, None included, is a leaf) and its `TreeSpec` text (vmap's error messages quote
it)."""
import collections

__all__ = ["TreeSpec", "LEAF", "tree_flatten", "tree_unflatten", "broadcast_to_and_flatten", "tree_map",
           "treespec_pprint"]


class TreeSpec:
    """A tree's structure: node type, context (dict keys, namedtuple class), children specs."""

    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, typ, context, children):
        self.type, self.context, self.children = typ, context, children
        self.num_leaves = 1 if typ is None else sum(c.num_leaves for c in children)

    def is_leaf(self):
        return self.type is None

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children == other.children)

    def __repr__(self, indent=0):
        if self.type is None:
            return "*"
        name = "namedtuple" if self.type is _NAMEDTUPLE else self.type.__name__
        s = f"TreeSpec({name}, {self.context}, ["
        if self.children:
            indent += 2
            s += self.children[0].__repr__(indent)
            s += "," if len(self.children) > 1 else ""
            s += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return s + "])"


LEAF = TreeSpec(None, None, [])
_NAMEDTUPLE = type("namedtuple", (), {})


def _node(x):
    """(type tag, context, children) of a pytree node, or None for a leaf."""
    t = type(x)
    if t is tuple or t is list:
        return t, None, list(x)
    if t is dict or t is collections.OrderedDict:
        keys = list(x.keys())
        return t, keys, [x[k] for k in keys]
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        return _NAMEDTUPLE, t, list(x)
    return None


def tree_flatten(tree):
    """(leaves, TreeSpec)."""
    leaves = []

    def go(x):
        n = _node(x)
        if n is None:
            leaves.append(x)
            return LEAF
        typ, ctx, kids = n
        return TreeSpec(typ, ctx, [go(k) for k in kids])
    return leaves, go(tree)


def tree_unflatten(leaves, spec):
    it = iter(leaves)

    def go(s):
        if s.type is None:
            return next(it)
        kids = [go(c) for c in s.children]
        if s.type is _NAMEDTUPLE:
            return s.context(*kids)
        if s.type is dict or s.type is collections.OrderedDict:
            return s.type(zip(s.context, kids))
        return s.type(kids)
    return go(spec)


def broadcast_to_and_flatten(prefix, spec):
    """`prefix` (a tree whose leaves apply to whole subtrees of `spec`) flattened to `spec`'s leaves, or None
    when its structure is not a prefix of `spec`."""
    out = []

    def go(p, s):
        n = _node(p)
        if n is None:
            out.extend([p] * s.num_leaves)
            return True
        typ, ctx, kids = n
        if s.type is None or typ is not s.type or ctx != s.context or len(kids) != len(s.children):
            return False
        return all(go(k, c) for k, c in zip(kids, s.children))
    return out if go(prefix, spec) else None


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def treespec_pprint(spec):
    """PyTorch's short structure text: `*` for a leaf, `(*, {'a': *})`, ..."""
    if spec.type is None:
        return "*"
    kids = [treespec_pprint(c) for c in spec.children]
    if spec.type is tuple or spec.type is _NAMEDTUPLE:
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if spec.type is list:
        return "[" + ", ".join(kids) + "]"
    return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(spec.context, kids)) + "}"

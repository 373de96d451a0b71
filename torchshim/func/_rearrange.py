"""`torch.func.rearrange`: einops-style reordering of a tensor's dimensions written as a pattern
("b h w c -> b (h w) c"), done with reshape / permute / reshape (views where reshape gives views).

Differences from PyTorch (whose version runs on functorch's first-class dimensions): an anonymous axis `1` on
the left must match a dimension of size 1 (PyTorch sums over a larger one, or fails with an AssertionError,
depending on the right side); errors that name dimensions (`DimensionBindError`) use the same `d<i>` names as
PyTorch (the left side's identifiers in order) but the class is torchshim's.
"""
import keyword
import math

from .. import _api

__all__ = ["rearrange", "DimensionBindError"]

_ELLIPSIS = "\u2026"  # how an ellipsis stands as one identifier (PyTorch's messages print it so)


class DimensionBindError(Exception):
    """The sizes of the pattern's dimensions do not fit the tensor (functorch.dim.DimensionBindError)."""


def _check_identifier(name):
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"Invalid axis identifier: {name}\nnot a valid python identifier")
    if name.startswith("_") or name.endswith("_"):
        raise ValueError(f"Invalid axis identifier: {name}\naxis name should should not start or end with "
                         "underscore")


def _parse(side):
    """One side of the pattern -> (groups, identifiers, has_ellipsis): groups is a list of lists of axis
    names (a bare name is a group of one; `1` and `()` add nothing to a group)."""
    if "." in side:
        if side.count(".") != 3 or "..." not in side:
            raise ValueError("Expression may contain dots only inside ellipsis (...); only one ellipsis for "
                             "tensor ")
        side = side.replace("...", _ELLIPSIS)
    groups, current, idents = [], None, []

    def add(token):
        if token == "1":
            if current is None:
                groups.append([])  # a dimension of size 1
            return
        if token.isdecimal():
            raise ValueError("rearrange only supports unnamed axes of size 1")
        if token != _ELLIPSIS:
            _check_identifier(token)
        if token in idents:
            raise ValueError(f"Indexing expression contains duplicate dimension '{token}'")
        idents.append(token)
        if current is not None:
            current.append(token)
        else:  # a bare `...` stays a marker: one group per dimension it covers
            groups.append(token if token == _ELLIPSIS else [token])

    token = ""
    for ch in side + " ":
        if ch in " ()" + _ELLIPSIS:
            if token:
                add(token)
                token = ""
            if ch == _ELLIPSIS:
                add(_ELLIPSIS)
            elif ch == "(":
                if current is not None:
                    raise ValueError("Axis composition is one-level (brackets inside brackets not allowed)")
                current = []
            elif ch == ")":
                if current is None:
                    raise ValueError("Brackets are not balanced")
                groups.append(current)
                current = None
        else:
            token += ch
    if current is not None:
        raise ValueError(f"Imbalanced parentheses in expression: '{side}'")
    return groups, idents


def _bind_group(group, size, lengths, names):
    """Record the length of each axis of one left-side group whose dimension has `size` elements."""
    unknown = [a for a in group if a not in lengths]
    known = math.prod(lengths[a] for a in group if a in lengths)
    if len(unknown) > 1:
        raise DimensionBindError(f"cannot infer the sizes of two dimensions at once {names[unknown[0]]} and "
                                 f"{names[unknown[1]]}")
    if unknown:
        if known == 0 or size % known:
            shown = ", ".join(repr(lengths[a]) if a in lengths else "'?'" for a in group)
            raise DimensionBindError("inferred dimension does not evenly fit into larger dimension: "
                                     f"{size} vs ({shown})")
        lengths[unknown[0]] = size // known
    elif known != size:
        raise DimensionBindError(f"Dimension sizes to do not match ({size} != {known}) when matching "
                                 f"dimension pack ({', '.join(names[a] for a in group)},)")


def rearrange(tensor, pattern, **axes_lengths):
    """`torch.func.rearrange(tensor, pattern: str, **axes_lengths: int) -> Tensor`: `einops.rearrange`.
    `tensor` may be a list or tuple of tensors (stacked along a new first dimension). The pattern
    "left -> right" names each dimension; parentheses compose (flatten or split) dimensions, `...` stands for
    the remaining ones, `1` / `()` for a dimension of size 1; axes_lengths give the sizes a split needs."""
    if isinstance(tensor, (list, tuple)):
        tensor = _api.stack(list(tensor))
    if pattern.count("->") != 1:
        raise ValueError("Pattern must contain a single '->' separator")
    left_text, right_text = pattern.split("->")
    left, left_ids = _parse(left_text)
    right, right_ids = _parse(right_text)
    if _ELLIPSIS in right_ids and _ELLIPSIS not in left_ids:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if any(isinstance(g, list) and _ELLIPSIS in g for g in left):
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    only_one = set(left_ids) ^ set(right_ids)
    if only_one:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on both): "
                         f"{only_one}")
    unknown = set(axes_lengths) - set(left_ids)
    if unknown:
        raise ValueError(f"Identifiers not found in rearrange expression: {unknown}")
    for v in axes_lengths.values():
        if not isinstance(v, int):
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(v)}")

    # `...` on the left covers the tensor's leftover dimensions: one group per dimension
    n_ell = tensor.dim() - (len(left) - 1) if _ELLIPSIS in left_ids else 0
    if n_ell < 0 or (_ELLIPSIS not in left_ids and len(left) != tensor.dim()):
        raise ValueError(f"Number of dimensions in pattern ({len(left)}) must be equal to the number of "
                         f"dimensions in the tensor ({tensor.dim()})")
    ell = [f"{_ELLIPSIS}{i}" for i in range(n_ell)]

    def expand(groups):
        out = []
        for g in groups:
            if g == _ELLIPSIS:
                out += [[e] for e in ell]
            else:
                out.append([a2 for a in g for a2 in (ell if a == _ELLIPSIS else [a])])
        return out

    left, right = expand(left), expand(right)
    names = {a: f"d{i}" for i, a in enumerate(a for g in left for a in g)}
    lengths = dict(axes_lengths)
    for g, size in zip(left, tensor.shape):
        if not g and size != 1:
            raise ValueError(f"rearrange only supports unnamed axes of size 1 (dimension of size {size} "
                             f"matched by 1 in {pattern!r})")
        _bind_group(g, size, lengths, names)

    elementary = [a for g in left for a in g]
    order = [a for g in right for a in g]
    out = tensor.reshape([lengths[a] for a in elementary])
    perm = [elementary.index(a) for a in order]
    if perm != list(range(len(perm))):
        out = out.permute(perm)
    shape = [math.prod(lengths[a] for a in g) for g in right]
    return out.reshape(shape)

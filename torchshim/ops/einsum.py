"""`torch.einsum`: PyTorch's equation and sublist forms, its checks and error messages, and the grad_fn name
of the node PyTorch's decomposition ends in."""
import collections

import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import short_name
from .._tensor import Tensor
from . import _dispatch as P
from ._dispatch import DEFAULT
from ._registry import register
from .movement import not_implemented
from .linalg import _LOW, mm_precision


# ---- einsum ------------------------------------------------------------------------------------------------
@P.kernel(static=("eq", "shapes", "dt"))
def _einsum_k(arrs, eq, shapes, dt):
    arrs = [jnp.broadcast_to(a.astype(dt), s) for a, s in zip(arrs, shapes)]
    pet = jnp.float32 if dt in _LOW else None
    return jnp.einsum(eq, *arrs, precision=mm_precision(dt), preferred_element_type=pet).astype(dt)


def _sublist_equation(args):
    def sub(n):
        if n is Ellipsis:
            return "..."
        if 0 <= n < 26:
            return chr(ord("A") + n)
        if 26 <= n < 52:
            return chr(ord("a") + n - 26)
        raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
    eq = ",".join("".join(sub(s) for s in sl) for sl in args[1::2])
    if len(args) % 2 == 1:
        return eq + "->" + "".join(sub(s) for s in args[-1]), args[:-1:2]
    return eq, args[::2]


def _parse_terms(lhs, nops):
    terms, cur, i = [[]], 0, 0
    while i < len(lhs):
        ch = lhs[i]
        if ch == ",":
            cur += 1
            if cur >= nops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            terms.append([])
        elif lhs.startswith("...", i):
            terms[-1].append("...")
            i += 2
        elif ch != " ":
            if not ch.isascii() or not ch.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            terms[-1].append(ch)
        i += 1
    if cur != nops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return terms


def _einsum_name(args, kwargs):
    """PyTorch's einsum ends in a permute (one operand, no sum), a sum, a mul (no contraction) or a view."""
    eq = args[0] if args and isinstance(args[0], str) else None
    if eq is None or "->" not in eq:
        return "ViewBackward0"
    lhs, out = eq.replace(" ", "").split("->")
    ops = lhs.split(",")
    letters = set(lhs.replace(",", "").replace(".", ""))
    summed = letters - set(out)
    if len(ops) == 1:
        return "SumBackward1" if summed or (lhs.count(".") and not out.count(".")) else "PermuteBackward0"
    return "MulBackward0" if not summed and len(ops) == 2 else "ViewBackward0"


@register("einsum", method=False, kind="linalg", grad_name=_einsum_name)
def einsum(*args):
    """`torch.einsum(equation, *operands)`; also the list-of-operands and sublist forms.

    Size-1 dims broadcast. Operands must share a dtype when a label is contracted across operands (PyTorch's
    bmm path); otherwise they promote (its mul path)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                         "one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        eq, ops = _sublist_equation(args)
    else:
        eq, ops = args[0], args[1:]
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = tuple(ops[0])
    lhs, arrow, rhs = eq.partition("->")
    if len(ops) > 2 and len(lhs.split(",")) != len(ops):
        raise ValueError(f"Number of einsum subscripts, {len(lhs.split(','))}, must be equal to the number "
                         f"of operands, {len(ops)}.")
    terms = _parse_terms(lhs, len(ops))
    ell_n = 0
    for k, (t, op) in enumerate(zip(terms, ops)):
        labels = [c for c in t if c != "..."]
        if "..." in t:
            if len(labels) > op.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) is "
                                   f"more than the number of dimensions ({op.ndim}) for operand {k}")
            ell_n = max(ell_n, op.ndim - len(labels))
        elif len(labels) != op.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) does not "
                               f"match the number of dimensions ({op.ndim}) for operand {k} and no ellipsis "
                               "was given")
    spare = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in eq][:ell_n]
    sizes, counts, n_ops, full = {}, collections.Counter(), collections.Counter(), []
    for k, (t, op) in enumerate(zip(terms, ops)):
        n_ell = op.ndim - sum(c != "..." for c in t)
        expanded = []
        for c in t:
            expanded.extend(spare[ell_n - n_ell:] if c == "..." else [c])
        for c, s in zip(expanded, op._shape):
            p = sizes.get(c)
            if p is None or p == 1:
                sizes[c] = s
            elif s != 1 and s != p:
                if c in spare:
                    raise RuntimeError(f"einsum(): dimension {spare.index(c)} covered by ellipsis in operand "
                                       f"{k}has size {s} which does not broadcast with previously seen "
                                       f"ellipsis with size {p} for the respective dimension")
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which does not "
                                   f"broadcast with previously seen size {p}")
        counts.update(expanded)
        n_ops.update(set(expanded))
        full.append(expanded)
    if arrow:
        out = []
        for i, c in enumerate(rhs.replace("...", "\0")):
            if c == "\0":
                out.extend(spare)
            elif c != " ":
                if not c.isascii() or not c.isalpha():
                    j = len(lhs) + 2 + i + 2 * rhs.replace("...", "\0")[:i].count("\0")
                    raise RuntimeError(f"einsum(): invalid subscript given at index {j} in the equation "
                                       "string, subscripts must be in [a-zA-Z]")
                if c in out:
                    raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
                if c not in counts:
                    raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for "
                                       "any input operand")
                out.append(c)
    else:
        out = spare + sorted(c for c in counts if counts[c] == 1 and c not in spare)
    contracted = any(n_ops[c] > 1 and c not in out for c in n_ops)
    dts = [op._dtype for op in ops]
    if contracted and any(d is not dts[0] for d in dts):
        other = next(d for d in dts if d is not dts[0])
        raise RuntimeError(f"expected scalar type {short_name(dts[0])} but found {short_name(other)}")
    if contracted and dts[0] is D.bool_:
        raise not_implemented("bmm", dts[0])
    dt = P.promote(DEFAULT, ops)[1] if not contracted else dts[0]
    dev = P.check_devices(ops)
    shapes = tuple(tuple(sizes[c] for c in f) for f in full)
    equation = ",".join("".join(f) for f in full) + "->" + "".join(out)
    return P.fresh(_einsum_k(tuple(op._value for op in ops), eq=equation, shapes=shapes, dt=dt.np), dt, dev)

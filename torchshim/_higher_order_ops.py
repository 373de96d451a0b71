"""`torch.cond` and `torch.while_loop` (also `torch._higher_order_ops.cond` / `.while_loop`): control flow
as functions, run eagerly.

`cond` calls the branch that `pred` selects (gradients flow through the branch taken). `while_loop` calls
`body_fn` while `cond_fn` is true and returns the last carried values. PyTorch's eager path compiles both
with dynamo and checks that the body keeps the carried values' structure, shapes and dtypes; torchshim runs
them in Python and makes the same checks, raising RuntimeError (PyTorch raises
`torch._dynamo.exc.UncapturedHigherOrderOpError`, a RuntimeError subclass) with the same explanation.
"""
from . import _dtype as D
from ._api import Tensor

__all__ = ["cond", "while_loop"]


def _leaves(tree):
    """The leaves of nested tuples/lists/dicts, in order."""
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    if isinstance(tree, dict):
        return [leaf for k in tree for leaf in _leaves(tree[k])]
    return [tree]


def cond(pred, true_fn, false_fn, operands=()):
    """`torch.cond(pred, true_fn, false_fn, operands=()) -> Any`: `true_fn(*operands)` if `pred` else
    `false_fn(*operands)`. `pred` is a Python bool/number or a one-element tensor; with a tensor `pred`, the
    branches must be callable and `operands` a tuple/list whose leaves are tensors (PyTorch's errors)."""
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, (bool, Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or any(not isinstance(t, Tensor) for t in _leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only "
                           f"consists of tensor leaves, but got {operands}.")
    return true_fn(*operands) if bool(pred) else false_fn(*operands)


def _meta(x):
    return (tuple(x.shape), x.dtype) if isinstance(x, Tensor) else type(x)


def _check_body(out, carried):
    outs, ins = _leaves(out), _leaves(carried)
    if len(outs) != len(ins):
        raise RuntimeError(f"Expected body_fn_output and carried_inputs to have same number of outputs "
                           "but got "
                           f"lhs:{outs} and rhs:{ins}")
    for i, (o, c) in enumerate(zip(outs, ins)):
        if _meta(o) != _meta(c):
            raise RuntimeError(f"Expected body_fn_output and carried_inputs to have same metadata but "
                               "found:\n"
                               f"pair[{i}] differ: {_meta(o)} vs {_meta(c)}")


def _check_pred(pred):
    if isinstance(pred, bool):
        return pred
    if isinstance(pred, Tensor) and pred.dim() == 0 and pred.dtype is D.bool_:
        return bool(pred)
    raise RuntimeError(f"torch.while_loop: unsupported cond_fn return type. Expected cond_fn to return a "
                       f"scalar tensor or a bool but got {pred}.")


def while_loop(cond_fn, body_fn, carried_inputs):
    """`torch.while_loop(cond_fn, body_fn, carried_inputs)`: `while cond_fn(*vals): vals = body_fn(*vals)`,
    starting from `carried_inputs` (a tuple/list whose leaves are tensors or ints); returns the last values
    (copies of the inputs when the body never runs). `cond_fn` must return a bool or a 0-dim bool tensor;
    `body_fn` the carried values' structure, shapes and dtypes."""
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    leaves = _leaves(carried_inputs)
    bad = [type(t) for t in leaves if not isinstance(t, (Tensor, int)) or isinstance(t, bool)]
    if bad:
        got = ", ".join(map(str, bad))
        raise AssertionError(f"{leaves} can only be of ({Tensor}, {int}) but got ({got},)")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list but got {type(carried_inputs)}")
    vals = tuple(carried_inputs)
    out = None
    while _check_pred(cond_fn(*vals)):
        out = body_fn(*vals)
        _check_body(out, vals)
        vals = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if out is None:
        return tuple(v.clone() if isinstance(v, Tensor) else v for v in vals)
    return out

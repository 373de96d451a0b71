"""How a view was created, where that forbids writing through it (PyTorch's `CreationMeta`).

A view is tagged in its `__dict__` as `_cmeta = (kind, name, output_nr)` when
- it is an output of an op that returns several views (`unbind`, `split`, `chunk`, ...) of a tensor that
  requires grad: kind "multi";
- it was made under `no_grad` from a tensor that requires grad (or from a view of one): kind "no_grad";
- it is an output of a custom autograd.Function that is a view (made in forward, or an input returned as is):
  kind "custom", or "multi" when the Function returns several tensors (autograd/function.py);
- it is a view of a tagged view: "multi"/"custom" stay (named after the new view's op), "no_grad" becomes
  "no_grad_inherited".
`assign` (autograd/_inplace.py) raises PyTorch's error when a tagged view is written in grad mode, and a
"multi" view whose base was modified in place since raises when it is next used (`_node._view_history`).

Difference from PyTorch: a view made under no_grad does not require grad here (PyTorch's is a leaf that
requires grad), so reading its `grad_fn` after its base was modified in place gives None, not an error.
"""
import re

__all__ = ["tag_views", "check_write", "check_use"]

_CLARIFY = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
            "code by moving both the view and the inplace either both inside the no_grad block (if you don't "
            "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
_CUSTOM = ("This view was created inside a custom Function (or because an input was returned as-is) and the "
           "autograd logic to handle view+inplace would override the custom backward associated with the "
           "custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by "
           "cloning the output of the custom Function.")
_MULTI = ("This view is the output of a function that returns multiple views. Such functions do not allow "
          "the output views to be modified inplace. You should replace the inplace operation by an "
          "out-of-place one.")


def _tag_of(t):
    d = getattr(t, "__dict__", None)
    return d.get("_cmeta") if d else None


def _source_tag(inputs):
    """The tag a view inherits from its input (the first tensor argument), and whether that input is a tensor
    whose gradient is tracked (it requires grad, or is a differentiable view of a tensor that does)."""
    for x in inputs:
        if hasattr(x, "_requires_grad"):
            tracked = x._requires_grad or (x._diff_view and x._base is not None and x._base._requires_grad)
            return _tag_of(x), tracked
    return None, False


_MULTI_OUTPUT_VIEW_NODES = frozenset({"Split", "SplitWithSizes", "Unbind"})


def tag_views(args, out, name, grad_enabled):
    """Tag the view outputs `out` of a view op called with `args` (see the module docstring). `name`: the
    op's node name (PyTorch's `grad_fn` class name)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    parent, tracked = _source_tag(args)
    if not tracked and parent is None:
        return
    short = re.sub(r"Backward[0-9]*$", "", name)
    # only split/chunk/split_with_sizes/unbind are multi-output view functions in PyTorch; other ops
    # returning several views (tensor_split/hsplit, broadcast_tensors, meshgrid, atleast_*d) are composite
    # there: each output is a plain `slice`/`expand`/`view` view that may be written in place
    multi = isinstance(out, (tuple, list)) and short in _MULTI_OUTPUT_VIEW_NODES
    for nr, o in enumerate(outs):
        if not hasattr(o, "_base") or o._base is None:
            continue
        if not grad_enabled and tracked:
            tag = ("no_grad", short, nr)
        elif multi:
            tag = ("multi", short, nr)
        elif parent is not None:
            kind = parent[0] if parent[0] in ("multi", "custom") else "no_grad_inherited"
            tag = (kind, short, nr)
        else:
            continue
        o.__dict__["_cmeta"] = tag


def check_write(t):
    """Raise PyTorch's error when tagged view `t` is written in place in grad mode."""
    tag = _tag_of(t)
    if tag is None:
        return
    kind, name, nr = tag
    fn = t._grad_fn
    if fn is not None:  # PyTorch names the view's own node
        name, nr = re.sub(r"Backward[0-9]*$", "", fn.name()), t._output_nr
    if kind in ("multi", "custom"):
        raise RuntimeError(f"Output {nr} of {name} is a view and is being modified inplace. "
                           f"{_MULTI if kind == 'multi' else _CUSTOM}")
    if kind == "no_grad":
        raise RuntimeError("A view was created in no_grad mode and is being modified inplace with grad mode "
                           f"enabled. {_CLARIFY}")
    raise RuntimeError(f"Output {nr} of {name} is a view of a view which was created in no_grad mode and is "
                       f"being modified inplace with grad mode enabled. {_CLARIFY}")


def check_use(t):
    """Raise PyTorch's error when a "multi" or "custom" view `t` is used after its base was modified in
    place."""
    tag = _tag_of(t)
    if tag is None or tag[0] not in ("multi", "custom"):
        return
    fn = t._grad_fn
    name, nr = (re.sub(r"Backward[0-9]*$", "", fn.name()), t._output_nr) if fn is not None else tag[1:]
    raise RuntimeError(f"Output {nr} of {name} is a view and its base or another view of its base has been "
                       f"modified inplace. {_MULTI if tag[0] == 'multi' else _CUSTOM}")

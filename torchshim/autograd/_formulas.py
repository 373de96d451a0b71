"""The gradient side of the op table: PyTorch's backward node names, what each op saves, explicit rules.

Every op is differentiable through `jax.vjp` of its forward; this table only says
- the `grad_fn` name PyTorch shows (default: `<CamelCaseName>Backward0`),
- what PyTorch saves for backward, which decides when an in-place modification is an error at backward:
  'inputs' (default: tensor inputs are saved and version-checked), 'none' (linear ops and views save no
  tensor), 'output' (the result is saved and the explicit rule below computes the gradient from it),
- explicit rules (`RULES`, `rule(saved_arrays, cotangents, mask) -> [gradient of each input where mask]`) for
  ops whose PyTorch backward reads the result: the `.data` example of the 0.4 migration guide depends on it.
  `INPUT_RULES` are rules over the saved inputs, for ops whose jax derivative differs from PyTorch's convention
  and whose forward can't simply be written so that jax's derivative matches (prefer that: one definition).
"""
import math

import jax.numpy as jnp

from .._tensor import Tensor

__all__ = ["backward_name", "save_policy", "RULES"]


def _camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


def _dim_given(args, kwargs, pos=1):
    return "dim" in kwargs or "axis" in kwargs or len(args) > pos and args[pos] is not None


def _pow_name(args, kwargs):
    a = args[0] if args else kwargs.get("input", kwargs.get("self"))
    b = args[1] if len(args) > 1 else kwargs.get("exponent")
    if not isinstance(a, Tensor):
        return "PowBackward2"
    return "PowBackward1" if isinstance(b, Tensor) else "PowBackward0"


def _matmul_name(args, kwargs):
    a, b = args[0], args[1]
    da, db = a.ndim, b.ndim
    if da == 1 and db == 1:
        return "DotBackward0"
    if da == 2 and db == 1:
        return "MvBackward0"
    if da == 2 and db == 2:
        return "MmBackward0"
    if da == 1 and db == 2:
        return "SqueezeBackward4"
    if db == 2 and da > 2:
        return "UnsafeViewBackward0"
    return "UnsafeViewBackward0" if da > 2 and db > 2 and (a.shape[:-2] != b.shape[:-2]) else "BmmBackward0" \
        if da == 3 and db == 3 else "UnsafeViewBackward0"


def _with_dim(base, zero="0", one="1", pos=1):
    def name(args, kwargs):
        return base + (one if _dim_given(args, kwargs, pos) else zero)
    return name


def _getitem_name(args, kwargs):
    index = args[1]
    items = index if isinstance(index, tuple) else (index,)
    for it in items:
        if isinstance(it, (Tensor, list)) or hasattr(it, "__array__") and not isinstance(it, (int, bool)):
            return "IndexBackward0"
    last = Ellipsis
    for it in items:
        if it is not Ellipsis:
            last = it
    if last is Ellipsis:
        return "AliasBackward0"
    if isinstance(last, slice):
        return "SliceBackward0"
    if isinstance(last, bool) or last is None:
        return "UnsqueezeBackward0"
    return "SelectBackward0"


_NAMES = {
    "add": "AddBackward0", "sub": "SubBackward0", "rsub": "RsubBackward1", "mul": "MulBackward0",
    "div": "DivBackward0", "true_divide": "DivBackward0", "pow": _pow_name, "matmul": _matmul_name,
    "mm": "MmBackward0", "bmm": "BmmBackward0", "mv": "MvBackward0", "dot": "DotBackward0",
    "sum": _with_dim("SumBackward"), "mean": _with_dim("MeanBackward"), "prod": _with_dim("ProdBackward"),
    "max": _with_dim("MaxBackward", "1", "0"), "min": _with_dim("MinBackward", "1", "0"),
    "reshape": "ViewBackward0", "view": "ViewBackward0", "flatten": "ViewBackward0", "view_as": "ViewBackward0",
    "reshape_as": "ViewBackward0", "t": "TBackward0", "narrow": "SliceBackward0", "chunk": "SplitBackward0",
    "contiguous": "CloneBackward0", "square": "PowBackward0", "clamp": "ClampBackward1",
    "clip": "ClampBackward1", "norm": "LinalgVectorNormBackward0", "__getitem__": _getitem_name,
    "squeeze": _with_dim("SqueezeBackward", "0", "1"), "type_as": "ToCopyBackward0", "float_power": "PowBackward0",
    "abs": "AbsBackward0", "neg": "NegBackward0", "expand_as": "ExpandBackward0", "broadcast_to": "ExpandBackward0",
    "swapaxes": "TransposeBackward0", "swapdims": "TransposeBackward0", "movedim": "PermuteBackward0",
    "split_with_sizes": "SplitWithSizesBackward0", "tensor_split": "SplitBackward0",
    "std": "StdBackward0", "var": "VarBackward0", "logsumexp": "LogsumexpBackward0",
    "einsum": "ViewBackward0", "outer": "MulBackward0", "index_select": "IndexSelectBackward0",
}


def backward_name(op):
    return _NAMES.get(op, _camel(op) + "Backward0")


# ops that save no tensor for backward (their gradient does not read the inputs' values)
_LINEAR = {
    "add", "sub", "rsub", "neg", "positive", "sum", "mean", "clone", "contiguous", "cat", "concat", "concatenate",
    "stack", "hstack", "vstack", "dstack", "expand", "expand_as", "broadcast_to", "broadcast_tensors", "flip",
    "fliplr", "flipud", "roll", "rot90", "transpose", "swapaxes", "swapdims", "t", "T", "mT", "adjoint",
    "permute", "squeeze", "unsqueeze", "reshape", "reshape_as", "view", "view_as", "flatten", "unflatten",
    "narrow", "select", "split", "split_with_sizes", "tensor_split", "chunk", "unbind", "diagonal", "movedim",
    "moveaxis", "repeat", "tile", "tril", "triu", "real", "imag", "conj", "diag", "diag_embed", "trace",
    "cumsum", "unfold", "as_strided", "type_as", "__getitem__", "diagflat", "column_stack", "row_stack",
    "atleast_1d", "atleast_2d", "atleast_3d", "ravel", "squeeze_copy",
}


def _scalar_operand(args, kwargs):
    return any(not isinstance(a, Tensor) for a in args[:2])


def _mul_policy(args, kwargs):
    return "none" if _scalar_operand(args, kwargs) else "inputs"


def _div_policy(args, kwargs):
    # x / scalar saves nothing; scalar / x and x / y save tensors
    return "none" if len(args) > 1 and not isinstance(args[1], Tensor) else "inputs"


_POLICY = {"mul": _mul_policy, "div": _div_policy, "true_divide": _div_policy}


INPUT_RULES = {}  # name -> rule(saved input arrays, cotangents, mask)


def save_policy(op):
    if op in _POLICY:
        return _POLICY[op]
    if op in RULES:
        return "output"
    return "none" if op in _LINEAR else "inputs"


# ---- explicit rules: PyTorch's formulas in terms of the saved result -------------------------------------
def _c(x):
    return jnp.conj(x) if jnp.iscomplexobj(x) else x


def _rule(fn):
    """An explicit rule from `fn(result, grad) -> input grad` for a unary op that saves its result."""
    def rule(arrays, cts, mask):
        out, g = arrays[0], cts[0]
        return [fn(out, g.astype(out.dtype)).astype(out.dtype)]
    return rule


RULES = {
    "exp": _rule(lambda y, g: g * _c(y)),
    "exp2": _rule(lambda y, g: g * _c(y * math.log(2.0))),
    "expm1": _rule(lambda y, g: g * _c(y + 1)),
    "sigmoid": _rule(lambda y, g: g * _c((1 - y) * y)),
    "tanh": _rule(lambda y, g: g * _c(1 - y * y)),
    "sqrt": _rule(lambda y, g: g / (2 * _c(y))),
    "rsqrt": _rule(lambda y, g: -0.5 * g * _c(y * y * y)),
    "reciprocal": _rule(lambda y, g: -g * _c(y * y)),
}

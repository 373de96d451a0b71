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

__all__ = ["backward_name", "add_names", "save_policy", "RULES"]


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


def _arg(args, kwargs, pos, name, default=None):
    return args[pos] if len(args) > pos else kwargs.get(name, default)


def _by_tensor(pos, name, tensor_name, other_name):
    """`tensor_name` when argument (pos, name) is a Tensor, else `other_name` (PyTorch's Tensor/Scalar overloads)."""
    def f(args, kwargs):
        return tensor_name if isinstance(_arg(args, kwargs, pos, name), Tensor) else other_name
    return f


def _if_given(key, given, default):
    def f(args, kwargs):
        return given if key in kwargs else default
    return f


def _max_min_name(base, full, dim):
    def f(args, kwargs):
        d = _arg(args, kwargs, 1, "dim")
        if isinstance(d, Tensor) or kwargs.get("other") is not None:
            return "MaximumBackward0" if base == "Max" else "MinimumBackward0"
        return f"{base}Backward{dim if d is not None else full}"
    return f


def _clamp_name(args, kwargs):
    lo, hi = _arg(args, kwargs, 1, "min"), _arg(args, kwargs, 2, "max")
    return "ClampBackward0" if isinstance(lo, Tensor) or isinstance(hi, Tensor) else "ClampBackward1"


def _remainder_name(args, kwargs):
    if not isinstance(_arg(args, kwargs, 0, "input"), Tensor):
        return "NotImplemented"
    return "RemainderBackward1" if isinstance(_arg(args, kwargs, 1, "other"), Tensor) else "RemainderBackward0"


def _xlogy_name(args, kwargs):
    if not isinstance(_arg(args, kwargs, 0, "input"), Tensor):
        return "XlogyBackward1"
    return "XlogyBackward0" if isinstance(_arg(args, kwargs, 1, "other"), Tensor) else "XlogyBackward2"


def _div_name(args, kwargs):
    return "DivBackward2" if kwargs.get("rounding_mode") is not None else "DivBackward0"


def _scatter_name(args, kwargs):
    if kwargs.get("reduce") is not None:
        return "NotImplemented"
    src = _arg(args, kwargs, 3, "src")
    src = _arg(args, kwargs, 4, "value") if src is None else src
    return "ScatterBackward0" if isinstance(src, Tensor) else "ScatterBackward1"


def _ndim_name(names):
    """By the input's number of dims: names[ndim] (the last entry for more dims)."""
    def f(args, kwargs):
        t = _arg(args, kwargs, 0, "input")
        nd = t.ndim if isinstance(t, Tensor) else 0
        return names[min(nd, len(names) - 1)]
    return f


def _matrix_power_name(args, kwargs):
    a, n = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "n")
    if n == 0:
        return "CopyBackwards"
    if n == 1:
        return "CloneBackward0"
    if n == -1:
        return "LinalgInvExBackward0"
    return "MmBackward0" if a.ndim == 2 else "UnsafeViewBackward0"


def _inner_name(args, kwargs):
    a, b = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "other")
    return "MulBackward0" if a.ndim == 0 or b.ndim == 0 else "ViewBackward0"


def _complex_input(complex_name, real_name):
    def f(args, kwargs):
        t = _arg(args, kwargs, 0, "input")
        return complex_name if isinstance(t, Tensor) and t._dtype.is_complex else real_name
    return f


def _repeat_interleave_name(args, kwargs):
    r = _arg(args, kwargs, 1, "repeats")
    return "IndexSelectBackward0" if isinstance(r, Tensor) and r.numel() != 1 else "ViewBackward0"


def _squeeze_name(args, kwargs):
    d = _arg(args, kwargs, 1, "dim")
    return "SqueezeBackward0" if d is None else "SqueezeBackward2" if isinstance(d, (tuple, list)) \
        else "SqueezeBackward1"


def _split_name(args, kwargs):
    s = _arg(args, kwargs, 1, "split_size_or_sections", kwargs.get("split_size"))
    return "SplitWithSizesBackward0" if isinstance(s, (tuple, list)) else "SplitBackward0"


def _norm_name(args, kwargs):
    return "SumBackward1" if _arg(args, kwargs, 1, "p", "fro") == "nuc" else "LinalgVectorNormBackward0"


def _unique_name(args, kwargs):
    return "UniqueDimBackward0" if _arg(args, kwargs, 4, "dim") is not None else "Unique2Backward0"


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


def _reshape_name(shape_of):
    """View when the input is contiguous, ReshapeAlias when viewable anyway, UnsafeView when it copies."""
    def f(args, kwargs):
        from .. import _view as V
        t = args[0]
        if V.is_contiguous(t._shape, t._stride):
            return "ViewBackward0"
        try:
            shape = shape_of(t, args, kwargs)
        except Exception:  # the op itself raised; the name is never used
            return "ViewBackward0"
        return "UnsafeViewBackward0" if V.compute_view_stride(t._shape, t._stride, shape) is None \
            else "ReshapeAliasBackward0"
    return f


def _reshape_shape(t, args, kwargs):
    from ..ops.views import infer_size, shape_arg
    shape = args[1:] if len(args) > 1 else (kwargs["shape"],)
    return infer_size(shape_arg(shape), t.numel())


def _flatten_shape(t, args, kwargs):
    from .._tensor import _wrap_dim
    nd = t.ndim
    s = _wrap_dim(_arg(args, kwargs, 1, "start_dim", 0), nd)
    e = _wrap_dim(_arg(args, kwargs, 2, "end_dim", -1), nd)
    n = 1
    for k in t._shape[s:e + 1]:
        n *= k
    return t._shape[:s] + (n,) + t._shape[e + 1:]


_NAMES = {
    "add": "AddBackward0", "sub": "SubBackward0", "rsub": _by_tensor(1, "other", "RsubBackward0", "RsubBackward1"),
    "mul": "MulBackward0", "div": _div_name, "true_divide": "DivBackward0", "pow": _pow_name,
    "matmul": _matmul_name, "mm": "MmBackward0", "bmm": "BmmBackward0", "mv": "MvBackward0", "dot": "DotBackward0",
    "sum": _with_dim("SumBackward"), "mean": _with_dim("MeanBackward"), "prod": _with_dim("ProdBackward"),
    "max": _max_min_name("Max", "1", "0"), "min": _max_min_name("Min", "1", "0"),
    "median": _with_dim("MedianBackward"), "nanmedian": _with_dim("NanmedianBackward"),
    "reshape": _reshape_name(_reshape_shape), "view": "ViewBackward0", "flatten": _reshape_name(_flatten_shape),
    "view_as": "ViewBackward0", "reshape_as": _reshape_name(lambda t, args, kwargs: tuple(args[1]._shape)),
    "t": "TBackward0", "narrow": "SliceBackward0", "chunk": "SplitBackward0",
    "contiguous": "CloneBackward0", "square": "PowBackward0", "clamp": _clamp_name, "clip": _clamp_name,
    "clamp_min": _by_tensor(1, "min", "ClampMinBackward1", "ClampMinBackward0"),
    "clamp_max": _by_tensor(1, "max", "ClampMaxBackward1", "ClampMaxBackward0"),
    "norm": _norm_name, "__getitem__": _getitem_name,
    "squeeze": _squeeze_name, "split": _split_name, "type_as": "ToCopyBackward0", "float_power": _pow_name,
    "abs": "AbsBackward0", "neg": "NegBackward0", "expand_as": "ExpandBackward0", "broadcast_to": "ExpandBackward0",
    "broadcast_tensors": "ExpandBackward0", "meshgrid": "ExpandBackward0",
    "swapaxes": "TransposeBackward0", "swapdims": "TransposeBackward0", "movedim": "PermuteBackward0",
    "split_with_sizes": "SplitWithSizesBackward0", "tensor_split": "SliceBackward0",
    "std": "StdBackward0", "var": "VarBackward0", "logsumexp": "LogsumexpBackward0",
    "einsum": _einsum_name, "outer": "MulBackward0", "index_select": "IndexSelectBackward0",
    # pointwise: PyTorch's class names (camel case of the ATen name) and its Tensor/Scalar overload numbers
    "log1p": "Log1PBackward0", "deg2rad": "Deg2RadBackward0", "rad2deg": "Rad2DegBackward0",
    "remainder": _remainder_name, "fmod": _by_tensor(1, "other", "FmodBackward1", "FmodBackward0"),
    "floor_divide": "NotImplemented", "copysign": _by_tensor(1, "other", "CopysignBackward0", "CopysignBackward1"),
    "xlogy": _xlogy_name, "round": _if_given("decimals", "RoundBackward1", "RoundBackward0"),
    "maximum": "MaximumBackward0", "minimum": "MinimumBackward0",
    # reductions, sorting, indexing
    "nanmean": "DivBackward0", "msort": "SortBackward0", "sort": _if_given("stable", "SortBackward1", "SortBackward0"),
    "unique": _unique_name, "masked_fill": _by_tensor(2, "value", "MaskedFillBackward1", "MaskedFillBackward0"),
    "scatter": _scatter_name, "take_along_dim": "GatherBackward0",
    # composite ops: the node PyTorch's decomposition ends in
    "adjoint": _complex_input("ConjBackward0", "TransposeBackward0"),
    "atleast_1d": "ViewBackward0", "atleast_2d": _ndim_name(["ViewBackward0", "UnsqueezeBackward0"]),
    "atleast_3d": _ndim_name(["ViewBackward0", "UnsqueezeBackward0"]),
    "cartesian_prod": "StackBackward0", "column_stack": "CatBackward0", "hstack": "CatBackward0",
    "vstack": "CatBackward0", "dstack": "CatBackward0", "fliplr": "FlipBackward0", "flipud": "FlipBackward0",
    "tile": "RepeatBackward0", "unflatten": "ViewBackward0", "repeat_interleave": _repeat_interleave_name,
    "diag": _ndim_name(["DiagEmbedBackward0", "DiagEmbedBackward0", "DiagonalBackward0_copy"]),
    "diagflat": "DiagEmbedBackward0", "inner": _inner_name, "kron": "UnsafeViewBackward0",
    "tensordot": "ViewBackward0", "cross": "LinalgCrossBackward0", "det": "LinalgDetBackward0",
    "inverse": "LinalgInvExBackward0", "pinverse": "LinalgPinvBackward0", "slogdet": "LinalgSlogdetBackward0",
    "logdet": _complex_input("AddBackward0", "WhereBackward0"), "matrix_power": _matrix_power_name,
    # nn functionals (ops/nn_activation.py, nn_norm.py, nn_attention.py): PyTorch's aten node names, and the
    # `<op>_` keys of in-place variants PyTorch records as `...Backward1`
    "prelu": "PreluKernelBackward0", "relu6": "HardtanhBackward0", "relu6_": "HardtanhBackward0",
    "selu": "EluBackward0", "selu_": "EluBackward1", "elu_": "EluBackward1", "celu_": "CeluBackward1",
    "leaky_relu_": "LeakyReluBackward1", "threshold_": "ThresholdBackward1",
    "rrelu_with_noise_": "RreluWithNoiseBackward1", "logsigmoid": "LogSigmoidBackward0",
    "tanhshrink": "SubBackward0", "softsign": "DivBackward0", "softmin": "SoftmaxBackward0",
    "layer_norm": "NativeLayerNormBackward0", "group_norm": "NativeGroupNormBackward0",
    "instance_norm": "ViewBackward0", "local_response_norm": "DivBackward0", "rms_norm": "MulBackward0",
    "scaled_dot_product_attention": _ndim_name(["MmBackward0"] * 3 + ["UnsafeViewBackward0"]),
}


def backward_name(op):
    return _NAMES.get(op, _camel(op) + "Backward0")


def add_names(names):
    """Register `grad_fn` names from an op module: {op: name, or callable(args, kwargs) -> name}."""
    _NAMES.update(names)


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

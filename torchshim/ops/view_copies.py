"""The `*_copy` functions (`torch.permute_copy`, `view_copy`, ...: a view op's result as a new contiguous
tensor), the `*_scatter` functions (`diagonal_scatter`, `select_scatter`, `slice_scatter`,
`as_strided_scatter`: input with a view's positions replaced by src, out of place), `ravel`, and the
`torch.<op>_` in-place functions PyTorch exposes at top level (`torch.abs_(x)` is `x.abs_()`).
"""
import jax.numpy as jnp
import numpy as np

from .._tensor import Tensor
from ..autograd._names import default_grad_name
from . import _dispatch as P
from ._dispatch import fresh
from ._registry import OPS, installed, register

__all__ = ["TORCH_INPLACE"]

def _contiguous(t):
    return t.clone().contiguous() if t.is_contiguous() else t.contiguous()


def _copy_of(view_name, call=None):
    """A `<view>_copy` front function: the view op's result (each result of a multi-output view) copied."""
    def fn(input, *args, **kwargs):
        r = call(input, *args, **kwargs) if call is not None else installed(view_name)(input, *args, **kwargs)
        if isinstance(r, (tuple, list)):
            return tuple(_contiguous(t) for t in r)
        return _contiguous(r)
    fn.__name__ = view_name + "_copy"
    fn.__doc__ = (f"`torch.{view_name}_copy(input, ...)`: `torch.{view_name}` (same arguments) as a new "
                  "contiguous tensor, not a view.")
    return fn


def _copy_name(view_name):
    """The node name PyTorch shows for `<view>_copy`: the view's own node name + '_copy'."""
    def name(args, kwargs):
        op = OPS.get(view_name)
        g = op.grad_name if op is not None else None
        if g is None:
            g = default_grad_name(view_name)
        elif callable(g):
            g = g(args, kwargs)
        return g + "_copy"
    return name


def _slice(input, dim=0, start=None, end=None, step=1):
    return input[(slice(None),) * (dim % max(input.ndim, 1)) + (slice(start, end, step),)]


_VIEWS = {
    "permute": None, "t": None, "view": None, "expand": None, "select": None, "split": None, "unbind": None,
    "diagonal": None, "squeeze": None, "unsqueeze": None, "transpose": None, "unfold": None, "alias": None,
    "as_strided": None, "split_with_sizes": None, "view_as_real": None, "view_as_complex": None,
    "slice": _slice,
}
_VIEWS["view"] = lambda input, *size: installed("reshape")(input, *size)  # PyTorch copies any layout
del _VIEWS["view_as_complex"]
for _v, _call in _VIEWS.items():
    if _v == "alias":
        _call = lambda input: input.view(input.shape)  # noqa: E731  (PyTorch's alias: the same view)
    register(_v + "_copy", method=False, out=True, kind="view_copy",
             grad_name=_copy_name(_v))(
        _copy_of(_v, _call))


@register("narrow_copy", out=True, kind="view_copy")
def narrow_copy(input, dim, start, length):
    """`torch.narrow_copy(input, dim, start, length, *, out=None)`: `narrow` as a new contiguous tensor."""
    return _contiguous(installed("narrow")(input, dim, start, length))


@register("ravel", kind="composite")
def ravel(input):
    """`torch.ravel(input)`: the flattened tensor (a view when input is contiguous, else a copy)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"ravel(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return installed("reshape")(input, (-1,))


# ---- *_scatter ---------------------------------------------------------------------------------------------
def _check_src(self_view_shape, src):
    if tuple(src._shape) != tuple(self_view_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._shape)}, slice size = {list(self_view_shape)}")


@P.kernel(static=("idx",))
def _set_k(a, s, idx):
    # idx: ints and (start, stop, step) triples (slices are not hashable static arguments)
    key = tuple(slice(*i) if isinstance(i, tuple) else i for i in idx)
    return a.at[key].set(s.astype(a.dtype))


def _normdim(dim, nd):
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got "
                         f"{dim})")
    return dim % n


def _scatter_into(input, src, view_shape, idx):
    _check_src(view_shape, src)
    out = _set_k(input._value, src._value, idx=idx)
    return fresh(out, input._dtype, input._storage.device)


@register("select_scatter", kind="indexing")
def select_scatter(input, src, dim, index):
    """`torch.select_scatter(input, src, dim, index, *, out=None)`: input with `input.select(dim, index)`
    replaced by src."""
    d = _normdim(dim, input.ndim)
    size = input._shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._shape)} at "
                         f"dimension {d}")
    view = input._shape[:d] + input._shape[d + 1:]
    return _scatter_into(input, src, view, ((None, None, None),) * d + (index % size,))


@register("slice_scatter", out=True, kind="indexing")
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """`torch.slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None)`: input with
    `input[..., start:end:step, ...]` (along dim) replaced by src."""
    d = _normdim(dim, input.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    sl = slice(start, end, step)
    n = len(range(*sl.indices(input._shape[d])))
    view = input._shape[:d] + (n,) + input._shape[d + 1:]
    return _scatter_into(input, src, view, ((None, None, None),) * d + (sl.indices(input._shape[d]),))


@register("diagonal_scatter", kind="indexing")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """`torch.diagonal_scatter(input, src, offset=0, dim1=0, dim2=1, *, out=None)`: input with
    `input.diagonal(offset, dim1, dim2)` replaced by src."""
    view = installed("diagonal")(input, offset, dim1, dim2)
    _check_src(view._shape, src)
    d1, d2 = _normdim(dim1, input.ndim), _normdim(dim2, input.ndim)
    n = view._shape[-1]
    rows = np.arange(n) + max(-offset, 0)
    cols = np.arange(n) + max(offset, 0)
    return fresh(_diag_set_k(input._value, src._value, d1=d1, d2=d2, rows=tuple(rows.tolist()),
                             cols=tuple(cols.tolist())), input._dtype, input._storage.device)


@P.kernel(static=("d1", "d2", "rows", "cols"))
def _diag_set_k(a, s, d1, d2, rows, cols):
    # move dim1, dim2 to the end (as diagonal's result has its diagonal last), set, move back
    nd = a.ndim
    order = [i for i in range(nd) if i not in (d1, d2)] + [d1, d2]
    moved = jnp.transpose(a, order)
    moved = moved.at[..., jnp.asarray(rows, int), jnp.asarray(cols, int)].set(s.astype(a.dtype))
    return jnp.transpose(moved, np.argsort(order))


@register("as_strided_scatter", kind="indexing")
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """`torch.as_strided_scatter(input, src, size, stride, storage_offset=None, *, out=None)`: input (read as
    contiguous) with the positions of `as_strided(size, stride, storage_offset)` replaced by src."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    _check_src(size, src)
    off = 0 if storage_offset is None else int(storage_offset)
    pos = np.full(size, off, dtype=np.int64)
    for k, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[k] = n
        pos = pos + (np.arange(n) * st).reshape(shape)
    return fresh(_strided_set_k(input._value, src._value, pos=tuple(pos.reshape(-1).tolist())),
                 input._dtype, input._storage.device)


@P.kernel(static=("pos",))
def _strided_set_k(a, s, pos):
    flat = a.reshape(-1).at[jnp.asarray(pos, int)].set(s.reshape(-1).astype(a.dtype))
    return flat.reshape(a.shape)


# ---- torch.<op>_ functions ------------------------------------------------------------------------------
# PyTorch's top-level in-place functions: each is the Tensor method of the same name
TORCH_INPLACE = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
    "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_",
    "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_",
    "fix_", "floor_", "frac_", "gcd_", "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_",
    "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_",
    "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_",
    "detach",
)


def _top_level(name):
    def f(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"`torch.{name}(input, ...)`: `input.{name}(...)`."
    return f


def torch_inplace_functions():
    """{name: function} for `torch.<name>` of TORCH_INPLACE (added to the namespace by `_api.py`)."""
    return {n: _top_level(n) for n in TORCH_INPLACE}

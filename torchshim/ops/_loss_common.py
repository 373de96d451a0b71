"""Shared pieces of the loss and distance ops (nn_loss.py, _loss_*.py, nn_distance.py): reduction codes,
PyTorch's result dtypes of composite formulas, per-op rounding of 16-bit floats, grad_fn names, host-side
value checks, and guards for derivatives PyTorch refuses (ops whose backward has no derivative of its own).

Kernels compute in "opmath" (float32 for float16/bfloat16, as PyTorch's CPU kernels do) and round back to the
storage dtype where PyTorch stores an intermediate tensor (`rnd`), so composite formulas round like PyTorch's.
"""
import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .. import _fused
from .._promotion import can_cast, result_type, short_name
from .._tensor import Tensor

__all__ = ["NONE", "MEAN", "SUM", "LOW", "EPS12", "opmath", "rnd", "reduce", "reduced_dtype", "Like", "rt",
           "host", "is_intlike", "mean_dtype_error", "cast_error", "check_inplace_cast", "not_implemented",
           "by_reduction", "reduction_arg", "once_differentiable", "raising_guard", "device_of",
           "bool_sub_error", "neg_bool_error", "broadcast_shape"]

NONE, MEAN, SUM = 0, 1, 2  # at::Reduction
LOW = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))
EPS12 = float(np.float32(1e-12))  # ATen's `constexpr float EPSILON = 1e-12` (Loss.cpp)


def opmath(dt):
    """The numpy dtype PyTorch's CPU kernels compute `dt` in (float32 for 16-bit floats)."""
    return np.dtype(np.float32) if np.dtype(dt) in LOW else np.dtype(dt)


def rnd(x, dt):
    """`x` (opmath) rounded to the storage dtype `dt` and widened again: an intermediate PyTorch stores in
    `dt`."""
    if np.dtype(dt) in LOW:
        return x.astype(dt).astype(jnp.float32)
    return x


def reduce(loss, reduction, edt, rdt):
    """apply_loss_reduction: `loss` (opmath) holds elements stored in `edt`; the result has dtype `rdt`."""
    if reduction == NONE:
        return loss.astype(rdt)
    loss = rnd(loss, edt)
    if jnp.issubdtype(loss.dtype, jnp.integer) or loss.dtype == jnp.bool_:
        loss = loss.astype(rdt)
    r = jnp.mean(loss) if reduction == MEAN else jnp.sum(loss)
    return r.astype(rdt)


def is_intlike(d):
    return not (d.is_floating_point or d.is_complex)


def mean_dtype_error(d):
    return RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                        "point or "
                        f"complex dtype. Got: {short_name(d)}")


def reduced_dtype(edt, reduction):
    """The dtype of `loss.mean()` / `loss.sum()` / `loss` for an elementwise loss of dtype `edt`."""
    if reduction == MEAN and is_intlike(edt):
        raise mean_dtype_error(edt)
    if reduction == SUM and is_intlike(edt):
        return D.int64
    return edt


class Like:
    """A stand-in for an intermediate tensor in dtype promotion: only its dtype and number of dims matter."""
    __slots__ = ("dtype", "ndim")

    def __init__(self, dtype, ndim=1):
        self.dtype, self.ndim = dtype, ndim


def rt(*operands):
    """PyTorch's result dtype of an arithmetic op on Tensors, `Like`s and Python numbers."""
    return result_type(*operands)


def on_host(t, check):
    """Run `check(values)` (a numpy copy of tensor `t`'s values; it raises PyTorch's error for bad ones):
    now; never under jax tracing (value checks are skipped then); in fused eager mode with `t`'s values not
    computed yet, once they are (the error then names the op's line)."""
    a = t._value if isinstance(t, Tensor) else t
    if isinstance(a, jax.core.Tracer):
        return
    if _fused.pending(a):
        _fused.check_later(a, check)
        return
    check(np.asarray(a))


def host(t):
    """A numpy copy of tensor `t`'s values; None under jax tracing (value checks are skipped then)."""
    a = t._value if isinstance(t, Tensor) else t
    return None if isinstance(a, jax.core.Tracer) else np.asarray(a)


def cast_error(src, dst):
    return RuntimeError(f"result type {short_name(src)} can't be cast to the desired output type "
                        f"{short_name(dst)}")


def check_inplace_cast(result, out):
    """An in-place op computing in dtype `result` into a tensor of dtype `out` (PyTorch's TensorIterator)."""
    if not can_cast(result, out):
        raise cast_error(result, out)


def not_implemented(kernel, d):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(d)}'")


def bool_sub_error(both):
    if both:
        return RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                            "the `^` "
                            "or `logical_xor()` operator instead.")
    return RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                        "trying "
                        "to invert a mask, use the `~` or `logical_not()` operator instead.")


def neg_bool_error():
    return RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                        "invert a mask, use the `~` or `logical_not()` operator instead.")


def broadcast_shape(*shapes):
    """The broadcast of `shapes`; PyTorch's error naming the first mismatching pair."""
    from ._dispatch import broadcast_error
    return broadcast_error(shapes)


def device_of(t):
    return t._storage.device


# ---- grad_fn names -----------------------------------------------------------------------------------------
def reduction_arg(args, kwargs, pos, default=MEAN):
    return args[pos] if len(args) > pos else kwargs.get("reduction", default)


def by_reduction(none, pos, default=MEAN, mean="MeanBackward0", sum_="SumBackward0"):
    """A grad_fn name function: `none` (a name or a function of (args, kwargs)) without reduction, else the
    node of the final mean/sum (PyTorch's apply_loss_reduction). `default`: the op's default reduction."""
    def name(args, kwargs):
        r = reduction_arg(args, kwargs, pos, default)
        if r == MEAN:
            return mean
        if r == SUM:
            return sum_
        return none(args, kwargs) if callable(none) else none
    return name


# ---- derivatives PyTorch refuses ---------------------------------------------------------------------------
def raising_guard(exc, msg):
    """`guard(x, *deps) -> x` whose derivative raises `exc(msg)` as soon as jax differentiates it with
    respect to `x` or any of `deps` (pass the arrays the result depends on: jax skips the rule when x's own
    tangent is zero, as for the gradient of a piecewise-linear function)."""
    @jax.custom_jvp
    def guard(x, *deps):
        return x

    def jvp(primals, tangents):
        raise exc(msg)
    guard.defjvp(jvp)
    return guard


def once_differentiable(fn, diff, rest, exc, msg):
    """`fn(*diff, *rest)` whose gradient (w.r.t. the arrays `diff`) is jax's, and whose gradient's own
    derivative raises `exc(msg)`: PyTorch's ops whose backward function has no derivative formula
    (multi_margin_loss, multilabel_margin_loss, pdist). `rest`: arrays not differentiated (integer
    targets)."""
    n = len(diff)

    @jax.custom_vjp
    def g(*args):
        return fn(*args)

    def fwd(*args):
        return fn(*args), args

    def bwd(args, ct):
        d, r = args[:n], args[n:]
        _, pull = jax.vjp(lambda *x: fn(*x, *r), *d)
        guard = raising_guard(exc, msg)
        return tuple(guard(c, *d, ct) for c in pull(ct)) + (None,) * len(r)
    g.defvjp(fwd, bwd)
    return g(*diff, *rest)

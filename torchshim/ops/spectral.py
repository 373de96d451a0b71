"""`torch.fft`'s transforms on jax.numpy.fft, as PyTorch 2.13 composes them.

The three kernels are table ops under PyTorch's aten names, public as in PyTorch (`torch._fft_r2c`,
`torch._fft_c2r`, `torch._fft_c2c`); they record `FftR2CBackward0` / `FftC2RBackward0` / `FftC2CBackward0`.
The `torch.fft.*` functions (`fft_fft`, `fft_rfft2`, ...; `function=False, method=False`, bound by the
`torchshim.fft` package) are composite, as in ATen: dtype promotion (`Tensor.to`, ToCopyBackward0), the
`n=`/`s=` trimming and zero padding (`narrow`, `constant_pad_nd`), one kernel, and the lazy `conj` where
PyTorch returns a conjugate view (`ifft`/`ihfft` of a real input: `ConjBackward0`, `is_conj()` True). So the
graph and `grad_fn` names are PyTorch's and gradients come from the kernels' vjps. `fftfreq`/`rfftfreq`/
`fftshift`/`ifftshift` are in ops/spectral_freq.py, `stft`/`istft` in ops/spectral_stft.py.

Half precision: PyTorch's CPU FFTs reject float16/bfloat16 ("Unsupported dtype Half"), and so does torchshim
(torchshim has no complex32).
"""
import operator

import jax.numpy as jnp

from .. import _dtype as D
from .._promotion import short_name
from .._tensor import Tensor
from ..autograd._ops import any_requires_grad
from ..autograd.grad_mode import is_grad_enabled, no_grad
from . import _dispatch as P
from ._registry import installed, register, write_out

__all__ = ["NONE", "BY_ROOT_N", "BY_N", "norm_mode", "check_input", "int_arg", "ints_arg", "wrap_dim",
           "promote", "resize", "fft_out"]

NONE, BY_ROOT_N, BY_N = 0, 1, 2  # ATen's fft_norm_mode


# ---- arguments ---------------------------------------------------------------------------------------------
def check_input(fname, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")


def int_arg(fname, name, v):
    """An `int` argument (a 0-dim integer Tensor or anything with __index__; not bool) as a Python int."""
    if isinstance(v, bool) or isinstance(v, float) or not hasattr(v, "__index__"):
        raise TypeError(f"{fname}(): argument '{name}' must be int, not {type(v).__name__}")
    return operator.index(v)


def ints_arg(fname, name, v):
    """An `int[1]?` argument: None, an int, or a sequence of ints, as a tuple (or None)."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        if any(isinstance(e, bool) or not hasattr(e, "__index__") or isinstance(e, Tensor) for e in v):
            raise TypeError(f"{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")
        return tuple(operator.index(e) for e in v)
    if isinstance(v, bool) or isinstance(v, (float, Tensor)) or not hasattr(v, "__index__"):
        raise TypeError(f"{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}")
    return (operator.index(v),)


def norm_arg(fname, norm):
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"{fname}(): argument 'norm' must be str, not {type(norm).__name__}")


def norm_mode(norm, forward):
    """ATen's norm_from_string: the scaling of a transform in direction `forward`."""
    if norm is None or norm == "backward":
        return NONE if forward else BY_N
    if norm == "forward":
        return BY_N if forward else NONE
    if norm == "ortho":
        return BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def wrap_dim(dim, ndim):
    """maybe_wrap_dim(..., wrap_scalar=false)."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got "
                         f"{dim})")
    return dim % ndim


def promote(x, require_complex=False):
    """promote_tensor_fft: integers and bool to the default float; float16/bfloat16 rejected (CPU); complex
    when required (a `to` copy, recorded as ToCopyBackward0)."""
    d = x._dtype
    if d.is_complex:
        return x
    if not d.is_floating_point:
        d = D.get_default_dtype()
    if d not in (D.float32, D.float64):
        raise RuntimeError(f"Unsupported dtype {short_name(d)}")
    if require_complex:
        d = D.complex64 if d is D.float32 else D.complex128
    return x if d is x._dtype else x.to(d)


def resize(x, dims, sizes):
    """resize_fft_input: trim (`narrow`) or zero-pad (`constant_pad_nd`) each of `dims` to `sizes`."""
    pads = [0] * (2 * x.ndim)
    pad = False
    for d, n in zip(dims, sizes):
        m = x._shape[d]
        if m < n:
            pads[len(pads) - 2 * d - 1] = n - m
            pad = True
        elif m > n:
            x = installed("narrow")(x, d, 0, n)
    return installed("constant_pad_nd")(x, pads) if pad else x


# ---- out= --------------------------------------------------------------------------------------------------
def fft_out(op, fname, out_kind, inner):
    """`op` (an installed fft_* table op) with PyTorch's `out=` checks before the generic ones: the output's
    dtype kind (`'<fname> expects a complex output tensor, but got Float'`), and the autograd error naming the
    kernel PyTorch writes `out` with (`inner(args, kwargs)`: '_fft_r2c', '_fft_c2c', '_fft_c2r', or 'conj'
    where PyTorch copies a conjugate into `out` (then the dtypes must be equal and no autograd error is
    raised; the result written into `out` does not require grad))."""
    def f(*args, out=None, **kwargs):
        if out is None:
            return op(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{op.__name__}(): argument 'out' must be Tensor, not {type(out).__name__}")
        if out_kind == "complex" and not out._dtype.is_complex:
            raise RuntimeError(f"{fname} expects a complex output tensor, but got {short_name(out._dtype)}")
        if out_kind == "real" and not out._dtype.is_floating_point:
            raise RuntimeError(f"{fname} expects a floating point output tensor, but got "
                               f"{short_name(out._dtype)}")
        kernel = inner(args, kwargs)
        if kernel == "conj":
            with no_grad():
                result = op(*args, **kwargs)
            if result._dtype is not out._dtype:  # conj_physical_out's check, its operands swapped in the
                found, expected = out._dtype, result._dtype  # 1-D functions
                if fname.endswith("n"):
                    found, expected = expected, found
                raise RuntimeError(f"Found dtype {short_name(found)} but expected {short_name(expected)}")
            return write_out(out, installed("resolve_conj")(result))
        if is_grad_enabled() and (any_requires_grad(args, kwargs) or out._requires_grad):
            with no_grad():  # PyTorch's own argument errors come first
                op(*args, **kwargs)
            raise RuntimeError(f"{kernel}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        return op(*args, out=out, **kwargs)
    f.__name__ = f.__qualname__ = op.__name__
    f.__doc__ = op.__doc__
    f.__wrapped__ = op
    return f


# ---- the kernels -------------------------------------------------------------------------------------------
def _jnorm(mode, forward_kernel):
    """jax.numpy.fft's `norm=` for a transform in direction `forward_kernel` scaled by `mode`."""
    if mode == BY_ROOT_N:
        return "ortho"
    if forward_kernel:
        return "backward" if mode == NONE else "forward"
    return "forward" if mode == NONE else "backward"


@P.kernel(static=("dims", "mode", "onesided"))
def _r2c_k(a, dims, mode, onesided):
    if onesided:
        return jnp.fft.rfftn(a, axes=dims, norm=_jnorm(mode, True))
    ct = jnp.complex64 if a.dtype == jnp.float32 else jnp.complex128
    return jnp.fft.fftn(a.astype(ct), axes=dims, norm=_jnorm(mode, True))


@P.kernel(static=("dims", "mode", "last"))
def _c2r_k(a, dims, mode, last):
    s = tuple(a.shape[d] for d in dims[:-1]) + (last,)
    return jnp.fft.irfftn(a, s=s, axes=dims, norm=_jnorm(mode, False))


@P.kernel(static=("dims", "mode", "forward"))
def _c2c_k(a, dims, mode, forward):
    if not dims:
        return a + 0  # a copy
    f = jnp.fft.fftn if forward else jnp.fft.ifftn
    return f(a, axes=dims, norm=_jnorm(mode, forward))


def _kernel_dims(fname, x, dim, normalization):
    if not isinstance(dim, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'dim' (position 2) must be tuple of ints, not "
                        f"{type(dim).__name__}")
    dims = tuple(wrap_dim(int_arg(fname, "dim", d), x.ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    mode = int_arg(fname, "normalization", normalization)
    if mode not in (NONE, BY_ROOT_N, BY_N):
        raise RuntimeError(f"{fname}: invalid normalization {mode}")
    return dims, mode


def _check_empty(x, dims):
    """PyTorch's CPU FFT (MKL) rejects an empty batch."""
    if dims and x.numel() == 0:
        raise RuntimeError("MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent configuration parameters")


def _kernel_dtype(x, complex_input):
    d = x._dtype
    if complex_input and not d.is_complex:
        raise RuntimeError(f"Only supports complex dtypes, but found: {short_name(d)}")
    if not complex_input and not d.is_floating_point:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {short_name(d)}")
    if d in (D.float16, D.bfloat16):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {short_name(d)}")


@register("_fft_r2c", method=False, out=True, kind="spectral", grad_name="FftR2CBackward0", saves="none")
def _fft_r2c(input, dim, normalization, onesided):
    """`torch._fft_r2c(input, dim, normalization, onesided, *, out=None)`: the real-to-complex FFT over `dim`
    (the half spectrum along the last of them when `onesided`), scaled by `normalization` (0: none,
    1: 1/sqrt(n), 2: 1/n).

    Difference: calls ATen rejects with internal asserts (an empty `dim`) raise a RuntimeError here."""
    check_input("_fft_r2c", input)
    _kernel_dtype(input, False)
    dims, mode = _kernel_dims("_fft_r2c", input, dim, normalization)
    if not dims:
        raise RuntimeError("ArrayRef: attempted to access back() of empty list")
    _check_empty(input, dims)
    out = _r2c_k(input._value, dims=dims, mode=mode, onesided=bool(onesided))
    return P.fresh(out, D.from_numpy_dtype(out.dtype), input._storage.device)


@register("_fft_c2r", method=False, out=True, kind="spectral", grad_name="FftC2RBackward0", saves="none")
def _fft_c2r(input, dim, normalization, last_dim_size):
    """`torch._fft_c2r(input, dim, normalization, last_dim_size, *, out=None)`: the complex-to-real inverse
    FFT over `dim` of a half spectrum (the last of `dim` holds `last_dim_size // 2 + 1` values), giving
    `last_dim_size` real values along it; scaled by `normalization` (0: none, 1: 1/sqrt(n), 2: 1/n).

    Difference: a last dimension of another length (an internal assert in ATen) raises a RuntimeError."""
    check_input("_fft_c2r", input)
    _kernel_dtype(input, True)
    dims, mode = _kernel_dims("_fft_c2r", input, dim, normalization)
    if not dims:
        raise RuntimeError("ArrayRef: attempted to access back() of empty list")
    _check_empty(input, dims)
    last = int_arg("_fft_c2r", "last_dim_size", last_dim_size)
    if last < 1 or input._shape[dims[-1]] != last // 2 + 1:
        raise RuntimeError(f"_fft_c2r: expected {last // 2 + 1} values along dimension {dims[-1]} for "
                           f"last_dim_size={last}, got {input._shape[dims[-1]]}")
    out = _c2r_k(input._value, dims=dims, mode=mode, last=last)
    return P.fresh(out, D.from_numpy_dtype(out.dtype), input._storage.device)


@register("_fft_c2c", method=False, out=True, kind="spectral", grad_name="FftC2CBackward0", saves="none")
def _fft_c2c(input, dim, normalization, forward):
    """`torch._fft_c2c(input, dim, normalization, forward, *, out=None)`: the complex FFT (`forward`) or its
    inverse over `dim`, scaled by `normalization` (0: none, 1: 1/sqrt(n), 2: 1/n)."""
    check_input("_fft_c2c", input)
    if not isinstance(forward, bool):
        raise TypeError(f"_fft_c2c(): argument 'forward' (position 4) must be bool, not "
                        f"{type(forward).__name__}")
    _kernel_dtype(input, True)
    dims, mode = _kernel_dims("_fft_c2c", input, dim, normalization)
    _check_empty(input, dims)
    out = _c2c_k(input._value, dims=dims, mode=mode, forward=forward)
    return P.fresh(out, input._dtype, input._storage.device)


def r2c(x, dims, mode, onesided):
    return installed("_fft_r2c")(x, list(dims), mode, onesided)


def c2r(x, dims, mode, last):
    return installed("_fft_c2r")(x, list(dims), mode, last)


def c2c(x, dims, mode, forward):
    return installed("_fft_c2c")(x, list(dims), mode, forward)


def conj(x):
    return installed("conj")(x)

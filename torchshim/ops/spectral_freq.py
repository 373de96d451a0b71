"""`torch.fft.fftfreq` / `rfftfreq` (sample frequencies) and `fftshift` / `ifftshift` (a `roll` of each
dimension by half its length), table ops under their aten names."""
import numbers
import warnings

import numpy as np

from .. import _device as Dev
from .. import _dtype as D
from .._layout import strided
from .._promotion import short_name
from .._tensor import Tensor
from ._registry import installed, register
from .creation import _into, _out_dtype, cast, finish
from .spectral import check_input, ints_arg, wrap_dim

__all__ = []


def _freq_args(fname, n, d, out, dtype, layout, count):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{fname}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if isinstance(d, Tensor):
        d = d.item()  # PyTorch reads a Tensor `d` as a Python float too
    if isinstance(d, (bool, complex)) or not isinstance(d, numbers.Real):
        raise TypeError(f"{fname}(): argument 'd' must be float, not {type(d).__name__}")
    dt = _out_dtype(fname, out, dtype) or D.get_default_dtype()
    if layout is not None and layout is not strided:
        raise NotImplementedError(f"Could not run 'aten::arange.start_out' with arguments from the "
                                  f"'{'Sparse' if 'sparse' in str(layout) else 'Unknown'}CPU' backend.")
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{fname[4:]} requires a floating point or complex dtype")
    size = count(int(n))
    if size < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {size}: [{size}]")
    if dt.is_complex:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{short_name(dt)}'")
    return int(n), float(d), dt


def _half(n):
    """n / 2 + 1 in C++ (division truncating toward zero): rfftfreq's length, also for a negative n."""
    return (abs(n) // 2) * (1 if n >= 0 else -1) + 1


def _values(ks, n, d, dt):
    """arange(...) in dtype `dt`, then `mul_(1.0 / (n * d))`: the double factor cast to the op's compute type
    (float for float16/bfloat16/float32, double for float64), the product rounded to `dt`."""
    with np.errstate(all="ignore"):
        scale = np.float64(1.0) / (np.float64(n) * np.float64(d))
        compute = np.float64 if dt is D.float64 else np.float32
        k = cast(ks.astype(np.float64), dt).astype(compute)
        return cast(k * compute(scale), dt)


def _done(vals, dt, out, device, requires_grad):
    t = finish(vals, dt, Dev.canonical(device), requires_grad and out is None)
    if out is None:
        return t
    if out.numel() != t.numel() and out.numel() > 0:
        warnings.warn(
            f"The number of elements in the out tensor of shape {list(out._shape)} is {out.numel()} which "
            f"does not match the computed number of elements {t.numel()}. Note that this may occur as a "
            f"result of rounding error. The out tensor will be resized to a tensor of shape ({t.numel()},).",
            UserWarning, stacklevel=3)
    return _into(out, t, requires_grad, keep_numel=True)


@register("fft_fftfreq", function=False, method=False, kind="creation")
def fft_fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False):
    """`torch.fft.fftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None,
    requires_grad=False)`: the frequencies [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n), rounded as
    PyTorch's arange-then-multiply. A Tensor `d` is read on the host (as PyTorch's argument parser does); a
    layout other than strided raises NotImplementedError (PyTorch's first sentence only)."""
    n, d, dt = _freq_args("fft_fftfreq", n, d, out, dtype, layout, lambda n: n)
    ks = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)]).astype(np.int64)
    return _done(_values(ks, n, d, dt), dt, out, device, requires_grad)


@register("fft_rfftfreq", function=False, method=False, kind="creation")
def fft_rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
                 pin_memory=False):
    """`torch.fft.rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=torch.strided, device=None,
    requires_grad=False)`: the frequencies [0, 1, ..., n // 2] / (d * n) of rfft's output."""
    n, d, dt = _freq_args("fft_rfftfreq", n, d, out, dtype, layout, _half)
    ks = np.arange(_half(n), dtype=np.int64)
    return _done(_values(ks, n, d, dt), dt, out, device, requires_grad)


def _shift(fname, input, dim, inverse):
    check_input(fname, input)
    dims = ints_arg(fname, "dim", dim)
    if dims is None:
        dims = tuple(range(input.ndim))
    else:
        dims = tuple(wrap_dim(k, input.ndim) for k in dims)
    if not dims:
        raise RuntimeError("`shifts` required")
    shifts = [(input._shape[k] + 1) // 2 if inverse else input._shape[k] // 2 for k in dims]
    return installed("roll")(input, shifts, list(dims))


@register("fft_fftshift", function=False, method=False, kind="composite")
def fft_fftshift(input, dim=None):
    """`torch.fft.fftshift(input, dim=None)`: the zero frequency moved to the centre (`roll` of each of `dim`,
    default all, by size // 2; RollBackward0)."""
    return _shift("fft_fftshift", input, dim, False)


@register("fft_ifftshift", function=False, method=False, kind="composite")
def fft_ifftshift(input, dim=None):
    """`torch.fft.ifftshift(input, dim=None)`: the inverse of fftshift (`roll` by (size + 1) // 2)."""
    return _shift("fft_ifftshift", input, dim, True)

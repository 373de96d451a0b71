"""`torch.signal.windows`: window functions (bartlett, blackman, cosine, exponential, gaussian,
general_cosine, general_hamming, hamming, hann, kaiser, nuttall), computed with torch ops in the requested
dtype (float32 or float64) as PyTorch does, so `requires_grad=True` gives a result with a gradient history
back to the sample positions. Same checks and messages as PyTorch."""
import math
from collections.abc import Iterable

from .. import _api as torch

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _checks(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not torch.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (torch.float32, torch.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _empty(dtype, layout, device, requires_grad):
    return torch.empty((0,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def _ones(dtype, layout, device, requires_grad):
    return torch.ones((1,), dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def _positions(start, end, M, dtype, layout, device, requires_grad):
    return torch.linspace(start=start, end=end, steps=M, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=torch.strided, device=None,
                requires_grad=False):
    """`torch.signal.windows.exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, ...)`:
    `w_n = exp(-|n - c| / tau)`, `c = center` (default: the window's middle)."""
    dtype = dtype or torch.get_default_dtype()
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / tau
    k = _positions(-center * c, (-center + (M - 1)) * c, M, dtype, layout, device, requires_grad)
    return torch.exp(-torch.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.cosine(M, *, sym=True, dtype=None, ...)`: `w_n = sin(pi (n + 0.5) / M)`."""
    dtype = dtype or torch.get_default_dtype()
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    start = 0.5
    c = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _positions(start * c, (start + (M - 1)) * c, M, dtype, layout, device, requires_grad)
    return torch.sin(k)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.gaussian(M, *, std=1.0, sym=True, dtype=None, ...)`:
    `w_n = exp(-(n / (2 std))^2)` around the window's middle."""
    dtype = dtype or torch.get_default_dtype()
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / (std * math.sqrt(2))
    k = _positions(start * c, (start + (M - 1)) * c, M, dtype, layout, device, requires_grad)
    return torch.exp(-(k ** 2))


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.kaiser(M, *, beta=12.0, sym=True, dtype=None, ...)`:
    `w_n = I0(beta sqrt(1 - ((n - N/2) / (N/2))^2)) / I0(beta)`."""
    dtype = dtype or torch.get_default_dtype()
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    b = torch.tensor(beta, dtype=dtype, device=device)
    start = -b
    c = 2.0 * b / (M if not sym else M - 1)
    end = torch.minimum(b, start + (M - 1) * c)
    k = _positions(start, end, M, dtype, layout, device, requires_grad)
    return torch.i0(torch.sqrt(b * b - torch.pow(k, 2))) / torch.i0(b)


def general_cosine(M, *, a, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.general_cosine(M, *, a, sym=True, dtype=None, ...)`:
    `w_n = sum_i (-1)^i a_i cos(2 pi i n / (M - 1))`."""
    dtype = dtype or torch.get_default_dtype()
    _checks("general_cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    c = 2 * math.pi / (M if not sym else M - 1)
    k = _positions(0, (M - 1) * c, M, dtype, layout, device, requires_grad)
    a_i = torch.tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype,
                       requires_grad=requires_grad)
    i = torch.arange(a_i.shape[0], dtype=a_i.dtype, device=a_i.device, requires_grad=a_i.requires_grad)
    return (a_i.unsqueeze(-1) * torch.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=torch.strided, device=None,
                    requires_grad=False):
    """`torch.signal.windows.general_hamming(M, *, alpha=0.54, sym=True, dtype=None, ...)`:
    `w_n = alpha - (1 - alpha) cos(2 pi n / (M - 1))`."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.hamming(M, *, sym=True, dtype=None, ...)`: general_hamming with alpha=0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.hann(M, *, sym=True, dtype=None, ...)`: general_hamming with alpha=0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.blackman(M, *, sym=True, dtype=None, ...)`: general_cosine with
    a = [0.42, 0.5, 0.08]."""
    dtype = dtype or torch.get_default_dtype()
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.bartlett(M, *, sym=True, dtype=None, ...)`: `w_n = 1 - |2n / (M - 1) - 1|`."""
    dtype = dtype or torch.get_default_dtype()
    _checks("bartlett", M, dtype, layout)
    if M == 0:
        return _empty(dtype, layout, device, requires_grad)
    if M == 1:
        return _ones(dtype, layout, device, requires_grad)
    start = -1
    c = 2 / (M if not sym else M - 1)
    k = _positions(start, start + (M - 1) * c, M, dtype, layout, device, requires_grad)
    return 1 - torch.abs(k)


def nuttall(M, *, sym=True, dtype=None, layout=torch.strided, device=None, requires_grad=False):
    """`torch.signal.windows.nuttall(M, *, sym=True, dtype=None, ...)`: general_cosine with Nuttall's
    minimum 4-term Blackman-Harris coefficients [0.3635819, 0.4891775, 0.1365995, 0.0106411]."""
    dtype = dtype or torch.get_default_dtype()
    _checks("nuttall", M, dtype, layout)
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          layout=layout, device=device, requires_grad=requires_grad)

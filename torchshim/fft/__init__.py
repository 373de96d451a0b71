"""`torch.fft`: discrete Fourier transforms on jax.numpy.fft.

The transforms are table ops under PyTorch's aten names (`fft_fft`, `fft_rfft2`, ...;
torchshim/ops/spectral*.py), so they record autograd nodes (FftR2CBackward0, FftC2RBackward0, FftC2CBackward0,
ConjBackward0 as in PyTorch), go through `__torch_function__` and take `out=`; this package binds them under
their `torch.fft` names, with PyTorch's checks of `out`'s dtype (ops/spectral.py `fft_out`). Each function's
`__name__` is its aten name, as PyTorch's (`torch.fft.fft.__name__ == 'fft_fft'`).
"""
from .. import _api  # noqa: F401  (installs the op table)
from .._api import Tensor  # noqa: F401  (torch.fft.Tensor, as PyTorch's module has it)
from ..ops._registry import installed as _op
from ..ops.spectral import fft_out as _out
from ..ops.spectral import ints_arg as _ints

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn",
           "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]


def _arg(args, kwargs, i, name, default):
    return args[i] if len(args) > i else kwargs.get(name, default)


def _real_input(args, kwargs):
    x = _arg(args, kwargs, 0, "input", None)
    return isinstance(x, Tensor) and not x.is_complex()


def _fixed(kernel):
    return lambda args, kwargs: kernel


def _c2c_or_r2c(conj):
    """fft/ifft: a real input goes through _fft_r2c (ifft: then a conjugate copied into out)."""
    return lambda args, kwargs: (conj if _real_input(args, kwargs) else "_fft_c2c")


def _ihfftn(default_dim):
    """ihfft2/ihfftn: one transformed dim ends in a conjugate copied into out, several in _fft_c2c."""
    def kernel(args, kwargs):
        x = _arg(args, kwargs, 0, "input", None)
        s = _ints("fft_ihfftn", "s", _arg(args, kwargs, 1, "s", None))
        dim = _ints("fft_ihfftn", "dim", _arg(args, kwargs, 2, "dim", default_dim))
        n = len(dim) if dim is not None else len(s) if s is not None else getattr(x, "ndim", 0)
        return "conj" if n == 1 else "_fft_c2c"
    return kernel


fft = _out(_op("fft_fft"), "fft", "complex", _c2c_or_r2c("_fft_r2c"))
ifft = _out(_op("fft_ifft"), "ifft", "complex", _c2c_or_r2c("conj"))
rfft = _out(_op("fft_rfft"), "rfft", "complex", _fixed("_fft_r2c"))
irfft = _out(_op("fft_irfft"), "irfft", "real", _fixed("_fft_c2r"))
hfft = _out(_op("fft_hfft"), "hfft", "real", _fixed("_fft_c2r"))
ihfft = _out(_op("fft_ihfft"), "ihfft", "complex", _fixed("conj"))
fft2 = _out(_op("fft_fft2"), "fftn", "complex", _fixed("_fft_c2c"))
ifft2 = _out(_op("fft_ifft2"), "fftn", "complex", _fixed("_fft_c2c"))
fftn = _out(_op("fft_fftn"), "fftn", "complex", _fixed("_fft_c2c"))
ifftn = _out(_op("fft_ifftn"), "fftn", "complex", _fixed("_fft_c2c"))
rfft2 = _out(_op("fft_rfft2"), "rfftn", "complex", _fixed("_fft_r2c"))
rfftn = _out(_op("fft_rfftn"), "rfftn", "complex", _fixed("_fft_r2c"))
irfft2 = _out(_op("fft_irfft2"), "irfftn", "real", _fixed("_fft_c2r"))
irfftn = _out(_op("fft_irfftn"), "irfftn", "real", _fixed("_fft_c2r"))
hfft2 = _out(_op("fft_hfft2"), "hfftn", "real", _fixed("_fft_c2r"))
hfftn = _out(_op("fft_hfftn"), "hfftn", "real", _fixed("_fft_c2r"))
ihfft2 = _out(_op("fft_ihfft2"), "ihfftn", "complex", _ihfftn((-2, -1)))
ihfftn = _out(_op("fft_ihfftn"), "ihfftn", "complex", _ihfftn(None))
fftfreq = _op("fft_fftfreq")
rfftfreq = _op("fft_rfftfreq")
fftshift = _op("fft_fftshift")
ifftshift = _op("fft_ifftshift")

"""The pieces shared by torchshim's gradcheck modules (see `gradcheck.py`): `GradcheckError` and small
helpers on tensors and nested inputs."""
import collections.abc
import warnings

from .. import _api as torch

__all__ = ["GradcheckError"]


class GradcheckError(RuntimeError):
    r"""Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


GradcheckError.__module__ = "torchshim.autograd.gradcheck"  # its public home, as torch.autograd.gradcheck's


def _is_tensor_like(x):
    return isinstance(x, torch.Tensor)


def _is_float_or_complex_tensor(obj):
    return _is_tensor_like(obj) and (obj.is_floating_point() or obj.is_complex())


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _iter_tensors(x, only_requiring_grad=False):
    if _is_tensor_like(x):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _to_real_dtype(dtype):
    return {torch.complex128: torch.float64, torch.complex64: torch.float32}.get(dtype, dtype)


def _real(t):
    if hasattr(torch, "real"):
        return torch.real(t)
    with warnings.catch_warnings():  # a differentiable real part: casting to the real dtype keeps it
        warnings.simplefilter("ignore")
        return t.to(_to_real_dtype(t.dtype))


def _imag(t):
    if hasattr(torch, "imag"):
        return torch.imag(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (t * -1j).to(_to_real_dtype(t.dtype))


def _zeros(shape, dtype, device=None):
    return torch.zeros(tuple(shape), dtype=dtype, device=device)

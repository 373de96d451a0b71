"""The `torch.fft` transforms (`fft_fft`, `fft_ifft`, `fft_rfft`, `fft_irfft`, `fft_hfft`, `fft_ihfft` and
their `2`/`n` forms) as composite table ops over the kernels of ops/spectral.py, following ATen's SpectralOps:
argument checks and their order, dtype promotion, `n=`/`s=` trimming and zero padding, `norm=` modes."""
from .._promotion import short_name
from ._registry import register
from .spectral import (c2c, c2r, check_input, conj, int_arg, ints_arg, norm_arg, norm_mode, promote,
                       r2c, resize, wrap_dim)

__all__ = []


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _one_dim_args(fname, input, n, dim, norm):
    check_input(fname, input)
    n = None if n is None else int_arg(fname, "n", n)
    dim = int_arg(fname, "dim", dim)
    norm_arg(fname, norm)
    return n, dim


def _swap(norm):
    """The norm string giving the opposite direction the same scaling (ifft(x) = conj(fft(x)) for real x)."""
    return {None: "forward", "backward": "forward", "forward": "backward"}.get(norm, norm)


# ---- one dimension -----------------------------------------------------------------------------------------
def _c2c_1d(input, n, dim, norm, forward):
    d = wrap_dim(dim, input.ndim)
    size = input._shape[d] if n is None else n
    _points(size)
    x = input if n is None else resize(input, (d,), (size,))
    return c2c(x, (d,), norm_mode(norm, forward), forward)


def _r2c_1d(fname, input, n, dim, norm, forward, onesided):
    if input._dtype.is_complex:
        raise RuntimeError(f"{fname} expects a real input tensor, but got {short_name(input._dtype)}")
    x = promote(input)
    d = wrap_dim(dim, x.ndim)
    size = x._shape[d] if n is None else n
    _points(size)
    if n is not None:
        x = resize(x, (d,), (size,))
    mode = norm_mode(norm, forward)
    out = r2c(x, (d,), mode, onesided)
    return out if forward else conj(out)


def _c2r_1d(input, n, dim, norm, forward):
    x = promote(input, require_complex=True)
    d = wrap_dim(dim, x.ndim)
    size = 2 * (x._shape[d] - 1) if n is None else n
    _points(size)
    if n is not None:
        x = resize(x, (d,), (size // 2 + 1,))
    mode = norm_mode(norm, forward)
    if forward:
        x = conj(x)
    return c2r(x, (d,), mode, size)


@register("fft_fft", function=False, method=False, out=True, kind="composite")
def fft_fft(input, n=None, dim=-1, norm=None):
    """`torch.fft.fft(input, n=None, dim=-1, norm=None, *, out=None)`: the one-dimensional discrete Fourier
    transform (real inputs: a full-length real-to-complex transform, FftR2CBackward0)."""
    n, dim = _one_dim_args("fft_fft", input, n, dim, norm)
    if input._dtype.is_complex:
        return _c2c_1d(input, n, dim, norm, True)
    return _r2c_1d("fft", input, n, dim, norm, True, False)


@register("fft_ifft", function=False, method=False, out=True, kind="composite")
def fft_ifft(input, n=None, dim=-1, norm=None):
    """`torch.fft.ifft(input, n=None, dim=-1, norm=None, *, out=None)`: the inverse transform (a real input
    gives the conjugate view of its forward transform, ConjBackward0, as in PyTorch)."""
    n, dim = _one_dim_args("fft_ifft", input, n, dim, norm)
    if input._dtype.is_complex:
        return _c2c_1d(input, n, dim, norm, False)
    return _r2c_1d("ifft", input, n, dim, norm, False, False)


@register("fft_rfft", function=False, method=False, out=True, kind="composite")
def fft_rfft(input, n=None, dim=-1, norm=None):
    """`torch.fft.rfft(input, n=None, dim=-1, norm=None, *, out=None)`: the transform of a real signal,
    `n // 2 + 1` frequencies."""
    n, dim = _one_dim_args("fft_rfft", input, n, dim, norm)
    return _r2c_1d("rfft", input, n, dim, norm, True, True)


@register("fft_ihfft", function=False, method=False, out=True, kind="composite")
def fft_ihfft(input, n=None, dim=-1, norm=None):
    """`torch.fft.ihfft(input, n=None, dim=-1, norm=None, *, out=None)`: the inverse of hfft: the conjugate
    (a lazy view) of the half spectrum, scaled as an inverse transform."""
    n, dim = _one_dim_args("fft_ihfft", input, n, dim, norm)
    return _r2c_1d("ihfft", input, n, dim, norm, False, True)


@register("fft_irfft", function=False, method=False, out=True, kind="composite")
def fft_irfft(input, n=None, dim=-1, norm=None):
    """`torch.fft.irfft(input, n=None, dim=-1, norm=None, *, out=None)`: the real signal of a half spectrum
    (`n` defaults to `2 * (input.size(dim) - 1)`; the imaginary parts of the zero and Nyquist frequencies are
    ignored)."""
    n, dim = _one_dim_args("fft_irfft", input, n, dim, norm)
    return _c2r_1d(input, n, dim, norm, False)


@register("fft_hfft", function=False, method=False, out=True, kind="composite")
def fft_hfft(input, n=None, dim=-1, norm=None):
    """`torch.fft.hfft(input, n=None, dim=-1, norm=None, *, out=None)`: the (real) transform of a Hermitian
    signal given by its first half."""
    n, dim = _one_dim_args("fft_hfft", input, n, dim, norm)
    return _c2r_1d(input, n, dim, norm, True)


# ---- n dimensions ------------------------------------------------------------------------------------------
def _shape_and_dims(input, s, dim):
    """canonicalize_fft_shape_and_dim_args: (dims, sizes), -1 sizes meaning the input's."""
    nd, sizes = input.ndim, input._shape
    dims = None
    if dim is not None:
        if nd == 0 and dim:
            raise IndexError(f"Dimension specified as {dim[0]} but tensor has no dimensions")
        dims = tuple(wrap_dim(d, nd) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} dimensions.")
        if dims is None:
            dims = tuple(range(nd - len(s), nd))
        shape = tuple(sizes[d] if n == -1 else n for d, n in zip(dims, s))
    elif dims is None:
        dims, shape = tuple(range(nd)), tuple(sizes)
    else:
        shape = tuple(sizes[d] for d in dims)
    for n in shape:
        _points(n)
    return dims, shape


def _n_args(fname, input, s, dim, norm):
    check_input(fname, input)
    s, dim = ints_arg(fname, "s", s), ints_arg(fname, "dim", dim)
    norm_arg(fname, norm)
    return s, dim


def _c2r_shape(fname, input, s, dims, shape):
    """canonicalize_fft_c2r_shape_and_dim_args: the output length of the last dim; its input length."""
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    last = 2 * (input._shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    _points(last)
    return last, shape[:-1] + (last // 2 + 1,)


def _fftn(fname, input, s, dim, norm, forward):
    s, dim = _n_args(fname, input, s, dim, norm)
    dims, shape = _shape_and_dims(input, s, dim)
    x = resize(promote(input, require_complex=True), dims, shape)
    return c2c(x, dims, norm_mode(norm, forward), forward)


def _rfftn(fname, input, s, dim, norm):
    s, dim = _n_args(fname, input, s, dim, norm)
    if input._dtype.is_complex:
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {short_name(input._dtype)}")
    dims, shape = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = resize(promote(input), dims, shape)
    return r2c(x, dims, norm_mode(norm, True), True)


def _irfftn(fname, input, s, dim, norm):
    s, dim = _n_args(fname, input, s, dim, norm)
    dims, shape = _shape_and_dims(input, s, dim)
    last, shape = _c2r_shape("irfftn", input, s, dims, shape)
    x = resize(promote(input, require_complex=True), dims, shape)
    return c2r(x, dims, norm_mode(norm, False), last)


def _hfftn(fname, input, s, dim, norm):
    s, dim = _n_args(fname, input, s, dim, norm)
    dims, shape = _shape_and_dims(input, s, dim)
    last, shape = _c2r_shape("hfftn", input, s, dims, shape)
    x = resize(promote(input, require_complex=True), dims, shape)
    mode = norm_mode(norm, True)
    if len(dims) > 1:
        x = c2c(x, dims[:-1], mode, True)
    return c2r(conj(x), dims[-1:], mode, last)


def _ihfftn(fname, input, s, dim, norm):
    s, dim = _n_args(fname, input, s, dim, norm)
    dims, shape = _shape_and_dims(input, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = resize(promote(input), dims, shape)
    mode = norm_mode(norm, False)
    out = conj(r2c(x, dims[-1:], mode, True))
    if len(dims) == 1:
        return out
    return c2c(out, dims[:-1], mode, False)


_N_DOC = ("`torch.fft.{name}(input, s=None, dim={dim}, norm=None, *, out=None)`: {what} over `dim` ({dflt}); "
          "`s` trims or zero-pads each transformed dimension (-1: keep).")
_WHAT = {"fft": "the discrete Fourier transform", "ifft": "the inverse discrete Fourier transform",
         "rfft": "the transform of a real signal (half spectrum along the last of `dim`)",
         "irfft": "the real signal of a half spectrum (the last of `dim`: `s[-1]` outputs, default "
                  "2 * (size - 1))",
         "hfft": "the real transform of a Hermitian signal given by its half (along the last of `dim`)",
         "ihfft": "the inverse of hfftn: a half spectrum (a conjugate view when one dimension is "
                  "transformed)"}


def _make_n(fname, impl, default, extra):
    def f(input, s=None, dim=default, norm=None):
        return impl(fname, input, s, dim, norm, *extra)
    return f


def _register_n(base, impl, *extra):
    for suffix, default in (("2", (-2, -1)), ("n", None)):
        name = f"{base}{suffix}"
        f = _make_n(f"fft_{name}", impl, default, extra)
        f.__name__ = f.__qualname__ = f"fft_{name}"
        f.__doc__ = _N_DOC.format(name=name, dim=default, what=_WHAT[base],
                                  dflt="the last two dims" if default else "all dims, or the last len(s)")
        register(f"fft_{name}", function=False, method=False, out=True, kind="composite")(f)


_register_n("fft", _fftn, True)
_register_n("ifft", _fftn, False)
_register_n("rfft", _rfftn)
_register_n("irfft", _irfftn)
_register_n("hfft", _hfftn)
_register_n("ihfft", _ihfftn)

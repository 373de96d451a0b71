"""Records for torch.fft (torchshim/ops/spectral*.py: the fft_* composites, the _fft_r2c/_fft_c2r/_fft_c2c
kernels, fftfreq/rfftfreq, fftshift/ifftshift) and torch.stft/istft. Shapes stay small; the samples follow
PyTorch's OpInfo ones (n/s trimming and padding, every norm, dim forms, 1-element signals). out= cases call
`torch.fft.<name>(..., out=)` (the table names are not torch.* functions); compat_tests/test_fft.py has the
hand-written cases (errors of every argument, round trips, tracing)."""
import warnings

from harness import Arg, OpRecord

TOL = {"rtol": 2e-5, "atol": 2e-5}  # pocketfft (PyTorch) and ducc (XLA) round differently in float32
R = ("float32", "float64")
C = ("complex64", "complex128")


def _fft(name):
    return lambda T, *xs, **kw: getattr(T.fft, name)(*xs, **kw)


def _s(*items):
    return lambda d: list(items)


def one_dim(d):
    """1-D transforms: default; n trimming (non-contiguous input) with forward norm; n padding along dim 0
    with ortho."""
    return [((Arg((2, 5), d),), {}),
            ((Arg((3, 4), d, noncontig=True),), {"n": 3, "norm": "forward"}),
            ((Arg((2, 5), d),), {"n": 7, "dim": 0, "norm": "ortho"})]


def n_dim(two):
    """2-D transforms: s over the default dims (padding one, trimming the other) with ortho. n-D: default
    dims; one int dim (non-contiguous input) with forward norm; s with dims and ortho."""
    def samples(d):
        if two:
            return [((Arg((2, 3, 4), d),), {"s": (4, 3), "norm": "ortho"})]
        return [((Arg((2, 3, 4), d),), {}),
                ((Arg((2, 3, 4), d, noncontig=True),), {"dim": 0, "norm": "forward"}),
                ((Arg((2, 3, 4), d),), {"s": (3, 2), "dim": (0, 2), "norm": "ortho"})]
    return samples


ONE = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
TAKES_COMPLEX = {"fft", "ifft", "irfft", "hfft", "fft2", "ifft2", "irfft2", "hfft2", "fftn", "ifftn",
                 "irfftn", "hfftn"}
REAL_OUT = {"irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"}


def _dtypes(name):
    return ("float64", "complex128") if name in TAKES_COMPLEX else ("float64",)


def _call(name):
    """torch.fft.<name>(x, **kw), with `out=` a new empty tensor when the sample gives `out_dtype`."""
    def call(T, x, out_dtype=None, **kw):
        if out_dtype is not None:
            kw["out"] = T.empty(0, dtype=getattr(T, out_dtype))
        return getattr(T.fft, name)(x, **kw)
    return call


def _common(name, promoted, errors):
    """One record per transform besides its main one: a float32 (and complex64) input, integer and bool
    inputs (promoted to the default float), out= (a wider dtype, the wrong kind), then the errors."""
    extra = [((Arg((2, 4), "complex64"),), {})] if name in TAKES_COMPLEX else []
    right, wrong = ("float64", "complex64") if name in REAL_OUT else ("complex128", "float32")
    outs = [((Arg((2, 4)),), {"out_dtype": right}), ((Arg((2, 4)),), {"out_dtype": wrong})]
    return [OpRecord(f"fft_{name}", _s(((Arg((2, 4)),), {}), *extra, *promoted, *outs, *errors), ("float32",),
                     call=_call(name), method=False, **TOL)]


_ONE_ERRORS = (((Arg((4,), "float16"),), {}), ((Arg((4,), "bfloat16"),), {}), ((Arg((4,)),), {"n": 0}),
               ((Arg((2, 4)),), {"dim": 2}), ((Arg((2, 4)),), {"dim": -3}), ((Arg(()),), {}),
               ((Arg((0,)),), {}), ((Arg((1,)),), {}), ((Arg((4,)),), {"n": 2.5}),
               ((Arg((4,)),), {"dim": (0,)}),
               ((Arg((4,), "complex64"),), {"n": -1}), ((Arg((0, 4)),), {}),
               ((Arg((4,)),), {"norm": "Ortho"}))
_N_ERRORS = (((Arg((2, 4)),), {"dim": (0, 0)}), ((Arg((2, 4)),), {"dim": (0, 2)}),
             ((Arg((2, 4)),), {"s": (2, 3), "dim": (0,)}), ((Arg((2, 4)),), {"s": (0, 2)}),
             ((Arg((2, 4)),), {"s": (-2, 2)}), ((Arg((2, 4)),), {"dim": ()}), ((Arg((2, 4), "float16"),), {}),
             ((Arg((2, 4), "complex64"),), {}), ((Arg((3,)),), {}), ((Arg((2, 1)),), {}),
             ((Arg((2, 4)),), {"s": 2.0}), ((Arg((0, 2, 4)),), {}), ((Arg((0, 4)),), {"dim": ()}),
             ((Arg((2, 4)),), {"norm": "bad"}))


def _one_dim_records():
    recs = []
    for name in ONE:
        recs.append(OpRecord(f"fft_{name}", one_dim, _dtypes(name), call=_fft(name), method=False, **TOL))
        recs += _common(name, [((Arg((2, 4), "int64", -4, 4),), {}), ((Arg((4,), "bool"),), {"n": 6})],
                        _ONE_ERRORS)
    return recs


def _n_dim_records():
    recs = []
    for base in ONE:
        for suffix in ("2", "n"):
            name = base + suffix
            recs.append(OpRecord(f"fft_{name}", n_dim(suffix == "2"), _dtypes(name), call=_fft(name),
                                 method=False, **TOL))
            long_s = {"s": (2, 3, 4)} if suffix == "n" else {"s": (2, 3, 4), "dim": (0, 1, 2)}
            promoted = [((Arg((2, 4), "int64", -4, 4),), {}), ((Arg((2, 2), "bool"),), {"s": (3, 4)})]
            recs += _common(name, promoted,
                            (((Arg((2, 4)),), long_s),) + _N_ERRORS)
    return recs


def _kernels():
    r2c = [((Arg((2, 5), "float64"), [1], 0, True), {}),
           ((Arg((3, 4), "float64", noncontig=True), [0, 1], 1, False), {})]
    c2c = [((Arg((2, 5), "complex128"), [0, 1], 1, False), {}),
           ((Arg((3, 4), "complex128", noncontig=True), [], 2, True), {})]
    c2r = [((Arg((2, 3), "complex128"), [1], 0, 4), {}),
           ((Arg((3, 4), "complex128", noncontig=True), [0, 1], 2, 7), {})]
    errors = {"_fft_r2c": [((Arg((2, 4), "complex64"), [1], 0, True), {}),
                           ((Arg((2, 4), "int64"), [1], 0, True), {}),
                           ((Arg((2, 4), "float16"), [1], 0, True), {}),
                           ((Arg((2, 4), "bfloat16"), [1], 0, True), {})],
              "_fft_c2r": [((Arg((2, 4)), [1], 0, 6), {}), ((Arg((2, 4), "float16"), [1], 0, 6), {})],
              "_fft_c2c": [((Arg((2, 4)), [1], 0, True), {}), ((Arg((2, 4), "bfloat16"), [1], 0, True), {}),
                           ((Arg((2, 4), "complex64"), [0], 1, 2), {}),
                           ((Arg((2, 4), "complex64"), 0, 1, True), {})]}
    recs = [OpRecord("_fft_r2c", _s(*r2c), ("float64",), method=False),
            OpRecord("_fft_c2c", _s(*c2c), ("complex128",), method=False),
            OpRecord("_fft_c2r", _s(*c2r), ("complex128",), method=False),
            OpRecord("_fft_c2c", _s(((Arg((2, 4), "complex64"), [1], 0, True), {})), ("float32",),
                     method=False, **TOL,
                     call=lambda T, x, *a: T._fft_c2c(x, *a, out=T.empty(0, dtype=T.complex128)))]
    return recs + [OpRecord(k, _s(*v), ("float32",), method=False) for k, v in errors.items()]


def _freq():
    def freq(name):
        return lambda T, n, *a, dtype=None, **kw: getattr(T.fft, name)(
            n, *a, **kw, **({} if dtype is None else {"dtype": getattr(T, dtype)}))
    samples = _s(((5,), {}), ((4, 0.3), {}), ((7,), {"d": 0.3, "dtype": "float64"}),
                 ((7,), {"d": 0.3, "dtype": "float16"}), ((5,), {"d": 0.3, "dtype": "bfloat16"}),
                 ((0,), {}), ((1,), {}), ((4,), {"d": -2}), ((5,), {"d": 0}),
                 ((4,), {"dtype": "int64"}), ((4,), {"dtype": "complex64"}), ((-1,), {}), ((4.0,), {}),
                 ((4,), {"d": "a"}), ((3,), {"requires_grad": True}))
    recs = []
    for name in ("fftfreq", "rfftfreq"):
        recs.append(OpRecord(f"fft_{name}", samples, ("float32",), call=freq(name), method=False))
        recs.append(OpRecord(f"fft_{name}", _s(((4,), {}), ((5, 0.5), {})), ("float32",), method=False,
                             call=lambda T, *a, _n=name: getattr(T.fft, _n)(
                                 *a, out=T.empty(0, dtype=T.float64))))
        recs.append(OpRecord(f"fft_{name}", _s(((4,), {})), ("float32",), method=False,
                             call=lambda T, *a, _n=name: getattr(T.fft, _n)(
                                 *a, dtype=T.float32, out=T.empty(0, dtype=T.float64))))
    return recs


def _shifts():
    def samples(d):
        return [((Arg((3, 4), d),), {}), ((Arg((2, 5), d, noncontig=True),), {"dim": (1,)}),
                ((Arg((2, 3, 2), d),), {"dim": (0, -1, -1)})]
    errors = _s(((Arg(()),), {}), ((Arg(()),), {"dim": 0}), ((Arg((3, 3)),), {"dim": (0, 5)}),
                ((Arg((3, 3)),), {"dim": 1.0}), ((Arg((3, 3)),), {"dim": []}))
    recs = []
    for name in ("fftshift", "ifftshift"):
        recs.append(OpRecord(f"fft_{name}", samples, ("float64",), call=_fft(name), method=False))
        recs.append(OpRecord(f"fft_{name}", lambda d: samples(d)[:1],
                             ("float32", "int64", "bool", "complex64", "float16"), call=_fft(name),
                             method=False))
        recs.append(OpRecord(f"fft_{name}", errors, ("float32",), call=_fft(name), method=False))
    return recs


def _quiet(fn):
    def call(T, *a, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(T, *a, **kw)
    return call


def _win(T, kind, n, dtype):
    return None if kind is None else getattr(T, kind)(n, dtype=getattr(T, dtype))


def _stft_call(T, x, n_fft, win=None, win_len=None, **kw):
    w = _win(T, win, win_len or n_fft, "float64" if x.dtype in (T.float64, T.complex128) else "float32")
    return T.stft(x, n_fft, window=w, win_length=win_len, **kw)


def _stft_samples(d):
    return [((Arg((16,), d), 8), {"win": "hann_window", "return_complex": True}),
            ((Arg((2, 12), d), 4), {"hop_length": 3, "center": False, "return_complex": True}),
            ((Arg((12,), d), 6), {"win": "hamming_window", "win_len": 4, "pad_mode": "constant",
                                 "normalized": True, "onesided": False, "return_complex": True}),
            ((Arg((10,), d), 4), {"win": "hann_window", "win_len": 2, "center": False,
                                 "align_to_window": True, "return_complex": False})]


def _istft_call(T, x, n_fft, win=None, win_len=None, **kw):
    w = _win(T, win, win_len or n_fft, "float64" if x.dtype is T.complex128 else "float32")
    return T.istft(x, n_fft, window=w, win_length=win_len, **kw)


def _istft_samples(d):
    return [((Arg((5, 5), d), 8), {"win": "hann_window"}),
            ((Arg((4, 3), d), 4), {"win": "hann_window", "hop_length": 2, "onesided": False, "length": 12}),
            ((Arg((5, 4), d), 8), {"win": "hann_window", "win_len": 6, "hop_length": 2, "normalized": True}),
            ((Arg((2, 4, 3), d), 4), {"win": "hann_window", "hop_length": 1, "onesided": False,
                                      "return_complex": True, "length": 5}),
            ((Arg((3, 4), d), 4), {"center": False, "hop_length": 2})]


def _stft_records():
    f32 = ("float32",)
    return [
        OpRecord("stft", _stft_samples, ("float64",), call=_quiet(_stft_call), method=False),
        OpRecord("stft", lambda d: _stft_samples(d)[:1], ("float32",), call=_quiet(_stft_call), method=False,
                 **TOL),
        OpRecord("stft", lambda d: [((Arg((10,), d), 4), {"win": "hann_window"}),
                                    ((Arg((2, 10), d), 4), {"hop_length": 2, "center": False})],
                 ("complex128",),
                 call=_quiet(_stft_call), method=False),
        OpRecord("stft", _s(((Arg((16,)), 8), {"win": "hann_window", "return_complex": True})), f32,
                 call=_quiet(lambda T, x, n, **kw: x.stft(n, window=T.hann_window(n), return_complex=True))),
        OpRecord("stft", _s(((Arg((16,)), 8), {"win": "hann_window"}),
                            ((Arg((16,)), 0), {"return_complex": True}),
                            ((Arg((16,)), 32), {"return_complex": True}),
                            ((Arg((16,)), 17), {"return_complex": True, "center": False}),
                            ((Arg((16,)), 8), {"hop_length": 0, "return_complex": True}),
                            ((Arg((16,)), 8), {"win_len": 9, "return_complex": True}),
                            ((Arg((16,)), 8), {"win": "hann_window", "win_len": 6, "return_complex": True}),
                            ((Arg((2, 2, 16)), 8), {"return_complex": True}),
                            ((Arg((16,)), 8), {"return_complex": True, "pad_mode": "bad"}),
                            ((Arg((16,), "complex64"), 8), {"onesided": True}),
                            ((Arg((16,), "int64"), 8), {"return_complex": True}),
                            ((Arg((16,), "float16"), 8), {"return_complex": True}),
                            ((Arg((16,)), 8), {"return_complex": True, "align_to_window": True}),
                            ((Arg((3,)), 8), {"return_complex": True}),
                            ((Arg((16,), "float64"), 8), {"win": "hann_window", "return_complex": True})),
                 f32,
                 call=_quiet(_stft_call)),
        OpRecord("istft", _istft_samples, ("complex128",), call=_quiet(_istft_call), method=False),
        OpRecord("istft", lambda d: _istft_samples(d)[:2], ("complex64",), call=_quiet(_istft_call),
                 method=False, **TOL),
        OpRecord("istft", _s(((Arg((5, 5), "complex64"), 8), {})), f32,
                 call=_quiet(lambda T, x, n: x.istft(n, window=T.hann_window(n)))),
        OpRecord("istft", _s(((Arg((5, 5), "complex64"), 8), {"win": "ones", "hop_length": 9}),
                            ((Arg((5, 5), "complex64"), 8), {"win": "hann_window", "center": False}),
                            ((Arg((5, 5), "complex64"), 7), {"win": "hann_window", "win_len": 8}),
                            ((Arg((5, 5), "complex64"), 8), {"win": "hann_window", "onesided": False}),
                            ((Arg((5, 5)), 8), {"win": "hann_window"}),
                            ((Arg((5, 5), "complex64"), 8), {"win": "hann_window", "return_complex": True}),
                            ((Arg((5, 5), "complex64"), 8), {"win": "hann_window", "win_len": 9}),
                            ((Arg((5, 5), "complex64"), 8), {"win": "zeros"}),
                            ((Arg((5, 0), "complex64"), 8), {"win": "hann_window"}),
                            ((Arg((1, 1, 5, 5), "complex64"), 8), {"win": "hann_window"}),
                            ((Arg((5,), "complex64"), 8), {"win": "hann_window"}),
                            ((Arg((5, 5), "complex64"), 8), {"win": "hann_window", "length": 0}),
                            ((Arg((5, 1), "complex64"), 8), {"win": "hann_window"}),
                            ((Arg((5, 5), "complex64"), 8), {"win": "hann_window", "hop_length": 8})), f32,
                 call=_quiet(_istft_call)),
    ]


RECORDS = _one_dim_records() + _n_dim_records() + _kernels() + _freq() + _shifts() + _stft_records()

"""Records for torch.special (torchshim/ops/special.py, special_poly.py): every function on its domain in
float32/float64 (gradients and second derivatives follow from them in test_gradients.py), one integer input
(-> default float), PyTorch's dtype errors (float16 where the CPU kernel lacks it, complex), and out=.
Poles, tails, error texts and tracing are in test_special.py."""
from harness import Arg, OpRecord

F = ("float32", "float64")


def _sp(name):
    """`T.special.<name>(*xs, **kw)`."""
    def call(T, *xs, **kw):
        return getattr(T.special, name)(*xs, **kw)
    call.__name__ = call.__qualname__ = f"special.{name}"
    return call


def _out(name):
    """out= of `T.special.<name>` on detached inputs (out= with an input requiring grad: test_special.py)."""
    def call(T, *xs, **kw):
        xs = [x.detach() if isinstance(x, T.Tensor) else x for x in xs]
        ref = getattr(T.special, name)(*xs, **kw)
        out = T.empty(0, dtype=ref.dtype)
        r = getattr(T.special, name)(*xs, **kw, out=out)
        assert r is out
        return out
    call.__name__ = call.__qualname__ = f"special.{name}(out=)"
    return call


def _unary(name, lo=-3.0, hi=3.0, bad=("complex64",), rtol=None, atol=None):
    """Records of a unary special function: domain samples (2-d, 0-dim, non-contiguous), one int64 sample,
    one out= sample, the refused dtypes."""
    def samples(d):
        return [((Arg((3, 4), d, lo, hi),), {}), ((Arg((), d, lo, hi),), {}),
                ((Arg((2, 3), d, lo, hi, noncontig=True),), {})]
    ilo, ihi = max(lo, 0.0) if lo > -1 else lo, hi
    return [
        OpRecord(f"special_{name}", samples, F, call=_sp(name), method=False, rtol=rtol, atol=atol),
        OpRecord(f"special_{name}", lambda d: [((Arg((4,), d, ilo, ihi),), {})], ("int64",), call=_sp(name),
                 method=False, rtol=rtol, atol=atol),
        OpRecord(f"special_{name}", lambda d: [((Arg((4,), d, lo, hi),), {})], ("float32",), call=_out(name),
                 method=False, rtol=rtol, atol=atol),
        OpRecord(f"special_{name}", lambda d: [((Arg((3,), d, lo, hi),), {})], bad, call=_sp(name),
                 method=False, msg="prefix"),
    ]


_NO_HALF = ("float16", "complex64")
_BESSEL = dict(bad=_NO_HALF, rtol=1e-6, atol=1e-6)  # PyTorch's own float64 J/Y/Ai are off by ~2e-7

RECORDS = [
    *_unary("erfcx", -2, 10, bad=_NO_HALF),
    *_unary("log_ndtr", -6, 5, bad=_NO_HALF),
    *_unary("ndtri", 0.01, 0.99, bad=_NO_HALF),
    *_unary("entr", 0.05, 3),
    *_unary("i0e"), *_unary("i1"), *_unary("i1e"), *_unary("i0"),
    *_unary("gammaln", 0.1, 5), *_unary("digamma", 0.1, 5), *_unary("psi", 0.1, 5),
    *_unary("ndtr"),
    *_unary("erf"), *_unary("erfc"), *_unary("erfinv", -0.9, 0.9), *_unary("exp2"), *_unary("expm1"),
    *_unary("log1p", -0.9, 3), *_unary("expit", bad=("bool",)), *_unary("sinc", bad=("bool",)),
    *_unary("logit", 0.05, 0.95),
    *_unary("bessel_j0", -20, 20, **_BESSEL), *_unary("bessel_j1", -20, 20, **_BESSEL),
    *_unary("bessel_y0", 0.1, 20, **_BESSEL), *_unary("bessel_y1", 0.1, 20, **_BESSEL),
    *_unary("modified_bessel_i0", -5, 5, **_BESSEL), *_unary("modified_bessel_i1", -5, 5, **_BESSEL),
    *_unary("modified_bessel_k0", 0.1, 8, **_BESSEL), *_unary("modified_bessel_k1", 0.1, 8, **_BESSEL),
    *_unary("scaled_modified_bessel_k0", 0.1, 8, **_BESSEL),
    *_unary("scaled_modified_bessel_k1", 0.1, 8, **_BESSEL),
    *_unary("spherical_bessel_j0", -10, 10, **_BESSEL), *_unary("airy_ai", -10, 5, **_BESSEL),
    OpRecord("special_round", lambda d: [((Arg((3, 4), d, -30, 30),), {}),
                                         ((Arg((5,), d, -30, 30),), {"decimals": 1})], F,
             call=_sp("round"), method=False),
    OpRecord("special_round", lambda d: [((Arg((3,), d),), {})], ("int64", "complex64"), call=_sp("round"),
             method=False),
    OpRecord("special_round", lambda d: [((Arg((3,), d, -30, 30),), {})], ("float32",), call=_out("round"),
             method=False),
    OpRecord("special_logit", lambda d: [((Arg((5,), d, 0, 1),), {"eps": 0.1})], F, call=_sp("logit"),
             method=False),
    OpRecord("special_polygamma", lambda d: [((n, Arg((3, 4), d, 0.2, 4)), {}) for n in (0, 1, 2, 3)]
             + [((-1, Arg((3,), d, 1, 4)), {}), ((1.5, Arg((3,), d, 1, 4)), {})], F, call=_sp("polygamma"),
             method=False, rtol=1e-5, atol=1e-5),
    OpRecord("special_polygamma", lambda d: [((2, Arg((4,), d, 1, 4)), {})], ("int64",),
             call=_sp("polygamma"), method=False),
    OpRecord("special_polygamma", lambda d: [((1, Arg((4,), d, 0.2, 4)), {})], ("float32",),
             call=_out("polygamma"), method=False),
    OpRecord("special_multigammaln", lambda d: [((Arg((3, 4), d, 2, 5), p), {}) for p in (1, 3)]
             + [((Arg((3,), d, 2, 5), 0), {})], F, call=_sp("multigammaln"), method=False),
    OpRecord("special_multigammaln", lambda d: [((Arg((4,), d, 2, 5), 2), {})], ("int64",),
             call=_sp("multigammaln"), method=False),
    OpRecord("special_multigammaln", lambda d: [((Arg((4,), d, 2, 5), 2), {})], ("float32",),
             call=_out("multigammaln"), method=False),
    # two arguments
    OpRecord("special_xlog1py", lambda d: [((Arg((3, 4), d, -2, 2), Arg((3, 4), d, -0.9, 3)), {}),
                                           ((Arg((3, 4), d, -2, 2), Arg((4,), d, -0.9, 3)), {}),
                                           ((2.5, Arg((3,), d, -0.9, 3)), {}), ((Arg((3,), d), 0.5), {})],
             F, call=_sp("xlog1py"), method=False),
    OpRecord("special_xlog1py", lambda d: [((Arg((3,), d, 0, 3), Arg((3,), d, 0, 3)), {}), ((2, 3), {})],
             ("int64",), call=_sp("xlog1py"), method=False),
    OpRecord("special_xlog1py", lambda d: [((Arg((3,), d), Arg((3,), d, 0, 3)), {})], ("float32",),
             call=_out("xlog1py"), method=False),
    OpRecord("special_xlogy", lambda d: [((Arg((3, 4), d, -2, 2), Arg((3, 4), d, 0.1, 3)), {}),
                                         ((2.5, Arg((3,), d, 0.1, 3)), {}), ((Arg((3,), d), 0.5), {})],
             F, call=_sp("xlogy"), method=False),
    OpRecord("special_xlogy", lambda d: [((Arg((3,), d, 0, 3), Arg((3,), d, 1, 3)), {}), ((2, 3), {})],
             ("int64", "complex64"), call=_sp("xlogy"), method=False),
    OpRecord("special_xlogy", lambda d: [((Arg((3,), d), Arg((3,), d, 0.1, 3)), {})], ("float32",),
             call=_out("xlogy"), method=False),
    OpRecord("special_zeta", lambda d: [((Arg((3, 4), d, 1.5, 4), Arg((3, 4), d, 0.5, 3)), {}),
                                        ((2.0, Arg((3,), d, 0.5, 3)), {}), ((Arg((3,), d, 1.5, 4), 1.5), {})],
             F, call=_sp("zeta"), method=False, rtol=1e-5, atol=1e-6),
    OpRecord("special_zeta", lambda d: [((Arg((3,), d, 2, 4), Arg((3,), d, 1, 3)), {}), ((2, 3), {})],
             ("int64", "float16"), call=_sp("zeta"), method=False, msg="prefix"),
    OpRecord("special_zeta", lambda d: [((Arg((3,), d, 1.5, 4), Arg((3,), d, 0.5, 3)), {})], ("float32",),
             call=_out("zeta"), method=False, rtol=1e-5, atol=1e-6),
    *[OpRecord(f"special_{n}", lambda d: [((Arg((3, 4), d, 0.5, 3), Arg((3, 4), d, 0.1, 4)), {}),
                                          ((Arg((3,), d, 0.5, 3), 2.0), {})], F, call=_sp(n), method=False,
               rtol=1e-5, atol=1e-6)
      for n in ("gammainc", "gammaincc")],
    *[OpRecord(f"special_{n}", lambda d: [((Arg((3,), d, 1, 3), Arg((3,), d, 1, 3)), {})], ("int64",),
               call=_sp(n), method=False) for n in ("gammainc", "gammaincc")],
    *[OpRecord(f"special_{n}", lambda d: [((Arg((3,), d, 0.5, 3), Arg((3,), d, 0.1, 4)), {})], ("float32",),
               call=_out(n), method=False, rtol=1e-5, atol=1e-6) for n in ("gammainc", "gammaincc")],
    # softmax family
    OpRecord("special_softmax", lambda d: [((Arg((3, 4), d), 1), {}), ((Arg((3, 4), d), 0), {"dtype": None}),
                                           ((Arg((3,), d), 0, "float64"), {})], F,
             call=lambda T, x, dim, *a, **kw: T.special.softmax(x, dim, *[getattr(T, v) for v in a], **kw),
             method=False),
    OpRecord("special_softmax", lambda d: [((Arg((3,), d), 0), {})], ("int64",), call=_sp("softmax"),
             method=False),
    OpRecord("special_log_softmax", lambda d: [((Arg((3, 4), d), 1), {}), ((Arg((3, 4), d), -1), {})], F,
             call=_sp("log_softmax"), method=False),
    OpRecord("special_log_softmax", lambda d: [((Arg((3,), d), 0), {})], ("int64",), call=_sp("log_softmax"),
             method=False),
    OpRecord("special_logsumexp", lambda d: [((Arg((3, 4), d), 1), {}), ((Arg((3, 4), d), (0, 1)),
                                                                           {"keepdim": True})], F,
             call=_sp("logsumexp"), method=False),
    OpRecord("special_logsumexp", lambda d: [((Arg((3,), d), 0), {})], ("int64",), call=_sp("logsumexp"),
             method=False),
    OpRecord("special_logsumexp", lambda d: [((Arg((3, 4), d), 1), {})], ("float32",), call=_out("logsumexp"),
             method=False),
]


def _poly(name, lo=-1.0, hi=1.0):
    def samples(d):
        return [((Arg((3, 4), d, lo, hi), Arg((3, 4), "int64", -1, 12)), {}),
                ((Arg((3, 4), d, lo, hi), 3), {}),
                ((Arg((2, 3), d, lo, hi, noncontig=True), Arg((3,), d, -1, 10)), {}),
                ((0.5, Arg((4,), "int64", 0, 5)), {})]
    return [
        OpRecord(f"special_{name}", samples, F, call=_sp(name), method=False, rtol=1e-5, atol=1e-6),
        OpRecord(f"special_{name}",
                 lambda d: [((Arg((3,), d, -2, 2), Arg((3,), d, 0, 4)), {}), ((0.5, 2), {})],
                 ("int64", "float16"), call=_sp(name), method=False, msg="prefix"),
        OpRecord(f"special_{name}", lambda d: [((Arg((4,), d, lo, hi), 2), {})], ("float32",),
                 call=_out(name), method=False),
    ]


for _n in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "legendre_polynomial_p"):
    RECORDS += _poly(_n)
for _n in ("shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w"):
    RECORDS += _poly(_n, 0.0, 1.0)
RECORDS += _poly("hermite_polynomial_h", -2.0, 2.0) + _poly("hermite_polynomial_he", -2.0, 2.0)
RECORDS += _poly("laguerre_polynomial_l", 0.0, 5.0)

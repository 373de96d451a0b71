"""Records for torchshim/ops/pointwise_more.py (square, addcmul/addcdiv, gcd/lcm, logaddexp(2), heaviside,
frexp, ldexp, nextafter, igamma(c), polygamma, mvlgamma)."""

from harness import NUMERIC, Arg, OpRecord, binary_samples, unary_samples

F = ("float32", "float64")
INT = ("int64", "int32", "int16", "uint8", "int8")


def _addc(lo2=-3.0, hi2=3.0):
    def samples(d):
        yield (Arg((3, 4), d), Arg((3, 4), d), Arg((3, 4), d, lo2, hi2)), {}
        yield (Arg((3, 4), d), Arg((4,), d), Arg((3, 1), d, lo2, hi2)), {"value": 2}
        yield (Arg((), d), Arg((2, 3), d, noncontig=True), Arg((3,), d, lo2, hi2)), {"value": -0.5}
        yield (Arg((0, 3), d), Arg((3,), d), Arg((3,), d, lo2, hi2)), {}
        yield (Arg((2,), d), Arg((3,), d), Arg((2,), d, lo2, hi2)), {}  # broadcast error

    return samples


def _pos(lo, hi):
    return lambda d: [((Arg((3, 4), d, lo, hi),), {}), ((Arg((5,), d, lo, hi),), {})]


RECORDS = [
    OpRecord("square", unary_samples(), NUMERIC + ("bool", "complex64"), inplace=True, out=True),
    OpRecord("addcmul", _addc(), ("float32", "float64", "int64", "complex64"), inplace=True, out=True),
    OpRecord(
        "addcmul",
        lambda d: [
            ((Arg((3,), d), Arg((3,), "int64"), Arg((3,), "bool")), {"value": 2}),
            ((Arg((3,), "int64"), Arg((3,), "int64"), Arg((3,), "int64")), {"value": 0.5}),
            ((Arg((3,), "bool"), Arg((3,), "bool"), Arg((3,), "bool")), {}),
        ],
        ("float32",),
        method=False,
    ),
    OpRecord("addcdiv", _addc(0.5, 3.0), F, inplace=True, out=True),
    OpRecord(
        "addcdiv",
        lambda d: [
            ((Arg((3,), d), Arg((3,), "int64"), Arg((3,), "int64", 1, 3)), {}),
            ((Arg((3,), "float16"), Arg((3,), d), Arg((3,), d, 1, 3)), {"value": 3}),
        ],
        ("float32",),
        method=False,
    ),
    OpRecord("gcd", binary_samples(-20, 20, scalars=()), INT, inplace=True, out=True),
    OpRecord("lcm", binary_samples(-20, 20, scalars=()), INT, inplace=True, out=True),
    OpRecord("gcd", lambda d: [((Arg((3,), d), Arg((3,), d)), {})], ("float32", "bool")),
    OpRecord("logaddexp", binary_samples(scalars=()), F + ("float16", "bfloat16"), out=True),
    OpRecord(
        "logaddexp",
        lambda d: [((Arg((3,), d), Arg((3,), d)), {}), ((Arg((3,), "float32"), Arg((3,), d)), {})],
        ("int64",),
    ),
    OpRecord("logaddexp2", binary_samples(scalars=()), F, out=True),
    OpRecord("heaviside", binary_samples(-2, 2, scalars=()), F + ("int64", "bool"), inplace=True, out=True),
    OpRecord(
        "heaviside",
        lambda d: [
            ((Arg((4,), d, -1, 1), Arg((4,), "float64")), {}),
            ((Arg((4,), "complex64"), Arg((4,), "complex64")), {}),
            ((Arg((4,), d), 0.5), {}),
        ],
        ("float32",),
        method=False,
    ),
    OpRecord("frexp", unary_samples(-100, 100), F + ("float16",), out=True),
    OpRecord("frexp", lambda d: [((Arg((3,), d),), {})], ("int64",)),
    OpRecord(
        "ldexp",
        lambda d: [
            ((Arg((3, 4), d), Arg((3, 4), "int64", -4, 4)), {}),
            ((Arg((3, 4), d), Arg((4,), "int32", -4, 4)), {}),
            ((Arg((2, 3), d, noncontig=True), Arg((2, 3), d, -3, 3)), {}),
        ],
        F + ("float16",),
        inplace=True,
        out=True,
    ),
    OpRecord("ldexp", lambda d: [((Arg((3, 4), d), Arg((3, 4), d, -4, 4)), {})], ("int64",)),
    OpRecord("nextafter", binary_samples(scalars=()), F, inplace=True, out=True),
    OpRecord(
        "nextafter",
        lambda d: [
            ((Arg((3,), d), Arg((3,), "float64")), {}),
            ((Arg((3,), "int64"), Arg((3,), "int64")), {}),
        ],
        ("float32",),
    ),
    OpRecord("igamma", binary_samples(0.1, 4, 0.1, 4, scalars=()), F, inplace=True, out=True),
    OpRecord("igammac", binary_samples(0.1, 4, 0.1, 4, scalars=()), F, inplace=True, out=True),
    OpRecord("igamma", lambda d: [((Arg((3,), d), Arg((3,), d)), {})], ("int64",)),
    OpRecord(
        "polygamma",
        lambda d: (
            [((n, Arg((3, 4), d, 0.2 if d != "int64" else 1, 4)), {}) for n in (0, 1, 2, 3)]
            + [
                ((1, Arg((2, 3), d, 1, 4, noncontig=True)), {}),
                ((1, Arg((0,), d)), {}),
                ((-1, Arg((3,), d, 1, 4)), {}),
            ]
        ),
        F + ("int64",),
        out=True,
        method=False,
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "polygamma",
        lambda d: [((Arg((3, 4), d, 0.2, 4), n), {}) for n in (0, 2)],
        F,
        call=lambda T, x, n: x.polygamma(n),
        method=False,
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "polygamma",
        lambda d: [((Arg((3, 4), d, 0.2, 4), 1), {})],
        F,
        call=lambda T, x, n: x.clone().polygamma_(n),
        method=False,
        rtol=1e-4,
        atol=1e-5,
    ),
    OpRecord(
        "mvlgamma",
        lambda d: [((Arg((3, 4), d, 2, 5), p), {}) for p in (1, 2, 3)] + [((Arg((3,), d, 2, 5), 0), {})],
        F,
        inplace=True,
        out=True,
    ),
    OpRecord("mvlgamma", lambda d: [((Arg((3, 4), d, 2, 5), 2), {})], ("int64",)),
]

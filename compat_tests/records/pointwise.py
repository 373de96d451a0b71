"""Records for elementwise math (torchshim/ops/pointwise.py)."""
from harness import ALL, COMMON, FLOATS, NUMERIC, REAL, Arg, OpRecord, binary_samples, unary_samples

F_ONLY = ("float32", "float64")
FLOAT_IN = ("float32", "float64", "int64", "bool", "float16", "bfloat16")

RECORDS = [
    OpRecord("add", binary_samples(), ALL, inplace=True, out=True),
    OpRecord("add", lambda d: [((Arg((3, 4), d), Arg((4,), d)), {"alpha": 2})], NUMERIC),
    OpRecord("add", lambda d: [((Arg((3,), d), Arg((3,), d)), {"alpha": 1.5})], ("int64",)),
    OpRecord("sub", binary_samples(), NUMERIC + ("complex64",), inplace=True, out=True, covers=("subtract",)),
    OpRecord("sub", lambda d: [((Arg((3,), d), Arg((3,), d)), {})], ("bool",)),
    OpRecord("rsub", binary_samples(), COMMON[:3], method=False),
    OpRecord("mul", binary_samples(), ALL, inplace=True, out=True, covers=("multiply",)),
    OpRecord("div", binary_samples(rhs_low=0.5, rhs_high=3.0), NUMERIC + ("complex64", "float16"),
             inplace=True, out=True, covers=("divide",)),
    OpRecord("div", lambda d: [((Arg((4, 5), d, -9, 9), Arg((4, 5), d, 1, 4)), {"rounding_mode": m})
                               for m in ("trunc", "floor")]
             + [((Arg((3,), d, -9, 9), -2), {"rounding_mode": "floor"})],
             NUMERIC),
    OpRecord("div", lambda d: [((Arg((3,), d, 1, 5), Arg((3,), d, 0, 0)), {"rounding_mode": "floor"})],
             ("int64",)),
    OpRecord("div", lambda d: [((Arg((3,), d), Arg((3,), d)), {"rounding_mode": "round"})], ("float32",)),
    OpRecord("true_divide", binary_samples(rhs_low=0.5), ("float32", "int64"), inplace=True, out=True),
    OpRecord("floor_divide", binary_samples(-9, 9, 1, 4, scalars=(2, -3, 2.5)), NUMERIC,
             inplace=True, out=True),
    OpRecord("floor_divide", lambda d: [((Arg((5,), d), Arg((5,), d)), {})], ("int64",)),
    OpRecord("remainder", binary_samples(-9, 9, 1, 4, scalars=(3, -2.5)), NUMERIC, inplace=True, out=True),
    OpRecord("remainder", lambda d: [((Arg((4,), d, -9, 9), Arg((4,), d, -4, -1)), {})], NUMERIC[:4]),
    OpRecord("fmod", binary_samples(-9, 9, 1, 4, scalars=(3, -2.5)), NUMERIC, inplace=True, out=True),
    OpRecord("pow", binary_samples(0.5, 2.0, 0, 3, scalars=(2, 0.5, 3)),
             ("float32", "float64", "int64", "complex64"), inplace=True, out=True),
    OpRecord("pow", lambda d: [((Arg((3,), d, 1, 4), -1), {}), ((2, Arg((3,), d, 0, 3)), {})],
             ("int64", "float32")),
    OpRecord("float_power", binary_samples(0.5, 2.0, 0, 3), ("float32", "int64"), inplace=False, out=True),
    OpRecord("neg", unary_samples(), NUMERIC + ("complex64", "bool"), inplace=True, out=True,
             covers=("negative",)),
    OpRecord("positive", unary_samples(), ("float32", "int64", "bool")),
    OpRecord("abs", unary_samples(), ALL, inplace=True, out=True, covers=("absolute",)),
]

_FLOAT_UNARY = {
    "exp": (-3, 3), "exp2": (-3, 3), "log": (0.1, 5), "log1p": (-0.9, 5), "log2": (0.1, 5), "log10": (0.1, 5),
    "expm1": (-3, 3), "sqrt": (0, 5), "rsqrt": (0.1, 5), "sin": (-3, 3), "cos": (-3, 3), "tan": (-1.2, 1.2),
    "asin": (-1, 1), "acos": (-1, 1), "atan": (-3, 3), "sinh": (-3, 3), "cosh": (-3, 3), "tanh": (-3, 3),
    "asinh": (-3, 3), "acosh": (1, 5), "atanh": (-0.9, 0.9), "sigmoid": (-5, 5), "erf": (-3, 3),
    "erfc": (-3, 3), "erfinv": (-0.9, 0.9), "reciprocal": (0.5, 3), "lgamma": (0.1, 5), "digamma": (0.1, 5),
    "i0": (-3, 3), "sinc": (-3, 3), "deg2rad": (-200, 200), "rad2deg": (-3, 3),
}
_ALIASES = {"asin": ("arcsin",), "acos": ("arccos",), "atan": ("arctan",), "asinh": ("arcsinh",),
            "acosh": ("arccosh",), "atanh": ("arctanh",)}
for _name, (_lo, _hi) in _FLOAT_UNARY.items():
    RECORDS.append(OpRecord(_name, unary_samples(_lo, _hi), FLOAT_IN, inplace=True, out=True,
                            covers=_ALIASES.get(_name, ())))

RECORDS += [
    OpRecord("logit", lambda d: [((Arg((3, 4), d, 0.05, 0.95),), {}), ((Arg((5,), d, 0, 1),), {"eps": 0.1})],
             F_ONLY, inplace=True, out=True),
    OpRecord("atan2", binary_samples(), ("float32", "float64", "int64"), inplace=True, out=True,
             covers=("arctan2",)),
    OpRecord("hypot", binary_samples(), F_ONLY, inplace=True, out=True),
    OpRecord("sign", unary_samples(), REAL, inplace=True, out=True),
    OpRecord("sgn", unary_samples(), ("float32", "int64", "complex64"), inplace=True, out=True),
    OpRecord("floor", unary_samples(), NUMERIC + ("float16",), inplace=True, out=True),
    OpRecord("ceil", unary_samples(), NUMERIC + ("float16",), inplace=True, out=True),
    OpRecord("trunc", unary_samples(), NUMERIC, inplace=True, out=True, covers=("fix",)),
    OpRecord("frac", unary_samples(), F_ONLY, inplace=True, out=True),
    OpRecord("round", lambda d: [((Arg((4, 5), d, -5, 5),), {}), ((Arg((6,), d, -5, 5),), {"decimals": 2}),
                                 ((Arg((6,), d, -500, 500),), {"decimals": -1})],
             ("float32", "float64"), inplace=True, out=True),
    OpRecord("round", lambda d: [((Arg((5,), d, -9, 9),), {})], ("int64",)),
    OpRecord("clamp", lambda d: [((Arg((3, 4), d), -1, 1), {}), ((Arg((3, 4), d), None, 0), {}),
                                 ((Arg((3, 4), d), 1, None), {}), ((Arg((3, 4), d), Arg((4,), d, -2, 0),
                                                                   Arg((3, 1), d, 0, 2)), {}),
                                 ((Arg((5,), d), 2, -2), {}), ((Arg((5,), d), None, None), {})],
             NUMERIC[:4], inplace=True, out=True, covers=("clip",)),
    OpRecord("clamp", lambda d: [((Arg((5,), d), 0.5, 1.5), {})], ("int64",)),
    OpRecord("clamp_min", lambda d: [((Arg((3, 4), d), 0), {})], COMMON[:3], inplace=True, out=True),
    OpRecord("clamp_max", lambda d: [((Arg((3, 4), d), 0), {})], COMMON[:3], inplace=True, out=True),
    OpRecord("lerp", lambda d: [((Arg((3, 4), d), Arg((3, 4), d), 0.3), {}), ((Arg((3, 4), d), Arg((4,), d),
                                                                               Arg((3, 1), d, 0, 1)), {}),
                                ((Arg((3,), d), Arg((3,), d), 0.7), {})], F_ONLY, inplace=True, out=True),
    OpRecord("lerp", lambda d: [((Arg((3,), d), Arg((3,), "float64"), 0.5), {})], ("float32",)),
    OpRecord("maximum", binary_samples(scalars=()), REAL, out=True),
    OpRecord("minimum", binary_samples(scalars=()), REAL, out=True),
    # the method form numbers arguments without self ("position 1"); torchshim shares one front function
    OpRecord("maximum", lambda d: [((Arg((3,), d), 2), {})], ("float32",), msg="must be Tensor, not int"),
    OpRecord("fmax", binary_samples(scalars=()), FLOATS + ("int64",), out=True),
    OpRecord("fmin", binary_samples(scalars=()), FLOATS + ("int64",), out=True),
    OpRecord("copysign", binary_samples(), ("float32", "int64"), inplace=True, out=True),
    OpRecord("xlogy", binary_samples(0, 3, 0.1, 3), F_ONLY, inplace=True, out=True),
    OpRecord("nan_to_num", lambda d: [((Arg((3, 4), d, -1e39, 1e39),), {}),
                                      ((Arg((3, 4), d, -1e39, 1e39),), {"nan": 1.0, "posinf": 9.0,
                                                                         "neginf": -9.0})],
             ("float32",), inplace=True, out=True),
    OpRecord("nan_to_num", unary_samples(), ("int64", "float64"), inplace=True),
]
for _name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"):
    RECORDS.append(OpRecord(_name, unary_samples(-1e39, 1e39), ("float32", "float64")))
    RECORDS.append(OpRecord(_name, unary_samples(), ("int64", "bool")))

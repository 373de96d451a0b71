"""Records for comparisons, logical and bitwise ops, and closeness tests (torchshim/ops/comparison.py).

Inputs come from `V` (values from a small set, so ties and zeros are common; optionally nan/inf/-0.0) and
`Near` (a shared base per seed plus per-operand noise, so closeness tests sit on both sides of the tolerance).
"""
import dataclasses
import operator

import numpy as np
import pytest

import torchshim
from harness import ALL, Arg, OpRecord, check

INTS = ("int64", "int32", "int16", "int8", "uint8")
INTEGRAL = INTS + ("bool",)
SPREAD = ("float32", "int64", "uint8", "int8", "bool", "float16", "bfloat16", "complex64")
NONINT = ("float32", "float64", "float16", "bfloat16", "complex64", "complex128")
BITS = {"int64": 64, "int32": 32, "int16": 16, "int8": 8, "uint8": 8}
WIDE = {"int64": (-2 ** 62, 2 ** 62), "int32": (-2 ** 31, 2 ** 31 - 1), "int16": (-2 ** 15, 2 ** 15 - 1),
        "int8": (-128, 127), "uint8": (0, 255), "bool": (0, 1), "uint16": (0, 2 ** 16 - 1),
        "uint32": (0, 2 ** 32 - 1), "uint64": (0, 2 ** 62)}


@dataclasses.dataclass(frozen=True)
class V(Arg):
    """A tensor with values from a small set: integers in [low, high] (halved for floating dtypes, plus an
    imaginary part for complex), so equal elements and zeros are common. `special` mixes in nan, inf, -inf and
    -0.0 (floating dtypes)."""
    special: bool = False

    def array(self, rng):
        shape, dt = tuple(self.shape), self.dtype
        if dt == "bool":
            return rng.random(shape) < 0.5
        lo = max(int(self.low), 0) if dt.startswith("uint") else int(self.low)
        vals = rng.integers(lo, int(self.high) + 1, size=shape)
        if dt.startswith(("int", "uint")):
            return vals.astype(dt)
        vals = vals * 0.5
        if dt.startswith("complex"):
            vals = vals + 0.5j * rng.integers(lo, int(self.high) + 1, size=shape)
        if self.special:
            pool = np.array([np.nan, np.inf, -np.inf, -0.0])
            vals = np.where(rng.random(shape) < 0.3, pool[rng.integers(0, 4, size=shape)], vals)
        return vals


@dataclasses.dataclass(frozen=True)
class Near(Arg):
    """Base values drawn from `seed` (the same for every Near with that seed, shape and dtype) plus this
    operand's own noise: relative `rel` and absolute `absn` (floating), an offset in [-absn, absn] (integers),
    a flip with probability `rel` (bool). `special` puts nan/inf/-inf at seeded positions (shared) and a few
    operand-specific ones."""
    seed: int = 1
    rel: float = 0.0
    absn: float = 0.0
    special: bool = False
    grid: bool = False  # integer base values in [low, high], the same for every dtype (bool: 0/1)

    def array(self, rng):
        shape, dt = tuple(self.shape), self.dtype
        base_rng = np.random.default_rng(self.seed)
        if self.grid:
            base = base_rng.integers(int(self.low), int(self.high) + 1, size=shape)
            return base.astype(bool) if dt == "bool" else base.astype(dt if not _is_float(dt) else "float64")
        if dt == "bool":
            return (base_rng.random(shape) < 0.5) ^ (rng.random(shape) < self.rel)
        if dt.startswith(("int", "uint")):
            lo, hi = max(int(self.low), WIDE[dt][0]), min(int(self.high), WIDE[dt][1])
            base = base_rng.integers(lo, hi + 1, size=shape)
            off = rng.integers(-int(self.absn), int(self.absn) + 1, size=shape)
            return np.clip(base + off, lo, hi).astype(dt)
        base = base_rng.uniform(self.low, self.high, size=shape)
        if dt.startswith("complex"):
            base = base + 1j * base_rng.uniform(self.low, self.high, size=shape)
        vals = base + base * self.rel * rng.uniform(-1, 1, size=shape) + self.absn * rng.uniform(-1, 1, size=shape)
        if self.special:
            pool = np.array([np.nan, np.inf, -np.inf])
            shared = base_rng.random(shape) < 0.3
            vals = np.where(shared, pool[base_rng.integers(0, 3, size=shape)], vals)
            own = rng.random(shape) < 0.1
            vals = np.where(own, pool[rng.integers(0, 3, size=shape)], vals)
        return vals


def _s(*items):
    """Samples that don't depend on the dtype: each item is (specs, kwargs)."""
    return lambda d: list(items)


def _calls(name, fns, specs, dtypes=("float32",)):
    """One record per callable `fn(T, *inputs)` on the same inputs (error cases, operator forms)."""
    return [OpRecord(name, lambda d, s=specs: [(tuple(x.with_dtype(d) if isinstance(x, Arg) else x for x in s),
                                                 {})], dtypes, call=f) for f in fns]


def _gap(name, reason, fn, specs=(), dtypes=("float32",)):
    """A known gap outside torchshim/ops/comparison.py (listed in the report), as a strict xfail: the torchshim
    side runs the whole differential check itself; a failure xfails the test, a pass fails it (drop the mark)."""
    def call(T, *xs):
        if T is torchshim:
            try:
                check(fn, specs)
            except AssertionError as e:
                pytest.xfail(f"{reason}: {str(e).splitlines()[0]}")
            raise AssertionError(f"known gap closed ({reason}): make this a plain record")
        return fn(T, *xs)
    return OpRecord(name, lambda d: [(specs, {})], dtypes, call=call)


def _is_float(d):
    return d.startswith(("float", "bfloat", "complex"))


def _wide(d, shape, **kw):
    lo, hi = WIDE[d]
    return V(shape, d, lo, hi, **kw)


# ---- comparisons --------------------------------------------------------------------------------------------
_SHAPES = (((3, 4), (3, 4), False), ((3, 4), (4,), False), ((), (3,), False), ((2, 1, 4), (3, 1), False),
           ((0, 3), (3,), False), ((), (), False), ((4, 3), (4, 3), True), ((3, 1), (0,), False))


def _pairs(d, special=None, **kw):
    sp = _is_float(d) if special is None else special
    for a, b, nc in _SHAPES:
        yield (V(a, d, special=sp, noncontig=nc, **kw), V(b, d, special=sp, noncontig=nc, **kw)), {}


def _cmp_samples(scalars):
    def samples(d):
        yield from _pairs(d)
        for s in scalars:
            yield (V((3, 4), d, special=_is_float(d)), s), {}
        yield (V((), d), 1), {}
        yield (V((0,), d), 1.5), {}
    return samples


_SCALARS_FULL = (0, 1, -1, 2.5, 0.5, True, False, float("nan"), float("inf"), -float("inf"), 300, 2 ** 40, 1e300,
                 1e-40, 2 ** 63, np.float32(0.5), np.int64(1))
_SCALARS_SHORT = (0, 2.5, float("nan"), True, 2 ** 63)


def _cmp_complex_scalars(d):
    yield (V((3, 4), d), 1j), {}
    yield (V((3, 4), d), 0.5 + 0j), {}


def _mixed(dtypes):
    """Operands of different dtypes, both dimensioned: (d, e) for every e in dtypes."""
    def samples(d):
        for e in dtypes:
            yield (V((3, 4), d, special=_is_float(d)), V((4,), e, special=_is_float(e))), {}
    return samples


# a dimensioned operand with a 0-dim one of another dtype: the 0-dim one only counts with a higher category
# (float16 with a complex 0-dim operand is ComplexHalf in PyTorch, which torchshim lacks: see the gap records)
_ZERO_DIM = {"uint8": ("int8", "int64", "float64", "bool"), "int8": ("uint8", "int16"), "int32": ("int64", "complex64"),
             "int64": ("float16", "bool", "float64"), "float32": ("float64", "complex128", "int64"),
             "float64": ("complex64", "float32"), "float16": ("float32", "bfloat16", "int64"),
             "bfloat16": ("float16", "complex64", "float64"), "bool": ("int8", "float64", "bool"),
             "complex64": ("float64", "complex128"), "complex128": ("complex64", "int8"), "int16": ("uint8",)}


def _mixed0(d):
    for e in _ZERO_DIM[d]:
        yield (V((3, 4), d, special=_is_float(d)), V((), e, special=_is_float(e))), {}


_CMP = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
        "ge": operator.ge}
_CMP_ALIAS = {"ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}
_REFLECT = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}


def _inplace_scalar(name, s):
    return lambda T, x: getattr(x.clone(), name + "_")(s)


RECORDS = []
for _n, _op in _CMP.items():
    _ordered = _n not in ("eq", "ne")
    RECORDS += [
        # every dtype for eq and lt; the others share their code path, so a spread of dtypes
        OpRecord(_n, _cmp_samples(_SCALARS_FULL if _n in ("eq", "lt") else _SCALARS_SHORT),
                 ALL if _n in ("eq", "lt") else SPREAD, inplace=True, out=True,
                 covers=(_CMP_ALIAS[_n],) if _n in _CMP_ALIAS else ()),
        OpRecord(_n, _cmp_complex_scalars, ("float32", "int64", "complex64", "bool")),
        # mixed dtypes: the full cross product for eq and lt, a spread for the others (one code path)
        OpRecord(_n, _mixed(ALL if _n in ("eq", "lt") else ("float64", "int8", "bool", "complex64")),
                 ALL if _n in ("eq", "lt") else ("uint8", "float16", "bfloat16", "int32", "float32")),
        OpRecord(_n, _mixed0, tuple(_ZERO_DIM) if _n in ("eq", "lt") else ("uint8", "float16", "complex64")),
        # operators, both orders, with tensors and Python scalars (reflected: 2 < t is t > 2)
        OpRecord(_n, lambda d: [((V((3, 4), d), V((3, 4), d)), {}), ((V((3, 4), d), V((4,), d)), {}),
                                ((V((3, 4), d), 1), {}), ((1, V((3, 4), d)), {}), ((0.5, V((3, 1), d)), {}),
                                ((V((), d), V((2, 3), d, noncontig=True)), {}), ((True, V((3,), d)), {})],
                 ("float32", "int64", "bool", "uint8", "float16", "complex64"), call=lambda T, a, b, f=_op: f(a, b)),
        # in-place: the result keeps self's dtype; scalars; broadcasting other; self can't broadcast
        OpRecord(_n, lambda d: [((V((3, 4), d),), {})], ("float32", "int64", "bool", "uint8", "complex64"),
                 call=_inplace_scalar(_n, 1)),
        OpRecord(_n, lambda d: [((V((3, 4), d),), {})], ("float32", "int64", "bool"), call=_inplace_scalar(_n, 0.5)),
        OpRecord(_n, lambda d: [((V((3, 4), d), V((4,), "float64")), {}), ((V((3, 4), d), V((), "int8")), {}),
                                ((V((4,), d), V((3, 4), d)), {}), ((V((3, 4), d, noncontig=True), V((4,), d)), {})],
                 ("float32", "int64", "bool", "uint8"), call=lambda T, a, b, n=_n: getattr(a.clone(), n + "_")(b)),
        # out= of other dtypes (bool casts to anything), wrong-shape out (resized), non-contiguous out
        OpRecord(_n, lambda d: [((V((3, 4), d), V((4,), d)), {"dt": e}) for e in ("float32", "int64", "bool",
                                                                                  "complex64")],
                 ("float32", "int64"), call=lambda T, a, b, dt, n=_n: getattr(T, n)(a, b, out=T.empty(
                     (2,), dtype=getattr(T, dt)))),
        OpRecord(_n, lambda d: [((V((3, 4), d), V((4,), d)), {})], ("float32",),
                 call=lambda T, a, b, n=_n: (lambda o: (getattr(T, n)(a, b, out=o.t()), o))(
                     T.zeros(4, 3, dtype=T.bool))),
        OpRecord(_n, lambda d: [((V((3, 4), d), 1), {})], ("int64",),
                 call=lambda T, a, s, n=_n: getattr(T, n)(a, s, out=T.empty(0, dtype=T.float16))),
        # alias spelled out
        *([OpRecord(_n, lambda d: [((V((3, 4), d), V((4,), d)), {}), ((V((3, 4), d), 1), {})], ("float32", "int64"),
                    call=lambda T, a, b, n=_CMP_ALIAS[_n]: (getattr(T, n)(a, b), getattr(a, n)(b),
                                                            getattr(a.clone(), n + "_")(b)))]
          if _n in _CMP_ALIAS else []),
    ]
    RECORDS += _calls(_n, [
        lambda T, a, b, n=_n: getattr(T, n)(2, a),                # a scalar self is not accepted
        lambda T, a, b, n=_n: getattr(T, n)(2, 3),
        lambda T, a, b, n=_n: getattr(T, n)(a, None),
        lambda T, a, b, n=_n: getattr(T, n)(a, "x"),
        lambda T, a, b, n=_n: getattr(T, n)(a, [1.0, 2.0]),
        lambda T, a, b, n=_n: getattr(T, n)(a, b.reshape(2, 2)),  # broadcast failure
        lambda T, a, b, n=_n: getattr(T, n)(a, b, out=T.empty(0, dtype=T.bool).t()),
        lambda T, a, b, n=_n: getattr(a.reshape(4, 1).clone(), n + "_")(b),  # self can't grow
        lambda T, a, b, f=_op: f(a, None),                        # operators fall back to Python
        lambda T, a, b, f=_op: f(None, a),
        lambda T, a, b, f=_op: f(a, "x"),
        lambda T, a, b, f=_op: f(a, [1.0, 2.0, 3.0, 4.0]),
        lambda T, a, b, f=_op: f(a, 2 ** 63),                     # out of int64 range
        lambda T, a, b, f=_op: f(a.long(), 2 ** 63),
        lambda T, a, b, f=_op: f(a.long(), -2 ** 63 - 1),
        lambda T, a, b, f=_op: f(a.to(T.uint8), 2 ** 64),
    ], (V((4,), "float32"), V((4,), "float32")))
    RECORDS += _calls(_n, [lambda T, a, b, n=_n: getattr(a, n)(None)], (V((4,)), V((4,))))
    if _ordered:  # complex has no order: every way of reaching a complex comparison fails
        RECORDS += [OpRecord(_n, lambda d: [((V((4,), d), V((4,), d), V((4,), "float32")), {})],
                             ("complex64", "complex128"), call=f) for f in (
            lambda T, a, b, r, n=_n: getattr(T, n)(a, b),
            lambda T, a, b, r, n=_n: getattr(T, n)(r, b),
            lambda T, a, b, r, n=_n: getattr(T, n)(a, 1),
            lambda T, a, b, r, n=_n: getattr(T, n)(r, 1j),
            lambda T, a, b, r, f=_op: f(a, b),
            lambda T, a, b, r, f=_op: f(2, a),
            lambda T, a, b, r, f=_op: f(r, 0.5j),
            lambda T, a, b, r, n=_n: getattr(r.clone(), n + "_")(b),
            lambda T, a, b, r, n=_n: getattr(T, n)(r, r, out=T.empty(0, dtype=T.complex64)),
            lambda T, a, b, r, n=_n: getattr(T, n)(a, b.reshape(2, 2)),  # the shape error comes first
        )]

# float16 meeting a complex operand of lower priority (0-dim tensor, Python scalar) is ComplexHalf in PyTorch
_HALF_COMPLEX = ("PyTorch promotes float16 with a lower-priority complex operand to complex32 (ComplexHalf); "
                 "torchshim has no complex32 dtype (_dtype.py/_promotion.py give complex64)")
RECORDS += [
    _gap("eq", _HALF_COMPLEX, lambda T: T.tensor([0.1, 0.5], dtype=T.float16) == (0.1 + 0j)),
    _gap("eq", _HALF_COMPLEX, lambda T: T.tensor([0.1, 0.5], dtype=T.float16) == T.tensor(0.1 + 0j)),
    _gap("lt", _HALF_COMPLEX, lambda T: T.tensor([0.1, 0.5], dtype=T.float16) < T.tensor(0.1 + 0j)),
    _gap("ge", _HALF_COMPLEX, lambda T: T.tensor([0.1, 0.5], dtype=T.float16) >= 1j),
    _gap("logical_and", _HALF_COMPLEX, lambda T: T.logical_and(T.tensor([0.1, 0.0], dtype=T.float16), T.tensor(1j))),
    _gap("eq", _HALF_COMPLEX.replace("float16", "float8").replace("to complex32 (ComplexHalf)", "to an error"),
         lambda T: T.tensor([0.5, 1.0], dtype=T.float8_e4m3fn) == 1j),
    _gap("logical_xor", _HALF_COMPLEX, lambda T: T.logical_xor(T.tensor([0.1, 0.0], dtype=T.float16), T.tensor(1j))),
]

# exact value edge cases: int64 beyond float32/float64 precision, wrapped scalars, -0.0, uint8 vs negatives
RECORDS += _calls("eq", [
    lambda T: T.tensor([2 ** 24 + 1, 2 ** 53 + 1, -(2 ** 31)]) == 16777216.0,
    lambda T: T.tensor([2 ** 24 + 1, 2 ** 53 + 1]) == T.tensor(16777216.0, dtype=T.float64),
    lambda T: T.tensor([2 ** 53 + 1]) == T.tensor([2.0 ** 53], dtype=T.float64),
    lambda T: T.tensor([0, 1, 200], dtype=T.uint8) == -56,
    lambda T: (T.tensor([0, 1, 200], dtype=T.uint8) < -1, T.tensor([0, 1, 200], dtype=T.uint8) > 255),
    lambda T: T.tensor([0, 1, 200], dtype=T.uint8) == T.tensor(-56, dtype=T.int8),
    lambda T: T.tensor([0, 1, 200], dtype=T.uint8) == T.tensor([-56], dtype=T.int8),
    lambda T: T.tensor([-0.0, 0.0]) == T.tensor([0.0, -0.0]),
    lambda T: T.tensor([1, 100], dtype=T.int8) == 356,
    lambda T: (T.tensor([True, False]) == 2, T.tensor([True, False]) == 1.0, T.tensor([True]) < 0.5),
    lambda T: T.tensor([65504.0, 65520.0], dtype=T.float16) == 65519.0,
    lambda T: T.tensor([1.0], dtype=T.bfloat16) == T.tensor([1.00390625], dtype=T.float16),
    lambda T: T.tensor([complex("nan+1j"), 1j]) == T.tensor([complex("nan+1j"), 1j]),
    lambda T: T.tensor([0.1]) == T.tensor([0.1], dtype=T.float64),
    lambda T: (T.tensor([0.1]) == 0.1, T.tensor([0.1]) < 0.1, T.tensor([0.1]) > T.tensor(0.1, dtype=T.float64)),
], ())


# ---- logical ---------------------------------------------------------------------------------------------
def _logical_samples(d):
    yield from _pairs(d, low=-1, high=1)


for _n in ("logical_and", "logical_or", "logical_xor"):
    RECORDS += [
        OpRecord(_n, _logical_samples, ALL if _n == "logical_and" else SPREAD, inplace=True, out=True),
        OpRecord(_n, _mixed(ALL if _n == "logical_and" else ("float64", "int8", "bool", "complex64")),
                 ALL if _n == "logical_and" else ("uint8", "float16", "bfloat16", "float32", "int64")),
        OpRecord(_n, _mixed0, tuple(_ZERO_DIM) if _n == "logical_and" else ("uint8", "float16", "bool")),
        OpRecord(_n, lambda d: [((V((3, 4), d, -1, 1), V((4,), e, -1, 1)), {}) for e in ("float64", "bool", "int8")],
                 ("float32", "int64", "bool", "uint8", "complex64"),
                 call=lambda T, a, b, n=_n: getattr(a.clone(), n + "_")(b)),
        OpRecord(_n, lambda d: [((V((3, 4), d, -1, 1), V((4,), d, -1, 1)), {"dt": e})
                                for e in ("float32", "int64", "uint8", "complex64")],
                 ("float32", "int32"), call=lambda T, a, b, dt, n=_n: getattr(T, n)(a, b, out=T.empty(
                     0, dtype=getattr(T, dt)))),
    ]
    RECORDS += _calls(_n, [
        lambda T, a, b, n=_n: getattr(T, n)(a, 2),
        lambda T, a, b, n=_n: getattr(T, n)(2, a),
        lambda T, a, b, n=_n: getattr(T, n)(a, True),
        lambda T, a, b, n=_n: getattr(T, n)(a, None),
        lambda T, a, b, n=_n: getattr(T, n)(a, b.reshape(2, 2)),
        lambda T, a, b, n=_n: getattr(a.reshape(4, 1).clone(), n + "_")(b),
        # values that become zero only after the cast to the common dtype
        lambda T, a, b, n=_n: getattr(T, n)(T.tensor([1, 1, 0], dtype=T.uint8), T.tensor(256, dtype=T.int16)),
        lambda T, a, b, n=_n: getattr(T, n)(T.tensor([1.0, 0.0]), T.tensor(1e-50, dtype=T.float64)),
        lambda T, a, b, n=_n: getattr(T, n)(T.tensor([1.0, 0.0], dtype=T.float16), T.tensor([1e-8, 1e-8])),
        lambda T, a, b, n=_n: getattr(T, n)(T.tensor([1j, 0j, complex("nan")]), T.tensor([1, 1, 1])),
    ], (V((4,)), V((4,))))
    RECORDS += _calls(_n, [lambda T, a, b, n=_n: getattr(a, n)(2)], (V((4,)), V((4,))))

RECORDS += [
    OpRecord("logical_not", lambda d: [((V(s, d, -1, 1, special=_is_float(d), noncontig=nc),), {})
                                       for s, nc in (((3, 4), False), ((), False), ((0,), False), ((5,), False),
                                                     ((2, 3, 4), True))], ALL, inplace=True, out=True),
    OpRecord("logical_not", lambda d: [((V((3, 4), d, -1, 1),), {"dt": e})
                                       for e in ("float32", "int64", "uint8", "complex64", "float16")],
             ("float32", "int32", "bool"), call=lambda T, a, dt: T.logical_not(a, out=T.empty(
                 0, dtype=getattr(T, dt)))),
]
RECORDS += _calls("logical_not", [
    lambda T, a: T.logical_not(2),
    lambda T, a: T.logical_not(T.tensor([1e-40, 0.0, -0.0, float("nan")])),
    lambda T, a: T.logical_not(T.tensor([1e-40, 0.0], dtype=T.float64).to(T.float16)),
], (V((4,)),))


# ---- bitwise -------------------------------------------------------------------------------------------------
def _bit_samples(d):
    for a, b, nc in _SHAPES:
        yield (_wide(d, a, noncontig=nc), _wide(d, b, noncontig=nc)), {}
    for s in (3, -1, 0, 255, True, False, 2 ** 40):
        yield (_wide(d, (3, 4)), s), {}
    yield (3, _wide(d, (3, 4))), {}
    yield (True, _wide(d, (2, 3), noncontig=True)), {}


_BIT_OPS = {"bitwise_and": (operator.and_, operator.iand), "bitwise_or": (operator.or_, operator.ior),
            "bitwise_xor": (operator.xor, operator.ixor),
            "bitwise_left_shift": (operator.lshift, operator.ilshift),
            "bitwise_right_shift": (operator.rshift, operator.irshift)}


def _iop(f):
    def call(T, a, b):
        y = a.clone()
        z = f(y, b)
        assert z is y, "augmented assignment must return self"
        return y
    return call


def _shift_samples(d):
    bits = BITS[d]
    lo = -3 if d != "uint8" else 0
    for a, b, nc in _SHAPES:
        yield (_wide(d, a, noncontig=nc), V(b, d, lo, bits + 3, noncontig=nc)), {}
    for s in (0, 1, bits - 1, bits, bits + 1, -1, -bits, 100, 2 ** 40, True):
        yield (_wide(d, (3, 4)), s), {}
    for s in (1, -1, 3):
        yield (s, V((3, 4), d, lo, bits + 3)), {}
    yield (V((3, 4), d, lo, bits + 3), V((3, 4), d, 128 if d == "uint8" else -200, 255 if d == "uint8" else 200)), {}


for _n, (_op, _iop_fn) in _BIT_OPS.items():
    _shift = "shift" in _n
    _dts = INTS if _shift else INTEGRAL
    RECORDS += [
        OpRecord(_n, _shift_samples if _shift else _bit_samples, _dts, inplace=True, out=True),
        OpRecord(_n, lambda d, s=_shift, n=_n: [((_wide(d, (3, 4)), V((4,), e, 0, 9) if s else _wide(e, (4,))), {})
                                          for e in INTEGRAL] +
                 [((_wide(d, (3, 4)), V((), e, 0, 9) if s else _wide(e, ())), {})
                  for e in (INTEGRAL if n == "bitwise_and" else ("int8", "int64", "bool"))],
                 INTEGRAL),
        # operators: tensor-tensor, tensor-scalar, reflected scalar-tensor, augmented assignment
        OpRecord(_n, lambda d: [((_wide(d, (3, 4)), V((3, 4), d, 0, 6)), {}), ((_wide(d, (3, 4)), 3), {}),
                                ((5, V((3, 4), d, 0, 6)), {}), ((True, V((4,), d, 0, 6)), {}),
                                ((_wide(d, ()), V((2, 3), d, 0, 6, noncontig=True)), {})],
                 INTEGRAL if not _shift else INTS, call=lambda T, a, b, f=_op: f(a, b)),
        OpRecord(_n, lambda d: [((_wide(d, (3, 4)), V((3, 4), d, 0, 6)), {}), ((_wide(d, (3, 4)), 2), {}),
                                ((_wide(d, (3, 4)), V((4,), "int64", 0, 6)), {}),
                                ((_wide(d, (3, 4)), V((4,), "bool")), {}),
                                ((_wide(d, (3, 4), noncontig=True), V((4,), d, 0, 6)), {})],
                 INTEGRAL if not _shift else INTS, call=_iop(_iop_fn)),
    ]
    RECORDS += _calls(_n, [
        lambda T, a, b, n=_n: getattr(T, n)(a, b),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b),
        lambda T, a, b, n=_n: getattr(T, n)(b, a.to(T.uint8)),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), 2.5),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), 1j),
        lambda T, a, b, n=_n: getattr(T, n)(2.5, a.long()),
        lambda T, a, b, n=_n: getattr(T, n)(a.bool(), 1.0),
        lambda T, a, b, n=_n: getattr(T, n)(a.half(), b.bfloat16()),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b[0].double()),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), None),
        lambda T, a, b, n=_n: getattr(T, n)(2, 3),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b.long().reshape(2, 2)),
        lambda T, a, b, n=_n: getattr(a.long().clone(), n + "_")(2.5),
        lambda T, a, b, n=_n: getattr(a.int().clone(), n + "_")(b.double()),
        lambda T, a, b, n=_n: getattr(a.bool().clone(), n + "_")(b.long()),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b.long(), out=T.empty(0, dtype=T.bool)),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b.long(), out=T.empty(0, dtype=T.float32)),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b.long(), out=T.empty(0, dtype=T.int8)),
        lambda T, a, b, f=_op: f(a, b),
        lambda T, a, b, f=_op: f(2, a),
        lambda T, a, b, f=_op: f(a.long(), 2.5),
        lambda T, a, b, f=_op: f(a.long(), None),
        lambda T, a, b, f=_op: f(None, a.long()),
        lambda T, a, b, f=_op: f(a.long(), [1, 2, 3, 4]),
        lambda T, a, b, f=_op: f(a.long(), "x"),
        lambda T, a, b, f=_iop_fn: _iop(f)(T, a.long(), None),
        lambda T, a, b, f=_iop_fn: _iop(f)(T, a.long(), 2.5),
        lambda T, a, b, f=_iop_fn: _iop(f)(T, a.bool(), 2),
        lambda T, a, b, f=_iop_fn: _iop(f)(T, a.long().reshape(4, 1), b.long()),
        lambda T, a, b, f=_op: f(a.long(), 2 ** 63),
    ], (V((4,), "float32", 0, 4), V((4,), "float32", 0, 4)))
    if _shift:  # shifts take no bool (alone), other bitwise ops do
        RECORDS += _calls(_n, [
            lambda T, a, b, n=_n: getattr(T, n)(a, b),
            lambda T, a, b, n=_n: getattr(T, n)(a, True),
            lambda T, a, b, n=_n: getattr(T, n)(a, 1),
            lambda T, a, b, n=_n: getattr(T, n)(True, b.to(T.uint8)),
            lambda T, a, b, f=_op: f(a, b),
            lambda T, a, b, f=_op: f(a, b.to(T.int8)),
        ], (V((4,), "bool"), V((4,), "bool")), ("bool",))

# exact shift edge cases: sign bits, every amount up to past the width, per dtype
def _shift_table(op):
    def call(T, dt):
        vals = [1, 5, WIDE[dt][0], WIDE[dt][1]] + ([-1] if dt != "uint8" else [128])
        amounts = list(range(0 if dt == "uint8" else -2, BITS[dt] + 3)) + ([127, 128, 200, 255] if dt == "uint8" else [])
        return op(T.tensor([[v] for v in vals], dtype=getattr(T, dt)), T.tensor(amounts, dtype=getattr(T, dt)))
    return call


RECORDS += [
    OpRecord("bitwise_left_shift", lambda d: [((), {"dt": d})], INTS, call=_shift_table(operator.lshift)),
    OpRecord("bitwise_right_shift", lambda d: [((), {"dt": d})], INTS, call=_shift_table(operator.rshift)),
    OpRecord("bitwise_left_shift", lambda d: [((), {"dt": d})], INTS,
             call=lambda T, dt: T.bitwise_left_shift(T.tensor([3, -3] if dt != "uint8" else [3, 200],
                                                              dtype=getattr(T, dt)), 2 ** 40 + 1)),
]

RECORDS += [
    OpRecord("bitwise_not", lambda d: [((_wide(d, s, noncontig=nc),), {})
                                       for s, nc in (((3, 4), False), ((), False), ((0,), False), ((5,), False),
                                                     ((2, 3, 4), True))], INTEGRAL, inplace=True, out=True),
    OpRecord("bitwise_not", lambda d: [((_wide(d, (3, 4)),), {}), ((_wide(d, (2, 3), noncontig=True),), {})],
             INTEGRAL, call=lambda T, a: (~a, a.__invert__())),
    OpRecord("bitwise_not", lambda d: [((_wide(d, (3, 4)),), {"dt": e}) for e in ("int64", "float32", "bool")],
             ("int8", "bool"), call=lambda T, a, dt: T.bitwise_not(a, out=T.empty(0, dtype=getattr(T, dt)))),
    OpRecord("bitwise_not", lambda d: [((V((3, 4), d),), {})], NONINT),
]
RECORDS += _calls("bitwise_not", [
    lambda T, a: ~a,
    lambda T, a: a.bitwise_not_(),
    lambda T, a: T.bitwise_not(a.long(), out=T.empty(0, dtype=T.bool)),
    lambda T, a: T.bitwise_not(2),
    lambda T, a: T.bitwise_not(2.5),
    lambda T, a: T.bitwise_not(None),
], (V((4,)),), ("float32", "complex64", "float16"))


# ---- isclose / allclose / equal ---------------------------------------------------------------------------
def _tol(d):
    """Tolerance kwargs that make about half of Near(rel=2*tol) elements close, per dtype's precision."""
    if d in ("float16", "bfloat16"):
        return {"rtol": 1e-2, "atol": 1e-3}
    if d in ("float32", "complex64"):
        return {"rtol": 1e-5, "atol": 1e-7}
    return {}


def _close_samples(d, allclose=False):
    if d == "bool":
        yield (Near((3, 4), d), Near((3, 4), d, rel=0.3)), {}
        yield (Near((3, 4), d), Near((3, 4), d, rel=0.3)), {"atol": 1}
        yield (Near((3, 4), d), Near((3, 4), d, rel=0.3)), {"atol": 0.5, "rtol": 0}
        yield (Near((3, 4), d), Near((3, 4), d, rel=0.3)), {"atol": 0, "rtol": 0}
        yield (Near((3, 4), d), Near((4,), d)), {"rtol": 2}
        yield (Near((), d), Near((3,), d, noncontig=True)), {}
        return
    if not _is_float(d):
        lo, hi = WIDE[d]
        yield (Near((3, 4), d, lo, hi), Near((3, 4), d, lo, hi, absn=2)), {}
        yield (Near((3, 4), d, lo, hi), Near((3, 4), d, lo, hi, absn=2)), {"atol": 1, "rtol": 0}
        yield (Near((3, 4), d, -100, 100), Near((3, 4), d, -100, 100, absn=3)), {"atol": 1.5, "rtol": 0.01}
        yield (Near((3, 4), d, lo, hi), Near((3, 4), d, lo, hi, absn=1)), {"atol": 0, "rtol": 0}
        yield (Near((4,), d, 0, 50), Near((4,), d, 50, 100)), {"rtol": 1}  # |a-b| vs rtol*|b|
        yield (Near((2, 3, 4), d, lo, hi, noncontig=True), Near((3, 1), d, lo, hi)), {"atol": 2 ** 20}
        yield (Near((0, 3), d), Near((3,), d)), {}
        return
    eps = _tol(d).get("rtol", 1e-5)
    tol = _tol(d)
    sh = (6, 5)
    yield (Near(sh, d), Near(sh, d, rel=2 * eps)), tol
    yield (Near(sh, d), Near(sh, d, rel=2 * eps)), {}
    yield (Near(sh, d), Near(sh, d, rel=0.2)), {"rtol": 0.1, "atol": 0}
    yield (Near(sh, d), Near(sh, d, absn=0.02)), {"rtol": 0, "atol": 0.01}
    yield (Near(sh, d, -1e-3, 1e-3), Near(sh, d, -1e-3, 1e-3, absn=1e-3)), {"atol": 1e-3}
    yield (Near(sh, d), Near(sh, d, rel=eps)), {"rtol": 0, "atol": 0}
    yield (Near(sh, d, special=True), Near(sh, d, rel=eps, special=True)), tol
    yield (Near(sh, d, special=True), Near(sh, d, rel=eps, special=True)), {**tol, "equal_nan": True}
    yield (Near(sh, d, special=True), Near(sh, d, special=True)), {"rtol": 0, "atol": 0, "equal_nan": True}
    yield (Near(sh, d, special=True), Near(sh, d, special=True)), {"rtol": 0, "atol": float("inf")}
    yield (Near((3, 4), d), Near((4,), d)), {"rtol": 0.5}
    yield (Near((), d), Near((3,), d)), {"atol": 1.0}
    yield (Near((0, 3), d), Near((3,), d)), {}
    yield (Near((4, 3), d, noncontig=True), Near((4, 3), d, rel=2 * eps, noncontig=True)), tol
    yield (Near((), d), Near((), d, rel=eps)), tol
    if not allclose:
        yield (Near(sh, d), Near(sh, d, rel=2 * eps)), {"rtol": -1}
        yield (Near(sh, d), Near(sh, d, rel=2 * eps)), {"atol": -1e-9}


def _allclose_samples(d):
    yield from _close_samples(d, allclose=True)
    # results that are True (tiny noise, exact copies, matching nan with equal_nan)
    if _is_float(d):
        eps = _tol(d).get("rtol", 1e-5)
        yield (Near((3, 4), d), Near((3, 4), d, rel=eps / 4)), _tol(d)
        yield (Near((3, 4), d, special=True), Near((3, 4), d, special=True)), {"equal_nan": True}
    yield (Near((3, 4), d), Near((3, 4), d)), {}


RECORDS += [
    OpRecord("isclose", _close_samples, ALL),
    OpRecord("allclose", _allclose_samples, ALL),
]
_CLOSE_ERRORS = [
    lambda T, f, a, b: f(a, b.double()),
    lambda T, f, a, b: f(a.long(), b),
    lambda T, f, a, b: f(a.bool(), b.long()),
    lambda T, f, a, b: f(a.half(), b.bfloat16()),
    lambda T, f, a, b: f(a.to(T.complex64), b),
    lambda T, f, a, b: f(a, 1.0),
    lambda T, f, a, b: f(1.0, b),
    lambda T, f, a, b: f(a, None),
    lambda T, f, a, b: f(a, b.reshape(2, 2)),
    lambda T, f, a, b: f(a, b[:3]),
    lambda T, f, a, b: f(a, b, rtol=-0.5, atol=-1),
    lambda T, f, a, b: f(a, b, 1e-3, 1e-3, True),  # positional tolerances
    lambda T, f, a, b: f(a.to(T.complex64), b.to(T.complex64), equal_nan=True),
    lambda T, f, a, b: f(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0]), rtol=0, atol=0),
    lambda T, f, a, b: f(T.tensor([1, 3], dtype=T.uint8), T.tensor([3, 1], dtype=T.uint8), atol=2, rtol=0),
    lambda T, f, a, b: f(T.tensor([2 ** 24 + 1, 5]), T.tensor([2 ** 24, 6]), atol=0.5, rtol=0),
    lambda T, f, a, b: f(T.tensor([-2 ** 63, 2 ** 62]), T.tensor([2 ** 62, 2 ** 62]), atol=1),
    lambda T, f, a, b: f(T.tensor([65504.0, 1.0], dtype=T.float16), T.tensor([-65504.0, 1.0], dtype=T.float16),
                         atol=1e5, rtol=0),
    lambda T, f, a, b: f(T.tensor([3e38, 1.0]), T.tensor([-3e38, 1.0]), atol=float("inf")),
    lambda T, f, a, b: f(T.tensor([1.0], dtype=T.float16), T.tensor([1.0009765625], dtype=T.float16), atol=0,
                         rtol=0.0009765625 / 1.0009765625 - 1e-9),
    lambda T, f, a, b: f(T.tensor([1.0], dtype=T.bfloat16), T.tensor([1.0078125], dtype=T.bfloat16), atol=1e-9,
                         rtol=0.0078125 / 1.0078125 - 1e-7),
    lambda T, f, a, b: f(T.tensor([1.0, 1.0]), T.tensor([1.0000001, 1.0000002]), atol=1.1920929e-07, rtol=0),
    lambda T, f, a, b: f(T.tensor([1 + 1j, 1j]), T.tensor([1 + 1.00001j, 1.1j]), rtol=1e-5, atol=0),
    lambda T, f, a, b: f(T.tensor([float("inf"), -float("inf"), float("nan")]),
                         T.tensor([float("inf"), float("inf"), 1.0]), atol=float("inf"), rtol=float("inf")),
]
for _n in ("isclose", "allclose"):
    RECORDS += _calls(_n, [lambda T, a, b, g=g, n=_n: g(T, getattr(T, n), a, b) for g in _CLOSE_ERRORS] +
                      [lambda T, a, b, n=_n: getattr(a, n)(b, atol=0.1), lambda T, a, b, n=_n: getattr(a, n)(0.5)],
                      (V((4,)), V((4,))))


def _equal_samples(d):
    yield (Near((3, 4), d), Near((3, 4), d)), {}                     # same values: True
    yield (Near((3, 4), d), Near((3, 4), d, seed=2)), {}             # different: False
    yield (Near((3, 4), d, rel=0.0 if _is_float(d) else 0, absn=0), Near((3, 4), d, noncontig=True)), {}
    yield (Near((3, 4), d), Near((4,), d)), {}                       # no broadcasting: False
    yield (Near((), d), Near((1,), d)), {}
    yield (Near((), d), Near((), d)), {}
    yield (Near((0,), d), Near((0,), d)), {}
    yield (Near((0, 3), d), Near((0,), d)), {}
    yield (Near((2, 3), d, noncontig=True), Near((2, 3), d, noncontig=True)), {}
    if _is_float(d):
        yield (Near((3, 4), d, special=True), Near((3, 4), d, special=True)), {}  # nan != nan
        yield (V((3, 4), d, special=True), V((3, 4), d, special=True)), {}


RECORDS += [
    OpRecord("equal", _equal_samples, ALL),
    # mixed dtypes, equal values (True unless a cast changes a value) and different values
    OpRecord("equal", lambda d: [((Near((2, 3), d, 0, 1 if d == "bool" else 4, grid=True),
                                   Near((2, 3), e, 0, 1 if "bool" in (d, e) else 4, grid=True)), {}) for e in ALL]
             + [((Near((2, 3), d, 0, 4, grid=True), Near((2, 3), e, 0, 4, seed=3, grid=True)), {})
                for e in ("float64", "int8")],
             ("float32", "int64", "bool", "float16", "complex64", "uint8")),
]
RECORDS += _calls("equal", [
    lambda T, a, b: T.equal(a, a),
    lambda T, a, b: T.equal(a, a.clone()),
    lambda T, a, b: T.equal(T.tensor([float("nan")]), T.tensor([float("nan")])),
    lambda T, a, b: (lambda x: T.equal(x, x))(T.tensor([1.0, float("nan")])),
    lambda T, a, b: (lambda x: T.equal(x, x))(T.tensor([1, 2])),
    lambda T, a, b: T.equal(T.tensor([1, 2, 3]), T.tensor([1.0, 2.0, 3.0])),
    lambda T, a, b: T.equal(T.tensor([True, False]), T.tensor([1, 0])),
    lambda T, a, b: T.equal(T.tensor([0.1]), T.tensor([0.1], dtype=T.float64)),
    lambda T, a, b: T.equal(T.tensor([0.5]), T.tensor([0.5 + 0j])),
    lambda T, a, b: T.equal(T.tensor([0, 1, 200], dtype=T.uint8), T.tensor([0, 1, -56], dtype=T.int8)),
    lambda T, a, b: T.equal(T.tensor([-0.0]), T.tensor([0.0])),
    lambda T, a, b: T.equal(T.tensor([2 ** 53 + 1]), T.tensor([2.0 ** 53], dtype=T.float64)),
    lambda T, a, b: T.equal(a, b.t().t()),
    lambda T, a, b: T.equal(a[:, ::2], b[:, ::2].clone()),
    lambda T, a, b: a.equal(b),
    lambda T, a, b: T.equal(a, 1),
    lambda T, a, b: T.equal(1, a),
    lambda T, a, b: T.equal(a, None),
    lambda T, a, b: a.equal([1.0]),
], (V((3, 4)), V((3, 4))))


# ---- PyTorch's barebones unsigned types and float8: eq/ne/equal/isclose and bitwise and/or/xor only ----------
EXOTIC = ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2")


def _exotic(d):
    yield (V((3, 4), d, 0, 3), V((3, 4), d, 0, 3)), {}
    yield (V((3, 4), d, 0, 3), V((4,), d, 0, 3, noncontig=True)), {}
    yield (V((3, 4), d, 0, 3), V((), d, 0, 3)), {}
    for s in (2, 1.5, True, 2 ** 63, -1, 60000) + (() if d.startswith("float8") else (1j,)):
        yield (V((3, 4), d, 0, 3), s), {}
    for e in ("uint8", "int64", "bool", "float32", "float16", "uint16", "float8_e5m2"):
        yield (V((3, 4), d, 0, 3), V((4,), e, 0, 3)), {}
    yield (V((3, 4), d, 0, 3), V((), "int64")), {}
    yield (V((3, 4), d, 0, 3), V((), "float64")), {}


for _n in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_xor", "bitwise_and", "bitwise_or",
           "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"):
    RECORDS.append(OpRecord(_n, _exotic, EXOTIC, inplace=True, out=True))
for _n in ("logical_not", "bitwise_not"):
    RECORDS.append(OpRecord(_n, lambda d: [((V((3, 4), d, 0, 3),), {}), ((V((), d, 0, 3),), {})], EXOTIC,
                            inplace=True, out=True))
RECORDS += [
    OpRecord("bitwise_not", lambda d: [((V((3, 4), d, 0, 3),), {})], EXOTIC, call=lambda T, a: ~a),
    OpRecord("isclose", lambda d: [((Near((3, 4), d, 0, 100, grid=True), Near((3, 4), d, 0, 100, absn=2)), kw)
                                   for kw in ({}, {"atol": 1, "rtol": 0}, {"rtol": 0, "atol": 0},
                                              {"rtol": 0, "atol": 0, "equal_nan": True}, {"rtol": 0.5})],
             EXOTIC),
    OpRecord("allclose", lambda d: [((V((3, 4), d, 0, 3), V((3, 4), d, 0, 3)), {"rtol": 0, "atol": 0}),
                                    ((V((3, 4), d, 0, 3), V((3, 4), d, 0, 3)), {})], EXOTIC),
    OpRecord("equal", lambda d: [((Near((3, 4), d, 0, 3, grid=True), Near((3, 4), d, 0, 3, grid=True)), {}),
                                 ((V((3, 4), d, 0, 3), V((3, 4), d, 0, 3)), {}),
                                 ((V((3, 4), d, 0, 3), V((3, 4), "int64", 0, 3)), {})], EXOTIC),
    OpRecord("equal", lambda d: [((V((3, 4), d, 0, 3),), {})], EXOTIC, call=lambda T, a: T.equal(a, a)),
]
RECORDS += _calls("eq", [
    lambda T: T.tensor([1.0, float("nan"), 448.0]).to(T.float8_e4m3fn) != 448.0,
    lambda T: T.tensor([1.0, float("nan"), float("inf")]).to(T.float8_e5m2) == float("inf"),
    lambda T: T.tensor([1, 2, 60000]).to(T.uint16) == 60000,
    lambda T: T.tensor([1, 2, 2 ** 40]).to(T.uint64) == 2 ** 40,
    lambda T: T.tensor([1, 2, 3]).to(T.uint64) & (2 ** 63 + 1),
], ())


# ---- subnormals: PyTorch compares them exactly (XLA's CPU compares treat them as zero) ---------------------------
def _subnormal(T, dt="float32"):
    tiny = [1e-310, -1e-310, 0.0, -0.0, 5e-324, 2.2e-308] if dt == "float64" else [1e-40, -1e-40, 0.0, -0.0, 1e-45,
                                                                                      1.2e-38]
    return T.tensor(tiny + [float("nan")], dtype=getattr(T, dt))


RECORDS += _calls("gt", [lambda T: (_subnormal(T) > 0, _subnormal(T) < 0, _subnormal(T) >= -0.0)], ())
RECORDS += _calls("eq", [
    lambda T: (_subnormal(T) == 0, _subnormal(T) != 0.0, _subnormal(T) == 1e-40, _subnormal(T) == _subnormal(T)),
    lambda T: _subnormal(T) == _subnormal(T, "float64"),                     # widened exactly
    lambda T: _subnormal(T).unsqueeze(1) == _subnormal(T, "float64")[0],     # narrowed exactly (0-dim float64)
    lambda T: (_subnormal(T, "float64") == 0, _subnormal(T, "bfloat16") == 0, _subnormal(T, "float64") > 0),
    lambda T: T.tensor([1e-40, 0.0]).to(T.complex64) == T.tensor([1e-40j, 0j], dtype=T.complex128),
], ())
RECORDS += _calls("lt", [lambda T: _subnormal(T).unsqueeze(1) < _subnormal(T)], ())
RECORDS += _calls("logical_not", [lambda T: (T.logical_not(_subnormal(T)), T.logical_not(_subnormal(T, "float64")))],
                  ())
RECORDS += _calls("logical_or", [lambda T: T.logical_or(_subnormal(T), T.zeros(7, dtype=T.float64))], ())
RECORDS += _calls("equal", [lambda T: (T.equal(_subnormal(T)[:4], T.zeros(4)),
                                       T.equal(_subnormal(T)[:4], _subnormal(T, "float64")[:4]))], ())
RECORDS += _calls("isclose", [lambda T: T.isclose(_subnormal(T), T.zeros(7), rtol=0, atol=0)], ())


# ---- autograd leaves and aliasing outputs ------------------------------------------------------------------------
RECORDS += _calls("eq", [
    lambda T, a, b: (a == b, a < 0, T.logical_and(a, b), T.isclose(a, b)),
    lambda T, a, b: a.eq_(b),                                # in-place on a leaf that requires grad
    lambda T, a, b: (lambda x, y: (T.lt(x, y, out=x), x))(a.detach().clone(), b.detach()),
    lambda T, a, b: (lambda x: (T.logical_xor(x, 1 - x, out=x), x))(a.detach().clone()),
], (Arg((4,), requires_grad=True), Arg((4,), requires_grad=True)))
RECORDS += _calls("bitwise_and", [
    lambda T, a, b: (lambda x: (T.bitwise_and(x, x.flip(0), out=x), x))(a.long()),
    lambda T, a, b: (lambda x: (T.bitwise_left_shift(x[:2], x[2:], out=x[2:]), x))(b.long()),
], (V((4,), "float32", 0, 4), V((4,), "float32", 0, 4)))
RECORDS += _calls("isclose", [lambda T, a, b: T.isclose(a, b, out=a)], (V((4,)), V((4,))))

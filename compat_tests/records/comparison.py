"""Records for comparisons, logical and bitwise ops, and closeness tests (torchshim/ops/comparison.py).

Inputs come from `V` (values from a small set, so ties and zeros are common; optionally nan/inf/-0.0) and
`Near` (a shared base per seed plus per-operand noise, so closeness tests sit on both sides of the tolerance).
`_calls` records run one callable each (operators, error cases, exact edge values); `_gap` records are known
gaps outside comparison.py, checked like strict xfails.
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
EXOTIC = ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2")  # PyTorch has few kernels for these
BITS = {"int64": 64, "int32": 32, "int16": 16, "int8": 8, "uint8": 8}
WIDE = {"int64": (-2 ** 62, 2 ** 62), "int32": (-2 ** 31, 2 ** 31 - 1), "int16": (-2 ** 15, 2 ** 15 - 1),
        "int8": (-128, 127), "uint8": (0, 255), "bool": (0, 1), "uint16": (0, 2 ** 16 - 1),
        "uint32": (0, 2 ** 32 - 1), "uint64": (0, 2 ** 62)}


def _is_float(d):
    return d.startswith(("float", "bfloat", "complex"))


@dataclasses.dataclass(frozen=True)
class V(Arg):
    """Values from a small set: integers in [low, high] (halved for floating dtypes, plus an imaginary part
    for complex), so ties and zeros are common. `special` mixes in nan, inf, -inf and -0.0."""
    special: bool = False

    def array(self, rng):
        shape, dt = tuple(self.shape), self.dtype
        if dt == "bool":
            return rng.random(shape) < 0.5
        lo = max(int(self.low), 0) if dt.startswith("uint") else int(self.low)
        vals = rng.integers(lo, int(self.high) + 1, size=shape)
        if not _is_float(dt):
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
    """Base values drawn from `seed` (shared by every Near with that seed, shape and dtype) plus this
    operand's noise: relative `rel` and absolute `absn` (floating), an offset in [-absn, absn] (integers), a
    flip with probability `rel` (bool). `special`: nan/inf/-inf at seeded positions plus a few of its own.
    `grid`: integer base values in [low, high], equal across dtypes."""
    seed: int = 1
    rel: float = 0.0
    absn: float = 0.0
    special: bool = False
    grid: bool = False

    def array(self, rng):
        shape, dt = tuple(self.shape), self.dtype
        base_rng = np.random.default_rng(self.seed)
        if self.grid:
            base = base_rng.integers(int(self.low), int(self.high) + 1, size=shape)
            return base.astype(bool) if dt == "bool" else base.astype("float64" if _is_float(dt) else dt)
        if dt == "bool":
            return (base_rng.random(shape) < 0.5) ^ (rng.random(shape) < self.rel)
        if not _is_float(dt):
            lo, hi = max(int(self.low), WIDE[dt][0]), min(int(self.high), WIDE[dt][1])
            off = rng.integers(-int(self.absn), int(self.absn) + 1, size=shape)
            return np.clip(base_rng.integers(lo, hi + 1, size=shape) + off, lo, hi).astype(dt)
        base = base_rng.uniform(self.low, self.high, size=shape)
        if dt.startswith("complex"):
            base = base + 1j * base_rng.uniform(self.low, self.high, size=shape)
        vals = base * (1 + self.rel * rng.uniform(-1, 1, size=shape))
        vals = vals + self.absn * rng.uniform(-1, 1, size=shape)
        if self.special:
            pool = np.array([np.nan, np.inf, -np.inf])
            vals = np.where(base_rng.random(shape) < 0.3, pool[base_rng.integers(0, 3, size=shape)], vals)
            vals = np.where(rng.random(shape) < 0.1, pool[rng.integers(0, 3, size=shape)], vals)
        return vals


def _calls(name, fns, specs=(), dtypes=("float32",)):
    """One record per callable `fn(T, *inputs)` on the same inputs (float32 Args take the record's dtype)."""
    def samples(d):
        return [(tuple(x.with_dtype(d) if isinstance(x, Arg) and x.dtype == "float32" else x
                       for x in specs), {})]
    return [OpRecord(name, samples, dtypes, call=f) for f in fns]


def _gap(name, reason, fn, specs=(), dtypes=("float32",)):
    """A known gap outside torchshim/ops/comparison.py, as a strict xfail: the torchshim side runs the whole
    differential check itself; a failure xfails the case, a pass fails it (drop the mark)."""
    def call(T, *xs):
        if T is torchshim:
            try:
                check(fn, specs)
            except AssertionError as e:
                pytest.xfail(f"{reason}: {str(e).splitlines()[0]}")
            raise AssertionError(f"known gap closed ({reason}): make this a plain record")
        return fn(T, *xs)
    return OpRecord(name, lambda d: [(specs, {})], dtypes, call=call)


def _wide(d, shape, **kw):
    return V(shape, d, *WIDE[d], **kw)


def _iop(f):
    """Augmented assignment (`y &= b`) on a copy of a; it must return the same tensor."""
    def call(T, a, b):
        y = a.clone()
        assert f(y, b) is y, "augmented assignment must return self"
        return y
    return call


# ---- comparisons -------------------------------------------------------------------------------------------
_SHAPES = (((3, 4), (3, 4), False), ((3, 4), (4,), False), ((), (3,), False), ((2, 1, 4), (3, 1), False),
           ((0, 3), (3,), False), ((), (), False), ((4, 3), (4, 3), True), ((3, 1), (0,), False))
_UNARY_SHAPES = (((3, 4), False), ((), False), ((0,), False), ((5,), False), ((2, 3, 4), True))
_SCALARS_FULL = (0, 1, -1, 2.5, 0.5, True, False, float("nan"), float("inf"), -float("inf"), 300, 2 ** 40,
                 1e300, 1e-40, 2 ** 63, np.float32(0.5), np.int64(1))
_SCALARS_SHORT = (0, 2.5, float("nan"), True, 2 ** 63)
# a dimensioned operand with a 0-dim one of another dtype: the 0-dim one only counts with a higher category
# (float16 with a complex 0-dim operand is ComplexHalf in PyTorch, which torchshim lacks: see the gap records)
_ZERO_DIM = {"uint8": ("int8", "int64", "float64", "bool"), "int8": ("uint8", "int16"), "int16": ("uint8",),
             "int32": ("int64", "complex64"), "int64": ("float16", "bool", "float64"),
             "float32": ("float64", "complex128", "int64"), "float64": ("complex64", "float32"),
             "float16": ("float32", "bfloat16", "int64"), "bfloat16": ("float16", "complex64", "float64"),
             "bool": ("int8", "float64", "bool"), "complex64": ("float64", "complex128"),
             "complex128": ("complex64", "int8")}


def _pairs(d, **kw):
    for a, b, nc in _SHAPES:
        yield (V(a, d, special=_is_float(d), noncontig=nc, **kw), V(b, d, special=_is_float(d), noncontig=nc,
                                                                    **kw)), {}


def _cmp_samples(scalars):
    def samples(d):
        yield from _pairs(d)
        for s in scalars:
            yield (V((3, 4), d, special=_is_float(d)), s), {}
        yield (V((), d), 1), {}
        yield (V((0,), d), 1.5), {}
    return samples


def _mixed(dtypes):
    """Both operands dimensioned, (d, e) for every e in dtypes."""
    return lambda d: [((V((3, 4), d, special=_is_float(d)), V((4,), e, special=_is_float(e))), {})
                      for e in dtypes]


def _mixed0(d):
    return [((V((3, 4), d, special=_is_float(d)), V((), e, special=_is_float(e))), {}) for e in _ZERO_DIM[d]]


_CMP = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
        "ge": operator.ge}
_CMP_ALIAS = {"ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}
_OPERAND_PAIRS = lambda d: [  # noqa: E731  operators, both orders (2 < t is t > 2)
    ((V((3, 4), d), V((3, 4), d)), {}), ((V((3, 4), d), V((4,), d)), {}), ((V((3, 4), d), 1), {}),
    ((1, V((3, 4), d)), {}), ((0.5, V((3, 1), d)), {}), ((V((), d), V((2, 3), d, noncontig=True)), {}),
    ((True, V((3,), d)), {})]

RECORDS = []
for _n, _op in _CMP.items():
    _full = _n in ("eq", "lt")  # every dtype and pair for eq and lt; the others share their code path
    RECORDS += [
        OpRecord(_n, _cmp_samples(_SCALARS_FULL if _full else _SCALARS_SHORT), ALL if _full else SPREAD,
                 inplace=True, out=True, covers=(_CMP_ALIAS[_n],) if _n in _CMP_ALIAS else ()),
        OpRecord(_n, lambda d: [((V((3, 4), d), 1j), {}), ((V((3, 4), d), 0.5 + 0j), {})],
                 ("float32", "int64", "complex64", "bool")),
        OpRecord(_n, _mixed(ALL if _full else ("float64", "int8", "bool", "complex64")),
                 ALL if _full else ("uint8", "float16", "bfloat16", "int32", "float32")),
        OpRecord(_n, _mixed0, tuple(_ZERO_DIM) if _full else ("uint8", "float16", "complex64")),
        OpRecord(_n, _OPERAND_PAIRS, ("float32", "int64", "bool", "uint8", "float16", "complex64"),
                 call=lambda T, a, b, f=_op: f(a, b)),
        # in-place: the result keeps self's dtype; scalars; other broadcasts, self can't
        OpRecord(_n, lambda d: [((V((3, 4), d), 1), {}), ((V((3, 4), d), 0.5), {})],
                 ("float32", "int64", "bool", "uint8", "complex64"),
                 call=lambda T, a, s, n=_n: getattr(a.clone(), n + "_")(s)),
        OpRecord(_n, lambda d: [((V((3, 4), d), V((4,), "float64")), {}), ((V((3, 4), d), V((), "int8")), {}),
                                ((V((4,), d), V((3, 4), d)), {}),
                                ((V((3, 4), d, noncontig=True), V((4,), d)), {})],
                 ("float32", "int64", "bool", "uint8"),
                 call=lambda T, a, b, n=_n: getattr(a.clone(), n + "_")(b)),
        # out= of other dtypes (bool casts to anything) and wrong shape (resized), non-contiguous out
        OpRecord(_n, lambda d: [((V((3, 4), d), V((4,), d)), {"dt": e}) for e in ("float32", "int64", "bool",
                                                                                  "complex64", "float16")],
                 ("float32", "int64"),
                 call=lambda T, a, b, dt, n=_n: getattr(T, n)(a, b, out=T.empty((2,), dtype=getattr(T, dt)))),
        OpRecord(_n, lambda d: [((V((3, 4), d), V((4,), d)), {})], ("float32",),
                 call=lambda T, a, b, n=_n: (lambda o: (getattr(T, n)(a, b, out=o.t()), o))(
                     T.zeros(4, 3, dtype=T.bool))),
    ]
    if _n in _CMP_ALIAS:
        RECORDS.append(OpRecord(_n, lambda d: [((V((3, 4), d), V((4,), d)), {}), ((V((3, 4), d), 1), {})],
                                ("float32", "int64"), call=lambda T, a, b, n=_CMP_ALIAS[_n]: (
                                    getattr(T, n)(a, b), getattr(a, n)(b), getattr(a.clone(), n + "_")(b))))
    RECORDS += _calls(_n, [
        lambda T, a, b, n=_n: getattr(T, n)(2, a),  # no (Number, Tensor) form
        lambda T, a, b, n=_n: getattr(T, n)(2, 3),
        lambda T, a, b, n=_n: getattr(T, n)(a, None),
        lambda T, a, b, n=_n: getattr(T, n)(a, "x"),
        lambda T, a, b, n=_n: getattr(T, n)(a, [1.0, 2.0]),
        lambda T, a, b, n=_n: getattr(a, n)(None),
        lambda T, a, b, n=_n: getattr(a, n + "_")([1.0]),
        lambda T, a, b, n=_n: getattr(T, n)(a, b.reshape(2, 2)),
        lambda T, a, b, n=_n: getattr(T, n)(a, b, out=T.empty(0, dtype=T.bool).t()),
        lambda T, a, b, n=_n: getattr(a.reshape(4, 1).clone(), n + "_")(b),
        lambda T, a, b, f=_op: f(a, None),  # operators give way to Python's fallback
        lambda T, a, b, f=_op: f(None, a),
        lambda T, a, b, f=_op: f(a, "x"),
        lambda T, a, b, f=_op: f(a, [1.0, 2.0, 3.0, 4.0]),
        lambda T, a, b, f=_op: (f(a, 2 ** 63), f(a.long(), 2 ** 63), f(a.int(), 2 ** 64 - 1)),  # uint64
        lambda T, a, b, f=_op: f(a.bool(), 2 ** 63),
        lambda T, a, b, f=_op: f(a.long(), -2 ** 63 - 1),
        lambda T, a, b, f=_op: f(a.to(T.uint8), 2 ** 64),
    ], (V((4,)), V((4,))))
    if _n not in ("eq", "ne"):  # complex has no order: every way of reaching a complex comparison fails
        RECORDS += _calls(_n, [
            lambda T, a, b, r, n=_n: getattr(T, n)(a, b),
            lambda T, a, b, r, n=_n: getattr(T, n)(r, b),
            lambda T, a, b, r, n=_n: getattr(T, n)(a, 1),
            lambda T, a, b, r, n=_n: getattr(T, n)(r, 1j),
            lambda T, a, b, r, f=_op: (f(a, b), f(2, a), f(r, 0.5j)),
            lambda T, a, b, r, n=_n: getattr(r.clone(), n + "_")(b),
            lambda T, a, b, r, n=_n: getattr(T, n)(r, r, out=T.empty(0, dtype=T.complex64)),
            lambda T, a, b, r, n=_n: getattr(T, n)(a, b.reshape(2, 2)),  # the shape error comes first
        ], (V((4,)), V((4,)), V((4,), "float64")), ("complex64", "complex128"))

_HALF_COMPLEX = ("PyTorch promotes float16 (float8) with a lower-priority complex operand (0-dim tensor, "
                 "Python scalar) to complex32 (an error); torchshim's _promotion.py gives complex64, it has "
                 "no complex32")
RECORDS += [
    _gap("eq", _HALF_COMPLEX, lambda T: T.tensor([0.1, 0.5], dtype=T.float16) == (0.1 + 0j)),
    _gap("eq", _HALF_COMPLEX, lambda T: T.tensor([0.1, 0.5], dtype=T.float16) == T.tensor(0.1 + 0j)),
    _gap("eq", _HALF_COMPLEX, lambda T: T.tensor([0.5, 1.0], dtype=T.float8_e4m3fn) == 1j),
    _gap("lt", _HALF_COMPLEX, lambda T: T.tensor([0.1, 0.5], dtype=T.float16) < T.tensor(0.1 + 0j)),
    _gap("ge", _HALF_COMPLEX, lambda T: T.tensor([0.1, 0.5], dtype=T.float16) >= 1j),
    _gap("logical_and", _HALF_COMPLEX, lambda T: T.logical_and(T.tensor([0.1, 0.0], dtype=T.float16),
                                                               T.tensor(1j))),
    _gap("logical_xor", _HALF_COMPLEX, lambda T: T.logical_xor(T.tensor([0.1, 0.0], dtype=T.float16),
                                                               T.tensor(1j))),
]

# exact values: int64 beyond float32/float64 precision, wrapped scalars, -0.0, uint8 vs negatives, half
# rounding
RECORDS += _calls("eq", [
    lambda T: T.tensor([2 ** 24 + 1, 2 ** 53 + 1, -(2 ** 31)]) == 16777216.0,
    lambda T: T.tensor([2 ** 24 + 1, 2 ** 53 + 1]) == T.tensor(16777216.0, dtype=T.float64),
    lambda T: T.tensor([2 ** 53 + 1]) == T.tensor([2.0 ** 53], dtype=T.float64),
    lambda T: (T.tensor([0, 1, 200], dtype=T.uint8) == -56, T.tensor([0, 1, 200], dtype=T.uint8) < -1,
               T.tensor([0, 1, 200], dtype=T.uint8) > 255),
    lambda T: T.tensor([0, 1, 200], dtype=T.uint8) == T.tensor(-56, dtype=T.int8),
    lambda T: T.tensor([0, 1, 200], dtype=T.uint8) == T.tensor([-56], dtype=T.int8),
    lambda T: (T.tensor([-0.0, 0.0]) == T.tensor([0.0, -0.0]), T.tensor([1, 100], dtype=T.int8) == 356),
    lambda T: (T.tensor([True, False]) == 2, T.tensor([True, False]) == 1.0, T.tensor([True]) < 0.5),
    lambda T: T.tensor([65504.0, 65520.0], dtype=T.float16) == 65519.0,
    lambda T: T.tensor([1.0], dtype=T.bfloat16) == T.tensor([1.00390625], dtype=T.float16),
    lambda T: T.tensor([complex("nan+1j"), 1j]) == T.tensor([complex("nan+1j"), 1j]),
    lambda T: (T.tensor([0.1]) == T.tensor([0.1], dtype=T.float64), T.tensor([0.1]) == 0.1,
               T.tensor([0.1]) < 0.1, T.tensor([0.1]) > T.tensor(0.1, dtype=T.float64)),
])

# ---- logical ---------------------------------------------------------------------------------------------
for _n in ("logical_and", "logical_or", "logical_xor"):
    _full = _n == "logical_and"
    RECORDS += [
        OpRecord(_n, lambda d: _pairs(d, low=-1, high=1), ALL if _full else SPREAD, inplace=True, out=True),
        OpRecord(_n, _mixed(ALL if _full else ("float64", "int8", "bool", "complex64")),
                 ALL if _full else ("uint8", "float16", "bfloat16", "float32", "int64")),
        OpRecord(_n, _mixed0, tuple(_ZERO_DIM) if _full else ("uint8", "float16", "bool")),
        OpRecord(_n, lambda d: [((V((3, 4), d, -1, 1), V((4,), e, -1, 1)), {})
                                for e in ("float64", "bool", "int8")],
                 ("float32", "int64", "bool", "uint8", "complex64"),
                 call=lambda T, a, b, n=_n: getattr(a.clone(), n + "_")(b)),
        OpRecord(_n, lambda d: [((V((3, 4), d, -1, 1), V((4,), d, -1, 1)), {"dt": e})
                                for e in ("float32", "int64", "uint8", "complex64")], ("float32", "int32"),
                 call=lambda T, a, b, dt, n=_n: getattr(T, n)(a, b, out=T.empty(0, dtype=getattr(T, dt)))),
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
    # the method form numbers arguments without self ("position 1"), the in-place form is named `<op>_`
    RECORDS += _calls(_n, [lambda T, a, b, n=_n: getattr(a, n)(2),
                           lambda T, a, b, n=_n: getattr(a, n + "_")(2)], (V((4,)), V((4,))))

RECORDS += [
    OpRecord("logical_not", lambda d: [((V(s, d, -1, 1, special=_is_float(d), noncontig=nc),), {})
                                       for s, nc in _UNARY_SHAPES], ALL, inplace=True, out=True),
    OpRecord("logical_not", lambda d: [((V((3, 4), d, -1, 1),), {"dt": e})
                                       for e in ("float32", "int64", "uint8", "complex64", "float16")],
             ("float32", "int32", "bool"),
             call=lambda T, a, dt: T.logical_not(a, out=T.empty(0, dtype=getattr(T, dt)))),
]
RECORDS += _calls("logical_not", [
    lambda T, a: T.logical_not(2),
    lambda T, a: T.logical_not(T.tensor([1e-40, 0.0, -0.0, float("nan")])),
    lambda T, a: T.logical_not(T.tensor([1e-40, 0.0], dtype=T.float64).to(T.float16)),
], (V((4,)),))


# ---- bitwise -----------------------------------------------------------------------------------------------
def _bit_samples(d):
    for a, b, nc in _SHAPES:
        yield (_wide(d, a, noncontig=nc), _wide(d, b, noncontig=nc)), {}
    for s in (3, -1, 0, 255, True, False, 2 ** 40):
        yield (_wide(d, (3, 4)), s), {}
    yield (3, _wide(d, (3, 4))), {}
    yield (True, _wide(d, (2, 3), noncontig=True)), {}


def _shift_samples(d):
    """Shift amounts: negative, zero, up to and past the width (uint8: 'negative' is >= 128)."""
    bits, lo = BITS[d], (-3 if d != "uint8" else 0)
    for a, b, nc in _SHAPES:
        yield (_wide(d, a, noncontig=nc), V(b, d, lo, bits + 3, noncontig=nc)), {}
    for s in (0, 1, bits - 1, bits, bits + 1, -1, -bits, 100, 2 ** 40, True):
        yield (_wide(d, (3, 4)), s), {}
    for s in (1, -1, 3):
        yield (s, V((3, 4), d, lo, bits + 3)), {}
    yield (V((3, 4), d, lo, bits + 3), V((3, 4), d, *((128, 255) if d == "uint8" else (-200, 200)))), {}


def _shift_table(op):
    """Every value class against every shift amount from -2 to past the width."""
    def call(T, dt):
        vals = [1, 5, *WIDE[dt], -1 if dt != "uint8" else 128]
        amounts = list(range(0 if dt == "uint8" else -2, BITS[dt] + 3))
        amounts += [127, 128, 200, 255] if dt == "uint8" else []
        return op(T.tensor([[v] for v in vals], dtype=getattr(T, dt)),
                  T.tensor(amounts, dtype=getattr(T, dt)))
    return call


_BIT_OPS = {"bitwise_and": (operator.and_, operator.iand), "bitwise_or": (operator.or_, operator.ior),
            "bitwise_xor": (operator.xor, operator.ixor),
            "bitwise_left_shift": (operator.lshift, operator.ilshift),
            "bitwise_right_shift": (operator.rshift, operator.irshift)}
for _n, (_op, _iop_fn) in _BIT_OPS.items():
    _shift = "shift" in _n
    _dts = INTS if _shift else INTEGRAL
    RECORDS += [
        OpRecord(_n, _shift_samples if _shift else _bit_samples, _dts, inplace=True, out=True),
        OpRecord(_n, lambda d, s=_shift, n=_n: [
            ((_wide(d, (3, 4)), V(sh, e, 0, 9) if s else _wide(e, sh)), {})
            for sh, es in (((4,), INTEGRAL), ((), INTEGRAL if n == "bitwise_and" else ("int8", "int64",
                                                                                         "bool")))
            for e in es], INTEGRAL),
        # operators: tensor-tensor, tensor-scalar, reflected scalar-tensor, augmented assignment
        OpRecord(_n, lambda d: [((_wide(d, (3, 4)), V((3, 4), d, 0, 6)), {}), ((_wide(d, (3, 4)), 3), {}),
                                ((5, V((3, 4), d, 0, 6)), {}), ((True, V((4,), d, 0, 6)), {}),
                                ((_wide(d, ()), V((2, 3), d, 0, 6, noncontig=True)), {})],
                 _dts, call=lambda T, a, b, f=_op: f(a, b)),
        OpRecord(_n, lambda d: [((_wide(d, (3, 4)), V((3, 4), d, 0, 6)), {}), ((_wide(d, (3, 4)), 2), {}),
                                ((_wide(d, (3, 4)), V((4,), "int64", 0, 6)), {}),
                                ((_wide(d, (3, 4)), V((4,), "bool")), {}),
                                ((_wide(d, (3, 4), noncontig=True), V((4,), d, 0, 6)), {})],
                 _dts, call=_iop(_iop_fn)),
    ]
    RECORDS += _calls(_n, [
        lambda T, a, b, n=_n: getattr(T, n)(a, b),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b),
        lambda T, a, b, n=_n: getattr(T, n)(b, a.to(T.uint8)),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), 2.5),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), 1j),
        lambda T, a, b, n=_n: getattr(T, n)(2.5, a.long()),
        lambda T, a, b, n=_n: getattr(T, n)(a.bool(), 1.0),
        lambda T, a, b, n=_n: getattr(T, n)(a.half(), b.bfloat16()),  # Half and BFloat16 make Float
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b[0].double()),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), None),
        lambda T, a, b, n=_n: getattr(T, n)(None, a.long()),
        lambda T, a, b, n=_n: getattr(T, n)(2, 3),
        lambda T, a, b, n=_n: getattr(a.long(), n)(None),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b.long().reshape(2, 2)),
        lambda T, a, b, n=_n: getattr(a.long().clone(), n + "_")(2.5),  # cast check before the kernel's
        lambda T, a, b, n=_n: getattr(a.int().clone(), n + "_")(b.double()),
        lambda T, a, b, n=_n: getattr(a.bool().clone(), n + "_")(b.long()),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b.long(), out=T.empty(0, dtype=T.bool)),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b.long(), out=T.empty(0, dtype=T.float32)),
        lambda T, a, b, n=_n: getattr(T, n)(a.long(), b.long(), out=T.empty(0, dtype=T.int8)),
        lambda T, a, b, n=_n: getattr(T, n)(a, b, out=T.empty(0, dtype=T.int64)),
        lambda T, a, b, f=_op: (f(a.long(), 2 ** 63), f(a.int(), 2 ** 64 - 1)),
        lambda T, a, b, f=_op: f(a.long(), 2 ** 64),
        lambda T, a, b, f=_op: f(a.bool(), 2 ** 63),
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
    ], (V((4,), "float32", 0, 4), V((4,), "float32", 0, 4)))
    if _shift:  # shifts take no bool (alone), the other bitwise ops do
        RECORDS += _calls(_n, [
            lambda T, a, b, n=_n: getattr(T, n)(a, b),
            lambda T, a, b, n=_n: getattr(T, n)(a, True),
            lambda T, a, b, n=_n: getattr(T, n)(a, 1),
            lambda T, a, b, n=_n: getattr(T, n)(True, b.to(T.uint8)),
            lambda T, a, b, f=_op: (f(a, b.to(T.int8)), f(a, b)),
        ], (V((4,), "bool"), V((4,), "bool")), ("bool",))
        RECORDS += [OpRecord(_n, lambda d: [((), {"dt": d})], INTS, call=_shift_table(_op)),
                    OpRecord(_n, lambda d: [((), {"dt": d})], INTS, call=lambda T, dt, f=_op: f(T.tensor(
                        [3, -3] if dt != "uint8" else [3, 200], dtype=getattr(T, dt)), 2 ** 40 + 1))]

RECORDS += [
    OpRecord("bitwise_not", lambda d: [((_wide(d, s, noncontig=nc),), {}) for s, nc in _UNARY_SHAPES],
             INTEGRAL, inplace=True, out=True),
    OpRecord("bitwise_not", lambda d: [((_wide(d, (3, 4)),), {}), ((_wide(d, (2, 3), noncontig=True),), {})],
             INTEGRAL, call=lambda T, a: (~a, a.__invert__())),
    # out= must have the input's dtype
    OpRecord("bitwise_not", lambda d: [((_wide(d, (3, 4)),), {"dt": e})
                                       for e in ("int64", "float32", "bool")],
             ("int8", "bool"), call=lambda T, a, dt: T.bitwise_not(a, out=T.empty(0, dtype=getattr(T, dt)))),
    OpRecord("bitwise_not", lambda d: [((V((3, 4), d),), {})], NONINT),
]
RECORDS += _calls("bitwise_not", [
    lambda T, a: ~a,
    lambda T, a: a.bitwise_not_(),
    lambda T, a: T.bitwise_not(a.long(), out=T.empty(0, dtype=T.bool)),
    lambda T, a: T.bitwise_not(a, out=T.empty(0, dtype=T.int64)),
    lambda T, a: T.bitwise_not(2),
    lambda T, a: T.bitwise_not(2.5),
    lambda T, a: T.bitwise_not(None),
], (V((4,)),), ("float32", "complex64", "float16"))


# ---- isclose / allclose / equal ---------------------------------------------------------------------------
def _tol(d):
    """Tolerances that make about half of Near(rel=2*rtol) elements close, per dtype's precision."""
    return {"float16": {"rtol": 1e-2, "atol": 1e-3}, "bfloat16": {"rtol": 1e-2, "atol": 1e-3},
            "float32": {"rtol": 1e-5, "atol": 1e-7}, "complex64": {"rtol": 1e-5, "atol": 1e-7}}.get(d, {})


def _close_samples(d, allclose=False):
    if d == "bool":
        for kw in ({}, {"atol": 1}, {"atol": 0.5, "rtol": 0}, {"atol": 0, "rtol": 0}):
            yield (Near((3, 4), d), Near((3, 4), d, rel=0.3)), kw
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
    tol, sh = _tol(d), (6, 5)
    eps = tol.get("rtol", 1e-5)
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
    if allclose:  # results that are True: tiny noise, matching nan with equal_nan
        yield (Near((3, 4), d), Near((3, 4), d, rel=eps / 4)), tol
        yield (Near((3, 4), d, special=True), Near((3, 4), d, special=True)), {"equal_nan": True}
    else:
        yield (Near(sh, d), Near(sh, d, rel=2 * eps)), {"rtol": -1}
        yield (Near(sh, d), Near(sh, d, rel=2 * eps)), {"atol": -1e-9}


def _close_ops(d):
    return [((Near((3, 4), d, 0, 100, grid=True), Near((3, 4), d, 0, 100, absn=2)), kw)
            for kw in ({}, {"atol": 1, "rtol": 0}, {"rtol": 0, "atol": 0},
                       {"rtol": 0, "atol": 0, "equal_nan": True}, {"rtol": 0.5})]


RECORDS += [
    OpRecord("isclose", _close_samples, ALL),
    OpRecord("allclose", lambda d: [*_close_samples(d, True), ((Near((3, 4), d), Near((3, 4), d)), {})], ALL),
    OpRecord("isclose", _close_ops, EXOTIC),
    OpRecord("allclose", _close_ops, EXOTIC),
]
_CLOSE_CASES = [
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
    lambda T, f, a, b: f(a, b, out=a),
    lambda T, f, a, b: f(a.to(T.complex64), b.to(T.complex64), equal_nan=True),
    lambda T, f, a, b: f(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0]), rtol=0, atol=0),
    lambda T, f, a, b: f(T.tensor([1, 3], dtype=T.uint8), T.tensor([3, 1], dtype=T.uint8), atol=2, rtol=0),
    lambda T, f, a, b: f(T.tensor([2 ** 24 + 1, 5]), T.tensor([2 ** 24, 6]), atol=0.5, rtol=0),
    lambda T, f, a, b: f(T.tensor([-2 ** 63, 2 ** 62]), T.tensor([2 ** 62, 2 ** 62]), atol=1),
    lambda T, f, a, b: f(T.tensor([65504.0, 1.0], dtype=T.float16),
                         T.tensor([-65504.0, 1.0], dtype=T.float16), atol=1e5, rtol=0),  # overflows
    lambda T, f, a, b: f(T.tensor([3e38, 1.0]), T.tensor([-3e38, 1.0]), atol=float("inf")),
    # each step rounds to half/bfloat16, as PyTorch's ops do
    lambda T, f, a, b: f(T.tensor([1.0], dtype=T.float16), T.tensor([1.0009765625], dtype=T.float16), atol=0,
                         rtol=0.0009765625 / 1.0009765625 - 1e-9),
    lambda T, f, a, b: f(T.tensor([1.0], dtype=T.bfloat16), T.tensor([1.0078125], dtype=T.bfloat16),
                         atol=1e-9, rtol=0.0078125 / 1.0078125 - 1e-7),
    lambda T, f, a, b: f(T.tensor([1.0, 1.0]), T.tensor([1.0000001, 1.0000002]), atol=1.1920929e-07, rtol=0),
    lambda T, f, a, b: f(T.tensor([1 + 1j, 1j]), T.tensor([1 + 1.00001j, 1.1j]), rtol=1e-5, atol=0),
    lambda T, f, a, b: f(T.tensor([float("inf"), -float("inf"), float("nan")]),
                         T.tensor([float("inf"), float("inf"), 1.0]), atol=float("inf"), rtol=float("inf")),
]
for _n in ("isclose", "allclose"):
    RECORDS += _calls(_n, [lambda T, a, b, g=g, n=_n: g(T, getattr(T, n), a, b) for g in _CLOSE_CASES] +
                      [lambda T, a, b, n=_n: getattr(a, n)(b, atol=0.1),
                       lambda T, a, b, n=_n: getattr(a, n)(0.5)],
                      (V((4,)), V((4,))))


def _equal_samples(d):
    yield (Near((3, 4), d), Near((3, 4), d)), {}  # same values: True
    yield (Near((3, 4), d), Near((3, 4), d, seed=2)), {}
    yield (Near((3, 4), d), Near((3, 4), d, noncontig=True)), {}
    yield (Near((3, 4), d), Near((4,), d)), {}  # no broadcasting: False
    for a, b in (((), (1,)), ((), ()), ((0,), (0,)), ((0, 3), (0,))):
        yield (Near(a, d), Near(b, d)), {}
    yield (Near((2, 3), d, noncontig=True), Near((2, 3), d, noncontig=True)), {}
    if _is_float(d):
        yield (Near((3, 4), d, special=True), Near((3, 4), d, special=True)), {}  # nan != nan
        yield (V((3, 4), d, special=True), V((3, 4), d, special=True)), {}


RECORDS += [
    OpRecord("equal", _equal_samples, ALL),
    # mixed dtypes: equal values (True unless a cast changes one), different values
    OpRecord("equal", lambda d: [((Near((2, 3), d, 0, 1 if d == "bool" else 4, grid=True),
                                   Near((2, 3), e, 0, 1 if "bool" in (d, e) else 4, grid=True)), {})
                                 for e in ALL]
             + [((Near((2, 3), d, 0, 4, grid=True), Near((2, 3), e, 0, 4, seed=3, grid=True)), {})
                for e in ("float64", "int8")], ("float32", "int64", "bool", "float16", "complex64", "uint8")),
    OpRecord("equal", lambda d: [((Near((3, 4), d, 0, 3, grid=True), Near((3, 4), d, 0, 3, grid=True)), {}),
                                 ((V((3, 4), d, 0, 3), V((3, 4), d, 0, 3)), {}),
                                 ((V((3, 4), d, 0, 3), V((3, 4), "int64", 0, 3)), {})], EXOTIC),
    OpRecord("equal", lambda d: [((V((3, 4), d, 0, 3),), {})], EXOTIC, call=lambda T, a: T.equal(a, a)),
]
RECORDS += _calls("equal", [
    lambda T, a, b: (T.equal(a, a), T.equal(a, a.clone()), T.equal(a, b.t().t()), a.equal(b)),
    lambda T, a, b: T.equal(a[:, ::2], b[:, ::2].clone()),
    lambda T, a, b: (T.equal(T.tensor([float("nan")]), T.tensor([float("nan")])),
                     (lambda x: T.equal(x, x))(T.tensor([1.0, float("nan")])), (lambda x: T.equal(x, x))(
                         T.tensor([1, 2]))),
    lambda T, a, b: (T.equal(T.tensor([1, 2, 3]), T.tensor([1.0, 2.0, 3.0])),
                     T.equal(T.tensor([True, False]), T.tensor([1, 0])),
                     T.equal(T.tensor([0.1]), T.tensor([0.1], dtype=T.float64)),
                     T.equal(T.tensor([0.5]), T.tensor([0.5 + 0j])),
                     T.equal(T.tensor([-0.0]), T.tensor([0.0])),
                     T.equal(T.tensor([2 ** 53 + 1]), T.tensor([2.0 ** 53], dtype=T.float64))),
    lambda T, a, b: T.equal(T.tensor([0, 1, 200], dtype=T.uint8), T.tensor([0, 1, -56], dtype=T.int8)),
    lambda T, a, b: T.equal(a, 1),
    lambda T, a, b: T.equal(1, a),
    lambda T, a, b: T.equal(a, None),
    lambda T, a, b: a.equal([1.0]),
], (V((3, 4)), V((3, 4))))


# ---- PyTorch's barebones unsigned types and float8: few kernels (eq/ne, and/or/xor for the unsigned ones) --
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


for _n in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_xor", *_BIT_OPS):
    RECORDS.append(OpRecord(_n, _exotic, EXOTIC, inplace=True, out=True))
for _n in ("logical_not", "bitwise_not"):
    RECORDS.append(OpRecord(_n, lambda d: [((V((3, 4), d, 0, 3),), {}), ((V((), d, 0, 3),), {})], EXOTIC,
                            inplace=True, out=True))
RECORDS.append(OpRecord("bitwise_not", lambda d: [((V((3, 4), d, 0, 3),), {})], EXOTIC, call=lambda T, a: ~a))
RECORDS += _calls("eq", [
    lambda T: T.tensor([1.0, float("nan"), 448.0]).to(T.float8_e4m3fn) != 448.0,
    lambda T: T.tensor([1.0, float("nan"), float("inf")]).to(T.float8_e5m2) == float("inf"),
    lambda T: (T.tensor([1, 2, 60000]).to(T.uint16) == 60000,
               T.tensor([1, 2, 2 ** 40]).to(T.uint64) == 2 ** 40),
    lambda T: T.tensor([1, 2, 3]).to(T.uint64) & (2 ** 63 + 1),
])


# ---- subnormals: PyTorch compares them exactly (XLA's CPU compares and casts treat them as zero) -----------
def _sub(T, dt="float32"):
    tiny = ([1e-310, -1e-310, 0.0, -0.0, 5e-324, 2.2e-308] if dt == "float64" else
            [1e-40, -1e-40, 0.0, -0.0, 1e-45, 1.2e-38])
    return T.tensor(tiny + [float("nan")], dtype=getattr(T, dt))


RECORDS += _calls("gt", [lambda T: (_sub(T) > 0, _sub(T) < 0, _sub(T) >= -0.0)])
RECORDS += _calls("lt", [lambda T: _sub(T).unsqueeze(1) < _sub(T)])
RECORDS += _calls("eq", [
    lambda T: (_sub(T) == 0, _sub(T) != 0.0, _sub(T) == 1e-40, _sub(T) == _sub(T)),
    lambda T: _sub(T) == _sub(T, "float64"),  # float32 widened exactly
    lambda T: _sub(T).unsqueeze(1) == _sub(T, "float64")[0],  # a 0-dim float64 narrowed exactly
    lambda T: (_sub(T, "float64") == 0, _sub(T, "bfloat16") == 0, _sub(T, "float64") > 0),
    lambda T: T.tensor([1e-40, 0.0]).to(T.complex64) == T.tensor([1e-40j, 0j], dtype=T.complex128),
])
RECORDS += _calls("logical_not", [lambda T: (T.logical_not(_sub(T)), T.logical_not(_sub(T, "float64")))])
RECORDS += _calls("logical_or", [lambda T: T.logical_or(_sub(T), T.zeros(7, dtype=T.float64))])
RECORDS += _calls("equal", [lambda T: (T.equal(_sub(T)[:4], T.zeros(4)),
                                       T.equal(_sub(T)[:4], _sub(T, "float64")[:4]))])
RECORDS += _calls("isclose", [lambda T: T.isclose(_sub(T), T.zeros(7), rtol=0, atol=0)])

# ---- autograd leaves and outputs aliasing inputs -----------------------------------------------------------
RECORDS += _calls("eq", [
    lambda T, a, b: (a == b, a < 0, T.logical_and(a, b), T.isclose(a, b)),
    lambda T, a, b: a.eq_(b),  # in-place on a leaf that requires grad
    lambda T, a, b: (lambda x, y: (T.lt(x, y, out=x), x))(a.detach().clone(), b.detach()),
    lambda T, a, b: (lambda x: (T.logical_xor(x, 1 - x, out=x), x))(a.detach().clone()),
], (Arg((4,), requires_grad=True), Arg((4,), requires_grad=True)))
RECORDS += _calls("bitwise_and", [
    lambda T, a, b: (lambda x: (T.bitwise_and(x, x.flip(0), out=x), x))(a.long()),
    lambda T, a, b: (lambda x: (T.bitwise_left_shift(x[:2], x[2:], out=x[2:]), x))(b.long()),
], (V((4,), "float32", 0, 4), V((4,), "float32", 0, 4)))

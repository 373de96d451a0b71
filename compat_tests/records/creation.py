"""Records for creation ops (torchshim/ops/creation.py, tensor_data.py, ranges.py).

Each case is an expression (compiled by `_fn`) with `T` the library, `x`, `y` its inputs and `dt` the swept
dtype; `_group` makes a record of such calls, `_sweep` runs them for every dtype. `empty*` values are
uninitialised, so those calls return only `_meta` (shape, dtype, stride, requires_grad); `_st` adds strides,
`_w` returns the warnings, `_dflt` runs under another default dtype (restored), `_o` passes a fresh `out=`
tensor, `_xf` marks a known gap."""
import re
import warnings

import numpy as np
import pytest

import torchshim
from harness import ALL, Arg, OpRecord

F = ("float32",)
NP_DTYPES = ("float64", "float32", "float16", "complex64", "complex128", "int64", "int32", "int16", "int8",
             "uint8", "uint16", "uint32", "uint64", "bool")


def _meta(t):
    return t.shape, t.dtype, t.stride(), t.requires_grad


def _st(t):
    return t, t.stride()


def _np(shape, dt, lo=-3, hi=5):
    return (np.arange(int(np.prod(shape))) % (hi - lo) + lo).reshape(shape).astype(dt)


def _dflt(T, name, thunk):
    """thunk() with T's default dtype set to `name`, then restored."""
    old = T.get_default_dtype()
    T.set_default_dtype(getattr(T, name))
    try:
        return thunk()
    finally:
        T.set_default_dtype(old)


def _w(thunk):
    """(thunk(), the first lines of the warnings it raised)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = thunk()
    return r, [re.sub(r"\s*\(Triggered internally at .*", "", str(m.message)).splitlines()[0] for m in w]


def _o(T, fn, dtype="float32", shape=(0,), view=None, meta=False):
    """fn(out) with a fresh out tensor -> (result is out, out (or its _meta), out's stride)."""
    o = T.ones(*shape, dtype=getattr(T, dtype))
    o = view(o) if view else o
    r = fn(o)
    return r is o, _meta(o) if meta else o, o.stride()


def _xf(T, reason, thunk):
    """A known gap: torch's run is still checked; torchshim's run marks the case xfail."""
    if T is torchshim:
        pytest.xfail(reason)
    return thunk()


_EMPTY_NP = ("numpy's strides of empty arrays (often all 0) are not kept: torchshim makes them contiguous, "
             "as _view.has_overlap would read stride 0 as overlap")
_NS = dict(_EMPTY_NP=_EMPTY_NP, np=np, nan=float("nan"), inf=float("inf"), A=Arg, _meta=_meta, _st=_st,
           _np=_np, _dflt=_dflt, _w=_w, _o=_o, _xf=_xf, NP_DTYPES=NP_DTYPES)


def _fn(expr):
    return eval(f"lambda T, x=None, y=None, dt=None: {expr}", _NS)  # noqa: S307  (the records' own text)


def _specs(item):
    """(expr, input specs) of a `_group` item: `expr` or `(expr, spec, ...)`."""
    return (item, ()) if isinstance(item, str) else (item[0], tuple(item[1:]))


def _group(name, items):
    """One record of calls; items are `expr` or `(expr, *input specs)`."""
    items = [(_fn(e), s) for e, s in map(_specs, items)]
    return OpRecord(name, lambda d: [((k,) + s, {}) for k, (_, s) in enumerate(items)], F,
                    call=lambda T, k, *xs: items[k][0](T, *xs), method=False)


def _sweep(name, items, dtypes=ALL):
    """One record run for each dtype: items are `expr` or `(expr, "specs")`, the specs an expression of the
    dtype name `d` (e.g. "A((2, 3), d)"); `dt` in expr is T's dtype."""
    items = [(_fn(e), s[0] if s else None) for e, s in map(_specs, items)]

    def samples(d):
        return [((k, d) + (eval(f"({s},)", _NS, {"d": d}) if s else ()), {})
                for k, (_, s) in enumerate(items)]
    return OpRecord(name, samples, dtypes, call=lambda T, k, d, *xs: items[k][0](T, *xs, dt=getattr(T, d)),
                    method=False)


# ---- tensor ------------------------------------------------------------------------------------------------
RECORDS = [
    _sweep("tensor", [f"T.tensor({v}, dtype=dt)" for v in (
        "[[1, 2], [3, 4]]", "[1.5, -2.25, 0.0, 7.75]", "[True, False]", "3", "-1", "[]", "[[1 + 2j]]",
        "[1e40]", "[300]", "[-1]", "[-256]", "[2 ** 40]", "[nan]", "[inf, -inf]", "[[1, 2.5], [True, -3]]",
        "_np((2, 3), 'int64')", "np.array([1.5, -0.5, 2.75, nan])", "np.array([True, False])")]
        + [("T.tensor([x, x], dtype=dt)", "A((), d)"), ("T.tensor(x, dtype=dt)",
        "A((2, 3), d, noncontig=True)")]),
    _group("tensor", [f"T.tensor({v})" for v in (
        "3", "2.5", "True", "1 + 2j", "-0.0", "[1, 2]", "[1, 2.5]", "[True, False]", "[True, 2]",
        "[True, 2.5]", "[1, 2j]", "[[1, 2], [3, 4]]", "[[1, 2.5], [True, 3]]", "[]", "[[]]", "[[], []]",
        "(1, 2, 3)", "range(3)", "[range(2), range(2)]", "[[[1], [2]], [[3], [4]]]", "((1.5,), [2])",
        "np.float64(1.5)", "np.float32(2.5)", "np.int32(3)", "np.int16(-2)", "np.uint8(7)", "np.bool_(True)",
        "np.complex64(1 + 1j)", "[np.float64(1), 2]", "[np.int32(1), np.int8(2)]", "[np.float16(1), 2]",
        "[np.uint8(3), np.int8(-1)]", "[np.uint8(3), True]", "[np.complex64(1 + 1j), np.float64(2.0)]",
        "[1j, np.float64(2)]", "[np.zeros(0, dtype=np.int16)]", "[2 ** 63 - 1, -2 ** 63]",
        "[0.1, 1e-45, 1e300]", "[[0.5 + 1j], [2]]", "_np((3, 4), 'int64')[:, ::2]",
        "_np((2, 3), 'float64').T", "np.zeros((0, 3), np.int16)", "[_np((2,), 'int8'), _np((2,), 'int16')]")]
        + [f"T.tensor(_np((2, 3), '{d}'))" for d in NP_DTYPES]
        + [f"T.tensor(_np((), '{d}'))" for d in NP_DTYPES]
        + [("T.tensor([x, y])", Arg((), "int32"), Arg((), "int64")), ("T.tensor([x, 1])", Arg((), "int32")),
           ("T.tensor([x, 1j])", Arg((), "float64")),
           ("T.tensor([x, 2.5])", Arg((), "bool")), ("T.tensor([x])", Arg((1,), "int64")),
           ("T.tensor([[x, 2.5], [1, y]])", Arg(()), Arg((), "int64")),
           ("(T.tensor(x, device='cpu'), str(T.tensor(x, device='cpu').device))", Arg((2,))),
           "T.tensor([1.5, 2.0], requires_grad=True)",
           ("T.tensor(x, requires_grad=True)", Arg((2, 3), requires_grad=True)),
           ("T.tensor(x)", Arg((2, 3), requires_grad=True)),
           "_st(T.tensor(_np((2, 3), 'float64').T))",
           "_xf(T, _EMPTY_NP, lambda: _st(T.tensor(np.zeros((0, 3)))))",
           "_xf(T, _EMPTY_NP, lambda: _st(T.tensor(np.zeros((2, 0, 3)), dtype=T.int32)))",
           "_st(T.tensor(_np((3, 4), 'int64')[:, ::2]))",
           "_st(T.tensor(np.broadcast_to(_np((3,), 'int64'), (2, 3))))",
           ("_st(T.tensor(x.t()))", Arg((3, 2))),
           ("_st(T.tensor(x.t()[:, ::2], dtype=T.float64))", Arg((3, 2))),
           ("T.tensor([x, y])", Arg(()), Arg(()))]),
    # errors, checked conversions
    _group("tensor", [f"T.tensor({v})" for v in (
        "[[1, 2], [3]]", "[[1], [2, 3]]", "[[[1, 2], [3]], [4]]", "[[1, 2], 3]", "[1, [2]]",
        "[[1, 2], [3, [4]]]", "[[1, 2], [3, [4]]], dtype=T.float32", "[[1, 2], [3, [4]]], dtype=T.bool",
        "[[1, 2], [3, [4]]], dtype=T.complex64", "'abc'", "['a']", "[1, 'a']", "[[1, 2], 'ab']",
        "[1, 'a'], dtype=T.float32", "[1, 'a'], dtype=T.int64", "None", "[None]", "{1: 2}", "{1, 2}",
        "[2 ** 63]", "2 ** 63", "[2 ** 64]", "[2 ** 63], dtype=T.float64", "[-2 ** 63 - 1]",
        "[2 ** 1100], dtype=T.float64", "[1.7, -2.7], dtype=T.uint8", "[1 + 2j], dtype=T.float32",
        "[1 + 2j], dtype=T.int64", "[1 + 2j, 0], dtype=T.bool", "[np.array(1.5), 2]",
        "[np.float32(1.5)], dtype=T.int64", "np.float32(2.5), dtype=T.int64",
        "[np.float32(2.5)], dtype=T.bool", "[np.bool_(True), 2]", "[np.uint16(3), np.int8(-1)]",
        "np.array(['a'])", "np.array([1, 2], dtype=object)", "np.arange(6)[::-1]",
        "np.arange(6).reshape(2, 3)[:, ::-1]", "np.array([1, 2], dtype='>i4')", "[1, 2], requires_grad=True",
        "[1.5], dtype=T.int32, requires_grad=True", "[-1], dtype=T.uint16", "[70000], dtype=T.uint16",
        "[2 ** 63], dtype=T.uint64")]
        + [("T.tensor([x, y])", Arg((2,)), Arg((2,))),
           ("T.tensor([x, y])", Arg((2,), "int64"), Arg((2,), "int64")),
           ("T.tensor([x, 2], dtype=T.int64)", Arg(())), ("T.tensor([x, 2], dtype=T.bool)", Arg(())),
           ("T.tensor([x], dtype=T.float64)", Arg((), "int64"))]),
    # warnings, default dtype
    _group("tensor", [("_w(lambda: T.tensor(x))", Arg((2,))),
                      ("_w(lambda: T.tensor(x, dtype=T.float64, requires_grad=True))", Arg((2,))),
                      ("_w(lambda: x.new_tensor(x))", Arg((2,)))]
           + [f"_dflt(T, '{d}', lambda: T.tensor({v}))" for d in ("float64", "float16", "bfloat16")
              for v in ("[1.5, 2]", "2.5", "[1, 2]", "[]", "[True]", "[1, 0.1]", "[np.float32(1), 1.5]")]
           + ["_dflt(T, 'float64', lambda: T.tensor([1j]))", "_dflt(T, 'bfloat16', lambda: T.tensor([1j]))",
              "_xf(T, 'torchshim has no complex32 (the default complex dtype when the default is float16)', "
              "lambda: _dflt(T, 'float16', lambda: T.tensor([1j])))",
              ("T.tensor([[x], [y]])", Arg(()), Arg((), "int64"))]),
]

# ---- as_tensor, asarray, from_numpy ------------------------------------------------------------------------
RECORDS += [
    _sweep("as_tensor", ["T.as_tensor([[1, 2], [3, 4]], dtype=dt)",
                         "T.as_tensor(_np((2, 2), 'float64'), dtype=dt)", "T.as_tensor(2.5, dtype=dt)",
                         ("T.as_tensor(x, dtype=dt)", "A((2, 3))"),
                         ("(T.as_tensor(x, dtype=dt) is x, T.as_tensor(x, dtype=dt))", "A((2,), d)"),
                         ("T.as_tensor(x, dtype=dt)", "A((2, 3), 'int32', noncontig=True)")]),
    _group("as_tensor", [("T.as_tensor(x)", Arg((2, 3))), "T.as_tensor([1, 2.5])", "T.as_tensor(3)",
                         "T.as_tensor(range(3))", "T.as_tensor(_np((2, 3), 'int16'))",
                         "T.as_tensor(_np((3,), 'uint8'), dtype=T.int64)",
                         "T.as_tensor(_np((3,), 'uint8'), T.int64)", "T.as_tensor(np.float32(1.5))",
                         "T.as_tensor([], dtype=T.int32)",
                         ("(T.as_tensor(x) is x, T.as_tensor(x, dtype=T.float32, device='cpu') is x)",
                          Arg((2,))),
                         ("(T.as_tensor(x).requires_grad, T.as_tensor(x, dtype=T.float64).requires_grad)",
                          Arg((2,), requires_grad=True)),
                         ("_st(T.as_tensor(x, dtype=T.float64))", Arg((3, 4), noncontig=True)),
                         "_st(T.as_tensor(_np((3, 4), 'int32')[:, ::2]))",
                         "_st(T.as_tensor(_np((3, 4), 'int32')[:, ::2], dtype=T.int64))",
                         "_st(T.as_tensor(np.broadcast_to(_np((3,), 'float32'), (2, 3))))",
                         "T.as_tensor(None)", "T.as_tensor('a')", "T.as_tensor([[1], [2, 3]])",
                         "T.as_tensor(np.arange(3)[::-1])", "T.as_tensor([1, 2], requires_grad=True)",
                         "T.as_tensor([300], dtype=T.uint8)",
                         ("T.as_tensor([x, y])", Arg(()), Arg(()))]),
    _sweep("asarray", ["T.asarray([[1, 2], [3, 4]], dtype=dt)", "T.asarray(_np((2, 2), 'float64'), dtype=dt)",
                       ("T.asarray(x, dtype=dt)", "A((2, 3))")]),
    _group("asarray", [("T.asarray(x)", Arg((2, 3))), "T.asarray([1, 2.5])", "T.asarray(3)", "T.asarray(2.5)",
                       "T.asarray(True)", "T.asarray(range(3))", "T.asarray(np.float32(1.5))",
                       "T.asarray(np.float64(2.5), dtype=T.float32)", "T.asarray(_np((3,), 'uint8'))",
                       "T.asarray(np.arange(3), copy=False)", "T.asarray([1.5], requires_grad=True)",
                       "_st(T.asarray(_np((3, 4), 'int64')[:, ::2]))",
                       "_st(T.asarray(_np((3, 4), 'int64')[:, ::2], dtype=T.float32))",
                       ("(T.asarray(x) is x, T.asarray(x, copy=True) is x, "
                        "T.asarray(x, dtype=T.float64) is x, "
                        "T.asarray(x, dtype=T.float32) is x)", Arg((2,))),
                       ("(T.asarray(x, requires_grad=True), x.requires_grad)", Arg((2,))),
                       ("(T.asarray(x, requires_grad=False), x.requires_grad)",
                        Arg((2,), requires_grad=True)),
                       ("_w(lambda: T.asarray(x))", Arg((2,), requires_grad=True)),
                       ("T.asarray(x, dtype=T.float64, copy=False)", Arg((2,))),
                       "T.asarray(np.arange(3.0), dtype=T.int32, copy=False)",
                       "T.asarray([1, 2], copy=False)", "T.asarray(np.float64(2.5), copy=False)",
                       "T.asarray(3, copy=False)", "T.asarray([1], requires_grad=True)", "T.asarray(None)",
                       "T.asarray('a')", "T.asarray([[1], [2, 3]])", "T.asarray(np.arange(3)[::-1])",
                       ("T.asarray([x, y])", Arg((2,), "int64"), Arg((2,), "int64")),
                       ("T.asarray([x, y])", Arg(()), Arg(()))]),
    _group("from_numpy", [f"T.from_numpy(_np((2, 3), '{d}'))" for d in NP_DTYPES]
           + [f"T.from_numpy(_np((), '{d}'))" for d in ("float32", "int64", "bool")]
           + ["T.from_numpy(_np((2, 3), 'float64').T)", "T.from_numpy(_np((6,), 'int32')[::2])",
              "T.from_numpy(np.zeros((0, 2)))", "T.from_numpy([1, 2])", "T.from_numpy(np.float64(2))",
              "T.from_numpy(np.array(['a']))", "T.from_numpy(np.array([1], dtype=object))",
              "T.from_numpy(np.arange(6)[::-1])", "T.from_numpy(np.array([1, 2], dtype='>f8'))",
              ("T.from_numpy(x)", Arg((2,))), "_st(T.from_numpy(_np((2, 3), 'float64').T))",
              "_st(T.from_numpy(_np((3, 4), 'int64')[:, ::2]))",
              "_xf(T, _EMPTY_NP, lambda: _st(T.from_numpy(np.zeros((0, 3)))))",
              "_st(T.from_numpy(np.broadcast_to(_np((3,), 'int64'), (2, 3))))",
              "T.from_numpy(_np((2,), 'int16'))"]),
]

# ---- zeros / ones / empty / full ---------------------------------------------------------------------------
for _n in ("zeros", "ones", "empty"):
    _m = "_meta" if _n == "empty" else ""  # empty's values are uninitialised: compare its _meta only
    _mo = ", meta=True" if _n == "empty" else ""
    RECORDS += [
        _sweep(_n, [f"{_m}(T.{_n}({s}, dtype=dt))" for s in (
            "2, 3", "(2, 3)", "[2, 3]", "()", "0", "2, 0, 3", "4", "[]", "T.Size([3, 2])", "size=(2, 1)")]
            + [f"T.{_n}(2, 3, dtype=dt).zero_()"]),
        _group(_n, [f"{_m}(T.{_n}({s}))" for s in (
            "2, 3", "(2, 3)", "[1, 2]", "-1", "2, -3", "(2, -1)", "[-1]", "2.0", "(2.0, 3)", "2, 3.0", "'a'",
            "2, '3'", "None", "(2, None)", "True", "(True, 2)", "", "np.int64(3)", "(np.int64(3), 2)",
            "2, size=3", "size=3", "2, 3, requires_grad=True", "2, dtype=T.complex64, requires_grad=True",
            "2, dtype=T.int64, requires_grad=True", "-1, dtype=T.int64, requires_grad=True",
            "2, device='cpu'", "2, device=T.device('cpu')", "2, out=[1]")]
            + [(f"{_m}(T.{_n}(x))", Arg((), "int64", 2, 4)),
               (f"{_m}(T.{_n}((x, 2)))", Arg((), "int64", 2, 4)),
               (f"T.{_n}(x)", Arg(())), (f"T.{_n}(x)", Arg((2,), "int64")), f"str(T.{_n}(2).device)",
               f"_dflt(T, 'float64', lambda: {_m}(T.{_n}(2, 3)))",
               f"_dflt(T, 'bfloat16', lambda: {_m}(T.{_n}(2)))",
               f"_o(T, lambda o: T.{_n}(2, 3, out=o), 'int64'{_mo})",
               f"_o(T, lambda o: T.{_n}((2,), out=o), 'bool', (5,){_mo})",
               f"_o(T, lambda o: T.{_n}(3, 2, out=o), 'float64', (3, 2){_mo})",
               f"_o(T, lambda o: T.{_n}(2, 3, out=o), 'float32', (3, 2), lambda o: o.t(){_mo})",
               f"_o(T, lambda o: T.{_n}(2, out=o, requires_grad=True){_mo})",
               f"_o(T, lambda o: T.{_n}(2, out=o, dtype=T.float64){_mo})",
               f"_o(T, lambda o: T.{_n}(2, out=o, dtype=T.float32){_mo})", f"T.{_n}(3, 4).zero_()"]),
    ]

RECORDS += [
    _sweep("full", [f"T.full({s}, {v}, dtype=dt)" for s, v in (
        ("(2, 3)", "1.5"), ("(2,)", "-1"), ("(2,)", "True"), ("(3,)", "300"), ("(2,)", "1e5"),
        ("(2,)", "1 + 2j"),
        ("(2,)", "2 + 0j"), ("()", "2.5"), ("[2, 0]", "7"), ("(2,)", "inf"), ("(2,)", "nan"),
        ("(2,)", "-129"),
        ("(1,)", "1e39"), ("(1,)", "2 ** 31"), ("(1,)", "-0.5"), ("(0,)", "1e39"), ("(1, 1)", "1 + 1j"))]
        + [("T.full((2, 3), x, dtype=dt)", "A((), d)")]),
    _group("full", [f"T.full((2, 2), {v})" for v in (
        "1.5", "3", "True", "1j", "np.float64(2.5)", "np.int32(2)", "np.bool_(True)", "np.complex64(1j)",
        "2 ** 63", "-0.0")]
        + [("T.full((2, 3), x)", Arg((), d)) for d in ("int8", "float64", "bool", "complex64", "uint8")]
        + [f"T.full({a})" for a in (
            "(2,), 2 ** 40, dtype=T.int32", "2, 1.0", "(2,), 'a'", "(2,), None", "(-1,), 1.0", "(2, -1), 1.0",
            "[2.0], 1.0", "size=(2,), fill_value=3", "(2, 2), 1.0, requires_grad=True",
            "(2, 2), 1, requires_grad=True", "(2,), 1.0, device='cpu'")]
        + [("T.full((2,), x)", Arg((1,))), ("T.full((2,), x)", Arg((2,), "int64")),
           ("T.full((2,), x)", Arg((), requires_grad=True)),
           "_dflt(T, 'float64', lambda: T.full((2,), 1.5))", "_dflt(T, 'float64', lambda: T.full((2,), 1j))",
           "_dflt(T, 'float64', lambda: T.full((2,), 3))", "_dflt(T, 'float16', lambda: T.full((2,), 1e5))",
           "_o(T, lambda o: T.full((2,), 1.5, out=o), 'int64')",
           "_o(T, lambda o: T.full((2,), 300, out=o), 'uint8')", "_o(T, lambda o: T.full((2,), 1j, out=o))",
           "_o(T, lambda o: T.full((3,), 2, out=o), 'float64', (7,))",
           "_o(T, lambda o: T.full((2,), 2, out=o, dtype=T.int64))", ("T.full((3, 2), x)", Arg(()))]),
]

# ---- *_like, new_*, empty_strided, scalar_tensor, eye ------------------------------------------------------
_VIEWS = ("x", "x.t()", "x[:, ::2]", "x[::2]", "x.t()[::2]", "x[:1].expand(4, 4)", "x.unsqueeze(1)",
          "x[:, :1]", "x[:0]", "x[:0].t()")
for _n, _a in (("zeros_like", ""), ("ones_like", ""), ("empty_like", ""), ("full_like", ", 7")):
    _m = "_meta" if _n == "empty_like" else "_st"
    _z = ".zero_()" if _n == "empty_like" else ""
    RECORDS += [
        _sweep(_n, [(f"T.{_n}(x{_a}){_z}", "A((2, 3), d)"),
                    (f"{_m}(T.{_n}(x{_a}))", "A((2, 3, 4), d, noncontig=True)"),
                    (f"{_m}(T.{_n}(x{_a}, dtype=dt))", "A((3, 2))"), (f"{_m}(T.{_n}(x{_a}))", "A((), d)"),
                    f"{_m}(T.{_n}(T.zeros(0, 3, dtype=dt){_a}))",
                    (f"T.{_n}(x{_a}, dtype=dt){_z}", "A((3,))")]),
        _group(_n, [(f"{_m}(T.{_n}({v}{_a}))", Arg((4, 6))) for v in _VIEWS]
               + [(f"{_m}(T.{_n}(x.permute(2, 0, 1){_a}))", Arg((2, 3, 4))),
                  (f"{_m}(T.{_n}(x.permute(1, 2, 0)[:, ::2]{_a}))", Arg((2, 3, 4))),
                  (f"{_m}(T.{_n}(x{_a}))", Arg((2, 3), requires_grad=True)),
                  (f"{_m}(T.{_n}(x{_a}, requires_grad=True))", Arg((2,))),
                  (f"T.{_n}(x{_a}, requires_grad=True)", Arg((2,), "int64")),
                  (f"T.{_n}(x{_a}, dtype=T.int64, requires_grad=True)", Arg((2,))),
                  (f"({_m}(T.{_n}(x{_a}, device='cpu')), str(T.{_n}(x{_a}).device))", Arg((2,))),
                  f"T.{_n}(2{_a})", f"T.{_n}([1, 2]{_a})", (f"T.{_n}(x.t(){_a}){_z}", Arg((3, 2), "int32"))]),
    ]
RECORDS += [
    _group("full_like", [(f"T.full_like(x, {v})", Arg((2,), d)) for d, v in (
        ("int64", "2.7"), ("uint8", "300"), ("uint8", "-1"), ("float32", "1j"), ("bool", "2"),
        ("float32", "1e40"),
        ("float16", "1e5"), ("float16", "inf"), ("int32", "inf"), ("complex64", "1 + 2j"), ("int8", "-128"),
        ("float32", "'a'"), ("float32", "None"), ("float64", "np.float32(0.1)"), ("int32", "np.bool_(True)"))]
        + [("T.full_like(x, 1e5)", Arg((1,), "float16")), ("T.full_like(x, 1e5)", Arg((0,), "float16")),
           ("T.full_like(x, y)", Arg((2, 3)), Arg((), "int64")), ("T.full_like(x, y)", Arg((2,)), Arg((1,))),
           ("T.full_like(x, 1.5, dtype=T.int32)", Arg((2,))),
           ("T.full_like(x, y)", Arg((2,)), Arg((), requires_grad=True)),
           ("T.full_like(x, y)", Arg((2, 3), "int64"), Arg(()))]),
]

for _n in ("new_zeros", "new_ones", "new_empty"):
    _m = "_meta" if _n == "new_empty" else ""
    RECORDS += [
        _sweep(_n, [(f"x.{_n}(4).zero_()", "A((2, 3), d)")]
               + [(f"{_m}(x.{_n}({s}))", "A((2, 3), d)")
                  for s in ("4", "(4, 2)", "[4, 2]", "()", "0, 3", "T.Size([2, 1])")]
               + [(f"{_m}(x.{_n}(2, 3, dtype=dt))", "A((2,), 'int32')"),
                  (f"{_m}(x.{_n}(3, 1))", "A((2, 3), d, noncontig=True)")]),
        _group(_n, [(f"{_m}(x.{_n}({s}))", Arg((2, 3))) for s in (
            "-1", "-1, 2", "(-1, 2)", "", "2.0", "2, 3.0", "np.int64(2)", "size=(2, 3)",
            "2, requires_grad=True", "2, device='cpu'")]
            + [(f"x.{_n}(2, requires_grad=True)", Arg((2,), "int32")),
               (f"{_m}(x.{_n}(2))", Arg((2,), requires_grad=True)), (f"str(x.{_n}(2).device)", Arg((2,))),
               (f"x.{_n}(3, 2).zero_()", Arg((2, 3), "int16"))]),
    ]

RECORDS += [
    _sweep("new_full", [(f"x.new_full({s}, {v})", "A((2, 3), d)") for s, v in (
        ("(2,)", "7"), ("[2, 2]", "7.9"), ("()", "True"), ("(2,)", "300"), ("(2,)", "1j"), ("(2,)", "-1"),
        ("(0,)", "2"), ("(1,)", "1e5"))]
        + [("x.new_full((2,), 1j, dtype=dt)", "A((2,))"), ("x.new_full((2, 3), y)", "A((2,), d), A((), d)")]),
    _group("new_full", [(f"x.new_full({a})", Arg((2,))) for a in (
        "2, 1.0", "(-1,), 2.0", "(2,), 'a'", "(2,), 1.0, requires_grad=True", "(2,), 1.0, device='cpu'")]
        + [("x.new_full((2,), y)", Arg((2,)), Arg((1,))),
           ("x.new_full((2,), y)", Arg((2,)), Arg((), requires_grad=True)),
           ("x.new_full((2,), 1, requires_grad=True)", Arg((2,), "int64")),
           ("x.new_full((2,), 1.5)", Arg((2,), requires_grad=True)),
           ("x.new_full((3, 1), 2.5)", Arg((2,), "float64"))]),
    _sweep("new_tensor", [(f"x.new_tensor({v})", "A((2, 3), d)") for v in (
        "[1.5, 2.5]", "[[1, 2]]", "3", "[0, 2, 0.5]", "[300]", "[]", "[1j]", "_np((2,), 'int16')")]
        + [("x.new_tensor(y)", "A((2,), d), A((3,))"), ("x.new_tensor([1, 2], dtype=dt)", "A((2,), 'int32')"),
           ("_st(x.new_tensor(y.t()))", "A((2,), d), A((3, 2))"),
           ("x.new_tensor([y, y])", "A((2,), d), A((), 'float64')")]),
    _group("new_tensor", [(f"x.new_tensor({a})", Arg((2,), d)) for d, a in (
        ("float32", "[1.0], requires_grad=True"), ("int64", "[1.0], requires_grad=True"),
        ("float32", "[[1], [2, 3]]"),
        ("float32", "'a'"), ("float32", "[1.5], device='cpu'"))]
        + [("x.new_tensor([1.0])", Arg((2,), requires_grad=True))]),
    _sweep("empty_strided", [f"_meta(T.empty_strided({s}, {st}, dtype=dt))" for s, st in (
        ("(2, 3)", "(1, 2)"), ("(2, 3)", "(3, 1)"), ("(2, 3)", "(0, 1)"), ("(0, 3)", "(1, 2)"), ("()", "()"),
        ("[2, 3]", "[4, 1]"), ("(2, 3, 4)", "(1, 2, 6)"), ("(4,)", "(3,)"))]
        + ["T.empty_strided((2, 3), (1, 2), dtype=dt).zero_()"]),
    _group("empty_strided", [f"_meta(T.empty_strided({a}))" for a in (
        "(2, 3), (1, 2), requires_grad=True", "(2, 3), (1, 2), device='cpu'", "(2, 3), (1,)",
        "(2, -3), (1, 2)", "(2, 3), (1, -2)", "2, (1,)", "(2, 3), 1", "(2, 3.0), (1, 2)",
        "(2, 3), (1, 2), dtype=T.int64, "
        "requires_grad=True")]
        + ["T.empty_strided((2, 3), (4, 1)).untyped_storage().nbytes()",
           "(T.empty_strided((2, 3), (1, 2)).storage_offset(), "
           "T.empty_strided((2, 3), (1, 2)).is_contiguous())", "T.empty_strided((2, 3), (1, 2)).fill_(2.5)"]),
    _sweep("scalar_tensor", [f"T.scalar_tensor({v}, dtype=dt)" for v in (
        "3", "2.5", "True", "-1", "300", "1 + 2j", "2 + 0j", "1e40", "-7.9", "nan", "inf")]),
    _group("scalar_tensor", [f"T.scalar_tensor({v})" for v in (
        "3", "True", "1j", "np.float64(2.5)", "np.int8(3)", "[1]", "None", "'a'", "1e40", "-0.0",
        "2.5, requires_grad=True", "2, dtype=T.int32, requires_grad=True", "1.5, device='cpu'")]
        + [("T.scalar_tensor(x)", Arg((1,))), ("T.scalar_tensor(x)", Arg((), requires_grad=True)),
           "_dflt(T, 'float64', lambda: T.scalar_tensor(0.1))",
           ("T.scalar_tensor(x, dtype=T.float64)", Arg((), "int64")), ("T.scalar_tensor(x)", Arg(()))]),
    _sweep("eye", [f"T.eye({a}, dtype=dt)" for a in ("3", "2, 4", "0", "3, 0", "4, 2", "1")]),
    _group("eye", [f"T.eye({a})" for a in (
        "3", "-1", "2, -1", "2.0", "True", "None", "2, 3.0", "2, None", "np.int64(2)", "n=2, m=3", "3, m=2",
        "2, requires_grad=True", "2, dtype=T.int64, requires_grad=True", "2, device='cpu'")]
        + [("T.eye(x)", Arg((), "int64", 2, 4)), "_dflt(T, 'float64', lambda: T.eye(2))",
           "_o(T, lambda o: T.eye(2, 3, out=o), 'int64')",
           "_o(T, lambda o: T.eye(2, out=o), 'float64', (5,))",
           "_o(T, lambda o: T.eye(2, out=o), 'float32', (4,))",
           "_o(T, lambda o: T.eye(2, out=o, dtype=T.int32))", "T.eye(3, 2)"]),
]

# ---- arange / range / linspace / logspace ------------------------------------------------------------------
RECORDS += [
    _sweep("arange", [f"T.arange({a}, dtype=dt)" for a in (
        "5", "1, 4", "0, 10, 3", "5, 0, -1", "0.5, 3.7", "-2.5, 2.5", "0, 5, 1.5", "0, 300, 7", "0",
        "10, -10, -2.5", "-3.0, 0.0, 0.75", "1, 1", "0, 1, 0.1", "0, 1, 0.25")]),
    _group("arange", [f"T.arange({a})" for a in (
        "5", "5.0", "1, 4", "1, 4, 0.5", "0, 1, 0.1", "0, 1.0, 0.3", "5, 0, -1.5", "True", "0.1, 0.4, 0.1",
        "-1e-3, 1e-3, 1e-4", "10 ** 10, 10 ** 10 + 3", "0, 10 ** 12, 10 ** 11", "1e20, 1e20 + 1", "0, 6, 2.5",
        "np.int64(3)", "np.float32(2.5)", "0, 5, -1", "5, 0, 1", "-3", "0, 5, 0", "inf", "0, nan", "-inf, 0",
        "1j", "2 + 0j", "'a'", "0, [1]", "0, 5, None", "None", "0, 2.5, 1e-300", "0, 1e-300, 1",
        "1, 2, 0.1, dtype=T.float64", "-5, 5, 0.7, dtype=T.int32", "0, 5, 0.5, dtype=T.int64",
        "1e20, dtype=T.int64", "70000, 70003, dtype=T.float16", "0, 1e39, 1e38, dtype=T.float16",
        "start=1, end=4", "end=4", "1, 4, step=2", "2, requires_grad=True", "2.0, requires_grad=True",
        "2, dtype=T.float64, requires_grad=True", "3, device='cpu'")]
        + [("T.arange(x)", Arg((), "int64", 2, 5)), ("T.arange(x)", Arg((), "float32", 1, 5)),
           ("T.arange(x, 7, y)", Arg((), "int64", 0, 2), Arg((), "int64", 1, 3)),
           ("T.arange(x)", Arg((1,), "int64")), ("T.arange(x)", Arg((), requires_grad=True)),
           ("T.arange(0, x)", Arg((), requires_grad=True)),
           "_dflt(T, 'float64', lambda: T.arange(0, 1, 0.1))", "_dflt(T, 'float64', lambda: T.arange(5))",
           "_dflt(T, 'bfloat16', lambda: T.arange(0, 3, 0.5))",
           "_o(T, lambda o: T.arange(0, 5, 1.5, out=o), 'int64')",
           "_o(T, lambda o: T.arange(5, out=o), 'bool')",
           "_w(lambda: _o(T, lambda o: T.arange(0, 5, 1.5, out=o), 'float32', (3,)))",
           "_w(lambda: _o(T, lambda o: T.arange(4, out=o), 'float32', (2, 2)))",
           "_o(T, lambda o: T.arange(6, out=o), 'float32', (12,), lambda o: o[::2])",
           "_o(T, lambda o: T.arange(4, out=o, dtype=T.float32), 'int64')", "T.arange(0, 6, 0.5)"]),
    _sweep("range", [f"_w(lambda: T.range({a}, dtype=dt))" for a in (
        "0, 3", "0, 3, 1.5", "5, 0, -2", "0.5, 3.7", "-2.5, 2.5", "0, 5, 1.5", "1, 1", "0, 300, 7")]
        + ["T.range(-1, 2, 0.5 if dt.is_floating_point else 1, dtype=dt)"]),
    _group("range", [f"_w(lambda: T.range({a}))" for a in (
        "0, 3", "0, 3, 0.5", "0, 1, 0.3", "1, 1", "5, 0, -2", "0, 5, -1", "0, 5, 0", "0, inf", "0, -0.5",
        "1j, 2", "np.int64(1), 4")]
        + [f"T.range({a})" for a in (
            "3", "0, 1, 0.1, dtype=T.float64", "0, 3, requires_grad=True",
                                     "0, 3, dtype=T.int32, requires_grad=True",
            "0, 5, 1.5, dtype=T.int64", "-2.5, 2.5, dtype=T.int64")]
        + ["_dflt(T, 'float64', lambda: T.range(0, 1, 0.1))",
           "_o(T, lambda o: T.range(0, 5, 1.5, out=o), 'int64', (3,))",
           "_o(T, lambda o: T.range(0, 3, out=o), 'float32', (2, 2))",
           "_o(T, lambda o: T.range(0, 3, out=o, dtype=T.float64))",
           ("T.range(0, x)", Arg((), "int64", 2, 4)), ("T.range(0, x)", Arg((), requires_grad=True)),
           "T.range(0, 'a')", "T.range('a', 1)", "T.range(0, 1, None)", "T.range(0, 4)"]),
    _sweep("linspace", [f"T.linspace({a}, dtype=dt)" for a in (
        "0, 10, 5", "-2.7, 9.9, 5", "10, 0, 6", "0, 1, 1", "0, 1, 0", "2.7, 1, 1", "0, 255, 7", "0, 300, 7",
        "-1, 1, 2", "0, 1, 7", "-128, 127, 4", "0.1, 0.7, 13", "-5, 5, 101", "3, 3, 4", "1e5, 0, 1",
        "-1e5, 1e5, 3")]),
    _group("linspace", [f"T.linspace({a})" for a in (
        "0, 1, 5", "0, 1 + 1j, 3", "1j, -1j, 5", "nan, 1, 3", "0, inf, 3", "0, 1, 100", "1e30, -1e30, 4",
        "0, 1, -1", "0, 1, 3.0", "0, 1, True", "0, 'a', 3", "np.float32(0.5), np.int64(3), 4",
        "0, 1, steps=3", "0, 1, 3, requires_grad=True", "0, 10, 3, dtype=T.int64, requires_grad=True",
        "0, 1j, 3, dtype=T.float32", "0, 1j, 3, dtype=T.complex128", "0, 1, 3, device='cpu'",
        "-5, 5, 1000, dtype=T.float16", "-5, 5, 1000, dtype=T.bfloat16", "-7, 3, 10 ** 5, dtype=T.int64",
        "0, 1, 10 ** 4, dtype=T.float64")]
        + [("T.linspace(x, y, 5)", Arg((), "int64"), Arg((), "int32")),
           ("T.linspace(x, 3, 4)", Arg((), requires_grad=True)), ("T.linspace(x, 1.0, 3)", Arg((1,))),
           ("T.linspace(0, x, 3)", Arg((1,))), ("T.linspace(x, y, 3)", Arg((1,)), Arg((1,))),
           ("T.linspace(x, 4, 3, dtype=T.int64)", Arg(())),
           "_dflt(T, 'float64', lambda: T.linspace(0, 1, 5))",
           "_dflt(T, 'float64', lambda: T.linspace(0, 1j, 3))",
           "_o(T, lambda o: T.linspace(0, 5, 4, out=o), 'int64')",
           "_o(T, lambda o: T.linspace(0, 1, 4, out=o), 'float32', (2, 2))",
           "_o(T, lambda o: T.linspace(0, 1j, 3, out=o))",
           "_o(T, lambda o: T.linspace(0, 1j, 3, out=o), 'complex64')",
           "_o(T, lambda o: T.linspace(0, 1, 3, out=o), 'float32', (6,), lambda o: o[::2])",
           "_o(T, lambda o: T.linspace(0, 1, 3, dtype=T.int32, out=o), 'int64')",
           ("T.linspace(x, y, 4)", Arg(()), Arg(())), ("T.linspace(x, y, 6, dtype=T.float64)", Arg(()),
           Arg(()))]),
    _sweep("logspace", [f"T.logspace({a}, dtype=dt)" for a in (
        "0, 2, 3", "0, 3, 4, base=2", "0.5, 3.7, 4", "-1, 1, 5, base=3", "1.5, 2, 1", "0, 2, 0",
        "2, 0, 5, base=0.5", "0, 1, 1", "1, 4, 4, base=2.5", "10, 10, 1", "0, 6, 7, base=2", "0, 10, 11")]),
    _group("logspace", [f"T.logspace({a})" for a in (
        "0, 2, 3", "0, 2, 3, 2", "0, 2, 3, base=-2", "0, 2, 5, base=-2", "0, 1j, 3", "0, 2, -2",
        "0, 2, 3, base=1j", "0, 1j, 3, dtype=T.float32", "0, 1j, 3, dtype=T.complex128",
        "0, 2, 3, dtype=T.bool", "0, 2, 3, base=0", "-1, 1, 3, base=0", "0, 2, 3.0",
        "0, 2, 4, requires_grad=True", "0, 2, 4, dtype=T.int64, requires_grad=True", "400, 500, 3",
        "-3, 3, 7, dtype=T.int64", "0, 2, 3, device='cpu'")]
        + [("T.logspace(0, x, 3)", Arg((1,))), ("T.logspace(0, x, 3)", Arg((), requires_grad=True)),
           ("T.logspace(0, 2, 3, base=x)", Arg((), low=1, high=3)),
           "_dflt(T, 'float64', lambda: T.logspace(0, 2, 3))",
           "_dflt(T, 'float64', lambda: T.logspace(0, 1j, 3))",
           "_o(T, lambda o: T.logspace(0, 2, 3, out=o), 'int32')",
           "_o(T, lambda o: T.logspace(0, 2, 3, base=2, out=o), 'float64', (7,))",
           "_o(T, lambda o: T.logspace(0, 1, 4, out=o), 'float32', (2, 2))",
           "_o(T, lambda o: T.logspace(0, 1, 4, out=o, dtype=T.float64))",
           ("T.logspace(x, y, 4)", Arg(()), Arg(())),
           ("T.logspace(x, y, 5, base=2, dtype=T.float64)", Arg(()), Arg(()))]),
]

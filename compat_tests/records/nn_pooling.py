"""Records for pooling (torchshim/ops/nn_pooling.py, torchshim/nn/functional/pooling.py): max_pool1d/2d/3d
(+ indices, ceil_mode, dilation, padding), avg_pool1d/2d/3d (count_include_pad, divisor_override, ceil_mode),
adaptive_avg/max_pool1d/2d/3d, max_unpool1d/2d/3d, fractional_max_pool2d/3d with given samples.

Max pooling inputs are random floats (no ties; tie-breaking and NaN are checked in test_nn_conv_pool.py).
"""

from harness import Arg, OpRecord

F = ("float32", "float64")
LOW = ("float16", "bfloat16")
INTS = ("int64", "int32", "uint8", "int16", "int8")


def Fn(name):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **kw)


def _pool(nd, d, dilation=True):
    x = lambda n=7, b=2, **kw: Arg((b, 3) + (n,) * nd, d, **kw)  # noqa: E731
    t = lambda *v: v[:nd]  # noqa: E731
    out = [
        ((x(), 2), {}),
        ((x(), 3), {"stride": 2, "padding": 1}),
        ((x(), t(3, 2, 3)), {"stride": t(1, 2, 2), "padding": t(1, 0, 1)}),
        ((x(6), 3), {"stride": 2, "padding": 1, "ceil_mode": True}),
        ((x(5), 2), {"ceil_mode": True}),
        ((Arg((3,) + (6,) * nd, d), 2), {"stride": 1}),
        ((x(b=0), 2), {}),
        ((x(noncontig=True), 3), {"stride": 2}),
    ]
    if dilation:
        out += [
            ((x(), 2), {"dilation": 2}),
            ((x(8), 3), {"dilation": t(2, 1, 2), "padding": 1, "ceil_mode": True}),
        ]
    return out


def _max_samples(nd):
    return lambda d: _pool(nd, d)


def _max_errors(nd):
    sp = (6,) * nd
    return lambda d: [
        ((Arg((2, 3) + sp), 2), {"padding": 2}),
        ((Arg((2, 3) + sp), 0), {}),
        ((Arg((2, 3) + sp), 2), {"stride": 0}),
        ((Arg((2, 3) + sp), 2), {"dilation": 0}),
        ((Arg((2, 3) + sp), 2), {"padding": -1}),
        ((Arg((2, 3) + sp), (2,) * (nd + 1)), {}),
        ((Arg((2, 3) + sp), 2), {"stride": (1,) * (nd + 1)}),
        ((Arg(sp[:-1] if nd > 1 else (6,)), 2), {}),
        ((Arg((2, 3) + sp), 7), {}),
        ((Arg((2, 0) + sp), 2), {}),
        ((Arg((2, 3) + sp, "bool"), 2), {}),
        ((Arg((2, 3) + sp, "complex64"), 2), {}),
    ]


def _avg_samples(nd):
    def samples(d):
        out = _pool(nd, d, dilation=False)
        out += [
            ((Arg((2, 3) + (7,) * nd, d), 3), {"stride": 2, "padding": 1, "count_include_pad": False}),
            (
                (Arg((2, 3) + (6,) * nd, d), 3),
                {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
            ),
        ]
        if nd > 1:
            out += [
                ((Arg((2, 3) + (7,) * nd, d), 3), {"stride": 2, "padding": 1, "divisor_override": 5}),
                ((Arg((2, 3) + (6,) * nd, d), 2), {"ceil_mode": True, "divisor_override": 3}),
            ]
        return out

    return samples


def _avg_errors(nd):
    sp = (6,) * nd
    out = [
        ((Arg((2, 3) + sp), 2), {"padding": 2}),
        ((Arg((2, 3) + sp), 0), {}),
        ((Arg((2, 3) + sp), 2), {"stride": 0}),
        ((Arg((2, 3) + sp), (2,) * (nd + 1)), {}),
        ((Arg((2, 3) + sp), 2), {"padding": (0,) * (nd + 1)}),
        ((Arg(sp[:-1] if nd > 1 else (6,)), 2), {}),
        ((Arg((2, 3) + sp), 7), {}),
        ((Arg((2, 3) + sp, "int32"), 2), {}),
        ((Arg((2, 3) + sp, "bool"), 2), {}),
    ]
    if nd > 1:
        out.append(((Arg((2, 3) + sp), 2), {"divisor_override": 0}))
    if nd == 3:
        out.append(((Arg((2, 3) + sp, "float16"), 2), {}))
    return lambda d: out


def _adaptive(nd):
    def samples(d):
        return [
            ((Arg((2, 3) + (7,) * nd, d), 3), {}),
            ((Arg((2, 3) + (8,) * nd, d), (5, 2, 4)[:nd]), {}),
            ((Arg((3,) + (6,) * nd, d), 4), {}),
            ((Arg((2, 3) + (5,) * nd, d), 7), {}),
            ((Arg((2, 3) + (5,) * nd, d), 1), {}),
            ((Arg((0, 3) + (5,) * nd, d), 2), {}),
            ((Arg((2, 3) + (6,) * nd, d, noncontig=True), 4), {}),
        ]

    return samples


def _adaptive_none(nd):
    return lambda d: [((Arg((2, 3) + (6,) * nd, d), (None, 3, 2)[:nd]), {})]


def _adaptive_errors(nd):
    out = [
        ((Arg((6,) * nd), 2), {}),
        ((Arg((2, 0) + (6,) * nd), 2), {}),
        ((Arg((2, 3) + (6,) * nd, "int64"), 2), {}),
        ((Arg((2, 3) + (6,) * nd), (2,) * (nd + 1)), {}),
    ]
    if nd > 1:
        out.append(((Arg((2, 3) + (6,) * nd), (-1,) * nd), {}))
    return lambda d: out


def _unpool(nd, d):
    """(pooled values, their indices) from a real max_pool, then unpool."""
    return [
        ((Arg((2, 3) + (6,) * nd, d), 2), {}),
        ((Arg((2, 3) + (7,) * nd, d), 3), {"stride": 2, "padding": 1}),
        ((Arg((3,) + (5,) * nd, d), 2), {"stride": 1}),
    ]


def _unpool_call(nd):
    def f(T, x, k, **kw):
        F_ = T.nn.functional
        out, idx = getattr(F_, f"max_pool{nd}d")(x, k, return_indices=True, **kw)
        return getattr(F_, f"max_unpool{nd}d")(out, idx, k, output_size=x.shape[-nd:], **kw)

    return f


def _unpool_direct(nd):
    """max_unpool{nd}d with explicit indices (duplicates: the last write wins) and output sizes."""

    def samples(d):
        sp = (2,) * nd
        return [
            ((Arg((2, 3) + sp, d), Arg((2, 3) + sp, "int64", 0, 3**nd - 1), 2), {}),
            ((Arg((2, 3) + sp, d), Arg((2, 3) + sp, "int64", 0, 1), 2), {}),
            ((Arg((2, 3) + sp, d), Arg((2, 3) + sp, "int64", 0, 3), 2), {"output_size": (3,) * nd}),
            ((Arg((2, 3) + sp, d), Arg((2, 3) + sp, "int64", 0, 2), 2), {"stride": 1, "padding": 0}),
        ]

    return samples


def _unpool_err_call(nd):
    """max_unpool{nd}d; a 4th positional value replaces every index (ATen reports one of the invalid ones)."""

    def f(T, x, idx, k, fill=None, **kw):
        if fill is not None:
            idx = T.full_like(idx, fill)
        return getattr(T.nn.functional, f"max_unpool{nd}d")(x, idx, k, **kw)

    return f


def _unpool_errors(nd):
    sp = (2,) * nd
    return lambda d: [
        ((Arg((2, 3) + sp), Arg((2, 3) + sp, "int64", 0, 3), 2), {"output_size": (9,) * nd}),
        ((Arg((2, 3) + sp), Arg((2, 3) + sp, "int64", 0, 3), 2), {"output_size": (3,) * (nd + 1)}),
        ((Arg((2, 3) + sp), Arg((2, 3) + sp, "int64", 0, 0), 2, 4**nd + 1), {}),
        ((Arg((2, 3) + sp), Arg((2, 3) + sp, "int64", 0, 0), 2, -1), {}),
        ((Arg((2, 3) + sp), Arg((2, 3) + sp, "int32", 0, 3), 2), {}),
        ((Arg((2, 3) + sp), Arg((2, 3) + sp[:-1] + (1,), "int64", 0, 3), 2), {}),
        ((Arg(sp), Arg(sp, "int64", 0, 3), 2), {}),
        ((Arg((2, 0) + sp), Arg((2, 0) + sp, "int64", 0, 3), 2), {}),
        ((Arg((2, 3) + sp), Arg((2, 3) + sp, "int64", 0, 3), 2), {"padding": 2}),  # empty output
        ((Arg((2, 3) + sp, "int64"), Arg((2, 3) + sp, "int64", 0, 3), 2), {}),
    ]


def _fractional(nd):
    def samples(d):
        x = Arg((2, 3) + (9,) * nd, d)
        u = Arg((2, 3, nd), d, 0.0, 0.999)
        return [
            ((x, 2, (5,) * nd, u), {}),
            ((x, 3, (4, 6, 5)[:nd], u), {}),
            ((Arg((3,) + (7,) * nd, d), 2, (4,) * nd, Arg((1, 3, nd), d, 0.0, 0.999)), {}),
            ((x, (2, 3, 2)[:nd], (7, 6, 7)[:nd], u), {}),
        ]

    return samples


def _frac_call(nd):
    def f(T, x, k, out, u, **kw):
        return getattr(T.nn.functional, f"fractional_max_pool{nd}d")(
            x, k, output_size=out, _random_samples=u, return_indices=True, **kw
        )

    return f


def _frac_ratio_call(nd):
    def f(T, x, u):
        return getattr(T.nn.functional, f"fractional_max_pool{nd}d")(
            x, 2, output_ratio=0.5, _random_samples=u
        )

    return f


def _frac_errors(nd):
    x = Arg((2, 3) + (9,) * nd)
    u = Arg((2, 3, nd), "float32", 0.0, 0.999)
    return lambda d: [
        ((x, 2, (9,) * nd, u), {}),
        ((x, 2, (5,) * nd, Arg((2, 3, nd), "float64", 0.0, 0.999)), {}),
        ((x, 2, (5,) * nd, Arg((2, 4, nd), "float32", 0.0, 0.999)), {}),
        ((x, 2, (5,) * nd, Arg((2, 3, nd + 1), "float32", 0.0, 0.999)), {}),
        ((Arg((9,) * nd), 2, (5,) * nd, u), {}),
        ((Arg((2, 3) + (9,) * nd, "int64"), 2, (5,) * nd, Arg((2, 3, nd), "int64", 0, 0)), {}),
        ((x, (2,) * (nd + 1), (5,) * nd, u), {}),
    ]


RECORDS = [
    OpRecord("max_pool1d", _max_samples(1), F + LOW, method=False),
    OpRecord("max_pool1d", _max_errors(1), ("float32",), method=False),
    OpRecord("max_pool1d", _max_samples(1), ("int64",), method=False),  # max_pool1d_impl: floating only
    OpRecord("max_pool1d", _max_samples(1), ("float32",), method=False, call=Fn("max_pool1d")),
    OpRecord("max_pool1d_with_indices", _max_samples(1), F + LOW + INTS, method=False),
    OpRecord("max_pool1d_with_indices", _max_errors(1), ("float32",), method=False),
    OpRecord(
        "max_pool1d_with_indices",
        _max_samples(1),
        ("float32",),
        method=False,
        call=lambda T, *xs, **kw: T.nn.functional.max_pool1d(*xs, **kw, return_indices=True),
    ),
    OpRecord("avg_pool1d", _avg_samples(1), F + LOW + ("int64",), method=False),
    OpRecord("avg_pool1d", _avg_errors(1), ("float32",), method=False),
    OpRecord("avg_pool1d", _avg_samples(1), ("float32",), method=False, call=Fn("avg_pool1d")),
    OpRecord("adaptive_avg_pool1d", _adaptive(1), F + LOW, method=False),
    OpRecord("adaptive_avg_pool1d", _adaptive_errors(1), ("float32",), method=False),
    OpRecord("adaptive_max_pool1d", _adaptive(1), F + LOW, method=False),
    OpRecord("adaptive_max_pool1d", _adaptive_errors(1), ("float32",), method=False),
    OpRecord("adaptive_max_pool1d", _adaptive(1), ("float32",), method=False, call=Fn("adaptive_max_pool1d")),
]
for _n in (2, 3):
    RECORDS += [
        OpRecord(f"max_pool{_n}d", _max_samples(_n), F + LOW + INTS, method=False),
        OpRecord(f"max_pool{_n}d", _max_errors(_n), ("float32",), method=False),
        OpRecord(f"max_pool{_n}d", _max_samples(_n), ("float32",), method=False, call=Fn(f"max_pool{_n}d")),
        OpRecord(
            f"max_pool{_n}d_with_indices",
            _max_samples(_n),
            F + ("int64",),
            method=False,
            call=lambda T, *xs, _n=_n, **kw: getattr(T.nn.functional, f"max_pool{_n}d")(
                *xs, **kw, return_indices=True
            ),
        ),
        OpRecord(
            f"max_pool{_n}d_with_indices",
            _max_errors(_n),
            ("float32",),
            method=False,
            call=Fn(f"max_pool{_n}d_with_indices"),
        ),
        OpRecord(
            f"avg_pool{_n}d",
            _avg_samples(_n),
            F + ("int64",) + (LOW if _n == 2 else ()),
            method=False,
            call=Fn(f"avg_pool{_n}d"),
        ),
        OpRecord(f"avg_pool{_n}d", _avg_errors(_n), ("float32",), method=False, call=Fn(f"avg_pool{_n}d")),
        OpRecord(
            f"adaptive_avg_pool{_n}d",
            _adaptive(_n),
            F + LOW,
            method=False,
            call=Fn(f"adaptive_avg_pool{_n}d"),
        ),
        OpRecord(
            f"adaptive_avg_pool{_n}d",
            _adaptive_none(_n),
            ("float32",),
            method=False,
            call=Fn(f"adaptive_avg_pool{_n}d"),
        ),
        OpRecord(
            f"adaptive_avg_pool{_n}d",
            _adaptive_errors(_n),
            ("float32",),
            method=False,
            call=Fn(f"adaptive_avg_pool{_n}d"),
        ),
        OpRecord(
            f"adaptive_max_pool{_n}d",
            _adaptive(_n),
            F + LOW,
            method=False,
            call=lambda T, *xs, _n=_n, **kw: getattr(T.nn.functional, f"adaptive_max_pool{_n}d")(
                *xs, **kw, return_indices=True
            ),
        ),
        OpRecord(
            f"adaptive_max_pool{_n}d",
            _adaptive(_n),
            ("float32",),
            method=False,
            call=Fn(f"adaptive_max_pool{_n}d"),
        ),
        OpRecord(
            f"adaptive_max_pool{_n}d",
            _adaptive_none(_n),
            ("float32",),
            method=False,
            call=Fn(f"adaptive_max_pool{_n}d"),
        ),
        OpRecord(
            f"adaptive_max_pool{_n}d",
            _adaptive_errors(_n),
            ("float32",),
            method=False,
            call=Fn(f"adaptive_max_pool{_n}d"),
        ),
        OpRecord(
            f"max_unpool{_n}d", lambda d, _n=_n: _unpool(_n, d), F + LOW, method=False, call=_unpool_call(_n)
        ),
        OpRecord(f"max_unpool{_n}d", _unpool_direct(_n), F, method=False, call=Fn(f"max_unpool{_n}d")),
        OpRecord(
            f"max_unpool{_n}d", _unpool_errors(_n), ("float32",), method=False, call=_unpool_err_call(_n)
        ),
        OpRecord(f"fractional_max_pool{_n}d", _fractional(_n), F + LOW, method=False, call=_frac_call(_n)),
        OpRecord(
            f"fractional_max_pool{_n}d", _frac_errors(_n), ("float32",), method=False, call=_frac_call(_n)
        ),
        OpRecord(
            f"fractional_max_pool{_n}d",
            lambda d, _n=_n: [((Arg((2, 3) + (8,) * _n, d), Arg((2, 3, _n), d, 0.0, 0.999)), {})],
            ("float32",),
            method=False,
            call=_frac_ratio_call(_n),
        ),
    ]
RECORDS.append(OpRecord("max_unpool2d", lambda d: _unpool(1, d), F, method=False, call=_unpool_call(1)))

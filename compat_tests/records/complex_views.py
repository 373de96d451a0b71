"""Records for torchshim/ops/complex_views.py: real, imag, view_as_real, view_as_complex, conj and the
conjugate/negative bits (is_conj, is_neg, resolve_conj, resolve_neg), conj_physical, angle, polar.

The view ops compare strides (`ViewRecord`) and aliasing through values, as records/views.py does: `_thru`
writes through each view and returns the base, `_into` writes into the base and returns the views. Geometry
checks (storage_offset, data_ptr, _base, _version) are in compat_tests/test_complex_views.py."""

from harness import Arg, OpRecord
from records.views import A, ViewRecord, _into, _owned, _s, _thru, gap

C = ("complex64", "complex128")
R = ("float32", "float64", "int64", "bool")
F = ("float32",)
X = A((2, 3), "complex64")  # the default base for the aliasing and error cases


def _shapes(d):
    """0-dim, empty, 1-d, 2-d, 3-d non-contiguous, and a strided 1-d view."""
    return [
        ((A((3, 4), d),), {}),
        ((A((), d),), {}),
        ((A((0, 3), d),), {}),
        ((A((5,), d),), {}),
        ((A((2, 3, 4), d, noncontig=True),), {}),
        ((A((5,), d, noncontig=True),), {}),
    ]


def _slices(call):
    """`call` on views of the input with offsets and steps (a slice, a transposed slice, a select)."""
    return [
        lambda T, x: call(T, x[1:]),
        lambda T, x: call(T, x.t()[1:]),
        lambda T, x: call(T, x[:, ::2]),
        lambda T, x: call(T, x[1]),
    ]


def _pairs(d):
    """Real inputs whose last dim is (re, im): contiguous, 1-d, empty, a view with an even offset."""
    return [((A((3, 2), d),), {}), ((A((2,), d),), {}), ((A((2, 3, 2), d),), {}), ((A((0, 2), d),), {})]


def _vac_views(T, x):
    """view_as_complex of strided views that qualify (even strides and offsets, last dim stride 1)."""
    return (
        T.view_as_complex(x[:, ::2]),
        T.view_as_complex(x[1:]),
        T.view_as_complex(x.transpose(0, 1)[1]),
        T.view_as_complex(x[:, :1].expand(3, 2, 2)),
    )


def _vac_errors(T, x):
    return T.view_as_complex(x)


_REAL_ERR = _s(((A((3,)),), {}), ((A((3,), "int32"),), {}))

RECORDS = [
    # ---- real / imag ---------------------------------------------------------------------------------------
    ViewRecord("real", _shapes, C + R),
    ViewRecord("real", _shapes, C + R, call=lambda T, x: x.real),
    *[
        ViewRecord("real", _s(((A((3, 4), d),), {})), F, call=c)
        for d in C[:1]
        for c in _slices(lambda T, v: v.real)
    ],
    ViewRecord("real", _s(((X,), {})), F, call=lambda T, x: (x.conj().real, x.real.real, T.real(x.imag))),
    ViewRecord("real", _s(((X,), {})), F, call=_thru(lambda T, x: (x.real, x.imag))),
    ViewRecord("real", _s(((X,), {})), F, call=_into(lambda T, x: (x.real, x[0].real, x.t().real))),
    ViewRecord("real", _s(((A((4,), "float32"),), {})), F, call=_thru(lambda T, x: x.real)),
    ViewRecord(
        "real",
        _s(((X,), {}), ((A((2, 3)),), {})),
        F,
        call=_owned(lambda T, x: (lambda r: (setattr(x, "real", T.ones(3)), x, r))(x.real)[1:]),
    ),
    ViewRecord("real", _s(((X,), {})), F, call=_owned(lambda T, x: (setattr(x, "real", 7), x)[1])),
    ViewRecord("real", _s(((X,), {})), F, call=_owned(lambda T, x: (x.real.__setitem__(0, 5), x)[1])),
    ViewRecord("real", _s(((X,), {})), F, call=lambda T, x: T.real(x.tolist())),
    ViewRecord("imag", _shapes, C),
    ViewRecord("imag", _shapes, C, call=lambda T, x: x.imag),
    *[
        ViewRecord("imag", _s(((A((3, 4), d),), {})), F, call=c)
        for d in C[:1]
        for c in _slices(lambda T, v: v.imag)
    ],
    ViewRecord("imag", _REAL_ERR, F),
    ViewRecord("imag", _REAL_ERR, F, call=lambda T, x: x.imag),
    ViewRecord("imag", _s(((A((3,)),), {})), F, call=lambda T, x: setattr(x, "imag", T.zeros(3))),
    ViewRecord(
        "imag", _s(((X,), {})), F, call=lambda T, x: (x.conj().imag, x.conj().conj().imag, x.imag.imag)
    ),
    ViewRecord("imag", _s(((X,), {})), F, call=_owned(lambda T, x: (x.imag.mul_(2), x)[1])),
    ViewRecord("imag", _s(((X,), {})), F, call=_owned(lambda T, x: (x.conj().imag.add_(5), x)[1])),
    ViewRecord(
        "imag", _s(((X,), {})), F, call=_owned(lambda T, x: (setattr(x, "imag", T.arange(3.0)), x)[1])
    ),
    ViewRecord(
        "imag", _s(((X,), {})), F, call=_owned(lambda T, x: (x.imag[:, 1:].copy_(x.real[:, :2]), x)[1])
    ),
    ViewRecord("imag", _s(((X,), {})), F, call=_into(lambda T, x: (x.imag, x.conj().imag, x[:, 1].imag))),
    # ---- view_as_real / view_as_complex --------------------------------------------------------------------
    ViewRecord("view_as_real", _shapes, C),
    *[
        ViewRecord("view_as_real", _s(((A((3, 4), d),), {})), F, call=c)
        for d in C[:1]
        for c in _slices(lambda T, v: T.view_as_real(v))
    ],
    ViewRecord("view_as_real", _s(((A((3,)),), {}), ((A((3,), "int64"),), {}), ((A((3,), "bool"),), {})), F),
    ViewRecord("view_as_real", _s(((X,), {})), F, call=lambda T, x: T.view_as_real(x.conj())),
    ViewRecord("view_as_real", _s(((X,), {})), F, call=lambda T, x: T.view_as_real(x.conj().conj())),
    ViewRecord(
        "view_as_real", _s(((X,), {})), F, call=_thru(lambda T, x: (T.view_as_real(x), T.view_as_real(x[1])))
    ),
    ViewRecord("view_as_real", _s(((X,), {})), F, call=_into(lambda T, x: T.view_as_real(x.t()))),
    ViewRecord(
        "view_as_real", _s(((X,), {})), F, call=_owned(lambda T, x: (T.view_as_real(x)[..., 1].neg_(), x)[1])
    ),
    ViewRecord(
        "view_as_real",
        _s(((X,), {})),
        F,
        call=_owned(lambda T, x: (T.view_as_real(x).view(-1)[1::3].fill_(9), x)[1]),
    ),
    ViewRecord("view_as_complex", _pairs, ("float32", "float64")),
    ViewRecord("view_as_complex", _s(((A((3, 4, 2)),), {})), ("float32", "float64"), call=_vac_views),
    ViewRecord(
        "view_as_complex",
        _s(
            ((A((3,)),), {}),
            ((A((3, 3)),), {}),
            ((A(()),), {}),
            ((A((3, 2), "int32"),), {}),
            ((A((3, 2), "bfloat16"),), {}),
            ((A((3, 2), "complex64"),), {}),
            ((A((2, 3, 2), noncontig=True),), {}),
        ),
        F,
    ),
    ViewRecord("view_as_complex", _s(((A((3, 4)),), {})), F, call=lambda T, x: T.view_as_complex(x[:, 1:3])),
    ViewRecord("view_as_complex", _s(((A((3, 3)),), {})), F, call=lambda T, x: T.view_as_complex(x[:, :2])),
    ViewRecord(
        "view_as_complex", _s(((A((9,)),), {})), F, call=lambda T, x: T.view_as_complex(x[1:].view(4, 2))
    ),
    ViewRecord(
        "view_as_complex",
        _s(((A((4, 2)),), {})),
        F,
        call=lambda T, x: (T.view_as_complex(x).real, T.view_as_complex(x).imag, T.view_as_complex(x).conj()),
    ),
    ViewRecord(
        "view_as_complex", _s(((A((4, 2)),), {})), F, call=lambda T, x: T.view_as_real(T.view_as_complex(x))
    ),
    ViewRecord("view_as_complex", _s(((X,), {})), F, call=lambda T, x: T.view_as_complex(T.view_as_real(x))),
    ViewRecord("view_as_complex", _s(((A((3, 2)),), {})), F, call=_thru(lambda T, x: T.view_as_complex(x))),
    ViewRecord(
        "view_as_complex", _s(((A((3, 2)),), {})), F, call=_into(lambda T, x: T.view_as_complex(x).conj())
    ),
    ViewRecord(
        "view_as_complex",
        _s(((A((3, 2)),), {})),
        F,
        call=_owned(
            lambda T, x: (T.view_as_complex(x).mul_(1j), T.view_as_complex(x)[1].imag.fill_(-1), x)[::2]
        ),
    ),
    *gap(
        "torchshim has no complex32 (ComplexHalf): view_as_complex of float16 raises",
        ViewRecord("view_as_complex", _s(((A((3, 2), "float16"),), {})), F, method=False),
    ),
    # ---- conj and the conjugate / negative bits ------------------------------------------------------------
    ViewRecord("conj", _shapes, C + R),
    ViewRecord(
        "conj",
        _s(((X,), {})),
        F,
        call=lambda T, x: (
            x.conj().conj(),
            x.conj()[1],
            x.conj().t(),
            x.conj().view(3, 2),
            x.conj().detach(),
            x.conj().data,
        ),
    ),
    ViewRecord("conj", _s(((X,), {})), F, call=_thru(lambda T, x: (x.conj(), x.conj()[0], x.t().conj()))),
    ViewRecord("conj", _s(((X,), {})), F, call=_into(lambda T, x: (x.conj(), x.conj().real, x.conj().imag))),
    ViewRecord("conj", _s(((X,), {})), F, call=_owned(lambda T, x: (x.conj().mul_(1j), x)[1])),
    ViewRecord(
        "conj", _s(((X,), {})), F, call=_owned(lambda T, x: (x.conj().__setitem__((0, 1), 2 + 3j), x)[1])
    ),
    ViewRecord("conj", _s(((X,), {})), F, call=_owned(lambda T, x: (x.conj()[1].copy_(x[0]), x)[1])),
    ViewRecord(
        "conj",
        _s(((X,), {})),
        F,
        call=lambda T, x: (x.conj() + 1, x.conj() * x, x.conj().sum(), x.conj().clone()),
    ),
    ViewRecord("conj", _s(((X,), {})), F, call=lambda T, x: (x.H, x.mH, x.adjoint(), x.mT.conj())),
    ViewRecord("is_conj", lambda d: [((A((2, 3), d),), {})], C + R),
    ViewRecord(
        "is_conj",
        _s(((X,), {})),
        F,
        call=lambda T, x: (
            x.conj().is_conj(),
            T.is_conj(x.conj()[0]),
            x.conj().conj().is_conj(),
            x.conj().clone().is_conj(),
            x.conj().real.is_conj(),
            x.conj().imag.is_conj(),
            (x.conj() + 0).is_conj(),
            x.conj().detach().is_conj(),
            x.conj().resolve_conj().is_conj(),
            T.conj_physical(x).is_conj(),
            x.real.conj().is_conj(),
        ),
    ),
    ViewRecord("is_neg", lambda d: [((A((2, 3), d),), {})], C + R),
    ViewRecord(
        "is_neg",
        _s(((X,), {})),
        F,
        call=lambda T, x: (
            x.conj().imag.is_neg(),
            T.is_neg(x.conj().real),
            x.imag.is_neg(),
            x.conj().imag[1].is_neg(),
            x.conj().imag.resolve_neg().is_neg(),
            (-x.conj().imag).is_neg(),
            x.conj().imag.clone().is_neg(),
        ),
    ),
    ViewRecord("resolve_conj", _shapes, C + R),
    ViewRecord(
        "resolve_conj",
        _s(((X,), {}), ((A((2, 3, 4), "complex64", noncontig=True),), {})),
        F,
        call=lambda T, x: x.conj().resolve_conj(),
    ),
    ViewRecord("resolve_conj", _s(((X,), {})), F, call=_into(lambda T, x: x.conj().resolve_conj())),
    ViewRecord("resolve_neg", _shapes, C + R),
    ViewRecord(
        "resolve_neg",
        _s(((X,), {}), ((A((2, 3, 4), "complex64", noncontig=True),), {})),
        F,
        call=lambda T, x: x.conj().imag.resolve_neg(),
    ),
    ViewRecord("resolve_neg", _s(((X,), {})), F, call=_into(lambda T, x: x.conj().imag.resolve_neg())),
    ViewRecord("conj_physical", _shapes, C + R, inplace=True, out=True),
    ViewRecord(
        "conj_physical",
        _s(((X,), {})),
        F,
        call=lambda T, x: (T.conj_physical(x.conj()), x.conj().conj_physical()),
    ),
    ViewRecord("conj_physical", _s(((X,), {})), F, call=_into(lambda T, x: T.conj_physical(x))),
    ViewRecord(
        "conj_physical", _s(((X,), {})), F, call=_owned(lambda T, x: (x.conj().conj_physical_(), x)[1])
    ),
    ViewRecord("conj_physical", _s(((X,), {})), F, call=_owned(lambda T, x: (T.conj_physical_(x[0]), x)[1])),
    ViewRecord(
        "conj_physical",
        _s(((A((3,)),), {})),
        F,
        call=_owned(lambda T, x: (lambda v: (x.conj_physical_() is x, x._version - v))(x._version)),
    ),
]


# ---- angle, polar ------------------------------------------------------------------------------------------
def _angle_values(T, d):
    """Signs, zeros of both signs, nan and inf."""
    vals = [-2.0, -0.0, 0.0, 1.5, float("nan"), float("inf"), -float("inf")]
    if d.startswith("complex"):
        vals = [complex(a, b) for a in vals for b in (-1.0, -0.0, 0.0, 2.0)]
    return T.tensor(vals, dtype=getattr(T, d))


RECORDS += [
    OpRecord(
        "angle",
        lambda d: [
            ((Arg((3, 4), d),), {}),
            ((Arg((), d),), {}),
            ((Arg((0, 2), d),), {}),
            ((Arg((2, 3, 4), d, noncontig=True),), {}),
        ],
        C + ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"),
        out=True,
    ),
    OpRecord(
        "angle",
        lambda d: [((d,), {})],
        C + ("float32", "float64", "float16"),
        call=lambda T, d: T.angle(_angle_values(T, d)),
    ),
    OpRecord(
        "polar",
        lambda d: [
            ((Arg((3, 4), d, 0, 3), Arg((3, 4), d)), {}),
            ((Arg((3, 1), d, 0, 3), Arg((4,), d)), {}),
            ((Arg((), d, -2, 2), Arg((2, 3), d)), {}),
            ((Arg((0, 3), d), Arg((3,), d)), {}),
            ((Arg((2, 3), d, -1, 2, noncontig=True), Arg((2, 3), d)), {}),
        ],
        ("float32", "float64"),
        method=False,
        out=True,
    ),
    OpRecord(
        "polar",
        _s(
            ((Arg((3,), "int64"), Arg((3,), "int64")), {}),
            ((Arg((3,)), Arg((3,), "float64")), {}),
            ((Arg((3,), "float16"), Arg((3,), "float16")), {}),
            ((Arg((2,)), Arg((3,))), {}),
            ((Arg((3,), "complex64"), Arg((3,), "complex64")), {}),
            ((Arg((3,)), 2.0), {}),
        ),
        F,
        method=False,
    ),
    OpRecord(
        "polar",
        _s(((Arg((3,)), Arg((3,))), {})),
        F,
        method=False,
        call=lambda T, a, b: T.polar(a, b, out=T.empty(0, dtype=T.complex128)),
    ),
    OpRecord(
        "polar",
        lambda d: [((Arg((4,), d, -1, 1), Arg((4,), d)), {})],
        ("float64",),
        method=False,
        call=lambda T, a, b: T.polar(a * T.tensor([0.0, 1.0, 0.0, -1.0], dtype=a.dtype), b),
    ),
]

"""Records for movement ops (torchshim/ops/movement.py)."""
from harness import COMMON, Arg, Idx, OpRecord

F = ("float32",)
NUM = ("float32", "float64", "int64")


def _s(*items):
    """Samples that don't depend on the dtype: each item is (specs, kwargs)."""
    return lambda d: list(items)


def _cat_samples(d):
    return [
        (([Arg((2, 3), d), Arg((2, 3), d)],), {}),
        (([Arg((2, 3), d), Arg((4, 3), d, noncontig=True)],), {"dim": 0}),
        (([Arg((2, 3), d), Arg((2, 1), d), Arg((2, 2), d, noncontig=True)],), {"dim": -1}),
        (([Arg((0,), d), Arg((2, 3), d)],), {"dim": 1}),  # legacy: 1-D empties are skipped
        (([Arg((0, 3), d), Arg((2, 3), d)],), {}),
        (([Arg((2, 0), d), Arg((2, 3), d)],), {"dim": 1}),
        (([Arg((5,), d)],), {}),
        (([Arg((0,), d), Arg((0,), d)],), {}),
    ]


def _cat_call(name):
    return lambda T, *xs, **kw: getattr(T, name)(list(xs), **kw)


_CAT_ERRORS = [
    (lambda T: T.cat([])),
    (lambda T, a, b: T.cat([a, b], 1)),
    (lambda T, a, b: T.cat([a, b])),
    (lambda T, a, b: T.cat([a, b.reshape(-1)])),
    (lambda T, a, b: T.cat([a, b], 2)),
    (lambda T, a, b: T.cat([a[0, 0], a])),
    (lambda T, a, b: T.cat([T.zeros(0), a[0, 0]])),
    (lambda T, a, b: T.cat(a)),
    (lambda T, a, b: T.cat([a, 3])),
    (lambda T, a, b: T.cat([a, a], out=T.empty(0, dtype=T.int64))),
    (lambda T, a, b: T.cat([a, a], out=T.empty(0, dtype=T.float64))),
    (lambda T, a, b: T.concat([a, b], 1)),
    (lambda T, a, b: T.concatenate([a, a], axis=1)),
]


def _errs(fns, specs):
    return [OpRecord(f"err{i}", lambda d, s=specs: [(s, {})], F, call=lambda T, *xs, f=f: f(T, *xs),
                     method=False)
            for i, f in enumerate(fns)]


def _named(name, recs):
    for r in recs:
        r.name = name
    return recs


RECORDS = [
    OpRecord("cat", _cat_samples, COMMON + ("complex64",), method=False, out=True,
             covers=("concat", "concatenate")),
    OpRecord("cat", _s((([Arg((2,), "int64"), Arg((3,), "float32"), Arg((2,), "bool")],), {}),
                       (([Arg((2,), "int8"), Arg((3,), "uint8")],), {}),
                       (([Arg((0,), "float64"), Arg((2, 3), "int64")],), {}),
                       (([Arg((2,), "float32"), Arg((2,), "complex64"), Arg((2,), "float64")],), {})), F,
             method=False),
    *_named("cat", _errs(_CAT_ERRORS[:1], ())),
    *_named("cat", _errs(_CAT_ERRORS[1:], (Arg((2, 2)), Arg((3, 3))))),
    OpRecord("stack", lambda d: [
        (([Arg((2, 3), d), Arg((2, 3), d, noncontig=True), Arg((2, 3), d)],), {}),
        (([Arg((2, 3), d), Arg((2, 3), d)],), {"dim": 1}),
        (([Arg((2, 3), d), Arg((2, 3), d)],), {"dim": -1}),
        (([Arg((), d), Arg((), d)],), {}),
        (([Arg((0, 2), d)],), {"dim": 2}),
    ], COMMON, method=False, out=True),
    OpRecord("stack", _s((([Arg((2,), "int64"), Arg((2,), "float64")],), {}),
                         (([Arg((), "int64"), Arg((), "bool")],), {})), F, method=False),
    *_named("stack", _errs([lambda T: T.stack([])], ())),
    *_named("stack", _errs([lambda T, a, b: T.stack([a, b]), lambda T, a, b: T.stack([a, a], 3),
                            lambda T, a, b: T.stack([a, a], out=T.empty(0, dtype=T.int64))],
                           (Arg((2,)), Arg((3,))))),
]

for _name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
    _rec = "vstack" if _name == "row_stack" else _name
    RECORDS += [
        OpRecord(_rec, lambda d: [
            (([Arg((2,), d), Arg((2,), d, noncontig=True)],), {}),
            (([Arg((2, 3), d), Arg((2, 3), d)],), {}),
            (([Arg((), d), Arg((), d)],), {}),
            (([Arg((2, 3, 2), d), Arg((2, 3, 1), d)],), {}),
        ], COMMON, call=lambda T, *xs, n=_name: getattr(T, n)(*xs), method=False, out=True,
            covers=("row_stack",) if _name == "row_stack" else ()),
        *_named(_rec, _errs([lambda T, n=_name: getattr(T, n)([])], ())),
        *_named(_rec, _errs([lambda T, a, b, n=_name: getattr(T, n)([a, b])], (Arg((2, 2)), Arg((3, 3))))),
    ]
RECORDS += [
    OpRecord("hstack", _s((([Arg((2,)), Arg((3,))],), {}), (([Arg((2, 1)), Arg((2, 3), "int64")],), {})), F,
             method=False),
    OpRecord("column_stack", _s((([Arg((2,)), Arg((2, 3)), Arg((2,), "float64")],), {})), F, method=False),
    OpRecord("vstack", _s((([Arg((2,)), Arg((3,))],), {})), F, method=False),
]

for _n in (1, 2, 3):
    RECORDS += [
        OpRecord(f"atleast_{_n}d", lambda d: [((Arg((), d),), {}), ((Arg((3,), d),), {}),
                                              ((Arg((2, 3), d),), {}),
                                              ((Arg((2, 3, 4), d, noncontig=True),), {}),
                                              ((Arg((0,), d),), {}), ((Arg((), d), Arg((2,), d)), {}),
                                              (([Arg((), d), Arg((2,), d)],), {}), (([Arg((), d)],), {}),
                                              ((), {})], COMMON, method=False),
    ]

RECORDS += [
    OpRecord("flip", lambda d: [((Arg((2, 3, 4), d, noncontig=True), (0, 2)), {}),
                                ((Arg((3, 4), d), [1]), {}), ((Arg((3, 4), d), (-1, 0)), {}),
                                ((Arg((), d), ()), {}), ((Arg((), d), (0,)), {}),
                                ((Arg((0, 3), d), (1,)), {}), ((Arg((5,), d), ()), {})],
             COMMON + ("complex64",)),
    OpRecord("flip", _s(((Arg((2, 3)), (0, 0)), {}), ((Arg((2, 3)), (0, -2)), {}),
                        ((Arg((2, 3)), (2,)), {})), F),
    OpRecord("flip", _s(((Arg((2, 3)),), {})), F, call=lambda T, x: x.flip(1, 0)),
    OpRecord("fliplr", lambda d: [((Arg((3, 4), d),), {}), ((Arg((2, 3, 4), d, noncontig=True),), {}),
                                  ((Arg((3,), d),), {}), ((Arg((0, 2), d),), {})], COMMON),
    OpRecord("flipud", lambda d: [((Arg((3, 4), d, noncontig=True),), {}), ((Arg((3,), d),), {}),
                                  ((Arg((), d),), {})], COMMON),
    OpRecord("roll", lambda d: [((Arg((3, 4), d), 1), {}), ((Arg((3, 4), d, noncontig=True), -5), {}),
                                ((Arg((3, 4), d), (1, -2), (0, 1)), {}), ((Arg((3, 4), d), 2, -1), {}),
                                ((Arg((2, 3, 4), d), (7, 1), (2, 0)), {}), ((Arg((), d), 3), {}),
                                ((Arg((0, 3), d), 1, 0), {}), ((Arg((3, 4), d),), {"shifts": 1, "dims": 1})],
             COMMON),
    OpRecord("roll", _s(((Arg((2, 3)), (1, 2), 0), {}), ((Arg((2, 3)), 1, (0, 1)), {}),
                        ((Arg((2, 3)), (1, 2)), {}), ((Arg((2, 3)), (), ()), {}), ((Arg(()), 1, 0), {}),
                        ((Arg((2, 3)), 1, 2), {})), F),
    OpRecord("rot90", lambda d: [((Arg((2, 3), d),), {}), ((Arg((2, 3), d), 2), {}),
                                 ((Arg((2, 3), d), 3), {}), ((Arg((2, 3), d), -1), {}),
                                 ((Arg((2, 3), d), 4), {}), ((Arg((2, 3), d), 1, [1, 0]), {}),
                                 ((Arg((2, 3, 4), d, noncontig=True), 1, (2, 0)), {}),
                                 ((Arg((0, 3), d),), {})], COMMON),
    OpRecord("rot90", _s(((Arg((2, 3)), 1, (0,)), {}), ((Arg((2, 3)), 1, (0, 0)), {}),
                         ((Arg((2, 3)), 1, (0, -2)), {}), ((Arg((3,)), 1, (0, 1)), {}),
                         ((Arg((2, 3)), 1, (0, 2)), {}), ((Arg((2, 3)), 1, (0, -3)), {})),
             F),
    OpRecord("repeat", lambda d: [((Arg((2, 3), d), 2, 2), {}), ((Arg((3,), d, noncontig=True), 2, 1, 2), {}),
                                  ((Arg((), d), 2, 3), {}), ((Arg((0, 2), d), 2, 2), {}),
                                  ((Arg((2, 3), d), (1, 0)), {}), ((Arg((2, 3), d), 1, 1), {})], COMMON,
             call=lambda T, x, *s: x.repeat(*s)),
    OpRecord("repeat", _s(((Arg((2, 3)), 2), {}), ((Arg((2, 3)), 2, -1), {}), ((Arg((2, 3)),), {})), F,
             call=lambda T, x, *s: x.repeat(*s)),
    OpRecord("tile", lambda d: [((Arg((2, 3), d), (2,)), {}),
                                ((Arg((2, 3), d, noncontig=True), (2, 1, 2)), {}), ((Arg((), d), (2,)), {}),
                                ((Arg((), d), ()), {}), ((Arg((0, 3), d), (2, 2)), {})],
             COMMON),
    OpRecord("tile", _s(((Arg((2, 3)),), {})), F, call=lambda T, x: x.tile(2, 2)),
    OpRecord("repeat_interleave", lambda d: [
        ((Arg((2, 3), d), 2), {}), ((Arg((2, 3), d, noncontig=True), 2), {"dim": 1}),
        ((Arg((2, 3), d), Idx((3,), 3)), {"dim": 1}), ((Arg((2, 3), d), Idx((1,), 3)), {"dim": 0}),
        ((Arg((2, 3), d), Idx((), 3)), {}), ((Arg((2, 3), d), Idx((6,), 3)), {}), ((Arg((), d), 3), {}),
        ((Arg((2, 3), d), 0), {"dim": 1}), ((Arg((0, 3), d), 2), {"dim": 0}),
        ((Arg((3,), d), Idx((3,), 3)), {"dim": 0, "output_size": None}),
    ], COMMON),
    OpRecord("repeat_interleave", _s(((Idx((4,), 3),), {}), ((Idx((4,), 3, dtype="int32"),), {}),
                                     ((Idx((0,), 3),), {}), ((Idx((2, 2), 3),), {}), ((Idx((), 3),), {})),
             ("int64",), method=False),
    OpRecord("repeat_interleave", _s(((Arg((3,)), -1), {}), ((Arg((3,)), Idx((2,), 3)), {"dim": 0}),
                                     ((Arg((3,)), Idx((2, 2), 3)), {"dim": 0}), ((Arg(()), 3), {"dim": 0}),
                                     ((Arg((3,)), Arg((3,), "float32", 1, 3)), {"dim": 0}),
                                     ((Arg((3,)), Idx((3,), 3, dtype="int32")), {"dim": 0}),
                                     ((Arg((3,)), Arg((3,), "uint8", 1, 3)), {"dim": 0})), F),
    OpRecord("repeat_interleave", _s(((Arg((3,)),), {})), F,
             call=lambda T, x: T.repeat_interleave(x, T.tensor([1, -1, 2]), dim=0)),
    OpRecord("repeat_interleave", _s(((Arg((3,)),), {})), F,
             call=lambda T, x: T.repeat_interleave(x, T.tensor([1, 0, 2]), dim=0, output_size=3)),
    OpRecord("repeat_interleave", _s(((Arg((3,)),), {})), F,
             call=lambda T, x: T.repeat_interleave(x, T.tensor([1, 0, 2]), dim=0, output_size=5)),
]

for _name in ("tril", "triu"):
    RECORDS += [
        OpRecord(_name, lambda d: [((Arg((3, 4), d),), {}), ((Arg((3, 4), d),), {"diagonal": 1}),
                                   ((Arg((3, 4), d),), {"diagonal": -1}),
                                   ((Arg((2, 3, 4), d, noncontig=True),), {}), ((Arg((3, 4), d), 5), {}),
                                   ((Arg((3, 4), d), -7), {}), ((Arg((0, 3), d),), {})],
                 COMMON + ("complex64",), inplace=True, out=True),
        OpRecord(_name, _s(((Arg((3,)),), {}), ((Arg(()),), {})), F),
        OpRecord(_name, _s(((Arg((3, 3)),), {})), F,
                 call=lambda T, x, n=_name: getattr(T, n)(x, out=T.empty(0, dtype=T.float64))),
        OpRecord(_name, _s(((Arg((3, 3)),), {})), F, call=lambda T, x, n=_name: getattr(x.t(), n + "_")(1)),
        OpRecord(_name, _s(((Arg((3,)),), {})), F, call=lambda T, x, n=_name: getattr(x, n + "_")()),
    ]

RECORDS += [
    OpRecord("diag", lambda d: [((Arg((3,), d),), {}), ((Arg((3,), d), 1), {}),
                                ((Arg((3,), d, noncontig=True), -2), {}), ((Arg((3, 4), d),), {}),
                                ((Arg((3, 4), d, noncontig=True), 2), {}), ((Arg((3, 4), d), -1), {}),
                                ((Arg((3, 4), d), 5), {}), ((Arg((3, 4), d), -5), {}), ((Arg((0,), d),), {}),
                                ((Arg((0, 3), d),), {})], COMMON, out=True),
    OpRecord("diag", _s(((Arg((2, 2, 2)),), {}), ((Arg(()),), {})), F),
    OpRecord("diag", _s(((Arg((3, 3)),), {})), F, call=lambda T, x: T.diag(x, out=T.empty(0, dtype=T.int64))),
    OpRecord("diag_embed", lambda d: [((Arg((2, 3), d),), {}), ((Arg((2, 3), d), 1, 0, 2), {}),
                                      ((Arg((2, 3), d, noncontig=True), -1, 2, 0), {}), ((Arg((3,), d),), {}),
                                      ((Arg((2, 0), d),), {}), ((Arg((3,), d),), {"offset": -2})], COMMON),
    OpRecord("diag_embed", _s(((Arg((2, 3)), 0, 0, 0), {}), ((Arg(()),), {}),
                              ((Arg((2, 3)), 0, 0, 3), {})), F),
    OpRecord("diagflat", lambda d: [((Arg((3,), d),), {}), ((Arg((2, 2), d, noncontig=True), -1), {}),
                                    ((Arg((), d),), {}), ((Arg((0,), d), 1), {})], COMMON),
    OpRecord("trace", lambda d: [((Arg((3, 4), d),), {}), ((Arg((4, 4), d, noncontig=True),), {}),
                                 ((Arg((0, 3), d),), {})],
             COMMON + ("int32", "uint8", "float16", "complex64")),
    OpRecord("trace", _s(((Arg((2, 2, 2)),), {}), ((Arg(()),), {}), ((Arg((3,)),), {})), F),
    OpRecord("block_diag", lambda d: [((Arg((2, 3), d), Arg((2,), d), Arg((), d),
                                        Arg((1, 1), d, noncontig=True)), {}),
                                      ((Arg((2, 2), d),), {}), ((Arg((0, 3), d), Arg((2, 0), d)), {})],
             COMMON, method=False),
    OpRecord("block_diag", _s(((Arg((2, 2), "int64"), Arg((2,), "float32"), Arg((), "float64")), {}),
                              ((Arg((2,), "bool"), Arg((1, 2), "int32")), {}), ((), {}),
                              ((Arg((2, 2, 2)),), {})), F, method=False),
    OpRecord("meshgrid", lambda d: [((Arg((2,), d), Arg((3,), d, noncontig=True)), {"indexing": "ij"}),
                                    ((Arg((2,), d), Arg((3,), d), Arg((4,), d)), {"indexing": "xy"}),
                                    ((Arg((), d), Arg((3,), d)), {"indexing": "xy"}),
                                    ((Arg((2,), d),), {"indexing": "xy"}), ((Arg((0,), d), Arg((2,), d)), {}),
                                    ((Arg((2,), d), Arg((3,), d)), {})], COMMON, method=False),
    OpRecord("meshgrid", _s(((), {}), ((Arg((2,)), Arg((3,), "float64")), {"indexing": "ij"}),
                            ((Arg((2,)), Arg((3,))), {"indexing": "foo"}),
                            ((Arg((2,)), Arg((3,), "float64")), {"indexing": "foo"})), F, method=False),
    OpRecord("meshgrid", _s(((Arg((2, 2)), Arg((3,))), {"indexing": "ij"})), F, method=False, msg="prefix"),
    OpRecord("meshgrid", _s(((Arg((2,)), Arg((3,))), {})), F, method=False,
             call=lambda T, a, b: T.meshgrid([a, b], indexing="ij")),
    OpRecord("cartesian_prod", lambda d: [((Arg((2,), d), Arg((3,), d, noncontig=True)), {}),
                                          ((Arg((2,), d), Arg((2,), d), Arg((3,), d)), {}),
                                          ((Arg((3,), d),), {}), ((Arg((0,), d), Arg((2,), d)), {})], COMMON,
             method=False),
    OpRecord("cartesian_prod", _s(((Arg((2, 2)), Arg((3,))), {}), ((Arg((2,)), Arg((3,), "float64")), {}),
                                  ((Arg(()),), {})), F, method=False),
    OpRecord("take_along_dim", lambda d: [
        ((Arg((3, 4), d), Idx((3, 2), 4)), {"dim": 1}),
        ((Arg((3, 4), d, noncontig=True), Idx((2, 4), 3)), {"dim": 0}),
        ((Arg((3, 4), d), Idx((1, 2), 4)), {"dim": 1}), ((Arg((3, 1), d), Idx((3, 5), 4)), {"dim": -1}),
        ((Arg((3, 4), d), Idx((5,), 12)), {}), ((Arg((3, 4), d), Idx((3, 2), 4, low=-4)), {"dim": 1}),
        ((Arg((3, 4), d), Idx((3, 2), 9)), {"dim": 1}), ((Arg((3, 4), d), Idx((0, 4), 3)), {"dim": 0}),
        ((Arg((3, 4), d), Idx((2, 2), 12, dtype="int32")), {}),
    ], COMMON, out=True),
    OpRecord("take_along_dim", _s(((Arg((2, 3)), Idx((2, 2), 3)), {"dim": 2}),
                                  ((Arg((2, 3)), Arg((2, 2))), {"dim": 1}),
                                  ((Arg((2, 3)), Arg((4,))), {"dim": 1}), ((Arg((2, 3)), Arg((4,))), {}),
                                  ((Arg((2, 3)), Idx((1, 4), 3)), {"dim": 0}),
                                  ((Arg((2, 3)), Idx((2,), 9)), {}),
                                  ((Arg((2, 3)), Idx((2,), 0, low=-3)), {}),
                                  ((Arg((2, 3)), Idx((2, 2), 3, dtype="int32")), {"dim": 1})), F),
    OpRecord("take_along_dim", _s(((Arg((2, 3)), Idx((2, 2), 3)), {})), F,
             call=lambda T, x, i: T.take_along_dim(x, i, 1, out=T.empty(0, dtype=T.float64))),
]

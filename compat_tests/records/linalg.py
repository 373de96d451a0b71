"""Records for linear algebra (torchshim/ops/linalg.py). Inverse-type ops get well-conditioned inputs built
inside `call` (see `_wc`)."""
from harness import Arg, OpRecord

F = ("float32",)
PROD = ("float32", "float64", "int64", "complex64")
FC = ("float32", "float64", "complex64")


def _s(*items):
    return lambda d: list(items)


def _pairs(*pairs, nc=()):
    """Samples of two tensors of the record's dtype; shapes (and optional non-contiguous flags)."""
    def samples(d):
        return [((Arg(a, d, noncontig=i in nc), Arg(b, d, noncontig=i in nc)), {})
                for i, (a, b) in enumerate(pairs)]
    return samples


_MATMUL_OK = _pairs(((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3,)),
                    ((3,), (2, 3, 4)), ((2, 2, 3), (3, 4)), ((2, 3), (2, 3, 4)), ((2, 1, 2, 3), (4, 3, 2)),
                    ((2, 4, 3), (2, 3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 2)), ((0,), (0,)),
                    ((2, 3, 0), (0, 2)), nc=(3, 6, 7, 9))
_MATMUL_BAD = _s(*[((Arg(a), Arg(b, dt)), {}) for a, b, dt in (
    ((), (3,), "float32"), ((3,), (), "float32"), ((3,), (4,), "float32"), ((2, 3), (4,), "float32"),
    ((3,), (4, 2), "float32"), ((2, 3), (4, 2), "float32"), ((5, 2, 3), (4,), "float32"),
    ((3,), (5, 4, 2), "float32"), ((5, 2, 3), (4, 2), "float32"), ((2, 3), (5, 4, 2), "float32"),
    ((5, 2, 3), (5, 4, 2), "float32"), ((5, 2, 3), (4, 3, 2), "float32"),
    ((2, 1, 2, 3), (3, 4, 2), "float32"), ((2, 3), (3, 5), "float64"), ((3,), (3,), "float64"),
    ((3,), (3, 2), "float64"), ((2, 3), (3,), "float64"), ((2, 2, 3), (2, 3, 5), "float64"),
    ((2, 2, 3), (3,), "float64"), ((3,), (2, 3, 2), "float64"), ((2, 2, 3), (4, 2), "float64"),
    ((2, 3), (3,), "int64"))])
_BOOL = ("bool",)


def _wc(n):
    """A well-conditioned (n x n) input: x @ x.mT + n * I (real), 0.1 * x + n * I (complex)."""
    return lambda T, x: (0.1 * x if x.is_complex() else x @ x.mT) + n * T.eye(n, dtype=x.dtype)


RECORDS = [
    OpRecord("matmul", _MATMUL_OK, PROD, out=True),
    OpRecord("matmul", _pairs(((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((2, 2, 3), (2, 3, 2))),
             ("float16", "bfloat16", "int32", "uint8", "complex128")),
    OpRecord("matmul", _MATMUL_BAD, F),
    OpRecord("matmul", _pairs(((2, 3), (3,)), ((2, 3), (3, 2)), ((2, 2, 2), (2, 2, 2)), ((2,), (2,))), _BOOL),
    OpRecord("matmul", _s(((Arg((2, 3)), Arg((3, 4))), {}), ((Arg((2, 2, 3)), Arg((3,))), {})), F,
             call=lambda T, a, b: a @ b),
    OpRecord("matmul", _s(((Arg((2, 5, 3)), Arg((4, 2))), {}), ((Arg((2, 5, 3)), Arg((4,))), {}),
                          ((Arg((2, 3)), Arg((5, 2, 4))), {}), ((Arg((3,)), Arg((5, 2, 4))), {})), F,
             call=lambda T, a, b: (a.transpose(0, 1) if a.ndim == 3 else a) @ (b.mT if b.ndim == 3 else b)),
    OpRecord("matmul", _s(((Arg((2, 3)), Arg((3, 4))), {}), ((Arg((3,)), Arg((3,))), {}),
                          ((Arg((2, 2, 3)), Arg((2, 3, 4))), {})), F,
             call=lambda T, a, b: T.matmul(a, b, out=T.empty(0, dtype=T.float64))),
    OpRecord("matmul", _s(((Arg((3, 3)), Arg((3, 3))), {})), F, call=lambda T, a, b: (a, a.__imatmul__(b))),
    OpRecord("mm", _pairs(((2, 3), (3, 4)), ((4, 3), (3, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 2)),
                          nc=(1,)), PROD,
             out=True),
    OpRecord("mm", _s(((Arg((2, 3)), Arg((4, 5))), {}), ((Arg((2, 3)), Arg((3, 5), "float64")), {}),
                      ((Arg((3,)), Arg((3, 5))), {}), ((Arg((2, 3)), Arg((3,))), {}),
                      ((Arg((2, 3)), Arg((4, 2), "float64")), {}),
                      ((Arg((2, 3), "int64"), Arg((3, 2), "bool")), {}),
                      ((Arg((2, 2, 3)), Arg((3, 5))), {})), F),
    OpRecord("mm", _pairs(((2, 3), (3, 2))), _BOOL),
    OpRecord("mm", _s(((Arg((2, 3)), Arg((3, 4))), {})), F,
             call=lambda T, a, b: T.mm(a, b, out=T.empty(0, dtype=T.float64))),
    OpRecord("bmm", _pairs(((2, 2, 3), (2, 3, 4)), ((3, 2, 3), (3, 3, 2)), ((0, 2, 3), (0, 3, 2)),
                           nc=(1,)), PROD,
             out=True),
    OpRecord("bmm", _s(((Arg((2, 3)), Arg((3, 2))), {}), ((Arg((2, 2, 3)), Arg((3, 2))), {}),
                      ((Arg((2, 2, 3)), Arg((3, 3, 2))), {}), ((Arg((2, 2, 3)), Arg((2, 4, 2))), {}),
                      ((Arg((2, 2, 3)), Arg((2, 3, 2), "float64")), {}),
                      ((Arg((2, 2, 3), "float64"), Arg((2, 3, 2))), {})), F),
    OpRecord("bmm", _pairs(((2, 2, 3), (2, 3, 2))), _BOOL),
    OpRecord("mv", _pairs(((2, 3), (3,)), ((4, 3), (3,)), ((0, 3), (3,)), ((2, 0), (0,)), nc=(1,)),
             PROD, out=True),
    OpRecord("mv", _s(((Arg((2, 3)), Arg((4,))), {}), ((Arg((3,)), Arg((3,))), {}),
                      ((Arg((2, 3)), Arg((3, 1))), {}), ((Arg((2, 3)), Arg((3,), "float64")), {}),
                      ((Arg((2, 3), "float64"), Arg((3,))), {}), ((Arg((2, 3), "int64"), Arg((3,))), {})), F),
    OpRecord("mv", _pairs(((2, 3), (3,))), _BOOL),
    OpRecord("dot", _pairs(((3,), (3,)), ((5,), (5,)), ((0,), (0,)), nc=(1,)), PROD + ("int32",), out=True),
    OpRecord("dot", _s(((Arg((2, 2)), Arg((2, 2))), {}), ((Arg((2,)), Arg((2,), "float64")), {}),
                       ((Arg((2,)), Arg((3,))), {}), ((Arg(()), Arg(())), {}),
                       ((Arg((2,)), Arg((3,), "float64")), {}),
                       ((Arg((2, 2)), Arg((2,), "float64")), {})), F),
    OpRecord("dot", _pairs(((2,), (2,))), _BOOL),
    OpRecord("dot", _s(((Arg((3,)), Arg((3,))), {})), F,
             call=lambda T, a, b: T.dot(a, b, out=T.empty(0, dtype=T.float64))),
    OpRecord("vdot", _pairs(((3,), (3,)), ((0,), (0,)), nc=(0,)), PROD + ("complex128",), out=True),
    OpRecord("vdot", _s(((Arg((2, 2)), Arg((2, 2))), {}), ((Arg((2,)), Arg((2,), "float64")), {}),
                        ((Arg((2,)), Arg((3,))), {})), F),
    OpRecord("vdot", _pairs(((2,), (2,))), _BOOL),
    OpRecord("outer", _pairs(((3,), (4,)), ((0,), (2,)), ((3,), (4,)), nc=(2,)), PROD + ("bool",), out=True,
             covers=("ger",)),
    OpRecord("outer", _s(((Arg((2,)), Arg((3,), "float64")), {}),
                         ((Arg((2,), "bool"), Arg((3,), "int64")), {}), ((Arg((2, 2)), Arg((3,))), {}),
                         ((Arg((2,)), Arg((3, 1))), {}), ((Arg(()), Arg((2,))), {})), F),
    OpRecord("outer", _s(((Arg((2,)), Arg((3,))), {})), F, call=lambda T, a, b: T.ger(a, b)),
    OpRecord("outer", _s(((Arg((2,)), Arg((3,))), {})), F,
             call=lambda T, a, b: T.outer(a, b, out=T.empty(0, dtype=T.int64))),
    OpRecord("inner", _pairs(((2, 3), (4, 3)), ((3,), (3,)), ((2, 3), (3,)), ((), (4, 3)), ((), ()),
                             ((2, 2, 3), (4, 3)), ((2, 0), (3, 0)), nc=(0, 5)), PROD, out=True),
    OpRecord("inner", _s(((Arg((2, 3)), Arg((4, 2))), {}), ((Arg((3,)), Arg((3,), "float64")), {}),
                         ((Arg(()), Arg((3,), "float64")), {}), ((Arg((2,), "bool"), Arg((2,), "bool")), {}),
                         ((Arg((2, 2), "bool"), Arg((2, 2), "bool")), {})), F),
    OpRecord("inner", _s(((Arg((2, 3)), Arg((4, 3))), {})), F,
             call=lambda T, a, b: T.inner(a, b, out=T.empty(0, dtype=T.float64))),
    OpRecord("tensordot", lambda d: [((Arg((2, 3, 4), d), Arg((3, 4, 5), d)), {}),
                                     ((Arg((2, 3, 4), d, noncontig=True), Arg((4, 3, 5), d)),
                                      {"dims": ([1, 2], [1, 0])}),
                                     ((Arg((2, 3), d), Arg((4,), d)), {"dims": 0}),
                                     ((Arg((2, 3), d), Arg((3, 4), d)), {"dims": 1}),
                                     ((Arg((2, 3), d), Arg((1, 4), d)), {"dims": ([1], [0])}),
                                     ((Arg((2, 1), d), Arg((3, 4), d)), {"dims": ([1], [0])}),
                                     ((Arg((2, 3), d), Arg((3, 4), d)), {"dims": ([], [])}),
                                     ((Arg((2, 3), d), Arg((3, 4), d)), {"dims": ([-1], [-2])})], PROD,
             method=False, out=True),
    OpRecord("tensordot", _s(((Arg((2, 3, 4)), Arg((3, 4, 5), "float64")), {}),
                             ((Arg((2, 3, 4)), Arg((4, 3, 5))), {"dims": ([1], [0])}),
                             ((Arg((2, 3)), Arg((3, 4))), {"dims": -1}),
                             ((Arg((2, 3)), Arg((3, 4))), {"dims": 3}),
                             ((Arg((2, 3)), Arg((3, 4))), {"dims": [1, 0]}),
                             ((Arg((2, 3)), Arg((3, 4))), {"dims": ([1], 0)}),
                             ((Arg((2, 3)), Arg((3, 4))), {"dims": ([1, 0], [0])}),
                             ((Arg((3, 3)), Arg((3, 3))), {"dims": ([0, 0], [0, 1])}),
                             ((Arg((2, 3)), Arg((3, 4))), {"dims": ([2], [0])}),
                             ((Arg((2, 2), "bool"), Arg((2, 2), "bool")), {}),
                             ((Arg((2, 3), "bool"), Arg((3, 2), "bool")), {"dims": 1})), F, method=False),
    OpRecord("tensordot", _s(((Arg((2, 3)), Arg((3, 4))), {})), F,
             call=lambda T, a, b: T.tensordot(a, b, dims=T.tensor(1))),
    OpRecord("tensordot", _s(((Arg((2, 3)), Arg((3, 4))), {})), F,
             call=lambda T, a, b: T.tensordot(a, b, 1, out=T.empty(0, dtype=T.float64))),
    OpRecord("kron", _pairs(((2, 3), (3, 2)), ((2,), (3,)), ((2, 3), (2, 2, 2)), ((), (2,)), ((), ()),
                            ((0, 2), (2, 2)), nc=(0,)), PROD + ("bool",), out=True),
    OpRecord("kron", _s(((Arg((2, 3)), Arg((2,), "float64")), {}),
                        ((Arg((2, 3), "int64"), Arg((2,), "bool")), {})), F),
    OpRecord("kron", _s(((Arg((2, 3)), Arg((2,))), {})), F,
             call=lambda T, a, b: T.kron(a, b, out=T.empty(0, dtype=T.int64))),
]

_ADD_BAD = {
    "addmm": [((3,), (2, 3), (3, 3), "float64", "float32"), ((4,), (2, 3), (3, 3), "float32", "float32"),
              ((2, 2), (2, 3), (4, 2), "float32", "float32"), ((3,), (2, 3), (3, 3), "float32", "float64"),
              ((3,), (2, 2, 3), (3, 3), "float32", "float32"), ((3,), (2, 3), (3,), "float32", "float32"),
              ((1, 2, 3), (2, 3), (3, 3), "float32", "float32"), ((5,), (2, 3), (4, 2), "float32", "float32"),
              ((4,), (2, 3), (3, 3), "float64", "float32")],
    "addmv": [((2,), (2, 3), (4,), "float32", "float32"), ((3,), (2, 3), (3,), "float32", "float32"),
              ((2, 2), (2, 3), (3,), "float32", "float32"), ((2,), (2, 3), (3,), "float64", "float32"),
              ((2,), (2, 3), (3, 1), "float64", "float32")],
    "addbmm": [((2, 2), (4, 2, 3), (3, 3, 2), "float32", "float32"),
               ((2, 2), (4, 2, 3), (4, 4, 2), "float32", "float32"),
               ((3, 3), (4, 2, 3), (4, 3, 2), "float32", "float32"),
               ((2, 2), (2, 3), (4, 3, 2), "float32", "float32"),
               ((2, 2), (4, 2, 3), (3, 2), "float32", "float32"),
               ((2, 2), (4, 2, 3), (4, 3, 2), "float64", "float32")],
    "baddbmm": [((2, 2), (4, 2, 3), (4, 4, 2), "float32", "float32"),
                ((3, 2, 2), (4, 2, 3), (4, 3, 2), "float32", "float32"),
                ((2, 2), (2, 3), (3, 2), "float32", "float32"),
                ((2, 2), (4, 2, 3), (4, 3, 2), "float64", "float32"),
                ((2, 2), (2, 3), (4, 3, 2), "float32", "float32")],
}
_ADD_OK = {
    "addmm": [((2, 4), (2, 3), (3, 4)), ((4,), (2, 3), (3, 4)), ((), (2, 3), (3, 4)),
              ((2, 1), (2, 3), (3, 4)), ((0, 4), (0, 3), (3, 4))],
    "addmv": [((2,), (2, 3), (3,)), ((), (2, 3), (3,)), ((1,), (2, 3), (3,)), ((0,), (0, 3), (3,))],
    "addbmm": [((2, 4), (5, 2, 3), (5, 3, 4)), ((4,), (5, 2, 3), (5, 3, 4)), ((), (0, 2, 3), (0, 3, 4))],
    "baddbmm": [((5, 2, 4), (5, 2, 3), (5, 3, 4)), ((2, 4), (5, 2, 3), (5, 3, 4)),
                ((), (5, 2, 3), (5, 3, 4))],
}
for _name in _ADD_OK:
    RECORDS += [
        OpRecord(_name, lambda d, n=_name: [((Arg(a, d), Arg(b, d, noncontig=i == 0), Arg(c, d)), {})
                                            for i, (a, b, c) in enumerate(_ADD_OK[n])]
                 + [((Arg(a, d), Arg(b, d), Arg(c, d)), {"beta": 0.5, "alpha": 2})
                    for a, b, c in _ADD_OK[n][:1]]
                 + [((Arg(a, d), Arg(b, d), Arg(c, d)), {"beta": 0}) for a, b, c in _ADD_OK[n][:1]],
                 ("float32", "float64", "complex64"), inplace=True, out=True),
        OpRecord(_name, lambda d, n=_name: [((Arg(a, d), Arg(b, d), Arg(c, d)), {"beta": 2, "alpha": 3})
                                            for a, b, c in _ADD_OK[n][:2]]
                 + [((Arg(a, d), Arg(b, d), Arg(c, d)), {"beta": 1.5, "alpha": 2.5})
                    for a, b, c in _ADD_OK[n][:1]],
                 ("int64",), inplace=True),
        OpRecord(_name, lambda d, n=_name: [((Arg(a, d), Arg(b, d), Arg(c, d)), {})
                                            for a, b, c in _ADD_OK[n][:1]],
                 _BOOL),
        OpRecord(_name, lambda d, n=_name: [((Arg(a, s), Arg(b, m), Arg(c, m)), {})
                                            for a, b, c, s, m in _ADD_BAD[n]],
                 F),
        OpRecord(_name, lambda d, n=_name: [((Arg(_ADD_OK[n][1][0]), Arg(_ADD_OK[n][1][1]),
                                              Arg(_ADD_OK[n][1][2])), {})],
                 F, call=lambda T, x, a, b, n=_name: getattr(x, n + "_")(a, b)),
        OpRecord(_name, lambda d, n=_name: [((Arg(a), Arg(b), Arg(c)), {}) for a, b, c in _ADD_OK[n][:1]], F,
                 call=lambda T, x, a, b, n=_name: getattr(T, n)(x, a, b, out=T.empty(0, dtype=T.float64))),
    ]
RECORDS += [
    OpRecord("addmm", _s(((Arg((2, 2)), Arg((2, 3)), Arg((3, 2))), {})), F,
             call=lambda T, x, a, b: T.addmm(x.fill_(float("nan")), a, b, beta=0)),
    OpRecord("baddbmm", _s(((Arg((2, 2)), Arg((2, 2, 3)), Arg((2, 3, 2), "float64")), {}),
                           ((Arg((2, 2)), Arg((2, 2, 3), "float64"), Arg((2, 3, 2))), {})), F),
]

_EINSUM = [
    ("ij,jk->ik", ((2, 3), (3, 4))), ("ij,jk", ((2, 3), (3, 4))), ("...ij,...jk", ((2, 2, 3), (3, 4))),
    ("ii", ((3, 3),)), ("ii->i", ((3, 3),)), ("i,j", ((3,), (2,))), ("ij,ij->ij", ((1, 3), (2, 3))),
    ("i->", ((0,),)), ("ij,jk,kl->il", ((2, 3), (3, 4), (4, 5))), ("i j , j k -> i k", ((2, 3), (3, 4))),
    ("iJ,Jk->ik", ((2, 3), (3, 4))), ("...ij,...jk->...ik", ((2, 1, 2, 3), (5, 3, 4))),
    ("bij->bji", ((2, 3, 4),)), ("ij->", ((2, 3),)), ("i,i", ((3,), (3,))), ("ba,ab->", ((2, 3), (3, 2))),
    ("i...->...", ((2, 3, 4),)),
]
RECORDS += [
    OpRecord("einsum", lambda d: [(tuple(Arg(s, d, noncontig=k == 2) for s in shapes), {"eq": eq})
                                  for k, (eq, shapes) in enumerate(_EINSUM)], PROD, method=False,
             call=lambda T, *xs, eq: T.einsum(eq, *xs)),
    OpRecord("einsum", _s(((Arg((2, 3)), Arg((3, 4))), {})), F,
             call=lambda T, a, b: (T.einsum("ij,jk->ik", [a, b]), T.einsum(a, [0, 1], b, [1, 2], [0, 2]),
                                   T.einsum(a, [Ellipsis, 0], a, [Ellipsis, 0]))),
    OpRecord("einsum", lambda d: [((Arg((2, 3)), Arg(s, dt)), {"eq": eq}) for eq, s, dt in (
        ("ij,jk->ik", (4, 4), "float32"), ("ij,kl->ik", (4, 4), "float64"), ("ij,jk->ik", (3, 4), "float64"),
        ("i1,jk", (3, 4), "float32"), ("i,j", (3, 4), "float32"), ("ij,jk->ii", (3, 4), "float32"),
        ("ij,jk->iz", (3, 4), "float32"), ("ij->i->j", (3, 4), "float32"), ("ij,jk,kl", (3, 4), "float32"),
        ("ij,jk->ik", (3, 4), "bool"), ("ij,ij->ij", (2, 3), "bool"), ("ij", (3, 4), "float32"),
        ("...ijk,jk", (3, 4), "float32"), ("ij,ij->ij", (2, 3), "int64"))], F, method=False,
             call=lambda T, *xs, eq: T.einsum(eq, *xs)),
    OpRecord("einsum", _s(((Arg((2, 3)),), {}), ((Arg((2,)),), {})), F, method=False,
             call=lambda T, a: T.einsum("ij,jk", a, a, a) if a.ndim == 2 else T.einsum("ij")),
]

RECORDS += [
    OpRecord("inverse", lambda d: [((Arg((3, 3), d),), {}), ((Arg((2, 4, 4), d, noncontig=True),), {}),
                                   ((Arg((1, 1), d),), {})], FC, out=True,
             call=lambda T, x: T.inverse(_wc(x.shape[-1])(T, x))),
    OpRecord("inverse", _s(((Arg((0, 0)),), {}), ((Arg((0, 2, 2)),), {}), ((Arg((2, 3)),), {}),
                           ((Arg((3,)),), {}), ((Arg((3, 3), "int64"),), {}), ((Arg((2, 3), "int64"),), {}),
                           ((Arg((2, 2, 3)),), {})), F),
    OpRecord("inverse", _s(((Arg((3, 3)),), {})), F,
             call=lambda T, x: T.inverse(x, out=T.empty(0, dtype=T.float64))),
    OpRecord("inverse", _s(((Arg((2, 2)),), {})), ("float32", "float64"),
             call=lambda T, x: T.inverse(T.tensor([[1., 2.], [2., 4.]], dtype=x.dtype))),
    OpRecord("inverse", _s(((Arg((2, 2)),), {})), F,
             call=lambda T, x: T.inverse(T.stack([T.eye(2), T.tensor([[1., 2.], [2., 4.]])]))),
    OpRecord("det", lambda d: [((Arg((3, 3), d),), {}), ((Arg((2, 4, 4), d, noncontig=True),), {}),
                               ((Arg((1, 1), d),), {}), ((Arg((0, 0), d),), {}),
                               ((Arg((2, 2), d),), {})], FC),
    OpRecord("det", _s(((Arg((2, 3)),), {}), ((Arg((3,)),), {}), ((Arg((3, 3), "int64"),), {}),
                       ((Arg((2, 2), "float16"),), {})), F),
    OpRecord("det", _s(((Arg((2, 2)),), {})), F, call=lambda T, x: T.det(T.tensor([[1., 2.], [2., 4.]]))),
    OpRecord("logdet", lambda d: [((Arg((3, 3), d),), {}), ((Arg((2, 4, 4), d, noncontig=True),), {})], FC,
             call=lambda T, x: T.logdet(_wc(x.shape[-1])(T, x))),
    OpRecord("logdet", lambda d: [((Arg((3, 3), d),), {}), ((Arg((2, 4, 4), d),), {}),
                                  ((Arg((2, 3), d),), {}), ((Arg((3,), d),), {}),
                                  ((Arg((3, 3), "int64"),), {})], FC),
    OpRecord("logdet", _s(((Arg((2, 2)),), {})), F,
             call=lambda T, x: (T.logdet(T.tensor([[1., 2.], [2., 4.]])),
                                T.logdet(T.tensor([[-1., 0.], [0., 1.]])))),
    OpRecord("slogdet", lambda d: [((Arg((3, 3), d),), {}), ((Arg((2, 4, 4), d, noncontig=True),), {}),
                                   ((Arg((0, 0), d),), {})], FC, out=True),
    OpRecord("slogdet", _s(((Arg((2, 3)),), {}), ((Arg((3,)),), {}), ((Arg((3, 3), "int64"),), {})), F),
    OpRecord("slogdet", _s(((Arg((2, 2)),), {})), F,
             call=lambda T, x: T.slogdet(T.tensor([[1., 2.], [2., 4.]]))),
    OpRecord("slogdet", _s(((Arg((3, 3)),), {})), F,
             call=lambda T, x: T.slogdet(x, out=(T.empty(0, dtype=T.float64), T.empty(0, dtype=T.float64)))),
    OpRecord("solve", _s(((Arg((3, 2)), Arg((3, 3))), {})), F),
    OpRecord("solve", _s(((), {})), F, call=lambda T: (hasattr(T, "gesv"), hasattr(T, "solve"))),
]

RECORDS += [
    OpRecord("cross", lambda d: [((Arg((3,), d), Arg((3,), d)), {"dim": 0}),
                                 ((Arg((2, 3), d), Arg((2, 3), d)), {"dim": 1}),
                                 ((Arg((3, 2), d, noncontig=True), Arg((3, 2), d)), {"dim": 0}),
                                 ((Arg((2, 3), d), Arg((1, 3), d)), {"dim": -1}),
                                 ((Arg((4, 3), d), Arg((4, 3), d)), {}),
                                 ((Arg((3, 3), d), Arg((3, 3), d)), {}),
                                 ((Arg((0, 3), d), Arg((0, 3), d)), {"dim": 1})],
             ("float32", "float64", "int64", "complex64"), out=True),
    OpRecord("cross", _s(((Arg((2, 3)), Arg((2, 3))), {"dim": 0}), ((Arg((2, 4)), Arg((2, 4))), {}),
                         ((Arg((2, 3)), Arg((3,))), {"dim": 1}), ((Arg((2, 3)), Arg((2, 3))), {"dim": 2}),
                         ((Arg((2, 3)), Arg((2, 2), "float64")), {"dim": 1}),
                         ((Arg((2, 3)), Arg((4, 3))), {"dim": 1}),
                         ((Arg((3,)), Arg((3,), "float64")), {"dim": 0}),
                         ((Arg((3,), "bool"), Arg((3,), "bool")), {"dim": 0}), ((Arg(()), Arg(())), {})), F),
    OpRecord("cross", _s(((Arg((3,)), Arg((3,))), {})), F,
             call=lambda T, a, b: T.cross(a, b, dim=0, out=T.empty(0, dtype=T.int64))),
    OpRecord("cdist", lambda d: [((Arg((4, 3), d), Arg((5, 3), d)), {}),
                                 ((Arg((4, 3), d), Arg((5, 3), d)), {"p": 1.0}),
                                 ((Arg((4, 3), d), Arg((5, 3), d)), {"p": 0.0}),
                                 ((Arg((4, 3), d), Arg((5, 3), d)), {"p": float("inf")}),
                                 ((Arg((4, 3), d, noncontig=True), Arg((5, 3), d)), {"p": 1.5}),
                                 ((Arg((2, 4, 3), d), Arg((1, 5, 3), d)), {}),
                                 ((Arg((30, 3), d), Arg((4, 3), d)), {}),
                                 ((Arg((30, 3), d), Arg((4, 3), d)),
                                  {"compute_mode": "donot_use_mm_for_euclid_dist"}),
                                 ((Arg((4, 3), d), Arg((5, 3), d)),
                                  {"compute_mode": "use_mm_for_euclid_dist"}),
                                 ((Arg((0, 3), d), Arg((5, 3), d)), {})], ("float32", "float64"),
             method=False),
    OpRecord("cdist", _s(((Arg((2, 3)), Arg((4, 3))), {"compute_mode": "foo"}),
                         ((Arg((2, 3)), Arg((4, 2))), {}), ((Arg((2, 3), "int64"), Arg((4, 3), "int64")), {}),
                         ((Arg((2, 3)), Arg((4, 3), "float64")), {}), ((Arg((3,)), Arg((3,))), {}),
                         ((Arg((2, 3)), Arg((3,))), {}), ((Arg((2, 3)), Arg((4, 3))), {"p": -1}),
                         ((Arg((2, 2, 3)), Arg((3, 4, 3))), {}), ((Arg((2, 3)), Arg((4, 3), "int64")), {}),
                         ((Arg((2, 3), "float16"), Arg((2, 3), "float16")), {}),
                         ((Arg((2, 3), "complex64"), Arg((2, 3), "complex64")), {})), F, method=False),
    OpRecord("matrix_power", lambda d: [((Arg((3, 3), d, -1, 1), n), {}) for n in (0, 1, 2, 3, 5, 6)]
             + [((Arg((2, 3, 3), d, -1, 1, noncontig=True), 4), {}), ((Arg((0, 0), d), 2), {})],
             ("float32", "float64", "int64", "complex64"), out=True),
    OpRecord("matrix_power", lambda d: [((Arg((3, 3), d), n), {}) for n in (-1, -2, -3)], FC,
             call=lambda T, x, n: T.matrix_power(_wc(3)(T, x), n)),
    OpRecord("matrix_power", _s(((Arg((3, 3), "int64"), -1), {}), ((Arg((2, 3)), 2), {}),
                                ((Arg((3,)), 2), {}), ((Arg(()), 2), {})), F),
    OpRecord("matrix_power", _s(((Arg((3, 3)),), {})), F,
             call=lambda T, x: (T.matrix_power(x, 2, out=T.empty(0, dtype=T.float64)))),
    OpRecord("matrix_power", _s(((Arg((3, 3)),), {})), F,
             call=lambda T, x: (T.matrix_power(x, 2, out=T.empty(0, dtype=T.int64)))),
    OpRecord("pinverse", lambda d: [((Arg((2, 3), d),), {}), ((Arg((4, 3), d, noncontig=True),), {}),
                                    ((Arg((3, 3), d),), {"rcond": 0.1}), ((Arg((2, 2, 3), d),), {}),
                                    ((Arg((0, 3), d),), {})], FC),
    OpRecord("pinverse", _s(((Arg((2, 3), "int64"),), {}), ((Arg((3,)),), {})), F),
]

"""Records for the distance functionals (torchshim/ops/nn_distance.py): cosine_similarity, pairwise_distance,
pdist (as `torch.<name>` and `torch.nn.functional.<name>`, the same functions)."""
from harness import Arg, OpRecord

F = ("float32",)
FL = ("float32", "float64")
F16 = ("float16", "bfloat16")


def Fn(name):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **kw)


def s(*items):
    return lambda d: list(items)


def _pairs(d):
    yield (Arg((3, 5), d), Arg((3, 5), d)), {}
    yield (Arg((3, 5), d), Arg((3, 5), d)), {"keepdim": True}
    for p in (1, 3.5, 0, float("inf"), float("-inf"), 0.5, -1.0):
        yield (Arg((3, 5), d), Arg((3, 5), d)), {"p": p}
    yield (Arg((3, 5), d), Arg((3, 5), d)), {"eps": 0.1, "p": 1.5}
    yield (Arg((4, 3), d, noncontig=True), Arg((4, 3), d, noncontig=True)), {}
    yield (Arg((5,), d), Arg((5,), d)), {"keepdim": True}
    yield (Arg((), d), Arg((), d)), {}
    yield (Arg((3, 5), d), Arg((5,), d)), {}
    yield (Arg((5,), d), Arg((3, 5), d)), {"p": 1}
    yield (Arg((2, 3, 4), d), Arg((2, 3, 4), d)), {"keepdim": True}
    yield (Arg((0, 4), d), Arg((0, 4), d)), {}
    yield (Arg((3, 5), d), Arg((3, 5), d)), {"p": 2}


def _cos(d):
    yield (Arg((3, 5), d), Arg((3, 5), d)), {}
    yield (Arg((3, 5), d), Arg((3, 5), d)), {"dim": 0}
    yield (Arg((3, 5), d), Arg((3, 5), d)), {"dim": -1, "eps": 0.5}
    yield (Arg((4, 3), d, noncontig=True), Arg((4, 3), d, noncontig=True)), {}
    yield (Arg((2, 3, 4), d), Arg((3, 4), d)), {"dim": 2}
    yield (Arg((5,), d), Arg((5,), d)), {"dim": 0}
    yield (Arg((), d), Arg((), d)), {"dim": -1}
    yield (Arg((3, 5), d, -1e-9, 1e-9), Arg((3, 5), d)), {}  # norms below eps: clamped
    yield (Arg((0, 4), d), Arg((0, 4), d)), {}
    yield (Arg((3, 0), d), Arg((3, 0), d)), {}
    yield (Arg((3, 5), d), Arg((1, 5), d)), {"dim": 1}


def _pdist(d):
    yield (Arg((4, 3), d),), {}
    for p in (1, 0, 3.5, float("inf"), 0.5):
        yield (Arg((4, 3), d),), {"p": p}
    yield (Arg((3, 5), d, noncontig=True),), {}
    yield (Arg((1, 3), d),), {}
    yield (Arg((0, 3), d),), {}
    yield (Arg((4, 0), d),), {}
    yield (Arg((5, 2), d),), {"p": 2}


RECORDS = [
    OpRecord("pairwise_distance", _pairs, FL, method=False),
    OpRecord("pairwise_distance", lambda d: list(_pairs(d))[:4], F16, method=False),
    OpRecord("pairwise_distance", lambda d: list(_pairs(d))[:6], FL, call=Fn("pairwise_distance")),
    OpRecord("pairwise_distance", s(((Arg((3, 5), "int64"), Arg((3, 5), "int64")), {}),
                                    ((Arg((3, 5)), Arg((3, 5), "float64")), {}),
                                    ((Arg((3, 5), "bool"), Arg((3, 5), "bool")), {}),
                                    ((Arg((3, 5)), Arg((3, 5), "bool")), {}),
                                    ((Arg((3, 5), "complex64"), Arg((3, 5), "complex64")), {}),
                                    ((Arg((3, 5)), Arg((4, 5))), {})), F, method=False),
    OpRecord("cosine_similarity", _cos, FL, method=False),
    OpRecord("cosine_similarity", lambda d: list(_cos(d))[:4], F16, method=False),
    OpRecord("cosine_similarity", lambda d: list(_cos(d))[:3], FL, call=Fn("cosine_similarity")),
    OpRecord("cosine_similarity", s(((Arg((3, 5), "int64"), Arg((3, 5), "int64")), {}),
                                    ((Arg((3, 5)), Arg((3, 5), "int64")), {}),
                                    ((Arg((3, 5)), Arg((3, 5), "float64")), {}),
                                    ((Arg((3, 5), "bool"), Arg((3, 5), "bool")), {}),
                                    ((Arg((3, 5), "complex64"), Arg((3, 5), "complex64")), {}),
                                    ((Arg((3, 5)), Arg((3, 5))), {"dim": 5}), ((Arg((5,)), Arg((5,))), {}),
                                    ((Arg((3, 5)), Arg((4, 5))), {})), F, method=False),
    OpRecord("pdist", _pdist, FL, method=False),
    OpRecord("pdist", lambda d: list(_pdist(d))[:3], FL, call=Fn("pdist")),
    OpRecord("pdist", s(((Arg((3,)),), {}), ((Arg((2, 3, 4)),), {}), ((Arg((3, 4), "int64"),), {}),
                        ((Arg((3, 4), "float16"),), {}), ((Arg((3, 4), "bfloat16"),), {}),
                        ((Arg((3, 4)),), {"p": -1.0})), F, method=False),
]

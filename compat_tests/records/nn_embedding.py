"""Records for embeddings (torchshim/ops/nn_embedding.py, torchshim/nn/functional/sparse.py): torch.embedding
and F.embedding (padding_idx, scale_grad_by_freq, max_norm's in-place renormalization, index errors),
torch.embedding_renorm_, F.embedding_bag (offsets, 2-d bags, sum/mean/max, per_sample_weights, padding_idx,
include_last_offset, empty bags, errors) and F.one_hot."""
from harness import Arg, Idx, OpRecord

FL = ("float32", "float64")


def emb_samples(d):
    yield (Arg((10, 3), d), Idx((2, 4), 10)), {}
    yield (Arg((10, 3), d), Idx((5,), 10, dtype="int32")), {"padding_idx": 2}
    yield (Arg((10, 3), d, noncontig=True), Idx((3, 2), 10)), {"scale_grad_by_freq": True}
    yield (Arg((4, 2), d), Idx((6,), 4)), {"padding_idx": 1, "scale_grad_by_freq": True}
    yield (Arg((10, 3), d), Idx((), 10)), {}
    yield (Arg((10, 3), d), Idx((0,), 10)), {}
    yield (Arg((10, 3), d), Idx((3,), 12, 9)), {}
    yield (Arg((10, 3), d), Idx((3,), 3, -2)), {}
    yield (Arg((10, 3), d), Arg((3,), "float32", 0, 5)), {}
    yield (Arg((10,), d), Idx((3,), 10)), {}


def F_emb_samples(d):
    yield (Idx((2, 4), 10), Arg((10, 3), d)), {}
    yield (Idx((6,), 10), Arg((10, 3), d)), {"padding_idx": 3}
    yield (Idx((6,), 10), Arg((10, 3), d)), {"padding_idx": -2}
    yield (Idx((6,), 10), Arg((10, 3), d)), {"padding_idx": 0, "scale_grad_by_freq": True}
    yield (Idx((6,), 10), Arg((10, 3), d)), {"padding_idx": 10}
    yield (Idx((6,), 10), Arg((10, 3), d)), {"padding_idx": -11}
    yield (Idx((3,), 11), Arg((10, 3), d)), {}


def max_norm_samples(d):
    yield (Idx((2, 4), 10), Arg((10, 3), d)), {"max_norm": 1.0}
    yield (Idx((5,), 10), Arg((10, 3), d)), {"max_norm": 2.0, "norm_type": 1.0}
    yield (Idx((5,), 10), Arg((10, 3), d)), {"max_norm": 1.5, "norm_type": float("inf")}
    yield (Idx((5,), 10), Arg((10, 3), d)), {"max_norm": 0.5, "padding_idx": 2}


def renorm_samples(d):
    yield (Arg((10, 3), d), Idx((6,), 10)), {"max_norm": 1.0, "norm_type": 2.0}
    yield (Arg((10, 3), d), Idx((6,), 10, dtype="int32")), {"max_norm": 2.0, "norm_type": 1.0}
    yield (Arg((10, 3), d), Idx((4,), 10, -10)), {"max_norm": 1.0, "norm_type": 3.0}
    yield (Arg((10, 3), d), Idx((4,), 13, 8)), {"max_norm": 1.0, "norm_type": 2.0}
    yield (Arg((10, 3), d), Arg((4,), "float32", 0, 5)), {"max_norm": 1.0, "norm_type": 2.0}
    yield (Arg((10,), d), Idx((4,), 10)), {"max_norm": 1.0, "norm_type": 2.0}


def _renorm(T, w, i, max_norm, norm_type):
    w = w.detach().clone()
    r = T.embedding_renorm_(w, i, max_norm, norm_type)
    assert r is w
    return w


def _with_weight(T, i, w, **kw):
    """F.embedding with max_norm renormalizes weight in place: compare the result and the weight."""
    out = T.nn.functional.embedding(i, w, **kw)
    return out, w.detach().clone()


def _bag(T, i, w, *psw, offsets=None, bad=None, **kw):
    if bad is not None:  # (position, value): one out-of-range index at a chosen place
        i = i.clone()
        i[bad[0]] = bad[1]
    if offsets is not None:
        kw["offsets"] = T.tensor(offsets, dtype=i.dtype if "int" in str(i.dtype) else T.int64)
    if psw:
        kw["per_sample_weights"] = psw[0]
    return T.nn.functional.embedding_bag(i, w, **kw)


def bag_samples(d):
    for mode in ("mean", "sum", "max"):
        yield (Idx((8,), 10), Arg((10, 3), d)), {"offsets": [0, 3, 3, 5], "mode": mode}
        yield (Idx((3, 4), 10), Arg((10, 3), d)), {"mode": mode}
        yield (Idx((8,), 10), Arg((10, 3), d)), {"offsets": [0, 2, 8], "mode": mode,
                                                 "include_last_offset": True}
        yield (Idx((8,), 4), Arg((4, 3), d)), {"offsets": [0, 4], "mode": mode, "padding_idx": 1}
        yield (Idx((8,), 4), Arg((4, 3), d)), {"offsets": [0, 4, 6], "mode": mode, "padding_idx": -1}
    yield (Idx((6,), 10), Arg((10, 3), d), Arg((6,), d)), {"offsets": [0, 2, 2], "mode": "sum"}
    yield (Idx((2, 3), 10), Arg((10, 3), d), Arg((2, 3), d)), {"mode": "sum", "padding_idx": 0}
    yield (Idx((0,), 10), Arg((10, 3), d)), {"offsets": [0, 0]}
    yield (Idx((2, 0), 10), Arg((10, 3), d)), {"mode": "sum"}
    yield (Idx((8,), 10, dtype="int32"), Arg((10, 3), d)), {"offsets": [0, 3], "mode": "sum"}


def bag_error_samples(d):
    yield (Idx((4,), 10), Arg((10, 3), d)), {"offsets": [1, 2]}
    yield (Idx((4,), 10), Arg((10, 3), d)), {"offsets": [0, 5]}
    yield (Idx((4,), 10), Arg((10, 3), d)), {"offsets": [0, 2], "mode": "sum", "bad": (1, 12)}
    yield (Idx((4,), 10), Arg((10, 3), d)), {"offsets": [0, 2], "mode": "mean", "bad": (3, 10)}
    yield (Idx((4,), 10), Arg((10, 3), d)), {"offsets": [0], "mode": "sum", "bad": (2, -1)}
    yield (Idx((4,), 10), Arg((10, 3), d)), {"offsets": [0, 2], "mode": "max", "bad": (2, 12)}
    yield (Idx((4,), 10), Arg((10, 3), d)), {"offsets": [0, 2], "mode": "max", "bad": (0, -2)}
    yield (Idx((2, 3), 10), Arg((10, 3), d)), {"mode": "sum", "bad": (0, 10)}
    yield (Idx((2, 2), 10), Arg((10, 3), d)), {"offsets": [0, 2]}
    yield (Idx((2,), 10), Arg((10, 3), d)), {}
    yield (Idx((1, 1, 2), 10), Arg((10, 3), d)), {}
    yield (Idx((2, 2), 10), Arg((10,), d)), {}
    yield (Idx((2, 2), 10), Arg((10, 3), d)), {"mode": "min"}
    yield (Idx((2, 2), 10), Arg((10, 3), d), Arg((2, 2), d)), {"mode": "mean"}
    yield (Idx((2, 2), 10), Arg((10, 3), d), Arg((4,), d)), {"mode": "sum"}
    yield (Idx((2, 2), 10), Arg((10, 3), d), Arg((2, 2), "float16")), {"mode": "sum"}
    yield (Idx((2, 2), 10), Arg((10, 3), d)), {"mode": "max", "sparse": True}
    yield (Idx((2, 2), 10), Arg((10, 3), d)), {"mode": "max", "scale_grad_by_freq": True}
    yield (Idx((2, 2), 10), Arg((10, 3), d)), {"padding_idx": 10}
    yield (Idx((2, 2), 10), Arg((10, 3), d)), {"padding_idx": -11}
    yield (Arg((2, 2), d, 0, 5), Arg((10, 3), d)), {}
    yield (Idx((2, 2), 10), Arg((10, 3), "int64", 0, 5)), {}


def one_hot_samples(d):
    yield (Idx((5,), 4),), {}
    yield (Idx((2, 3), 4),), {"num_classes": 6}
    yield (Idx((), 4),), {"num_classes": 4}
    yield (Idx((0,), 4),), {"num_classes": 3}
    yield (Idx((0,), 4),), {}
    yield (Idx((3,), 4, dtype="int32"),), {}
    yield (Idx((3,), 0, -3),), {"num_classes": 3}
    yield (Idx((3,), 9, 5),), {"num_classes": 3}
    yield (Idx((3,), 4),), {"num_classes": -2}
    yield (Idx((3,), 4),), {"num_classes": 4}


RECORDS = [
    OpRecord("embedding", emb_samples, FL + ("float16", "int64"), method=False),
    OpRecord("embedding", F_emb_samples, FL, call=lambda T, *xs, **kw: T.nn.functional.embedding(*xs, **kw)),
    OpRecord("embedding", max_norm_samples, FL, call=_with_weight),
    OpRecord("embedding_renorm_", renorm_samples, FL + ("float16",), call=_renorm),
    OpRecord("embedding_bag", bag_samples, FL, call=_bag),
    OpRecord("embedding_bag", bag_error_samples, ("float32", "float64"), call=_bag),
    OpRecord("embedding_bag", lambda d: [((Idx((4,), 10), Arg((10, 3), d)), {"offsets": [0, 3, 2]})],
             ("float32",), call=_bag),
    OpRecord("embedding_bag", lambda d: [((Idx((4,), 10), Arg((10, 3), d)), {"offsets": [0, 2], "mode": m})
                                         for m in ("sum", "mean", "max")], ("float16", "bfloat16"),
             call=_bag),
    OpRecord("one_hot", one_hot_samples, ("int64",),
             call=lambda T, *xs, **kw: T.nn.functional.one_hot(*xs, **kw)),
]

"""Records for F.scaled_dot_product_attention (torchshim/ops/nn_attention.py): shapes from 2-d to 5-d with
broadcast batch dims, bool/float masks (an all-False row gives zeros), is_causal (square and not), scale
(negative too), enable_gqa, dropout_p = 1 (deterministic: zeros), empty sequences and PyTorch's errors.
Random dropout (0 < p < 1) and F.multi_head_attention_forward are in compat_tests/test_nn_attention.py."""
from harness import Arg, Mask, OpRecord

FL = ("float32", "float64")


def sdpa(T, q, k, v, *rest, **kw):
    return T.nn.functional.scaled_dot_product_attention(q, k, v, *rest, **kw)


def qkv(d, batch=(2, 2), L=4, S=5, E=3, Ev=6, noncontig=False):
    return (Arg(batch + (L, E), d, noncontig=noncontig), Arg(batch + (S, E), d), Arg(batch + (S, Ev), d))


def samples(d):
    yield qkv(d), {}
    yield qkv(d, (3,), noncontig=True), {}
    yield qkv(d, ()), {}
    yield qkv(d, (2, 1, 2)), {}
    yield qkv(d) + (Mask((4, 5)),), {}
    yield qkv(d) + (Mask((4, 5), p=0.0),), {}
    yield qkv(d) + (Arg((2, 1, 4, 5), d),), {}
    yield qkv(d) + (Arg((4, 5), "float32"),), {}
    yield qkv(d, L=5), {"is_causal": True}
    yield qkv(d), {"is_causal": True}
    yield qkv(d), {"scale": 0.25}
    yield qkv(d), {"scale": -0.5}
    yield qkv(d), {"dropout_p": 1.0}
    yield qkv(d, L=0), {}
    yield qkv(d, S=0), {}
    yield (Arg((2, 4, 4, 3), d), Arg((2, 2, 5, 3), d), Arg((2, 2, 5, 6), d)), {"enable_gqa": True}
    yield (Arg((2, 2, 4, 3), d), Arg((1, 2, 5, 3), d), Arg((2, 5, 6), d)), {}


def error_samples(d):
    yield (Arg((3,), d), Arg((3,), d), Arg((3,), d)), {}
    yield (Arg((4, 3), d), Arg((5, 3), "float64"), Arg((5, 6), d)), {}
    yield qkv(d) + (Arg((4, 5), "float16"),), {}
    yield qkv(d) + (Mask((4, 5)),), {"is_causal": True}
    yield (Arg((2, 3, 4, 3), d), Arg((2, 2, 5, 3), d), Arg((2, 2, 5, 6), d)), {"enable_gqa": True}
    yield (Arg((2, 4, 3), d), Arg((2, 5, 4), d), Arg((2, 5, 6), d)), {}
    yield (Arg((2, 4, 3), d), Arg((2, 5, 3), d), Arg((2, 6, 6), d)), {}
    yield qkv(d) + (Arg((3, 5), d),), {}
    yield qkv(d), {"dropout_p": 1.5}


RECORDS = [
    OpRecord("scaled_dot_product_attention", samples, FL, call=sdpa),
    OpRecord("scaled_dot_product_attention", lambda d: list(samples(d))[:2], ("float16", "bfloat16"),
             call=sdpa, rtol=1e-2, atol=1e-2),
    OpRecord("scaled_dot_product_attention", error_samples, ("float32",), call=sdpa),
    OpRecord("scaled_dot_product_attention", lambda d: [(qkv(d), {})], ("int64", "complex64"), call=sdpa),
]

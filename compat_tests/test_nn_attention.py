"""F.multi_head_attention_forward against PyTorch (values, weights, errors, first and second order gradients)
over its options, and scaled_dot_product_attention's random dropout (structure and statistics; the
deterministic cases are records in compat_tests/records/nn_attention.py)."""
import math

import numpy as np
import pytest
import torch

import torchshim
from grad_harness import check_grad
from harness import Arg, Mask, check

L, S, N, E, H = 4, 5, 2, 6, 2


def A(shape, dtype="float32"):
    """Values in [-1, 1]: float32 results of a few chained products stay within the default tolerances."""
    return Arg(shape, dtype, -1.0, 1.0)


def _mha(T, q, k, v, w, b, ow, ob, *extra, **kw):
    """multi_head_attention_forward with packed projections; extra tensors by name in kw['names']."""
    names = kw.pop("names", ())
    kw.update(dict(zip(names, extra)))
    bias_k, bias_v = kw.pop("bias_k", None), kw.pop("bias_v", None)
    add_zero_attn = kw.pop("add_zero_attn", False)
    return T.nn.functional.multi_head_attention_forward(q, k, v, E, H, w, b, bias_k, bias_v, add_zero_attn,
                                                        0.0, ow, ob, **kw)


def _params(batched=True, same=False):
    sh = (lambda n: (n, N, E)) if batched else (lambda n: (n, E))
    return [A(sh(L)), A(sh(S)), A(sh(S)), A((3 * E, E)), A((3 * E,)), A((E, E)), A((E,))]


CASES = {
    "weights": ({}, []),
    "no_weights": ({"need_weights": False}, []),
    "per_head_weights": ({"average_attn_weights": False}, []),
    "eval": ({"training": False}, []),
    "bool_attn_mask": ({"names": ("attn_mask",)}, [Mask((L, S), p=0.3)]),
    "float_attn_mask_3d": ({"names": ("attn_mask",)}, [A((N * H, L, S))]),
    "bool_key_padding": ({"names": ("key_padding_mask",), "need_weights": False}, [Mask((N, S), p=0.3)]),
    "float_key_padding_and_mask": ({"names": ("key_padding_mask", "attn_mask")}, [A((N, S)), A((L, S))]),
    "mixed_masks_warn": ({"names": ("key_padding_mask", "attn_mask")}, [Mask((N, S), p=0.2), A((L, S))]),
    "bias_kv": ({"names": ("bias_k", "bias_v", "attn_mask")}, [A((1, 1, E)), A((1, 1, E)), A((L, S))]),
    "zero_attn": ({"add_zero_attn": True, "names": ("key_padding_mask",)}, [Mask((N, S), p=0.2)]),
    "causal_with_mask_no_weights": ({"is_causal": True, "need_weights": False, "names": ("attn_mask",)},
                                    [Mask((L, S), p=0.0)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_multi_head_attention_forward(name):
    kw, extra = CASES[name]
    check(lambda T, *xs: _mha(T, *xs, **dict(kw)), _params() + extra, warn=True)


@pytest.mark.parametrize("name", ["weights", "no_weights", "float_key_padding_and_mask", "bias_kv",
                                  "zero_attn"])
def test_multi_head_attention_gradients(name):
    kw, extra = CASES[name]
    specs = [s if isinstance(s, Mask) else A(s.shape, "float64") for s in _params() + extra]
    check_grad(lambda T, *xs: _mha(T, *xs, **dict(kw)), specs, rtol=1e-6, atol=1e-8)


def test_multi_head_attention_unbatched_and_self_attention():
    def self_attn(T, x, w, b, ow, ob):
        return T.nn.functional.multi_head_attention_forward(x, x, x, E, H, w, b, None, None, False, 0.0, ow,
                                                            ob)
    check(self_attn, [A((L, N, E)), A((3 * E, E)), A((3 * E,)), A((E, E)), A((E,))])
    check(self_attn, [A((L, E)), A((3 * E, E)), A((3 * E,)), A((E, E)), A((E,))])
    check_grad(self_attn, [A((L, N, E), "float64"), A((3 * E, E), "float64"), A((3 * E,), "float64"),
                           A((E, E), "float64"), A((E,), "float64")], rtol=1e-6, atol=1e-8)
    p = _params(batched=False)
    check(lambda T, *xs: _mha(T, *xs), p)
    check(lambda T, *xs: _mha(T, *xs, names=("key_padding_mask",)), p + [Mask((S,), p=0.3)])


def test_multi_head_attention_separate_projections_and_statics():
    def sep(T, q, k, v, wq, wk, wv, b, ow, ob):
        return T.nn.functional.multi_head_attention_forward(q, k, v, E, H, None, b, None, None, False, 0.0,
                                                            ow, ob, use_separate_proj_weight=True,
                                                            q_proj_weight=wq, k_proj_weight=wk,
                                                            v_proj_weight=wv)
    check(sep, [A((L, N, E)), A((S, N, 4)), A((S, N, 5)), A((E, E)), A((E, 4)), A((E, 5)),
                A((3 * E,)), A((E, E)), A((E,))])

    def statics(T, q, k, v, w, b, ow, ob, sk, sv):
        return T.nn.functional.multi_head_attention_forward(q, k, v, E, H, w, b, None, None, False, 0.0,
                                                            ow, ob, static_k=sk, static_v=sv)
    check(statics, _params() + [A((N * H, 7, E // H)), A((N * H, 7, E // H))])


ERRORS = {
    "bad_query_rank": lambda T, *xs: _mha(T, xs[0][None], *xs[1:]),
    "bad_key_rank": lambda T, q, k, *xs: _mha(T, q, k[0], *xs),
    "embed_dim": lambda T, q, k, v, *xs: T.nn.functional.multi_head_attention_forward(
        q, k, v, E + 1, H, *xs[:2], None, None, False, 0.0, *xs[2:]),
    "not_divisible": lambda T, q, k, v, *xs: T.nn.functional.multi_head_attention_forward(
        q, k, v, E, 4, *xs[:2], None, None, False, 0.0, *xs[2:]),
    "kv_shape": lambda T, q, k, v, *xs: _mha(T, q, k, v[:-1], *xs),
    "mask_2d_shape": lambda T, *xs: _mha(T, *xs, attn_mask=T.zeros(L, S + 1)),
    "mask_3d_shape": lambda T, *xs: _mha(T, *xs, attn_mask=T.zeros(3, L, S)),
    "mask_int": lambda T, *xs: _mha(T, *xs, attn_mask=T.zeros(L, S, dtype=T.int64)),
    "causal_without_mask": lambda T, *xs: _mha(T, *xs, is_causal=True),
    "key_padding_shape": lambda T, *xs: _mha(T, *xs, key_padding_mask=T.zeros(N, S + 1, dtype=T.bool)),
    "bias_k_only": lambda T, *xs: _mha(T, *xs, bias_k=T.zeros(1, 1, E)),
    "no_in_proj": lambda T, q, k, v, w, *xs: _mha(T, q, k, v, None, *xs),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_multi_head_attention_errors(name):
    check(ERRORS[name], _params())


def test_sdpa_dropout_structure_and_gradient():
    p = 0.4
    torchshim.manual_seed(0)
    rng = np.random.default_rng(0)
    q = torchshim.tensor(rng.standard_normal((8, 16, 3)), requires_grad=True)
    k = torchshim.tensor(rng.standard_normal((8, 16, 3)))
    v = torchshim.eye(16, dtype=torchshim.float64).expand(8, 16, 16)  # output: the (dropped) attention
    out = torchshim.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=p)
    probs = torchshim.softmax(q.detach() @ k.transpose(-2, -1) / math.sqrt(3), -1)
    o, pr = out.detach().numpy(), probs.numpy()
    dropped = o == 0
    np.testing.assert_allclose(o[~dropped], pr[~dropped] / (1 - p), rtol=1e-12)
    assert abs(dropped.mean() - p) < 5 * math.sqrt(p * (1 - p) / o.size)
    # the gradient is that of the same dropped attention (the mask is drawn once, outside the node)
    w = torchshim.tensor(rng.standard_normal(o.shape))
    (g,) = torchshim.autograd.grad((out * w).sum(), q)
    keep = torchshim.tensor(~dropped)
    q2 = q.detach().clone().requires_grad_()
    manual = torchshim.softmax(q2 @ k.transpose(-2, -1) / math.sqrt(3), -1) * keep / (1 - p)
    (g2,) = torchshim.autograd.grad((manual * w).sum(), q2)
    np.testing.assert_allclose(g.numpy(), g2.numpy(), rtol=1e-10, atol=1e-12)
    r = torch.nn.functional.scaled_dot_product_attention(torch.randn(8, 16, 3), torch.randn(8, 16, 3),
                                                         torch.eye(16).expand(8, 16, 16), dropout_p=p)
    assert abs((r == 0).float().mean().item() - p) < 5 * math.sqrt(p * (1 - p) / o.size)

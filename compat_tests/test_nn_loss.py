"""Loss functionals beyond the op records (records/nn_loss.py): warnings (legacy size_average/reduce, target
size, kl_div's 'mean'), triplet_margin_with_distance_loss with custom distances, PyTorch's refusal to
differentiate weights, gradients at the edges of binary_cross_entropy, ctc_loss under jax tracing. Every check
compares with real PyTorch in the same test."""
import jax
import numpy as np
import pytest
import torch

import torchshim
from grad_harness import V, check_grad
from harness import Arg, Idx, check

F_LEGACY = ["l1_loss", "mse_loss", "smooth_l1_loss", "soft_margin_loss", "binary_cross_entropy",
            "binary_cross_entropy_with_logits", "poisson_nll_loss", "kl_div", "multilabel_soft_margin_loss",
            "hinge_embedding_loss"]


def _F(T):
    return T.nn.functional


# ---- warnings ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", F_LEGACY)
@pytest.mark.parametrize("legacy", [{"size_average": False}, {"reduce": False}, {"size_average": True},
                                    {"size_average": False, "reduce": True}])
def test_legacy_reduction_arguments_warn_and_override(name, legacy):
    def f(T, x, y):
        return getattr(_F(T), name)(x, y, reduction="none", **legacy)
    check(f, [Arg((3, 4), low=0.1, high=0.9), Arg((3, 4), low=0.0, high=1.0)], warn=True)


@pytest.mark.parametrize("name,target", [("nll_loss", Idx((3,), 4)), ("cross_entropy", Idx((3,), 4)),
                                         ("multi_margin_loss", Idx((3,), 4)),
                                         ("multilabel_margin_loss", Idx((3, 4), 4, -1))])
def test_legacy_arguments_of_class_losses(name, target):
    def f(T, x, t):
        return getattr(_F(T), name)(x, t, size_average=False)
    check(f, [Arg((3, 4)), target], warn=True)


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
def test_target_size_warning(name):
    def f(T, x, y):
        return getattr(_F(T), name)(x, y)
    check(f, [Arg((3, 4)), Arg((4,))], warn=True)
    check(f, [Arg((3, 1)), Arg((1, 4))], warn=True)
    check(f, [Arg((3, 4)), Arg((3, 4))], warn=True)  # no warning


@pytest.mark.parametrize("reduction", ["mean", "batchmean", "sum", "elementwise_mean"])
def test_kl_div_reduction_warnings(reduction):
    def f(T, x, y):
        return _F(T).kl_div(x, y, reduction=reduction)
    check(f, [Arg((3, 4), low=-3, high=0), Arg((3, 4), low=0, high=1)], warn=True)


def test_kl_div_batchmean_of_a_scalar_is_the_sum():
    check(lambda T, x, y: _F(T).kl_div(x, y, reduction="batchmean"),
          [Arg((), low=-3, high=0), Arg((), low=0, high=1)])


# ---- triplet_margin_with_distance_loss ---------------------------------------------------------------------
def _cosine_distance(T):
    return lambda a, b: 1.0 - _F(T).cosine_similarity(a, b)


def _l1_distance(T):
    return lambda a, b: (a - b).abs().sum(-1)


@pytest.mark.parametrize("dist", [None, _cosine_distance, _l1_distance,
                                  lambda T: lambda a, b: _F(T).pairwise_distance(a, b, p=1.0)])
@pytest.mark.parametrize("kw", [{}, {"swap": True}, {"margin": 0.3, "reduction": "sum"},
                                {"reduction": "none"}])
def test_triplet_margin_with_distance_loss(dist, kw):
    def f(T, a, p, n):
        d = None if dist is None else dist(T)
        return _F(T).triplet_margin_with_distance_loss(a, p, n, distance_function=d, **kw)
    specs = [Arg((4, 5), "float64"), Arg((4, 5), "float64"), Arg((4, 5), "float64")]
    check(f, specs)
    check_grad(f, specs)


@pytest.mark.parametrize("kw,shapes", [({"margin": 0.0}, ((4, 5),) * 3), ({"margin": -1.0}, ((4, 5),) * 3),
                                       ({"reduction": "bad"}, ((4, 5),) * 3), ({}, ((4, 5), (4, 5), (5,)))])
def test_triplet_margin_with_distance_loss_errors(kw, shapes):
    check(lambda T, a, p, n: _F(T).triplet_margin_with_distance_loss(a, p, n, **kw), [Arg(s) for s in shapes])


def test_triplet_margin_loss_matches_the_distance_form():
    """F.triplet_margin_loss (one op) and the Python composition agree, values and gradients, in torchshim."""
    F = _F(torchshim)
    rng = np.random.default_rng(0)
    a, p, n = (torchshim.tensor(rng.normal(size=(4, 5)), requires_grad=True) for _ in range(3))
    one = F.triplet_margin_loss(a, p, n, swap=True)
    two = F.triplet_margin_with_distance_loss(a, p, n, swap=True)
    np.testing.assert_allclose(one.detach().numpy(), two.detach().numpy(), rtol=1e-12)
    g1 = torchshim.autograd.grad(one, (a, p, n))
    g2 = torchshim.autograd.grad(two, (a, p, n))
    for x, y in zip(g1, g2):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-10)


# ---- arguments PyTorch does not differentiate --------------------------------------------------------------
_NO_GRAD_ARG = {
    "nll_loss": (lambda T, x, t, w: _F(T).nll_loss(x, t, w), [Arg((3, 4)), Idx((3,), 4), Arg((4,))]),
    "cross_entropy": (lambda T, x, t, w: _F(T).cross_entropy(x, t, w),
                      [Arg((3, 4)), Idx((3,), 4), Arg((4,))]),
    "cross_entropy_ls": (lambda T, x, t, w: _F(T).cross_entropy(x, t, w, label_smoothing=0.1),
                         [Arg((3, 4)), Idx((3,), 4), Arg((4,))]),
    "binary_cross_entropy": (lambda T, x, t, w: _F(T).binary_cross_entropy(x, t, w),
                             [Arg((3, 4), low=0.1, high=0.9), Arg((3, 4), low=0, high=1), Arg((4,))]),
    "bce_logits_weight": (lambda T, x, t, w: _F(T).binary_cross_entropy_with_logits(x, t, w),
                          [Arg((3, 4)), Arg((3, 4), low=0, high=1), Arg((4,))]),
    "bce_logits_pos_weight": (lambda T, x, t, w: _F(T).binary_cross_entropy_with_logits(x, t, pos_weight=w),
                              [Arg((3, 4)), Arg((3, 4), low=0, high=1), Arg((4,))]),
    "multi_margin_loss": (lambda T, x, t, w: _F(T).multi_margin_loss(x, t, weight=w),
                          [Arg((3, 4)), Idx((3,), 4), Arg((4,))]),
    "soft_margin_loss": (lambda T, x, t: _F(T).soft_margin_loss(x, t), [Arg((3, 4)), Arg((3, 4))]),
}


@pytest.mark.parametrize("case", sorted(_NO_GRAD_ARG))
@pytest.mark.parametrize("grad_mode", [True, False])
def test_arguments_pytorch_does_not_differentiate(case, grad_mode):
    fn, specs = _NO_GRAD_ARG[case]

    def f(T, *xs):
        xs = [x.requires_grad_(True) if isinstance(x, (torch.Tensor, torchshim.Tensor))
              and x.is_floating_point() else x for x in xs]
        with T.set_grad_enabled(grad_mode):
            return fn(T, *xs)
    check(f, specs)


@pytest.mark.parametrize("name,specs", [
    ("hinge_embedding_loss", [Arg((3, 4)), Arg((3, 4))]),
    ("cosine_embedding_loss", [Arg((3, 4)), Arg((3, 4)), Arg((3,))]),
])
def test_targets_without_gradient(name, specs):
    """PyTorch's gradient for these targets is None (they only select), not zeros."""
    def f(T, *xs):
        xs = list(xs)
        xs[-1] = T.sign(xs[-1]).detach().requires_grad_(True)
        return getattr(_F(T), name)(*xs)
    check_grad(f, specs)


# ---- binary cross entropy at 0 and 1 -----------------------------------------------------------------------
def test_binary_cross_entropy_gradient_at_the_bounds():
    """PyTorch's backward (x - y) / max((1 - x) x, 1e-12) and -logit(x): finite where log(0) clamps the
    loss."""
    x = V([0.0, 1.0, 1.0, 0.0, 0.5, 1e-30])
    y = V([0.0, 1.0, 0.0, 1.0, 0.5, 0.3])
    check_grad(lambda T, a, b: _F(T).binary_cross_entropy(a, b, reduction="none"), [x, y])
    check_grad(lambda T, a, b: _F(T).binary_cross_entropy(a, b.detach(), reduction="sum"), [x, y])


# ---- ctc_loss ----------------------------------------------------------------------------------------------
def _ctc_case(T, lp, tg, il, tl, **kw):
    return _F(T).ctc_loss(lp, tg, il, tl, **kw)


@pytest.mark.parametrize("kw", [{}, {"reduction": "none"}, {"reduction": "sum", "zero_infinity": True}])
def test_ctc_loss_traced_with_tensor_lengths(kw):
    """Lengths are tracers under jit too: the loss (length masks, no host reads) equals the eager one."""
    rng = np.random.default_rng(0)
    lp = torchshim.tensor(rng.normal(size=(8, 3, 5))).log_softmax(2)
    tg = torchshim.tensor(rng.integers(1, 5, size=(3, 4)))
    il, tl = torchshim.tensor([8, 6, 3]), torchshim.tensor([4, 2, 3])
    eager = _ctc_case(torchshim, lp, tg, il, tl, **kw)

    def traced(a, b, c, d):
        w = [torchshim.Tensor._make(torchshim._storage.Storage(v, x.device), x.shape, x.stride(), 0, x.dtype)
             for v, x in zip((a, b, c, d), (lp, tg, il, tl))]
        return _ctc_case(torchshim, *w, **kw)._value
    got = jax.jit(traced)(lp._value, tg._value, il._value, tl._value)
    np.testing.assert_allclose(np.asarray(got), eager.numpy(), rtol=1e-12)
    ref = _ctc_case(torch, torch.from_numpy(lp.numpy()), torch.from_numpy(tg.numpy()),
                    torch.tensor([8, 6, 3]), torch.tensor([4, 2, 3]), **kw)
    np.testing.assert_allclose(eager.numpy(), ref.numpy(), rtol=1e-12)


def test_ctc_loss_lengths_must_be_sequences_or_tensors():
    check(lambda T, lp, tg: T.ctc_loss(lp, tg, 6, 3), [Arg((6, 4)), Idx((3,), 4, 1)])
    check(lambda T, lp, tg: _F(T).ctc_loss(lp, tg, 6, 3), [Arg((6, 4)), Idx((3,), 4, 1)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ctc_loss_gradient_is_pytorchs(dtype):
    """PyTorch's gradient is exp(log_probs) - exp(log_alpha_beta + nll - log_probs), the gradient as if
    log_probs were log_softmax outputs: through log_softmax it is the true gradient of the logits."""
    def f(T, logits, tg):
        return _F(T).ctc_loss(logits.log_softmax(2), tg, (6, 5), (3, 2), reduction="sum")
    check_grad(f, [Arg((6, 2, 4), dtype), Idx((2, 3), 4, 1)], names=True)

    def g(T, lp, tg):
        return _F(T).ctc_loss(lp, tg, (6, 5), (3, 2), reduction="sum")
    check_grad(g, [Arg((6, 2, 4), dtype, -3, 0), Idx((2, 3), 4, 1)])

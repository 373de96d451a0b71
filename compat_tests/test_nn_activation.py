"""Activation functionals beyond the records: gradients exactly at the kinks (PyTorch's subgradient
conventions, first and second order), F's implicit softmax dim warning, in-place variants, and the random ones
(rrelu in training, gumbel_softmax) checked through their statistics and structure against PyTorch."""
import math
import warnings

import numpy as np
import pytest
import torch

import torchshim
from grad_harness import V, check_grad
from harness import Arg, check

NAN = math.nan


def F(T):
    return T.nn.functional


KINKS = {
    "relu": (lambda T, x: F(T).relu(x), [V([-1.0, 0.0, -0.0, 2.0, NAN])]),
    "relu_inplace": (lambda T, x: F(T).relu(x * 1, inplace=True), [V([-1.0, 0.0, 2.0])]),
    "relu6": (lambda T, x: F(T).relu6(x), [V([-1.0, 0.0, 3.0, 6.0, 7.0])]),
    "hardtanh": (lambda T, x: F(T).hardtanh(x, -0.5, 2.0), [V([-1.0, -0.5, 0.0, 2.0, 3.0, NAN])]),
    "hardtanh_inplace": (lambda T, x: F(T).hardtanh(x * 1, -0.5, 2.0, inplace=True), [V([-0.5, 0.0, 2.0])]),
    "leaky_relu": (lambda T, x: F(T).leaky_relu(x, 0.2), [V([-1.0, 0.0, 2.0])]),
    "leaky_relu_inplace": (lambda T, x: F(T).leaky_relu(x * 1, 0.2, inplace=True), [V([-1.0, 0.0, 2.0])]),
    "prelu": (lambda T, x, w: F(T).prelu(x, w), [V([[-1.0, 0.0], [2.0, -0.0]]), V([0.25, 0.5])]),
    "rrelu_eval": (lambda T, x: F(T).rrelu(x, 0.1, 0.3), [V([-1.0, 0.0, 2.0])]),
    "elu": (lambda T, x: F(T).elu(x, 0.7), [V([-1.0, 0.0, 2.0])]),
    "elu_inplace": (lambda T, x: F(T).elu(x * 1, 0.7, inplace=True), [V([-1.0, 0.0, 2.0])]),
    "selu": (lambda T, x: F(T).selu(x), [V([-1.0, 0.0, 2.0])]),
    "celu": (lambda T, x: F(T).celu(x, 2.0), [V([-1.0, 0.0, 2.0])]),
    "celu_inplace": (lambda T, x: F(T).celu(x * 1, 2.0, inplace=True), [V([-1.0, 0.0, 2.0])]),
    "gelu": (lambda T, x: F(T).gelu(x), [V([-1.0, 0.0, 2.0])]),
    "gelu_tanh": (lambda T, x: F(T).gelu(x, approximate="tanh"), [V([-1.0, 0.0, 2.0])]),
    "silu": (lambda T, x: F(T).silu(x), [V([-800.0, 0.0, 800.0])]),
    "mish": (lambda T, x: F(T).mish(x), [V([-800.0, 0.0, 800.0])]),
    "hardswish": (lambda T, x: F(T).hardswish(x), [V([-4.0, -3.0, 0.0, 3.0, 4.0])]),
    "hardswish_inplace": (lambda T, x: F(T).hardswish(x * 1, inplace=True), [V([-3.0, 0.0, 3.0])]),
    "hardsigmoid": (lambda T, x: F(T).hardsigmoid(x), [V([-4.0, -3.0, 0.0, 3.0, 4.0])]),
    "hardshrink": (lambda T, x: F(T).hardshrink(x, 0.5), [V([-1.0, -0.5, 0.0, 0.5, 1.0])]),
    "softshrink": (lambda T, x: F(T).softshrink(x, 0.5), [V([-1.0, -0.5, 0.0, 0.5, 1.0])]),
    "threshold": (lambda T, x: F(T).threshold(x, 0.5, 3.0), [V([0.0, 0.5, 1.0])]),
    "threshold_inplace": (lambda T, x: F(T).threshold(x * 1, 0.5, 3.0, inplace=True), [V([0.0, 0.5, 1.0])]),
    "softplus_threshold": (lambda T, x: F(T).softplus(x, 2.0, 4.0), [V([1.0, 2.0, 3.0, -800.0, 800.0])]),
    "logsigmoid": (lambda T, x: F(T).logsigmoid(x), [V([-800.0, 0.0, 800.0])]),
    "softsign": (lambda T, x: F(T).softsign(x), [V([-1.0, 0.0, 2.0])]),
    "tanhshrink": (lambda T, x: F(T).tanhshrink(x), [V([-1.0, 0.0, 2.0])]),
    "softmax_inf": (lambda T, x: F(T).softmax(x, 1), [V([[0.0, -math.inf, 1.0], [2.0, 2.0, 2.0]])]),
    "log_softmax_ties": (lambda T, x: F(T).log_softmax(x, 0), [V([[1.0, 1.0], [1.0, 3.0]])]),
    "glu": (lambda T, x: F(T).glu(x, 0), [V([[-1.0, 0.0], [0.0, 800.0]])]),
}


@pytest.mark.parametrize("name", sorted(KINKS))
def test_gradient_at_kinks(name):
    fn, specs = KINKS[name]
    check_grad(fn, specs)


def test_softmax_implicit_dim_warns_like_pytorch():
    for shape in ((), (4,), (2, 3), (2, 3, 4), (2, 3, 4, 5)):
        for name in ("softmax", "softmin", "log_softmax"):
            check(lambda T, x, name=name: getattr(F(T), name)(x), [Arg(shape)], warn=True)


def test_softmax_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torchshim.nn.functional.softmax(torchshim.ones(2, 3))
    assert w[0].filename == __file__


def test_inplace_variants_return_their_input():
    for name, args in (("relu", ()), ("relu6", ()), ("elu", (0.5,)), ("selu", ()), ("celu", (0.5,)),
                       ("leaky_relu", (0.1,)), ("hardtanh", (-0.5, 0.5)), ("threshold", (0.1, 2.0)),
                       ("silu", ()), ("mish", ()), ("hardswish", ()), ("hardsigmoid", ()), ("rrelu", ())):
        x = torchshim.randn(3, 4)
        y = getattr(torchshim.nn.functional, name)(x, *args, inplace=True)
        assert y is x, name
        check(lambda T, x, name=name, args=args: getattr(F(T), name)(x, *args, inplace=True), [Arg((3, 4))])
    for name in ("relu_", "selu_", "celu_", "threshold_", "rrelu_"):
        assert hasattr(torchshim, name) and hasattr(torch, name)
    for name in ("elu_", "leaky_relu_", "hardtanh_", "relu_", "selu_", "celu_", "threshold_", "rrelu_"):
        assert hasattr(torchshim.nn.functional, name) and hasattr(torch.nn.functional, name)
    assert not hasattr(torchshim.Tensor, "selu_") and not hasattr(torch.Tensor, "selu_")


def test_rrelu_training_statistics():
    torchshim.manual_seed(0)
    x = torchshim.cat([-torchshim.ones(20000), torchshim.arange(1.0, 11.0)])
    y = torchshim.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y[:20000] / x[:20000]).numpy()
    ref = (torch.rrelu(torch.from_numpy(-np.ones(20000, np.float32)), 0.1, 0.3, training=True) / -1).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and ref.min() >= 0.1 and ref.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005 and abs(slopes.std() - ref.std()) < 0.005  # U(0.1, 0.3)
    np.testing.assert_array_equal(y[20000:].numpy(), np.arange(1.0, 11.0))
    # the gradient is the noise that was drawn (1 where x > 0)
    xr = x.clone().requires_grad_()
    torchshim.manual_seed(1)
    y = torchshim.rrelu(xr, 0.1, 0.3, training=True)
    (g,) = torchshim.autograd.grad(y.sum(), xr)
    np.testing.assert_allclose(g.numpy()[:20000], (y[:20000] / x[:20000]).detach().numpy(), rtol=1e-6)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    torchshim.manual_seed(1)
    np.testing.assert_array_equal(torchshim.rrelu(x, 0.1, 0.3, training=True).numpy(), y.detach().numpy())


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_structure_and_statistics(hard):
    logits = np.log(np.array([[0.1, 0.2, 0.7]] * 4000))
    torchshim.manual_seed(0)
    lt = torchshim.tensor(logits, requires_grad=True)
    y = torchshim.nn.functional.gumbel_softmax(lt, tau=0.5, hard=hard)
    r = torch.nn.functional.gumbel_softmax(torch.tensor(logits, requires_grad=True), tau=0.5, hard=hard)
    assert y.shape == r.shape and str(y.dtype) == str(r.dtype) and y.grad_fn.name().rsplit("::", 1)[-1] == \
        type(r.grad_fn).__name__
    np.testing.assert_allclose(y.detach().sum(-1).numpy(), 1.0, rtol=1e-6)
    if hard:
        assert set(np.unique(y.detach().numpy())) <= {0.0, 1.0}
    freq = y.detach().numpy().mean(0)  # soft samples at tau 0.5 concentrate on the sampled class too
    ref = r.detach().numpy().mean(0)
    np.testing.assert_allclose(freq, ref, atol=0.03)
    # hard: the gradient is the soft sample's (straight-through)
    (g,) = torchshim.autograd.grad((y * torchshim.arange(3.0, dtype=torchshim.float64)).sum(), lt)
    assert g.shape == lt.shape and np.isfinite(g.numpy()).all()


def test_gumbel_softmax_eps_warning():
    check(lambda T, x: F(T).gumbel_softmax(x, eps=1e-3).shape, [Arg((2, 3))], warn=True)


def test_silu_complex_requires_grad_raises():
    check(lambda T, x: F(T).silu(x.requires_grad_()), [Arg((3,), "complex64")])
    check(lambda T, x: F(T).silu(x), [Arg((3,), "complex64")])

"""Normalization beyond the records: F.normalize (a Python composite, as PyTorch's: norm, clamp_min, div) with
its gradients at the zero vector and out=, and the known gaps."""
import pytest

from grad_harness import V, check_grad
from harness import Arg, check


@pytest.mark.parametrize("kw", [{}, {"p": 1.0}, {"p": 3.0, "dim": 0}, {"dim": -1, "eps": 0.5},
                                {"p": float("inf"), "dim": 1}])
def test_normalize(kw):
    check(lambda T, x: T.nn.functional.normalize(x, **kw), [Arg((3, 4))])
    check_grad(lambda T, x: T.nn.functional.normalize(x, **kw), [Arg((3, 4), "float64")])


def test_normalize_zero_vector_and_out():
    check_grad(lambda T, x: T.nn.functional.normalize(x, dim=1), [V([[0.0, 0.0], [3.0, 4.0], [1e-13, 0.0]])])
    check(lambda T, x: T.nn.functional.normalize(x, out=T.empty(3, 4)), [Arg((3, 4))])
    check(lambda T, x: T.nn.functional.normalize(x, dim=2), [Arg((3, 4))])


@pytest.mark.xfail(strict=True, reason="PyTorch's group_norm backward with a bias but no weight raises "
                                       "\"shape "
                   "'[0]' is invalid for input of size 4\" (a PyTorch bug); torchshim computes the gradient")
def test_group_norm_bias_without_weight_gradient():
    check_grad(lambda T, x, b: T.nn.functional.group_norm(x, 2, None, b), [Arg((2, 4, 3), "float64"),
                                                                          Arg((4,), "float64")])

"""Bit-exact results where PyTorch's CPU kernel rounds once and XLA would rewrite the computation: a quotient
by a broadcast divisor (a Python scalar, a 0-d tensor, a row) is correctly rounded in PyTorch, while XLA turns
it into a product with the reciprocal unless prevented (ops/_subgrad.py `correctly_rounded_divide`). Complex
quotients are not bit-exact (XLA and PyTorch use different complex division algorithms) and are compared
with tolerances in test_ops.py."""
import pytest

from harness import Arg, check

DIVISORS = {
    "python_float": lambda T, x: x / 3.0,
    "python_int": lambda T, x: x / 7,
    "zero_dim_tensor": lambda T, x: x / T.tensor(3.3, dtype=x.dtype),
    "row": lambda T, x: x / x[0],
    "inplace": lambda T, x: x.clone().div_(3.0),
    "torch_div": lambda T, x: T.div(x, 0.3),
    "true_divide_out": lambda T, x: T.true_divide(x, 1.7, out=T.empty_like(x)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(DIVISORS))
def test_division_by_a_broadcast_divisor_is_correctly_rounded(case, dtype):
    check(DIVISORS[case], [Arg((64, 33), dtype)], rtol=0, atol=0)


ADDS = {
    "add_scalar": (lambda T, x: x + 3.3, ("float32", "float64", "float16", "bfloat16")),
    "rsub_scalar": (lambda T, x: 3.3 - x, ("float32", "float64", "float16", "bfloat16")),
    "add_alpha": (lambda T, x: T.add(x, x.flip(0), alpha=1.7), ("float32",)),
    "sub_alpha_scalar": (lambda T, x: T.sub(x, 2.3, alpha=0.3), ("float32",)),
    "add_inplace_alpha": (lambda T, x: x.clone().add_(x[0], alpha=-0.01), ("float32",)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(ADDS))
def test_add_sub_round_like_pytorch(case, dtype):
    """add/sub with alpha are a fused multiply-add in PyTorch's CPU kernel (one rounding); a Python scalar
    operand of a half/bfloat16 add is rounded to that dtype first. With alpha != 1, float64 rounds twice (no
    wider type to fuse in; 1 ulp in some elements) and half/bfloat16 can differ in about 1e-4 of the elements:
    those are compared with tolerances in test_ops.py."""
    fn, exact_dtypes = ADDS[case]
    if dtype not in exact_dtypes:
        pytest.skip("compared with tolerances in test_ops.py")
    check(fn, [Arg((64, 33), dtype)], rtol=0, atol=0)


def test_add_alpha_values_share_one_kernel():
    """A changing alpha (`p.add_(g, alpha=-lr)` under a schedule) does not compile a kernel per value."""
    import torchshim
    from torchshim import _kernel_budget as KB
    x, g = torchshim.ones(5), torchshim.ones(5)
    x.add_(g, alpha=-0.5)
    before = KB._compiles
    for i in range(20):
        x.add_(g, alpha=-0.001 * (i + 1))
    assert KB._compiles == before

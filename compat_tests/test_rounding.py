"""Bit-exact results where PyTorch's CPU kernel rounds once and XLA would rewrite the computation: a quotient
by a broadcast divisor (a Python scalar, a 0-d tensor, a row) is correctly rounded in PyTorch, while XLA turns
it into a product with the reciprocal unless prevented (ops/_subgrad.py `_true_divide`). Complex quotients are
not bit-exact (XLA and PyTorch use different complex division algorithms) and are compared with tolerances in
test_ops.py."""
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

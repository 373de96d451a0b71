"""Custom autograd Functions from PyTorch's "Extending PyTorch" notes, verified with gradcheck: plain PyTorch.

`LinearFunction` (y = x W^T + b with a hand-written backward, and a `Linear` module around it) and
`MulConstant` (a non-tensor argument, whose gradient is None) are the notes' examples. The script checks
their gradients against finite differences in float64 with `torch.autograd.gradcheck` (and second
derivatives with `gradgradcheck`), compares them with the built-in ops, and fits the custom `Linear` to a
linear target with SGD.

    python examples/custom_function.py
    python -m torchshim run examples/custom_function.py
    python -m torchshim check examples/custom_function.py --short --check
    python -m torchshim run examples/custom_function.py --compile   # the fit's step through torch.compile

All inputs come from numpy, so every run prints the same numbers in both libraries (`--check` is accepted
for uniformity with the other examples and changes nothing; `--short` fits for fewer steps). `--compile`
runs each step of the fit (the custom Functions' forwards and backwards, and the optimizer step) through
`torch.compile`; it prints the same numbers.
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck, gradgradcheck


class LinearFunction(Function):
    """y = input @ weight.T + bias, as in the notes (forward and setup_context separate)."""

    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        # needs_input_grad skips the gradients nobody asked for
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    """tensor * constant, where constant is a Python number (not differentiable: its gradient is None)."""

    @staticmethod
    def forward(ctx, tensor, constant):  # the older combined form: ctx is forward's first argument
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class Linear(nn.Module):
    """nn.Linear's interface on LinearFunction."""

    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter("bias", None)
        nn.init.uniform_(self.weight, -0.1, 0.1)
        if self.bias is not None:
            nn.init.uniform_(self.bias, -0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return f"input_features={self.input_features}, output_features={self.output_features}, " \
               f"bias={self.bias is not None}"


def from_numpy(rng, *shape, dtype=torch.float64, requires_grad=False):
    return torch.from_numpy(rng.standard_normal(shape)).to(dtype).requires_grad_(requires_grad)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, help="SGD steps of the fit, default 200 (20 with --short)")
    parser.add_argument("--short", action="store_true", help="smaller gradchecks and fit")
    parser.add_argument("--check", action="store_true", help="no effect: the script is always deterministic")
    parser.add_argument("--compile", action="store_true", help="run the fit's step through torch.compile")
    args = parser.parse_args()
    steps = args.steps or (20 if args.short else 200)
    n, d_in, d_out = (6, 5, 4) if args.short else (20, 20, 30)  # the notes check 20x20 inputs, 30x20 weights
    rng = np.random.default_rng(0)

    # --- gradcheck: analytic gradients against finite differences, in float64 ---------------------------
    x = from_numpy(rng, n, d_in, requires_grad=True)
    w = from_numpy(rng, d_out, d_in, requires_grad=True)
    b = from_numpy(rng, d_out, requires_grad=True)
    print("gradcheck LinearFunction:", gradcheck(LinearFunction.apply, (x, w, b), eps=1e-6, atol=1e-4))
    print("gradcheck LinearFunction, no bias:", gradcheck(LinearFunction.apply, (x, w, None)))
    print("gradgradcheck LinearFunction:", gradgradcheck(LinearFunction.apply, (x, w, b)))
    print("gradcheck MulConstant:", gradcheck(lambda t: MulConstant.apply(t, 5.5), (x,)))
    print("gradgradcheck MulConstant:", gradgradcheck(lambda t: MulConstant.apply(t, 5.5), (x,)))

    # --- the same values and gradients as the built-in ops ------------------------------------------------
    y = LinearFunction.apply(x, w, b)
    y_ref = torch.nn.functional.linear(x, w, b)
    g = from_numpy(rng, n, d_out)
    grads = torch.autograd.grad(y, (x, w, b), g)
    grads_ref = torch.autograd.grad(y_ref, (x, w, b), g)
    print("forward equals F.linear:", torch.allclose(y, y_ref))
    print("gradients equal F.linear's:", all(torch.allclose(a, r) for a, r in zip(grads, grads_ref)))
    print("grad_fn:", type(y.grad_fn).__name__)
    z = MulConstant.apply(x, 2.0)
    (gx,) = torch.autograd.grad(z.sum(), x)
    print("MulConstant backward is the constant:", bool((gx == 2.0).all()))

    # --- train the custom Linear: recover a linear map from noisy samples ----------------------------------
    torch.manual_seed(0)
    model = Linear(8, 3)
    print(model)
    with torch.no_grad():  # numpy initial weights: the same in every library
        model.weight.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, (3, 8)).astype(np.float32)))
        model.bias.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, 3).astype(np.float32)))
    true_w = from_numpy(rng, 3, 8, dtype=torch.float32)
    true_b = from_numpy(rng, 3, dtype=torch.float32)
    inputs = from_numpy(rng, 256, 8, dtype=torch.float32)
    targets = inputs @ true_w.t() + true_b + 0.01 * from_numpy(rng, 256, 3, dtype=torch.float32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)

    def train_step():
        optimizer.zero_grad()
        loss = MulConstant.apply(((model(inputs) - targets) ** 2).mean(), 0.5)
        loss.backward()
        optimizer.step()
        return loss

    if args.compile:
        train_step = torch.compile(train_step)
    for step in range(1, steps + 1):
        loss = train_step()
        if step == 1 or step % (steps // 10) == 0:
            print(f"step {step:4d} loss {loss.item():.6f}")
    print(f"max |weight - true weight| {(model.weight - true_w).abs().max().item():.4f}")


if __name__ == "__main__":
    main()

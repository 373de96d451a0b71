"""Higher-order gradients: Hessian-vector products and a gradient-norm penalty: plain PyTorch.

1. Hessian-vector products by double backward (`autograd.grad(..., create_graph=True)`, then the gradient
   of <grad, v>), on the Rosenbrock function, checked against the full Hessian
   (`torch.autograd.functional.hessian`) and `torch.autograd.functional.hvp`.
2. The same on a small network's parameters, checked against a finite difference of gradients, and a few
   steps of conjugate gradient that solve H x = g with HVPs only (the inner loop of Newton-CG methods).
3. The gradient-norm penalty of the PyTorch 0.2 release notes: `grad_params = torch.autograd.grad(loss,
   model.parameters(), create_graph=True)`, then `grad_norm.backward()` and an optimizer step, here added to
   the loss as a regulariser while training a small ConvNet.

    python examples/higher_order.py
    python -m torchshim run examples/higher_order.py
    python -m torchshim check examples/higher_order.py --short --check
    python -m torchshim run examples/higher_order.py --compile   # section 3's step through torch.compile

Weights and data come from numpy, so both libraries print the same numbers (`--check` is accepted for
uniformity with the other examples and changes nothing; `--short` trains for fewer steps). `--compile` runs
each training step of section 3 (forward, the gradients with create_graph=True, the penalised backward and the
optimizer step) through `torch.compile`, with its "eager" backend (PyTorch's inductor cannot differentiate a
compiled graph twice; torchshim compiles one XLA program whatever the backend); it prints the same numbers.
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


def rosenbrock(x):
    return (100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2).sum()


def hvp(f, x, v):
    """H(f)(x) @ v by double backward: the gradient of <grad f(x), v> with respect to x."""
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    (hv,) = torch.autograd.grad(g @ v, x)
    return hv


def init_from_numpy(model, rng):
    """Every parameter drawn from numpy (U(+-1/sqrt(fan_in)), as PyTorch's default bounds)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Linear, nn.Conv2d)):
                bound = 1.0 / np.sqrt(m.weight[0].numel())
                for p in (m.weight, m.bias):
                    p.copy_(torch.from_numpy(rng.uniform(-bound, bound, p.shape)))  # copy_ casts


def params_hvp(loss_fn, params, vs):
    """HVP of a scalar loss with respect to a list of parameters, for the vectors vs (one per parameter)."""
    grads = torch.autograd.grad(loss_fn(), params, create_graph=True)
    dot = sum((g * v).sum() for g, v in zip(grads, vs))
    return torch.autograd.grad(dot, params)


def section_rosenbrock(rng):
    print("== Hessian-vector products: Rosenbrock, float64 ==")
    x = torch.from_numpy(rng.uniform(-1.5, 1.5, 6)).requires_grad_()
    v = torch.from_numpy(rng.standard_normal(6))
    hv = hvp(rosenbrock, x, v)
    hessian = torch.autograd.functional.hessian(rosenbrock, x.detach())
    _, hv_functional = torch.autograd.functional.hvp(rosenbrock, x.detach(), v)
    print("Hv           ", hv)
    print("H @ v        ", hessian @ v)
    print("functional.hvp", hv_functional)
    print("match:", torch.allclose(hv, hessian @ v), torch.allclose(hv, hv_functional))
    print("Hessian diagonal", hessian.diagonal())


def section_network(rng, cg_steps):
    print("== Hessian-vector products: network parameters, float64 ==")
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3)).double()
    init_from_numpy(model, rng)
    inputs = torch.from_numpy(rng.standard_normal((32, 4)))
    targets = torch.from_numpy(rng.integers(0, 3, 32))
    params = list(model.parameters())
    loss_fn = lambda: F.cross_entropy(model(inputs), targets)  # noqa: E731
    vs = [torch.from_numpy(rng.standard_normal(p.shape)) for p in params]
    hvs = params_hvp(loss_fn, params, vs)
    # central difference of gradients: (g(p + eps v) - g(p - eps v)) / (2 eps)
    eps = 1e-5
    grads_at = []
    for sign in (1.0, -1.0):
        with torch.no_grad():
            for p, v in zip(params, vs):
                p.add_(v, alpha=sign * eps)
        grads_at.append(torch.autograd.grad(loss_fn(), params))
        with torch.no_grad():
            for p, v in zip(params, vs):
                p.sub_(v, alpha=sign * eps)
    fd = [(a - b) / (2 * eps) for a, b in zip(*grads_at)]
    err = max((h - f).abs().max().item() for h, f in zip(hvs, fd))
    print(f"|Hv| per parameter: {[round(h.norm().item(), 6) for h in hvs]}")
    print(f"finite-difference check: max error {err:.1e} ->", "ok" if err < 1e-6 else "MISMATCH")

    # conjugate gradient on (H + damping I) x = g, with HVPs only: never forms the Hessian
    damping = 1.0  # the loss is not convex: damping keeps H + damping*I positive definite here
    grads = torch.autograd.grad(loss_fn(), params)
    x = [torch.zeros_like(p) for p in params]
    r = [g.clone() for g in grads]
    d = [g.clone() for g in grads]
    rr = sum((a * a).sum() for a in r)
    for step in range(1, cg_steps + 1):
        hd = [h + damping * di for h, di in zip(params_hvp(loss_fn, params, d), d)]
        alpha = rr / sum((di * h).sum() for di, h in zip(d, hd))
        x = [xi + alpha * di for xi, di in zip(x, d)]
        r = [ri - alpha * h for ri, h in zip(r, hd)]
        rr_new = sum((a * a).sum() for a in r)
        d = [ri + (rr_new / rr) * di for ri, di in zip(r, d)]
        rr = rr_new
        print(f"cg step {step}: residual {rr.sqrt().item():.6e}")


class SmallConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        x = F.softplus(self.conv1(x))  # smooth activations: the penalty's gradient sees curvature
        x = F.avg_pool2d(F.softplus(self.conv2(x)), 2)
        return F.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


def section_penalty(rng, steps, penalty, compile=False):
    print(f"== Gradient-norm penalty (PyTorch 0.2 notes), {steps} steps ==")
    model = SmallConvNet()
    init_from_numpy(model, rng)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    images = torch.from_numpy(rng.standard_normal((64, 1, 12, 12)).astype(np.float32))
    labels = torch.from_numpy(rng.integers(0, 10, 64))

    def train_step(images, labels):
        input = Variable(images, requires_grad=True)  # Variable(...) is a plain tensor since PyTorch 0.4
        target = Variable(labels)
        output = model(input)
        loss = F.nll_loss(output, target)
        grad_params = torch.autograd.grad(loss, model.parameters(), create_graph=True)
        # torch.autograd.grad does not accumulate into .grad: it returns the gradients
        grad_norm = 0
        for grad in grad_params:
            grad_norm += grad.pow(2).sum()
        grad_norm = grad_norm.sqrt()
        optimizer.zero_grad()
        (loss + penalty * grad_norm).backward()  # backward() accumulates into .grad
        optimizer.step()
        return loss.detach(), grad_norm.detach(), input.grad.norm()

    if compile:
        # backend="eager": PyTorch's default backend (inductor, through aot_autograd) cannot differentiate its
        # compiled graphs twice ("torch.compile with aot_autograd does not currently support double
        # backward"), and this step's backward goes through the gradients taken with create_graph=True;
        # torchshim compiles one XLA program whatever the backend
        train_step = torch.compile(train_step, backend="eager")
    for step in range(1, steps + 1):
        loss, grad_norm, input_grad_norm = train_step(images, labels)
        print(f"step {step:3d} loss {loss.item():.6f} grad norm {grad_norm.item():.6f} "
              f"input grad norm {input_grad_norm.item():.6f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, help="training steps, default 30 (8 with --short)")
    parser.add_argument("--penalty", type=float, default=0.1, help="weight of the gradient-norm penalty")
    parser.add_argument("--short", action="store_true", help="5 CG steps (20 without), 8 training steps")
    parser.add_argument("--check", action="store_true", help="no effect: the script is always deterministic")
    parser.add_argument("--compile", action="store_true", help="run section 3's step through torch.compile")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    section_rosenbrock(rng)
    section_network(rng, cg_steps=5 if args.short else 20)
    section_penalty(rng, steps=args.steps or (8 if args.short else 30), penalty=args.penalty,
                    compile=args.compile)


if __name__ == "__main__":
    main()

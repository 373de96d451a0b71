"""WGAN-GP on 2-D toy data (8 gaussians on a circle): plain PyTorch.

A Wasserstein GAN with gradient penalty (Gulrajani et al., 2017, "Improved Training of Wasserstein GANs",
after their toy experiment): small ReLU MLPs as generator and critic, Adam, five critic steps per generator
step, and the penalty lambda * (||grad_x D(x_hat)|| - 1)^2 on random interpolates x_hat between real and
generated points, computed with `torch.autograd.grad(..., create_graph=True)` so that the critic's update
differentiates through the gradient (double backward). At the end it reports how many of the 8 modes the
generator covers.

    python examples/wgan_gp.py
    python -m torchshim run examples/wgan_gp.py
    python -m torchshim check examples/wgan_gp.py --short --check
    python -m torchshim run examples/wgan_gp.py --compile   # critic and generator steps through torch.compile

`--check` makes the run reproducible across libraries (their random streams differ): the initial weights,
the noise and the interpolation weights come from numpy instead of torch's generator. `--compile` runs the
critic step (the penalty's double backward included; with the "eager" backend, as PyTorch's inductor cannot
differentiate a compiled graph twice) and the generator step through `torch.compile`, each one function;
the random inputs are drawn outside them, in the same order either way, so the run prints the same numbers.
"""
import argparse

import numpy as np
import torch
import torch.nn as nn

CENTERS = 2.0 * np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1 / np.sqrt(2), 1 / np.sqrt(2)),
                          (1 / np.sqrt(2), -1 / np.sqrt(2)), (-1 / np.sqrt(2), 1 / np.sqrt(2)),
                          (-1 / np.sqrt(2), -1 / np.sqrt(2))])
SPREAD = 0.02  # each gaussian's standard deviation, before the 1/1.414 scaling
SCALE = 1.414


def eight_gaussians(rng, batch_size):
    """A batch of real points: a random center plus gaussian noise, scaled as in the paper's code."""
    centers = CENTERS[rng.integers(0, len(CENTERS), batch_size)]
    points = centers + SPREAD * rng.standard_normal((batch_size, 2))
    return torch.from_numpy((points / SCALE).astype(np.float32))


def mlp(d_in, dim, d_out):
    return nn.Sequential(nn.Linear(d_in, dim), nn.ReLU(), nn.Linear(dim, dim), nn.ReLU(),
                         nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, d_out))


def init_from_numpy(model, rng):
    """Every Linear drawn from numpy with PyTorch's default bounds U(+-1/sqrt(fan_in))."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                bound = 1.0 / np.sqrt(m.in_features)
                for p in (m.weight, m.bias):
                    p.copy_(torch.from_numpy(rng.uniform(-bound, bound, p.shape).astype(np.float32)))


class Noise:
    """Gaussian noise and uniform interpolation weights: from torch's generator, or from numpy (--check)."""

    def __init__(self, rng=None):
        self.rng = rng

    def randn(self, *shape):
        if self.rng is None:
            return torch.randn(*shape)
        return torch.from_numpy(self.rng.standard_normal(shape).astype(np.float32))

    def rand(self, *shape):
        if self.rng is None:
            return torch.rand(*shape)
        return torch.from_numpy(self.rng.random(shape).astype(np.float32))


def gradient_penalty(critic, real, fake, alpha, lam):
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interpolates)
    (gradients,) = torch.autograd.grad(outputs=scores, inputs=interpolates,
                                       grad_outputs=torch.ones_like(scores), create_graph=True,
                                       retain_graph=True)
    return lam * ((gradients.norm(2, dim=1) - 1) ** 2).mean()


@torch.no_grad()
def mode_coverage(generator, noise, n=1000):
    """(modes hit, fraction of samples within 3 standard deviations of some mode)."""
    samples = generator(noise.randn(n, 2)) * SCALE
    centers = torch.from_numpy(CENTERS.astype(np.float32))
    dist = torch.cdist(samples, centers)  # (n, 8)
    nearest, which = dist.min(dim=1)
    good = nearest < 3 * SPREAD * SCALE * 4  # generous: a mode's 3-sigma ring, widened for a short run
    return len(set(which[good].tolist())), good.float().mean().item()


FULL = {"iters": 1500, "batch_size": 256, "dim": 256, "log_every": 100}
SHORT = {"iters": 20, "batch_size": 64, "dim": 64, "log_every": 2}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iters", type=int,
                        help=f"generator steps, default {FULL['iters']} ({SHORT['iters']} with --short)")
    parser.add_argument("--batch-size", type=int,
                        help=f"default {FULL['batch_size']} ({SHORT['batch_size']})")
    parser.add_argument("--dim", type=int, help=f"hidden width of both MLPs, default {FULL['dim']} "
                        f"({SHORT['dim']})")
    parser.add_argument("--log-every", type=int, help=f"default {FULL['log_every']} ({SHORT['log_every']})")
    parser.add_argument("--critic-iters", type=int, default=5)
    parser.add_argument("--lam", type=float, default=0.1,
                        help="gradient penalty weight (the paper's toy: 0.1)")
    parser.add_argument("--short", action="store_true", help="20 generator steps, smaller nets and batches")
    parser.add_argument("--check", action="store_true",
                        help="reproducible across libraries: numpy randomness")
    parser.add_argument("--compile", action="store_true",
                        help="run the critic and generator steps through torch.compile")
    args = parser.parse_args()
    for name, value in (SHORT if args.short else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)

    data_rng = np.random.default_rng(1)
    noise = Noise(np.random.default_rng(2) if args.check else None)
    generator, critic = mlp(2, args.dim, 2), mlp(2, args.dim, 1)
    if args.check:
        init_rng = np.random.default_rng(0)
        init_from_numpy(generator, init_rng)
        init_from_numpy(critic, init_rng)
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))

    def critic_step(real, z, alpha):
        """One critic update: maximise D(real) - D(fake), keep its gradient norm near 1."""
        with torch.no_grad():
            fake = generator(z)
        opt_d.zero_grad()
        d_real, d_fake = critic(real).mean(), critic(fake).mean()
        gp = gradient_penalty(critic, real, fake, alpha, args.lam)
        d_cost = d_fake - d_real + gp
        d_cost.backward()
        opt_d.step()
        return d_cost.detach(), (d_real - d_fake).detach(), gp.detach()

    def generator_step(z):
        """One generator update: maximise D(G(z))."""
        opt_g.zero_grad()
        g_cost = -critic(generator(z)).mean()
        g_cost.backward()
        opt_g.step()
        return g_cost.detach()

    if args.compile:
        # the critic step: backend="eager", as PyTorch's default backend (inductor, through aot_autograd)
        # cannot differentiate its compiled graphs twice ("torch.compile with aot_autograd does not
        # currently support double backward") and the penalty's backward does; torchshim compiles one XLA
        # program whatever the backend
        critic_step = torch.compile(critic_step, backend="eager")
        generator_step = torch.compile(generator_step)
    for it in range(1, args.iters + 1):
        # (1) the critic
        for p in critic.parameters():
            p.requires_grad_(True)
        for _ in range(args.critic_iters):
            real = eight_gaussians(data_rng, args.batch_size)
            z = noise.randn(args.batch_size, 2)
            alpha = noise.rand(args.batch_size, 1)  # the penalty's interpolation weights
            d_cost, wasserstein, gp = critic_step(real, z, alpha)
        # (2) the generator; the critic's parameters need no gradient here
        for p in critic.parameters():
            p.requires_grad_(False)
        g_cost = generator_step(noise.randn(args.batch_size, 2))
        if it % args.log_every == 0 or it == 1:
            print(f"iter {it:5d} critic cost {d_cost.item():.6f} wasserstein {wasserstein.item():.6f} "
                  f"gp {gp.item():.6f} generator cost {g_cost.item():.6f}")
    modes, good = mode_coverage(generator, noise)
    print(f"modes covered: {modes}/8, samples near a mode: {100 * good:.1f}%")


if __name__ == "__main__":
    main()

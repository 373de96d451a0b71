"""A variational autoencoder with a normalising-flow posterior, and a REINFORCE agent: torch.distributions.

The VAE encodes 8x8 binary "bars" images (random horizontal and vertical bars, drawn with numpy) into a
2-dimensional latent. Its posterior q(z|x) is a `TransformedDistribution`: a diagonal `Normal` (made one
multivariate event by `Independent`) pushed through two planar flows, a user-written `Transform` subclass
whose `log_abs_det_jacobian` the distribution adds to the base log-density. Samples come from `rsample`, so
the ELBO's gradient flows through them to the encoder; `log_prob` of a sample uses the transform's cache (a
planar flow has no closed-form inverse). The decoder's likelihood is a `Bernoulli` on logits; the analytic
`kl_divergence` of the base posterior from the prior is printed beside the Monte-Carlo KL of the flow.

The agent learns to walk right along a 6-cell corridor with a `Categorical` policy (REINFORCE with a
baseline and an entropy bonus).

    python examples/vae_flows.py                      # the full run
    python -m torchshim check examples/vae_flows.py --short --check

`--check` makes the run reproducible across libraries (their random streams differ): initial weights, the
posterior's noise and the agent's action draws come from numpy (a `Normal` and a `Categorical` subclass
whose samplers read numpy), everything else is torch.distributions as in any script.
"""
import argparse
import math

import numpy as np

import torch
from torch import nn
from torch.distributions import (Bernoulli, Categorical, Independent, Normal, Transform,
                                     TransformedDistribution, constraints, kl_divergence)

FULL = dict(steps=300, batch=64, episodes=200)
SHORT = dict(steps=30, batch=32, episodes=30)
LATENT = 2


def bars(rng, n):
    """n 8x8 images, each with one to three random full rows or columns set."""
    x = np.zeros((n, 8, 8), np.float32)
    for i in range(n):
        for _ in range(rng.integers(1, 4)):
            k = rng.integers(8)
            if rng.random() < 0.5:
                x[i, k, :] = 1
            else:
                x[i, :, k] = 1
    return torch.from_numpy(x.reshape(n, 64))


class PlanarFlow(Transform):
    """f(z) = z + u * tanh(w.z + b) (Rezende & Mohamed 2015), with u made invertible (w.u >= -1)."""
    domain = constraints.independent(constraints.real, 1)
    codomain = constraints.independent(constraints.real, 1)
    bijective = True

    def __init__(self, u, w, b):
        super().__init__(cache_size=1)
        self.u, self.w, self.b = u, w, b

    def _u_hat(self):
        wu = (self.w * self.u).sum()
        return self.u + (torch.nn.functional.softplus(wu) - 1 - wu) * self.w / (self.w ** 2).sum()

    def _call(self, z):
        return z + self._u_hat() * torch.tanh(z @ self.w + self.b).unsqueeze(-1)

    def log_abs_det_jacobian(self, z, y):
        psi = (1 - torch.tanh(z @ self.w + self.b) ** 2).unsqueeze(-1) * self.w
        return torch.log((1 + psi @ self._u_hat()).abs() + 1e-6)


class NumpyNormal(Normal):
    """A Normal whose reparameterised draws take their noise from numpy (--check)."""

    def __init__(self, loc, scale, rng):
        super().__init__(loc, scale)
        self.rng = rng

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        eps = torch.from_numpy(self.rng.standard_normal(tuple(shape)).astype(np.float32))
        return self.loc + eps * self.scale


class NumpyCategorical(Categorical):
    """A Categorical drawing by inverse CDF from numpy uniforms (--check)."""

    def __init__(self, logits, rng):
        super().__init__(logits=logits)
        self.rng = rng

    def sample(self, sample_shape=torch.Size()):
        u = torch.from_numpy(self.rng.random(tuple(self._extended_shape(sample_shape))).astype(np.float32))
        cdf = self.probs.cumsum(-1)
        return torch.searchsorted(cdf, u.unsqueeze(-1)).squeeze(-1).clamp(max=cdf.shape[-1] - 1)


class VAE(nn.Module):
    def __init__(self, flows=2):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2 * LATENT))
        self.dec = nn.Sequential(nn.Linear(LATENT, 64), nn.Tanh(), nn.Linear(64, 64))
        self.u = nn.Parameter(0.5 * torch.rand(flows, LATENT) - 0.25)
        self.w = nn.Parameter(0.5 * torch.rand(flows, LATENT) - 0.25)
        self.b = nn.Parameter(torch.zeros(flows))

    def posterior(self, x, rng):
        mu, log_sigma = self.enc(x).chunk(2, dim=-1)
        sigma = log_sigma.clamp(-5, 3).exp()
        base = NumpyNormal(mu, sigma, rng) if rng is not None else Normal(mu, sigma)
        flows = [PlanarFlow(self.u[k], self.w[k], self.b[k]) for k in range(self.u.shape[0])]
        return Independent(base, 1), TransformedDistribution(Independent(base, 1), flows)

    def elbo(self, x, rng):
        base, q = self.posterior(x, rng)
        z = q.rsample()
        prior = Independent(Normal(torch.zeros(LATENT), torch.ones(LATENT)), 1)
        log_lik = Independent(Bernoulli(logits=self.dec(z)), 1).log_prob(x)
        kl_flow = q.log_prob(z) - prior.log_prob(z)  # Monte-Carlo KL of the flow posterior
        kl_base = kl_divergence(base, prior)  # analytic, of the base posterior
        return (log_lik - kl_flow).mean(), kl_flow.mean(), kl_base.mean()


def init_from_numpy(model, rng):
    """Every Linear drawn from numpy with PyTorch's default bounds U(+-1/sqrt(fan_in)); flows small."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                bound = 1 / math.sqrt(m.in_features)
                for p in (m.weight, m.bias):
                    p.copy_(torch.from_numpy(rng.uniform(-bound, bound, p.shape).astype(np.float32)))
        for p in (getattr(model, "u", None), getattr(model, "w", None)):
            if p is not None:
                p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)))


def train_vae(cfg, check):
    data_rng = np.random.default_rng(0)
    noise_rng = np.random.default_rng(1) if check else None
    model = VAE()
    if check:
        init_from_numpy(model, np.random.default_rng(2))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(1, cfg["steps"] + 1):
        x = bars(data_rng, cfg["batch"])
        elbo, kl_flow, kl_base = model.elbo(x, noise_rng)
        opt.zero_grad()
        (-elbo).backward()
        opt.step()
        if step % max(1, cfg["steps"] // 5) == 0:
            print(f"vae step {step:4d}  elbo {elbo.item():9.4f}  kl(flow) {kl_flow.item():7.4f}  "
                  f"kl(base, analytic) {kl_base.item():7.4f}")
    with torch.no_grad():
        x = bars(np.random.default_rng(3), 256)
        elbo, _, _ = model.elbo(x, np.random.default_rng(4) if check else None)
    print(f"vae held-out elbo {elbo.item():.4f}")


def corridor_episode(policy, rng, length=6, horizon=12):
    """Start in cell 0; actions 0 (left) / 1 (right); reward 1 on reaching the last cell, -0.05 per step."""
    pos, log_probs, entropies, rewards = 0, [], [], []
    for _ in range(horizon):
        state = torch.zeros(length)
        state[pos] = 1.0
        logits = policy(state)
        dist = NumpyCategorical(logits, rng) if rng is not None else Categorical(logits=logits)
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        entropies.append(dist.entropy())
        pos = max(0, pos + (1 if action.item() == 1 else -1))
        done = pos == length - 1
        rewards.append(1.0 if done else -0.05)
        if done:
            break
    return torch.stack(log_probs), torch.stack(entropies), rewards


def train_agent(cfg, check):
    rng = np.random.default_rng(5) if check else None
    policy = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    if check:
        init_from_numpy(policy, np.random.default_rng(6))
    opt = torch.optim.Adam(policy.parameters(), lr=2e-2)
    baseline, window = 0.0, []
    for episode in range(1, cfg["episodes"] + 1):
        log_probs, entropies, rewards = corridor_episode(policy, rng)
        returns = torch.tensor([sum(0.99 ** k * r for k, r in enumerate(rewards[t:]))
                                for t in range(len(rewards))])
        loss = -(log_probs * (returns - baseline)).sum() - 0.01 * entropies.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        baseline = 0.9 * baseline + 0.1 * returns[0].item()
        window.append(sum(rewards))
        if episode % max(1, cfg["episodes"] // 5) == 0:
            print(f"agent episode {episode:4d}  mean return {sum(window) / len(window):7.4f}  "
                  f"steps {len(rewards):2d}  p(right|start) "
                  f"{torch.softmax(policy(torch.eye(6)[0]), -1)[1].item():.4f}")
            window = []


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="a few steps and episodes (CI)")
    parser.add_argument("--check", action="store_true",
                        help="reproducible across libraries: numpy randomness")
    args = parser.parse_args()
    cfg = SHORT if args.short else FULL
    torch.manual_seed(0)
    train_vae(cfg, args.check)
    train_agent(cfg, args.check)


if __name__ == "__main__":
    main()

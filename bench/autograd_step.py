"""Eager autograd, side by side in one run: real PyTorch eager vs raw JAX eager vs torchshim eager
(plus `jax.jit` of the hand-written step as the compiled reference).

Cases
  mlp_step   one SGD-with-momentum training step of an MLP 784-512-512-10, batch 128, cross-entropy
             (written as logsumexp - gathered logit, the same formula in every flavour)
  hvp        a Hessian-vector product of a tanh layer's loss (double backward), 256x256
  grad_pen   a WGAN-GP gradient-penalty step on an MLP critic 128-256-1, batch 64 (double backward)

Each case is warmed up, then timed as the median over `--batches` batches of `--iters` calls (ms per call);
JAX and torchshim block on their results, PyTorch synchronizes on CUDA. `--device cuda` runs all three on the
GPU (jax's GPU backend; PyTorch's CUDA build). Writes bench/results/autograd_step.json.
Run: `nox -s bench` or `python bench/autograd_step.py [--iters N --batches N --warmup N --device cpu|cuda]`.
"""
import argparse
import json
import os
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

try:
    import torchshim
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import torchshim

try:
    import torch
except ImportError:
    torch = None

HERE = os.path.dirname(os.path.abspath(__file__))
LR, MOMENTUM = 0.01, 0.9
DEVICE = ["cpu"]  # set by --device: where every flavour's arrays live


def _put(a):
    """A numpy array as a jax array on DEVICE."""
    return jax.device_put(jnp.asarray(a), jax.devices("gpu" if DEVICE[0] == "cuda" else "cpu")[0])


def _t(T, a, **kw):
    """A numpy array as a torch/torchshim tensor on DEVICE."""
    return T.tensor(a, device=DEVICE[0], **kw)


def _data(seed=0):
    rng = np.random.default_rng(seed)
    w = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in ((784, 512), (512,), (512, 512), (512,),
                                                                      (512, 10), (10,))]
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    return w, x, y


# ---- the MLP step -----------------------------------------------------------------------------------------
def _lib_mlp_step(T):
    """PyTorch-style code, run unchanged on torch and torchshim."""
    w, x, y = _data()
    params = [_t(T, a, requires_grad=True) for a in w]
    bufs = [T.zeros_like(p) for p in params]
    x, y = _t(T, x), _t(T, y)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h = (x @ w1 + b1).relu() if hasattr(T.Tensor, "relu") else (x @ w1 + b1).clamp(min=0)
        h = (h @ w2 + b2).clamp(min=0)
        logits = h @ w3 + b3
        loss = (logits.logsumexp(1) - logits.gather(1, y[:, None])[:, 0]).mean()
        for p in params:
            p.grad = None
        loss.backward()
        with T.no_grad():
            for p, b in zip(params, bufs):
                b.mul_(MOMENTUM).add_(p.grad)
                p.sub_(LR * b)
        return loss
    return step


def _jax_loss(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h = jnp.maximum(x @ w1 + b1, 0)
    h = jnp.maximum(h @ w2 + b2, 0)
    logits = h @ w3 + b3
    return (jax.nn.logsumexp(logits, 1) - jnp.take_along_axis(logits, y[:, None], 1)[:, 0]).mean()


def _jax_update(params, bufs, grads):
    bufs = [MOMENTUM * b + g for b, g in zip(bufs, grads)]
    return [p - LR * b for p, b in zip(params, bufs)], bufs


def _jax_mlp_step(jit):
    w, x, y = _data()
    state = {"p": [_put(a) for a in w], "b": [jnp.zeros_like(_put(a)) for a in w]}
    x, y = _put(x), _put(y)

    def raw(p, b):
        loss, g = jax.value_and_grad(_jax_loss)(p, x, y)
        p, b = _jax_update(p, b, g)
        return loss, p, b
    f = jax.jit(raw) if jit else raw

    def step():
        loss, state["p"], state["b"] = f(state["p"], state["b"])
        return loss
    return step


# ---- Hessian-vector product -------------------------------------------------------------------------------
def _hvp_data():
    rng = np.random.default_rng(1)
    return (rng.standard_normal((256, 256)).astype(np.float32) / 16,
            rng.standard_normal(256).astype(np.float32),
            rng.standard_normal(256).astype(np.float32))


def _lib_hvp(T):
    a, x0, v0 = _hvp_data()
    a, x, v = _t(T, a), _t(T, x0, requires_grad=True), _t(T, v0)

    def step():
        loss = ((a @ x).tanh() ** 2).sum()
        g, = T.autograd.grad(loss, x, create_graph=True)
        hv, = T.autograd.grad(g, x, grad_outputs=v)
        return hv
    return step


def _jax_hvp(jit):
    a, x, v = map(_put, _hvp_data())

    def hvp(x):
        f = lambda z: (jnp.tanh(a @ z) ** 2).sum()  # noqa: E731
        return jax.grad(lambda z: jnp.vdot(jax.grad(f)(z), v))(x)
    f = jax.jit(hvp) if jit else hvp
    return lambda: f(x)


# ---- gradient penalty -----------------------------------------------------------------------------------
def _gp_data():
    rng = np.random.default_rng(2)
    return ([rng.standard_normal(s).astype(np.float32) * 0.1 for s in ((128, 256), (256,), (256, 1), (1,))],
            rng.standard_normal((64, 128)).astype(np.float32),
            rng.standard_normal((64, 128)).astype(np.float32),
            rng.random((64, 1)).astype(np.float32))


def _lib_grad_pen(T):
    w, real, fake, alpha = _gp_data()
    params = [_t(T, a, requires_grad=True) for a in w]
    real, fake, alpha = _t(T, real), _t(T, fake), _t(T, alpha)

    def step():
        w1, b1, w2, b2 = params
        x_hat = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        d = (x_hat @ w1 + b1).tanh() @ w2 + b2
        g, = T.autograd.grad(d.sum(), x_hat, create_graph=True)
        loss = d.mean() + 10 * ((g.norm(2, dim=1) - 1) ** 2).mean()
        for p in params:
            p.grad = None
        loss.backward()
        with T.no_grad():
            for p in params:
                p.sub_(LR * p.grad)
        return loss
    return step


def _jax_grad_pen(jit):
    w, real, fake, alpha = _gp_data()
    state = {"p": [_put(a) for a in w]}
    real, fake, alpha = _put(real), _put(fake), _put(alpha)

    def critic(p, x):
        w1, b1, w2, b2 = p
        return jnp.tanh(x @ w1 + b1) @ w2 + b2

    def loss_fn(p):
        x_hat = alpha * real + (1 - alpha) * fake
        d = critic(p, x_hat)
        g = jax.grad(lambda z: critic(p, z).sum())(x_hat)
        return d.mean() + 10 * ((jnp.linalg.norm(g, axis=1) - 1) ** 2).mean()

    def raw(p):
        loss, g = jax.value_and_grad(loss_fn)(p)
        return loss, [a - LR * b for a, b in zip(p, g)]
    f = jax.jit(raw) if jit else raw

    def step():
        loss, state["p"] = f(state["p"])
        return loss
    return step


CASES = {
    "mlp_step": (_lib_mlp_step, _jax_mlp_step),
    "hvp": (_lib_hvp, _jax_hvp),
    "grad_pen": (_lib_grad_pen, _jax_grad_pen),
}


def _block(r):
    if isinstance(r, torchshim.Tensor):
        r = r._value
    if torch is not None and isinstance(r, torch.Tensor):
        if r.is_cuda:
            torch.cuda.synchronize()
        return r
    return jax.block_until_ready(r)


def _time(fn, iters, batches, warmup):
    for _ in range(warmup):
        _block(fn())
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(iters):
            _block(fn())
        times.append((time.perf_counter() - t0) / iters * 1e3)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--json", default=os.path.join(HERE, "results", "autograd_step.json"))
    args = ap.parse_args(argv)
    DEVICE[0] = args.device
    rows = {}
    print(f"{'case':10} {'torch ms':>9} {'jax eager':>10} {'jax.jit':>8} {'torchshim':>10} {'ts/torch':>9} "
          f"{'ts/jax eager':>13}")
    for name, (lib_case, jax_case) in CASES.items():
        r = {}
        if torch is not None:
            torch.manual_seed(0)
            r["torch"] = _time(lib_case(torch), args.iters, args.batches, args.warmup)
        r["jax_eager"] = _time(jax_case(False), max(2, args.iters // 5), args.batches, 2)
        r["jax_jit"] = _time(jax_case(True), args.iters, args.batches, args.warmup)
        r["torchshim"] = _time(lib_case(torchshim), args.iters, args.batches, args.warmup)
        r["torchshim_over_torch"] = r["torchshim"] / r["torch"] if "torch" in r else None
        r["torchshim_over_jax_eager"] = r["torchshim"] / r["jax_eager"]
        rows[name] = r
        tt = f"{r['torch']:9.2f}" if "torch" in r else f"{'-':>9}"
        ratio = f"{r['torchshim_over_torch']:9.2f}" if "torch" in r else f"{'-':>9}"
        print(f"{name:10} {tt} {r['jax_eager']:10.2f} {r['jax_jit']:8.2f} {r['torchshim']:10.2f} {ratio} "
              f"{r['torchshim_over_jax_eager']:13.2f}")
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"jax": jax.__version__, "torch": getattr(torch, "__version__", None),
                   "device": args.device, "jax_backend": jax.default_backend(), "cpus": os.cpu_count(),
                   "cases": rows}, f, indent=1)


if __name__ == "__main__":
    main()

"""nn training steps, side by side in one run: real PyTorch eager vs raw JAX eager vs torchshim eager (plus
`jax.jit` of the hand-written JAX step as the compiled reference).

Cases
  cnn_step   a small CNN, batch 64 of 32x32x3: conv3x3(3->32)+BN+ReLU+maxpool2, conv3x3(32->64)+BN+ReLU+
             maxpool2, linear(4096->10); cross-entropy; one SGD-with-momentum step (BN in training mode)
  lstm_step  an LSTM(128->256, one layer) over 32 steps, batch 32, linear head on the last state, MSE loss;
             one SGD step

The same PyTorch code runs on torch and torchshim (`import torchshim as torch`); the JAX flavour is written by
hand (lax.conv_general_dilated / lax.scan). Each case is warmed up, then timed as the median over `--batches`
batches of `--iters` calls (ms per step); JAX and torchshim block on their results, PyTorch synchronizes on
CUDA. Writes bench/results/nn_step.json.
Run: `nox -s bench -- nn_step` or
`python bench/nn_step.py [--iters N --batches N --warmup N --device cpu|cuda]`.
"""
import argparse
import json
import os
import sys

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
LR, MOMENTUM, EPS, BN_MOMENTUM = 0.01, 0.9, 1e-5, 0.1
# one timing and placement method for every training-step benchmark (bench/ is on sys.path when run)
from autograd_step import DEVICE, _put, _time  # noqa: E402


def _rng(seed):
    return np.random.default_rng(seed)


# ---- CNN ---------------------------------------------------------------------------------------------------
def _cnn_data():
    r = _rng(0)
    x = r.standard_normal((64, 3, 32, 32)).astype(np.float32)
    y = r.integers(0, 10, 64)
    return x, y


def _lib_cnn(T):
    nn, F = T.nn, T.nn.functional
    T.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 10)).to(DEVICE[0])
    opt = T.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM) if hasattr(T, "optim") else None
    params = list(model.parameters())
    bufs = [T.zeros_like(p) for p in params]
    x, y = _cnn_data()
    x, y = T.tensor(x, device=DEVICE[0]), T.tensor(y, device=DEVICE[0])

    def step():
        loss = F.cross_entropy(model(x), y)
        if opt is not None:
            opt.zero_grad()
            loss.backward()
            opt.step()
        else:  # SGD with momentum by hand, as torch.optim.SGD does it
            for p in params:
                p.grad = None
            loss.backward()
            with T.no_grad():
                for p, b in zip(params, bufs):
                    b.mul_(MOMENTUM).add_(p.grad)
                    p.sub_(LR * b)
        return loss
    return step


def _jax_cnn(jit):
    r = _rng(1)

    def conv_init(cin, cout):
        bound = 1 / np.sqrt(cin * 9)
        return [r.uniform(-bound, bound, (cout, cin, 3, 3)).astype(np.float32),
                r.uniform(-bound, bound, (cout,)).astype(np.float32)]
    p = conv_init(3, 32) + [np.ones(32, np.float32), np.zeros(32, np.float32)] + conv_init(32, 64) + \
        [np.ones(64, np.float32), np.zeros(64, np.float32)] + \
        [r.uniform(-0.015, 0.015, (10, 4096)).astype(np.float32), np.zeros(10, np.float32)]
    x, y = _cnn_data()
    x, y = _put(x), _put(y)
    state = {"p": [_put(a) for a in p], "m": [jnp.zeros_like(_put(a)) for a in p],
             "stats": [_put(np.zeros(32, np.float32)), _put(np.ones(32, np.float32)),
                       _put(np.zeros(64, np.float32)), _put(np.ones(64, np.float32))]}

    def block(h, w, b, g, beta, rm, rv):
        h = jax.lax.conv_general_dilated(h, w, (1, 1), ((1, 1), (1, 1)),
                                         dimension_numbers=("NCHW", "OIHW", "NCHW")) + b[None, :, None, None]
        mean, var = h.mean((0, 2, 3)), h.var((0, 2, 3))
        n = h.size / h.shape[1]
        rm = (1 - BN_MOMENTUM) * rm + BN_MOMENTUM * mean
        rv = (1 - BN_MOMENTUM) * rv + BN_MOMENTUM * var * n / (n - 1)
        h = (h - mean[None, :, None, None]) / jnp.sqrt(var[None, :, None, None] + EPS)
        h = jnp.maximum(h * g[None, :, None, None] + beta[None, :, None, None], 0)
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        return h, rm, rv

    def loss_fn(p, stats):
        h, rm1, rv1 = block(x, *p[0:4], *stats[0:2])
        h, rm2, rv2 = block(h, *p[4:8], *stats[2:4])
        logits = h.reshape(h.shape[0], -1) @ p[8].T + p[9]
        loss = (jax.nn.logsumexp(logits, 1) - jnp.take_along_axis(logits, y[:, None], 1)[:, 0]).mean()
        return loss, [rm1, rv1, rm2, rv2]

    def raw(p, m, stats):
        (loss, stats), g = jax.value_and_grad(loss_fn, has_aux=True)(p, stats)
        m = [MOMENTUM * a + b for a, b in zip(m, g)]
        return loss, [a - LR * b for a, b in zip(p, m)], m, stats
    f = jax.jit(raw) if jit else raw

    def step():
        loss, state["p"], state["m"], state["stats"] = f(state["p"], state["m"], state["stats"])
        return loss
    return step


# ---- LSTM --------------------------------------------------------------------------------------------------
SEQ, BATCH, NIN, NH = 32, 32, 128, 256


def _lstm_data():
    r = _rng(2)
    return (r.standard_normal((SEQ, BATCH, NIN)).astype(np.float32),
            r.standard_normal((BATCH, 1)).astype(np.float32))


def _lib_lstm(T):
    nn = T.nn
    T.manual_seed(0)
    lstm, head = nn.LSTM(NIN, NH).to(DEVICE[0]), nn.Linear(NH, 1).to(DEVICE[0])
    params = list(lstm.parameters()) + list(head.parameters())
    x, y = _lstm_data()
    x, y = T.tensor(x, device=DEVICE[0]), T.tensor(y, device=DEVICE[0])

    def step():
        out, (h, c) = lstm(x)
        loss = ((head(h[-1]) - y) ** 2).mean()
        for p in params:
            p.grad = None
        loss.backward()
        with T.no_grad():
            for p in params:
                p.sub_(LR * p.grad)
        return loss
    return step


def _jax_lstm(jit):
    r = _rng(3)
    k = 1 / np.sqrt(NH)
    shapes = [(4 * NH, NIN), (4 * NH, NH), (4 * NH,), (4 * NH,), (1, NH), (1,)]
    state = {"p": [_put(r.uniform(-k, k, s).astype(np.float32)) for s in shapes]}
    x, y = map(_put, _lstm_data())

    def loss_fn(p):
        wih, whh, bih, bhh, wo, bo = p

        def cell(carry, xt):
            h, c = carry
            gates = xt @ wih.T + bih + h @ whh.T + bhh
            i, f, g, o = jnp.split(gates, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        z = jnp.zeros((BATCH, NH), jnp.float32)
        (h, _), _ = jax.lax.scan(cell, (z, z), x)
        return (((h @ wo.T + bo) - y) ** 2).mean()

    def raw(p):
        loss, g = jax.value_and_grad(loss_fn)(p)
        return loss, [a - LR * b for a, b in zip(p, g)]
    f = jax.jit(raw) if jit else raw

    def step():
        loss, state["p"] = f(state["p"])
        return loss
    return step


CASES = {"cnn_step": (_lib_cnn, _jax_cnn), "lstm_step": (_lib_lstm, _jax_lstm)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--json", default=os.path.join(HERE, "results", "nn_step.json"))
    args = ap.parse_args(argv)
    DEVICE[0] = args.device
    rows, errors = {}, {}
    print(f"{'case':10} {'torch ms':>9} {'jax eager':>10} {'jax.jit':>8} {'torchshim':>10} {'ts/torch':>9} "
          f"{'ts/jax eager':>13}")
    for name, (lib_case, jax_case) in CASES.items():
        r = {}
        if torch is not None:
            r["torch"] = _time(lib_case(torch), args.iters, args.batches, args.warmup)
        r["jax_eager"] = _time(jax_case(False), max(2, args.iters // 2), args.batches, 1)
        r["jax_jit"] = _time(jax_case(True), args.iters, args.batches, args.warmup)
        try:
            r["torchshim"] = _time(lib_case(torchshim), args.iters, args.batches, args.warmup)
        except Exception as e:  # noqa: BLE001  a layer torchshim lacks is reported, not fatal
            errors[name] = f"{type(e).__name__}: {e}"
            r["torchshim"] = None
        ts = r["torchshim"]
        r["torchshim_over_torch"] = ts / r["torch"] if ts is not None and "torch" in r else None
        r["torchshim_over_jax_eager"] = ts / r["jax_eager"] if ts is not None else None
        rows[name] = r

        def fmt(v, w):
            return f"{v:{w}.2f}" if v is not None else f"{'-':>{w}}"
        print(f"{name:10} {fmt(r.get('torch'), 9)} {r['jax_eager']:10.2f} {r['jax_jit']:8.2f} {fmt(ts, 10)} "
              f"{fmt(r['torchshim_over_torch'], 9)} {fmt(r['torchshim_over_jax_eager'], 13)}")
    for k, e in errors.items():
        print(f"torchshim failed {k}: {e[:300]}")
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"jax": jax.__version__, "torch": getattr(torch, "__version__", None),
                   "device": args.device, "jax_backend": jax.default_backend(), "cpus": os.cpu_count(),
                   "cases": rows, "errors": errors},
                  f, indent=1)


if __name__ == "__main__":
    main()

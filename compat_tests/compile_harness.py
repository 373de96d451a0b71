"""Helpers for the torch.compile tests (compat_tests/test_compile_*.py): the same small models and training
loops run three ways — real PyTorch eager (the oracle), torchshim eager, torchshim compiled — and compared.

- `mlp(T)`, `cnn(T)`, `dropout_mlp(T)`: small models with seeded NumPy weights (identical in both libraries).
- `pair(build, seed)`: two torchshim modules with the same weights (compiled / eager run) and a torch one.
- `state(model)`: parameters, gradients and buffers as NumPy, by name.
- `compare_states(ref, got, rtol, atol)`: the same names, dtypes and values.
- `traces(c)`: programs traced by a compiled function or module (`c._compiled.traces`).
- `no_warnings()`: a context that fails on any warning (the compiled path must not warn when it works).
"""
import contextlib
import warnings

import numpy as np
import torch

import torchshim
from nn_harness import copy_state

__all__ = ["mlp", "cnn", "dropout_mlp", "seeded", "pair", "state", "compare_states", "traces", "no_warnings",
           "npy", "compare_tensors"]


def seeded(T, model, seed=0, scale=0.5):
    """`model` with every floating parameter and buffer set from a seeded normal(0, scale) draw (buffers
    that hold counts and variances are left alone)."""
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.tensor(rng.normal(0, scale, size=tuple(p.shape)), dtype=p.dtype))
    return model


def mlp(T, dtype="float32"):
    """Linear(8, 16) - ReLU - Linear(16, 4)."""
    m = T.nn.Sequential(T.nn.Linear(8, 16), T.nn.ReLU(), T.nn.Linear(16, 4)).to(getattr(T, dtype))
    return seeded(T, m)


def dropout_mlp(T, p=0.5):
    """Linear(8, 16) - Dropout(p) - Tanh - Linear(16, 4)."""
    return seeded(T, T.nn.Sequential(T.nn.Linear(8, 16), T.nn.Dropout(p), T.nn.Tanh(), T.nn.Linear(16, 4)))


def cnn(T):
    """Conv2d(3, 4, 3) (no bias: it feeds BatchNorm) - BatchNorm2d - ReLU - MaxPool2d(2) - Flatten -
    Linear(36, 5), for (N, 3, 8, 8) inputs."""
    nn = T.nn
    m = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(36, 5))
    return seeded(T, m)


def pair(build, seed=0):
    """(torch module, torchshim module A, torchshim module B): B is a second torchshim module with A's
    weights (one is run compiled, the other eagerly)."""
    torch.manual_seed(seed)
    ref = build(torch)
    mods = []
    for _ in range(2):
        torchshim.manual_seed(seed)
        m = build(torchshim)
        copy_state(ref, m)
        mods.append(m)
    return ref, mods[0], mods[1]


def npy(t):
    return None if t is None else np.array(t.detach().numpy())


def state(model):
    """{name: array} of parameters, their `.grad` (`name.grad`) and buffers of `model`."""
    out = {}
    for n, p in model.named_parameters():
        out[n] = npy(p)
        out[n + ".grad"] = npy(p.grad)
    for n, b in model.named_buffers():
        out[n] = npy(b)
    return out


def compare_states(ref, got, rtol=1e-5, atol=1e-5, what="state"):
    assert list(ref) == list(got), f"{what}: names {list(got)} != {list(ref)}"
    for k in ref:
        r, g = ref[k], got[k]
        if r is None or g is None:
            assert r is None and g is None, f"{what}[{k}]: {g!r} vs {r!r}"
            continue
        assert r.dtype == g.dtype, f"{what}[{k}]: dtype {g.dtype} != {r.dtype}"
        np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, err_msg=f"{what}[{k}]")


def compare_tensors(ref, got, rtol=1e-5, atol=1e-5, what="value"):
    """Two tensors (either library) or two lists of them: same dtype name, shape and values."""
    if isinstance(ref, (list, tuple)):
        assert len(ref) == len(got), what
        for i, (r, g) in enumerate(zip(ref, got)):
            compare_tensors(r, g, rtol, atol, f"{what}[{i}]")
        return
    if ref is None or got is None:
        assert ref is None and got is None, f"{what}: {got!r} vs {ref!r}"
        return
    rd, gd = str(ref.dtype).split(".")[-1], str(got.dtype).split(".")[-1]
    assert rd == gd, f"{what}: {gd} != {rd}"
    np.testing.assert_allclose(npy(got), npy(ref), rtol=rtol, atol=atol, err_msg=what)


def traces(c):
    """Programs traced so far by `torch.compile`'s result `c` (function wrapper or OptimizedModule)."""
    return c._compiled.traces


@contextlib.contextmanager
def no_warnings():
    """Fail on any warning raised inside (a working compiled call does not warn)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        yield w
    msgs = [f"{x.category.__name__}: {x.message}" for x in w]
    assert not msgs, f"unexpected warnings: {msgs}"

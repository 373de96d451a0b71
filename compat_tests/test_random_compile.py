"""Random draws compile per block size, not per shape (torchshim/ops/_random_blocks.py), and the numbers are
those of the per-shape kernel: the seeded stream is the one docs/rng.md defines (draw k of seed s is
jax.random's sampler on fold_in(key(s), k), element i from threefry counter i), whatever the path.

Compilations are counted with jax.monitoring's backend-compile events, by jitted function name."""
import math
from contextlib import contextmanager

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import monitoring

import torchshim
from torchshim import _device as Dev
from torchshim.ops import _random_blocks as RB
from torchshim.ops import nn_dropout
from torchshim.ops import random as R

_COMPILES = []


def _on_duration(event, secs, **kw):
    if event == "/jax/core/compile/backend_compile_duration":
        _COMPILES.append(kw.get("fun_name", ""))


monitoring.register_event_duration_secs_listener(_on_duration)


@contextmanager
def count_compiles():
    """Yields a list that holds, after the block, the names of the functions compiled inside it."""
    start = len(_COMPILES)
    names = []
    yield names
    names.extend(_COMPILES[start:])


@contextmanager
def path(blocks):
    """Force the block path (blocks=True: REPEAT never reached) or the per-shape kernels (False)."""
    old = RB.REPEAT, RB.MAX_BLOCKED
    RB.REPEAT, RB.MAX_BLOCKED = (10**9, old[1]) if blocks else (old[0], 0)
    try:
        yield
    finally:
        RB.REPEAT, RB.MAX_BLOCKED = old


def _bytes(t):
    return np.asarray(t._value).tobytes()


CPU = Dev.to_jax(Dev.CPU)
RAW = np.array([0x12345678, 0x9ABCDEF0], np.uint32)


# ---- compile counts ----------------------------------------------------------------------------------------
def test_twenty_shapes_compile_at_most_two_kernels():
    for f in (torchshim.rand, torchshim.randn):
        f(2, 3)  # the block kernels of this session, whatever ran before
    with count_compiles() as names:
        for k in range(2, 22):
            torchshim.rand(k, 7)
            torchshim.randn(3, k)
    sampled = [n for n in names if "_sample_k" in n]
    assert len(sampled) <= 2, names


def test_layers_of_many_sizes_share_kernels():
    """Twenty Linear layers of different sizes: their kaiming/bias draws compile a bounded number of random
    kernels (one per block size), not one per parameter shape."""
    with count_compiles() as names:
        for k in range(20):
            torchshim.nn.Linear(30 + 7 * k, 11 + 13 * k)
    sampled = [n for n in names if "_sample_k" in n]
    assert len(sampled) <= len(RB.TIERS), names


def test_dropout_shapes_share_kernels():
    F = torchshim.nn.functional
    F.dropout(torchshim.ones(2, 3), 0.25)
    with count_compiles() as names:
        for k in range(2, 14):
            F.dropout(torchshim.ones(k, 5), 0.25)
    assert len([n for n in names if "_noise_k" in n]) <= 1, names


def test_repeated_shape_switches_to_its_own_kernel():
    """A shape drawn REPEAT times (a training loop's noise) gets the faster per-shape kernel, same numbers."""
    old = RB.REPEAT
    shape = (13, 17)
    key = jax.random.key(5)
    try:
        RB.REPEAT = 3
        R._sample_k.seen.clear()
        before = R._sample_k.shaped._cache_size()
        g = torchshim.Generator().manual_seed(5)
        got = [_bytes(torchshim.randn(*shape, generator=g)) for _ in range(5)]
        assert R._sample_k.shaped._cache_size() == before + 1  # draws 3 to 5 ran one per-shape kernel
    finally:
        RB.REPEAT = old
    want = [np.asarray(jax.random.normal(jax.random.fold_in(key, k), shape, jnp.float32)).tobytes()
            for k in range(1, 6)]
    assert got == want


# ---- same numbers on both paths ----------------------------------------------------------------------------
SHAPES = [(2,), (3,), (7, 5), (1023,), (1025,), (4, 3, 3, 3), (33, 129), (2, 16400), (300, 1000)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_blocks_equal_per_shape_kernel(shape):
    """The block path gives every sampler's per-shape numbers, bit for bit (float32 normal/uniform here;
    the other samplers and dtypes in the slow test)."""
    for dist, a, b in (("normal", -0.25, 3.0), ("uniform", -2.0, 0.5)):
        st = dict(dt=np.dtype(np.float32), dist=dist)
        want = np.asarray(R._sample_k.shaped(RAW, np.uint32(9), a, b, shape=shape, **st))
        with path(True):
            got = np.asarray(R._sample_k(CPU, RAW, np.uint32(9), a, b, shape=shape, **st))
        assert got.tobytes() == want.tobytes(), (dist, shape)


def _kernel_cases():
    floats = ["float32", "float64", "float16", "bfloat16"]
    for dist, a, b in (("uniform", -2.0, 0.5), ("normal", 0.75, 2.5), ("log_normal", 0.5, 0.25),
                       ("exponential", 1.5, 0.0), ("cauchy", 1.0, 2.0), ("geometric", 0.3, 0.0)):
        dts = floats + (["complex64", "complex128"] if dist in ("uniform", "normal") else [])
        dts += ["int64", "int16"] if dist == "geometric" else []
        for dt in dts:
            yield f"{dist}-{dt}", R._sample_k, (a, b), dict(dt=np.dtype(getattr(jnp, dt)), dist=dist)
    yield "normal-complex-mean", R._sample_k, (0.5 - 1j, 2.0), dict(dt=np.dtype(np.complex64), dist="normal")
    for dt in ("int64", "int8", "uint8", "bool", "float32", "float64"):
        yield f"int-{dt}", R._int_k, (np.uint64(2**64 - 3), np.uint64(100)), dict(dt=np.dtype(getattr(
            jnp, dt if dt != "bool" else "bool_")), full=False)
    yield "int-full", R._int_k, (np.uint64(0), np.uint64(0)), dict(dt=np.dtype(np.int64), full=True)
    for dt in ("float32", "float64", "int64", "bool", "bfloat16"):
        yield f"bernoulli-{dt}", R._bernoulli_k, (0.3,), dict(dt=np.dtype(getattr(
            jnp, dt if dt != "bool" else "bool_")))
    yield "bernoulli-int-p", R._bernoulli_k, (1,), dict(dt=np.dtype(np.float32))
    for alpha in (False, True):
        for dt in ("float32", "float16", "float64"):
            yield f"dropout-{alpha}-{dt}", nn_dropout._noise_k, (), dict(p=0.3, dt=np.dtype(getattr(jnp, dt)),
                                                                      alpha=alpha)


CASES = {name: rest for name, *rest in _kernel_cases()}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_blocks_equal_per_shape_kernel_all(case):
    """Every RandomKernel, dtype and parameter kind, over shapes that use each block size and cut blocks
    at odd places: the blocks give the per-shape kernel's bytes."""
    kern, args, st = CASES[case]
    # the smallest blocked draw, one small block plus one counter, a medium and a large block each plus a cut
    # small one (2-D: a reshape of the blocks); each shape compiles its per-shape kernel for the comparison
    for shape in [(2,), (1025,), (16385,), (3, 87382)]:
        for n in (1, 77):
            want = kern.shaped(RAW, np.uint32(n), *args, shape=shape, **st)
            with path(True):
                got = kern(CPU, RAW, np.uint32(n), *args, shape=shape, **st)
            for w, g in zip(jax.tree.leaves(want), jax.tree.leaves(got)):
                assert g.shape == w.shape and g.dtype == w.dtype
                assert np.asarray(g).tobytes() == np.asarray(w).tobytes(), (case, shape, n)


def test_stream_is_the_documented_one():
    """docs/rng.md: draw k (from 1) of seed s uses fold_in(jax.random.key(s), k); element i of randn is
    jax.random.normal's element i for that key, on either path."""
    key = jax.random.key(2024)
    for blocks in (True, False):
        torchshim.manual_seed(2024)
        with path(blocks):
            got = [torchshim.randn(6, 50), torchshim.rand(3, 4, 5, dtype=torchshim.float64),
                   torchshim.empty(40, 9).uniform_()]
        want = [jax.random.normal(jax.random.fold_in(key, 1), (6, 50), jnp.float32),
                jax.random.uniform(jax.random.fold_in(key, 2), (3, 4, 5), jnp.float64),
                jax.random.uniform(jax.random.fold_in(key, 3), (40, 9), jnp.float32)]
        for g, w in zip(got, want):
            assert _bytes(g) == np.asarray(w).tobytes(), blocks


def test_integer_parameters_give_the_float_parameters_numbers():
    """normal_(0, 2) and normal_(0.0, 2.0) share a kernel (ops/random.py's _param makes the parameters
    floats): an integer parameter gave the same numbers as its float."""
    for dist, ints, floats in (("normal", (0, 2), (0.0, 2.0)), ("uniform", (-3, 5), (-3.0, 5.0)),
                               ("exponential", (3, 0), (3.0, 0.0)), ("log_normal", (1, 2), (1.0, 2.0))):
        for dt in (np.float32, np.float64, np.complex64):
            if dist not in ("normal", "uniform") and dt is np.complex64:
                continue
            st = dict(shape=(9, 9), dt=np.dtype(dt), dist=dist)
            want = R._sample_k.shaped(RAW, np.uint32(4), *ints, **st)
            assert tuple(map(R._param, ints)) == floats
            got = R._sample_k.shaped(RAW, np.uint32(4), *floats, **st)
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (dist, dt)
    assert R._param(2) == 2.0 and isinstance(R._param(2), float) and R._param(2**60) == 2**60


def test_model_init_same_on_both_paths():
    def build():
        torchshim.manual_seed(11)
        m = torchshim.nn.Sequential(torchshim.nn.Conv2d(3, 8, 3), torchshim.nn.BatchNorm2d(8),
                                    torchshim.nn.Linear(40, 30), torchshim.nn.Dropout(0.5))
        x = m[3](torchshim.ones(6, 7))
        return [_bytes(p) for p in m.parameters()] + [_bytes(x)]
    with path(True):
        a = build()
    with path(False):
        b = build()
    assert a == b


def test_under_jax_trace_uses_per_shape_kernel():
    """Inside a jax trace the blocks cannot be cut on the host: the per-shape kernel runs, same numbers."""
    def f():
        torchshim.manual_seed(3)
        return torchshim.randn(5, 6)._value
    with path(True):
        eager = np.asarray(f())
        traced = np.asarray(jax.jit(f)())
    assert eager.tobytes() == traced.tobytes()


def test_array_parameters_and_single_elements_use_per_shape_kernel():
    """An array parameter (torch.normal(mean_tensor, std)) or a one-element draw is not blocked."""
    st = dict(dt=np.dtype(np.float32), dist="normal")
    with path(True):
        assert not R._sample_k._blockable(CPU, RAW, np.uint32(1), (jnp.zeros(4), 1.0), (4,), st)
        assert not R._sample_k._blockable(CPU, RAW, np.uint32(1), (0.0, 1.0), (1, 1), st)
        assert R._sample_k._blockable(CPU, RAW, np.uint32(1), (0.0, 1.0), (1, 2), st)
        torchshim.manual_seed(0)
        a = torchshim.normal(torchshim.arange(4.0), 1.0)
    torchshim.manual_seed(0)
    with path(False):
        b = torchshim.normal(torchshim.arange(4.0), 1.0)
    assert _bytes(a) == _bytes(b)


def test_plan_covers_draw():
    for total in (2, 1023, 1024, 1025, 16384, 16385, 262143, 262145, RB.MAX_BLOCKED):
        p = RB.plan(total)
        assert p[0][0] == 0 and all(s1 + n1 == s2 for (s1, n1), (s2, _) in zip(p, p[1:]))
        end = p[-1][0] + p[-1][1]
        assert total <= end < total + min(RB.TIERS)
        assert len(p) <= math.ceil(total / max(RB.TIERS)) + 2 * 15 + 1

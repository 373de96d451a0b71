"""Random ops: the numbers can't match PyTorch's stream, so each case runs the same call under torch and
torchshim and checks what must agree: dtype, shape, support (value range), and sample statistics against the
distribution's known moments (tolerance derived from the sample size; PyTorch passes the same check, which
validates the expected values). Then seeding: same seed -> same numbers, different seeds -> different numbers,
Generator objects, get/set state round trips."""
import math

import numpy as np
import pytest
import torch

import torchshim
from harness import to_numpy

N = 200_000
LIBS = (torch, torchshim)


def _np(t):
    a = to_numpy(t)
    return (np.concatenate([a.real.ravel(), a.imag.ravel()]) if np.iscomplexobj(a)
            else a.astype(np.float64).ravel())


def _moments(mean, std, lo=-math.inf, hi=math.inf, eps=0.0, transform=None):
    """A check of sample mean/std (6 standard errors, plus `eps` for low-precision rounding) and support."""
    def check(a):
        assert a.min() >= lo and a.max() <= hi, f"values outside [{lo}, {hi}]: {a.min()} .. {a.max()}"
        if transform is not None:
            a = transform(a)
        n = a.size
        tol = 6 * std / math.sqrt(n) + eps
        assert abs(a.mean() - mean) <= tol, f"mean {a.mean()} vs {mean} (tol {tol})"
        assert abs(a.std() - std) <= 6 * std / math.sqrt(2 * n) + eps + 1e-12, f"std {a.std()} vs {std}"
    return check


def _quantiles(q25, q50, q75, tol):
    def check(a):
        got = np.quantile(a, [0.25, 0.5, 0.75])
        assert np.allclose(got, [q25, q50, q75], atol=tol), f"quartiles {got} vs {[q25, q50, q75]}"
    return check


def _uni_int(lo, hi):  # discrete uniform on [lo, hi]
    return _moments((lo + hi) / 2, math.sqrt(((hi - lo + 1) ** 2 - 1) / 12), lo, hi)


def _ip(name, dtype, *args, **kw):
    return lambda T: getattr(T.zeros(N, dtype=getattr(T, dtype)), name)(*args, **kw)


STATS = {
    "rand": (lambda T: T.rand(N), _moments(0.5, math.sqrt(1 / 12), 0, 1)),
    "rand-2d": (lambda T: T.rand(400, 500), _moments(0.5, math.sqrt(1 / 12), 0, 1)),
    "rand-float64": (lambda T: T.rand(N, dtype=T.float64), _moments(0.5, math.sqrt(1 / 12), 0, 1)),
    "rand-float16": (lambda T: T.rand(N, dtype=T.float16), _moments(0.5, math.sqrt(1 / 12), 0, 1, 2e-3)),
    "rand-bfloat16": (lambda T: T.rand(N, dtype=T.bfloat16), _moments(0.5, math.sqrt(1 / 12), 0, 1, 8e-3)),
    "rand-complex64": (lambda T: T.rand(N, dtype=T.complex64), _moments(0.5, math.sqrt(1 / 12), 0, 1)),
    "rand_like": (lambda T: T.rand_like(T.zeros(N, dtype=T.float64)), _moments(0.5, math.sqrt(1 / 12), 0, 1)),
    "randn": (lambda T: T.randn(N), _moments(0, 1)),
    "randn-float16": (lambda T: T.randn(N, dtype=T.float16), _moments(0, 1, eps=2e-3)),
    "randn-complex128": (lambda T: T.randn(N, dtype=T.complex128), _moments(0, math.sqrt(0.5))),
    "randn_like": (lambda T: T.randn_like(T.zeros(N)), _moments(0, 1)),
    "normal-ff": (lambda T: T.normal(2.0, 3.0, (N,)), _moments(2, 3)),
    "normal-tt": (lambda T: T.normal(T.full((N,), -1.0), T.full((N,), 0.5)), _moments(-1, 0.5)),
    "normal-tf": (lambda T: T.normal(T.full((N,), 4.0, dtype=T.float64), 2.0), _moments(4, 2)),
    "normal-ft": (lambda T: T.normal(1.0, T.full((N,), 2.0)), _moments(1, 2)),
    "normal-complex-mean": (lambda T: T.normal(T.full((N,), 3.0, dtype=T.complex64), 2.0),
                            _moments(3, math.sqrt(2), transform=lambda a: a[:a.size // 2])),
    "uniform_": (_ip("uniform_", "float32", -2.0, 5.0), _moments(1.5, 7 / math.sqrt(12), -2, 5)),
    "uniform_-float64": (_ip("uniform_", "float64", 10, 11), _moments(10.5, 1 / math.sqrt(12), 10, 11)),
    "normal_": (_ip("normal_", "float32", 1.0, 2.0), _moments(1, 2)),
    "normal_-complex64": (_ip("normal_", "complex64", 1.0, 2.0), _moments(1, math.sqrt(2))),
    "exponential_": (_ip("exponential_", "float32", 2.0), _moments(0.5, 0.5, 0)),
    "exponential_-float64": (_ip("exponential_", "float64"), _moments(1, 1, 0)),
    "geometric_": (_ip("geometric_", "float32", 0.3), _moments(1 / 0.3, math.sqrt(0.7) / 0.3, 1)),
    "geometric_-int64": (_ip("geometric_", "int64", 0.8), _moments(1 / 0.8, math.sqrt(0.2) / 0.8, 1)),
    "log_normal_": (_ip("log_normal_", "float64", 0.5, 0.25), _moments(0.5, 0.25, 0, transform=np.log)),
    "cauchy_": (_ip("cauchy_", "float64", 1.0, 2.0), _quantiles(-1, 1, 3, 0.06)),
    "random_-from-to": (_ip("random_", "float32", 3, 10), _uni_int(3, 9)),
    "random_-to": (_ip("random_", "int32", 10), _uni_int(0, 9)),
    "random_-int8": (_ip("random_", "int8"), _uni_int(0, 127)),
    "random_-uint8": (_ip("random_", "uint8"), _uni_int(0, 255)),
    "random_-bool": (_ip("random_", "bool"), _uni_int(0, 1)),
    "random_-float16": (_ip("random_", "float16"), _uni_int(0, 2048)),
    "random_-float32": (_ip("random_", "float32"), _uni_int(0, 2**24)),
    "random_-int64": (_ip("random_", "int64"), _moments(2.0**62, 2.0**63 / math.sqrt(12), 0, 2.0**63)),
    "random_-from-none": (_ip("random_", "int16", -5, None), _uni_int(-5, 32767)),
    "randint": (lambda T: T.randint(-5, 5, (N,)), _uni_int(-5, 4)),
    "randint-high": (lambda T: T.randint(7, (N,), dtype=T.float64), _uni_int(0, 6)),
    "randint-bool": (lambda T: T.randint(0, 2, (N,), dtype=T.bool), _uni_int(0, 1)),
    "randint-int64-wide": (lambda T: T.randint(-2**62, 2**62, (N,)), _moments(-0.5, 2.0**63 / math.sqrt(12))),
    "randint_like": (lambda T: T.randint_like(T.zeros(N, dtype=T.int32), 2, 8), _uni_int(2, 7)),
    "bernoulli": (lambda T: T.bernoulli(T.full((N,), 0.3)), _moments(0.3, math.sqrt(0.21), 0, 1)),
    "bernoulli-p": (lambda T: T.bernoulli(T.zeros(N, dtype=T.int64), 0.7),
                    _moments(0.7, math.sqrt(0.21), 0, 1)),
    "bernoulli_": (_ip("bernoulli_", "float64", 0.25), _moments(0.25, math.sqrt(0.1875), 0, 1)),
    "bernoulli_-tensor": (lambda T: T.zeros(N, dtype=T.bool).bernoulli_(T.full((N,), 0.6)),
                          _moments(0.6, math.sqrt(0.24), 0, 1)),
    "poisson": (lambda T: T.poisson(T.full((N,), 4.0)), _moments(4, 2, 0)),
    "poisson-float64": (lambda T: T.poisson(T.full((N,), 0.5, dtype=T.float64)),
                        _moments(0.5, math.sqrt(0.5), 0)),
}


@pytest.mark.parametrize("case", list(STATS), ids=list(STATS))
def test_distribution(case):
    fn, check = STATS[case]
    torchshim.manual_seed(1234)
    torch.manual_seed(1234)
    ref, got = fn(torch), fn(torchshim)
    assert str(ref.dtype) == str(got.dtype) and tuple(ref.shape) == tuple(got.shape)
    check(_np(ref))
    check(_np(got))


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_frequencies(replacement):
    p = [0.1, 0.2, 0.3, 0.4]
    for T in LIBS:
        T.manual_seed(7)
        probs = T.tensor([p] * 50_000) * 3.0  # unnormalised rows
        s = to_numpy(T.multinomial(probs, 2 if not replacement else 3, replacement=replacement))
        first = np.bincount(s[:, 0], minlength=4) / s.shape[0]
        assert np.allclose(first, p, atol=6 * math.sqrt(0.25 / s.shape[0])), (T.__name__, first)
        if not replacement:
            assert (s[:, 0] != s[:, 1]).all()
        else:
            assert np.allclose(np.bincount(s.ravel(), minlength=4) / s.size, p, atol=0.01)


def test_multinomial_zero_probability_never_drawn():
    torchshim.manual_seed(0)
    s = to_numpy(torchshim.multinomial(torchshim.tensor([0.0, 1.0, 0.0, 2.0]), 1000, replacement=True))
    assert set(np.unique(s)) <= {1, 3}
    s = to_numpy(torchshim.multinomial(torchshim.tensor([[0.0, 1.0, 0.0, 2.0]] * 200), 2))
    assert (np.sort(s, 1) == [1, 3]).all()


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64", "uint8", "float16", "bfloat16"])
def test_randperm_is_permutation(dtype):
    for n in (0, 1, 7, 200):
        if dtype in ("uint8", "bfloat16") and n > 200:
            continue
        for T in LIBS:
            r = T.randperm(n, dtype=getattr(T, dtype))
            assert str(r.dtype) == f"torch.{dtype}" and tuple(r.shape) == (n,)
            assert sorted(_np(r).tolist()) == list(range(n))


def test_randperm_positions_uniform():
    torchshim.manual_seed(3)
    first = [int(torchshim.randperm(5)[0]) for _ in range(2000)]
    assert np.allclose(np.bincount(first, minlength=5) / 2000, 0.2, atol=0.05)


def test_randint_hits_every_value():
    for T in LIBS:
        assert sorted(np.unique(_np(T.randint(-3, 4, (5000,)))).tolist()) == list(range(-3, 4))


def test_inplace_samplers_write_through_views():
    base = torchshim.zeros(4, 6)
    v = base[1:3, ::2]
    assert v.uniform_(5, 6) is v
    a = to_numpy(base).copy()
    assert ((a[1:3, ::2] >= 5) & (a[1:3, ::2] < 6)).all()
    a[1:3, ::2] = 0
    assert (a == 0).all()
    base.t()[0].normal_(100, 1)  # column 0 through a transposed view
    assert (to_numpy(base)[:, 0] > 90).all()


# ---- seeding -----------------------------------------------------------------------------------------------
DRAWS = {
    "rand": lambda T, g: T.rand(5, generator=g),
    "randn": lambda T, g: T.randn(5, dtype=T.complex64, generator=g),
    "randint": lambda T, g: T.randint(0, 1000, (5,), generator=g),
    "randperm": lambda T, g: T.randperm(20, generator=g),
    "normal": lambda T, g: T.normal(T.zeros(5), T.ones(5), generator=g),
    "normal-ff": lambda T, g: T.normal(0.0, 1.0, (5,), generator=g),
    "bernoulli": lambda T, g: T.bernoulli(T.full((50,), 0.5), generator=g),
    "multinomial": lambda T, g: T.multinomial(T.ones(20), 5, generator=g),
    "poisson": lambda T, g: T.poisson(T.full((5,), 10.0), generator=g),
    "rand_like": lambda T, g: T.rand_like(T.zeros(5), generator=g),
    "randn_like": lambda T, g: T.randn_like(T.zeros(5), generator=g),
    "randint_like": lambda T, g: T.randint_like(T.zeros(5), 1000, generator=g),
    "uniform_": lambda T, g: T.zeros(5).uniform_(generator=g),
    "normal_": lambda T, g: T.zeros(5).normal_(generator=g),
    "random_": lambda T, g: T.zeros(5).random_(generator=g),
    "bernoulli_": lambda T, g: T.zeros(50).bernoulli_(0.5, generator=g),
    "exponential_": lambda T, g: T.zeros(5).exponential_(generator=g),
    "geometric_": lambda T, g: T.zeros(5).geometric_(0.1, generator=g),
    "log_normal_": lambda T, g: T.zeros(5).log_normal_(generator=g),
    "cauchy_": lambda T, g: T.zeros(5).cauchy_(generator=g),
}


def _same(a, b):
    return np.array_equal(to_numpy(a), to_numpy(b))


@pytest.mark.parametrize("op", list(DRAWS), ids=list(DRAWS))
def test_seeding(op):
    draw = DRAWS[op]
    T = torchshim
    T.manual_seed(42)
    a1, a2 = draw(T, None), draw(T, None)
    T.manual_seed(42)
    assert _same(draw(T, None), a1) and _same(draw(T, None), a2), "manual_seed must replay the default stream"
    assert not _same(a1, a2), "successive draws must differ"
    T.manual_seed(43)
    assert not _same(draw(T, None), a1), "different seeds must give different numbers"
    g = T.Generator().manual_seed(42)
    b1 = draw(T, g)
    assert _same(draw(T, T.Generator().manual_seed(42)), b1)
    assert not _same(draw(T, T.Generator().manual_seed(7)), b1)
    T.manual_seed(42)  # drawing from g must not advance the default generator
    draw(T, g)
    assert _same(draw(T, None), a1)


def test_rng_state_round_trip():
    for T in LIBS:
        T.manual_seed(5)
        T.rand(3)
        state = T.get_rng_state()
        assert str(state.dtype) == "torch.uint8"
        x = T.rand(4)
        T.rand(4)
        T.set_rng_state(state)
        assert _same(T.rand(4), x)
        g = T.Generator().manual_seed(9)
        gs = g.get_state()
        y = T.randn(3, generator=g)
        g.set_state(gs)
        assert _same(T.randn(3, generator=g), y)


@pytest.mark.parametrize("seed", [0, 1, 2**32 + 5, 2**63 + 1, 2**64 - 1, -1, -2**63])
def test_seed_values(seed):
    ref = torch.manual_seed(seed).initial_seed()
    g = torchshim.manual_seed(seed)
    assert g is torchshim.default_generator and torchshim.initial_seed() == ref
    x = torchshim.rand(3)
    torchshim.manual_seed(seed)
    assert _same(torchshim.rand(3), x)


def test_seed_and_initial_seed():
    s = torchshim.seed()
    assert torchshim.initial_seed() == s
    g = torchshim.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed()

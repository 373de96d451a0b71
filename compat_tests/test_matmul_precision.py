"""The float32 matmul precision (`torch.set_float32_matmul_precision`,
`torch.backends.cuda.matmul.allow_tf32`) reaching torchshim's product kernels.

On CPU XLA computes float32 products in full precision whatever the setting, so what is checked is what is
observable: the `precision` of every dot_general the public op traces to (each op run on jax tracers under
`jax.make_jaxpr`, through its cached jitted kernel), that float64 / half types stay at HIGHEST, that the
default is HIGHEST and switching back restores it, that an eager kernel compiled under one setting is not
reused under another, and that the flags read back as PyTorch's do.
"""
import jax
import jax.numpy as jnp
import pytest
import torch

import torchshim
from torchshim._tensor import fresh

P = jax.lax.Precision
EXPECTED = {"highest": P.HIGHEST, "high": P.HIGH, "medium": P.DEFAULT}


@pytest.fixture(autouse=True)
def _restore():
    saved = (torch.get_float32_matmul_precision(), torchshim.get_float32_matmul_precision(),
             jax.config.jax_default_matmul_precision)
    yield
    torch.set_float32_matmul_precision(saved[0])
    torchshim.set_float32_matmul_precision(saved[1])
    jax.config.update("jax_default_matmul_precision", saved[2])


def _walk(jaxpr, found):
    for e in jaxpr.eqns:
        if e.primitive.name in ("dot_general", "conv_general_dilated"):
            found.append((e.primitive.name, e.params["precision"]))
        for v in e.params.values():
            for sub in (v if isinstance(v, (tuple, list)) else (v,)):
                if hasattr(sub, "jaxpr") and hasattr(sub.jaxpr, "eqns"):
                    _walk(sub.jaxpr, found)
                elif hasattr(sub, "eqns"):
                    _walk(sub, found)
    return found


def precisions(fn, specs):
    """The precisions of the products `fn(T, *tensors)` traces to: tensors built from jax tracers of `specs`
    ((shape, torchshim dtype) pairs), both operands' precisions pooled."""
    dev = torchshim.ones(1)._storage.device

    def run(*arrs):
        ts = [fresh(a, dt, dev) for a, (_, dt) in zip(arrs, specs)]
        return fn(torchshim, *ts)._value
    jp = jax.make_jaxpr(run)(*[jnp.ones(s, dt.np) for s, dt in specs])
    found = _walk(jp.jaxpr, [])
    assert found, "no product traced"
    return {q for _, p in found for q in (p if isinstance(p, tuple) else (p,))}


F = torchshim.float32
OPS = {
    "matmul": (lambda T, a, b: T.matmul(a, b), [((2, 3, 4), F), ((4, 5), F)]),
    "mm": (lambda T, a, b: T.mm(a, b), [((2, 3), F), ((3, 4), F)]),
    "bmm": (lambda T, a, b: T.bmm(a, b), [((2, 2, 3), F), ((2, 3, 4), F)]),
    "mv": (lambda T, a, b: T.mv(a, b), [((2, 3), F), ((3,), F)]),
    "dot": (lambda T, a, b: T.dot(a, b), [((3,), F), ((3,), F)]),
    "tensordot": (lambda T, a, b: T.tensordot(a, b, 1), [((2, 3), F), ((3, 4), F)]),
    "einsum": (lambda T, a, b: T.einsum("ij,jk->ik", a, b), [((2, 3), F), ((3, 4), F)]),
    "addmm": (lambda T, c, a, b: T.addmm(c, a, b), [((4,), F), ((2, 3), F), ((3, 4), F)]),
    "baddbmm": (lambda T, c, a, b: T.baddbmm(c, a, b), [((2, 2, 4), F), ((2, 2, 3), F), ((2, 3, 4), F)]),
    "linear": (lambda T, x, w, b: T.nn.functional.linear(x, w, b), [((2, 3), F), ((4, 3), F), ((4,), F)]),
    "bilinear": (lambda T, x, y, w: T.nn.functional.bilinear(x, y, w), [((2, 3), F), ((2, 4), F),
                                                                       ((5, 3, 4), F)]),
    "cdist": (lambda T, a, b: T.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
              [((3, 2), F), ((4, 2), F)]),
    "matrix_power": (lambda T, a: T.matrix_power(a, 3), [((3, 3), F)]),
    "rnn_tanh_cell": (lambda T, x, h, wi, wh: T.rnn_tanh_cell(x, h, wi, wh),
                      [((2, 3), F), ((2, 4), F), ((4, 3), F), ((4, 4), F)]),
    "conv_tbc": (lambda T, x, w, b: T.conv_tbc(x, w, b), [((5, 2, 3), F), ((2, 3, 4), F), ((4,), F)]),
    "affine_grid": (lambda T, th: T.nn.functional.affine_grid(th, [1, 1, 2, 3], align_corners=False),
                    [((1, 2, 3), F)]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_products_follow_the_setting(name):
    fn, specs = OPS[name]
    assert precisions(fn, specs) == {P.HIGHEST}  # the default ('highest')
    for setting in ("high", "medium", "highest"):
        torchshim.set_float32_matmul_precision(setting)
        assert precisions(fn, specs) == {EXPECTED[setting]}, setting


@pytest.mark.parametrize("dtype", [torchshim.float64, torchshim.bfloat16, torchshim.float16])
def test_other_dtypes_stay_highest(dtype):
    torchshim.set_float32_matmul_precision("medium")
    for name in ("matmul", "linear", "einsum"):
        fn, specs = OPS[name]
        assert precisions(fn, [(s, dtype) for s, _ in specs]) == {P.HIGHEST}, name


def test_complex64_follows_the_setting():
    torchshim.set_float32_matmul_precision("high")
    c = torchshim.complex64
    assert precisions(OPS["mm"][0], [((2, 3), c), ((3, 4), c)]) == {P.HIGH}
    assert precisions(OPS["mm"][0], [((2, 3), torchshim.complex128), ((3, 4), torchshim.complex128)]) \
        == {P.HIGHEST}


def test_convolution_is_not_governed_by_it():
    # PyTorch: set_float32_matmul_precision sets the matmul fp32_precision only; convolutions follow
    # cudnn.conv / mkldnn.conv fp32_precision, which it leaves alone
    torch.set_float32_matmul_precision("medium")
    assert (torch.backends.cudnn.conv.fp32_precision, torch.backends.mkldnn.conv.fp32_precision) \
        == ("tf32", "none")
    torchshim.set_float32_matmul_precision("medium")
    fn = (lambda T, x, w: T.nn.functional.conv2d(x, w))
    assert precisions(fn, [((1, 2, 5, 5), F), ((3, 2, 3, 3), F)]) == {P.HIGHEST}


def test_allow_tf32_switches_and_restores():
    mm, specs = OPS["mm"]
    for T in (torch, torchshim):
        T.backends.cuda.matmul.allow_tf32 = True
    assert torchshim.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "high"
    assert precisions(mm, specs) == {P.HIGH}
    for T in (torch, torchshim):
        T.backends.cuda.matmul.allow_tf32 = False
    assert torchshim.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    assert precisions(mm, specs) == {P.HIGHEST}


def test_invalid_setting_changes_nothing():
    torchshim.set_float32_matmul_precision("high")
    with pytest.warns(UserWarning, match="is not one of"):
        torchshim.set_float32_matmul_precision("fast")
    assert torchshim.get_float32_matmul_precision() == "high"
    assert precisions(*OPS["mm"]) == {P.HIGH}


def test_eager_kernels_are_not_reused_across_settings():
    """An eager call compiles its kernel under the current setting; after a change the kernel is traced again
    (the setting is part of jax's jit cache key), and changing back reuses the first compilation."""
    traces = []

    def listen(event, duration, **kw):
        if event == "/jax/core/compile/jaxpr_trace_duration":
            traces.append(event)
    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        a, b = torchshim.randn(7, 13), torchshim.randn(13, 11)
        ref = torch.from_numpy(a.numpy()) @ torch.from_numpy(b.numpy())

        def count(setting):
            torchshim.set_float32_matmul_precision(setting)
            del traces[:]
            r = torchshim.mm(a, b)
            torch.testing.assert_close(torch.from_numpy(r.numpy()), ref)
            return len(traces)
        count("highest")
        assert count("highest") == 0
        assert count("high") > 0
        assert count("high") == 0
        assert count("highest") == 0
        assert count("medium") > 0
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)

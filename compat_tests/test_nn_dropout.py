"""Dropout's random behaviour, compared with PyTorch through statistics and structure (the random streams
differ): the kept fraction, the exact scale 1 / (1 - p), the per-channel pattern of dropout1d/2d/3d and the
feature alpha dropout, alpha dropout's dropped value and moments, gradients equal to mask * scale,
reproducibility under manual_seed, in-place variants and tracing. The deterministic parts (p = 0, p = 1, eval
mode, errors) are records (compat_tests/records/nn_dropout.py)."""
import jax
import numpy as np
import pytest
import torch

import torchshim

N = 200_000


def _both(fn, *shape, dtype="float32", seed=0):
    """fn(T, x) on ones of `shape` in both libraries -> (torch numpy, torchshim numpy)."""
    torch.manual_seed(seed)
    torchshim.manual_seed(seed)
    r = fn(torch, torch.ones(*shape, dtype=getattr(torch, dtype)))
    g = fn(torchshim, torchshim.ones(*shape, dtype=getattr(torchshim, dtype)))
    assert str(r.dtype) == str(g.dtype) and tuple(r.shape) == tuple(g.shape)
    return r.float().numpy(), g.float().numpy()


def _close_fraction(a, b, p, n):
    sigma = np.sqrt(p * (1 - p) / n)
    assert abs(a - p) < 5 * sigma and abs(b - p) < 5 * sigma, (a, b, p)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_scale_and_kept_fraction(p, dtype):
    r, g = _both(lambda T, x: T.nn.functional.dropout(x, p), N, dtype=dtype)
    assert set(np.unique(g)) == set(np.unique(r))  # {0, 1 / (1 - p)} rounded as PyTorch rounds it
    _close_fraction((r == 0).mean(), (g == 0).mean(), p, N)


def test_dropout_gradient_is_mask_times_scale():
    torchshim.manual_seed(3)
    x = torchshim.randn(1000, dtype=torchshim.float64, requires_grad=True)
    y = torchshim.nn.functional.dropout(x, 0.3)
    assert y.grad_fn.name().endswith("MulBackward0")
    (g,) = torchshim.autograd.grad(y.sum(), x, retain_graph=True)
    mask = (y.detach() != 0).numpy()
    np.testing.assert_array_equal(g.numpy(), mask / 0.7)
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy() * g.numpy())
    (gg,) = torchshim.autograd.grad((y * y).sum(), x, create_graph=True)  # second order: 2 * (mask * scale)^2
    (h,) = torchshim.autograd.grad(gg.sum(), x)
    np.testing.assert_allclose(h.numpy(), 2 * (mask / 0.7) ** 2)


@pytest.mark.parametrize("name,shape,batched", [("dropout1d", (40, 500, 3), True),
                                                ("dropout1d", (500, 3), False),
                                                ("dropout2d", (40, 500, 2, 2), True),
                                                ("dropout3d", (40, 500, 2, 1, 2), True),
                                                ("dropout3d", (500, 2, 1, 2), False)])
def test_channel_dropout_zeroes_whole_channels(name, shape, batched):
    p = 0.4
    r, g = _both(lambda T, x: getattr(T.nn.functional, name)(x, p), *shape)
    channels = shape[:2] if batched else shape[:1]
    for out in (r, g):
        flat = out.reshape(*channels, -1)
        assert (flat == flat[..., :1]).all()  # one draw per channel
        assert set(np.unique(flat)) == {0.0, np.float32(1 / 0.6)}
    _close_fraction((r == 0).mean(), (g == 0).mean(), p, int(np.prod(channels)))


def test_alpha_dropout_dropped_value_and_moments():
    p = 0.25
    torch.manual_seed(0)
    torchshim.manual_seed(0)
    xr = torch.randn(N, dtype=torch.float64)
    xg = torchshim.tensor(xr.numpy())
    r = torch.nn.functional.alpha_dropout(xr, p, True).numpy()
    g = torchshim.nn.functional.alpha_dropout(xg, p, True).numpy()
    # kept values are a * x + b_keep, dropped ones the constant b_drop (PyTorch's affine correction)
    a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * p + 1) * (1 - p))
    b_keep = 1.7580993408473766 * a * p
    b_drop = -1.7580993408473766 * a + b_keep
    for out, x in ((r, xr.numpy()), (g, xg.numpy())):
        is_kept = np.isclose(out, a * x + b_keep, rtol=0, atol=1e-12)
        is_drop = np.isclose(out, b_drop, rtol=0, atol=1e-12)
        assert (is_kept | is_drop).all()
        assert abs(is_drop.mean() - p) < 5 * np.sqrt(p * (1 - p) / N)
        assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02  # self-normalizing: mean 0, variance 1


def test_feature_alpha_dropout_is_per_channel():
    p = 0.5
    torchshim.manual_seed(0)
    x = torchshim.randn(50, 40, 6, dtype=torchshim.float64)
    y = torchshim.nn.functional.feature_alpha_dropout(x, p, True).numpy()
    a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * p + 1) * (1 - p))
    b_keep = 1.7580993408473766 * a * p
    b_drop = -1.7580993408473766 * a + b_keep
    kept = np.isclose(y, a * x.numpy() + b_keep, atol=1e-12).all(-1)
    dropped = np.isclose(y, b_drop, atol=1e-12).all(-1)
    assert (kept ^ dropped).all()
    assert 0.4 < dropped.mean() < 0.6


def test_dropout_reproducible_under_manual_seed():
    x = torchshim.ones(1000)
    torchshim.manual_seed(7)
    a = torchshim.nn.functional.dropout(x, 0.5).numpy()
    torchshim.manual_seed(7)
    b = torchshim.nn.functional.dropout(x, 0.5).numpy()
    c = torchshim.nn.functional.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()
    g = torchshim.Generator().manual_seed(7)
    assert (torchshim.rand(3, generator=g) >= 0).all()


def test_inplace_dropout_writes_its_input():
    torchshim.manual_seed(0)
    x = torchshim.ones(1000)
    y = torchshim.nn.functional.dropout(x, 0.5, inplace=True)
    assert y is x and set(np.unique(x.numpy())) == {0.0, 2.0}
    z = torchshim.ones(2, 300, 4)
    assert torchshim.nn.functional.dropout2d(z, 0.5, inplace=True) is z
    assert (z.numpy() == z.numpy()[..., :1]).all()
    w = torchshim.ones(300, 4)  # unbatched dropout1d: unsqueeze_/squeeze_ around the in-place draw
    assert torchshim.nn.functional.dropout1d(w, 0.5, inplace=True) is w and w.shape == (300, 4)
    leaf = torchshim.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torchshim.nn.functional.dropout(leaf, 0.5, inplace=True)


def test_inplace_unbatched_dropout1d_history():
    """PyTorch's unbatched in-place dropout1d ends in SqueezeBackward4 (unsqueeze_, dropout, squeeze_(0))."""
    for T in (torch, torchshim):
        x = T.ones(3, 4, requires_grad=True) * 1
        name = type(T.nn.functional.dropout1d(x, 0.5, training=False, inplace=True).grad_fn).__name__ \
            if T is torch else T.nn.functional.dropout1d(x, 0.5, training=False, inplace=True).grad_fn.name()
        assert name.endswith("SqueezeBackward4"), (T.__name__, name)


def test_dropout_under_jax_jit():
    def f(a):
        x = torchshim.Tensor._make(torchshim._storage.Storage(a, torchshim.device("cpu")), a.shape,
                                   (a.shape[1], 1), 0, torchshim.float32)
        return torchshim.nn.functional.dropout(x, 0.25)._value
    out = np.asarray(jax.jit(f)(jax.numpy.ones((100, 100), np.float32)))
    assert set(np.unique(out)) == {0.0, np.float32(1 / 0.75)}
    assert 0.2 < (out == 0).mean() < 0.3

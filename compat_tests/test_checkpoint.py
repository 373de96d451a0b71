"""torch.utils.checkpoint: values and gradients equal to real torch (deterministic functions, same weights),
the recomputation really happening (call counts) and activations really dropped (weak references), dropout
masks reproduced at recomputation (checkpointed vs plain within torchshim: the RNG streams differ from
torch's), and PyTorch's warnings and errors."""
import gc
import itertools
import warnings
import weakref

import numpy as np
import pytest
import torch

import torchshim
from harness import to_numpy

LIBS = (torch, torchshim)
MODES = (True, False)


def _data(T, seed=0):
    rng = np.random.default_rng(seed)
    x = T.tensor(rng.standard_normal((4, 5)).astype(np.float32), requires_grad=True)
    w = T.tensor(rng.standard_normal((5, 5)).astype(np.float32), requires_grad=True)
    return x, w


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(to_numpy(b), to_numpy(a), rtol=tol, atol=tol)


@pytest.mark.parametrize("reentrant", MODES)
def test_values_and_gradients_match_torch(reentrant):
    res = {}
    for T in LIBS:
        x, w = _data(T)

        def f(t, scale, w=w):
            return (t @ w).tanh().exp() * scale
        y = T.utils.checkpoint.checkpoint(f, x, 2.0, use_reentrant=reentrant)
        (y * y).sum().backward()
        res[T] = (y, x.grad, w.grad, y.requires_grad)
    for a, b in zip(res[torch][:3], res[torchshim][:3]):
        _close(a, b)
    assert res[torch][3] == res[torchshim][3]


@pytest.mark.parametrize("reentrant", MODES)
def test_function_runs_again_in_backward(reentrant):
    calls = []
    x, w = _data(torchshim)

    def f(t):
        calls.append(1)
        return (t @ w).sin()
    y = torchshim.utils.checkpoint.checkpoint(f, x, use_reentrant=reentrant)
    assert len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2


@pytest.mark.parametrize("checkpointed", [True, False])
@pytest.mark.parametrize("reentrant", MODES)
def test_activations_not_kept(reentrant, checkpointed):
    refs = []
    x, w = _data(torchshim)

    def f(t):
        h = (t @ w).exp()  # exp saves its output; sin saves its input: both h
        refs.append(weakref.ref(h._value))
        return h.sin()
    if checkpointed:
        y = torchshim.utils.checkpoint.checkpoint(f, x, use_reentrant=reentrant)
    else:
        y = f(x)
    gc.collect()
    assert (refs[0]() is None) == checkpointed
    y.sum().backward()
    assert x.grad is not None


@pytest.mark.parametrize("reentrant", MODES)
def test_dropout_mask_reproduced(reentrant):
    T = torchshim
    x, w = _data(T)

    def f(t):
        return T.nn.functional.dropout((t @ w).sin(), 0.5, training=True) * 3

    T.manual_seed(123)
    y = T.utils.checkpoint.checkpoint(f, x, use_reentrant=reentrant)
    y.sum().backward()
    g_ckpt, gw_ckpt = x.grad.clone(), w.grad.clone()
    after = T.rand(3)  # the generator advanced exactly as without checkpointing
    x.grad = w.grad = None
    T.manual_seed(123)
    y2 = f(x)
    y2.sum().backward()
    _close(y2, y, 0)
    _close(x.grad, g_ckpt, 0)
    _close(w.grad, gw_ckpt, 0)
    _close(T.rand(3), after, 0)
    assert (to_numpy(y) == 0).any()  # dropout did drop something


def test_without_preserve_rng_state_mask_differs():
    T = torchshim
    x = T.ones(200, requires_grad=True)

    def f(t):
        return T.nn.functional.dropout(t, 0.5, training=True)
    T.manual_seed(0)
    y = T.utils.checkpoint.checkpoint(f, x, use_reentrant=False, preserve_rng_state=False)
    y.sum().backward()
    assert not np.array_equal(to_numpy(x.grad), to_numpy(y))  # gradient follows the recomputed (new) mask


def test_nonreentrant_grad_closure_and_double_backward():
    res = {}
    for T in LIBS:
        x, w = _data(T)

        def f(t, w=w):
            return (t @ w).sin()
        y = T.utils.checkpoint.checkpoint(f, x, use_reentrant=False)
        gx, gw = T.autograd.grad(y.pow(2).sum(), (x, w), create_graph=True)
        ggx, = T.autograd.grad(gx.sum(), x)
        res[T] = (gx, gw, ggx)
    for a, b in zip(res[torch], res[torchshim]):
        _close(a, b, 1e-4)


@pytest.mark.parametrize("reentrant", MODES)
def test_closure_parameter_when_input_needs_no_grad(reentrant):
    res = {}
    for T in LIBS:
        x, w = _data(T)
        x = x.detach()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = T.utils.checkpoint.checkpoint(lambda t, w=w: (t @ w).cos(), x, use_reentrant=reentrant)
        if y.requires_grad:
            y.sum().backward()
        res[T] = (y.requires_grad, None if w.grad is None else to_numpy(w.grad),
                  [str(c.message) for c in caught])
    assert res[torch][0] == res[torchshim][0]
    assert res[torch][2] == res[torchshim][2]
    if res[torch][1] is None:
        assert res[torchshim][1] is None
    else:
        np.testing.assert_allclose(res[torchshim][1], res[torch][1], rtol=1e-5, atol=1e-5)


def test_retain_graph_recomputes_each_backward():
    calls = []
    x, w = _data(torchshim)

    def f(t):
        calls.append(1)
        return (t @ w).exp()
    y = torchshim.utils.checkpoint.checkpoint(f, x, use_reentrant=False).sum()
    y.backward(retain_graph=True)
    g = x.grad.clone()
    y.backward()
    assert len(calls) == 3
    _close(x.grad, g * 2)


def test_nested_checkpoint():
    res = {}
    for T in LIBS:
        x, w = _data(T)
        ck = T.utils.checkpoint.checkpoint

        def inner(t, w=w):
            return (t @ w).sin()

        def outer(t, ck=ck, inner=inner):
            return ck(inner, t * 2, use_reentrant=False).exp()
        y = ck(outer, x, use_reentrant=False)
        y.sum().backward()
        res[T] = (y, x.grad, w.grad)
    for a, b in zip(res[torch], res[torchshim]):
        _close(a, b, 1e-4)


@pytest.mark.parametrize("reentrant", MODES)
@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_torch(reentrant, segments):
    res = {}
    for T in LIBS:
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(5, 6), T.nn.Tanh(), T.nn.Linear(6, 6), T.nn.ReLU(),
                                T.nn.Linear(6, 3))
        if T is torchshim:
            model.load_state_dict({k: torchshim.tensor(v.detach().numpy())
                                   for k, v in res[torch][3].items()})
        x, _ = _data(T)
        y = T.utils.checkpoint.checkpoint_sequential(model, segments, x, use_reentrant=reentrant)
        y.sum().backward()
        res[T] = (y, x.grad, model[0].weight.grad, model.state_dict())
    for a, b in zip(res[torch][:3], res[torchshim][:3]):
        _close(a, b)


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except Exception as e:  # noqa: BLE001 - compared with torch's
            err = (type(e).__name__, str(e))
    return err, [(c.category.__name__, str(c.message)) for c in caught]


ERROR_CASES = {
    "no_use_reentrant_warns": lambda T, x: T.utils.checkpoint.checkpoint(lambda t: t.sin(), x),
    "sequential_no_use_reentrant_warns": lambda T, x: T.utils.checkpoint.checkpoint_sequential(
        [T.nn.Tanh(), T.nn.Tanh()], 2, x),
    "reentrant_no_input_grad": lambda T, x: T.utils.checkpoint.checkpoint(
        lambda t: t.sin(), x.detach(), use_reentrant=True),
    "reentrant_autograd_grad": lambda T, x: T.autograd.grad(
        T.utils.checkpoint.checkpoint(lambda t: t.sin(), x, use_reentrant=True).sum(), x),
    "reentrant_backward_inputs": lambda T, x: T.utils.checkpoint.checkpoint(
        lambda t: t.sin(), x, use_reentrant=True).sum().backward(inputs=[x]),
    "reentrant_extra_kwargs": lambda T, x: T.utils.checkpoint.checkpoint(
        lambda t: t.sin(), x, use_reentrant=True, foo=1, bar=2),
    "reentrant_context_fn": lambda T, x: T.utils.checkpoint.checkpoint(
        lambda t: t.sin(), x, use_reentrant=True, context_fn=T.utils.checkpoint.noop_context_fn, debug=True),
    "bad_determinism_check": lambda T, x: T.utils.checkpoint.checkpoint(
        lambda t: t.sin(), x, use_reentrant=False, determinism_check="foo"),
    "nonreentrant_kwargs_to_function": lambda T, x: T.utils.checkpoint.checkpoint(
        lambda t, k: t.sin() * k, x, use_reentrant=False, k=3).sum().backward(),
    "sequential_too_many_segments": lambda T, x: T.utils.checkpoint.checkpoint_sequential(
        [T.nn.Tanh()], 2, x, use_reentrant=False),
    "sequential_bad_kwarg": lambda T, x: T.utils.checkpoint.checkpoint_sequential(
        [T.nn.Tanh()], 1, x, use_reentrant=False, foo=1),
    "detach_variable_not_tuple": lambda T, x: T.utils.checkpoint.detach_variable([x]),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_and_warnings_match_torch(name):
    got = {}
    for T in LIBS:
        x, _ = _data(T)
        got[T] = _outcome(lambda T=T, x=x: ERROR_CASES[name](T, x))
    assert got[torchshim] == got[torch]


def test_nondeterministic_recompute_raises_checkpoint_error():
    for T in LIBS:
        x, _ = _data(T)
        counter = itertools.count()

        def g(t, counter=counter):
            n = 4 - next(counter)
            return (t[:n] * t[:n]).sum()
        y = T.utils.checkpoint.checkpoint(g, x, use_reentrant=False)
        with pytest.raises(T.utils.checkpoint.CheckpointError,
                           match="Recomputed values for the following tensors have different metadata"):
            y.backward()


def test_debug_mode_lists_operations():
    T = torchshim
    x, _ = _data(T)
    counter = itertools.count()

    def g(t):
        n = 4 - next(counter)
        return (t[:n] * t[:n]).sum()
    with T.utils.checkpoint.set_checkpoint_debug_enabled(True):
        y = T.utils.checkpoint.checkpoint(g, x, use_reentrant=False)
    with pytest.raises(T.utils.checkpoint.CheckpointError, match="(?s)original forward:.*MulBackward0"):
        y.backward()


def test_context_fn_entered_in_forward_and_recompute():
    log = []

    class Ctx:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            log.append(self.name)

        def __exit__(self, *exc):
            return False
    for T in LIBS:
        log.clear()
        x, _ = _data(T)
        y = T.utils.checkpoint.checkpoint(lambda t: t.exp(), x, use_reentrant=False,
                                          context_fn=lambda: (Ctx("fwd"), Ctx("re")))
        y.sum().backward()
        assert log == ["fwd", "re"]


def test_public_helpers_match_torch():
    for T in LIBS:
        C = T.utils.checkpoint
        ref = torch.utils.checkpoint.CheckpointPolicy
        assert [(p.name, p.value) for p in C.CheckpointPolicy] == [(p.name, p.value) for p in ref]
        assert issubclass(C.CheckpointError, RuntimeError)
        assert C.get_device_states(T.ones(2)) == ([], [])
        x = T.ones(2, requires_grad=True)
        d, n = C.detach_variable((x, 3))
        assert d.requires_grad and d.grad_fn is None and n == 3
    with pytest.raises(NotImplementedError, match="selective checkpointing"):
        torchshim.utils.checkpoint.create_selective_checkpoint_contexts([])

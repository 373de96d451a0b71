"""torch.optim conformance: 100-step trajectories of every optimizer and option against real PyTorch (same
model, data, initial weights), LBFGS with and without line search, complex parameters, parameter groups,
hyperparameters changed between steps, constructor and step errors, repr.

Tolerances: float32 parameters, losses and state within 1e-5 after 100 steps (PyTorch's CPU sqrt is not
correctly rounded and its matmuls accumulate in another order, so ulp-level noise is expected); float64 within
1e-10. The configurations are well-conditioned: perturbing the initial weights by 1e-7 (relative) moves
PyTorch's own result by < 2e-6.
"""
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import compare_errors
from optim_harness import (TOL, build_model, compare_plain, compare_trajectories, params_np, state_np, train,
                           train_closure)

LIBS = (torch, torchshim)

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, weight_decay=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, fused=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, foreach=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, amsgrad=True, weight_decay=0.05)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.01, foreach=True)),
    ("Adam", dict(lr=0.01, fused=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True, betas=(0.8, 0.99))),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, maximize=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, maximize=True)),
    ("RMSprop", dict(lr=0.001)),
    ("RMSprop", dict(lr=0.001, centered=True)),
    ("RMSprop", dict(lr=0.001, momentum=0.5)),
    ("RMSprop", dict(lr=0.001, centered=True, momentum=0.5, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.001, alpha=0.9, maximize=True)),
    ("Adagrad", dict(lr=0.05)),
    ("Adagrad", dict(lr=0.05, lr_decay=0.01)),
    ("Adagrad", dict(lr=0.05, initial_accumulator_value=0.1, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.05, maximize=True)),
    ("Adagrad", dict(lr=0.05, fused=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.5)),
    ("Adadelta", dict(weight_decay=0.1)),
    ("Adadelta", dict(maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=10)),
    ("ASGD", dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=20, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.5), step_sizes=(1e-4, 1))),
    ("Rprop", dict(lr=0.01, maximize=True)),
]

# float64: the richest configuration of each optimizer
CASES64 = [CASES[i] for i in (6, 13, 18, 21, 26, 29, 33, 37, 42, 46, 49)]


def _ids(cases):
    return [f"{name}-" + "-".join(f"{k}={v}" for k, v in kw.items()) for name, kw in cases]


def _trajectories(name, kw, dtype, steps=100):
    make = lambda T, params: getattr(T.optim, name)(params, **kw)
    maximize = kw.get("maximize", False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [train(T, make, steps=steps, dtype=dtype, maximize=maximize) for T in LIBS]


@pytest.mark.parametrize("name,kw", CASES, ids=_ids(CASES))
def test_trajectory_float32(name, kw):
    ref, got = _trajectories(name, kw, "float32")
    compare_trajectories(ref, got, **TOL["float32"])


@pytest.mark.parametrize("name,kw", CASES64, ids=_ids(CASES64))
def test_trajectory_float64(name, kw):
    ref, got = _trajectories(name, kw, "float64")
    compare_trajectories(ref, got, **TOL["float64"])


# (kwargs, dtype, steps): LBFGS reaches ill-conditioned regions fast, so the float32 cases are short
LBFGS_CASES = [
    (dict(), "float64", 1), (dict(line_search_fn="strong_wolfe"), "float64", 2),
    (dict(history_size=3, max_iter=10, line_search_fn="strong_wolfe"), "float64", 4),
    (dict(lr=0.5, max_iter=7, history_size=2), "float64", 3),
    (dict(max_iter=3, line_search_fn="strong_wolfe"), "float32", 2),
    (dict(max_iter=4, history_size=2, line_search_fn="strong_wolfe", tolerance_change=1e-5), "float32", 1),
    (dict(lr=0.1, max_iter=5), "float32", 4),
]


@pytest.mark.parametrize("kw,dtype,steps", LBFGS_CASES,
                         ids=[f"{d}-{n}-" + "-".join(f"{k}={v}" for k, v in kw.items())
                              for kw, d, n in LBFGS_CASES])
def test_lbfgs_trajectory(kw, dtype, steps):
    make = lambda T, params: T.optim.LBFGS(params, **kw)
    ref, got = (train_closure(T, make, steps=steps, dtype=dtype) for T in LIBS)
    compare_trajectories(ref, got, **TOL[dtype])


def test_lbfgs_state_layout():
    """LBFGS keeps its global state on the first parameter: ints, floats, tensors and history lists."""
    make = lambda T, params: T.optim.LBFGS(params, history_size=4, max_iter=6)
    ref, got = (train_closure(T, make, steps=2, dtype="float64") for T in LIBS)
    assert list(ref[1].state_dict()["state"]) == list(got[1].state_dict()["state"]) == [0]
    compare_plain(state_np(ref[1]), state_np(got[1]), **TOL["float64"])


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
                                     ("Adam", dict(lr=0.05, amsgrad=True)), ("AdamW", dict(lr=0.05)),
                                     ("Adamax", dict(lr=0.05)), ("NAdam", dict(lr=0.05)),
                                     ("RAdam", dict(lr=0.05)),
                                     ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
                                     ("Adagrad", dict(lr=0.1)), ("Adadelta", dict()), ("ASGD", dict(t0=3)),
                                     ("Rprop", dict(lr=0.01))], ids=lambda v: v if isinstance(v, str) else "")
def test_complex_parameters(name, kw):
    """Complex parameters (updated through real views in PyTorch) on a quadratic with a fixed target."""
    rng = np.random.default_rng(3)
    z0 = rng.normal(size=(4,)) + 1j * rng.normal(size=(4,))
    target = rng.normal(size=(4,)) + 1j * rng.normal(size=(4,))
    out = []
    for T in LIBS:
        p = T.nn.Parameter(T.tensor(z0, dtype=T.complex128))
        tgt = T.tensor(target, dtype=T.complex128)
        opt = getattr(T.optim, name)([p], **kw)
        for _ in range(30):
            opt.zero_grad()
            with T.no_grad():
                p.grad = (p - tgt) * (1.5 - 0.5j)
            opt.step()
        out.append((p.detach().numpy(), state_np(opt)))
    np.testing.assert_allclose(out[1][0], out[0][0], **TOL["float64"])
    compare_plain(out[0][1], out[1][1], **TOL["float64"])


HALF_CASES = [("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)), ("Adam", dict(lr=0.01)),
              ("AdamW", dict(lr=0.01, amsgrad=True)), ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
              ("Adagrad", dict(lr=0.1)), ("NAdam", dict(lr=0.01)), ("RAdam", dict(lr=0.01)),
              ("Adamax", dict(lr=0.01)), ("Adadelta", {}), ("ASGD", dict(lr=0.05, t0=5)),
              ("Rprop", dict(lr=0.01, etas=(0.3, 1.3)))]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name,kw", HALF_CASES, ids=[n for n, _ in HALF_CASES])
def test_half_precision_parameters(name, kw, dtype):
    """float16/bfloat16 parameters: PyTorch computes each op in float32 and rounds once; 20 steps on a
    quadratic agree to a quarter of an ulp (in practice bit for bit)."""
    rng = np.random.default_rng(5)
    p0, target = rng.normal(size=(64,)).astype(np.float32), rng.normal(size=(64,)).astype(np.float32)
    out = []
    for T in LIBS:
        p = T.nn.Parameter(T.tensor(p0).to(getattr(T, dtype)))
        tgt = T.tensor(target).to(getattr(T, dtype))
        opt = getattr(T.optim, name)([p], **kw)
        for _ in range(20):
            with T.no_grad():
                p.grad = (p - tgt) * 1.5
            opt.step()
        out.append(p.detach().float().numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=2.0 ** -9 if dtype == "bfloat16" else 2.0 ** -12, atol=0)


def test_param_groups_and_frozen_parameters():
    """Two groups with their own hyperparameters; a parameter without a gradient is skipped (no state)."""
    def make(T, params):
        params = list(params)
        params[3].requires_grad_(False)
        return T.optim.Adam([{"params": params[:2], "lr": 0.02, "weight_decay": 0.1},
                             {"params": params[2:], "amsgrad": True}], lr=0.01, betas=(0.8, 0.95))
    ref, got = (train(T, make, steps=50) for T in LIBS)
    compare_trajectories(ref, got, **TOL["float32"])
    assert list(got[1].state_dict()["state"]) == [0, 1, 2]


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01)),
                                     ("RMSprop", dict(lr=0.001, momentum=0.3))],
                         ids=["SGD", "Adam", "RMSprop"])
def test_hyperparameters_changed_between_steps(name, kw):
    """Changing lr / momentum / betas in the groups between steps is honoured, and the jitted update is not
    recompiled for new values (they are traced scalars)."""
    from torchshim.optim import _functional as F
    results = []
    for T in LIBS:
        model = build_model(T)
        opt = getattr(T.optim, name)(model.parameters(), **kw)
        train(T, None, steps=3, model=model, opt=opt)
        kernel = getattr(F, name.lower())
        size = kernel._cache_size() if T is torchshim else None
        for i in range(10):
            g = opt.param_groups[0]
            g["lr"] = kw["lr"] * (0.9 ** i)
            if "momentum" in g and g["momentum"]:
                g["momentum"] = 0.9 - 0.02 * i
            if "betas" in g:
                g["betas"] = (0.9 - 0.01 * i, 0.999)
            train(T, None, steps=1, model=model, opt=opt)
        if T is torchshim:
            assert kernel._cache_size() == size, "hyperparameter change recompiled the update"
        results.append((model, opt, []))
    compare_trajectories(*results, **TOL["float32"])


def test_functional_update_is_pure_and_traceable():
    """`_functional.adam` is a pure function of pytrees: inside an outer `jax.jit` with the learning rate
    traced it gives what `optimizer.step()` gives, and its inputs are left untouched (the compile issue jits a
    whole training step around it)."""
    import jax

    from torchshim.optim import _functional as F
    model, opt, _ = train(torchshim, lambda T, p: T.optim.Adam(p, lr=0.01, amsgrad=True), steps=3)
    params = list(model.parameters())
    x = torchshim.ones(4, 3)
    opt.zero_grad()
    model(x).pow(2).sum().backward()
    keys = ("step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    pv, gv = [p._value for p in params], [p.grad._value for p in params]
    sv = {k: [opt.state[p][k]._value for p in params] for k in keys}
    before = jax.tree_util.tree_map(np.asarray, (pv, gv, sv))
    hyper = dict(beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, has_wd=False,
                 decoupled_weight_decay=False, amsgrad=True, maximize=False)
    step = jax.jit(lambda pv, gv, sv, lr: F.adam(pv, gv, sv, lr=lr, **hyper))
    new_p, new_s = step(pv, gv, sv, np.float64(0.01))
    after = jax.tree_util.tree_map(np.asarray, (pv, gv, sv))
    jax.tree_util.tree_map(np.testing.assert_array_equal, after, before)
    opt.step()
    for p, v in zip(params, new_p):
        np.testing.assert_allclose(p.detach().numpy(), np.asarray(v), rtol=1e-7, atol=1e-9)
    for k in keys:
        for p, v in zip(params, new_s[k]):
            np.testing.assert_allclose(opt.state[p][k].numpy(), np.asarray(v), rtol=1e-7, atol=1e-9)


def test_tensor_lr():
    make = lambda T, params: T.optim.Adam(params, lr=T.tensor(0.01))
    ref, got = (train(T, make, steps=30) for T in LIBS)
    compare_trajectories(ref, got, **TOL["float32"])


def test_default_dtype_float64_step_dtype():
    """With float64 as the default dtype, 'step' state is float64, as in PyTorch."""
    out = []
    for T in LIBS:
        prev = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            opt = train(T, lambda T, p: T.optim.NAdam(p, lr=0.01), steps=3, dtype="float64")[1]
            out.append(state_np(opt))
        finally:
            T.set_default_dtype(prev)
    compare_plain(out[0], out[1], **TOL["float64"])
    assert out[1]["state"][0]["step"][1] == "float64"


def test_state_tensors_keep_identity():
    """State tensors are updated in place: a reference taken before a step sees the new values."""
    model, opt, _ = train(torchshim, lambda T, p: T.optim.Adam(p, lr=0.01), steps=2)
    p0 = next(iter(model.parameters()))
    held = opt.state[p0]["exp_avg"]
    before = held.clone()
    train(torchshim, None, steps=1, model=model, opt=opt)
    assert opt.state[p0]["exp_avg"] is held and not torchshim.equal(held, before)


def test_repr():
    for name, kw in [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(betas=(0.8, 0.9))), ("LBFGS", {}),
                     ("Adagrad", {}), ("Rprop", {})]:
        reprs = [repr(getattr(T.optim, name)(build_model(T).parameters(), **kw)) for T in LIBS]
        assert reprs[0] == reprs[1]


def _outcomes(fn):
    """[torch's exception or None, torchshim's exception or None] for `fn(T)`, warnings silenced."""
    outcomes = []
    for T in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn(T)
            except Exception as e:  # noqa: BLE001
                outcomes.append(e)
            else:
                outcomes.append(None)
    return outcomes


def _both_raise(fn):
    outcomes = _outcomes(fn)
    assert outcomes[0] is not None, "torch did not raise"
    compare_errors(outcomes[0], outcomes[1])
    assert str(outcomes[1]) == str(outcomes[0])


def _p(T):
    return [T.nn.Parameter(T.ones(3))]


CTOR_ERRORS = [
    ("SGD", dict(lr=-1)), ("SGD", dict(momentum=-0.5)), ("SGD", dict(weight_decay=-1)),
    ("SGD", dict(nesterov=True)), ("SGD", dict(momentum=0.9, dampening=0.1, nesterov=True)),
    ("SGD", dict(fused=True, differentiable=True)), ("SGD", dict(fused=True, foreach=True)),
    ("Adam", dict(lr=-1)), ("Adam", dict(eps=-1)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-1)), ("Adam", dict(betas=(0.9, 1))),
    ("Adam", dict(fused=True, foreach=True)), ("Adam", dict(fused=True, differentiable=True)),
    ("AdamW", dict(lr=-0.5)), ("Adamax", dict(lr=-1)), ("Adamax", dict(betas=(0.9, 1.5))),
    ("NAdam", dict(momentum_decay=-1)), ("NAdam", dict(eps=-1)), ("RAdam", dict(weight_decay=-1)),
    ("RMSprop", dict(alpha=-1)), ("RMSprop", dict(momentum=-1)), ("RMSprop", dict(eps=-1)),
    ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)),
    ("Adagrad", dict(eps=-1)),
    ("Adagrad", dict(fused=True, foreach=True)),
    ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(lr=-1)), ("ASGD", dict(weight_decay=-1)),
    ("Rprop", dict(etas=(1.5, 2.0))), ("Rprop", dict(etas=(0.5, 0.9))), ("LBFGS", dict(lr=-1)),
    ("SparseAdam", dict(lr=0.0)), ("SparseAdam", dict(eps=0.0)), ("SparseAdam", dict(betas=(0.9, 1.0))),
]


@pytest.mark.parametrize("name,kw", CTOR_ERRORS, ids=_ids(CTOR_ERRORS))
def test_constructor_errors(name, kw):
    _both_raise(lambda T: getattr(T.optim, name)(_p(T), **kw))


@pytest.mark.parametrize("case", ["tensor_lr_2_elements", "betas_mixed", "betas_tensor_foreach",
                                  "lbfgs_two_groups", "sparse_adam_complex"])
def test_constructor_errors_tensors(case):
    fns = {
        "tensor_lr_2_elements": lambda T: T.optim.SGD(_p(T), lr=T.tensor([0.1, 0.2])),
        "betas_mixed": lambda T: T.optim.Adam(_p(T), betas=(0.9, T.tensor(0.99))),
        "betas_tensor_foreach": lambda T: T.optim.Adam(_p(T), betas=(T.tensor(0.9), T.tensor(0.99)),
                                                       foreach=True),
        "lbfgs_two_groups": lambda T: T.optim.LBFGS([{"params": _p(T)}, {"params": _p(T)}]),
        "sparse_adam_complex": lambda T: T.optim.SparseAdam([T.nn.Parameter(T.ones(2, dtype=T.complex64))]),
    }
    _both_raise(fns[case])


class _Tv:
    """A tensor-valued constructor argument (lr, betas[i], weight_decay), built with each library."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"tensor({self.value})"


def _built(T, v):
    if isinstance(v, _Tv):
        return T.tensor(v.value)
    return tuple(_built(T, x) for x in v) if isinstance(v, tuple) else v


def _same_outcome(fn):
    """torch and torchshim both accept the call, or both raise the same exception type and message."""
    outcomes = _outcomes(fn)
    if outcomes[0] is None:
        assert outcomes[1] is None, f"torch accepted the call, torchshim raised {outcomes[1]!r}"
    else:
        assert outcomes[1] is not None, f"torch raised {outcomes[0]!r}, torchshim did not"
        compare_errors(outcomes[0], outcomes[1])
        assert str(outcomes[1]) == str(outcomes[0])


NAN = float("nan")
# several bad arguments at once (the first one PyTorch checks is reported), NaN (rejected by `not 0.0 <= x`,
# accepted by SGD's `x < 0.0`), tensor hyperparameters, and arguments PyTorch does not check
CTOR_ORDER = [
    ("SGD", dict(lr=-1, momentum=-1, weight_decay=-1)), ("SGD", dict(momentum=-1, weight_decay=-1)),
    ("SGD", dict(lr=NAN)), ("SGD", dict(momentum=NAN)), ("SGD", dict(weight_decay=NAN)),
    ("SGD", dict(lr=_Tv([NAN]))), ("SGD", dict(lr=_Tv([-1.0]))), ("SGD", dict(weight_decay=_Tv([-1.0]))),
    ("SGD", dict(lr=-1, nesterov=True)), ("SGD", dict(nesterov=True, momentum=-1)),
    ("SGD", dict(fused=True, differentiable=True, foreach=True)),
    ("Adam", dict(lr=-1, betas=(2, 0))), ("Adam", dict(eps=-1, betas=(2, 0))), ("Adam", dict(betas=(2, 2))),
    ("Adam", dict(betas=(0.5, 2), weight_decay=-1)), ("Adam", dict(weight_decay=-1, betas=(0.9, _Tv(0.99)))),
    ("Adam", dict(lr=NAN)), ("Adam", dict(eps=NAN)), ("Adam", dict(betas=(NAN, 0.9))),
    ("Adam", dict(weight_decay=NAN)), ("Adam", dict(lr=_Tv([[0.1, 0.2]]), foreach=True)),
    ("Adam", dict(lr=_Tv([-1.0]), foreach=True, capturable=True)), ("Adam", dict(lr=_Tv([-1.0]))),
    ("Adam", dict(betas=(_Tv(2.0), _Tv(0.9)))), ("Adam", dict(betas=(0, 0))),
    ("Adam", dict(fused=True, foreach=True, differentiable=True)), ("Adam", dict(fused=True, lr=-1)),
    ("AdamW", dict(lr=-1, betas=(2, 0))), ("AdamW", dict(eps=-1, weight_decay=-1)),
    ("AdamW", dict(lr=_Tv([1.0]), foreach=True)),
    ("Adamax", dict(lr=-1, eps=-1)), ("Adamax", dict(eps=-1, betas=(2, 0))), ("Adamax", dict(betas=(-1, 2))),
    ("Adamax", dict(betas=(0.5, 2), weight_decay=-1)), ("Adamax", dict(weight_decay=-1)),
    ("Adamax", dict(lr=NAN)), ("Adamax", dict(lr=_Tv([[0.1, 0.2]]))), ("Adamax", dict(lr=_Tv([-1.0]))),
    ("NAdam", dict(lr=-1, eps=-1)), ("NAdam", dict(eps=-1, betas=(2, 0))),
    ("NAdam", dict(betas=(0.5, 2), weight_decay=-1)), ("NAdam", dict(weight_decay=-1, momentum_decay=-1)),
    ("NAdam", dict(momentum_decay=NAN)), ("NAdam", dict(lr=_Tv([-1.0]))),
    ("RAdam", dict(lr=-1, eps=-1)), ("RAdam", dict(eps=-1, betas=(2, 0))),
    ("RAdam", dict(betas=(0.5, 2), weight_decay=-1)), ("RAdam", dict(weight_decay=NAN)),
    ("RAdam", dict(lr=_Tv([[0.1, 0.2]]))),
    ("RMSprop", dict(lr=-1, eps=-1)), ("RMSprop", dict(eps=-1, momentum=-1)),
    ("RMSprop", dict(momentum=-1, weight_decay=-1)), ("RMSprop", dict(weight_decay=-1, alpha=-1)),
    ("RMSprop", dict(alpha=NAN)), ("RMSprop", dict(alpha=2.0)), ("RMSprop", dict(lr=_Tv([-1.0]))),
    ("Adagrad", dict(lr=-1, lr_decay=-1)), ("Adagrad", dict(lr_decay=-1, weight_decay=-1)),
    ("Adagrad", dict(weight_decay=-1, initial_accumulator_value=-1)),
    ("Adagrad", dict(initial_accumulator_value=-1, eps=-1)), ("Adagrad", dict(eps=NAN)),
    ("Adagrad", dict(lr=_Tv([-1.0]))), ("Adagrad", dict(fused=True, differentiable=True, foreach=True)),
    ("Adadelta", dict(lr=-1, rho=2)), ("Adadelta", dict(rho=2, eps=-1)), ("Adadelta", dict(rho=-0.1)),
    ("Adadelta", dict(rho=NAN)), ("Adadelta", dict(rho=1.0)), ("Adadelta", dict(eps=-1, weight_decay=-1)),
    ("Adadelta", dict(weight_decay=-1)), ("Adadelta", dict(lr=_Tv([-1.0]))),
    ("ASGD", dict(lr=-1, weight_decay=-1)), ("ASGD", dict(lr=NAN)), ("ASGD", dict(lr=_Tv([[0.1, 0.2]]))),
    ("ASGD", dict(lambd=-1, alpha=-1, t0=-1)),
    ("Rprop", dict(lr=-1, etas=(2, 1))), ("Rprop", dict(etas=(0, 2))), ("Rprop", dict(etas=(NAN, 2))),
    ("Rprop", dict(lr=_Tv([-1.0]))), ("Rprop", dict(step_sizes=(-1, -2))),
    ("LBFGS", dict(lr=NAN)), ("LBFGS", dict(lr=_Tv([-1.0]))), ("LBFGS", dict(lr=_Tv([[0.1, 0.2]]))),
    ("SparseAdam", dict(lr=0.0, eps=0.0)), ("SparseAdam", dict(eps=0.0, betas=(2, 2))),
    ("SparseAdam", dict(betas=(2, 2))), ("SparseAdam", dict(lr=-1)), ("SparseAdam", dict(lr=NAN)),
    ("SparseAdam", dict(eps=NAN)), ("SparseAdam", dict(lr=_Tv([0.0]))),
    ("SparseAdam", dict(lr=_Tv([[0.1, 0.2]]))),
]


@pytest.mark.parametrize("name,kw", CTOR_ORDER, ids=_ids(CTOR_ORDER))
def test_constructor_argument_checks(name, kw):
    """PyTorch's order of checks, NaN and tensor arguments: same verdict, exception type and message."""
    _same_outcome(lambda T: getattr(T.optim, name)(_p(T), **{k: _built(T, v) for k, v in kw.items()}))


def _lbfgs_bad_line_search(T):
    p = T.nn.Parameter(T.ones(2))

    def closure():
        loss = (p * p).sum()
        loss.backward()
        return loss
    T.optim.LBFGS([p], line_search_fn="armijo").step(closure)


def _stepped(T, name, p=None, **kw):
    p = p if p is not None else T.nn.Parameter(T.ones(3))
    p.grad = T.ones_like(p)
    getattr(T.optim, name)([p], **kw).step()


@pytest.mark.parametrize("case", ["adam_capturable_cpu", "nadam_capturable_cpu", "asgd_capturable_cpu",
                                  "adadelta_capturable_cpu", "adam_fused_complex", "sgd_differentiable_leaf",
                                  "sparse_adam_dense_grad", "lbfgs_bad_line_search"])
def test_step_errors(case):
    fns = {
        "adam_capturable_cpu": lambda T: _stepped(T, "Adam", capturable=True),
        "nadam_capturable_cpu": lambda T: _stepped(T, "NAdam", capturable=True),
        "asgd_capturable_cpu": lambda T: _stepped(T, "ASGD", capturable=True),
        "adadelta_capturable_cpu": lambda T: _stepped(T, "Adadelta", capturable=True),
        "adam_fused_complex": lambda T: _stepped(T, "Adam", p=T.nn.Parameter(T.ones(2, dtype=T.complex64)),
                                                 fused=True),
        "sgd_differentiable_leaf": lambda T: _stepped(T, "SGD", differentiable=True, momentum=0.9),
        "sparse_adam_dense_grad": lambda T: _stepped(T, "SparseAdam"),
        "lbfgs_bad_line_search": _lbfgs_bad_line_search,
    }
    _both_raise(fns[case])


def test_step_without_grads_is_a_no_op():
    for T in LIBS:
        model = build_model(T)
        before = params_np(model)
        opt = T.optim.Adam(model.parameters())
        assert opt.step() is None
        for b, a in zip(before, params_np(model)):
            np.testing.assert_array_equal(a, b)
        assert len(opt.state) == 0


def test_step_returns_closure_loss():
    vals = []
    for T in LIBS:
        model = build_model(T)
        opt = T.optim.SGD(model.parameters(), lr=0.1)

        def closure(T=T, model=model, opt=opt):
            opt.zero_grad()
            loss = model(T.ones(2, 3)).sum()
            loss.backward()
            return loss
        vals.append(float(opt.step(closure).detach()))
    np.testing.assert_allclose(vals[1], vals[0], **TOL["float32"])

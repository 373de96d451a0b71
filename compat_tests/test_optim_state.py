"""torch.optim.Optimizer's shell against real PyTorch: state_dict layout, loading PyTorch's state into
torchshim (and back) and continuing training, hooks, zero_grad, add_param_group and its errors, pickling."""
import copy
import importlib
import pickle
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import compare_errors
from optim_harness import (TOL, build_model, compare_plain, compare_trajectories, params_np, state_np,
                           to_shim_state_dict, to_torch_state_dict, train)

LIBS = (torch, torchshim)

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01, amsgrad=True)), ("Adam", dict(lr=0.01, fused=True)), ("AdamW", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01)), ("NAdam", dict(lr=0.01)), ("RAdam", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.001, centered=True, momentum=0.5)), ("Adagrad", dict(lr=0.05)),
    ("Adadelta", dict()), ("ASGD", dict(lr=0.05, t0=3)), ("Rprop", dict(lr=0.01)),
]
IDS = [f"{n}-" + "-".join(f"{k}={v}" for k, v in kw.items()) for n, kw in OPTIMIZERS]


def _submodule(T, name):
    """`torch.optim.<name>` (PyTorch deletes the submodule names from `torch.optim`; importing finds them)."""
    return importlib.import_module(f"{T.__name__}.optim.{name}")


def _make(name, kw):
    return lambda T, params: getattr(T.optim, name)(params, **kw)


@pytest.mark.parametrize("name,kw", OPTIMIZERS, ids=IDS)
def test_state_dict_layout(name, kw):
    """Before any step and after 3 steps: the same keys, param indices, state names, dtypes ('step' included)
    and values as PyTorch's."""
    for steps in (0, 3):
        ref, got = (train(T, _make(name, kw), steps=steps) for T in LIBS)
        compare_plain(state_np(ref[1]), state_np(got[1]), **TOL["float32"])


@pytest.mark.parametrize("name,kw", OPTIMIZERS, ids=IDS)
def test_load_torch_state_dict_and_continue(name, kw):
    """Train 20 steps in PyTorch; load its parameters and optimizer state_dict (converted tensor by tensor)
    into torchshim; 20 more steps in both give the same trajectory."""
    ref_model, ref_opt, _ = train(torch, _make(name, kw), steps=20)
    model = build_model(torchshim)
    model.load_state_dict({k: torchshim.tensor(v.numpy()) for k, v in ref_model.state_dict().items()})
    opt = _make(name, kw)(torchshim, model.parameters())
    opt.load_state_dict(to_shim_state_dict(ref_opt.state_dict()))
    compare_plain(state_np(ref_opt), state_np(opt), rtol=0, atol=0)
    ref = train(torch, None, steps=20, model=ref_model, opt=ref_opt)
    got = train(torchshim, None, steps=20, model=model, opt=opt)
    compare_trajectories(ref, got, **TOL["float32"])


@pytest.mark.parametrize("name,kw", OPTIMIZERS, ids=IDS)
def test_load_torchshim_state_dict_into_torch_and_continue(name, kw):
    got_model, got_opt, _ = train(torchshim, _make(name, kw), steps=20)
    model = build_model(torch)
    model.load_state_dict({k: torch.tensor(v.numpy()) for k, v in got_model.state_dict().items()})
    opt = _make(name, kw)(torch, model.parameters())
    opt.load_state_dict(to_torch_state_dict(got_opt.state_dict()))
    compare_plain(state_np(opt), state_np(got_opt), rtol=0, atol=0)
    ref = train(torch, None, steps=20, model=model, opt=opt)
    got = train(torchshim, None, steps=20, model=got_model, opt=got_opt)
    compare_trajectories(ref, got, **TOL["float32"])


def test_load_state_dict_casts_to_param_dtype_but_not_step():
    """Floating state is cast to the parameter's dtype; 'step' keeps its dtype (PyTorch issue 74424)."""
    out = []
    for T in LIBS:
        _, opt, _ = train(T, _make("Adam", dict(lr=0.01)), steps=2)
        sd = opt.state_dict()
        for s in sd["state"].values():
            s["exp_avg"] = s["exp_avg"].double()
            s["step"] = s["step"].double()
        model64 = build_model(T, "float32")
        opt2 = T.optim.Adam(model64.parameters(), lr=0.01)
        opt2.load_state_dict(sd)
        out.append(state_np(opt2))
    compare_plain(out[0], out[1], **TOL["float32"])
    assert out[1]["state"][0]["exp_avg"][1] == "float32" and out[1]["state"][0]["step"][1] == "float64"


def test_load_old_style_python_number_step():
    """A checkpoint whose 'step' is a Python number (old PyTorch) is converted to a tensor on load."""
    out = []
    for T in LIBS:
        _, opt, _ = train(T, _make("NAdam", dict(lr=0.01)), steps=2)
        sd = opt.state_dict()
        for s in sd["state"].values():
            s["step"] = 2
            s["mu_product"] = float(s["mu_product"])
        opt2 = T.optim.NAdam(build_model(T).parameters(), lr=0.01)
        opt2.load_state_dict(sd)
        out.append(state_np(opt2))
    compare_plain(out[0], out[1], **TOL["float32"])


def _raises_alike(fn):
    outcomes = []
    for T in LIBS:
        try:
            fn(T)
        except Exception as e:  # noqa: BLE001
            outcomes.append(e)
        else:
            outcomes.append(None)
    assert outcomes[0] is not None, "torch did not raise"
    compare_errors(outcomes[0], outcomes[1])
    assert str(outcomes[1]) == str(outcomes[0])


@pytest.mark.parametrize("case", ["groups", "group_size"])
def test_load_state_dict_errors(case):
    def fn(T):
        params = list(build_model(T).parameters())
        sd = T.optim.SGD(params, lr=0.1).state_dict()
        if case == "groups":
            opt = T.optim.SGD([{"params": params[:2]}, {"params": params[2:]}], lr=0.1)
        else:
            opt = T.optim.SGD(params[:3], lr=0.1)
        opt.load_state_dict(sd)
    _raises_alike(fn)


def test_state_dict_param_names():
    """Groups built from named_parameters() carry 'param_names' in the state_dict."""
    out = []
    for T in LIBS:
        model = build_model(T)
        opt = T.optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
        out.append(state_np(train(T, None, steps=2, model=model, opt=opt)[1]))
    compare_plain(out[0], out[1], **TOL["float32"])
    assert out[1]["param_groups"][0]["param_names"] == ["0.weight", "0.bias", "2.weight", "2.bias"]


# ----- hooks -----------------------------------------------------------------------------------------------
def _hook_log(T):
    log = []
    model = build_model(T)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    h1 = opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", type(o).__name__, a, k)))
    opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", args, kwargs)))
    om = _submodule(T, "optimizer")
    g = om.register_optimizer_step_pre_hook(lambda o, a, k: log.append("global-pre"))
    g2 = om.register_optimizer_step_post_hook(lambda o, a, k: log.append("global-post"))
    try:
        opt.step()
        h1.remove()
        opt.step(closure=None)
    finally:
        g.remove()
        g2.remove()
    opt.step()
    opt.register_state_dict_pre_hook(lambda o: log.append("sd-pre"))
    opt.register_state_dict_post_hook(lambda o, sd: log.append(("sd-post", sorted(sd))))
    opt.register_state_dict_post_hook(lambda o, sd: log.append("sd-post-first"), prepend=True)
    sd = opt.state_dict()
    opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(("load-pre", sorted(sd))))
    opt.register_load_state_dict_post_hook(lambda o: log.append("load-post"))
    opt.load_state_dict(sd)
    def plain(e):
        if isinstance(e, tuple) and e[0] == "pre":
            return (e[0], e[1], tuple(type(a).__name__ for a in e[2]), e[3])
        if isinstance(e, tuple) and e[0] == "post":
            return (e[0], tuple(type(a).__name__ for a in e[1]), e[2])
        return e
    return [plain(e) for e in log]


def test_hooks_order_and_removal():
    ref, got = (_hook_log(T) for T in LIBS)
    assert got == ref


def test_step_pre_hook_can_replace_arguments():
    out = []
    for T in LIBS:
        p = T.nn.Parameter(T.ones(2))
        opt = T.optim.SGD([p], lr=0.5)
        opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: 7.0}))
        p.grad = T.ones(2)
        out.append((opt.step(), p.detach().numpy().tolist()))
    assert out[0] == out[1]


def test_step_pre_hook_bad_return():
    def fn(T):
        opt = T.optim.SGD([T.nn.Parameter(T.ones(2))], lr=0.5)
        opt.register_step_pre_hook(lambda o, args, kwargs: 3)
        opt.step()
    outcomes = []
    for T in LIBS:
        with pytest.raises(RuntimeError) as info:
            fn(T)
        outcomes.append(str(info.value))
    # the message names the wrapped function object, whose repr differs between the libraries
    tail = "must return None or a tuple of (new_args, new_kwargs), but got 3."
    assert all(m.endswith(tail) for m in outcomes)


# ----- zero_grad -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    out = []
    for T in LIBS:
        model = build_model(T)
        params = list(model.parameters())
        params[1].requires_grad_(False)
        opt = T.optim.SGD(model.parameters(), lr=0.1)
        model(T.ones(2, 3)).sum().backward()
        grads = [p.grad for p in params]
        opt.zero_grad(set_to_none=set_to_none)
        out.append([None if p.grad is None else (p.grad.numpy().tolist(), p.grad is g, p.grad.requires_grad)
                    for p, g in zip(params, grads)])
    assert out[0] == out[1]


def test_zero_grad_default_sets_none():
    for T in LIBS:
        p = T.nn.Parameter(T.ones(2))
        p.grad = T.ones(2)
        T.optim.Adam([p]).zero_grad()
        assert p.grad is None


# ----- add_param_group and constructor argument errors ------------------------------------------------------
def test_add_param_group():
    out = []
    for T in LIBS:
        model = build_model(T)
        params = list(model.parameters())
        opt = T.optim.SGD(params[:2], lr=0.1, momentum=0.9)
        opt.add_param_group({"params": params[2:], "lr": 0.01})
        opt.add_param_group({"params": T.nn.Parameter(T.ones(1))})
        out.append((repr(opt), [sorted(g) for g in opt.param_groups],
                    [len(g["params"]) for g in opt.param_groups]))
    assert out[0] == out[1]


def _bad(case, T):
    p = T.nn.Parameter(T.ones(2))
    q = T.nn.Parameter(T.ones(3))
    if case == "empty":
        return T.optim.SGD([], lr=0.1)
    if case == "tensor":
        return T.optim.SGD(p, lr=0.1)
    if case == "set":
        return T.optim.SGD([{"params": {p}}], lr=0.1)
    if case == "not_tensor":
        return T.optim.SGD([p, 3], lr=0.1)
    if case == "non_leaf":
        return T.optim.SGD([p * 2], lr=0.1)
    if case == "overlap":
        return T.optim.SGD([{"params": [p]}, {"params": [q, p]}], lr=0.1)
    if case == "group_not_dict":
        return T.optim.SGD([p], lr=0.1).add_param_group([q])
    if case == "names_mixed":
        return T.optim.SGD([("a", p), q], lr=0.1)
    if case == "groups_names_mixed":
        return T.optim.SGD([{"params": [("a", p)]}, {"params": [q]}], lr=0.1)
    if case == "required":
        class Opt(T.optim.Optimizer):
            def __init__(self, params):
                super().__init__(params, {"lr": _submodule(T, "optimizer").required})
        return Opt([p])
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["empty", "tensor", "set", "not_tensor", "non_leaf", "overlap",
                                  "group_not_dict", "names_mixed", "groups_names_mixed", "required"])
def test_param_errors(case):
    _raises_alike(lambda T: _bad(case, T))


def test_duplicate_parameter_warning():
    msgs = []
    for T in LIBS:
        p = T.nn.Parameter(T.ones(2))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.optim.SGD([p, p], lr=0.1)
        msgs.append([(x.category, str(x.message)) for x in w])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1


# ----- subclasses, pickling ---------------------------------------------------------------------------------
def _custom_sgd(T):
    class PlainSGD(T.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, {"lr": lr})

        @T.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        state = self.state[p]
                        state["n"] = state.get("n", 0) + 1
                        p.add_(p.grad, alpha=-group["lr"])
    return PlainSGD


def test_user_defined_optimizer():
    """A user subclass using `self.state`, in-place updates and hooks behaves as in PyTorch."""
    out = []
    for T in LIBS:
        cls = _custom_sgd(T)
        calls = []
        model, opt, losses = train(T, lambda T, ps, cls=cls: cls(ps, lr=0.05), steps=10)
        opt.register_step_post_hook(lambda o, a, k, calls=calls: calls.append(1))
        train(T, None, steps=2, model=model, opt=opt)
        out.append((model, opt, losses))
        assert len(calls) == 2
    compare_trajectories(*out, **TOL["float32"])


def test_deepcopy_and_pickle():
    model, opt, _ = train(torchshim, _make("Adam", dict(lr=0.01)), steps=3)
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        assert type(clone) is type(opt) and repr(clone) == repr(opt)
        compare_plain(state_np(opt), state_np(clone), rtol=0, atol=0)
    clone = copy.deepcopy(opt)
    p = clone.param_groups[0]["params"][0]
    assert clone.state[p]["exp_avg"] is not opt.state[opt.param_groups[0]["params"][0]]["exp_avg"]
    np.testing.assert_array_equal(params_np(model)[0], opt.param_groups[0]["params"][0].detach().numpy())

"""The optim names added for issue 10, against real torch: Adafactor and Muon (trajectories and state),
swa_utils (AveragedModel, the averaging functions, update_bn, SWALR's lr sequence) and
swap_in_optimizer_params_and_state."""
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import to_numpy
from optim_harness import TOL, build_model, compare_trajectories, train

LIBS = (torch, torchshim)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, str(e)
    return None


ADAFACTOR = {
    "default": {},
    "lr-wd": dict(lr=0.05, weight_decay=0.1),
    "eps-d": dict(eps=(1e-4, 1e-2), d=2.0, beta2_decay=-0.5),
    "maximize": dict(maximize=True),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(ADAFACTOR))
def test_adafactor_matches_torch(name, dtype):
    kw = ADAFACTOR[name]
    res = [train(T, lambda T, p: T.optim.Adafactor(p, **kw), steps=30, dtype=dtype,
                 maximize=kw.get("maximize", False)) for T in LIBS]
    tol = TOL[dtype] if dtype == "float64" else dict(rtol=1e-4, atol=1e-5)
    compare_trajectories(res[0], res[1], **tol)


@pytest.mark.parametrize("kw", [dict(lr=-1.0), dict(beta2_decay=0.5), dict(eps=(-1.0, 1e-3)),
                                dict(eps=(None, -1.0)), dict(d=0.5), dict(weight_decay=-1.0)])
def test_adafactor_argument_errors(kw):
    errs = [_err(lambda T=T: T.optim.Adafactor(build_model(T).parameters(), **kw)) for T in LIBS]
    assert errs[0] is not None and errs[0] == errs[1]


def _matrices(T, model):
    return [p for p in model.parameters() if p.ndim == 2]


MUON = {
    "default": {},
    "plain-momentum": dict(lr=0.02, nesterov=False, weight_decay=0.0),
    "match-rms": dict(lr=0.01, adjust_lr_fn="match_rms_adamw", momentum=0.9),
    "ns-steps": dict(lr=0.01, ns_steps=3, adjust_lr_fn="original"),
}


@pytest.mark.parametrize("name", list(MUON))
def test_muon_matches_torch(name):
    kw = MUON[name]
    res = []
    for T in LIBS:
        model = build_model(T)
        opt = T.optim.Muon(_matrices(T, model), **kw)
        res.append(train(T, None, steps=15, model=model, opt=opt))
    # the Newton-Schulz iteration runs in bfloat16, rounded as PyTorch's CPU kernels round
    compare_trajectories(res[0], res[1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", ["1d-param", "lr", "momentum", "wd", "adjust"])
def test_muon_argument_errors(case):
    def make(T):
        model = build_model(T)
        if case == "1d-param":
            return T.optim.Muon(model.parameters())
        kw = {"lr": dict(lr=-1.0), "momentum": dict(momentum=-0.5), "wd": dict(weight_decay=-1.0),
              "adjust": dict(adjust_lr_fn="other")}[case]
        return T.optim.Muon(_matrices(T, model), **kw)
    errs = [_err(lambda T=T: make(T)) for T in LIBS]
    assert errs[0] is not None and errs[0] == errs[1]


# ---- swa_utils --------------------------------------------------------------------------------------------
def _bn_model(T):
    model = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4), T.nn.ReLU(), T.nn.Linear(4, 2))
    rng = np.random.default_rng(0)
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.tensor(rng.uniform(-0.8, 0.8, size=tuple(p.shape)).astype(np.float32)))
    return model


def _average(T, make_avg, use_buffers=False, steps=4):
    model = _bn_model(T)
    avg = make_avg(T, model)
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        x = T.tensor(rng.standard_normal((8, 3)).astype(np.float32))
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        avg.update_parameters(model)
    return avg


AVERAGES = {
    "swa": lambda T, m: T.optim.swa_utils.AveragedModel(m),
    "ema-avg-fn": lambda T, m: T.optim.swa_utils.AveragedModel(
        m, avg_fn=T.optim.swa_utils.get_ema_avg_fn(0.9)),
    "ema-multi-buffers": lambda T, m: T.optim.swa_utils.AveragedModel(
        m, multi_avg_fn=T.optim.swa_utils.get_ema_multi_avg_fn(0.8), use_buffers=True),
    "swa-avg-fn": lambda T, m: T.optim.swa_utils.AveragedModel(m, avg_fn=T.optim.swa_utils.get_swa_avg_fn()),
    "swa-multi-buffers": lambda T, m: T.optim.swa_utils.AveragedModel(
        m, multi_avg_fn=T.optim.swa_utils.get_swa_multi_avg_fn(), use_buffers=True),
}


@pytest.mark.parametrize("name", list(AVERAGES))
def test_averaged_model_matches_torch(name):
    if name == "swa-multi-buffers":  # PyTorch's own addcdiv_ refuses the integer BatchNorm counter
        errs = [_err(lambda T=T: _average(T, AVERAGES[name])) for T in LIBS]
        assert errs[0] is not None and errs[0] == errs[1]
        return
    ref, got = (_average(T, AVERAGES[name]) for T in LIBS)
    ref_sd, got_sd = ref.state_dict(), got.state_dict()
    assert list(ref_sd) == list(got_sd)
    for k in ref_sd:
        assert str(ref_sd[k].dtype) == str(got_sd[k].dtype), k
        np.testing.assert_allclose(to_numpy(got_sd[k]), to_numpy(ref_sd[k]), rtol=1e-5, atol=1e-6, err_msg=k)
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(to_numpy(got.eval()(torchshim.tensor(x))),
                               to_numpy(ref.eval()(torch.tensor(x))), rtol=1e-5, atol=1e-6)


def test_averaging_function_errors():
    for fn in ("get_ema_avg_fn", "get_ema_multi_avg_fn"):
        errs = [_err(lambda T=T, fn=fn: getattr(T.optim.swa_utils, fn)(1.5)) for T in LIBS]
        assert errs[0] is not None and errs[0] == errs[1]
    errs = [_err(lambda T=T: T.optim.swa_utils.AveragedModel(_bn_model(T), avg_fn=lambda *a: a[0],
                                                             multi_avg_fn=lambda *a: None)) for T in LIBS]
    assert errs[0] is not None and errs[0] == errs[1]


def test_update_bn_matches_torch():
    rng = np.random.default_rng(2)
    data = [rng.standard_normal((8, 3)).astype(np.float32) * (i + 1) for i in range(3)]
    res = {}
    for T in LIBS:
        model = _bn_model(T).eval()
        loader = [(T.tensor(d), T.zeros(8)) for d in data]
        T.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        res[T] = (bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.momentum, model.training)
    for a, b in zip(res[torch][:3], res[torchshim][:3]):
        np.testing.assert_allclose(to_numpy(b), to_numpy(a), rtol=1e-5, atol=1e-6)
    assert res[torch][3:] == res[torchshim][3:]


@pytest.mark.parametrize("kw", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.01], anneal_epochs=3,
                                                         anneal_strategy="linear"),
                                dict(swa_lr=0.02, anneal_epochs=0)])
def test_swalr_lr_sequence_matches_torch(kw):
    seqs = {}
    for T in LIBS:
        model = build_model(T)
        opt = T.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.3}],
                          lr=0.5)
        sched = T.optim.swa_utils.SWALR(opt, **kw)
        seq = []
        for _ in range(14):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.get_lr()
        seqs[T] = (seq, [str(c.message) for c in caught], sorted(sched.state_dict()))
    np.testing.assert_allclose(np.array(seqs[torchshim][0]), np.array(seqs[torch][0]), rtol=1e-12)
    assert seqs[torch][1:] == seqs[torchshim][1:]


@pytest.mark.parametrize("kw", [dict(anneal_strategy="exp"), dict(anneal_epochs=-1), dict(anneal_epochs=1.5)])
def test_swalr_errors(kw):
    errs = [_err(lambda T=T: T.optim.swa_utils.SWALR(T.optim.SGD(build_model(T).parameters(), lr=0.1),
                                                     swa_lr=0.1, **kw)) for T in LIBS]
    assert errs[0] is not None and errs[0] == errs[1]


# ---- swap_in_optimizer_params_and_state -------------------------------------------------------------------
def test_swap_in_optimizer_params_and_state_matches_torch():
    res = {}
    for T in LIBS:
        model = build_model(T)
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        model(T.ones(2, 3)).sum().backward()
        opt.step()
        live_before = [p.detach().clone() for p in model.parameters()]
        other = {n: p.detach().clone() * 2 for n, p in model.named_parameters()}
        osd = opt.state_dict()
        osd["param_groups"][0]["lr"] = 0.5
        for p, q in zip(model.parameters(), other.values()):
            q.grad = p.grad.clone()
        with T.optim.swap_in_optimizer_params_and_state(opt, other, osd):
            inside_lr = opt.param_groups[0]["lr"]
            opt.step()
        res[T] = ([to_numpy(q) for q in other.values()], [to_numpy(b["momentum_buffer"])
                                                          for b in osd["state"].values()],
                  inside_lr, opt.param_groups[0]["lr"],
                  all(np.array_equal(to_numpy(a), to_numpy(b))
                      for a, b in zip(live_before, model.parameters())))
    for a, b in zip(res[torch][0] + res[torch][1], res[torchshim][0] + res[torchshim][1]):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
    assert res[torch][2:] == res[torchshim][2:]


def test_swap_in_errors_match_torch():
    def cases(T):
        model = build_model(T)
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        params = dict(model.named_parameters())
        yield lambda: T.optim.swap_in_optimizer_params_and_state(opt, params, opt.state_dict()).__enter__()
        model(T.ones(1, 3)).sum().backward()
        opt.step()
        sd = opt.state_dict()
        yield lambda: T.optim.swap_in_optimizer_params_and_state(opt, params, [1]).__enter__()
        yield lambda: T.optim.swap_in_optimizer_params_and_state(
            opt, params, {"state": sd["state"], "param_groups": []}).__enter__()
        yield lambda: T.optim.swap_in_optimizer_params_and_state(
            opt, params, {"state": {**sd["state"], 99: {}}, "param_groups": sd["param_groups"]}).__enter__()
        bad_group = dict(sd["param_groups"][0], extra=1)
        yield lambda: T.optim.swap_in_optimizer_params_and_state(
            opt, params, {"state": sd["state"], "param_groups": [bad_group]}).__enter__()
    ref = [_err(c) for c in cases(torch)]
    got = [_err(c) for c in cases(torchshim)]
    assert all(r is not None for r in ref) and ref == got

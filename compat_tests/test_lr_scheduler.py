"""torch.optim.lr_scheduler against real PyTorch: 100-step learning-rate (and momentum/beta) sequences of
every scheduler in several configurations, state_dict contents and round trips, step(epoch) closed forms,
tensor learning rates, ReduceLROnPlateau on a metric sequence, warnings (category and message) and errors.

The schedulers are pure Python float arithmetic in both libraries, so the sequences must be equal exactly.
"""
import math
import warnings

import pytest
import torch

import torchshim
from harness import compare_errors
from optim_harness import _plain, compare_plain

LIBS = (torch, torchshim)


def _opt(T, kind="sgd", lr_tensor=False):
    """An optimizer with two parameter groups (lrs 0.1 and 0.05)."""
    p1, p2 = T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.ones(3))
    lr = (lambda v: T.tensor(v)) if lr_tensor else (lambda v: v)
    if kind == "adam":
        return T.optim.Adam([{"params": [p1], "lr": lr(0.1)}, {"params": [p2], "lr": lr(0.05)}])
    return T.optim.SGD([{"params": [p1], "lr": lr(0.1)}, {"params": [p2], "lr": lr(0.05)}], momentum=0.9)


def _lam(e):
    return 0.95 ** e


def _scale(x):
    return 1 / (1.5 ** x)


SCHEDULERS = {
    "LambdaLR": lambda T, o: T.optim.lr_scheduler.LambdaLR(o, _lam),
    "LambdaLR-list": lambda T, o: T.optim.lr_scheduler.LambdaLR(o, [_lam, lambda e: 1.0 / (e + 1)]),
    "MultiplicativeLR": lambda T, o: T.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda T, o: T.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda T, o: T.optim.lr_scheduler.MultiStepLR(o, milestones=[10, 30, 30, 60], gamma=0.3),
    "ConstantLR": lambda T, o: T.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=12),
    "ConstantLR-default": lambda T, o: T.optim.lr_scheduler.ConstantLR(o),
    "LinearLR": lambda T, o: T.optim.lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                           total_iters=40),
    "LinearLR-default": lambda T, o: T.optim.lr_scheduler.LinearLR(o),
    "ExponentialLR": lambda T, o: T.optim.lr_scheduler.ExponentialLR(o, gamma=0.97),
    "PolynomialLR": lambda T, o: T.optim.lr_scheduler.PolynomialLR(o, total_iters=50, power=2.0),
    "PolynomialLR-default": lambda T, o: T.optim.lr_scheduler.PolynomialLR(o),
    "CosineAnnealingLR": lambda T, o: T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=30, eta_min=0.001),
    "CosineAnnealingLR-short": lambda T, o: T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=7),
    "CosineAnnealingWarmRestarts": lambda T, o: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=10, T_mult=2, eta_min=1e-4),
    "CosineAnnealingWarmRestarts-mult1": lambda T, o: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=6),
    "CyclicLR": lambda T, o: T.optim.lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=7),
    "CyclicLR-triangular2": lambda T, o: T.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=5, step_size_down=9, mode="triangular2"),
    "CyclicLR-exp_range": lambda T, o: T.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=6, mode="exp_range", gamma=0.97, base_momentum=0.7,
        max_momentum=[0.9, 0.95]),
    "CyclicLR-scale_fn": lambda T, o: T.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=4, scale_fn=_scale, scale_mode="iterations",
        cycle_momentum=False),
    "OneCycleLR": lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=101),
    "OneCycleLR-three_phase": lambda T, o: T.optim.lr_scheduler.OneCycleLR(
        o, max_lr=[0.1, 0.2], epochs=11, steps_per_epoch=10, anneal_strategy="linear", three_phase=True,
        pct_start=0.25, div_factor=10.0, final_div_factor=100.0),
    "SequentialLR": lambda T, o: T.optim.lr_scheduler.SequentialLR(
        o, [T.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=10),
            T.optim.lr_scheduler.ExponentialLR(o, gamma=0.95)], milestones=[10]),
    "SequentialLR-3": lambda T, o: T.optim.lr_scheduler.SequentialLR(
        o, [T.optim.lr_scheduler.ConstantLR(o, factor=0.3, total_iters=5),
            T.optim.lr_scheduler.CosineAnnealingLR(o, T_max=20),
            T.optim.lr_scheduler.StepLR(o, step_size=10, gamma=0.5)], milestones=[5, 40]),
    "ChainedScheduler": lambda T, o: T.optim.lr_scheduler.ChainedScheduler(
        [T.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=5),
         T.optim.lr_scheduler.ExponentialLR(o, gamma=0.97)]),
    "ChainedScheduler-optimizer": lambda T, o: T.optim.lr_scheduler.ChainedScheduler(
        [T.optim.lr_scheduler.MultiStepLR(o, milestones=[20, 50]),
         T.optim.lr_scheduler.LinearLR(o, start_factor=0.5, total_iters=30)], optimizer=o),
}
ADAM = {"CyclicLR", "CyclicLR-exp_range", "OneCycleLR", "OneCycleLR-three_phase"}


def _hyper(opt):
    return [(g["lr"] if not isinstance(g["lr"], (torch.Tensor, torchshim.Tensor)) else ("t", float(g["lr"])),
             g.get("momentum"), g.get("betas")) for g in opt.param_groups]


def _last(sched):
    return [("t", float(v)) if isinstance(v, (torch.Tensor, torchshim.Tensor)) else v
            for v in sched.get_last_lr()]


def _sequence(T, name, steps=100, kind="sgd", lr_tensor=False):
    opt = _opt(T, kind, lr_tensor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = SCHEDULERS[name](T, opt)
    seq = [(_last(sched), _hyper(opt))]
    for _ in range(steps):
        opt.step()
        sched.step()
        seq.append((_last(sched), _hyper(opt)))
    return seq, sched, opt


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence(name):
    kinds = ["sgd", "adam"] if name in ADAM else ["sgd"]
    for kind in kinds:
        ref, got = (_sequence(T, name, kind=kind)[0] for T in LIBS)
        for i, (r, g) in enumerate(zip(ref, got)):
            assert r == g, f"step {i}: torch {r} != torchshim {g}"


@pytest.mark.parametrize("name", ["StepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "OneCycleLR",
                                  "MultiplicativeLR"])
def test_tensor_lr_sequence(name):
    """A tensor lr is updated in place (`fill_`) and stays a tensor."""
    ref, got = (_sequence(T, name, steps=40, lr_tensor=True) for T in LIBS)
    assert ref[0] == got[0]
    assert all(isinstance(g["lr"], torchshim.Tensor) for g in got[2].param_groups)


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_state_dict_matches_and_round_trips(name):
    """After 37 steps the state_dict equals PyTorch's; loading it (with the optimizer's) into a fresh
    scheduler continues the same sequence."""
    seqs = []
    for T in LIBS:
        _, sched, opt = _sequence(T, name, steps=37)
        sd, osd = sched.state_dict(), opt.state_dict()
        opt2 = _opt(T)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sched2 = SCHEDULERS[name](T, opt2)
        opt2.load_state_dict(osd)
        sched2.load_state_dict(sd)
        seq = []
        for _ in range(25):
            for o, s in ((opt, sched), (opt2, sched2)):
                o.step()
                s.step()
            seq.append((_last(sched), _last(sched2), _hyper(opt2)))
            assert seq[-1][0] == seq[-1][1]
        seqs.append((_plain(sd), seq))
    compare_plain(seqs[0][0], seqs[1][0], rtol=0, atol=0)
    assert seqs[0][1] == seqs[1][1]


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
                                  "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
                                  "LambdaLR"])
def test_step_with_epoch(name):
    """`step(epoch)` uses the closed form (with PyTorch's deprecation warning)."""
    out = []
    for T in LIBS:
        opt = _opt(T)
        sched = SCHEDULERS[name](T, opt)
        seq = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for epoch in (3, 8, 2, 15, 15, 40, 7):
                opt.step()
                sched.step(epoch)
                seq.append(_last(sched))
        out.append((seq, [(x.category, str(x.message)) for x in w]))
    assert out[0] == out[1]


@pytest.mark.parametrize("kw", [dict(), dict(mode="max", threshold_mode="abs", threshold=0.05, patience=2),
                                dict(factor=0.5, patience=1, cooldown=2, min_lr=[0.01, 0.02]),
                                dict(mode="min", threshold_mode="abs", patience=0, eps=0.02, min_lr=0.004)])
def test_reduce_lr_on_plateau(kw):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.91, 0.5, 0.6, 0.6, 0.6] * 4
    out = []
    for T in LIBS:
        opt = _opt(T)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        seq = []
        for m in metrics:
            opt.step()
            sched.step(m)
            seq.append((_last(sched), sched.num_bad_epochs, sched.cooldown_counter, sched.best))
        out.append((seq, _plain(sched.state_dict())))
    assert out[0][0] == out[1][0]
    compare_plain(out[0][1], out[1][1], rtol=0, atol=0)


def test_reduce_lr_on_plateau_tensor_metric_and_lr():
    out = []
    for T in LIBS:
        opt = _opt(T, lr_tensor=True)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        for m in (1.0, 1.0, 1.0, 0.5, 0.5):
            sched.step(T.tensor(m))
        out.append(_last(sched))
    assert out[0] == out[1]


def _warnings_of(fn):
    out = []
    for T in LIBS:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn(T)
        out.append([(x.category, str(x.message)) for x in w])
    assert out[0] == out[1]
    return out[0]


def test_warning_scheduler_step_before_optimizer_step():
    def fn(T):
        sched = T.optim.lr_scheduler.StepLR(_opt(T), step_size=2)
        sched.step()
        sched.step()
    w = _warnings_of(fn)
    assert len(w) == 1 and "before `optimizer.step()`" in w[0][1]


def test_no_warning_in_the_right_order():
    def fn(T):
        opt = _opt(T)
        sched = T.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        for _ in range(3):
            opt.step()
            sched.step()
    assert _warnings_of(fn) == []


def test_warning_optimizer_step_overridden():
    def fn(T):
        opt = _opt(T)
        sched = T.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        opt.step = lambda closure=None: None
        opt.step()
        sched.step()
    w = _warnings_of(fn)
    assert len(w) == 1 and "has been overridden" in w[0][1]


def test_warning_get_lr_outside_step():
    def fn(T):
        opt = _opt(T)
        sched = T.optim.lr_scheduler.StepLR(opt, step_size=2)
        assert sched.get_lr() == [0.1, 0.05]
    w = _warnings_of(fn)
    assert len(w) == 1 and "get_last_lr()" in w[0][1]


def test_scheduler_on_optimizer_with_hooks_and_step_count():
    """The scheduler wraps `optimizer.step` once per optimizer (`_opt_called`, `_wrapped_by_lr_sched`)."""
    out = []
    for T in LIBS:
        opt = _opt(T)
        s1 = T.optim.lr_scheduler.StepLR(opt, step_size=3)
        s2 = T.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        wrapped = hasattr(opt.step, "_wrapped_by_lr_sched")
        opt.step()
        s1.step()
        s2.step()
        out.append((wrapped, getattr(opt, "_opt_called", None), s1._step_count, s2._step_count, _last(s2)))
    assert out[0] == out[1]


def _err(fn):
    outcomes = []
    for T in LIBS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(T)
        except Exception as e:  # noqa: BLE001
            outcomes.append(e)
        else:
            outcomes.append(None)
    assert outcomes[0] is not None, "torch did not raise"
    compare_errors(outcomes[0], outcomes[1])
    assert str(outcomes[1]) == str(outcomes[0])


ERRORS = {
    "not_optimizer": lambda T: T.optim.lr_scheduler.StepLR(object(), 3),
    "resume_without_initial_lr": lambda T: T.optim.lr_scheduler.StepLR(_opt(T), 3, last_epoch=5),
    "lambda_count": lambda T: T.optim.lr_scheduler.LambdaLR(_opt(T), [_lam]),
    "multiplicative_not_callable": lambda T: T.optim.lr_scheduler.MultiplicativeLR(_opt(T), 0.9),
    "constant_factor": lambda T: T.optim.lr_scheduler.ConstantLR(_opt(T), factor=1.5),
    "linear_start": lambda T: T.optim.lr_scheduler.LinearLR(_opt(T), start_factor=0),
    "linear_end": lambda T: T.optim.lr_scheduler.LinearLR(_opt(T), end_factor=1.5),
    "warm_T0": lambda T: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(T), T_0=0),
    "warm_Tmult": lambda T: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(T), T_0=5, T_mult=1.5),
    "warm_eta": lambda T: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(T), T_0=5, eta_min="x"),
    "warm_negative_epoch": lambda T: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(_opt(T),
                                                                                      T_0=5).step(-1),
    "cyclic_mode": lambda T: T.optim.lr_scheduler.CyclicLR(_opt(T), 0.01, 0.1, mode="zigzag"),
    "cyclic_no_momentum": lambda T: T.optim.lr_scheduler.CyclicLR(
        T.optim.Adagrad([T.nn.Parameter(T.ones(1))]), 0.01, 0.1),
    "cyclic_base_lr_count": lambda T: T.optim.lr_scheduler.CyclicLR(_opt(T), [0.01], 0.1),
    "onecycle_no_total": lambda T: T.optim.lr_scheduler.OneCycleLR(_opt(T), 0.1),
    "onecycle_total_steps": lambda T: T.optim.lr_scheduler.OneCycleLR(_opt(T), 0.1, total_steps=0),
    "onecycle_epochs": lambda T: T.optim.lr_scheduler.OneCycleLR(_opt(T), 0.1, epochs=-1, steps_per_epoch=2),
    "onecycle_pct": lambda T: T.optim.lr_scheduler.OneCycleLR(_opt(T), 0.1, total_steps=10, pct_start=1.5),
    "onecycle_anneal": lambda T: T.optim.lr_scheduler.OneCycleLR(_opt(T), 0.1, total_steps=10,
                                                                 anneal_strategy="exp"),
    "onecycle_past_end": lambda T: (lambda s: [s.step() for _ in range(4)])(
        T.optim.lr_scheduler.OneCycleLR(_opt(T), 0.1, total_steps=3)),
    "sequential_empty": lambda T: T.optim.lr_scheduler.SequentialLR(_opt(T), [], []),
    "sequential_milestones": lambda T: (lambda o: T.optim.lr_scheduler.SequentialLR(
        o, [T.optim.lr_scheduler.StepLR(o, 2), T.optim.lr_scheduler.StepLR(o, 3)],
        milestones=[1, 2]))(_opt(T)),
    "sequential_other_optimizer": lambda T: T.optim.lr_scheduler.SequentialLR(
        _opt(T), [T.optim.lr_scheduler.StepLR(_opt(T), 2)], milestones=[]),
    "sequential_plateau": lambda T: (lambda o: T.optim.lr_scheduler.SequentialLR(
        o, [T.optim.lr_scheduler.ReduceLROnPlateau(o)], milestones=[]))(_opt(T)),
    "chained_empty": lambda T: T.optim.lr_scheduler.ChainedScheduler([]),
    "chained_no_optimizer_attr": lambda T: T.optim.lr_scheduler.ChainedScheduler([object()]),
    "plateau_factor": lambda T: T.optim.lr_scheduler.ReduceLROnPlateau(_opt(T), factor=1.0),
    "plateau_mode": lambda T: T.optim.lr_scheduler.ReduceLROnPlateau(_opt(T), mode="up"),
    "plateau_threshold_mode": lambda T: T.optim.lr_scheduler.ReduceLROnPlateau(_opt(T), threshold_mode="x"),
    "plateau_min_lrs": lambda T: T.optim.lr_scheduler.ReduceLROnPlateau(_opt(T), min_lr=[0.1]),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    _err(ERRORS[case])


def test_closed_form_cosine_matches_formula():
    """A sanity check on the reference itself: CosineAnnealingLR's recursive form follows the closed form."""
    seq, _, _ = _sequence(torchshim, "CosineAnnealingLR", steps=30)
    for epoch, (last, _) in enumerate(seq):
        want = 0.001 + (0.1 - 0.001) * (1 + math.cos(math.pi * epoch / 30)) / 2
        assert math.isclose(last[0], want, rel_tol=1e-12)

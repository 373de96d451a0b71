"""torch.jit as XLA programs: trace / script / save / load against real PyTorch 2.13 on the same weights."""
import warnings

import numpy as np
import pytest
import torch

import torchshim

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _to_shim(sd):
    return {k: torchshim.tensor(v.detach().numpy()) for k, v in sd.items()}


def _np(t):
    return t.detach().numpy()


def _mlp(T):
    return T.nn.Sequential(T.nn.Linear(6, 16), T.nn.ReLU(), T.nn.Linear(16, 3))


def _cnn(T):
    return T.nn.Sequential(T.nn.Conv2d(2, 4, 3, padding=1), T.nn.ReLU(), T.nn.MaxPool2d(2),
                           T.nn.Flatten(), T.nn.Linear(4 * 4 * 4, 5))


def _bn(T):
    return T.nn.Sequential(T.nn.Linear(5, 7), T.nn.BatchNorm1d(7), T.nn.ReLU())


def _pair(build, shape, seed=0):
    torch.manual_seed(seed)
    ref = build(torch)
    mine = build(torchshim)
    mine.load_state_dict(_to_shim(ref.state_dict()))
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ref, mine, torch.tensor(x), torchshim.tensor(x)


def _warm_bn(ref, mine):
    """Non-trivial running statistics, then eval mode."""
    for m in (ref, mine):
        m[1].running_mean.fill_(0.3)
        m[1].running_var.fill_(2.0)
        m.eval()


@pytest.mark.parametrize("case", ["mlp", "cnn", "bn_eval"])
@pytest.mark.parametrize("how", ["trace", "script"])
def test_module_program_equals_torch(case, how):
    build, shape = {"mlp": (_mlp, (4, 6)), "cnn": (_cnn, (3, 2, 8, 8)), "bn_eval": (_bn, (4, 5))}[case]
    ref, mine, xr, xm = _pair(build, shape)
    if case == "bn_eval":
        _warm_bn(ref, mine)
    r = torch.jit.trace(ref, xr) if how == "trace" else torch.jit.script(ref)
    m = torchshim.jit.trace(mine, xm) if how == "trace" else torchshim.jit.script(mine)
    np.testing.assert_allclose(_np(m(xm)), _np(r(xr)), rtol=1e-5, atol=1e-5)
    assert type(m).__name__ == type(r).__name__
    assert isinstance(m, torchshim.jit.ScriptModule)
    assert list(m.state_dict()) == list(r.state_dict())
    assert m._jit_program.traces == 1  # one program, built from the example / first call


@pytest.mark.parametrize("how", ["trace", "script"])
def test_gradients_through_program_equal_torch(how):
    ref, mine, xr, xm = _pair(_mlp, (4, 6))
    xr.requires_grad_(True)
    xm.requires_grad_(True)
    r = torch.jit.trace(ref, xr) if how == "trace" else torch.jit.script(ref)
    m = torchshim.jit.trace(mine, xm) if how == "trace" else torchshim.jit.script(mine)
    (r(xr) ** 2).sum().backward()
    (m(xm) ** 2).sum().backward()
    np.testing.assert_allclose(_np(xm.grad), _np(xr.grad), rtol=1e-5, atol=1e-6)
    for (n, p), (_, q) in zip(mine.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(_np(p.grad), _np(q.grad), rtol=1e-5, atol=1e-6, err_msg=n)


def test_load_state_dict_after_trace_is_seen():
    ref, mine, xr, xm = _pair(_mlp, (2, 6))
    r = torch.jit.trace(ref, xr)
    m = torchshim.jit.trace(mine, xm)
    torch.manual_seed(5)
    new = _mlp(torch).state_dict()
    r.load_state_dict(new)
    m.load_state_dict(_to_shim(new))
    np.testing.assert_allclose(_np(m(xm)), _np(r(xr)), rtol=1e-5, atol=1e-6)
    assert m._jit_program.traces == 1  # parameters are inputs: no retrace


def test_batchnorm_train_trace_updates_running_stats_as_torch():
    ref, mine, xr, xm = _pair(_bn, (6, 5))
    r = torch.jit.trace(ref, xr, check_trace=False)
    m = torchshim.jit.trace(mine, xm, check_trace=False)
    out_r, out_m = r(xr * 2), m(xm * 2)
    np.testing.assert_allclose(_np(out_m), _np(out_r), rtol=1e-5, atol=1e-5)
    for k in ("1.running_mean", "1.running_var", "1.num_batches_tracked"):
        np.testing.assert_allclose(_np(mine.state_dict()[k]), _np(ref.state_dict()[k]), rtol=1e-5, atol=1e-6)


def _branchy(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


def test_trace_freezes_control_flow_with_tracer_warning():
    got = {}
    for T in (torch, torchshim):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f = T.jit.trace(_branchy, T.ones(3))
        msgs = sorted({str(x.message) for x in w if issubclass(x.category, T.jit.TracerWarning)})
        got[T] = (msgs, f(-T.ones(3)).tolist(), f(-T.ones(5)).tolist(), type(f).__name__)
    assert got[torch] == got[torchshim]
    assert got[torch][1] == [-2.0, -2.0, -2.0]  # the branch of the example input


def test_trace_item_frozen_as_torch():
    def g(x):
        return x * x.sum().item()
    outs = []
    for T in (torch, torchshim):
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            outs.append(T.jit.trace(g, T.ones(3), check_trace=False)(2 * T.ones(3)).tolist())
    assert outs[0] == outs[1] == [6.0, 6.0, 6.0]


def test_script_follows_python_control_flow():
    outs = []
    for T in (torch, torchshim):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = T.jit.script(_branchy)
            outs.append((s(T.ones(3)).tolist(), s(-T.ones(3)).tolist()))
    assert outs[0] == outs[1] == ([2.0, 2.0, 2.0], [-2.0, -2.0, -2.0])


def test_retrace_only_when_signature_changes():
    m = torchshim.jit.trace(_mlp(torchshim), torchshim.ones(2, 6))
    prog = m._jit_program
    m(torchshim.randn(2, 6))
    assert prog.traces == 1
    m(torchshim.randn(7, 6))
    assert prog.traces == 2  # a new batch size: a new program
    m(torchshim.randn(7, 6))
    m.eval()
    m(torchshim.randn(7, 6))
    assert prog.traces == 3  # training flag is part of the signature
    s = torchshim.jit.script(lambda x, k: x * k)
    s(torchshim.ones(2), 2)
    s(torchshim.ones(2), 2)
    s(torchshim.ones(2), 3)
    assert s._jit_program.traces == 2  # Python arguments are specialised


def test_is_scripting_inside_scripted_function():
    seen = []

    def f(x):
        seen.append(torchshim.jit.is_scripting())
        return x + 1
    torchshim.jit.script(f)(torchshim.ones(1))
    assert seen and all(seen) and not torchshim.jit.is_scripting()


def test_graph_and_code_show_the_program():
    m = torchshim.jit.trace(_mlp(torchshim), torchshim.ones(2, 6))
    assert "f32[16,6]" in str(m.graph) and "f32[2,6]" in str(m.graph)
    code = m.code
    assert code.startswith("def forward(self, input")
    assert "self.0.weight" in code and "relu" in code
    f = torchshim.jit.trace(_branchy, torchshim.ones(3))
    assert "mul" in str(f.graph) and f.code.startswith("def _branchy(")


@pytest.mark.parametrize("case", ["mlp", "cnn", "bn_eval"])
def test_save_load_round_trip(case, tmp_path):
    build, shape = {"mlp": (_mlp, (4, 6)), "cnn": (_cnn, (3, 2, 8, 8)), "bn_eval": (_bn, (4, 5))}[case]
    ref, mine, xr, xm = _pair(build, shape)
    if case == "bn_eval":
        _warm_bn(ref, mine)
    m = torchshim.jit.trace(mine, xm)
    path = str(tmp_path / "m.pt")
    torchshim.jit.save(m, path)
    loaded = torchshim.jit.load(path)
    assert type(loaded).__name__ == "RecursiveScriptModule"
    np.testing.assert_allclose(_np(loaded(xm)), _np(torch.jit.trace(ref, xr)(xr)), rtol=1e-5, atol=1e-5)
    a, b = loaded.state_dict(), m.state_dict()
    assert list(a) == list(b)
    for k in a:
        np.testing.assert_array_equal(_np(a[k]), _np(b[k]))
    # the loaded program reads its parameters at each call, and is differentiable
    loaded.load_state_dict({k: v * 0.5 if v.dtype.is_floating_point else v for k, v in a.items()})
    mine.load_state_dict({k: v * 0.5 if v.dtype.is_floating_point else v for k, v in b.items()})
    np.testing.assert_allclose(_np(loaded(xm)), _np(mine(xm)), rtol=1e-5, atol=1e-5)
    loaded(xm).sum().backward()
    mine.zero_grad()
    mine(xm).sum().backward()
    for (n, p), (_, q) in zip(loaded.named_parameters(), mine.named_parameters()):
        np.testing.assert_allclose(_np(p.grad), _np(q.grad), rtol=1e-5, atol=1e-6, err_msg=n)


def test_saved_program_has_fixed_shapes(tmp_path):
    m = torchshim.jit.trace(_mlp(torchshim), torchshim.ones(2, 6))
    m.save(str(tmp_path / "m.pt"))
    loaded = torchshim.jit.load(str(tmp_path / "m.pt"))
    with pytest.raises(RuntimeError, match="has the shapes it was traced with"):
        loaded(torchshim.ones(3, 6))


def test_save_load_function_and_extra_files(tmp_path):
    f = torchshim.jit.trace(lambda x, y: (x + y, x * y), (torchshim.ones(2), torchshim.full((2,), 3.0)))
    path = str(tmp_path / "f.pt")
    torchshim.jit.save(f, path, _extra_files={"note.txt": "hello"})
    extra = {"note.txt": ""}
    g = torchshim.jit.load(path, _extra_files=extra)
    a, b = g(torchshim.tensor([1.0, 2.0]), torchshim.tensor([3.0, 4.0]))
    assert a.tolist() == [4.0, 6.0] and b.tolist() == [3.0, 8.0] and extra["note.txt"] == "hello"


def test_example_input_keyword_type_error():
    errs = []
    for T in (torch, torchshim):
        with pytest.raises(TypeError) as e:
            T.jit.trace(_branchy, example_input=T.ones(2))
        errs.append(str(e.value))
    assert errs[0] == errs[1]


def test_loading_a_real_torchscript_file(tmp_path):
    path = str(tmp_path / "real.pt")
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), path)
    with pytest.raises(RuntimeError, match="TorchScript archive written by PyTorch"):
        torchshim.jit.load(path)


def test_loading_non_archives_as_torch():
    import io
    buf = io.BytesIO()
    torchshim.save({"a": torchshim.ones(1)}, buf)
    errs = []
    for T in (torch, torchshim):
        for data in (buf.getvalue(), b"not a zip"):
            with pytest.raises(RuntimeError) as e:
                T.jit.load(io.BytesIO(data))
            errs.append((T.__name__, str(e.value)))
    assert [m for _, m in errs[:2]] == [m for _, m in errs[2:]]


def test_check_inputs_divergence_raises_tracing_check_error():
    for T in (torch, torchshim):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(T.jit.TracingCheckError, match="Graphs differed across invocations"):
                T.jit.trace(_branchy, T.ones(3), check_inputs=[(-T.ones(3),)])


def test_nondeterministic_trace_warns_as_torch():
    def h(x):
        return x + T.rand(3)
    got = []
    for T in (torch, torchshim):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.jit.trace(h, T.ones(3))
        got.append(sorted(str(x.message).split("\n")[0] for x in w if x.category is T.jit.TracerWarning))
    assert got[0] == got[1]


def test_dropout_program_draws_fresh_numbers():
    torchshim.manual_seed(0)
    m = torchshim.nn.Dropout(0.5)
    t = torchshim.jit.trace(m, torchshim.ones(100), check_trace=False)
    a, b = t(torchshim.ones(100)), t(torchshim.ones(100))
    assert not torch.equal(torch.tensor(a.numpy()), torch.tensor(b.numpy()))


@pytest.mark.parametrize("case", ["dict", "int"])
def test_output_errors_as_torch(case):
    fn = {"dict": lambda x: {"a": x}, "int": lambda x: 3}[case]
    errs = []
    for T in (torch, torchshim):
        with pytest.raises(RuntimeError) as e:
            T.jit.trace(fn, T.ones(2))
        errs.append(str(e.value))
    assert errs[0] == errs[1]


def test_freeze_and_optimize_for_inference():
    outs = []
    for T in (torch, torchshim):
        torch.manual_seed(0)
        ref = _bn(torch).eval()
        mod = ref if T is torch else _bn(torchshim).eval()
        if T is torchshim:
            mod.load_state_dict(_to_shim(ref.state_dict()))
        fz = T.jit.freeze(T.jit.script(mod))
        oi = T.jit.optimize_for_inference(T.jit.script(mod))
        x = T.tensor(np.linspace(-1, 1, 10, dtype=np.float32).reshape(2, 5))
        outs.append((type(fz).__name__, len(list(fz.parameters())), list(fz.state_dict()),
                     np.round(_np(fz(x)), 5).tolist(), np.round(_np(oi(x)), 5).tolist()))
    assert outs[0] == outs[1]

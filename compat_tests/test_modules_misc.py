"""The modules scripts import before the issues that make them whole: torch.jit, torch.compile /
torch.compiler, torch.distributed (+ DistributedDataParallel), torch.onnx, torch.profiler (+
torch.autograd.profiler) and torch.hub — each against real PyTorch 2.13 on this machine where the behaviour
is shared, and against its documented difference (docs/differences.md) where not."""
import gzip
import json
import os
import re
import warnings

import numpy as np
import pytest
import torch

import torchshim

LIBS = (torch, torchshim)


def _plain(x):
    if isinstance(x, (torch.Tensor, torchshim.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.detach().numpy().tolist())
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _outcome(fn, T):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r, err = _plain(fn(T)), None
        except Exception as e:  # noqa: BLE001
            r, err = None, (type(e).__name__, str(e))
    return r, err, sorted({(x.category.__name__, str(x.message)) for x in w
                           if not str(x.message).startswith("`torch.jit.script_method`")})


def both(fn, errors_only_type=False):
    a, b = (_outcome(fn, T) for T in LIBS)
    if errors_only_type and a[1] is not None and b[1] is not None:
        a, b = (a[0], a[1][0], a[2]), (b[0], b[1][0], b[2])
    assert a == b, f"torch: {a}\ntorchshim: {b}"
    return a


def _lin(T):
    T.manual_seed(0)
    m = T.nn.Linear(3, 2)
    with T.no_grad():
        m.weight.copy_(T.tensor([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]]))
        m.bias.copy_(T.tensor([0.01, -0.02]))
    return m


# ---- torch.jit ---------------------------------------------------------------------------------------------
def _double(x):
    return x * 2


def test_jit_script_function():
    both(lambda T: (T.jit.script(_double)(T.ones(2)), type(T.jit.script(_double)).__name__))


def test_jit_script_module_shares_parameters():
    def f(T):
        m = _lin(T)
        s = T.jit.script(m)
        x = T.tensor([[1.0, 2.0, 3.0]])
        return (s(x), s.weight is m.weight, list(s.state_dict()), isinstance(s, T.jit.ScriptModule),
                isinstance(s, T.nn.Module), type(s).__name__, s.original_name)
    both(f)


def test_jit_trace():
    def f(T):
        m = _lin(T)
        x = T.tensor([[1.0, 2.0, 3.0]])
        t = T.jit.trace(m, x)
        tf = T.jit.trace(_double, T.ones(2))
        return t(x), isinstance(t, T.jit.ScriptModule), tf(T.ones(3)), type(tf).__name__
    both(f)


def test_jit_is_tracing_inside_trace():
    def f(T):
        seen = []

        def g(x):
            seen.append((T.jit.is_tracing(), T.jit.is_scripting()))
            return x + 1
        T.jit.trace(g, T.ones(1))
        return seen[0], T.jit.is_tracing(), T.jit.is_scripting()
    both(f)


@pytest.mark.parametrize("case", ["script_int", "trace_int", "script_builtin_class"])
def test_jit_errors(case):
    call = {"script_int": lambda T: T.jit.script(3), "trace_int": lambda T: T.jit.trace(3, T.ones(1)),
            "script_builtin_class": lambda T: T.jit.script(int)}[case]
    both(call)


def test_jit_eager_helpers():
    def f(T):
        class M(T.nn.Module):
            c: T.jit.Final[int] = 3

            def forward(self, x):
                return x + self.helper() + self.helper2() + self.helper3()

            @T.jit.ignore
            def helper(self):
                return 1

            @T.jit.unused
            def helper2(self):
                return 2

            @T.jit.export
            def helper3(self):
                return 3

        fut = T.jit.fork(_double, T.ones(2))
        with T.jit.optimized_execution(True):
            pass
        return (M()(T.zeros(1)), T.jit.annotate(int, 4), T.jit.wait(fut), M.c,
                T.jit.isinstance([1, 2], list[int]), T.jit.isinstance({"a": 1}, dict[str, int]),
                T.jit.isinstance([1, "a"], list[int]))
    both(f)


def test_jit_freeze_checks():
    both(lambda T: T.jit.freeze(_lin(T)))
    both(lambda T: T.jit.freeze(T.jit.script(_lin(T))))


def test_jit_save_load_round_trip(tmp_path):
    """torchshim writes its own program archive (compat_tests/test_jit_programs.py has the full tests)."""
    with pytest.warns(DeprecationWarning):
        torchshim.jit.save(torchshim.jit.trace(_lin(torchshim), torchshim.ones(1, 3)), str(tmp_path / "m.pt"))
    loaded = torchshim.jit.load(str(tmp_path / "m.pt"))
    assert loaded(torchshim.ones(1, 3)).tolist() == _lin(torchshim)(torchshim.ones(1, 3)).tolist()


# ---- torch.compile / torch.compiler ------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"backend": "nonexistent"}, {"mode": "foo"}, {"backend": "eager"},
                                    {"mode": "default", "options": {"a": 1}}, {"mode": "max-autotune"},
                                    {"backend": "aot_eager", "fullgraph": True, "dynamic": True}])
def test_compile_function(kwargs):
    def f(T):
        g = T.compile(_double, **kwargs)
        return g(T.tensor([1.0, 2.0])), g.__name__
    both(f)


def test_compile_decorator_and_module():
    def f(T):
        @T.compile(mode="reduce-overhead")
        def g(x):
            return x + 1
        m = _lin(T)
        c = T.compile(m)
        x = T.tensor([[1.0, 2.0, 3.0]])
        m2 = _lin(T)
        m2.compile()
        return (g(T.ones(2)), c(x), type(c).__name__, c._orig_mod is m, list(c.state_dict()),
                c.weight is m.weight,
                m2(x), isinstance(c, T.nn.Module))
    both(f)


def test_compile_not_callable():
    both(lambda T: T.compile(3))


def test_compiler_namespace():
    def f(T):
        g = T.compiler.disable(_double)
        return (T.compiler.is_compiling(), T.compiler.is_dynamo_compiling(), g(T.ones(1)),
                T.compiler.allow_in_graph(_double)(T.ones(1)),
                T.compiler.assume_constant_result(_double)(T.ones(1)),
                T.compiler.reset(), T.compiler.list_backends(),
                sorted(T.compiler.list_backends(exclude_tags=None))
                == sorted(T._dynamo.list_backends(exclude_tags=()))
                if T is torch else True)
    both(f)


# ---- torch.distributed -------------------------------------------------------------------------------------
def test_distributed_availability(monkeypatch):
    both(lambda T: T.distributed.is_available())
    both(lambda T: T.distributed.is_initialized())
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"):
        monkeypatch.delenv(var, raising=False)
    both(lambda T: T.distributed.init_process_group("gloo"))  # env:// without RANK: PyTorch's ValueError


@pytest.mark.parametrize("call", [
    lambda T: T.distributed.get_rank(), lambda T: T.distributed.get_world_size(),
    lambda T: T.distributed.barrier(), lambda T: T.distributed.all_reduce(T.ones(1)),
    lambda T: T.distributed.broadcast(T.ones(1), 0),
    lambda T: T.distributed.all_gather([T.ones(1)], T.ones(1)),
    lambda T: T.distributed.new_group([0]), lambda T: T.distributed.destroy_process_group(),
    lambda T: T.distributed.get_backend(),
    lambda T: T.nn.parallel.DistributedDataParallel(T.nn.Linear(2, 2)),
])
def test_distributed_without_process_group(call):
    both(call)


def test_distributed_names():
    def f(T):
        d = T.distributed
        ops = [str(getattr(d.ReduceOp, n))
               for n in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")]
        return (ops, int(d.ReduceOp.SUM.value if hasattr(d.ReduceOp.SUM, "value") else d.ReduceOp.SUM),
                d.ReduceOp.SUM == d.ReduceOp.RedOpType.SUM, d.Backend("GLOO"), d.Backend.NCCL,
                d.GroupMember.WORLD,
                d.group.WORLD, d.is_nccl_available(), d.is_mpi_available(), d.is_torchelastic_launched())
    both(f)


# ---- torch.onnx --------------------------------------------------------------------------------------------
def test_onnx():
    assert torchshim.onnx.is_in_onnx_export() is False and torch.onnx.is_in_onnx_export() is False
    with pytest.raises(torchshim.onnx.OnnxExporterError, match="cannot export to ONNX"):
        torchshim.onnx.export(_lin(torchshim), (torchshim.ones(1, 3),), "/nonexistent/m.onnx")
    assert issubclass(torchshim.onnx.OnnxExporterError, RuntimeError)
    assert issubclass(torch.onnx.OnnxExporterError, RuntimeError)

    def f(T):
        m = _lin(T)
        with T.onnx.select_model_mode_for_export(m, T.onnx.TrainingMode.EVAL):
            inside = m.training
        modes = [int(getattr(T.onnx.TrainingMode, n)) for n in ("EVAL", "PRESERVE", "TRAINING")]
        kinds = [int(getattr(T.onnx.OperatorExportTypes, n))
                 for n in ("ONNX", "ONNX_ATEN", "ONNX_ATEN_FALLBACK",
                                                                         "ONNX_FALLTHROUGH")]
        return inside, m.training, T.onnx.producer_name, modes, kinds
    both(f)


# ---- torch.profiler ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [dict(wait=1, warmup=1, active=2, repeat=1, skip_first=1),
                                  dict(wait=0, warmup=0, active=1),
                                  dict(wait=2, warmup=1, active=3, repeat=2),
                                  dict(wait=1, warmup=1, active=1, skip_first_wait=1, repeat=2),
                                  dict(wait=-1, warmup=0, active=1), dict(wait=0, warmup=0, active=0)])
def test_profiler_schedule(args):
    both(lambda T: [a.name for a in map(T.profiler.schedule(**args), range(14))])


def test_profiler_names():
    acts = ("CPU", "XPU", "MTIA", "CUDA", "HPU", "PrivateUse1")  # a pybind11 enum in torch: not iterable
    both(lambda T: ([a.name for a in T.profiler.ProfilerAction],
                    [getattr(T.profiler.ProfilerActivity, n).name for n in acts],
                    [a.name for a in T.profiler.supported_activities()]))


def _profiled_run(T, **kwargs):
    traces = []
    kwargs.setdefault("on_trace_ready", lambda p: traces.append(
        sorted((e.key, e.count) for e in p.key_averages() if not e.key.startswith("aten::")
               and e.key not in ("cudaDeviceSynchronize",))))
    with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU], **kwargs) as prof:
        for _ in range(7):
            with T.profiler.record_function("step_work"):
                with T.profiler.record_function("inner"):
                    T.ones(4) + 1
            prof.step()
    return traces


@pytest.mark.parametrize("sched", [None, dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2,
                                                                               repeat=1),
                                   dict(wait=0, warmup=1, active=1, skip_first=2)])
@pytest.mark.parametrize("acc_events", [False, True])
def test_profiler_schedule_and_trace_ready(sched, acc_events):
    """on_trace_ready runs at the end of each active span, with the record_function counts of that span
    (ProfilerStep#N merged as ProfilerStep*); acc_events=True keeps the events of earlier spans. (PyTorch's
    warn-once "Profiler clears events" warning depends on test order: warnings are not compared.)"""
    def f(T):
        kw = {} if sched is None else {"schedule": T.profiler.schedule(**sched)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _profiled_run(T, acc_events=acc_events, **kw)
    both(f)


def test_profiler_table_and_times():
    with torchshim.profiler.profile() as prof:
        with torchshim.profiler.record_function("outer"):
            for _ in range(3):
                with torchshim.profiler.record_function("inner"):
                    torchshim.ones(10) + 1
    rows = {e.key: e for e in prof.key_averages()}
    assert rows["outer"].count == 1 and rows["inner"].count == 3
    assert rows["outer"].cpu_time_total >= rows["inner"].cpu_time_total > 0
    outer = rows["outer"]
    assert abs(outer.self_cpu_time_total - (outer.cpu_time_total - rows["inner"].cpu_time_total)) < 1
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    lines = table.splitlines()
    header = [c.strip() for c in re.split(r"\s{2,}", lines[1].strip())]
    assert header == ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                      "# of Calls"]
    assert lines[3].split()[0] == "outer" and lines[4].split()[0] == "inner" and lines[4].split()[-1] == "3"
    assert lines[-1].startswith("Self CPU time total:") and table.endswith("\n")
    # the same layout as PyTorch's table
    with torch.profiler.profile() as tprof:
        with torch.profiler.record_function("outer"):
            pass
    assert tprof.key_averages().table().splitlines()[1].split() == lines[1].split()


def test_profiler_chrome_trace(tmp_path):
    with torchshim.profiler.profile() as prof:
        with torchshim.profiler.record_function("a"):
            with torchshim.profiler.record_function("b"):
                pass
    for name in ("t.json", "t.json.gz"):
        path = str(tmp_path / name)
        prof.export_chrome_trace(path)
        raw = gzip.open(path).read() if name.endswith(".gz") else open(path, "rb").read()
        events = json.loads(raw)["traceEvents"]
        by = {e["name"]: e for e in events}
        assert set(by) == {"a", "b"} and all(e["ph"] == "X" for e in events)
        a, b = by["a"], by["b"]
        assert a["ts"] <= b["ts"] and b["ts"] + b["dur"] <= a["ts"] + a["dur"]


def test_tensorboard_trace_handler(tmp_path):
    d = str(tmp_path / "tb")
    sched = torchshim.profiler.schedule(wait=0, warmup=1, active=1, repeat=2)
    with torchshim.profiler.profile(schedule=sched,
                                    on_trace_ready=torchshim.profiler.tensorboard_trace_handler(d, "w")) as p:
        for _ in range(5):
            with torchshim.profiler.record_function("x"):
                pass
            p.step()
    files = sorted(os.listdir(d))
    assert len(files) == 2 and all(re.fullmatch(r"w\.\d+\.pt\.trace\.json", f) for f in files)
    names = [e["name"] for e in json.load(open(os.path.join(d, files[0])))["traceEvents"]]
    assert "x" in names and any(n.startswith("ProfilerStep#") for n in names)


def test_record_function_decorator_and_legacy_profiler():
    def f(T):
        @T.profiler.record_function("decorated")
        def g(x):
            return x + 1
        with T.autograd.profiler.profile() as prof:
            g(T.ones(1))
            g(T.ones(1))
            with T.autograd.profiler.record_function("legacy"):
                pass
        return sorted((e.key, e.count) for e in prof.key_averages() if not e.key.startswith("aten::"))
    both(f)


def test_record_function_is_jax_annotation(monkeypatch):
    import jax
    seen = []
    real = jax.profiler.TraceAnnotation

    class Spy(real):
        def __init__(self, name, **kw):
            seen.append(name)
            super().__init__(name, **kw)
    monkeypatch.setattr(jax.profiler, "TraceAnnotation", Spy)
    with torchshim.profiler.record_function("hello"):
        pass
    assert seen == ["hello"]


# ---- torch.hub ---------------------------------------------------------------------------------------------
HUBCONF = '''dependencies = ["numpy"]
import numpy as np


def tiny(n=2, scale=1.0):
    """A tiny entry point."""
    return (np.arange(n) * scale).tolist()


def _private():
    return 0


constant = 3
'''


@pytest.fixture()
def hub_env(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text(HUBCONF)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "hubconf.py").write_text("dependencies = ['no_such_package_xyz']\ndef m():\n    return 1\n")
    cache = tmp_path / "hubcache"
    cache.mkdir()
    cached = cache / "someone_proj_main"  # a GitHub repo already in the hub cache
    cached.mkdir()
    (cached / "hubconf.py").write_text(HUBCONF)
    saved = [T.hub.get_dir() for T in LIBS]
    for T in LIBS:
        T.hub.set_dir(str(cache))
    yield tmp_path
    for T, d in zip(LIBS, saved):
        T.hub.set_dir(d)


@pytest.mark.parametrize("call", [
    lambda T, p: T.hub.load(str(p / "repo"), "tiny", 3, source="local", scale=2.0),
    lambda T, p: T.hub.load(str(p / "repo"), "nope", source="local"),
    lambda T, p: T.hub.load(str(p / "repo"), "constant", source="local"),
    lambda T, p: T.hub.load(str(p / "repo"), 3, source="local"),
    lambda T, p: T.hub.load(str(p / "repo"), "tiny", source="ftp"),
    lambda T, p: T.hub.load(str(p / "bad"), "m", source="local"),
    lambda T, p: T.hub.load(str(p / "nonexistent"), "m", source="local"),
    lambda T, p: T.hub.list("someone/proj:main", trust_repo=True, verbose=False),
    lambda T, p: T.hub.help("someone/proj:main", "tiny", trust_repo=True),
    lambda T, p: T.hub.load("someone/proj:main", "tiny", 4, trust_repo=True, verbose=False),
    lambda T, p: (T.hub.get_dir() == str(p / "hubcache"), T.hub.HASH_REGEX.pattern, T.hub.MODULE_HUBCONF,
                  T.hub.VAR_DEPENDENCY),
])
def test_hub_local(hub_env, call):
    a, b = (_outcome(lambda T: call(T, hub_env), T) for T in LIBS)
    # FileNotFoundError text names the tmp folder in both; compare fully
    assert a == b, f"torch: {a}\ntorchshim: {b}"


@pytest.mark.parametrize("answer", ["y", "n", "", "maybe"])
def test_hub_trust_prompt(hub_env, monkeypatch, answer):
    """trust_repo=False asks (input); 'y' proceeds, 'n'/'' refuse, anything else is a ValueError; a repo
    already in the cache counts as trusted, so nothing is added to <hub dir>/trusted_list."""
    import builtins
    prompts = []
    monkeypatch.setattr(builtins, "input", lambda msg: prompts.append(msg) or answer)
    both(lambda T: T.hub.list("someone/proj:main", trust_repo=False, verbose=False))
    assert len(prompts) == 2 and "someone_proj does not belong to the list of trusted" in prompts[0]
    assert open(os.path.join(str(hub_env / "hubcache"), "trusted_list")).read() == ""


def test_hub_checkpoint_from_cache(hub_env):
    """A checkpoint already in <hub dir>/checkpoints loads without network, as torch.load would."""
    ckpt_dir = hub_env / "hubcache" / "checkpoints"
    ckpt_dir.mkdir()
    state = {"w": torch.arange(6.0).reshape(2, 3), "step": 7}
    torch.save(state, str(ckpt_dir / "model-abc123.pth"))
    url = "https://example.invalid/weights/model-abc123.pth"
    got = torchshim.hub.load_state_dict_from_url(url)
    ref = torch.hub.load_state_dict_from_url(url)
    assert got["step"] == ref["step"] == 7
    np.testing.assert_array_equal(got["w"].numpy(), ref["w"].numpy())
    got2 = torchshim.hub.load_state_dict_from_url("https://x.invalid/other.bin", file_name="model-abc123.pth",
                                                  weights_only=True)
    assert got2["step"] == 7


def test_hub_download_without_network_fails_fast(hub_env, monkeypatch):
    """No network: PyTorch's URLError, raised quickly (a timeout bounds every network call)."""
    import socket
    import time

    def no_network(*args, **kwargs):
        raise socket.gaierror(-2, "Name or service not known")
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    t = time.time()
    for T in LIBS:
        with pytest.raises(T.hub.URLError):
            T.hub.load_state_dict_from_url("https://example.invalid/weights/missing-0123.pth", progress=False)
        with pytest.raises(T.hub.URLError):
            T.hub.download_url_to_file("https://example.invalid/x.bin", str(hub_env / "x.bin"),
                                       progress=False)
    assert time.time() - t < 10
    both(lambda T: T.hub.load("someone/notcached", "m", trust_repo=True))
    assert not os.path.exists(hub_env / "x.bin")


# ---- a script that only mentions these modules, under `python -m torchshim run` ----------------------------
SCRIPT = '''import torch
import torch.backends.cudnn as cudnn
import torch.distributed as dist
import torch.onnx
import torch.jit
from torch.cuda.amp import GradScaler, autocast
from torch.profiler import profile, record_function, ProfilerActivity
from torch.autograd.profiler import record_function as legacy_record_function
import torch.cpu.amp
import torch.hub

cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
print("flags", cudnn.benchmark, torch.get_float32_matmul_precision(), dist.is_initialized())
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    for step in range(3):
        with record_function("train_step"):
            with torch.autocast("cpu"):
                out = model(torch.ones(5, 4))
                loss = torch.nn.functional.cross_entropy(out, torch.zeros(5, dtype=torch.long))
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
print("amp", out.dtype, loss.dtype, scaler.get_scale())
print("profile", [(e.key, e.count) for e in prof.key_averages() if e.key == "train_step"])
s = torch.jit.script(model)
c = torch.compile(model)
print("same", torch.allclose(s(torch.ones(1, 4)), c(torch.ones(1, 4))))
'''


@pytest.mark.slow
def test_script_under_torchshim_run(tmp_path):
    """The same script under real PyTorch and under `python -m torchshim run` prints the same lines."""
    import subprocess
    import sys
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    outs = []
    for cmd in ([sys.executable, str(path)], [sys.executable, "-m", "torchshim", "run", str(path)]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr[-3000:]
        outs.append(r.stdout.splitlines())
    assert outs[0] == outs[1]
    assert outs[1][0] == "flags True high False"

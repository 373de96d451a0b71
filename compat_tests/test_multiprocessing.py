"""torch.multiprocessing under torch and torchshim: the module's names (the standard library's, re-exported),
sharing strategies, `Tensor.share_memory_()` / `is_shared()`, tensors pickled by value, spawn's exceptions;
then (slow: processes) tensors through a Queue and a Pipe, `spawn` / `start_processes` with their results and
failures (ProcessRaisedException, ProcessExitedException and PyTorch's messages), and an mnist_hogwild-style
script (scripts/mnist_hogwild.py) run to the end under `python -m torchshim run` and under PyTorch."""
import multiprocessing
import os
import pickle
import re
import subprocess
import sys
import time

import pytest
import torch
import torch.multiprocessing as torch_mp

import mp_helpers as H
import torchshim
import torchshim.multiprocessing as shim_mp
from harness import check, compare_errors, compare_values

LIBS = (torch, torchshim)
lib_ids = pytest.mark.parametrize("T", LIBS, ids=lambda T: T.__name__)
HERE = os.path.dirname(os.path.abspath(__file__))
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torchshim.__file__)))


def MP(T):
    return T.multiprocessing


# ---- the module --------------------------------------------------------------------------------------------
def test_names_match_pytorch():
    assert sorted(shim_mp.__all__) == sorted(torch_mp.__all__)
    for name in multiprocessing.__all__:
        assert getattr(shim_mp, name) is getattr(multiprocessing, name), name  # the standard library's own
    for name in ("spawn", "start_processes", "ProcessContext", "SpawnContext", "ProcessRaisedException",
                 "ProcessExitedException", "ENV_VAR_PARALLEL_START"):
        assert hasattr(shim_mp, name), name
    assert shim_mp.ENV_VAR_PARALLEL_START == torch_mp.ENV_VAR_PARALLEL_START
    assert torchshim.multiprocessing is shim_mp
    spawn_module = sys.modules["torchshim.multiprocessing.spawn"]
    assert issubclass(shim_mp.ProcessRaisedException, spawn_module.ProcessException)


def test_spawn_signatures_match_pytorch():
    import inspect
    for name in ("spawn", "start_processes"):
        r, g = inspect.signature(getattr(torch_mp, name)), inspect.signature(getattr(shim_mp, name))
        assert str(g) == str(r)
    for cls, meth in (("ProcessContext", "join"), ("ProcessContext", "__init__"),
                      ("ProcessRaisedException", "__init__"), ("ProcessExitedException", "__init__")):
        r = inspect.signature(getattr(getattr(torch_mp, cls), meth))
        g = inspect.signature(getattr(getattr(shim_mp, cls), meth))
        assert list(r.parameters) == list(g.parameters), (cls, meth)


@lib_ids
def test_sharing_strategies(T):
    mp = MP(T)
    old = mp.get_sharing_strategy()
    try:
        assert old == "file_descriptor"
        assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
    finally:
        mp.set_sharing_strategy(old)


def test_bad_sharing_strategy():
    errors = []
    for T in LIBS:
        with pytest.raises(AssertionError) as info:
            MP(T).set_sharing_strategy("shm")
        errors.append(info.value)
        assert MP(T).get_sharing_strategy() == "file_descriptor"
    # the set prints its members in hash order: compare the members, not the order
    r, g = (re.sub(r"\{.*\}", lambda m: str(sorted(eval(m.group(0)))), str(e)) for e in errors)
    assert r == g


def test_exceptions_pickle_and_attributes():
    for T in LIBS:
        mp = MP(T)
        e = mp.ProcessRaisedException("msg", 1, 123)
        e2 = pickle.loads(pickle.dumps(e))
        assert (type(e2), str(e2), e2.error_index, e2.error_pid) == (type(e), "msg", 1, 123)
        x = mp.ProcessExitedException("exited", 2, 7, -9, "SIGKILL")
        x2 = pickle.loads(pickle.dumps(x))
        assert (str(x2), x2.error_index, x2.error_pid, x2.exit_code, x2.signal_name) == ("exited", 2, 7, -9,
                                                                                           "SIGKILL")


@lib_ids
def test_empty_process_context_and_spawn_context_warning(T):
    mp = MP(T)
    assert mp.ProcessContext([], []).join() is True
    with pytest.warns(UserWarning, match="SpawnContext is renamed to ProcessContext since 1.4 release."):
        assert mp.SpawnContext([], []).pids() == []


# ---- share_memory_ / is_shared / pickling ------------------------------------------------------------------
def _sharing(T):
    t = T.arange(6.0)
    before = t.is_shared()
    same = t.share_memory_() is t
    view = t[2:].view(2, 2)
    p = T.nn.Parameter(T.zeros(2))
    m = T.nn.Linear(2, 3)
    m.share_memory()
    return [before, same, t.is_shared(), view.is_shared(), t.clone().is_shared(), (t + 1).is_shared(),
            p.share_memory_() is p, p.is_shared(), [q.is_shared() for q in m.parameters()],
            T.zeros(2).is_shared()]


def test_share_memory_and_is_shared():
    assert _sharing(torchshim) == _sharing(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64", "bfloat16", "uint8"])
@pytest.mark.parametrize("pickler", ["pickle", "forking"])
def test_tensor_pickles_by_value(dtype, pickler):
    def roundtrip(T):
        t = T.arange(12).reshape(3, 4).to(getattr(T, dtype))
        if t.is_floating_point():
            t.requires_grad_(True)
        cases = (t, t[:, 1::2], t.t(), T.nn.Parameter(T.ones(2, 3)))
        if pickler == "pickle":
            out = [pickle.loads(pickle.dumps(x)) for x in cases]
        else:  # as multiprocessing sends them (views detached: non-leaf), marking sender and receiver shared
            sent = (cases[0], cases[1].detach(), cases[2].detach(), cases[3])
            out = [pickle.loads(bytes(multiprocessing.reduction.ForkingPickler.dumps(x))) for x in sent]
        return out, [x.is_shared() for x in out], [x.is_shared() for x in cases]
    ref, got = roundtrip(torch), roundtrip(torchshim)
    compare_values(ref[0], got[0])
    assert got[1:] == ref[1:]
    assert [type(g).__name__ for g in got[0]] == [type(r).__name__ for r in ref[0]]


def test_forking_pickler_refuses_non_leaf_requiring_grad():
    def fn(T):
        x = T.ones(2, requires_grad=True) * 2
        return bytes(multiprocessing.reduction.ForkingPickler.dumps(x))
    check(fn)


# ---- processes (slow) --------------------------------------------------------------------------------------
slow = pytest.mark.slow


@slow
def test_tensor_through_queue():
    def fn(T):
        ctx = MP(T).get_context("spawn")
        inq, outq, done = ctx.Queue(), ctx.Queue(), ctx.Event()
        p = ctx.Process(target=H.double_from_queue, args=(T.__name__, inq, outq, done))
        p.start()
        inq.put(T.tensor([[1.5, -2.0], [3.0, 4.25]], requires_grad=True))
        out = outq.get(timeout=120)
        done.set()
        p.join(60)
        return out, p.exitcode
    (ref, rcode), (got, gcode) = fn(torch), fn(torchshim)
    assert rcode == gcode == 0
    compare_values(ref, got)


@slow
def test_tensors_through_pipe():
    def fn(T):
        ctx = MP(T).get_context("spawn")
        parent, child = ctx.Pipe()
        p = ctx.Process(target=H.echo_pipe, args=(T.__name__, child))
        p.start()
        parent.send({"a": T.arange(5), "b": T.ones(2, 2, dtype=T.float64).share_memory_()})
        out = parent.recv()
        parent.send("received")
        p.join(60)
        return out, p.exitcode
    (ref, rcode), (got, gcode) = fn(torch), fn(torchshim)
    assert rcode == gcode == 0
    compare_values(ref, got)


@slow
def test_spawn_runs_every_process():
    def fn(T):
        ctx = MP(T).get_context("spawn")
        q, done = ctx.SimpleQueue(), ctx.Event()
        pc = MP(T).spawn(H.spawn_put, args=(T.__name__, q, T.tensor([1.0, 2.0]), done), nprocs=2, join=False)
        out = sorted((q.get() for _ in range(2)), key=lambda r: r[0])
        done.set()
        while not pc.join():
            pass
        return out, [p.exitcode for p in pc.processes]
    compare_values(fn(torch), fn(torchshim))


@slow
@pytest.mark.parametrize("how", ["raise", "exit", "kill"])
def test_spawn_failure_raised(how):
    def fn(T):
        with pytest.raises(Exception) as info:
            MP(T).spawn(H.spawn_fail, args=(T.__name__, how), nprocs=2)
        return info.value
    ref, got = fn(torch), fn(torchshim)
    assert type(got).__name__ == type(ref).__name__
    assert type(got) is getattr(shim_mp, type(ref).__name__)
    assert (got.error_index, getattr(got, "exit_code", None), getattr(got, "signal_name", None)) == \
        (ref.error_index, getattr(ref, "exit_code", None), getattr(ref, "signal_name", None))
    assert got.error_pid != os.getpid()
    if how == "raise":
        r, g = str(ref).splitlines(), str(got).splitlines()
        assert g[:4] == r[:4]  # "", "", "-- Process 1 terminated with the following error:", "Traceback ..."
        assert g[-1] == r[-1] == "ValueError: boom in process 1"
        assert any("mp_helpers.py" in line and "spawn_fail" in line for line in g)
    else:
        compare_errors(ref, got)  # "process 1 terminated with exit code 3" / "... with signal SIGKILL"


@slow
def test_start_processes_join_false_and_timeout():
    def fn(T):
        event = MP(T).get_context("spawn").Event()
        ctx = MP(T).start_processes(H.spawn_wait_for, args=(T.__name__, event), nprocs=2, join=False)
        pids = ctx.pids()
        running = ctx.join(timeout=0.2)
        event.set()
        deadline = time.monotonic() + 120
        while not ctx.join(timeout=5) and time.monotonic() < deadline:
            pass
        return type(ctx).__name__, len(pids), running, ctx.join(), [p.exitcode for p in ctx.processes]
    assert fn(torchshim) == fn(torch) == ("ProcessContext", 2, False, True, [0, 0])


@slow
def test_spawn_start_method_warning():
    for T in LIBS:
        ctx = MP(T).get_context("spawn")
        q, done = ctx.SimpleQueue(), ctx.Event()
        done.set()
        with pytest.warns(FutureWarning, match=r"This method only supports start_method=spawn \(got: fork\)"):
            MP(T).spawn(H.spawn_put, args=(T.__name__, q, 5, done), nprocs=1, start_method="fork")
        assert q.get() == (0, 5)


def _run(args, timeout=600, cwd=os.path.join(HERE, "scripts")):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_PARENT, env.get("PYTHONPATH")) if p)
    env["OMP_NUM_THREADS"] = "1"
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _shape_of_hogwild_output(out):
    """Per process, the epochs and sample counts of its training lines (losses differ: torchshim's RNG
    streams are not PyTorch's), then the other lines with numbers masked."""
    per_pid, rest = {}, []
    for line in out.splitlines():
        m = re.match(r"(\d+)\tTrain Epoch: (\d+) \[(\d+)/(\d+) \((\d+)%\)\]\tLoss: \d+\.\d{6}$", line)
        if m:
            per_pid.setdefault(m.group(1), []).append(m.groups()[1:])
        else:
            rest.append(re.sub(r"\d+(\.\d+)?", "N", line))
    return sorted(per_pid.values()), rest


@slow
def test_mnist_hogwild_script_runs_to_the_end():
    """The Hogwild example's structure: 2 processes train the shared model (each prints its progress), the
    parent tests it. Under torchshim the parent's model is not updated by the children (docs/differences.md),
    so only the shape of the output is compared with PyTorch's."""
    ref = _run(["mnist_hogwild.py"])
    assert ref.returncode == 0, ref.stderr
    got = _run(["-m", "torchshim", "run", "mnist_hogwild.py"])
    assert got.returncode == 0, got.stderr
    assert "shared: True" in got.stdout and "exit codes: [0, 0]" in got.stdout
    assert re.search(r"Test set: Average loss: \d+\.\d{4}, Accuracy: \d+/32 \(\d+%\)", got.stdout)
    assert _shape_of_hogwild_output(got.stdout) == _shape_of_hogwild_output(ref.stdout)


SPAWN_UNGUARDED = """\
import torch
import torch.multiprocessing as mp


def fn(i, t):
    pass


images = torch.zeros(256, 28, 28)  # ~800 KB of arguments
try:
    mp.spawn(fn, args=(images,), nprocs=2)
except mp.ProcessExitedException as e:
    print(type(e).__name__, e, e.error_index, e.exit_code)
"""


@slow
def test_spawn_in_unguarded_script_reports_the_dead_child(tmp_path):
    """spawn() in a script without a __main__ guard: the child dies re-running the script (multiprocessing's
    bootstrapping error) and the parent raises PyTorch's ProcessExitedException (torchshim's large arguments
    go through the start-up pipe, which multiprocessing alone would block on for good)."""
    (tmp_path / "script.py").write_text(SPAWN_UNGUARDED)
    ref = _run(["script.py"], cwd=tmp_path)
    got = _run(["-m", "torchshim", "run", "script.py"], cwd=tmp_path)
    assert ref.returncode == got.returncode == 0, got.stderr
    # which of the two dead children is reported first is a race in PyTorch (torchshim: the first, at start)
    def no_index(out):
        return re.sub(r"process \d (terminated with exit code 1) \d ", r"process I \1 I ", out)
    assert no_index(got.stdout) == no_index(ref.stdout) == \
        "ProcessExitedException process I terminated with exit code 1 I 1\n"
    assert "bootstrapping phase" in got.stderr

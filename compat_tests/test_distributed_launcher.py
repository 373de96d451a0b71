"""The launcher, torchrun's equivalent: `python -m torchshim.distributed.run`, `python -m torchshim run
--nproc_per_node N`, `torchshim.distributed.launch`, and `torch.distributed.elastic.multiprocessing.errors`.

Default cases: argument parsing, the launch plan, each worker's environment and command line, the failure
summary's format (against real PyTorch's classes). Slow cases start processes: the environment and the
failure behaviour against real torchrun on the same scripts, a worker that ignores SIGTERM, a signal to the
launcher, log streams, restarts, two nodes, and (once torchshim.distributed works) gloo all_reduce.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import torch  # the real PyTorch (the oracle)
import torch.distributed.run as real_run
from torch.distributed.elastic.multiprocessing import errors as real_errors

from torchshim._cli.commands import _is_launch
from torchshim.distributed import _launch_env, run
from torchshim.distributed.elastic.multiprocessing import errors as ts_errors

PY = sys.executable
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _args(*argv, torchshim_run=False):
    return run.parse_args(list(argv), torchshim_run=torchshim_run)


# ---------------------------------------------------------------- parsing and the plan (no processes)

def test_parser_accepts_torchruns_spellings_and_defaults():
    a = _args("--nproc_per_node", "2", "--master-port", "1234", "--node_rank", "0", "s.py", "--lr", "1")
    b = _args("--nproc-per-node=2", "--master_port=1234", "s.py", "--lr", "1")
    for x in (a, b):
        assert (x.nproc_per_node, x.master_port, x.training_script, x.training_script_args) == (
            "2", 1234, "s.py", ["--lr", "1"])
        assert (x.nnodes, x.rdzv_backend, x.rdzv_id, x.master_addr, x.max_restarts, x.monitor_interval,
                x.role, x.start_method) == ("1:1", "static", "none", "127.0.0.1", 0, 0.1, "default", "spawn")
    real = real_run.parse_args(["s.py"])
    ours = _args("s.py")
    for k in vars(real):
        assert getattr(ours, k) == getattr(real, k), k


def test_parser_pet_environment_defaults(monkeypatch):
    monkeypatch.setenv("PET_NPROC_PER_NODE", "3")
    monkeypatch.setenv("PET_STANDALONE", "1")
    a = _args("s.py")
    assert (a.nproc_per_node, a.standalone) == ("3", True)


def test_plan_single_node_is_standalone():
    for argv in (["s.py"], ["--standalone", "--master_port", "99", "s.py"]):
        plan = run.config_from_args(_args("--nproc_per_node", "1", *argv))
        assert (plan.master_addr, plan.master_port, plan.nnodes, plan.node_rank) == ("localhost", 0, 1, 0)
        assert len(plan.run_id) == 36  # a uuid4


def test_plan_static_master_port_and_endpoint():
    plan = run.config_from_args(_args("--nproc_per_node", "1", "--master_addr", "10.0.0.1",
                                      "--master_port", "29555", "s.py"))
    assert (plan.master_addr, plan.master_port, plan.run_id) == ("10.0.0.1", 29555, "none")
    plan = run.config_from_args(_args("--nproc_per_node", "1", "--rdzv_endpoint", "[::1]:29601",
                                      "--rdzv_id", "job", "s.py"))
    assert (plan.master_addr, plan.master_port, plan.run_id) == ("::1", 29601, "job")
    plan = run.config_from_args(_args("--nnodes", "2", "--node_rank", "1", "--nproc_per_node", "3",
                                      "--master_addr", "h0", "s.py"))
    assert (plan.nnodes, plan.node_rank, plan.master_addr, plan.master_port) == (2, 1, "h0", 29500)


@pytest.mark.parametrize("argv, exc, message", [
    (["--nnodes", "1:2"], ValueError, "no elastic rendezvous"),
    (["--nnodes", "2", "--rdzv_backend", "c10d", "--rdzv_endpoint", "h:1"], ValueError, "static rendezvous"),
    (["--nnodes", "2", "--node_rank", "2"], ValueError, "--node-rank 2 must be in [0, 2)"),
    (["--nnodes", "2", "--max_restarts", "1"], ValueError, "--max-restarts with --nnodes > 1"),
    (["--nproc_per_node", "xpu"], ValueError, "Xpu is not available."),
    (["--nproc_per_node", "many"], ValueError, "Unsupported nproc_per_node value: many"),
    (["--rdzv_endpoint", "host"], ValueError, "Port is absent in endpoint: host"),
    (["--rdzv_conf", "join_timeout=5"], ValueError, "--rdzv-conf"),
    (["--numa-binding", "node"], ValueError, "--numa-binding"),
    (["--event_log_handler", "console"], ValueError, "--event-log-handler"),
    (["--run_path", "--start_method", "fork"], ValueError, "start method 'spawn' only"),
    (["--no_python", "-m"], ValueError, "Don't use both the '--no-python' flag"),
    (["--nnodes", "2:1"], AssertionError, "min_nodes must be > 0 and <= max_nodes"),
    (["--max_restarts", "-1"], AssertionError, "max_restarts must be >= 0"),
    (["--nnodes", "1:2:3"], RuntimeError, 'nnodes=1:2:3 is not in "MIN:MAX" format'),
    (["--local_ranks_filter", "a"], ValueError, "--local_ranks_filter must be a comma-separated list"),
])
def test_plan_errors(argv, exc, message):
    with pytest.raises(exc) as e:
        run.config_from_args(_args(*argv, "s.py"))
    assert message in str(e.value)


def test_nproc_per_node_values(monkeypatch):
    monkeypatch.setattr(run, "_gpu_count", lambda: 0)
    cpus = len(os.sched_getaffinity(0))
    assert run.determine_local_world_size("3") == 3
    assert run.determine_local_world_size("cpu") == cpus
    assert run.determine_local_world_size("auto") == cpus
    with pytest.raises(ValueError, match="Cuda is not available."):
        run.determine_local_world_size("gpu")
    monkeypatch.setattr(run, "_gpu_count", lambda: 4)
    assert run.determine_local_world_size("gpu") == run.determine_local_world_size("auto") == 4


def test_std_parsing_matches_pytorch():
    from torch.distributed.elastic.multiprocessing.api import Std

    for v in ("0", "1", "2", "3", "0:3,1:0,2:1"):
        real = Std.from_str(v)
        ours = _launch_env.parse_std(v)
        assert (({k: int(s) for k, s in real.items()}) if isinstance(real, dict) else int(real)) == ours
    with pytest.raises(ValueError, match="does not match"):
        _launch_env.parse_std("4")


def test_worker_env_contract():
    base = {"PATH": "/bin", "CUDA_VISIBLE_DEVICES": "4,5,6"}
    env = _launch_env.worker_env(base, local_rank=1, nproc_per_node=3, node_rank=1, nnodes=2,
                                 master_addr="h0", master_port=29500, run_id="job", restart_count=2,
                                 max_restarts=3, error_file="/e/1/error.json", set_omp=True)
    expect = {"RANK": "4", "LOCAL_RANK": "1", "WORLD_SIZE": "6", "LOCAL_WORLD_SIZE": "3", "GROUP_RANK": "1",
              "GROUP_WORLD_SIZE": "2", "ROLE_NAME": "default", "ROLE_RANK": "4", "ROLE_WORLD_SIZE": "6",
              "MASTER_ADDR": "h0", "MASTER_PORT": "29500", "TORCHELASTIC_RESTART_COUNT": "2",
              "TORCHELASTIC_MAX_RESTARTS": "3", "TORCHELASTIC_RUN_ID": "job",
              "TORCHELASTIC_USE_AGENT_STORE": "False", "TORCHELASTIC_ERROR_FILE": "/e/1/error.json",
              "TORCHELASTIC_SIGNALS_TO_HANDLE": "SIGTERM,SIGINT,SIGHUP,SIGQUIT",
              "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1", "OMP_NUM_THREADS": "1", "PATH": "/bin",
              "CUDA_VISIBLE_DEVICES": "4,5,6"}
    assert env == expect
    v = _launch_env.worker_env(base, local_rank=2, nproc_per_node=3, node_rank=0, nnodes=1, master_addr="h",
                               master_port=1, run_id="r", virtual_local_rank=True)
    assert (v["LOCAL_RANK"], v["CUDA_VISIBLE_DEVICES"], v["RANK"]) == ("0", "6", "2")
    assert "OMP_NUM_THREADS" not in v
    with pytest.raises(ValueError, match="local_rank 3 exceeds available GPUs"):
        _launch_env.worker_env(base, local_rank=3, nproc_per_node=4, node_rank=0, nnodes=1, master_addr="h",
                               master_port=1, run_id="r", virtual_local_rank=True)


def test_worker_commands():
    cmd = _launch_env.worker_command
    assert cmd("s.py", ["--r=${local_rank}", "x"], local_rank=3, python="py") == ["py", "-u", "s.py", "--r=3",
                                                                                   "x"]
    assert cmd("pkg.mod", ["a"], local_rank=0, module=True, python="py") == ["py", "-u", "-m", "pkg.mod", "a"]
    assert cmd("./bin", ["a"], local_rank=0, no_python=True) == ["./bin", "a"]
    assert cmd("s.py", ["a"], local_rank=1, use_env=False, python="py") == ["py", "-u", "s.py",
                                                                           "--local-rank=1", "a"]
    assert cmd("s.py", ["a"], local_rank=0, torchshim_run=True, seed=5, python="py") == [
        "py", "-u", "-m", "torchshim", "run", "--seed", "5", "s.py", "a"]
    assert cmd("m", [], local_rank=0, module=True, torchshim_run=True, python="py")[-2:] == ["-m", "m"]
    rp = cmd("/abs/s.py", ["a"], local_rank=0, run_path=True, python="py")
    assert rp[:2] == ["py", "-c"] and rp[3:] == ["/abs/s.py", "a"]
    with pytest.raises(ValueError, match="--no-python cannot be used"):
        cmd("s.py", [], local_rank=0, no_python=True, torchshim_run=True)


def test_torchshim_run_detects_launcher_options():
    assert _is_launch(["--nproc_per_node", "2", "s.py"])
    assert _is_launch(["--seed", "1", "--standalone", "s.py"])
    assert not _is_launch(["s.py", "--nproc_per_node", "2"])
    assert not _is_launch(["--seed", "1", "-m", "mod", "--nnodes", "2"])


def _failures(mod, tmp_path):
    """A failure with an error file (rank 1) and one killed by SIGTERM (rank 0), in module `mod`'s classes."""
    ef = tmp_path / "error.json"
    tb = "Traceback (most recent call last):\n  x\nValueError: boom\n"
    ef.write_text(json.dumps({"message": {"message": "ValueError: boom", "extraInfo": {
        "py_callstack": tb, "timestamp": "1000"}}}))
    return {1: mod.ProcessFailure(local_rank=1, pid=11, exitcode=1, error_file=str(ef)),
            0: mod.ProcessFailure(local_rank=0, pid=10, exitcode=-15, error_file=str(tmp_path / "none.json")),
            3: mod.ProcessFailure(local_rank=1, pid=13, exitcode=3, error_file=str(tmp_path / "none.json"))}


def test_child_failed_error_matches_pytorch(tmp_path):
    real = real_errors.ChildFailedError("train.py", _failures(real_errors, tmp_path))
    ours = ts_errors.ChildFailedError("train.py", _failures(ts_errors, tmp_path))
    assert str(ours) == str(real)
    assert ours.get_first_failure()[0] == real.get_first_failure()[0] == 1
    for r in (0, 1, 3):
        a, b = real.failures[r], ours.failures[r]
        assert (a.message, a.error_file, a.signal_name(), a.exitcode) == (
            b.message, b.error_file, b.signal_name(), b.exitcode)
    # (PyTorch adds errorTraits to its module-level empty dict, so later failures show it too: not copied)
    assert ours.failures[1].error_file_data == real.failures[1].error_file_data


def test_record_writes_pytorchs_error_file(tmp_path, monkeypatch):
    ef = tmp_path / "e.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(ef))

    @ts_errors.record
    def main():
        raise KeyError("missing")

    with pytest.raises(KeyError):
        main()
    data = json.loads(ef.read_text())
    assert data["message"]["message"] == "KeyError: 'missing'"
    assert 'raise KeyError("missing")' in data["message"]["extraInfo"]["py_callstack"]
    assert abs(int(data["message"]["extraInfo"]["timestamp"]) - time.time()) < 60
    assert ts_errors.record(lambda: sys.exit(0))() is None
    with pytest.raises(SystemExit):
        ts_errors.record(lambda: sys.exit(2))()


def test_elastic_errors_importable_as_torch_under_alias():
    code = ("import torchshim; torchshim.install_as_torch()\n"
            "from torch.distributed.elastic.multiprocessing.errors import record, ChildFailedError\n"
            "import torch.distributed.run, torch.distributed.launch\n"
            "print(record.__module__, torch.distributed.run.main.__module__)")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["torchshim.distributed.elastic.multiprocessing.errors",
                                  "torchshim.distributed.run"]


# ---------------------------------------------------------------- launches (slow)

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch_many(cmds, cwd, timeout=90, env=None):
    """Run launcher commands side by side; [(returncode, stdout, stderr, seconds)]. On timeout kill every
    process group and fail with the output."""
    env = dict(os.environ if env is None else env, PYTHONUNBUFFERED="1")
    env.pop("OMP_NUM_THREADS", None)
    t0 = time.monotonic()
    procs = [subprocess.Popen(c, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True) for c in cmds]
    results = []
    try:
        for c, p in zip(cmds, procs):
            try:
                out, err = p.communicate(timeout=max(1.0, t0 + timeout - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, err = p.communicate()
                pytest.fail(f"launcher still running after {timeout} s: {c}\nstdout:\n{out}\nstderr:\n{err}")
            results.append((p.returncode, out, err, time.monotonic() - t0))
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    return results


def _launch(cmd, cwd, timeout=90, env=None):
    """Run one launcher command (see _launch_many)."""
    return _launch_many([cmd], cwd, timeout, env)[0]


TORCHRUN = [PY, "-m", "torch.distributed.run"]
OURS = [PY, "-m", "torchshim.distributed.run"]
ALIAS = [PY, "-m", "torchshim", "run"]

ENV_DUMP = """\
import json, os, sys
env = {k: v for k, v in os.environ.items() if k in KEYS or k.startswith("TORCHELASTIC")}
# one write per line: the ranks share the launcher's stdout, unbuffered (print's separate writes interleave)
sys.stdout.write("ENV " + json.dumps({"env": env, "argv": sys.argv[1:], "name": __name__}) + "\\n")
"""
KEYS = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_NAME",
        "ROLE_RANK", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "OMP_NUM_THREADS",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING", "CUDA_VISIBLE_DEVICES"]


def _envs(out):
    rows = [json.loads(line[4:]) for line in out.splitlines() if line.startswith("ENV ")]
    return sorted(rows, key=lambda r: int(r["env"]["RANK"]))


@pytest.mark.slow
def test_environment_matches_torchrun(tmp_path):
    """One launch with a fixed port (-m module, "${local_rank}" in the arguments), one standalone; the same
    under real torchrun. Every variable equal, except the error file's folder and the agent store."""
    (tmp_path / "envmod.py").write_text(f"KEYS = {KEYS!r}\n" + ENV_DUMP)
    port = _free_port()
    fixed = ["--nproc_per_node", "2", "--master_port", str(port), "-m", "envmod", "a", "r${local_rank}"]
    alone = ["--standalone", "--nproc-per-node=2", "envmod.py", "b"]
    results = {}
    keys = [(name, kind) for name in ("ours", "real") for kind in ("fixed", "alone")]
    launcher, argv = {"ours": OURS, "real": TORCHRUN}, {"fixed": fixed, "alone": alone}
    cmds = [launcher[name] + argv[kind] for name, kind in keys]
    for key, (rc, out, err, _) in zip(keys, _launch_many(cmds, tmp_path)):
        assert rc == 0, err
        assert "Setting OMP_NUM_THREADS environment variable for each process to be 1" in err
        results[key] = _envs(out)
    for kind in ("fixed", "alone"):
        ours, real = results["ours", kind], results["real", kind]
        assert len(ours) == len(real) == 2
        for o, r in zip(ours, real):
            assert (o["argv"], o["name"]) == (r["argv"], r["name"])
            oe, re_ = dict(o["env"]), dict(r["env"])
            for e in (oe, re_):
                assert e.pop("TORCHELASTIC_ERROR_FILE").endswith(f"/attempt_0/{e['LOCAL_RANK']}/error.json")
            assert (oe.pop("TORCHELASTIC_USE_AGENT_STORE"), re_.pop("TORCHELASTIC_USE_AGENT_STORE")) == (
                "False", "True")  # documented: no launcher-hosted store
            if kind == "alone":  # a free port and a fresh uuid each run: compare their shape
                for e in (oe, re_):
                    assert int(e.pop("MASTER_PORT")) > 0 and len(e.pop("TORCHELASTIC_RUN_ID")) == 36
            assert oe == re_
    assert results["ours", "fixed"][1]["argv"] == ["a", "r1"]


FAIL_SCRIPT = """\
import os, sys, time
from torch.distributed.elastic.multiprocessing.errors import record

@record
def main():
    if os.environ["RANK"] == "1":
        time.sleep(0.5)
        raise ValueError("boom from rank " + os.environ["RANK"])
    print("rank 0 waits forever", flush=True)
    time.sleep(1000)

main()
"""


def _summary(err):
    """(title, {root and other failures: rank -> (exitcode, error_file given, traceback first line ...)})."""
    text = err[err.index("=" * 20):]
    root = text[text.index("Root Cause"):]
    return text, root


@pytest.mark.slow
def test_failure_summary_matches_torchrun(tmp_path):
    """Rank 1 raises under @record while rank 0 sleeps forever: the launcher stops rank 0 (SIGTERM), prints
    the summary with rank 1's traceback as root cause and exits 1, as real torchrun does."""
    (tmp_path / "fail.py").write_text(FAIL_SCRIPT)
    runs = {}
    launchers = {"real": TORCHRUN, "alias": ALIAS}
    done = _launch_many([c + ["--nproc_per_node", "2", "fail.py"] for c in launchers.values()], tmp_path)
    for name, (rc, out, err, wall) in zip(launchers, done):
        assert rc == 1, (name, err)
        assert wall < 60
        runs[name] = (out, err)
    for out, err in runs.values():
        text, root = _summary(err)
        assert "fail.py FAILED" in text
        assert "rank      : 0 (local_rank: 0)" in text[:text.index("Root Cause")]
        assert "exitcode  : -15" in text and "Signal 15 (SIGTERM) received by PID" in text
        assert "rank      : 1 (local_rank: 1)" in root and "exitcode  : 1 (pid:" in root
        assert "/attempt_0/1/error.json" in root
        assert 'raise ValueError("boom from rank " + os.environ["RANK"])' in root
        assert "ValueError: boom from rank 1" in root
        assert "failed (exitcode: 1) local_rank: 1" in err and "closing signal SIGTERM" in err
        assert "ChildFailedError" in err
        assert "rank 0 waits forever" in out
    assert "torchshim" not in runs["real"][1]


IGNORE_TERM = """\
import os, signal, sys, time
if os.environ["RANK"] == "0":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("rank 0 ignores SIGTERM", flush=True)
    time.sleep(1000)
time.sleep(0.5)
sys.exit(3)
"""


@pytest.mark.slow
def test_worker_ignoring_sigterm_is_killed(tmp_path):
    """No `import torch` (plain python under torchshim.distributed.run): rank 1 exits with 3, rank 0 ignores
    SIGTERM and is SIGKILLed after --shutdown-timeout; no traceback without @record (torchrun's text)."""
    (tmp_path / "ign.py").write_text(IGNORE_TERM)
    rc, out, err, wall = _launch(OURS + ["--nproc_per_node", "2", "--shutdown-timeout", "2", "ign.py"],
                                 tmp_path)
    assert rc == 1 and wall < 30, err
    _, root = _summary(err)
    assert "rank      : 1 (local_rank: 1)" in root and "exitcode  : 3 (pid:" in root
    assert "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html" in root
    assert "Unable to shutdown process" in err and "exitcode  : -9" in err and "(SIGKILL)" in err


@pytest.mark.slow
def test_signal_to_launcher_stops_workers(tmp_path):
    (tmp_path / "sleep.py").write_text("import os, time\nprint('up', os.environ['RANK'], os.getpid(), "
                                       "flush=True)\ntime.sleep(1000)\n")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    # `python -m torchshim run -m torch.distributed.run` = torchrun with torchshim as `torch` in the workers
    p = subprocess.Popen(ALIAS + ["-m", "torch.distributed.run", "--nproc_per_node", "2", "sleep.py"],
                         cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        pids = []
        deadline = time.monotonic() + 60
        while len(pids) < 2 and time.monotonic() < deadline:
            line = p.stdout.readline()
            if line.startswith("up"):
                pids.append(int(line.split()[2]))
        assert len(pids) == 2
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 1
    assert "Received 15 death signal, shutting down workers" in err
    assert "SignalException: Process" in err and "got signal: 15" in err
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}"), "worker left running"


HELLO = "import os, sys\nprint('out', os.environ['RANK'], flush=True)\nprint('err', os.environ['RANK'], " \
        "file=sys.stderr, flush=True)\n"


@pytest.mark.slow
def test_log_streams_match_torchrun(tmp_path):
    """--tee 1 (stdout to file and console, prefixed), -r 2 (stderr to file only), --local-ranks-filter 1."""
    (tmp_path / "hello.py").write_text(HELLO)
    seen = {}
    flags = ["--nproc_per_node", "2", "--tee", "1", "-r", "2", "--local-ranks-filter", "1"]
    launchers = {"ours": OURS, "real": TORCHRUN}
    done = _launch_many([c + flags + ["--log-dir", str(tmp_path / f"logs_{n}"), "hello.py"]
                         for n, c in launchers.items()], tmp_path)
    for name, (rc, out, err, _) in zip(launchers, done):
        logs = tmp_path / f"logs_{name}"
        assert rc == 0, err
        files = {}
        for root, _, names in os.walk(logs):
            for n in names:
                rel = os.path.relpath(os.path.join(root, n), logs).split(os.sep, 1)[1]  # drop the run folder
                files[rel] = open(os.path.join(root, n)).read()
        seen[name] = (sorted(line for line in out.splitlines() if line), "err 0" in err or "err 1" in err,
                      {k: v for k, v in files.items() if not k.startswith("attempt_0/filtered")})
    assert seen["ours"] == seen["real"]
    assert seen["ours"][0] == ["[default1]:out 1"]
    assert seen["ours"][2]["attempt_0/0/stdout.log"] == "out 0\n"


RESTART = """\
import os, sys
print("attempt", os.environ["TORCHELASTIC_RESTART_COUNT"], os.environ["RANK"], flush=True)
if os.environ["TORCHELASTIC_RESTART_COUNT"] == "0" and os.environ["RANK"] == "1":
    sys.exit(5)
"""


@pytest.mark.slow
def test_max_restarts_restarts_the_group(tmp_path):
    (tmp_path / "r.py").write_text(RESTART)
    rc, out, err, _ = _launch(OURS + ["--nproc_per_node", "2", "--max_restarts", "2", "r.py"], tmp_path)
    assert rc == 0, err
    assert sorted(line for line in out.splitlines() if line.startswith("attempt 1")) == ["attempt 1 0",
                                                                                        "attempt 1 1"]
    assert "attempt 0 1" in out and "Worker group FAILED. 2/2 attempts left" in err


@pytest.mark.slow
def test_two_nodes_static_rendezvous(tmp_path):
    (tmp_path / "envmod.py").write_text(f"KEYS = {KEYS!r}\n" + ENV_DUMP)
    port = _free_port()
    common = ["--nnodes", "2", "--nproc_per_node", "2", "--master_addr", "127.0.0.1",
              "--master_port", str(port)]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    node1 = subprocess.Popen(OURS + common + ["--node_rank", "1", "envmod.py"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        rc0, out0, err0, _ = _launch(OURS + common + ["--node_rank", "0", "envmod.py"], tmp_path)
        out1, err1 = node1.communicate(timeout=90)
    finally:
        if node1.poll() is None:
            os.killpg(node1.pid, signal.SIGKILL)
    assert rc0 == 0 and node1.returncode == 0, err0 + err1
    rows = _envs(out0) + _envs(out1)
    got = [(r["env"]["RANK"], r["env"]["LOCAL_RANK"], r["env"]["GROUP_RANK"], r["env"]["WORLD_SIZE"],
            r["env"]["MASTER_PORT"]) for r in rows]
    p = str(port)
    assert got == [("0", "0", "0", "4", p), ("1", "1", "0", "4", p), ("2", "0", "1", "4", p),
                   ("3", "1", "1", "4", p)]


ALL_REDUCE = """\
import json, os, sys
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.arange(4, dtype=torch.float32) * (rank + 1)
dist.all_reduce(t)
sys.stdout.write("RESULT " + json.dumps({"rank": rank, "world": world, "sum": t.tolist(),
                                        "local": int(os.environ["LOCAL_RANK"])}) + "\\n")  # one write
if os.environ.get("DIE") and rank == 1:
    raise RuntimeError("rank 1 dies after the first all_reduce")
if os.environ.get("DIE"):
    for _ in range(1000):
        dist.all_reduce(t)
dist.destroy_process_group()
"""

_core_ready = pytest.mark.skipif(not __import__("torchshim").distributed.is_available(),
                                 reason="torchshim.distributed has no process groups yet")


@pytest.mark.slow
@_core_ready
def test_gloo_all_reduce_under_the_launcher(tmp_path):
    """`python -m torchshim run --nproc_per_node 2`: init_process_group("gloo") + all_reduce; then rank 1
    dies after the first all_reduce while rank 0 keeps reducing: the launcher exits 1 naming rank 1."""
    (tmp_path / "ar.py").write_text(ALL_REDUCE)
    rc, out, err, _ = _launch(ALIAS + ["--nproc_per_node", "2", "ar.py"], tmp_path, timeout=120)
    assert rc == 0, err
    # (jaxlib's gloo writes its "[Gloo] Rank N is connected" line in pieces: one may precede a RESULT line)
    rows = sorted((json.loads(line[line.index("RESULT ") + 7:])
                   for line in out.splitlines() if "RESULT " in line),
                  key=lambda r: r["rank"])
    expect = (torch.arange(4, dtype=torch.float32) * 1 + torch.arange(4, dtype=torch.float32) * 2).tolist()
    assert rows == [{"rank": r, "world": 2, "sum": expect, "local": r} for r in (0, 1)]
    rc, out, err, wall = _launch(ALIAS + ["--nproc_per_node", "2", "ar.py"], tmp_path, timeout=120,
                                 env=dict(os.environ, DIE="1"))
    assert rc == 1
    _, root = _summary(err)
    assert "rank      : 1 (local_rank: 1)" in root and "RuntimeError: rank 1 dies after the first" in root

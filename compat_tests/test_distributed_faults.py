"""torch.distributed when rank 0 dies: rank 0's process no longer hosts JAX's coordination service (a
process of its own does, see torchshim/distributed/_service_host.py), so the other ranks raise
DistBackendError naming rank 0 within the timeout, instead of JAX's fatal C++ log and abort; under the
launcher (`python -m torchshim run`) the run exits 1 naming rank 0 as the root cause. A clean run prints no
fault message and leaves no service process behind.

Each case starts 2 local processes (directly, or through the launcher), bounded in time: on timeout the
process groups are killed and the test fails with their output.
"""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from dist_helpers import compile_cache_env, free_port

PY = sys.executable
TIMEOUT_S = 6  # the process group's timeout in the scripts
FATAL = ("Check failure stack trace", "Terminating process because", "terminate called", "std::bad_cast",
         "Aborted")

# rank 0 SIGKILLs itself in the middle of an all_reduce loop; rank 1 keeps reducing (and must raise)
KILL0 = """\
import datetime, os, signal, sys, time
import torch
import torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=float(os.environ["T"])))
rank = dist.get_rank()
for i in range(100000):
    t = torch.ones(3)
    dist.all_reduce(t)
    assert t.tolist() == [2.0, 2.0, 2.0]
    if rank == 0 and i == 20:
        print("DYING", time.time(), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
print("LOOP-ENDED", flush=True)
"""

# under the launcher: a clean run when DIE is unset (rank 0 calls destroy_process_group, rank 1 leaves at
# interpreter exit); else rank 0 raises after 5 all_reduces
LAUNCHED = """\
import datetime, json, os, sys
import torch
import torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=float(os.environ["T"])))
rank = dist.get_rank()
for i in range(100000 if os.environ.get("DIE") else 5):
    t = torch.ones(3) * (rank + 1)
    dist.all_reduce(t)
    if os.environ.get("DIE") and rank == 0 and i == 4:
        raise RuntimeError("rank 0 dies in the all_reduce loop")
job = os.environ["MASTER_ADDR"] + ":" + os.environ["MASTER_PORT"]
sys.stdout.write("RESULT " + json.dumps({"rank": rank, "sum": t.tolist(), "job": job}) + "\\n")  # one write
sys.stdout.flush()
if rank == 0:  # rank 1 leaves at interpreter exit
    dist.destroy_process_group()
"""


def _env(extra):
    env = dict(os.environ, PYTHONUNBUFFERED="1", T=str(TIMEOUT_S), **compile_cache_env())
    env.pop("OMP_NUM_THREADS", None)
    env.update(extra)
    return env


def _kill(p):
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def _service_hosts(job):
    """pids of the service host processes of the job with rendezvous address `job` (from /proc: they are
    not our children)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if any(a.endswith(b"_service_host.py") for a in argv) and job.encode() in argv:
            found.append(int(pid))
    return found


@pytest.mark.slow
def test_rank0_killed_mid_all_reduce_rank1_raises_naming_it(tmp_path):
    (tmp_path / "kill0.py").write_text(KILL0)
    port = free_port()
    procs = []
    for r in range(2):
        env = _env(dict(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(r), WORLD_SIZE="2",
                        LOCAL_RANK=str(r), LOCAL_WORLD_SIZE="2"))
        procs.append(subprocess.Popen([PY, "-m", "torchshim", "run", "kill0.py"], cwd=tmp_path, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      start_new_session=True))
    outs = []
    try:
        for p in procs:
            try:
                outs.append(p.communicate(timeout=120)[0])
            except subprocess.TimeoutExpired:
                for q in procs:
                    _kill(q)
                pytest.fail("ran past 120 s:\n" + "\n".join(q.communicate()[0] or "" for q in procs))
        t_end1 = time.time()
    finally:
        for p in procs:
            _kill(p)
    dump = "\n".join(f"--- rank {r} rc={p.returncode}\n{o[-4000:]}"
                     for r, (p, o) in enumerate(zip(procs, outs)))
    assert procs[0].returncode == -signal.SIGKILL, dump
    assert procs[1].returncode == 1, dump
    out1 = outs[1]
    assert "LOOP-ENDED" not in out1, dump
    assert "DistBackendError" in out1 and "rank 0 is no longer running" in out1, dump
    assert not any(f in o for f in FATAL for o in outs), dump
    died = float(next(ln.split()[1] for ln in outs[0].splitlines() if ln.startswith("DYING")))
    assert t_end1 - died < 25, (t_end1 - died, dump)


def _launch(script_dir, extra, timeout=150):
    cmd = [PY, "-m", "torchshim", "run", "--nproc_per_node", "2", "run.py"]
    p = subprocess.Popen(cmd, cwd=script_dir, env=_env(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    t0 = time.monotonic()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(p)
        out, err = p.communicate()
        pytest.fail(f"launcher still running after {timeout} s\nstdout:\n{out}\nstderr:\n{err}")
    finally:
        _kill(p)
    return p.returncode, out, err, time.monotonic() - t0


@pytest.mark.slow
def test_launcher_clean_run_then_rank0_failure(tmp_path):
    (tmp_path / "run.py").write_text(LAUNCHED)
    # a clean run: the sums, no fault message, no jaxlib warning, and the service process gone afterwards
    rc, out, err, _ = _launch(tmp_path, {})
    assert rc == 0, out + err
    # (jaxlib's gloo writes its "[Gloo] Rank N is connected" line in pieces: one may precede a RESULT line)
    rows = sorted((json.loads(ln[ln.index("RESULT ") + 7:]) for ln in out.splitlines() if "RESULT " in ln),
                  key=lambda row: row["rank"])
    job = rows[0]["job"]
    assert rows == [{"rank": r, "sum": [3.0, 3.0, 3.0], "job": job} for r in (0, 1)], out
    for bad in ("no longer running", "left the job", "DistBackendError", "Traceback",
                "Using experimental recoverable task feature") + FATAL:
        assert bad not in out + err, (bad, out + err)
    deadline = time.monotonic() + 10
    while _service_hosts(job) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _service_hosts(job), "the coordination service's process outlived a clean run"

    # rank 0 raises in the loop: the launcher names rank 0 (its traceback) as the root cause and exits 1
    rc, out, err, wall = _launch(tmp_path, {"DIE": "1"})
    assert rc == 1, out + err
    text = err[err.index("=" * 20):]
    root = text[text.index("Root Cause"):]
    assert "rank      : 0 (local_rank: 0)" in root, text
    assert "RuntimeError: rank 0 dies in the all_reduce loop" in root, text
    assert not any(f in out + err for f in FATAL), out + err
    assert wall < 120, wall

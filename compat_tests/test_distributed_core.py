"""torch.distributed's core: process groups, collectives, point-to-point, the *_object forms, Work, stores,
and PyTorch's errors.

In-process tests (default session): what runs without a process group (errors before init, argument errors of
init_process_group, the stores, the enum-like names) against real PyTorch in this process.

Multi-process tests (@slow): `scripts/dist_core_worker.py` runs one scenario per launch in 2 or 4 local
processes (RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT in the environment, a free port), each launch bounded in
time (the process group is killed and the test fails with the processes' output). Every recorded value is
compared with the one computed here in one process with numpy; the 2-process scenario also runs under real
PyTorch's gloo and the two records are compared call by call (except the documented differences below).
"""
import datetime
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest
import torch

import torchshim
from dist_helpers import free_port
import torchshim.distributed as tdist

HERE = os.path.dirname(__file__)
WORKER = os.path.join(HERE, "scripts", "dist_core_worker.py")
_spec = importlib.util.spec_from_file_location("dist_core_worker", WORKER)
W = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(W)


# ----- launching --------------------------------------------------------------------------------------
def _env(rank, n, port, extra):
    env = dict(os.environ)
    env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(n),
               LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(n), PYTHONUNBUFFERED="1")
    import jax
    cache = jax.config.jax_compilation_cache_dir
    if cache and "JAX_COMPILATION_CACHE_DIR" not in env:
        env["JAX_COMPILATION_CACHE_DIR"] = cache
    env.update(extra or {})
    return env


def launch(n, scenario, impl="torchshim", extra=None, timeout=150, expect_rc=None):
    """Run the worker's scenario in n processes; [(returncode, record or None, output)] per rank."""
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="dist_core_")
    procs = []
    for r in range(n):
        out = os.path.join(tmp, f"rank{r}.json")
        log = open(os.path.join(tmp, f"rank{r}.log"), "w+")
        p = subprocess.Popen([sys.executable, WORKER, scenario, out, impl], env=_env(r, n, port, extra),
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=HERE)
        procs.append((p, out, log))
    deadline = time.monotonic() + timeout
    timed_out = False
    for p, _, _ in procs:
        try:
            p.wait(max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    results = []
    for p, out, log in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        log.seek(0)
        text = log.read()
        log.close()
        rec = json.load(open(out)) if os.path.exists(out) else None
        results.append((p.returncode, rec, text))
    if timed_out:
        pytest.fail(f"{scenario} with {n} processes ran past {timeout} s:\n" + _dump(results))
    return results


def _dump(results):
    return "\n".join(f"--- rank {r} rc={rc}\n{text[-3000:]}" for r, (rc, _, text) in enumerate(results))


def records(results):
    bad = [r for r, (rc, rec, _) in enumerate(results) if rc != 0 or rec is None]
    if bad:
        pytest.fail(f"ranks {bad} failed:\n" + _dump(results))
    return [rec["results"] for _, rec, _ in results]


# ----- the values computed in one process -------------------------------------------------------------------
def val(r, shape, dt, mod=11):
    return W.values(r, shape, dt, mod)


def _reduce(op, arrays, dt):
    a = np.stack(arrays)
    if dt == "bool":
        return {"SUM": a.any(0), "MAX": a.any(0), "BOR": a.any(0), "PRODUCT": a.all(0), "MIN": a.all(0),
                "BAND": a.all(0), "BXOR": np.logical_xor.reduce(a, 0)}[op]
    if op == "SUM":
        return a.sum(0)
    if op == "AVG":
        return a.sum(0) / len(arrays)
    if op == "PRODUCT":
        return a.prod(0)
    if op == "MIN":
        return a.min(0)
    if op == "MAX":
        return a.max(0)
    fn = {"BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}[op]
    return fn.reduce(a.astype(np.int64), 0)


def _arr(rec):
    """numpy array of a recorded tensor."""
    v = rec["values"]
    if rec["dtype"].startswith("complex"):
        v = [a + 1j * b for a, b in v]
    return np.array(v).reshape(rec["shape"])


def same(rec, expected, dtype=None):
    assert isinstance(rec, dict) and "values" in rec, rec
    if dtype is not None:
        assert rec["dtype"] == dtype, (rec["dtype"], dtype)
    got = _arr(rec)
    exp = np.asarray(expected)
    assert got.shape == exp.shape, (got.shape, exp.shape)
    np.testing.assert_allclose(got.astype(np.complex128), exp.astype(np.complex128), rtol=1e-6, atol=1e-6)


def _gloo_error(dt, op):
    """(type, message) PyTorch's gloo raises for all_reduce(dtype, op), or None."""
    if dt == "int16":
        return "RuntimeError", "Invalid scalar type"
    if dt.startswith("complex") and op not in ("SUM", "AVG"):
        return "ValueError", f"all_reduce does not support RedOpType.{op} on complex tensors"
    inexact = dt.startswith(("float", "complex")) or dt == "bfloat16"
    if op in ("BAND", "BOR", "BXOR") and inexact:
        return "RuntimeError", f"Cannot use ReduceOp.{op} with non-integral dtype"
    if op == "AVG" and not (dt.startswith("float") or dt == "bfloat16" or dt.startswith("complex")):
        short = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int32": "Int", "int64": "Long"}[dt]
        return "RuntimeError", f"result type Float can't be cast to the desired output type {short}"
    return None


def check_core(recs, n, sweep):
    """Every record of the 'core' scenario against numpy."""
    shape = (2, 3)
    checked = 0
    for r, res in enumerate(recs):
        assert res["rank_size"]["ok"] == [r, n, True, "gloo"]
        for key, v in res.items():
            parts = key.split("/")
            if parts[0] == "all_reduce" and len(parts) == 3:
                dt, op = parts[1], parts[2]
                err = _gloo_error(dt, op)
                if err:
                    assert (v.get("err"), v.get("msg")) == err, (key, v)
                else:
                    mod = 3 if op == "PRODUCT" else 11
                    assert v["ok"][0] is None, (key, v)
                    same(v["ok"][1], _reduce(op, [val(i, shape, dt, mod) for i in range(n)], dt), dt)
            elif parts[0] in ("broadcast", "all_gather", "sendrecv") and len(parts) == 2:
                dt = parts[1]
                if dt == "int16" and parts[0] != "sendrecv":
                    assert (v["err"], v["msg"]) == ("RuntimeError", "Invalid scalar type"), (key, v)
                elif parts[0] == "broadcast":
                    same(v["ok"], val(n - 1, shape, dt), dt)
                elif parts[0] == "all_gather":
                    for i in range(n):
                        same(v["ok"][i], val(i, shape, dt), dt)
                else:
                    assert v["ok"][0] == (r - 1) % n, v
                    same(v["ok"][1], val((r - 1) % n, shape, dt), dt)
            elif parts[0] == "reduce":
                if r == 1:
                    total = _reduce("SUM", [val(i, shape, parts[1]) for i in range(n)], parts[1])
                    same(v["ok"], total, parts[1])
                else:
                    assert "ok" in v, v  # PyTorch leaves other ranks' tensors unspecified
            elif parts[0] == "all_gather_into_tensor":
                same(v["ok"], np.concatenate([val(i, shape, parts[1]) for i in range(n)]), parts[1])
            elif parts[0] == "all_gather_into_tensor_stacked":
                assert v["err"] == "RuntimeError" and "invalid tensor size at index 0" in v["msg"], v
            elif parts[0] == "gather":
                if parts[1].startswith("complex"):
                    assert (v["err"], v["msg"]) == ("RuntimeError", "Invalid scalar type"), v
                elif r == 0:
                    for i in range(n):
                        same(v["ok"][i], val(i, shape, parts[1]), parts[1])
                else:
                    assert v["ok"] is None, v
            elif parts[0] == "scatter":
                same(v["ok"], val(10 + r, shape, parts[1]), parts[1])
            elif parts[0] == "reduce_scatter":
                same(v["ok"], _reduce("SUM", [val(i + 3 * r, shape, parts[1]) for i in range(n)], parts[1]),
                     parts[1])
            elif parts[0] == "reduce_scatter_tensor":
                chunks = [val(i, (2 * n, 3), parts[1])[2 * r:2 * r + 2] for i in range(n)]
                same(v["ok"], _reduce("SUM", chunks, parts[1]), parts[1])
            elif parts[0] == "reduce_scatter_tensor_op":
                op = parts[1]
                dt = "int64" if op == "BXOR" else "float32"
                chunks = [val(i, (2 * n, 3), dt, 3)[2 * r:2 * r + 2] for i in range(n)]
                same(v["ok"], _reduce(op, chunks, dt), dt)
            elif parts[0] == "all_to_all":
                for i in range(n):
                    same(v["ok"][i], val(i * n + r, shape, parts[1]), parts[1])
            elif key == "all_to_all_single/uneven":
                exp = []
                for i in range(n):
                    isp = [j + i + 1 for j in range(n)]
                    x = val(i, (sum(isp), 2), "float32")
                    off = sum(isp[:r])
                    exp.append(x[off:off + isp[r]])
                same(v["ok"], np.concatenate(exp), "float32")
            elif parts[0] == "all_to_all_single":
                got = [val(i, (2 * n, 3), parts[1])[2 * r:2 * r + 2] for i in range(n)]
                same(v["ok"], np.concatenate(got), parts[1])
            else:
                continue
            checked += 1
        # views and non-contiguous tensors: the view's elements only (PyTorch's gloo treats a non-contiguous
        # tensor's memory as contiguous and writes the wrong elements; see docs)
        base = val(r, (3, 2), "float32").copy()
        base[:, 1] = sum(val(i, (3, 2), "float32")[:, 1] for i in range(n))
        m = np.stack([val(i, (3,), "float32") for i in range(n)], axis=1)
        vw = res["views"]["ok"]
        same(vw[0], base)
        same(vw[1], m)
        same(vw[2], val(0, (2, 3), "float32").T)
        total3 = sum(val(i, (3,), "float32") for i in range(n))
        same(res["requires_grad"]["ok"][0], total3)
        assert res["requires_grad"]["ok"][1] is True
        a = res["async"]["ok"]
        total4 = sum(val(i, (4,), "float32") for i in range(n))
        assert a[:3] == ["Work", True, True] and a[6] is True, a
        same(a[3][0], total4)
        same(a[4], total4)
        same(a[5], val(0, (4,), "float32"))
        b, c, d = res["p2p_async"]["ok"]
        same(b, val((r - 1) % n, (3,), "float32"))
        same(c, 2 * val((r - 1) % n, (3,), "float32"))
        same(d, 3 * val((r + 1) % n, (3,), "float32"))
        if r == 0:
            got = res["recv_any"]["ok"]
            assert [g[0] for g in got] == list(range(1, n))
            for src, t in got:
                same(t, val(src, (2,), "float32"))
        even = [i for i in range(n) if i % 2 == 0]
        for name, ranks in (("even", even), ("last", [n - 1])):
            info = res[f"group/{name}/info"]["ok"]
            ar = res[f"group/{name}/all_reduce"]
            if r in ranks:
                assert info == [ranks.index(r), len(ranks), ranks], info
                same(ar["ok"][1], sum(val(i, (3,), "float32") for i in ranks))
                assert ar["warn"] == []
            else:
                assert info[:2] == [-1, -1], info
                same(ar["ok"][1], val(r, (3,), "float32"))
                assert ar["warn"] == [f"Running all_reduce on global rank {r} which does not belong to the "
                                      "given "
                                      f"group."], ar
        same(res["group/even/broadcast"]["ok"], val(0 if r % 2 == 0 else r, (3,), "float32"))
        if r % 2 == 0:  # a non-member's answer is about the last group it was not in (as PyTorch's)
            assert res["group/even/global_rank"]["ok"] == 0
        assert res["group/world_ranks"]["ok"] == list(range(n))
        assert res["objects/broadcast_object_list"]["ok"] == [{"rank": 0, "x": [1, 2]}, [0, "a"], None]
        assert res["objects/all_gather_object"]["ok"] == [{"r": i, "sq": i * i} for i in range(n)]
        assert res["objects/gather_object"]["ok"] == ([["obj", i] for i in range(n)] if r == n - 1 else None)
        assert res["objects/scatter_object_list"]["ok"] == [{"to": r}]
        # a collective inside torch.compile: a graph break, the call runs eagerly (warned once)
        c = res["compile_graph_break"]
        same(c["ok"][0], 2 * total3 + 1)
        same(c["ok"][1], 6 * total3 + 1)
        assert res["barrier"]["ok"] is None and res["monitored_barrier"]["ok"] is None
        assert res["err/twice"] == {"err": "ValueError", "msg": "trying to initialize the default process "
                                                                "group "
                                    "twice!", "seconds": res["err/twice"]["seconds"]}
        assert res["destroy"]["ok"] is None
        assert res["post/rank"]["err"] == "ValueError" and res["post/is_initialized"]["ok"] is False
        assert res["post/destroy"] == {"err": "AssertionError", "msg": "Process group cannot be None",
                                       "seconds": res["post/destroy"]["seconds"]}
    assert checked > (100 if sweep else 20) * n
    # the ranks agree wherever the result is the group's (sanity of the comparison itself)
    for key in recs[0]:
        if key.startswith(("all_reduce/", "broadcast/", "all_gather/", "objects/all_gather")):
            a, b = (dict(recs[0][key]), dict(recs[-1][key]))
            a.pop("seconds"), b.pop("seconds")
            assert a == b, key


def _strip(v):
    if isinstance(v, dict):
        return {k: _strip(x) for k, x in v.items() if k != "seconds"}
    if isinstance(v, list):
        return [_strip(x) for x in v]
    return v


# what differs from PyTorch's gloo on purpose (see the module docstring of torchshim.distributed._collectives)
_DIFFERENT = {"views",  # gloo writes a non-contiguous tensor's memory as if contiguous
              }


def compare_with_torch(mine, theirs):
    diffs = []
    for r, (a, b) in enumerate(zip(mine, theirs)):
        for key, tv in b.items():
            if key in _DIFFERENT or (key.startswith("reduce/") and r != 1):  # non-dst ranks: unspecified
                continue
            x, y = _strip(a.get(key)), _strip(tv)
            if x == y:
                continue
            both_err = isinstance(x, dict) and isinstance(y, dict) and "err" in x and "err" in y
            if both_err and x["err"] == y["err"] and "ProcessGroup object at" in y["msg"]:
                if x["msg"].split("<")[0] == y["msg"].split("<")[0]:
                    continue
            diffs.append(f"rank {r} {key}:\n  torchshim {json.dumps(x)[:400]}\n  torch     "
                         f"{json.dumps(y)[:400]}")
    assert not diffs, "\n".join(diffs)


# ----- multi-process tests ----------------------------------------------------------------------------
@pytest.mark.slow
def test_core_two_processes_vs_numpy_and_torch_gloo():
    """Every collective/dtype/op, p2p, async, groups, objects and local errors with 2 processes; then the
    same script under real PyTorch's gloo, compared call by call."""
    import threading
    runs = {}
    ref = threading.Thread(target=lambda: runs.setdefault("torch", launch(2, "core", impl="torch")))
    ref.start()  # the reference runs beside torchshim's launch (different ports)
    mine = records(launch(2, "core"))
    ref.join()
    check_core(mine, 2, sweep=True)
    compare_with_torch(mine, records(runs["torch"]))


@pytest.mark.slow
def test_core_four_processes():
    recs = records(launch(4, "core", extra={"DIST_SWEEP": "0"}, timeout=200))
    check_core(recs, 4, sweep=False)


@pytest.mark.slow
def test_faults_mismatch_late_reinit_and_killed_rank():
    timeout = 6
    res = launch(2, "faults", extra={"DIST_TIMEOUT": str(timeout)}, timeout=150)
    rc0, rec0, text0 = res[0]
    rc1, _, _ = res[1]
    assert rc0 == 0 and rec0 is not None, _dump(res)
    assert rc1 == -signal.SIGKILL, _dump(res)  # rank 1 killed itself mid all_reduce loop
    r0 = rec0["results"]
    for key, what in (("mismatch/shape", "rank 0: all_reduce(shape=[2], torch.float32, RedOpType.SUM); rank "
                                         "1: "
                                         "all_reduce(shape=[3], torch.float32, RedOpType.SUM)"),
                      ("mismatch/dtype", "rank 0: all_reduce(shape=[2], torch.float32, RedOpType.SUM); rank "
                                         "1: "
                                         "all_reduce(shape=[2], torch.float64, RedOpType.SUM)"),
                      ("mismatch/op", "rank 0: all_reduce(shape=[2], torch.float32, RedOpType.MAX); rank 1: "
                                      "all_reduce(shape=[2], torch.float32, RedOpType.SUM)"),
                      ("mismatch/collective", "rank 0: broadcast(shape=[2], torch.float32, src=0); rank 1: "
                                              "all_reduce(shape=[2], torch.float32, RedOpType.SUM)")):
        assert r0[key]["err"] == "RuntimeError", r0[key]
        assert "the ranks of the process group disagree on the call" in r0[key]["msg"], r0[key]
        assert what in r0[key]["msg"], r0[key]
    same(r0["after_mismatch"]["ok"], [3.0, 3.0, 3.0])
    assert r0["late"]["err"] == "DistBackendError", r0["late"]
    assert "waiting for rank 1 (alive, but it did not reach this call)" in r0["late"]["msg"], r0["late"]
    assert timeout - 0.5 <= r0["late_seconds"] <= timeout + 5, r0["late_seconds"]
    assert r0["destroy"]["ok"] is None and r0["reinit"]["ok"] is None
    t, mixed = r0["after_reinit"]["ok"]
    same(t, [3.0, 3.0, 3.0])
    same(mixed, np.arange(3.0) + 3.0)  # a tensor made before destroy/re-init meets one made after
    assert r0["killed"]["err"] == "DistBackendError", r0["killed"]
    assert "rank 1" in r0["killed"]["msg"] and ("no longer running" in r0["killed"]["msg"]
                                                 or "left the job" in r0["killed"]["msg"]), r0["killed"]
    assert r0["kill_seconds"] < timeout + 3, r0["kill_seconds"]


_WRONG_SIZE = r"""
import datetime, json, os, sys, time
import torchshim.distributed as dist
t0 = time.monotonic()
try:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=float(os.environ["T"])))
    out = {"ok": True}
except Exception as e:
    out = {"err": type(e).__name__, "msg": str(e)}
out["seconds"] = time.monotonic() - t0
print("RESULT " + json.dumps(out), flush=True)
"""


def _run_inline(n, code, envs, timeout=60):
    port = free_port()
    procs = [subprocess.Popen([sys.executable, "-c", code], env=_env(r, n, port, envs[r]),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True) for r in range(n)]
    outs = []
    for p in procs:
        try:
            text, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                if q.poll() is None:
                    os.killpg(q.pid, signal.SIGKILL)
            pytest.fail("ran past the timeout")
        lines = [ln for ln in text.splitlines() if ln.startswith("RESULT ")]
        outs.append((p.returncode, json.loads(lines[-1][7:]) if lines else None, text))
    return outs


@pytest.mark.slow
def test_wrong_world_size_is_a_clear_error_within_the_timeout():
    # both processes told WORLD_SIZE=3: the third never comes
    outs = _run_inline(2, _WRONG_SIZE, [{"WORLD_SIZE": "3", "T": "4"}, {"WORLD_SIZE": "3", "T": "4"}])
    for rc, out, text in outs:
        assert rc == 0 and out is not None, text[-2000:]
        assert out["err"] == "DistStoreError", out
        assert "waiting for the 3 processes of world_size=3" in out["msg"], out
        assert out["seconds"] < 4 + 15, out
    # the ranks disagree on world_size: the same error on both, at once
    outs = _run_inline(2, _WRONG_SIZE, [{"WORLD_SIZE": "2", "T": "20"}, {"WORLD_SIZE": "3", "T": "20"}])
    for _, out, text in outs:
        assert out is not None, text[-2000:]
        assert out["err"] == "ValueError", out
        assert ("the ranks disagree on world_size: rank 0 was given world_size=2, rank 1 was given "
                "world_size=3" in out["msg"]), out
        assert out["seconds"] < 15, out


@pytest.mark.slow
def test_init_methods_and_stores():
    path = os.path.join(tempfile.mkdtemp(prefix="dist_file_"), "rdzv")
    recs = records(launch(2, "init", extra={"DIST_FILE": path}, timeout=150))
    for r, res in enumerate(recs):
        for key in ("tcp", "tcp_query", "file", "store_file", "store_tcp", "env_again"):
            v = res[key]["ok"]
            same(v[0], [3.0, 3.0])
            assert v[1:3] == [r, 2], (key, v)
        assert res["file_removed"]["ok"] is False  # the file store's file is gone once every rank joined
        assert res["store_tcp"]["ok"][3:] == [f"v{(r + 1) % 2}", 2]


# ----- in-process tests (no process group is ever created here) ---------------------------------------------
_NO_PG = "Default process group has not been initialized, please make sure to call init_process_group."


def _both(fn):
    """fn(lib) for real torch.distributed and torchshim.distributed: (type name, message) or ('ok', value)."""
    out = []
    for lib, tl in ((torch.distributed, torch), (tdist, torchshim)):
        try:
            out.append(("ok", fn(lib, tl)))
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parametrize("call", [
    lambda d, t: d.all_reduce(t.ones(2)), lambda d, t: d.broadcast(t.ones(2), 0), lambda d, t: d.get_rank(),
    lambda d, t: d.get_world_size(), lambda d, t: d.get_backend(), lambda d, t: d.barrier(),
    lambda d, t: d.new_group([0]), lambda d, t: d.send(t.ones(2), 1), lambda d, t: d.recv(t.ones(2), 1),
    lambda d, t: d.isend(t.ones(2), 1), lambda d, t: d.all_gather_object([None], 1),
    lambda d, t: d.broadcast_object_list([1]), lambda d, t: d.destroy_process_group(),
    lambda d, t: d.all_gather([t.ones(2)], t.ones(2)), lambda d, t: d.monitored_barrier(),
    lambda d, t: d.get_process_group_ranks(None), lambda d, t: d.is_initialized(),
    lambda d, t: d.group.WORLD, lambda d, t: d.GroupMember.WORLD, lambda d, t: d.is_available(),
    lambda d, t: d.all_to_all_single(t.ones(2), t.ones(2)),
    lambda d, t: d.reduce_scatter_tensor(t.ones(1), t.ones(2)),
])
def test_before_init_as_pytorch(call):
    theirs, mine = _both(call)
    assert mine == theirs


@pytest.mark.parametrize("kwargs, env", [
    (dict(backend="gloo"), {}),
    (dict(backend="gloo"), {"RANK": "0"}),
    (dict(backend="gloo"), {"RANK": "0", "WORLD_SIZE": "2"}),
    (dict(backend="gloo"), {"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1"}),
    (dict(backend="gloo", init_method="tcp://127.0.0.1:1234"), {}),
    (dict(backend="gloo", init_method="tcp://127.0.0.1:1234", rank=0), {}),
    (dict(backend="gloo", init_method="file:///tmp/x", world_size=2), {}),
    (dict(backend="gloo", init_method="env://", store="S"), {}),
    (dict(backend="gloo", store="S", rank=0), {}),
    (dict(backend="gloo", store="S", world_size=2), {}),
    (dict(backend="gloo", timeout=5), {}),
    (dict(backend="foo"), {}),
    (dict(backend="nccl", init_method="tcp://127.0.0.1:1234", rank=0, world_size=1), {}),
])
def test_init_argument_errors_as_pytorch(kwargs, env, monkeypatch):
    for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)

    def call(d, t):
        kw = dict(kwargs)
        if kw.get("store") == "S":
            kw["store"] = d.HashStore()
        return d.init_process_group(**kw)
    theirs, mine = _both(call)
    assert mine == theirs
    assert not tdist.is_initialized()


def test_stores_as_pytorch(tmp_path):
    def ops(d, t, store):
        store.set_timeout(datetime.timedelta(seconds=0.2))
        out = [store.timeout]
        store.set("a", "x")
        store.set("b", b"\x00\x01")
        out += [store.get("a"), store.get("b"), store.add("n", 2), store.add("n", 3), store.get("n"),
                store.check(["a"]), store.check(["zz"]), store.compare_set("a", "x", "y"), store.get("a"),
                store.compare_set("a", "q", "z"), store.compare_set("new", "", "v"),
                store.compare_set("new2", "e", "v")]
        store.append("a", "bc")
        out += [store.get("a"), store.multi_get(["a", "n"])]
        store.multi_set(["k1"], ["v1"])
        out += [store.get("k1"), store.delete_key("k1"), store.delete_key("k1")]
        for f in (lambda: store.get("zz"), lambda: store.wait(["zz"]),
                  lambda: store.wait(["zz"], datetime.timedelta(seconds=0.1)), lambda: store.add("a", 1)):
            try:
                f()
                out.append("no error")
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        p = d.PrefixStore("pre", store)
        p.set("q", b"1")
        out += [store.check(["pre/q"]), p.get("q"), p.underlying_store is store]
        return out

    theirs, mine = _both(lambda d, t: ops(d, t, d.HashStore()))
    assert mine == theirs
    n = iter(range(2))
    theirs, mine = _both(lambda d, t: ops(d, t, d.FileStore(str(tmp_path / f"fs{next(n)}"), 1)))
    assert mine == theirs


def test_tcpstore_outside_a_process_group_says_so():
    s = tdist.TCPStore("127.0.0.1", 29999, 2, False)
    assert (s.host, s.port, s.world_size, s.is_master) == ("127.0.0.1", 29999, 2, False)
    with pytest.raises(RuntimeError, match="works once init_process_group"):
        s.set("a", "b")


def test_names_as_pytorch(monkeypatch):
    d, t = torch.distributed, tdist
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"):
        assert str(getattr(t.ReduceOp, name)) == str(getattr(d.ReduceOp, name))
    assert t.Backend("GLOO") == d.Backend("GLOO") == "gloo"
    assert t.GroupMember.NON_GROUP_MEMBER == d.GroupMember.NON_GROUP_MEMBER
    assert t.is_available() and t.is_gloo_available()
    assert issubclass(t.DistBackendError, t.DistError) and issubclass(t.DistError, RuntimeError)
    assert issubclass(t.DistStoreError, t.DistError) and issubclass(t.DistNetworkError, t.DistError)
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    theirs, mine = _both(lambda dd, tt: dd.get_node_local_rank())
    assert mine == theirs and theirs[0] == "RuntimeError"
    assert t.get_node_local_rank(fallback_rank=3) == d.get_node_local_rank(fallback_rank=3) == 3
    monkeypatch.setenv("LOCAL_RANK", "5")
    assert t.get_node_local_rank() == 5
    assert t.is_torchelastic_launched() is d.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "x")
    assert t.is_torchelastic_launched() is d.is_torchelastic_launched() is True


def test_p2pop_rejects_other_ops():
    theirs, mine = _both(lambda d, t: d.P2POp(d.all_reduce, t.ones(2), 1))
    assert mine == theirs

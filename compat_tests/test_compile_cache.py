"""torchshim's default persistent compilation cache (torchshim/_compile_cache.py) and `TORCHSHIM_LOGS=kernels`
(torchshim/_kernel_log.py).

The in-process cases check the pieces (folder choice, trimming, the atomic entry writes). The subprocess
cases (slow) run a small script in fresh interpreters, as a user would run a script twice: the second process
reads every kernel from the cache (counted with jax.monitoring's cache-hit events) and computes what PyTorch
computes; the off switch; an unwritable folder; the user's own jax cache setting; four processes filling one
folder at once; the kernels log.

The test process itself runs with the suite's cache (conftest.py sets jax_compilation_cache_dir before
torchshim is imported, so torchshim leaves it alone); a test that must see real compiles can set
TORCHSHIM_COMPILE_CACHE=0 in a subprocess, or jax_enable_compilation_cache=False in process.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

import torchshim
from torchshim import _compile_cache as cc

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torchshim.__file__)))


# ---- in process --------------------------------------------------------------------------------------------

def test_decision_in_this_process():
    """conftest.py configures jax's cache before torchshim is imported (then torchshim changes nothing) unless
    TORCHSHIM_JAX_CACHE_DIR=0; then torchshim's own cache is on, unless switched off too."""
    import jax
    st, jax_dir = cc.status(), jax.config.jax_compilation_cache_dir
    if os.environ.get(cc.ENV_SWITCH, "").strip().lower() in cc._OFF:
        assert not st["enabled"] and cc.ENV_SWITCH in st["reason"]
    elif st["enabled"]:
        assert jax_dir == st["dir"] == os.path.abspath(cc.default_dir()) and st["reason"] == "on"
    else:
        assert jax_dir and "set by the user" in st["reason"] and st["dir"] is None


def test_default_dir(monkeypatch, tmp_path):
    monkeypatch.delenv(cc.ENV_DIR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cc.default_dir() == os.path.join(str(tmp_path), "torchshim", "xla")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cc.default_dir() == os.path.join(os.path.expanduser("~"), ".cache", "torchshim", "xla")
    monkeypatch.setenv(cc.ENV_DIR, str(tmp_path / "mine"))
    assert cc.default_dir() == str(tmp_path / "mine")


def _entry(path, name, size, age):
    p = path / f"{name}-cache"
    p.write_bytes(b"x" * size)
    t = time.time() - age
    os.utime(p, (t, t))
    return p


def test_trim_deletes_least_recently_used(tmp_path):
    olds = [_entry(tmp_path, f"old{i}", 1000, 1000 + i) for i in range(6)]
    news = [_entry(tmp_path, f"new{i}", 1000, i) for i in range(4)]
    stale = tmp_path / ".k.1.2.tmp"
    stale.write_bytes(b"partial")
    os.utime(stale, (time.time() - 2 * cc.TRIM_EVERY,) * 2)
    fresh_tmp = tmp_path / ".k.3.4.tmp"
    fresh_tmp.write_bytes(b"being written")
    assert cc.trim(str(tmp_path), 20000) == 0  # under the bound: entries kept
    assert not stale.exists() and fresh_tmp.exists()
    freed = cc.trim(str(tmp_path), 5000)  # 10000 bytes > 5000: down to 80% of it, oldest first
    assert freed == 6000
    assert all(p.exists() for p in news) and not any(p.exists() for p in olds)


def test_atomic_entries(tmp_path):
    """The entry writer and reader installed on jax's file cache: whole entries, no temporary file left, a
    missing entry reads as a miss."""
    import types

    from jax._src.lru_cache import LRUCache
    c = LRUCache(str(tmp_path), max_size=-1)
    c.put, c.get = types.MethodType(cc._atomic_put, c), types.MethodType(cc._tolerant_get, c)
    assert c.get("k1") is None
    c.put("k1", b"abc" * 1000)
    c.put("k1", b"other")  # an existing entry is kept, as jax's put does
    assert c.get("k1") == b"abc" * 1000
    assert sorted(os.listdir(tmp_path)) == ["k1-cache"]
    with pytest.raises(ValueError):
        c.put("", b"x")


def test_writable(tmp_path):
    assert cc._writable(str(tmp_path / "a" / "b")) is None and (tmp_path / "a" / "b").is_dir()
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert cc._writable(str(blocker / "sub"))
    assert os.listdir(tmp_path / "a" / "b") == []  # the probe file is removed


# ---- fresh processes ---------------------------------------------------------------------------------------

CHILD = r"""
import json, sys, warnings
warnings.simplefilter("always")
from jax import monitoring
import jax
n = {"hits": 0, "writes": 0, "compiles": 0}
def ev(event, **kw):
    if event == "/jax/compilation_cache/cache_hits":
        n["hits"] += 1
    elif event == "/jax/compilation_cache/cache_misses":
        n["writes"] += 1
def dur(event, secs, **kw):
    if event == "/jax/core/compile/backend_compile_duration":
        n["compiles"] += 1
monitoring.register_event_listener(ev)
monitoring.register_event_duration_secs_listener(dur)
with warnings.catch_warnings(record=True) as caught:
    import torchshim as torch
    import numpy as np
    a = torch.from_numpy(np.arange(35, dtype=np.float32).reshape(7, 5) / 10)
    b = torch.from_numpy(np.linspace(-1, 1, 35, dtype=np.float32).reshape(7, 5))
    out = ((a + b).exp() * b).sum(0).softmax(0) @ torch.ones(5, 3)
    values = out.tolist()
from torchshim import _compile_cache
print(json.dumps({"values": values, "status": _compile_cache.status(), **n,
                  "jax_dir": jax.config.jax_compilation_cache_dir,
                  "warnings": [str(w.message) for w in caught if "compilation cache" in str(w.message)]}))
"""


def _expected():
    a = torch.arange(35, dtype=torch.float32).reshape(7, 5) / 10
    b = torch.from_numpy(np.linspace(-1, 1, 35, dtype=np.float32).reshape(7, 5))
    return (((a + b).exp() * b).sum(0).softmax(0) @ torch.ones(5, 3)).tolist()


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JAX_COMPILATION_CACHE", "JAX_PERSISTENT_CACHE", "TORCHSHIM_"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_PARENT, env.get("PYTHONPATH")) if p)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def _start(**extra):
    return subprocess.Popen([sys.executable, "-c", CHILD], env=_env(**extra), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def _finish(proc):
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-4000:]
    r = json.loads(out.strip().splitlines()[-1])
    r["stderr"] = err
    np.testing.assert_allclose(r["values"], _expected(), rtol=1e-6)
    return r


def _run(**extra):
    return _finish(_start(**extra))


def _entries(path):
    return sorted(f for f in os.listdir(path) if f.endswith("-cache")) if os.path.isdir(path) else []


@pytest.mark.slow
def test_second_process_reads_every_kernel(tmp_path):
    d = tmp_path / "cache"
    first = _run(TORCHSHIM_CACHE_DIR=d, TORCHSHIM_LOGS="kernels")
    assert first["status"] == {"enabled": True, "dir": str(d), "reason": "on"}
    assert first["jax_dir"] == str(d)
    assert first["hits"] == 0 and first["writes"] == first["compiles"] > 0
    assert len(_entries(d)) == first["writes"]
    assert not [f for f in os.listdir(d) if f.endswith(".tmp")]
    second = _run(TORCHSHIM_CACHE_DIR=d, TORCHSHIM_LOGS="kernels")
    assert second["writes"] == 0 and second["hits"] == second["compiles"] == first["compiles"]
    # the kernels log: one line per kernel, with the op's name and its argument types
    lines1 = [ln for ln in first["stderr"].splitlines() if ln.startswith("[torchshim] kernel ")]
    lines2 = [ln for ln in second["stderr"].splitlines() if ln.startswith("[torchshim] kernel ")]
    assert len(lines1) == first["compiles"] and len(lines2) == second["compiles"]
    add = "[torchshim] kernel add (float32[7,5], float32[7,5]): "
    assert any(ln.startswith(add) for ln in lines1), lines1
    assert all(ln.endswith("compiled (cache miss, written)") for ln in lines1), lines1
    assert all(ln.endswith("read from the compilation cache") for ln in lines2), lines2


@pytest.mark.slow
def test_off_switch_and_no_log_by_default(tmp_path):
    d = tmp_path / "cache"
    r = _run(TORCHSHIM_CACHE_DIR=d, TORCHSHIM_COMPILE_CACHE="0")
    assert r["status"]["enabled"] is False and "TORCHSHIM_COMPILE_CACHE=0" in r["status"]["reason"]
    assert r["jax_dir"] is None and r["hits"] == r["writes"] == 0 and r["compiles"] > 0
    assert not os.path.exists(d)
    assert "[torchshim] kernel" not in r["stderr"] and r["warnings"] == []


@pytest.mark.slow
def test_unwritable_folder(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("a file where the cache folder's parent should be")
    # named explicitly: one warning, then no cache
    r = _run(TORCHSHIM_CACHE_DIR=blocker / "xla")
    assert r["status"]["enabled"] is False and "cannot write" in r["status"]["reason"]
    assert r["jax_dir"] is None and r["hits"] == r["writes"] == 0
    assert len(r["warnings"]) == 1 and "compilation cache off" in r["warnings"][0]
    # the default folder (under XDG_CACHE_HOME) unwritable: silently no cache
    r = _run(XDG_CACHE_HOME=blocker)
    assert r["status"]["enabled"] is False and r["jax_dir"] is None and r["warnings"] == []


@pytest.mark.slow
def test_users_jax_setting_wins(tmp_path):
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    r = _run(TORCHSHIM_CACHE_DIR=mine, JAX_COMPILATION_CACHE_DIR=theirs)
    assert r["jax_dir"] == str(theirs) and not r["status"]["enabled"]
    assert "set by the user" in r["status"]["reason"] and not os.path.exists(mine)
    r = _run(TORCHSHIM_CACHE_DIR=mine, JAX_ENABLE_COMPILATION_CACHE="false")
    assert not r["status"]["enabled"] and r["jax_dir"] is None and r["hits"] == r["writes"] == 0


@pytest.mark.slow
def test_concurrent_processes_share_a_folder(tmp_path):
    """Four processes fill one empty folder at the same time (as xdist or DataLoader workers do): all compute
    the right values, no partial entry is left, and a fifth process reads every kernel."""
    d = tmp_path / "cache"
    procs = [_start(TORCHSHIM_CACHE_DIR=d) for _ in range(4)]
    results = [_finish(p) for p in procs]
    assert all(r["status"]["enabled"] for r in results)
    assert not [f for f in os.listdir(d) if f.endswith(".tmp")]
    assert len(_entries(d)) == results[0]["compiles"]
    last = _run(TORCHSHIM_CACHE_DIR=d)
    assert last["hits"] == last["compiles"] > 0 and last["writes"] == 0

"""The distributed examples (examples/distributed_hello.py, distributed_sampler.py, ddp_tutorial.py) print
under torchshim's launcher what they print under real PyTorch's torchrun, with 2 processes on the CPU.

Each example runs, unmodified, under `python -m torch.distributed.run --nproc_per_node 2 --tee 3` (real
PyTorch) and `python -m torchshim run --nproc_per_node 2 --tee 3` (torchshim's launcher, torchshim as
`torch` in the workers); `--tee 3` prefixes every line of a rank's output with `[default<rank>]:` so that
the ranks' lines cannot interleave. The ranks' stdout lines (less jaxlib's "[Gloo] Rank N is connected"
line) are compared as sorted lists (the order between ranks is up to the scheduler); the numbers the
scripts print do not depend on random streams (numpy data and weights; see each example's docstring), so
they must agree to the printed digits.
"""
import importlib.util
import os
import re
import signal
import subprocess
import sys

import pytest

import torchshim
from dist_helpers import compile_cache_env, free_port

pytestmark = pytest.mark.slow

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torchshim.__file__)))
TIMEOUT = 240
HAVE_TORCH = importlib.util.find_spec("torch") is not None

CASES = [("distributed_hello.py", []), ("distributed_sampler.py", ["--num-epochs", "8"]),
         ("ddp_tutorial.py", ["--epochs", "2"])]
# `python -m torchshim run --nproc_per_node 2` is torchshim's launcher (torchshim/distributed/run.py) with
# `import torch` giving torchshim in each worker; `python -m torchshim.distributed.run` starts plain Python
# workers, in which `import torch` is whatever torch is installed
LAUNCHERS = {"torch": ["-m", "torch.distributed.run"], "torchshim": ["-m", "torchshim", "run"]}
# jaxlib's gloo prints this on stdout when a process first connects to its peers; PyTorch's gloo does not
GLOO_CONNECTED = re.compile(r"\[default\d+\]:\[Gloo\] Rank \d+ is connected to \d+ peer ranks\. "
                            r"Expected number of connected peer ranks is : \d+")


def launch(launcher, script, args, cwd):
    """Run `script args` with 2 processes under `launcher`; return (exit status, the ranks' lines, output)."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_PARENT, env.get("PYTHONPATH")) if p)
    env.pop("TORCHSHIM_CHECK_RUN", None)
    env.update(compile_cache_env())
    cmd = [sys.executable, *LAUNCHERS[launcher], "--nproc_per_node", "2", "--master_port", str(free_port()),
           "--tee", "3", os.path.join(EXAMPLES, script), *args]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{launcher} {script}: no result within {TIMEOUT} s\n{out[-3000:]}\n{err[-5000:]}")
    lines = sorted(line for line in out.splitlines()
                   if line.startswith("[default") and not GLOO_CONNECTED.fullmatch(line))
    return proc.returncode, lines, f"--- stdout ---\n{out[-3000:]}\n--- stderr ---\n{err[-5000:]}"


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """What real torchrun prints, per example (run once)."""
    if not HAVE_TORCH:
        pytest.skip("real PyTorch is not installed")
    cache = {}

    def get(script, args):
        if script not in cache:
            code, lines, explain = launch("torch", script, args, tmp_path_factory.mktemp("torch"))
            assert code == 0, explain
            cache[script] = lines
        return cache[script]
    return get


@pytest.mark.parametrize("script,args", CASES, ids=[c[0] for c in CASES])
def test_example_prints_what_torchrun_prints(expected, script, args, tmp_path):
    want = expected(script, args)
    code, lines, explain = launch("torchshim", script, args, tmp_path)
    assert code == 0, explain
    assert lines == want, explain
    assert len(want) >= 5 and "[default0]" in {line[:10] for line in want}

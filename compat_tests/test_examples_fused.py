"""The examples (examples/*.py) in fused eager mode (issue 14) print what PyTorch prints.

The same comparison as test_examples.py (`python -m torchshim check EXAMPLE --short --check`: the script
under PyTorch, then under `python -m torchshim run`, every printed line compared with check's default
tolerances), with `TORCHSHIM_EAGER=fused` in the environment: torchshim's run records its eager ops and runs
them as cached XLA programs (the PyTorch run ignores the variable). `TORCHSHIM_LOGS=recompiles` is on, and a
segment structure that falls back to op by op (compiled for too many shapes) fails the test: a training
loop's segments must be few and stable.
"""
import os
import re
import subprocess
import sys

import pytest

from test_examples import CHECK_TIMEOUT, EXAMPLES, TIMEOUT, _env, _explain

# whole scripts in subprocesses: `nox -s tests_slow`
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", ["mnist_like.py", "custom_function.py", "higher_order.py", "wgan_gp.py",
                                  "word_language_model.py", "vae_flows.py"])
def test_example_fused_matches_pytorch(name, tmp_path):
    env = dict(_env(), TORCHSHIM_EAGER="fused", TORCHSHIM_LOGS="recompiles")
    proc = subprocess.run([sys.executable, "-m", "torchshim", "check", "--timeout", str(CHECK_TIMEOUT),
                           os.path.join(EXAMPLES, name), "--short", "--check"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, _explain(proc)
    lines = proc.stdout.splitlines()
    assert re.fullmatch(r"torchshim: exit status 0, (\d+) lines of output, .*", lines[1]), _explain(proc)
    n = int(re.search(r"(\d+) lines of output", lines[0]).group(1))
    assert n >= 5 and lines[-1].startswith(f"{n} lines match, same exit status 0"), _explain(proc)
    assert "runs op by op" not in proc.stderr, _explain(proc)

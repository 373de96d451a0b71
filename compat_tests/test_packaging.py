"""Packaging: torchshim imports and runs without torch, never imports torch itself, the README's quickstart is
exactly two commands, and the main example runs.

Subprocesses import the same torchshim as this test process (its parent directory goes first on PYTHONPATH),
so the checks hold for whichever copy is under test: the installed package under nox, the source tree
otherwise.
"""
import ast
import os
import re
import subprocess
import sys
import textwrap

import torchshim

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG_SRC = os.path.join(REPO, "torchshim")


def _env():
    env = dict(os.environ)
    site = os.path.dirname(os.path.dirname(os.path.abspath(torchshim.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (site, env.get("PYTHONPATH")) if p)
    return env


def _run(args, cwd, timeout=120):
    return subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


# ----- (a) torchshim works with torch absent ----------------------------------------------------------------
NO_TORCH = textwrap.dedent("""
    import sys

    class _BlockTorch:
        # a meta-path finder that makes 'torch' and 'torch.*' unimportable, as if torch were not installed
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError(f"No module named {name!r} (hidden by test_packaging)")
            return None

    sys.meta_path.insert(0, _BlockTorch())
    for _m in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[_m]

    import torchshim
    x = torchshim.ones(2) + 1
    print(x.tolist())
    loaded = sorted(m for m in sys.modules if m == "torch" or m.startswith("torch."))
    assert not loaded, f"torch modules were imported: {loaded}"
    print("TORCH-FREE OK")
""")


def test_import_without_torch(tmp_path):
    r = _run([sys.executable, "-c", NO_TORCH], cwd=tmp_path)
    assert r.returncode == 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    assert "[2.0, 2.0]" in r.stdout
    assert "TORCH-FREE OK" in r.stdout


def test_blocker_really_hides_torch(tmp_path):
    """The blocker above must make `import torch` fail, or test_import_without_torch proves nothing."""
    code = NO_TORCH.split("import torchshim")[0] + "import torch\n"
    r = _run([sys.executable, "-c", code], cwd=tmp_path)
    assert r.returncode != 0 and "hidden by test_packaging" in r.stderr, r.stderr


# ----- (b) no module under torchshim/ imports torch ---------------------------------------------------------
def _torch_imports(source, filename):
    """(line, text) of every import of torch or torch.* in `source`: import statements anywhere in the file
    (functions, try blocks, multi-name and multi-line imports included), and __import__ / import_module calls
    with a literal name. `import torchshim` and relative imports are not torch."""
    def is_torch(name):
        return name == "torch" or name.startswith("torch.")

    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module] if node.level == 0 and node.module else []
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in (
                "__import__", "import_module"):
            first = node.args[:1]
            names = [a.value for a in first if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        else:
            continue
        if any(is_torch(n) for n in names):
            found.append((node.lineno, ast.get_source_segment(source, node)))
    return found


def test_torch_import_detection():
    hits = ["import torch", "import torch.nn as nn", "from torch import nn", "from torch.utils import x",
            "import torch as T", "import numpy, torch", "def f():\n    import torch", "__import__('torch')",
            "importlib.import_module('torch.nn')", "from torch import (\n    nn,\n)"]
    misses = ["import torchshim", "import torchshim as torch", "from torchshim import ops",
              "from . import torch", "from torchshim.ops import x", "import torchvision", "# import torch",
              "x = 'import torch'"]
    for src in hits:
        assert _torch_imports(src, "<hit>"), src
    for src in misses:
        assert not _torch_imports(src, "<miss>"), src


def test_package_never_imports_torch():
    offenders = []
    for root, _dirs, files in os.walk(PKG_SRC):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    for line, text in _torch_imports(f.read(), path):
                        offenders.append(f"{os.path.relpath(path, REPO)}:{line}: {text}")
    assert not offenders, "torchshim must not import torch:\n" + "\n".join(offenders)


# ----- (c) the README opens with a two-command quickstart ---------------------------------------------------
def _code_block_commands(markdown):
    """Commands of the fenced code blocks, in order: one per non-empty, non-comment line."""
    cmds = []
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", markdown, flags=re.S | re.M):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            if line and not line.startswith("#"):
                cmds.append(line)
    return cmds


def test_readme_quickstart():
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^#+\s*Quickstart\s*$(.*?)(?=^#+\s)", text, flags=re.S | re.M | re.I)
    assert m, "README.md needs a '## Quickstart' section"
    quick = _code_block_commands(m.group(1))
    assert len(quick) == 2, f"the quickstart must be exactly two commands, got {quick}"
    assert _code_block_commands(text)[:2] == quick, "the quickstart must be the README's first code"
    install_example, run_tests = quick
    # the main example (an unmodified PyTorch script under `python -m torchshim run`):
    # test_examples.py runs it
    assert "python -m torchshim run examples/mnist_like.py" in install_example
    assert "pip install" in install_example
    assert run_tests == "pip install nox && nox -s tests"


# ----- (d) the main example runs ----------------------------------------------------------------------------
def test_example_runs(tmp_path):
    r = _run([sys.executable, os.path.join(REPO, "examples", "basics.py")], cwd=tmp_path, timeout=120)
    assert r.returncode == 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    assert "RuntimeError" in r.stdout and "torch.float32" in r.stdout

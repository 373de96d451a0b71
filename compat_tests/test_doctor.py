"""`python -m torchshim doctor SCRIPT`: the names found (import styles, aliases, Tensor method calls, local
modules), their status looked up in torchshim at run time, the documented differences, the exit status, the
examples, and that the names it reports as PyTorch's exist in real PyTorch."""
import glob
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torchshim
from torchshim._cli import doctor, doctor_notes, doctor_scan
from torchshim._cli import main as cli_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = """\
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import Linear
import helper
from pkg import mod

x = torch.randn(3, 4)
y = F.relu(x)
layer = nn.Conv2d(1, 2, 3)
lin = Linear(4, 2)
s = x.sum(dim=0)
n = np.sum([1, 2])
words = "a,b".split(",")
d = {"k": 1}
i = words.index("a")
torch.manual_seed(0)
z = torch.hspmm(x, x)
w = torch.no_such_function(x)
T = torch.Tensor
ok = isinstance(x, T)
q = x.transpose(0, 1).contiguous()
"""
HELPER = """\
import torch
def f(x):
    return torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)
"""
MOD = """\
from torch.utils.data import DataLoader
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "main.py").write_text(SCRIPT)
    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(MOD)
    return tmp_path


def _line(text, needle):
    return text.splitlines().index(next(ln for ln in text.splitlines() if needle in ln)) + 1


def test_names_found(project):
    uses, files = doctor_scan.scan(str(project / "main.py"))
    assert sorted(os.path.basename(f) for f in files) == ["__init__.py", "helper.py", "main.py", "mod.py"]
    found = {(name, os.path.basename(path), line, kind) for name, path, line, kind in uses}
    expect = {
        ("torch.nn.functional.relu", "main.py", _line(SCRIPT, "F.relu"), "name"),
        ("torch.nn.Conv2d", "main.py", _line(SCRIPT, "nn.Conv2d"), "name"),
        ("torch.nn.Linear", "main.py", _line(SCRIPT, "from torch.nn import Linear"), "name"),
        ("torch.nn", "main.py", _line(SCRIPT, "from torch import nn"), "name"),
        ("torch.nn.functional", "main.py", _line(SCRIPT, "import torch.nn.functional"), "name"),
        ("torch.randn", "main.py", _line(SCRIPT, "torch.randn"), "name"),
        ("Tensor.sum", "main.py", _line(SCRIPT, "x.sum"), "method"),
        ("Tensor.index", "main.py", _line(SCRIPT, "words.index"), "method"),
        ("Tensor.transpose", "main.py", _line(SCRIPT, "x.transpose"), "method"),
        ("Tensor.contiguous", "main.py", _line(SCRIPT, "x.transpose"), "method"),
        ("torch.Tensor", "main.py", _line(SCRIPT, "T = torch.Tensor"), "name"),
        ("torch.quantize_per_tensor", "helper.py", 3, "name"),
        ("torch.quint8", "helper.py", 3, "name"),
        ("torch.utils.data.DataLoader", "mod.py", 1, "name"),
    }
    assert expect <= found
    names = {u[0] for u in found}
    # numpy calls, str literals and chains inside a reported chain are not reported
    assert not {"Tensor.split", "torch.nn.functional.relu.x", "torch.utils"} & names
    assert not any(n.startswith("numpy") or n == "Tensor.isinstance" for n in names)


def test_names_are_pytorch_names(project):
    """Every dotted name doctor reports (except the deliberately invented one) exists in real PyTorch."""
    uses, _ = doctor_scan.scan(str(project / "main.py"))
    for name, _, _, _ in uses:
        if name == "torch.no_such_function":
            continue
        obj = torch.Tensor if name.startswith("Tensor.") else torch
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)


def test_statuses(project):
    uses, _ = doctor_scan.scan(str(project / "main.py"))
    result = doctor.classify(uses)
    assert result["torch.nn.functional.relu"][0] == "supported"
    assert result["torch.manual_seed"][0] == "difference"
    assert "Random numbers" in result["torch.manual_seed"][1]
    assert result["torch.no_such_function"][0] == "missing"
    assert result["torch.no_such_function"][1] == "no torch.no_such_function"
    assert result["torch.hspmm"][0] == "missing"
    assert "out of scope in docs/coverage.md (sparse)" in result["torch.hspmm"][1]
    assert result["torch.quantize_per_tensor"][0] == "missing"
    assert result["Tensor.index"][0] == "uncounted"  # str.index(): not a sign of a missing tensor method


def test_lookup_is_made_at_run_time(monkeypatch):
    assert doctor.lookup("torch.no_such_function") == "no torch.no_such_function"
    monkeypatch.setattr(torchshim, "no_such_function", lambda x: x, raising=False)
    assert doctor.lookup("torch.no_such_function") is None
    monkeypatch.delattr(torchshim.Tensor, "sum")
    assert doctor.lookup("Tensor.sum") == "no Tensor.sum"


def test_lookup_through_submodules():
    assert doctor.lookup("torch.nn.functional.relu") is None
    assert doctor.lookup("torch.utils.data.DataLoader") is None
    assert doctor.lookup("torch.nn.no_such_layer") == "no torch.nn.no_such_layer"
    assert doctor.lookup("torch.nn.Linear.no_such_attr") == "no torch.nn.Linear.no_such_attr"


def test_report_and_exit_status(project, capsys):
    assert cli_main(["doctor", str(project / "main.py")]) == 1
    out = capsys.readouterr().out
    assert "(3 local modules followed" in out
    assert "torch.no_such_function" in out and f"main.py:{_line(SCRIPT, 'no_such_function')}" in out
    assert "Tensor.sum  (tensor method, if x is a tensor)" in out
    assert out.rstrip().endswith("missing (+1 ambiguous, not counted).")
    clean = project / "clean.py"
    clean.write_text("import torch\nx = torch.ones(2)\nprint(x.sum().item())\n")
    assert cli_main(["doctor", str(clean)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("0 missing.")


def test_usage_errors(tmp_path, capsys):
    assert cli_main(["doctor"]) == 2
    assert cli_main(["doctor", str(tmp_path / "absent.py")]) == 2
    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nx = (\n")
    assert cli_main(["doctor", str(bad)]) == 2
    assert "bad.py:" in capsys.readouterr().err


def test_torchshim_imports_count_as_torch(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import torchshim as torch\nfrom torchshim import nn\n"
                      "x = torch.zeros(1)\nm = nn.ReLU()\n")
    names = {u[0] for u in doctor_scan.scan(str(script))[0]}
    assert {"torch", "torch.nn", "torch.zeros", "torch.nn.ReLU"} <= names


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "examples", "*.py"))),
                         ids=os.path.basename)
def test_examples_are_all_supported(path, capsys):
    """The examples run under torchshim, so doctor finds every name they use supported."""
    assert cli_main(["doctor", path]) == 0
    out = capsys.readouterr().out
    assert " 0 missing" in out
    uses, _ = doctor_scan.scan(path)
    assert len({u[0] for u in uses if u[3] == "name"}) >= 5


def test_example_details(capsys):
    path = os.path.join(ROOT, "examples", "mnist_like.py")
    uses, _ = doctor_scan.scan(path)
    names = {u[0] for u in uses}
    assert {"torch.nn.functional.cross_entropy", "torch.optim.SGD", "torch.optim.lr_scheduler.StepLR",
            "torch.utils.data.DataLoader", "torch.nn.Conv2d", "Tensor.backward"} <= names
    result = doctor.classify(uses)
    assert result["torch.utils.data.DataLoader"][0] == "difference"


def test_notes_point_at_differences_headings():
    with open(os.path.join(ROOT, "docs", "differences.md")) as f:
        headings = {ln[3:].strip() for ln in f if ln.startswith("## ")}
    for key, (section, text) in doctor_notes.NOTES.items():
        assert section in headings, f"{key}: no heading {section!r} in docs/differences.md"
        assert text
        if not key.endswith("."):
            assert doctor.lookup(key) is None, f"doctor notes a difference for {key}, which torchshim lacks"


@pytest.mark.slow
def test_cli_never_imports_torch(project):
    """`python -m torchshim doctor` in a process where importing torch fails."""
    code = textwrap.dedent(f"""
        import sys
        sys.modules["torch"] = None  # `import torch` raises ImportError
        from torchshim._cli import main
        sys.exit(main(["doctor", {str(project / "main.py")!r}]))
    """)
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert got.returncode == 1, got.stderr
    assert "torch.no_such_function" in got.stdout

"""The drop-in runner (`python -m torchshim run`, `install_as_torch`) and the conformance checker
(`python -m torchshim check`).

`run` is compared with Python itself: a script (and a `-m` module) that does not import torch gives the
same stdout, stderr (tracebacks included) and exit status under `python X` and `python -m torchshim run X`.
A script that imports torch gets torchshim's modules. `check` is run in this process (its two runs are
subprocesses) on scripts that match and that differ. Each subprocess costs a torch or torchshim import
(~2 s), so there are few of them.
"""
import copy
import importlib
import importlib.util
import json
import os
import pickle
import subprocess
import sys
import textwrap

import pytest
import torch

import torchshim
from torchshim._cli import check as _check
from torchshim._cli import compare as _compare

# whole scripts in subprocesses: `nox -s tests_slow`
pytestmark = pytest.mark.slow

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(torchshim.__file__)))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PKG_PARENT, env.get("PYTHONPATH")) if p)
    return env


def _python(args, cwd, timeout=120):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=timeout)


def _write(path, source):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


# ----- install_as_torch -------------------------------------------------------------------------------------
def test_install_refuses_when_real_torch_is_imported():
    # this process imported the real torch (conftest): installing must fail and change nothing
    meta_path, torch_module = list(sys.meta_path), sys.modules["torch"]
    with pytest.raises(RuntimeError, match=r"the real PyTorch is already imported in this process"):
        torchshim.install_as_torch()
    assert sys.meta_path == meta_path and sys.modules["torch"] is torch_module is torch


IMPORTS = """
    import importlib, importlib.util, json, multiprocessing, sys
    lazy_before = "torchshim._cli.compare" in sys.modules
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.autograd import Variable
    from torch.nn.utils.rnn import pack_padded_sequence
    import torch.nn.utils.parametrize as P
    from torch import nn as nn2
    import torch._cli.compare as lazy  # a torchshim module that nothing imported before
    import torchshim


    def child(queue):  # in a worker process started by 'spawn' (the DataLoader's default)
        import torch.nn.functional
        queue.put([torch is torchshim, torch.nn.functional is torchshim.nn.functional, __name__, sys.argv])


    def import_missing():
        import torch.something_missing  # noqa: F401


    def main():
        x = torch.ones(2, requires_grad=True)
        (F.relu(x) * 3).sum().backward()
        res = {
            "torch": torch is torchshim, "nn": nn is nn2 is torchshim.nn, "F": F is torchshim.nn.functional,
            "Variable": Variable is torchshim.autograd.Variable,
            "pack": pack_padded_sequence is torchshim.nn.utils.rnn.pack_padded_sequence,
            "P": P is sys.modules["torchshim.nn.utils.parametrize"],
            "lazy": (not lazy_before) and lazy is sys.modules["torchshim._cli.compare"],
            "grad": x.grad.tolist(), "argv": sys.argv, "path0": sys.path[0], "name": __name__,
        }
        for name in ["optim", "optim.lr_scheduler", "utils.data", "serialization"]:  # other parts of issue 5
            try:
                res[name] = importlib.import_module("torch." + name) is sys.modules["torchshim." + name]
            except ModuleNotFoundError as e:
                res[name] = "missing " + e.name
        try:
            import_missing()
        except ModuleNotFoundError as e:
            res["missing"] = [e.name, str(e)]
        res["find_spec_missing"] = importlib.util.find_spec("torch.something_missing")
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        proc = ctx.Process(target=child, args=(queue,))
        proc.start()
        res["spawned"] = queue.get(timeout=100)
        proc.join()
        print(json.dumps(res))
        sys.exit(int(sys.argv[1]))


    if __name__ == "__main__":
        main()
"""


def test_run_makes_torch_torchshim(tmp_path):
    script = _write(tmp_path / "sub" / "imports.py", IMPORTS)
    r = _python(["-m", "torchshim", "run", str(script), "3", "--flag", "-m"], cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    res = json.loads(r.stdout)
    for key in ("torch", "nn", "F", "Variable", "pack", "P", "lazy"):
        assert res[key] is True, key
    assert res["grad"] == [3.0, 3.0]
    assert res["argv"] == [str(script), "3", "--flag", "-m"]
    assert res["path0"] == str(script.parent) and res["name"] == "__main__"
    for name in ["optim", "optim.lr_scheduler", "utils.data", "serialization"]:
        exists = importlib.util.find_spec("torchshim." + name.split(".")[0]) is not None and (
            importlib.util.find_spec("torchshim." + name) is not None)
        assert res[name] == (True if exists else "missing torch." + name), name
    with pytest.raises(ModuleNotFoundError) as ref:  # PyTorch's own error for a module it lacks
        importlib.import_module("torch.something_missing")
    assert res["missing"] == [ref.value.name, str(ref.value)]
    assert res["find_spec_missing"] is None
    assert res["spawned"] == [True, True, "__mp_main__", res["argv"]]


TYPES = """
    import copy, io, multiprocessing, pickle
    import torch

    CLASSES = [torch.Tensor, torch.Size, torch.dtype, torch.device, torch.Generator, torch.layout,
               torch.memory_format, torch.finfo, torch.iinfo]


    def child(queue, t, classes):  # a spawned worker process: the tensor and the classes arrive pickled
        queue.put([str(type(t)), t.tolist(), [c is d for c, d in zip(classes, CLASSES)]])


    def main():
        print(type(torch.tensor(1)), torch.Size, torch.float32.__class__, torch.device, torch.Generator)
        print(torch.layout, torch.memory_format, torch.finfo, torch.iinfo, type(torch.Size([2])))
        print(type(torch.finfo(torch.float32)), type(torch.strided), type(torch.contiguous_format))
        print([pickle.loads(pickle.dumps(c)) is c for c in CLASSES])
        objs = [torch.tensor([1.5, 2.0]), torch.Size([2, 3]), torch.float64, torch.device("cpu"),
                torch.strided, torch.channels_last]
        print([pickle.loads(pickle.dumps(o)) for o in objs], [copy.deepcopy(o) for o in objs])
        buf = io.BytesIO()
        torch.save({"t": objs[0], "size": objs[1], "dtype": objs[2], "device": objs[3]}, buf)
        buf.seek(0)
        print(torch.load(buf))
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        proc = ctx.Process(target=child, args=(queue, torch.arange(3), CLASSES))
        proc.start()
        print(queue.get(timeout=100))
        proc.join()


    if __name__ == "__main__":
        main()
"""


def test_run_prints_pytorch_class_names(tmp_path):
    """Under `run` the classes PyTorch defines in `torch` print as there (`type(t)` is
    `<class 'torch.Tensor'>`, tutorials print it and `check` compares it), and pickling them (by name),
    pickling and deep-copying their instances, torch.save/load and a spawned worker still work: the output
    equals real PyTorch's."""
    script = _write(tmp_path / "print_class_names.py", TYPES)
    want = _python([str(script)], cwd=tmp_path)
    got = _python(["-m", "torchshim", "run", str(script)], cwd=tmp_path)
    assert want.returncode == 0, want.stderr
    assert got.returncode == 0, got.stderr
    first = ("<class 'torch.Tensor'> <class 'torch.Size'> <class 'torch.dtype'> <class 'torch.device'> "
             "<class 'torch._C.Generator'>")
    assert want.stdout.splitlines()[0] == first
    assert got.stdout == want.stdout


def test_plain_import_keeps_torchshim_class_names():
    """Without install_as_torch the classes keep torchshim's module paths, under which they pickle."""
    classes = [torchshim.Tensor, torchshim.Size, torchshim.dtype, torchshim.device, torchshim.Generator]
    assert [c.__module__.split(".")[0] for c in classes] == ["torchshim"] * len(classes)
    assert all(pickle.loads(pickle.dumps(c)) is c for c in classes)
    t = torchshim.tensor([1.5, 2.0])
    assert pickle.loads(pickle.dumps(t)).tolist() == copy.deepcopy(t).tolist() == [1.5, 2.0]


# ----- run behaves like python itself -----------------------------------------------------------------------
PLAIN = """
    import os, sys
    print(sys.argv, __name__, __file__, getattr(__spec__, "origin", None), __package__, sorted(globals()))
    print(__builtins__ is __import__("builtins"), sys.modules["__main__"] is sys.modules[__name__])
    print(sys.path == [os.path.dirname(os.path.realpath(__file__))] + SHARED or sys.path)

    def inner(n):
        return {"a": 1}[n]

    def outer():
        try:
            inner("b")
        except KeyError as e:
            raise ValueError("bad key b") from e

    if sys.argv[1] == "raise":
        outer()
    sys.exit(int(sys.argv[1]))
"""


@pytest.mark.parametrize("how", ["script", "module", "missing"])
def test_run_matches_python(tmp_path, how):
    """stdout (argv, __file__, sys.path, globals), stderr (a chained traceback, the error for a missing file)
    and the exit status equal Python's own for the same script or -m module."""
    r0 = _python(["-c", "import sys; print(repr(sys.path[1:]))"], cwd=tmp_path)
    source = PLAIN.replace("SHARED", r0.stdout.strip())
    if how in ("script", "missing"):
        _write(tmp_path / "dir" / "plain.py", source)
        target, arg = [os.path.join("dir", "plain.py" if how == "script" else "nope.py")], "raise"
    else:
        _write(tmp_path / "pkg" / "__init__.py", "")
        _write(tmp_path / "pkg" / "plain.py", source.replace("os.path.dirname(os.path.realpath(__file__))",
                                                             "os.getcwd()"))
        target, arg = ["-m", "pkg.plain"], "4"
    want = _python([*target, arg], cwd=tmp_path)
    got = _python(["-m", "torchshim", "run", *target, arg], cwd=tmp_path)
    assert want.returncode == {"script": 1, "module": 4, "missing": 2}[how], want.stderr
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    if how != "missing":
        assert want.stdout.splitlines()[1:] == ["True True", "True"]  # and sys.path is the expected one


def test_usage_errors(capsys):
    from torchshim._cli import main

    assert main([]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["run"]) == 2
    assert main(["check", "--rtol"]) == 2
    assert main(["check", "--atol", "x", "s.py"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'frobnicate'" in err and "no script given" in err
    assert "--rtol needs a value" in err and "--atol: bad value 'x'" in err


# ----- check ------------------------------------------------------------------------------------------------
SGD = """
    import torch
    w = torch.tensor([[0.5, -0.3], [0.2, 0.8]], requires_grad=True)
    b = torch.tensor([0.1, -0.1], requires_grad=True)
    x = torch.linspace(-1, 1, 12).reshape(6, 2)
    y = torch.sin(x @ torch.tensor([[1.5], [-2.0]])).squeeze(1)
    for step in range(6):
        out = torch.tanh(x @ w + b).sum(1)
        loss = ((out - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
            w.grad.zero_()
            b.grad.zero_()
        print(f"step {step} loss {loss.item():.6f} raw {loss.item()}")
        print(w)
    print(loss, b.dtype, tuple(w.shape))
    torch.ones(2) + torch.ones(3)  # both raise the same error
"""


def test_check_reports_match(tmp_path, capsys):
    script = _write(tmp_path / "sgd.py", SGD)
    status = _check.check_main([str(script)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "19 lines match, same exit status 1 and exception (RuntimeError: The size of tensor a (2)" in out


DIVERGE = """
    import os, sys, torch
    shim = "torchshim" in torch.__version__
    assert os.environ["TORCHSHIM_CHECK_RUN"] == ("torchshim" if shim else "reference")
    print(torch.tensor([1.0, 2.0]) * 3, sys.argv[1:])
    print("same text", 0.25)
    print("value", torch.tensor(0.25 + (1e-3 if shim else 0.0)))
    print("never compared")
    sys.exit(5 if shim else 0)
"""


def test_check_reports_first_divergence(tmp_path, capsys):
    script = _write(tmp_path / "diverge.py", DIVERGE)
    status = _check.check_main(["--timeout", "300", str(script), "a1"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "line 3 differs: number 1 of the line: |0.2510 - 0.2500| = 0.001" in out
    assert "torch:     'value tensor(0.2500)'" in out and "torchshim: 'value tensor(0.2510)'" in out
    assert "the exit status differs: torch exit status 0, torchshim exit status 5" in out


def test_check_without_pytorch(tmp_path, capsys):
    fake = _write(tmp_path / "hide" / "torch" / "__init__.py", "raise ImportError('torch hidden by test')\n")
    python = tmp_path / "python-without-torch"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{fake.parent.parent}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    script = _write(tmp_path / "s.py", "import torch\nprint(torch.ones(1))\n")
    status = _check.check_main(["--python", str(python), str(script)])
    out = capsys.readouterr().out
    assert status == 2
    assert f"PyTorch is not installed for {python} (ImportError: torch hidden by test)" in out
    assert "torchshim:" not in out  # the torchshim run is not started


# ----- the line comparison ----------------------------------------------------------------------------------
def test_compare_printed_tensors():
    """Values within float32 tolerance match however PyTorch (or a format) rounds them when printing; values
    further apart than the tolerance, printed in full, do not (the printed forms come from PyTorch itself)."""
    gen = torch.Generator().manual_seed(0)
    scale = torch.logspace(-6, 3, 300, dtype=torch.float64)
    base = torch.randn(300, generator=gen, dtype=torch.float64) * scale
    near = base * (1 + 1e-7)
    far = base + 20 * (1e-5 + 1.3e-6 * base.abs())
    formats = (lambda v: str(torch.tensor([v, -v], dtype=torch.float32)), lambda v: f"{v:.4f}",
               lambda v: f"{v:.3e}", repr)
    for ref, close, other in zip(base.tolist(), near.tolist(), far.tolist()):
        for fmt in formats:
            assert _compare.compare_line(fmt(ref), fmt(close), 1.3e-6, 1e-5) is None, (fmt(ref), fmt(close))
        assert _compare.compare_line(f"loss {ref!r}", f"loss {other!r}", 1.3e-6, 1e-5) is not None


@pytest.mark.parametrize("ref, got, match", [
    ("tensor([ 0.1234, -0.5000])", "tensor([0.1234, -0.5000])", True),  # padding
    ("tensor([-0.0000,  1.0000])", "tensor([0.0000, 1.0000])", True),
    ("0.6931", "0.6932", True), ("0.6931", "0.6933", False),  # one unit in the last printed digit
    ("value 0.25", "value 0.251", False),  # repr: no rounding allowance
    ("tensor(1)", "tensor(1.)", False), ("shape 3", "shape 4", False), ("1000000001", "1000000000", False),
    ("nan", "nan", True), ("nan", "0.0", False), ("inf", "-inf", False),
    ("torch.float32", "torch.float64", False), ("epoch 1/10", "epoch 1/10", True),
    ("grad_fn=<AddBackward0>", "grad_fn=<MulBackward0>", False), ("a b", "a  b", True),
    ("9.9999e-01", "1.0000e+00", True), ("torch 2.13.0", "torch 2.13.1", False),
])
def test_compare_line_cases(ref, got, match):
    assert (_compare.compare_line(ref, got, 1.3e-6, 1e-5) is None) is match


def test_exception_line():
    for exc in (RuntimeError("The size of tensor a (2) must match"), torch.cuda.OutOfMemoryError("oom: x"),
                ValueError()):
        try:
            raise exc
        except Exception as e:
            import traceback

            text = "warning: noise\n" + "".join(traceback.format_exception(e))
        want = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        assert _compare.exception_line(text) == want
    assert _compare.exception_line("no traceback here\n") is None

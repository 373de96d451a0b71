"""The deprecated positional overloads PyTorch 2.13 still accepts (torchshim/ops/_deprecated.py): the scalar
before the tensors in add/sub(_), addcmul/addcdiv(_), addmm/addmv/addr/addbmm/baddbmm(_), as functions and
methods, with PyTorch's UserWarning (text, category, the caller's line), once per process (every time
under set_warn_always(True)); the forms PyTorch rejects stay errors. Each case runs under torch and
torchshim."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import torchshim

LIBS = (torch, torchshim)

_MM = {"addmm": ("M", "m", "m"), "addmv": ("v", "m", "v"), "addr": ("M", "v", "v"), "addbmm": ("M", "B", "B"),
       "baddbmm": ("B", "B", "B")}

CASES = [
    "a.clone().add_(2, b)", "a.add(2, b)", "T.add(a, 2, b)", "T.add(a, 2, b, out=T.empty(2))",
    "a.clone().sub_(2, b)", "a.sub(2, b)", "T.sub(a, 2, b)", "T.sub(a, 0.5, b, out=T.empty(0))",
    "T.addcmul(a, 2, b, c)", "a.addcmul(2, b, c)", "a.clone().addcmul_(2, b, c)",
    "T.addcmul(a, 0.5, b, c, out=T.empty(2))",
    "T.addcdiv(a, 2, b, c)", "a.addcdiv(2, b, c)", "a.clone().addcdiv_(2, b, c)",
    # the scalar as a 0-dim tensor or NumPy scalar; `other` as a Number; a keyword for a later parameter
    "T.add(a, T.tensor(2), b)", "T.add(a, np.float64(2), b)", "T.add(a, 2.5, 3)", "a.add(2, 3)",
    "T.sub(a, 2, 3)",
    "T.add(a, 2, other=b)", "T.addcmul(a, 2, b, tensor2=c)", "T.addmm(2, M, m, mat2=m)",
    "T.add(i, 3, T.tensor([1, 2]))", "T.add(a, 2, T.tensor([1, 2]))",
    # the op's own checks still apply
    "T.add(a, True, b)", "T.add(i, 2.5, i)", "T.addcdiv(i, 2, i, i)", "T.addmm(2, M, 3, m, v)",
    # not deprecated forms: errors as before
    "T.add(a, T.tensor([2.0]), b)", "T.add(2, a, b)", "T.add(a, b, c)", "T.add(a, 2, [1, 2])",
    "T.addcmul(a, 2, b, 3)", "a.subtract(2, b)", "a.clone().subtract_(2, b)",
]
for _n, (_i, _x, _y) in _MM.items():
    CASES += [f"T.{_n}(2, {_i}, 3, {_x}, {_y})", f"T.{_n}(2, {_i}, {_x}, {_y})",
              f"{_i}.clone().{_n}(2, 3, {_x}, {_y})", f"{_i}.clone().{_n}(2, {_x}, {_y})",
              f"{_i}.clone().{_n}_(2, 3, {_x}, {_y})",
              f"{_i}.clone().{_n}_(0.5, {_x}, {_y})", f"T.{_n}(2, {_i}, 3, {_x}, {_y}, out=T.empty(0))"]


def _env(T):
    return {"T": T, "np": np, "a": T.tensor([1.0, 2.0]), "b": T.tensor([10.0, 20.0]),
            "c": T.tensor([3.0, 4.0]), "i": T.tensor([1, 2]), "M": T.ones(2, 2),
            "m": T.tensor([[1.0, 2.0], [3.0, 4.0]]),
            "v": T.tensor([1.0, -1.0]), "B": T.arange(8.0).reshape(2, 2, 2)}


def _run(T, code):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = eval(code, _env(T))
            out = ("ok", str(r.dtype).split(".")[-1], tuple(r.shape), r.numpy().tolist())
        except Exception as e:  # noqa: BLE001
            out = ("error", type(e).__name__, str(e).split("\n")[0])
    return out, [(x.category, str(x.message), os.path.basename(x.filename)) for x in w]


@pytest.fixture
def warn_always():
    """Both libraries warn on every deprecated call (PyTorch warns once per process otherwise); each library's
    setting is put back afterwards (conftest.py turns it on for the whole suite)."""
    before = [T.is_warn_always_enabled() for T in LIBS]
    for T in LIBS:
        T.set_warn_always(True)
    yield
    for T, b in zip(LIBS, before):
        T.set_warn_always(b)


def _same_error(ref, got, code):
    assert ref[:2] == got[:2], (code, ref, got)
    if "positional argument" in ref[2] or "invalid combination" in ref[2]:
        return  # Python's own arity message (torchshim) vs PyTorch's argument parser: same type only
    assert ref[2] == got[2], (code, ref, got)


@pytest.mark.parametrize("code", CASES)
def test_deprecated_form_matches_torch(code, warn_always):
    (ref, ref_w), (got, got_w) = (_run(T, code) for T in LIBS)
    if ref[0] == "error":
        _same_error(ref, got, code)
    else:
        assert got[:3] == ref[:3], (code, ref, got)
        np.testing.assert_allclose(np.array(got[3], dtype=float), np.array(ref[3], dtype=float), rtol=1e-6)
    assert got_w == ref_w, code  # the same warnings (text, category, the caller's frame: eval's "<string>")


def test_warning_points_at_the_caller(warn_always):
    for T in LIBS:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.ones(2).add(2, T.ones(2))
            line = sys._getframe().f_lineno - 1
        assert [(x.filename, x.lineno) for x in w] == [(__file__, line)], T.__name__


def test_the_forms_are_deprecated_not_current():
    """The cases above include the deprecated ones: each of those warns in PyTorch."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        warned = [c for c in CASES if _run(torch, c)[1]]
    finally:
        torch.set_warn_always(before)
    assert len(warned) >= 45


def test_gradients_through_deprecated_forms(warn_always):
    rng = np.random.default_rng(0)
    x0, y0, z0 = (rng.standard_normal((3, 3)) for _ in range(3))
    grads = []
    for T in LIBS:
        x, y, z = (T.tensor(v, dtype=T.float64, requires_grad=True) for v in (x0, y0, z0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = T.add(x, 3, y).sum() + x.addcmul(0.5, y, z).pow(2).sum() + T.addmm(2, x, 0.5, y, z).sum()
        r.backward()
        grads.append([t.grad.numpy() for t in (x, y, z)])
    for g_ref, g in zip(*grads):
        np.testing.assert_allclose(g, g_ref, rtol=1e-10)


_ONCE = r"""
import sys, warnings
T = __import__(sys.argv[1])
warnings.simplefilter("always")
a, b = T.ones(2), T.ones(2)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    T.add(a, 2, b); a.add(2, b); a.clone().sub_(2, b); T.addcmul(a, 2, b, b)
    T.addmm(2, T.ones(2, 2), T.eye(2), T.eye(2))
print(len(w), repr(str(w[0].message)) if w else None)
T.set_warn_always(True)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    a.add(2, b); a.add(2, b)
print(len(w))
"""


@pytest.mark.slow
def test_warns_once_per_process_for_all_forms():
    """PyTorch's one TORCH_WARN_ONCE site: the first deprecated call of the process warns, no later one (of
    any op); set_warn_always(True) makes each warn."""
    outs = [subprocess.run([sys.executable, "-c", _ONCE, T.__name__], capture_output=True, text=True,
                           timeout=300) for T in LIBS]
    for o in outs:
        assert o.returncode == 0, o.stderr
    assert outs[1].stdout == outs[0].stdout
    assert outs[0].stdout.split("\n")[0].startswith("1 'This overload of add is deprecated")

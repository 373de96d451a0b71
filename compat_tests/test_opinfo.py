"""PyTorch's own OpInfo sample inputs, run under torch and torchshim and compared (see opinfo_harness.py).

The ops of the numerics namespaces (linalg., fft., special.) and the issue-12 ops (NUMERICS below):
default run, the first sample of each tested dtype (forward); slow run (`-m slow`, CI runs it), the second
sample of each dtype but float32/complex64 and the gradient and gradient-of-gradient of the first float64
sample. Every sample of every OpInfo (about 62,000 forward and 14,000 gradient cases, hours; not in CI):
set TORCHSHIM_OPINFO_ALL=1 with `-m slow`. The records (compat_tests/records/) remain the suite's own cases
for these ops.

An op torchshim lacks is a skip naming it ("not in torchshim: <name>"); a known disagreement is a strict
xfail keyed by its case id in opinfo_known.py (a fix turns it into a failure until the entry goes).
"""
import os
import warnings

import pytest

import opinfo_harness as H
from opinfo_known import KNOWN

NAMESPACES = ("linalg.", "fft.", "special.")
# the top-level spellings and other ops of issue 12 ("Numerics") that have an OpInfo
NUMERICS = {
    "chalf", "cholesky", "cholesky_inverse", "cholesky_solve", "digamma", "empty_permuted", "geqrf",
    "gradient", "hash_tensor", "histogram", "histogramdd", "i0", "igamma", "igammac", "isreal", "istft",
    "logdet", "lu",
    "lu_solve", "lu_unpack", "matrix_exp", "mvlgamma.mvlgamma_p_1", "mvlgamma.mvlgamma_p_3", "nonzero_static",
    "norm", "norm.fro", "norm.inf", "norm.nuc", "ormqr", "pca_lowrank", "pinverse", "polygamma.polygamma_n_0",
    "polygamma.polygamma_n_1", "polygamma.polygamma_n_3", "qr", "resize_as_", "stft", "svd", "svd_lowrank",
    "triangular_solve", "nn.functional.embedding_bag", "lgamma", "erfinv", "xlogy", "logsumexp", "det",
    "slogdet", "inverse", "matrix_power", "ger", "kron", "trace", "tensordot", "cross", "cdist",
}
DEFAULT_SAMPLES = 1  # per op and dtype in the default run (CI time); the slow run takes 2
SLOW_SAMPLES = 2
SINGLE_PRECISION = ("float32", "complex64")
ALL = os.environ.get("TORCHSHIM_OPINFO_ALL") == "1"


def _default_keys():
    return {k for k in H.manifest() if k.startswith(NAMESPACES) or k in NUMERICS}


def _params(keys, n_samples):
    """(forward ids, grad ids) as pytest params, known gaps marked strict xfail."""
    fwd, grad = [], []
    for key in sorted(keys):
        e = H.manifest()[key]
        for dtype in e["dtypes"]:
            for i in range(min(n_samples, e["samples"][dtype])):
                fwd.append(_param(f"{key}-{dtype}-{i}", (key, dtype, i)))
        if e["grad"]:
            for i in range(min(n_samples, e["grad_samples"])):
                grad.append(_param(f"{key}-{H.GRAD_DTYPE}-{i}-grad", (key, i)))
    return fwd, grad


def _param(case_id, values):
    marks = ()
    if case_id in KNOWN:
        marks = (pytest.mark.xfail(strict=True, reason=KNOWN[case_id]),)
    return pytest.param(*values, id=case_id, marks=marks)


_DEFAULT = _default_keys()
FWD, _grad = _params(_DEFAULT, DEFAULT_SAMPLES)
SLOW_FWD, SLOW_GRAD = _params(set(H.manifest()) if ALL else _DEFAULT, 10**9 if ALL else SLOW_SAMPLES)
SLOW_FWD = [p for p in SLOW_FWD if p.id not in {q.id for q in FWD}]
if not ALL:
    # the second samples in float64, complex128 and the integer dtype: float32/complex64 differ from them by
    # precision only, which the first samples check (CI time: 551 -> ~330 slow forward cases)
    SLOW_FWD = [p for p in SLOW_FWD if p.values[1] not in SINGLE_PRECISION]
if not ALL:
    SLOW_GRAD = _grad  # gradients (second order included) cost seconds each: the slow run takes them


def _run(check, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            check(*args)
        except H.Skip as e:
            pytest.skip(str(e))


@pytest.mark.parametrize("key,dtype,index", FWD)
def test_opinfo_forward(key, dtype, index):
    _run(H.check_forward_case, key, dtype, index)


@pytest.mark.slow
@pytest.mark.parametrize("key,dtype,index", SLOW_FWD)
def test_opinfo_forward_all(key, dtype, index):
    _run(H.check_forward_case, key, dtype, index)


@pytest.mark.slow
@pytest.mark.parametrize("key,index", SLOW_GRAD)
def test_opinfo_grad_all(key, index):
    _run(H.check_grad_case, key, index)


def test_known_ids_are_cases():
    """Every opinfo_known.py entry names a case of this file (a stale entry would hide nothing)."""
    every, every_grad = _params(set(H.manifest()), 10**9)
    ids = {p.id for p in every + every_grad}
    assert not sorted(set(KNOWN) - ids)


@pytest.mark.slow
def test_manifest_is_current():
    """opinfo_manifest.json equals what the installed torch's op_db gives (rewrite it with
    `python compat_tests/opinfo_harness.py --write-manifest`): every op's entry, and the sample counts of the
    ops this file runs in CI (counting every op's samples takes many minutes)."""
    # built in a thread of its own (H.in_fresh_thread: torch's per-sample stack records cost in proportion to
    # pytest's deep stack: 56 -> 37 s of CPU)
    def build():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return H.build_manifest(count_keys=_DEFAULT)["ops"]
    built = H.in_fresh_thread(build)
    stored = H.manifest()
    assert sorted(built) == sorted(stored)
    for key, entry in built.items():
        if key not in _DEFAULT:
            entry = dict(entry, samples=stored[key]["samples"],
                         grad_samples=stored[key]["grad_samples"] if entry["grad"] else 0,
                         values=stored[key]["values"] if entry["values"] is None else entry["values"])
        assert entry == stored[key], key

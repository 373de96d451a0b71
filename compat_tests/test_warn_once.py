"""Warnings PyTorch raises once per process (`TORCH_WARN_ONCE`): each snippet runs twice in a fresh
interpreter, under torch and under torchshim, and both must warn the same text the first time and stay silent
the second."""
import json
import subprocess
import sys

import pytest

SNIPPETS = {
    "complex_to_real_setitem": "T.zeros(3).__setitem__(0, T.tensor(1 + 2j))",
    "asarray_requires_grad": "T.asarray(T.ones(2, requires_grad=True))",
    "scatter_reduce_tensor_src": "T.zeros(3).scatter(0, T.tensor([0]), T.ones(1), reduce='add')",
    "index_reduce_beta": "T.zeros(3).index_reduce(0, T.tensor([0]), T.ones(1), 'prod')",
    "where_uint8": "T.where(T.tensor([1, 0], dtype=T.uint8), T.ones(2), T.zeros(2))",
    "meshgrid_indexing": "T.meshgrid(T.ones(2), T.ones(2))",
    "T_on_3d": "T.ones(2, 3, 4).T",
    "T_on_0d": "T.tensor(1.0).T",
    "mT_on_0d": "T.tensor(1.0).mT",
    "H_on_0d": "T.tensor(1.0).H",
    "cross_without_dim": "T.cross(T.ones(3, 3), T.ones(3, 3))",
}

_RUNNER = """
import json, re, sys, warnings
import {lib} as T
out = {{}}
for name, code in json.loads(sys.argv[1]).items():
    runs = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            eval(code)
        runs.append([re.sub(r"\\s*\\(Triggered internally at .*", "", str(w.message)) for w in seen])
    out[name] = runs
print(json.dumps(out))
"""


def _run(lib):
    proc = subprocess.run([sys.executable, "-c", _RUNNER.format(lib=lib), json.dumps(SNIPPETS)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def both():
    return _run("torch"), _run("torchshim")


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_warns_once(both, name):
    ref, got = both
    assert ref[name][0], f"torch no longer warns for {name}; the snippet needs updating"
    assert ref[name][1] == [], f"torch warns more than once for {name}"
    assert got[name] == ref[name]

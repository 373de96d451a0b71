"""docs/coverage.md / docs/coverage.json (written by `nox -s coverage`, tools/coverage.py) against torchshim:
a name the doc marks present must be present, and the doc's table must agree with its JSON."""
import importlib.util
import json
import os
import re

import pytest

import torchshim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("_coverage_tool", os.path.join(ROOT, "tools", "coverage.py"))
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)

with open(coverage.JSON) as _f:
    DATA = json.load(_f)


@pytest.mark.parametrize("ns", sorted(DATA["namespaces"]))
def test_supported_names_are_present(ns):
    entry = DATA["namespaces"][ns]
    s_obj = coverage._shim_namespace(torchshim, ns)
    gone = [name for name in entry["supported"]
            if not coverage.has_name(s_obj, ns, name, coverage.types.ModuleType(name)
                                     if name in entry["modules"] else None)]
    assert not gone, f"docs/coverage.md marks these torch.{ns} names supported, torchshim lacks them: {gone}"


def test_doc_table_matches_json():
    with open(coverage.DOC) as f:
        doc = f.read()
    for ns, entry in DATA["namespaces"].items():
        n = len(entry["supported"]) + len(entry["missing"])
        row = re.search(rf"^\| {re.escape(ns)} \| (\d+) \| (\d+) \|", doc, re.M)
        assert row, f"no row for {ns} in docs/coverage.md"
        assert (int(row.group(1)), int(row.group(2))) == (n, len(entry["supported"]))


def test_every_namespace_and_rule_is_in_the_doc():
    assert sorted(DATA["namespaces"]) == sorted(coverage.NAMESPACES)
    with open(coverage.DOC) as f:
        doc = f.read()
    for rule in coverage.RULES:
        assert f"| `{rule.id}` |" in doc
    used = {r for e in DATA["namespaces"].values() for r in e["excluded"].values()}
    assert used <= {r.id for r in coverage.RULES}


def test_namespace_lookup_goes_through_the_dotted_path():
    assert coverage._shim_namespace(torchshim, "nn.functional") is torchshim.nn.functional
    assert coverage._shim_namespace(torchshim, "Tensor") is torchshim.Tensor
    assert coverage.has_name(torchshim.nn, "nn", "Linear")
    assert not coverage.has_name(torchshim.nn, "nn", "NoSuchLayer")

"""Every op in the table has a record (or a named hand-written test); a missing one fails here."""
from records import covered_names

from torchshim.ops._registry import OPS


def test_every_op_has_a_record():
    missing = sorted(set(OPS) - covered_names())
    assert not missing, f"ops without a conformance record: {missing}"


def test_records_name_real_ops():
    names = set(OPS) | {a for op in OPS.values() for a in op.aliases}
    unknown = sorted(n for n in covered_names() if n not in names)
    assert not unknown, f"records name ops that are not in the table: {unknown}"


def test_duplicate_registration_fails():
    import pytest

    from torchshim.ops._registry import register
    with pytest.raises(RuntimeError, match="registered twice"):
        register("add")(lambda input, other: None)

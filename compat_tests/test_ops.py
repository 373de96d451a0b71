"""Every op record, expanded into cases, run under torch and torchshim and compared (see harness.py)."""
import pytest

from harness import cases_of, check
from records import all_records

CASES = cases_of(all_records())


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op(case):
    check(case.fn, case.specs, rtol=case.rtol, atol=case.atol, msg=case.msg, check_stride=case.check_stride)

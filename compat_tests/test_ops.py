"""Every op record, expanded into cases, run under torch and torchshim and compared (see harness.py)."""
import pytest

from harness import cases_of, check, unique_ids
from records import all_records

CASES = cases_of(all_records())


@pytest.mark.parametrize("case", CASES, ids=unique_ids(c.id for c in CASES))  # pytest's names, linear time
def test_op(case):
    check(case.fn, case.specs, rtol=case.rtol, atol=case.atol, msg=case.msg, check_stride=case.check_stride)

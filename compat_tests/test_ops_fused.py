"""The op records in fused eager mode (issue 14): each record's first dtype, its first and last samples (and
the method, in-place and out= variants of the first), run by torchshim with `set_eager_mode("fused")` and
compared with PyTorch exactly as test_ops.py compares op mode. The recorded ops run when the case's result
is read (or at the flush the harness makes inside the call, so errors found when they run are the call's).
The whole record suite in fused mode (every case of test_ops.py) is `nox -s tests -- compat_tests/test_ops.py`
with TORCHSHIM_TEST_EAGER=fused."""
import os

import pytest

import harness
from harness import check, fused_slice, unique_ids
from records import all_records

CASES = [c for rec in all_records() for c in fused_slice(rec)]


@pytest.fixture(autouse=True)
def _fused_mode():
    harness.EAGER_MODE = "fused"
    yield
    harness.EAGER_MODE = os.environ.get("TORCHSHIM_TEST_EAGER", "op")


@pytest.mark.parametrize("case", CASES, ids=unique_ids(c.id for c in CASES))
def test_op_fused(case):
    check(case.fn, case.specs, rtol=case.rtol, atol=case.atol, msg=case.msg, check_stride=case.check_stride)

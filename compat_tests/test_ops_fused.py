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

# Known differences of fused mode (strict: they fail once fixed). A segment is one XLA program, and XLA:CPU
# contracts a multiply and an add into one fused multiply-add (one rounding where op mode and PyTorch round
# twice), as any compiled program does (torch.compile too): `x.mul_(-3); x.add_(1)` then differs in the last
# bit, which these cases show exactly (they compare float bits viewed as int32; float results are compared
# with tolerances and pass).
_FMA = "x.mul_(-3); x.add_(1) in one program: XLA contracts it into a fused multiply-add (one rounding); " \
       "the case reads the float bits as int32 and compares them exactly"
KNOWN = {"view-float32-0_11": _FMA, "view-float32-2_1": _FMA}
IDS = unique_ids(c.id for c in CASES)
PARAMS = [pytest.param(c, id=i, marks=pytest.mark.xfail(strict=True, reason=KNOWN[i])) if i in KNOWN else
          pytest.param(c, id=i) for c, i in zip(CASES, IDS)]


@pytest.fixture(autouse=True)
def _fused_mode():
    harness.EAGER_MODE = "fused"
    yield
    harness.EAGER_MODE = os.environ.get("TORCHSHIM_TEST_EAGER", "op")


@pytest.mark.parametrize("case", PARAMS)
def test_op_fused(case):
    check(case.fn, case.specs, rtol=case.rtol, atol=case.atol, msg=case.msg, check_stride=case.check_stride)

"""First and second order gradients of every op record against real PyTorch (see grad_harness.py).

Per record a few cases (grad_harness.record_grad_cases): float64 (else float32) first and last sample, a float32
sample and a complex sample where the op takes complex. Known gaps in ops owned elsewhere are xfailed in XFAIL
by case id, with the reason."""
import pytest

from grad_harness import check_grad, record_grad_cases
from records import all_records

CASES = record_grad_cases(all_records())

# case id -> reason (gaps in files not owned by the gradient work; see the report)
XFAIL = {}


def _param(c):
    marks = [pytest.mark.xfail(reason=XFAIL[c.id], strict=True)] if c.id in XFAIL else []
    return pytest.param(c, id=c.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_gradient(case):
    check_grad(case.fn, case.specs, rtol=case.rtol, atol=case.atol, msg=case.msg)

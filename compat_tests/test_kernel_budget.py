"""torchshim/_kernel_budget.py: past a share of vm.max_map_count, jax's kernel caches are dropped at the next
eager op (outside any trace), and computation carries on with the same results."""
import jax
import numpy as np
import pytest

import torchshim
from torchshim import _kernel_budget as KB

pytestmark = pytest.mark.skipif(KB.max_map_count() is None, reason="needs /proc (Linux)")


def test_map_count_reads_this_process():
    assert 0 < KB.map_count() < KB.max_map_count()


def test_caches_are_dropped_at_the_next_eager_op_and_results_stay_right(monkeypatch):
    cleared = []
    original = jax.clear_caches
    monkeypatch.setattr(jax, "clear_caches", lambda: (cleared.append(1), original())[1])
    monkeypatch.setattr(KB, "CHECK_EVERY", 1)
    monkeypatch.setattr(KB, "FRACTION", 0.0)  # any mapping count is "too many"
    x = torchshim.tensor(np.arange(7.0), requires_grad=True)
    y = (x * 3.5).sin()  # may compile and clear already
    cleared.clear()
    jax.jit(lambda a: a + 1)(np.ones(3))  # a new function always compiles: marks the caches for clearing
    assert KB.pending and not cleared
    z = y * 2  # the next eager result is a safe point
    assert cleared and not KB.pending
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 7.0 * np.cos(np.arange(7.0) * 3.5), rtol=1e-12)


def test_no_clearing_inside_a_trace(monkeypatch):
    cleared = []
    monkeypatch.setattr(jax, "clear_caches", lambda: cleared.append(1))
    monkeypatch.setattr(KB, "pending", True)

    def f(a):
        t = torchshim.ops._dispatch.fresh(a, torchshim.float32, torchshim.device("cpu"))
        return (t * 2)._value
    out = jax.jit(f)(np.ones(3, np.float32))
    assert not cleared and KB.pending
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2.0, np.float32))

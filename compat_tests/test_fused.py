"""Fused eager mode (issue 14): the same answers and errors as op mode and PyTorch, programs cached, flush
points, recompile reasons, the op-by-op fallback, deferred value checks. (Every op record in fused mode:
test_ops_fused.py.)"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import harness
import torchshim
from torchshim import _fused

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


@pytest.fixture
def fused():
    """Fused mode for the test's body; counts and shape history start empty; op mode afterwards."""
    torchshim.set_eager_mode("fused")
    torchshim.fused.reset_stats()
    torchshim.fused.clear_cache()
    yield torchshim.fused
    torchshim.set_eager_mode("op")


def _mlp_run(T, steps, fused_mode):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(20, 32), T.nn.ReLU(), T.nn.Dropout(0.1), T.nn.Linear(32, 5))
    opt = T.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = T.randn(16, 20)
    y = T.randint(0, 5, (16,))
    if fused_mode:
        T.set_eager_mode("fused")
    losses = []
    try:
        for _ in range(steps):
            opt.zero_grad()
            loss = T.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    finally:
        if fused_mode:
            T.set_eager_mode("op")
    return losses, {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def test_training_loop_equals_op_mode_and_compiles_once():
    torchshim.fused.clear_cache()
    torchshim.fused.reset_stats()
    op_losses, op_state = _mlp_run(torchshim, 6, False)
    fu_losses, fu_state = _mlp_run(torchshim, 6, True)
    st = torchshim.fused.stats()
    np.testing.assert_allclose(fu_losses, op_losses, rtol=1e-6, atol=1e-7)
    for k in op_state:
        np.testing.assert_allclose(fu_state[k], op_state[k], rtol=1e-5, atol=1e-7, err_msg=k)
    # one segment per step (forward, backward and the optimizer's update), ended by optimizer.step();
    # the first step compiles, the second too (momentum buffers appear), then every step is a cache hit
    assert st["segments"] == 6, st
    assert st["flush_reasons"] == {"optimizer.step()": 6}, st
    assert st["compiles"] == 2 and st["cache_hits"] == 4, st
    assert st["ops"] > 6 * 10


def test_random_streams_equal_op_mode(fused):
    torchshim.set_eager_mode("op")
    torchshim.manual_seed(3)
    ref = [torchshim.randn(5, 7).numpy(), torchshim.rand(3).numpy(),
           torchshim.nn.functional.dropout(torchshim.ones(4, 6), 0.5).numpy()]
    torchshim.set_eager_mode("fused")
    torchshim.manual_seed(3)
    got = [torchshim.randn(5, 7), torchshim.rand(3),
           torchshim.nn.functional.dropout(torchshim.ones(4, 6), 0.5)]
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(b.numpy(), a)


def test_views_inplace_and_version_counters():
    def fn(T):
        x = T.arange(12.0).reshape(3, 4)
        v = x[1:, ::2]
        v.mul_(10)
        d = x.diagonal()
        d.add_(1)
        x.t()[0].zero_()
        return x, v, d, x._version
    harness.EAGER_MODE = "fused"
    try:
        harness.check(fn)
    finally:
        harness.EAGER_MODE = "op"


def test_autograd_errors_match_pytorch():
    def backward_twice(T):
        a = T.ones(3, requires_grad=True)
        b = (a * a).sum()
        b.backward()
        b.backward()

    def modified_saved(T):
        a = T.ones(3, requires_grad=True)
        b = a * 1
        c = b.sin()  # saves b
        b.add_(1)
        c.sum().backward()

    def shape_error(T):
        return T.ones(2, 3) + T.ones(4)

    harness.EAGER_MODE = "fused"
    try:
        for fn in (backward_twice, modified_saved, shape_error):
            ref, got = harness.check(fn)
            assert ref.error is not None, fn.__name__
    finally:
        harness.EAGER_MODE = "op"


def test_shape_errors_raise_at_the_op(fused):
    a = torchshim.ones(2, 3) * 2  # pending
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        a + torchshim.ones(4)
    assert fused.stats()["segments"] == 0  # raised while recording: nothing ran


def test_deferred_index_check_names_the_op_line(fused):
    logits = torchshim.randn(4, 3)
    targets = torchshim.tensor([0, 1, 2, 1]) + 2  # pending: values known only when the segment runs
    loss = torchshim.nn.functional.cross_entropy(logits, targets)  # recorded; checked at the flush
    line = f"{__file__}:{sys._getframe().f_lineno - 1}"
    with pytest.raises(IndexError, match="Target 3 is out of bounds.") as info:
        loss.item()
    note = "\n".join(getattr(info.value, "__notes__", []))
    assert line in note and "fused eager mode" in note
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        torch.nn.functional.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, 1]) + 2)


def test_deferred_gather_index_check(fused):
    x = torchshim.arange(6.0).reshape(2, 3)
    idx = torchshim.tensor([[0, 1], [2, 0]]) * 2  # 4 is out of range for dim 1 (size 3)
    out = x.gather(1, idx)
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 3"):
        out.numpy()


def test_host_reads_flush(fused):
    x = torchshim.ones(3) * 2
    assert fused.stats()["segments"] == 0
    assert x.sum().item() == 6.0
    assert bool((x > 1).all())
    assert x.tolist() == [2.0, 2.0, 2.0]
    reasons = fused.stats()["flush_reasons"]
    # item() ran x * 2 and the sum; bool() ran > and all; x itself was computed by the first (it was still
    # referenced), so tolist() runs nothing
    assert sum(n for why, n in reasons.items() if why.startswith("a host read")) == 2, reasons
    assert fused.stats()["ops"] == 4


def test_length_limit_flushes(fused, monkeypatch):
    monkeypatch.setattr(_fused.STATE, "max_ops", 5)
    x = torchshim.zeros(4)
    for _ in range(12):
        x = x + 1
    assert fused.stats()["segments"] >= 2
    np.testing.assert_array_equal(x.numpy(), np.full(4, 12.0, np.float32))


def test_changing_shapes_fall_back_to_op_by_op(fused, monkeypatch):
    monkeypatch.setattr(_fused.STATE, "recompile_limit", 3)
    for n in range(1, 9):
        y = (torchshim.ones(n) * 3).sum()
        assert y.item() == 3.0 * n
    st = fused.stats()
    assert st["compiles"] == 3 and st["op_by_op_segments"] == 5, st


def test_program_cache_is_bounded(fused, monkeypatch):
    monkeypatch.setattr(_fused.STATE, "cache_size", 2)
    for n in range(1, 5):
        (torchshim.ones(n) + 1).numpy()
    st = fused.stats()
    assert st["cache_size"] == 2 and st["evictions"] == 2, st


def test_compiled_function_inside_fused_mode(fused):
    f = torchshim.compile(lambda a, b: (a * b).sin() + 1)
    a, b = torchshim.randn(3, 4) * 2, torchshim.randn(3, 4)
    torchshim.set_eager_mode("op")
    ref = ((a * b).sin() + 1).numpy()
    torchshim.set_eager_mode("fused")
    np.testing.assert_allclose(f(a, b).numpy(), ref, rtol=1e-6)


def test_mode_switch_happens_even_if_the_pending_ops_fail():
    torchshim.set_eager_mode("fused")
    try:
        x = torchshim.arange(3.0)
        idx = torchshim.tensor([0, 5]) + 0  # pending: the bounds check waits for the flush
        x.gather(0, idx)
        with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
            torchshim.set_eager_mode("op")
        assert torchshim.fused.eager_mode() == "op"
    finally:
        torchshim.set_eager_mode("op")


def test_mode_switch_validation():
    with pytest.raises(ValueError, match="eager mode must be one of"):
        torchshim.set_eager_mode("lazy")
    assert torchshim.fused.eager_mode() == "op"


def _run(code, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TORCHSHIM_EAGER", None)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


def test_recompile_log_names_the_op_and_shapes(tmp_path):
    code = textwrap.dedent("""
        import torchshim as torch
        torch.set_eager_mode("fused")
        for n in (3, 3, 5):
            x = torch.ones(n, 2)
            y = (x * 2).sum(0)
            y.tolist()
    """)
    r = _run(code, env_extra={"TORCHSHIM_LOGS": "recompiles"})
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("[torchshim fused]")]
    assert len(lines) == 2, r.stderr
    assert lines[0].startswith("[torchshim fused] compiling a segment of 2 ops")
    assert "recompiling a segment of 2 ops" in lines[1]
    assert "input shapes/dtypes changed: ['float32[3, 2]'" in lines[1] and "'float32[5, 2]'" in lines[1]


def test_run_fused_flag(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import torch, torchshim\nx = torch.ones(3) + 1\nprint(torchshim.fused.eager_mode(), "
                      "x.tolist())\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("TORCHSHIM_EAGER", None)
    r = subprocess.run([sys.executable, "-m", "torchshim", "run", "--fused", str(script)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "fused [2.0, 2.0, 2.0]"


def test_threads_share_the_segment_safely(fused):
    # multiprocessing's queue feeder thread pickles (reads) tensors while the DataLoader worker's main thread
    # records the next batch: a flush from one thread must not run a record another thread is making
    import threading

    errors = []

    def work(k):
        try:
            base = torchshim.arange(6.0) + k
            for i in range(150):
                x = (base + i) * 2
                assert x.sum().item() == 2 * (6 * (k + i) + 15)
        except Exception as e:  # noqa: BLE001  reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]

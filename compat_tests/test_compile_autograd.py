"""Autograd across compiled forwards, donation safety and Python-visible side effects under `torch.compile`
(issue 11, parts 1-2): a compiled forward is one `CompiledFunctionBackward` node whose gradients (first and
second order) equal the eager ones; a donated parameter never corrupts facade tensors aliasing it; in-place
writes to inputs and buffers are seen by the caller; views, scalars and containers come back as eagerly."""
import numpy as np
import pytest
import torch

import torchshim
from compile_harness import compare_states, compare_tensors, mlp, no_warnings, pair, state, traces

T = torchshim


def _x(T, requires_grad=False):
    rng = np.random.default_rng(7)
    x = T.tensor(rng.normal(size=(5, 8)), dtype=T.float32)
    return x.requires_grad_() if requires_grad else x


@pytest.mark.slow
def test_forward_backward_grads_equal_eager_and_torch():
    ref, a, b = pair(mlp)
    c = T.compile(b)
    outs = {}
    for lib, m in ((torch, ref), (T, a), (T, c)):
        x = _x(lib, requires_grad=True)
        y = m(x)
        (y * y).sum().backward()
        outs[id(m)] = (y, x.grad)
    compare_tensors(outs[id(a)][0], outs[id(c)][0])
    compare_tensors(outs[id(a)][1], outs[id(c)][1])
    compare_tensors(outs[id(ref)][0], outs[id(c)][0])
    compare_tensors(outs[id(ref)][1], outs[id(c)][1])
    compare_states(state(a), state(b))


@pytest.mark.slow
def test_grad_fn_is_one_compiled_node():
    c = T.compile(mlp(T))
    y = c(_x(T, requires_grad=True))
    assert type(y.grad_fn).__name__ == "CompiledFunctionBackward"
    assert y.grad_fn.name() == "CompiledFunctionBackward"
    ty = torch.compile(mlp(torch), backend="aot_eager")(_x(torch, requires_grad=True))
    assert type(ty.grad_fn).__name__ == "CompiledFunctionBackward"


def test_backward_twice_error():
    c = T.compile(mlp(T))
    loss = c(_x(T, requires_grad=True)).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


@pytest.mark.slow
def test_retain_graph_backward_twice_accumulates():
    m = mlp(T)
    c = T.compile(m)
    loss = c(_x(T)).sum()
    loss.backward(retain_graph=True)
    g1 = m[0].weight.grad.clone()
    loss.backward()
    compare_tensors(g1 * 2, m[0].weight.grad)


@pytest.mark.slow
def test_second_order_gradient_penalty_equals_eager():
    # WGAN-GP style: grad of the output w.r.t. the input with create_graph=True, then backward of its norm
    ref, a, b = pair(lambda L: L.nn.Sequential(L.nn.Linear(8, 16), L.nn.Tanh(), L.nn.Linear(16, 1)))
    c = T.compile(b)
    gs = []
    for lib, m, p in ((torch, ref, ref), (T, a, a), (T, c, b)):
        x = _x(lib, requires_grad=True)
        out = m(x)
        g, = lib.autograd.grad(out.sum(), x, create_graph=True)
        gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
        gp.backward()
        gs.append([lib.zeros_like(q) if q.grad is None else q.grad for q in p.parameters()])
    compare_tensors(gs[1], gs[2])
    compare_tensors(gs[0], gs[2], rtol=1e-4, atol=1e-5)
    # (PyTorch's own compiled forward refuses double backward: "torch.compile with aot_autograd does not
    # currently support double backward"; torchshim's differentiates the forward again)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="second order through a compiled forward: a parameter the penalty "
                   "does not depend on (the last bias) gets a zero .grad instead of None (eager: None)")
def test_second_order_unused_parameter_grad_is_none():
    m = T.nn.Sequential(T.nn.Linear(8, 16), T.nn.Tanh(), T.nn.Linear(16, 1))
    c = T.compile(m)
    x = _x(T, requires_grad=True)
    g, = T.autograd.grad(c(x).sum(), x, create_graph=True)
    (g ** 2).sum().backward()
    assert m[2].bias.grad is None


def test_no_grad_call_has_no_graph():
    c = T.compile(mlp(T))
    with T.no_grad():
        y = c(_x(T))
    assert y.grad_fn is None and not y.requires_grad


# ---- donation --------------------------------------------------------------------------------------------
def _trained_step():
    m = mlp(T)
    opt = T.optim.SGD(m.parameters(), lr=0.5)
    x = _x(T)

    def step():
        opt.zero_grad()
        m(x).pow(2).mean().backward()
        opt.step()
    c = T.compile(step)
    c()
    c()
    return m, c


def test_donation_views_and_clones():
    m, c = _trained_step()
    w = m[0].weight
    view = w[1]
    data = w.data
    det = w.detach()
    tview = w.t()
    clone = w.clone()
    old = w.detach().numpy().copy()
    npy = w.detach().numpy()
    c()
    new = w.detach().numpy()
    assert np.abs(new - old).max() > 1e-3, "the step changed the weight"
    np.testing.assert_array_equal(view.detach().numpy(), new[1])
    np.testing.assert_array_equal(data.numpy(), new)
    np.testing.assert_array_equal(det.numpy(), new)
    np.testing.assert_array_equal(tview.detach().numpy(), new.T)
    np.testing.assert_array_equal(clone.detach().numpy(), old)
    np.testing.assert_array_equal(npy, old)  # .numpy() is a copy in torchshim (docs/differences.md)
    assert m[0].weight is w
    # the aliases are still usable after further steps (a donated buffer is never read again)
    c()
    np.testing.assert_array_equal(view.detach().numpy(), w.detach().numpy()[1])
    assert traces(c) <= 2


@pytest.mark.slow
def test_donation_view_of_param_in_closure_of_step():
    # a view of a parameter that the step itself also reaches (closure) stays an alias
    m = mlp(T)
    opt = T.optim.SGD(m.parameters(), lr=0.5)
    x = _x(T)
    row = m[0].weight[0]

    def step():
        opt.zero_grad()
        (m(x).pow(2).mean() + row.sum()).backward()
        opt.step()
        return row * 1
    c = T.compile(step)
    for _ in range(3):
        r = c()
        np.testing.assert_array_equal(row.detach().numpy(), m[0].weight.detach().numpy()[0])
        np.testing.assert_array_equal(r.detach().numpy(), m[0].weight.detach().numpy()[0])  # after step


# ---- side effects and results ----------------------------------------------------------------------------
def test_inplace_on_input_seen_by_caller():
    def f(t, u):
        t.add_(1)
        u[0] = 5
        return t * 2
    c = T.compile(f)
    for _ in range(2):
        a, b = T.zeros(3), T.zeros(2)
        r = c(a, b)
        assert a.tolist() == [1.0, 1.0, 1.0] and b.tolist() == [5.0, 0.0] and r.tolist() == [2.0] * 3
    assert traces(c) == 1


def test_inplace_on_view_input_updates_base():
    base = T.zeros(2, 3)
    c = T.compile(lambda v: v.mul_(0).add_(4))
    c(base[:, 1])
    assert base.tolist() == [[0.0, 4.0, 0.0], [0.0, 4.0, 0.0]]


def test_batchnorm_running_stats_updated():
    ref, a, b = pair(lambda L: L.nn.BatchNorm1d(8))
    c = T.compile(b)
    for i in range(3):
        xs = np.random.default_rng(i).normal(size=(5, 8))
        ref(torch.tensor(xs, dtype=torch.float32))
        a(T.tensor(xs, dtype=T.float32))
        with no_warnings():
            c(T.tensor(xs, dtype=T.float32))
    compare_states(state(a), state(b))
    for n, bf in ref.named_buffers():
        compare_tensors(bf, dict(b.named_buffers())[n])
    assert int(b.num_batches_tracked) == 3


def test_returned_view_of_input_aliases():
    c = T.compile(lambda t: t[1:])
    base = T.arange(4.0)
    v = c(base)
    base.add_(10)
    assert v.tolist() == [11.0, 12.0, 13.0]
    assert v._base is base


def test_returned_input_itself_after_inplace():
    c = T.compile(lambda t: t.add_(1))
    a = T.zeros(2)
    r = c(a)
    r.add_(1)
    assert a.tolist() == [2.0, 2.0]


def test_returns_scalars_tuples_dicts():
    def f(t):
        return t.sum(), {"a": t * 2, "b": [t + 1, 3]}, 1.5, "s", (t.shape[0], None)
    c = T.compile(f)
    x = T.arange(3.0)
    got = c(x)
    exp = f(x)
    compare_tensors(exp[0], got[0])
    compare_tensors(exp[1]["a"], got[1]["a"])
    compare_tensors(exp[1]["b"][0], got[1]["b"][0])
    assert got[1]["b"][1] == 3 and got[2:] == (1.5, "s", (3, None))
    assert list(got[1]) == ["a", "b"]


def test_returns_namedtuple():
    c = T.compile(lambda t: T.max(t, dim=0))
    r = c(T.tensor([[1.0, 5.0], [3.0, 2.0]]))
    assert type(r).__name__ == "max" and r.values.tolist() == [3.0, 5.0] and r.indices.tolist() == [1, 0]


def test_input_requires_grad_gradient_only_input():
    c = T.compile(lambda a, b: (a * b).sin())
    a = T.tensor([0.5, 1.0], requires_grad=True)
    b = T.tensor([2.0, 3.0])
    c(a, b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), (b * (a * b).cos()).detach().numpy(), rtol=1e-6)
    assert b.grad is None

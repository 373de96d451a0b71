"""Embedding gradients beyond the records: padding rows, frequency scaling, max-mode ties, per_sample_weights
(whose double backward PyTorch doesn't implement), and the known gaps."""
import pytest

from grad_harness import V, check_grad
from harness import Arg, Idx, check


def _ints(T, values):
    return T.tensor(values)


W3 = [[1.0, 2.0], [1.0, 3.0], [0.0, 2.0]]


def _bag(T, w, indices, offsets=None, **kw):
    return T.nn.functional.embedding_bag(_ints(T, indices), w, None if offsets is None else _ints(T, offsets),
                                         **kw)


CASES = {
    "embedding_padding_freq": (lambda T, w: T.nn.functional.embedding(
        _ints(T, [[0, 2, 2], [1, 2, 3]]), w, padding_idx=1, scale_grad_by_freq=True),
        [V([[1.0, -2.0], [3.0, 0.5], [0.0, 1.0], [-1.0, 2.0]])]),
    "embedding_0d_index": (lambda T, w: T.embedding(w, _ints(T, 2)), [V(W3)]),
    "bag_max_ties": (lambda T, w: _bag(T, w, [0, 1, 2, 2], [0, 2], mode="max"), [V(W3)]),
    "bag_sum_weights": (lambda T, w, p: _bag(T, w, [0, 1, 2, 2], [0, 2], mode="sum", per_sample_weights=p),
                        [V(W3), V([0.5, -1.0, 2.0, 1.5])]),
    "bag_sum_weights_padding": (lambda T, w, p: _bag(T, w, [[0, 1], [2, 1]], mode="sum", per_sample_weights=p,
                                                     padding_idx=1), [V(W3), V([[0.5, -1.0], [2.0, 1.5]])]),
    "bag_mean_empty_bag": (lambda T, w: _bag(T, w, [0, 1, 2], [0, 0, 2], mode="mean"), [V(W3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_embedding_gradients(name):
    fn, specs = CASES[name]
    check_grad(fn, specs)


def test_one_hot_under_tracing_needs_num_classes():
    import jax
    import torchshim

    def f(a):
        t = torchshim.Tensor._make(torchshim._storage.Storage(a, torchshim.device("cpu")), a.shape, (1,), 0,
                                   torchshim.int64)
        return torchshim.nn.functional.one_hot(t, 4)._value
    assert jax.jit(f)(jax.numpy.arange(3)).shape == (3, 4)
    with pytest.raises(RuntimeError, match="under jax tracing"):
        jax.jit(lambda a: torchshim.nn.functional.one_hot(
            torchshim.Tensor._make(torchshim._storage.Storage(a, torchshim.device("cpu")), a.shape, (1,), 0,
                                   torchshim.int64))._value)(jax.numpy.arange(3))


@pytest.mark.xfail(strict=True, reason="sparse gradients: torchshim's gradients are dense, so "
                                       "embedding(sparse=True)"
                   " raises NotImplementedError (PyTorch returns the lookup and a sparse weight gradient)")
def test_embedding_sparse():
    check(lambda T, i, w: T.nn.functional.embedding(i, w, sparse=True), [Idx((3,), 5), Arg((5, 2))])


@pytest.mark.xfail(strict=True, reason="embedding_bag(scale_grad_by_freq=True) is not implemented in "
                                       "torchshim")
def test_embedding_bag_scale_grad_by_freq():
    check(lambda T, i, w: T.nn.functional.embedding_bag(i, w, scale_grad_by_freq=True), [Idx((2, 3), 5),
                                                                                         Arg((5, 2))])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_double_backward_raises(mode):
    def fn(T, w):
        o = T.nn.functional.embedding_bag(T.tensor([0, 1, 2, 2]), w, T.tensor([0, 1]), mode=mode)
        (g,) = T.autograd.grad((o * o).sum(), w, create_graph=True)
        return T.autograd.grad(g.sum(), w)
    check(fn, [Arg((5, 2), "float64", requires_grad=True)])

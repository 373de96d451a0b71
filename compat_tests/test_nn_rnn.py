"""nn.RNN / LSTM / GRU, the cells, and torch.nn.utils.rnn (PackedSequence, packing and padding) against real
PyTorch through nn_harness: outputs, hidden states, input and parameter gradients (a few second order), packed
sequences, errors, reprs and state dicts (an LSTM language model), tracing; default initialisation and dropout
between layers checked statistically (the RNG streams differ)."""
import math
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import Arg, check
from nn_harness import build_pair, check_module, check_repr, check_state_dict_roundtrip, check_traced

X = lambda *shape, dtype="float32", nc=False: Arg(shape, dtype, -1, 1, noncontig=nc)  # noqa: E731


# ---- whole recurrences -------------------------------------------------------------------------------------
@pytest.mark.parametrize("build,inputs,second", [
    (lambda T: T.nn.RNN(3, 4), [X(5, 2, 3)], True),
    (lambda T: T.nn.RNN(3, 4, 2, nonlinearity="relu", bias=False), [X(5, 2, 3), X(2, 2, 4)], False),
    (lambda T: T.nn.RNN(3, 4, 1, "relu", True, True), [X(2, 5, 3)], False),
    (lambda T: T.nn.LSTM(3, 4), [X(5, 2, 3)], True),
    (lambda T: T.nn.LSTM(3, 4, 2, bidirectional=True).double(), [X(5, 2, 3, dtype="float64")], False),
    (lambda T: T.nn.LSTM(3, 5, 2, proj_size=2, batch_first=True), [X(2, 4, 3), (X(2, 2, 2), X(2, 2, 5))],
     False),
    (lambda T: T.nn.LSTM(3, 4, bias=False), [X(4, 3)], False),
    (lambda T: T.nn.LSTM(3, 4), [X(4, 3), (X(1, 4), X(1, 4))], False),
    (lambda T: T.nn.GRU(3, 4), [X(5, 2, 3, nc=True), X(1, 2, 4)], True),
    (lambda T: T.nn.GRU(3, 4, 3, batch_first=True, bidirectional=True), [X(2, 4, 3)], False),
    (lambda T: T.nn.GRU(3, 4), [X(5, 3), X(1, 4)], False),
    (lambda T: T.nn.GRU(3, 4, dtype=T.float64), [X(3, 0, 3, dtype="float64")], False),
], ids=["rnn", "rnn-relu-2layer-nobias-h0", "rnn-batchfirst", "lstm", "lstm-bidir-f64",
        "lstm-proj-batchfirst-h0", "lstm-unbatched-nobias", "lstm-unbatched-h0", "gru-noncontig-h0",
        "gru-3layer-bidir-bf", "gru-unbatched-h0", "gru-empty-batch"])
def test_recurrent_layer_matches_torch(build, inputs, second):
    check_module(build, inputs, second_order=second)


def test_lstm_dropout_eval_only():
    check_module(lambda T: T.nn.LSTM(3, 4, 2, dropout=0.3), [X(5, 2, 3)], modes=("eval",))


def test_dropout_p1_in_training_matches_torch():
    """p=1 zeroes the input of every layer after the first: deterministic, so comparable."""
    check_module(lambda T: T.nn.GRU(3, 4, 3, dropout=1.0), [X(5, 2, 3)], modes=("train",))
    check_module(lambda T: T.nn.LSTM(3, 4, 2, dropout=1.0, bidirectional=True), [X(5, 2, 3)],
                 modes=("train",))


def test_dropout_between_layers_is_random_in_training():
    torchshim.manual_seed(0)
    m = torchshim.nn.LSTM(4, 8, 3, dropout=0.5)
    x = torchshim.randn(6, 3, 4)
    torchshim.manual_seed(1)
    a = m(x)[0]
    torchshim.manual_seed(1)
    b = m(x)[0]
    c = m(x)[0]
    assert torchshim.equal(a, b) and not torchshim.equal(a, c)
    m.eval()
    e1, e2 = m(x)[0], m(x)[0]
    assert torchshim.equal(e1, e2) and not torchshim.equal(a, e1)


def test_dropout_between_layers_statistics():
    """The output of layer 1 sees half its inputs zeroed and the rest doubled: with identity-like weights the
    second layer's pre-activations show the mask's mean and scale."""
    torchshim.manual_seed(0)
    m = torchshim.nn.RNN(50, 50, 2, nonlinearity="relu", bias=False, dropout=0.3)
    with torchshim.no_grad():
        m.weight_ih_l0.copy_(torchshim.eye(50))
        m.weight_ih_l1.copy_(torchshim.eye(50))
        m.weight_hh_l0.zero_()
        m.weight_hh_l1.zero_()
    x = torchshim.ones(20, 40, 50)
    out = m(x)[0].detach().numpy()
    assert np.all(np.isclose(out, 0.0) | np.isclose(out, 1 / 0.7))
    assert abs((out == 0).mean() - 0.3) < 0.02


def test_second_order_lstm_cell_and_layer():
    check_module(lambda T: T.nn.LSTM(2, 3, 2, bidirectional=True).double(), [X(3, 2, 2, dtype="float64")],
                 modes=("eval",), second_order=True)


# ---- packed sequences --------------------------------------------------------------------------------------
def _packed(lengths, enforce_sorted=True, batch_first=False):
    def call(m, x, *hx):
        U = torchshim if isinstance(x, torchshim.Tensor) else torch
        pk = U.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=batch_first,
                                                 enforce_sorted=enforce_sorted)
        out, h = m(pk, *hx)
        padded = U.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first, total_length=x.shape[
            1 if batch_first else 0])
        return out, h, padded
    return call


@pytest.mark.parametrize("build,inputs,lengths,sorted_,bf", [
    (lambda T: T.nn.RNN(3, 4), [X(5, 3, 3)], [5, 3, 1], True, False),
    (lambda T: T.nn.LSTM(3, 4, 2, bidirectional=True), [X(5, 3, 3)], [4, 5, 2], False, False),
    (lambda T: T.nn.LSTM(3, 5, proj_size=2, batch_first=True), [X(3, 4, 3), (X(1, 3, 2), X(1, 3, 5))],
     [2, 4, 3], False, True),
    (lambda T: T.nn.GRU(3, 4, 2, bidirectional=True, batch_first=True), [X(3, 4, 3), X(4, 3, 4)], [4, 4, 1],
     True, True),
], ids=["rnn", "lstm-bidir-unsorted", "lstm-proj-unsorted-h0", "gru-bidir-h0"])
def test_packed_sequence_input_matches_torch(build, inputs, lengths, sorted_, bf):
    check_module(build, inputs, call=_packed(lengths, sorted_, bf))


def test_packed_sequence_same_as_each_sequence_alone():
    """Packing is masking per sequence: each sequence's outputs and final state equal a run on it alone."""
    torchshim.manual_seed(0)
    m = torchshim.nn.LSTM(3, 4, 1, bidirectional=True)
    seqs = [torchshim.randn(n, 3) for n in (2, 5, 3)]
    out, (h, c) = m(torchshim.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False))
    unpacked = torchshim.nn.utils.rnn.unpack_sequence(out)
    for i, s in enumerate(seqs):
        o1, (h1, c1) = m(s)
        np.testing.assert_allclose(unpacked[i].detach().numpy(), o1.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h[:, i].detach().numpy(), h1.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(c[:, i].detach().numpy(), c1.detach().numpy(), rtol=1e-5, atol=1e-6)


# ---- cells -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.RNNCell(3, 4), [X(2, 3)]),
    (lambda T: T.nn.RNNCell(3, 4, nonlinearity="relu", bias=False), [X(2, 3), X(2, 4)]),
    (lambda T: T.nn.RNNCell(3, 4), [X(3), X(4)]),
    (lambda T: T.nn.LSTMCell(3, 4), [X(2, 3)]),
    (lambda T: T.nn.LSTMCell(3, 4, bias=False), [X(2, 3), (X(2, 4), X(2, 4))]),
    (lambda T: T.nn.LSTMCell(3, 4).double(),
     [X(3, dtype="float64"), (X(4, dtype="float64"), X(4, dtype="float64"))]),
    (lambda T: T.nn.GRUCell(3, 4), [X(2, 3, nc=True), X(2, 4)]),
    (lambda T: T.nn.GRUCell(3, 4), [X(3)]),
], ids=["rnncell", "rnncell-relu-nobias-h0", "rnncell-unbatched", "lstmcell", "lstmcell-nobias-h0",
        "lstmcell-unbatched-f64", "grucell-noncontig-h0", "grucell-unbatched"])
def test_cell_matches_torch(build, inputs):
    check_module(build, inputs, second_order=True)


def test_cell_unrolled_like_the_layer():
    """An LSTMCell stepped over time with the LSTM's layer-0 weights gives the LSTM's outputs."""
    def f(T, x):
        lstm = T.nn.LSTM(3, 4)
        cell = T.nn.LSTMCell(3, 4)
        with T.no_grad():
            for p in lstm.parameters():
                p.copy_(T.linspace(-0.6, 0.6, p.numel()).reshape(p.shape))
            for a, b in (("weight_ih", "weight_ih_l0"), ("weight_hh", "weight_hh_l0"),
                         ("bias_ih", "bias_ih_l0"), ("bias_hh", "bias_hh_l0")):
                getattr(cell, a).copy_(getattr(lstm, b))
        h = c = T.zeros(2, 4)
        outs = []
        for t in range(x.shape[0]):
            h, c = cell(x[t], (h, c))
            outs.append(h)
        return T.stack(outs), lstm(x)[0]
    ref, got = check(f, [X(5, 2, 3)], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.value[0].detach().numpy(), got.value[1].detach().numpy(), rtol=1e-5,
                               atol=1e-6)


# ---- errors ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.LSTM(3, 4), [X(5, 2, 2)]),
    (lambda T: T.nn.LSTM(3, 4), [X(5, 2, 3, dtype="float64")]),
    (lambda T: T.nn.LSTM(3, 4), [X(5, 2, 3), (X(1, 3, 4), X(1, 3, 4))]),
    (lambda T: T.nn.LSTM(3, 4), [X(5, 2, 3), (X(1, 2, 4), X(1, 2, 5))]),
    (lambda T: T.nn.LSTM(3, 4), [X(5, 2, 3), (X(2, 4), X(2, 4))]),
    (lambda T: T.nn.LSTM(3, 4), [X(5, 3), (X(1, 2, 4), X(1, 2, 4))]),
    (lambda T: T.nn.LSTM(3, 4), [X(2, 5, 2, 3)]),
    (lambda T: T.nn.GRU(3, 4), [X(5, 2, 3), X(2, 2, 4)]),
    (lambda T: T.nn.GRU(3, 4), [X(5, 2, 3), X(2, 4)]),
    (lambda T: T.nn.GRU(3, 4), [X(5, 3), X(1, 2, 4)]),
    (lambda T: T.nn.RNN(3, 4, 2, bidirectional=True), [X(5, 2, 3), X(2, 2, 4)]),
    (lambda T: T.nn.RNN(3, 4), [X(3)]),
    (lambda T: T.nn.RNNCell(3, 4), [X(2, 2)]),
    (lambda T: T.nn.RNNCell(3, 4), [X(2, 3), X(3, 4)]),
    (lambda T: T.nn.RNNCell(3, 4), [X(2, 3, 1)]),
    (lambda T: T.nn.LSTMCell(3, 4), [X(2, 3), (X(2, 4), X(2, 3, 4))]),
    (lambda T: T.nn.GRUCell(3, 4), [X(2, 3), X(2, 5)]),
    (lambda T: T.nn.GRUCell(3, 4), [X(2, 3), X(2, 4, 1)]),
], ids=["lstm-input-size", "lstm-dtype", "lstm-h-batch", "lstm-c-size", "lstm-hx-2d", "lstm-unbatched-hx-3d",
        "lstm-4d", "gru-layers", "gru-hx-2d", "gru-unbatched-hx-3d", "rnn-bidir-layers", "rnn-1d",
        "rnncell-input-size", "rnncell-batch", "rnncell-3d", "lstmcell-hx-3d", "grucell-hidden-size",
        "grucell-hidden-3d"])
def test_recurrent_errors_match_torch(build, inputs):
    check_module(build, inputs, expect_error=True, modes=("eval",))


@pytest.mark.parametrize("args,kwargs", [
    ((3, 4), {"dropout": 1.5}), ((3, 4), {"dropout": True}), ((3, 4), {"bias": 1}),
    ((3, 4), {"batch_first": 0}),
    ((3.0, 4), {}), ((0, 4), {}), ((3, 4.0), {}), ((3, 0), {}), ((3, 4, 0), {}), ((3, 4), {"proj_size": -1}),
    ((3, 4), {"proj_size": 4}),
])
def test_constructor_errors_match_torch(args, kwargs):
    check(lambda T: T.nn.LSTM(*args, **kwargs))


def test_constructor_errors_of_rnn_and_gru():
    check(lambda T: T.nn.RNN(3, 4, nonlinearity="gelu"))
    check(lambda T: T.nn.RNN(3, 4, proj_size=2))
    check(lambda T: T.nn.GRU(3, 4, proj_size=2))
    check(lambda T: T.nn.modules.rnn.RNNBase("LSTX", 3, 4))


def test_dropout_with_one_layer_warns():
    for T in (torch, torchshim):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.nn.GRU(3, 4, dropout=0.2)
        assert [str(x.message) for x in w] == [
            "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
            "num_layers greater than 1, but got dropout=0.2 and num_layers=1"]


# ---- structure ---------------------------------------------------------------------------------------------
class _LM:
    """An LSTM language model: Embedding + LSTM(2 layers) + Linear (as PyTorch's word_language_model)."""

    @staticmethod
    def build(T):
        class LM(T.nn.Module):
            def __init__(self, ntoken=11, ninp=6, nhid=8, nlayers=2):
                super().__init__()
                self.drop = T.nn.Dropout(0.2)
                self.encoder = T.nn.Embedding(ntoken, ninp)
                self.rnn = T.nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
                self.decoder = T.nn.Linear(nhid, ntoken)

            def forward(self, input, hidden=None):
                emb = self.drop(self.encoder(input))
                output, hidden = self.rnn(emb, hidden)
                return self.decoder(self.drop(output)), hidden
        return LM()


@pytest.mark.parametrize("build", [
    _LM.build,
    lambda T: T.nn.LSTM(3, 5, 2, proj_size=2, bidirectional=True, batch_first=True, dropout=0.5, bias=False),
    lambda T: T.nn.RNN(3, 4, 2, "relu"),
    lambda T: T.nn.GRU(3, 4, bidirectional=True),
    lambda T: T.nn.RNNCell(3, 4, nonlinearity="relu", bias=False),
    lambda T: T.nn.LSTMCell(3, 4),
    lambda T: T.nn.GRUCell(3, 4, dtype=T.float64),
], ids=["lstm-lm", "lstm-everything", "rnn-relu", "gru-bidir", "rnncell", "lstmcell", "grucell"])
def test_repr_and_state_dict(build):
    check_repr(build)
    check_state_dict_roundtrip(build)


def test_lstm_language_model_matches_torch():
    from harness import Idx
    check_module(_LM.build, [Idx((7, 3), 11)], modes=("eval",), input_grad=False)


def test_all_weights_and_flat_weights_follow_conversions():
    m = torchshim.nn.LSTM(3, 4, 2, proj_size=2)
    names = [n for n, _ in m.named_parameters()]
    assert m._flat_weights_names == names
    assert [[p.shape for p in ws] for ws in m.all_weights] == [[p.shape for p in ws] for ws in
                                                              torch.nn.LSTM(3, 4, 2, proj_size=2).all_weights]
    m.double()
    assert all(w.dtype == torchshim.float64 for w in m._flat_weights)
    m.weight_hh_l1 = torchshim.nn.Parameter(torchshim.zeros(16, 2, dtype=torchshim.float64))
    assert m._flat_weights[names.index("weight_hh_l1")] is m.weight_hh_l1
    m.flatten_parameters()


def test_default_init_is_uniform_in_one_over_sqrt_hidden():
    torchshim.manual_seed(0)
    m = torchshim.nn.GRU(30, 64, 2)
    bound = 1 / math.sqrt(64)
    vals = np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])
    assert vals.min() >= -bound and vals.max() <= bound
    assert abs(vals.mean()) < 0.01 * bound * 10 and abs(vals.std() - bound / math.sqrt(3)) < 0.02 * bound


# ---- tracing -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.LSTM(3, 4, 2, bidirectional=True), [X(5, 2, 3)]),
    (lambda T: T.nn.GRU(3, 4, batch_first=True), [X(2, 5, 3), X(1, 2, 4)]),
    (lambda T: T.nn.LSTMCell(3, 4), [X(2, 3)]),
], ids=["lstm-bidir", "gru-bf-h0", "lstmcell"])
def test_recurrent_layer_traces(build, inputs):
    check_traced(build, inputs, modes=("eval",))


def test_packed_sequence_traces():
    check_traced(lambda T: T.nn.GRU(3, 4, bidirectional=True), [X(5, 3, 3)], call=_packed([3, 5, 2], False),
                 modes=("eval",))


def test_dropout_traces_in_training():
    check_traced(lambda T: T.nn.LSTM(3, 4, 2, dropout=1.0), [X(5, 2, 3)], modes=("train",))


# ---- torch.nn.utils.rnn ------------------------------------------------------------------------------------
def _U(T):
    return T.nn.utils.rnn


def test_pack_sequence_and_unpack_round_trip():
    def f(T, a, b, c):
        pk = _U(T).pack_sequence([a, b, c], enforce_sorted=False)
        return pk, _U(T).unpack_sequence(pk), _U(T).pad_packed_sequence(pk, batch_first=True)
    check(f, [X(3, 2), X(5, 2), X(1, 2)])


def test_pad_and_unpad_sequence():
    def f(T, a, b):
        padded = _U(T).pad_sequence([a, b], padding_value=-2.0)
        lengths = T.tensor([a.shape[0], b.shape[0]])
        return padded.clone(), _U(T).unpad_sequence(padded, lengths)
    check(f, [X(2, 3), X(4, 3)])
    check(lambda T, a, b: _U(T).unpad_sequence(_U(T).pad_sequence([a, b], batch_first=True), T.tensor([2, 4]),
                                                batch_first=True), [X(2, 3), X(4, 3)])


def test_pad_sequence_argument_errors():
    check(lambda T: _U(T).pad_sequence(5))
    check(lambda T: _U(T).pad_sequence([]))
    check(lambda T, x: _U(T).pad_sequence(x), [X(3, 2)])


def test_packed_sequence_methods():
    def f(T, x):
        pk = _U(T).pack_padded_sequence(x, [3, 1, 2], enforce_sorted=False)
        return (pk.to(T.float64), pk.double().data, pk.float().data, pk.to(T.float32) is pk, pk.is_cuda,
                pk.cpu() is pk, pk.long().data, pk.half().data, pk.int().data, pk.byte().data, pk.char().data,
                pk.short().data)
    check(f, [X(3, 3, 2)])


def test_packed_sequence_construction():
    def f(T, d):
        bs = T.tensor([2, 1])
        return (_U(T).PackedSequence(d, bs), _U(T).PackedSequence((d, bs), None, T.tensor([1, 0])),
                _U(T).invert_permutation(T.tensor([2, 0, 1])), _U(T).invert_permutation(None))
    check(f, [X(3, 2)])
    check(lambda T: _U(T).PackedSequence(T.ones(3)))


def test_pad_packed_total_length_error():
    check(lambda T, x: _U(T).pad_packed_sequence(_U(T).pack_padded_sequence(x, [3, 2]), total_length=2),
          [X(3, 2, 1)])


def test_pack_padded_sequence_with_tensor_lengths():
    check(lambda T, x: _U(T).pack_padded_sequence(x, T.tensor([1, 3, 2]), enforce_sorted=False), [X(3, 3, 2)])
    check(lambda T, x: _U(T).pack_padded_sequence(x, T.tensor([3.0, 2.5, 1.0]), batch_first=True),
          [X(3, 3, 2)])


def test_packed_gradients_flow_back_to_padded_input():
    def f(T, x):
        pk = _U(T).pack_padded_sequence(x, [4, 2, 1], enforce_sorted=True)
        padded, _ = _U(T).pad_packed_sequence(pk, padding_value=3.0)
        return T.autograd.grad((padded * padded).sum(), x)
    check(f, [Arg((4, 3, 2), requires_grad=True)])


def test_pack_under_tracing_with_python_lengths():
    import jax

    def f(a):
        x = torchshim.Tensor._make(torchshim._storage.Storage(a, torchshim.device("cpu")), a.shape,
                                   (a.shape[1] * a.shape[2], a.shape[2], 1), 0, torchshim.float32)
        pk = _U(torchshim).pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        padded, lengths = _U(torchshim).pad_packed_sequence(pk)
        return padded._value, lengths._value
    a = np.random.default_rng(0).standard_normal((4, 3, 2)).astype(np.float32)
    got = jax.jit(f)(a)
    ref = _U(torch).pad_packed_sequence(_U(torch).pack_padded_sequence(torch.tensor(a), [2, 4, 1],
                                                                       enforce_sorted=False))
    np.testing.assert_allclose(np.asarray(got[0]), ref[0].numpy())
    np.testing.assert_array_equal(np.asarray(got[1]), ref[1].numpy())


def test_batch_sizes_computed_under_tracing_raise_a_clear_error():
    import jax

    def f(a):
        bs = torchshim.tensor([2, 1])  # a tracer under jit: its values are not known on the host
        out = torchshim.rnn_tanh(torchshim.ones(3, 2), bs, torchshim.zeros(1, 2, 2),
                                 [torchshim.ones(2, 2), torchshim.ones(2, 2)], False, 1, 0.0, False, False)
        return out[0]._value
    with pytest.raises(RuntimeError, match="under jax tracing"):
        jax.jit(f)(np.zeros(1))


def test_pairing_with_build_pair_copies_every_parameter():
    ref, mod = build_pair(lambda T: T.nn.LSTM(3, 4, 2, proj_size=2, bidirectional=True))
    for (n1, p1), (n2, p2) in zip(ref.named_parameters(), mod.named_parameters()):
        assert n1 == n2
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())

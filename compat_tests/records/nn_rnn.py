"""Records for the recurrent ops (torchshim/ops/nn_rnn.py, _rnn_packing.py): `torch.rnn_tanh` / `rnn_relu` /
`lstm` / `gru` on padded input (layers, directions, batch_first, no bias, projections, dropout in eval and p=1
in training, empty batch, non-contiguous input) and on packed input (through `pack_padded_sequence` with
Python lengths, so the batch sizes are host values under tracing too), the cells, and the packing ops
`_pack_padded_sequence`, `_pad_packed_sequence` and `pad_sequence` (through `torch.nn.utils.rnn`). Errors are
checked in float64: PyTorch's float32 LSTM runs oneDNN, which does not check the hidden state (it crashes on a
wrong batch size), and PyTorch 2.13's reference path crashes when h_0 and c_0 have different numbers of
layers, so those are not sampled.
"""
import torch.nn.utils.rnn  # noqa: F401  (torch.nn.utils.rnn as an attribute)

import torchshim.nn.utils.rnn  # noqa: F401
from harness import Arg, OpRecord

F = ("float64", "float32")
LOW = ("float16", "bfloat16")
GATES = {"rnn_tanh": 1, "rnn_relu": 1, "lstm": 4, "gru": 3}


def W(shape, d):
    """A weight: small values keep the recurrence well inside the nonlinearities' active range."""
    return Arg(shape, d, -0.6, 0.6)


def params(op, d, F_in, H, layers=1, dirs=1, bias=True, proj=0):
    g = GATES[op]
    out = []
    for layer in range(layers):
        for _ in range(dirs):
            fin = F_in if layer == 0 else (proj or H) * dirs
            out += [W((g * H, fin), d), W((g * H, proj or H), d)]
            if bias:
                out += [W((g * H,), d), W((g * H,), d)]
            if proj:
                out.append(W((proj, H), d))
    return out


def hidden(op, d, n, B, H, proj=0):
    h = Arg((n, B, proj or H), d, -1, 1)
    return (h, Arg((n, B, H), d, -1, 1)) if op == "lstm" else h


def X(shape, d, noncontig=False):
    return Arg(shape, d, -1, 1, noncontig=noncontig)


def case(op, d, x, batch, layers=1, dirs=1, bias=True, proj=0, p=0.0, train=False, batch_first=False, H=4,
         nc=False):
    """(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) specs."""
    hx = hidden(op, d, layers * dirs, batch, H, proj)
    ps = params(op, d, x[-1], H, layers, dirs, bias, proj)
    return X(x, d, nc), hx, ps, bias, layers, p, train, dirs == 2, batch_first


def _full_ok(op):
    def samples(d):
        out = [
            (case(op, d, (5, 3, 3), 3), {}),
            (case(op, d, (5, 3, 3), 3, layers=2, dirs=2), {}),
            (case(op, d, (3, 5, 3), 3, bias=False, batch_first=True), {}),
            (case(op, d, (4, 2, 3), 2, layers=2, p=0.5), {}),
            (case(op, d, (4, 2, 3), 2, layers=2, p=1.0, train=True), {}),
            (case(op, d, (4, 0, 3), 0), {}),
        ]
        if op == "lstm":
            out.append((case(op, d, (4, 2, 3), 2, layers=2, dirs=2, proj=2), {}))
        out.append((case(op, d, (2, 4, 3), 2, dirs=2, batch_first=True, nc=True), {}))
        return out
    return samples


def _full_low(op):
    return lambda d: [(case(op, d, (3, 2, 3), 2), {})]


def _full_bad(op):
    def samples(d):
        H = 4
        p = params(op, d, 3, H)
        out = [
            ((X((5, 2, 3), d), hidden(op, d, 1, 2, H), p[:3], True, 1, 0.0, False, False, False), {}),
            ((X((5, 2, 3), d), hidden(op, d, 2, 2, H), p, True, 1, 0.0, False, False, False), {}),
            ((X((5, 2, 3), d), hidden(op, d, 1, 2, H), p, True, 1, 0.0, False, True, False), {}),
            ((X((5, 2, 3), d), hidden(op, d, 1, 2, H), p, True, 2, 0.0, False, False, False), {}),
            ((X((5, 2, 2), d), hidden(op, d, 1, 2, H), p, True, 1, 0.0, False, False, False), {}),
            ((X((0, 2, 3), d), hidden(op, d, 1, 2, H), p, True, 1, 0.0, False, False, False), {}),
            ((X((5, 2, 3), "float32"), hidden(op, d, 1, 2, H), p, True, 1, 0.0, False, False, False), {}),
        ]
        if op == "lstm":
            out += [
                ((X((5, 2, 3), d), (Arg((1, 2, H), d),), p, True, 1, 0.0, False, False, False), {}),
                ((X((5, 2, 3), d), (Arg((2, H), d), Arg((1, 2, H), d)), p, True, 1, 0.0, False, False, False),
                 {}),
            ]
        else:
            out += [
                ((X((5, 2, 3), d), Arg((1, 3, H), d), p, True, 1, 0.0, False, False, False), {}),
                ((X((5, 2, 3), d), Arg((1, 2, 5), d), p, True, 1, 0.0, False, False, False), {}),
            ]
        return out
    return samples


def _packed_call(op):
    """`op` on a packed batch made from a padded (T, B, F) input and Python lengths."""
    def call(T, x, lengths, hx, ps, *flags, enforce_sorted=True):
        pk = T.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
        if pk.sorted_indices is not None:
            hx = tuple(h.index_select(1, pk.sorted_indices) for h in hx) if isinstance(hx, tuple) else \
                hx.index_select(1, pk.sorted_indices)
        return getattr(T, op)(pk.data, pk.batch_sizes, hx, ps, *flags)
    return call


def _packed_ok(op):
    def packed(d, x, lengths, layers=1, dirs=1, bias=True, p=0.0, train=False):
        c = case(op, d, x, x[1], layers, dirs, bias, p=p, train=train)
        return (c[0], lengths) + c[1:-1]

    return lambda d: [
        (packed(d, (5, 3, 3), [5, 3, 2]), {}),
        (packed(d, (5, 3, 3), [5, 5, 1], layers=2, dirs=2), {}),
        (packed(d, (4, 3, 3), [2, 4, 1], dirs=2, bias=False), {"enforce_sorted": False}),
        (packed(d, (4, 2, 3), [4, 3], layers=2, p=1.0, train=True), {}),
    ]


# ---- cells -------------------------------------------------------------------------------------------------
def _cell_params(op, d, F_in, H, bias=True):
    g = {"rnn_tanh_cell": 1, "rnn_relu_cell": 1, "lstm_cell": 4, "gru_cell": 3}[op]
    ps = [W((g * H, F_in), d), W((g * H, H), d)]
    return ps + [W((g * H,), d), W((g * H,), d)] if bias else ps


def _cell_hidden(op, d, B, H):
    h = Arg((B, H), d, -1, 1)
    return (h, Arg((B, H), d, -1, 1)) if op == "lstm_cell" else h


def _cell_ok(op):
    def samples(d):
        return [
            ((X((3, 4), d), _cell_hidden(op, d, 3, 5), *_cell_params(op, d, 4, 5)), {}),
            ((X((3, 4), d), _cell_hidden(op, d, 3, 5), *_cell_params(op, d, 4, 5, bias=False)), {}),
            ((X((3, 4), d), _cell_hidden(op, d, 3, 5), *_cell_params(op, d, 4, 5)[:3]), {}),
            ((X((0, 4), d), _cell_hidden(op, d, 0, 5), *_cell_params(op, d, 4, 5)), {}),
            ((X((3, 4), d, True), _cell_hidden(op, d, 3, 5), *_cell_params(op, d, 4, 5)), {}),
        ]
    return samples


def _cell_bad(op):
    def samples(d):
        ps = _cell_params(op, d, 4, 5)
        out = [
            ((X((3, 3), d), _cell_hidden(op, d, 3, 5), *ps), {}),
            ((X((3, 4), d), _cell_hidden(op, d, 2, 5), *ps), {}),
            ((X((3, 4), d), _cell_hidden(op, d, 3, 6), *ps), {}),
            ((X((4,), d), _cell_hidden(op, d, 3, 5), *ps), {}),
            ((X((3, 4), d), _cell_hidden(op, d, 3, 5), W((2, 4), d), *ps[1:]), {}),
            ((X((3, 4), d), _cell_hidden(op, d, 3, 5), ps[0], W((2, 5), d), *ps[2:]), {}),
            ((X((3, 4), "float32"), _cell_hidden(op, d, 3, 5), *ps), {}),
        ]
        if op == "lstm_cell":
            out.append(((X((3, 4), d), (Arg((3, 5), d),), *ps), {}))
        return out
    return samples


# ---- packing ---------------------------------------------------------------------------------------------
def _utils(name):
    return lambda T, *xs, **kw: getattr(T.nn.utils.rnn, name)(*xs, **kw)


def _pack_ok(d):
    return [
        ((X((4, 3, 2), d), [4, 2, 1]), {}),
        ((X((3, 4, 2), d), [4, 2, 2]), {"batch_first": True}),
        ((X((4, 3), d), [2, 4, 1]), {"enforce_sorted": False}),
        ((X((4, 3, 2), d, True), [3, 3, 3]), {}),
    ]


def _pack_bad(d):
    return [
        ((X((4, 3, 2), d), [4, 2, 3]), {}),
        ((X((4, 3, 2), d), [4, 2, 0]), {}),
        ((X((4, 3, 2), d), [4, 2]), {}),
        ((X((0, 3), d), [0, 0, 0]), {}),
    ]


def _pack_aten_bad(d):
    from grad_harness import V
    return [
        ((X((4, 3, 2), d), V([4, 2, 1], "int32", requires_grad=False), False), {}),
        ((X((4, 3, 2), d), V([[4, 2, 1]], "int64", requires_grad=False), False), {}),
    ]


def _pad_packed_call(T, x, lengths, **kw):
    enforce = kw.pop("enforce_sorted", True)
    pk = T.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=enforce)
    return T.nn.utils.rnn.pad_packed_sequence(pk, **kw)


def _pad_packed_ok(d):
    return [
        ((X((4, 3, 2), d), [4, 2, 1]), {}),
        ((X((4, 3, 2), d), [4, 2, 1]), {"batch_first": True, "padding_value": -1.5, "total_length": 6}),
        ((X((4, 3), d), [2, 4, 1]), {"enforce_sorted": False, "batch_first": True}),
        ((X((4, 3, 2), d), [3, 2, 2]), {"total_length": 2}),
    ]


def _pad_seq_ok(d):
    return [
        ([X((2, 3), d), X((4, 3), d), X((1, 3), d)], {}),
        ([X((2, 3), d), X((4, 3), d)], {"batch_first": True, "padding_value": 2.5}),
        ([X((2, 3), d), X((4, 1), d, True)], {"padding_side": "left"}),
        ([X((2,), d), X((0,), d)], {"batch_first": True, "padding_side": "left", "padding_value": -1}),
    ]


def _pad_seq_call(T, *seqs, **kw):
    return T.nn.utils.rnn.pad_sequence(list(seqs), **kw)


def _pad_seq_bad(d):
    return [
        ([X((2, 3), d), X((3, 4), d)], {}),
        ([X((2,), d), X((3, 3), d)], {}),
        ([X((2, 3), d), X((3, 3), d)], {"padding_side": "middle"}),
        ([X((), d), X((), d)], {}),
    ]


def _pad_seq_mixed(d):
    return [([Arg((2, 3), "int64"), X((3, 3), d)], {"padding_value": 2.5}),
            ([Arg((2, 3), "bool"), X((3, 3), d)], {"padding_value": 2.5}),
            ([X((2, 3), d), X((3, 3), "float64")], {})]


def _pad_seq(samples):
    return lambda d: [(tuple(seqs), kw) for seqs, kw in samples(d)]


def _full(op):
    return lambda T, *xs, **kw: getattr(T, op)(*xs, **kw)


RECORDS = []
for _op in ("rnn_tanh", "rnn_relu", "lstm", "gru"):
    RECORDS += [
        OpRecord(_op, _full_ok(_op), F, call=_full(_op), method=False),
        OpRecord(_op, _full_low(_op), LOW, call=_full(_op), method=False),
        OpRecord(_op, _full_bad(_op), ("float64",), call=_full(_op), method=False),
        OpRecord(_op, _packed_ok(_op), F, call=_packed_call(_op), method=False),
    ]
for _op in ("rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"):
    RECORDS += [
        OpRecord(_op, _cell_ok(_op), F + LOW, method=False),
        OpRecord(_op, _cell_bad(_op), ("float64",), method=False),
    ]
RECORDS += [
    OpRecord("_pack_padded_sequence", _pack_ok, F + LOW, call=_utils("pack_padded_sequence"), method=False),
    OpRecord("_pack_padded_sequence", _pack_bad, ("float64",), call=_utils("pack_padded_sequence"),
             method=False),
    OpRecord("_pack_padded_sequence", _pack_aten_bad, ("float64",), method=False),
    OpRecord("_pad_packed_sequence", _pad_packed_ok, F + LOW, call=_pad_packed_call, method=False),
    OpRecord("pad_sequence", _pad_seq(_pad_seq_ok), F + ("int64", "bool"), call=_pad_seq_call, method=False),
    OpRecord("pad_sequence", _pad_seq(_pad_seq_bad), ("float64",), call=_pad_seq_call, method=False),
    OpRecord("pad_sequence", _pad_seq(_pad_seq_mixed), ("float32",), call=_pad_seq_call, method=False),
]

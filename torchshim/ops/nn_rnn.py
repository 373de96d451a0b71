"""Recurrent ops: `torch.rnn_tanh`, `torch.rnn_relu`, `torch.lstm`, `torch.gru` (padded and packed overloads),
and the single-step cells `torch.rnn_tanh_cell` / `rnn_relu_cell` / `lstm_cell` / `gru_cell`. The packing
kernels behind `torch.nn.utils.rnn` (`torch._pack_padded_sequence`, `torch._pad_packed_sequence`,
`pad_sequence`) are in `_rnn_packing.py`.

A whole multi-layer (bidirectional) recurrence is one differentiable node: one jitted kernel that projects the
inputs of a layer for all time steps at once (as PyTorch's CPU path does) and runs `jax.lax.scan` over time
per layer and direction; its pullback is `jax.vjp` of that kernel, so gradients of any order follow. Dropout
between layers (train mode) draws its masks in the Python front with torchshim's RNG and passes them to the
kernel as inputs. A packed sequence runs as a padded, time-major batch in which each sequence's steps past its
length keep its state (`where(t < length, new, old)`), with the reverse direction reading each sequence from
its own end; batch sizes are read on the host (PyTorch also requires them on the CPU), so under jax tracing
they must come from host values (lengths given as a list, or a PackedSequence built by
`pack_padded_sequence`).

Differences from PyTorch: PyTorch's CPU float32 LSTM runs oneDNN, whose few checks of malformed `hx` differ
from its reference path (accepting some wrong sizes); torchshim follows the reference path.
"""
import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype as D
from .._precision import for_dtype as mm_precision
from .._promotion import c_name, short_name
from .._tensor import Tensor
from ..autograd._node import rename
from ..autograd._ops import differentiable
from ..autograd.grad_mode import no_grad
from . import _dispatch as P
from ._registry import installed, register
from ._rnn_packing import _packed_index, host_values

_LOW = (np.dtype(D.float16.np), np.dtype(D.bfloat16.np))
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_output_name(args, kwargs):
    """PyTorch's CPU node for the output: cat of the directions or of a packed sequence's steps, oneDNN's
    layer for a float32 LSTM without projections, else stack of the steps."""
    input, index, mode, bidirectional, proj = args[0], args[5], args[6], args[9], args[10]
    if index is not None or bidirectional:
        return "CatBackward0"
    if mode == "LSTM" and not proj and input._dtype is D.float32 and input.numel():
        return "MkldnnRnnLayerBackward0"
    return "StackBackward0"


# ---- shared math -------------------------------------------------------------------------------------------
def _mm(a, w):
    """a @ w.T (PyTorch's linear without bias), half types accumulated in float32 and rounded once."""
    pet = jnp.float32 if a.dtype in _LOW else None
    return jnp.matmul(a, w.T, precision=mm_precision(a.dtype), preferred_element_type=pet).astype(a.dtype)


def _linear(a, w, b):
    """linear(a, w, b): addmm, so half types add the bias in float32 and round once."""
    if b is None:
        return _mm(a, w)
    pet = jnp.float32 if a.dtype in _LOW else None
    r = jnp.matmul(a, w.T, precision=mm_precision(a.dtype), preferred_element_type=pet)
    return (r + b.astype(r.dtype)).astype(a.dtype)


def _ew(fn, *xs):
    """One elementwise PyTorch op: half types computed in float32 and rounded once (PyTorch's CPU kernels)."""
    dt = xs[0].dtype
    if dt in _LOW:
        return fn(*(x.astype(jnp.float32) for x in xs)).astype(dt)
    return fn(*xs)


_add, _mul, _sub = jnp.add, jnp.multiply, jnp.subtract
_sig, _tanh = jax.nn.sigmoid, jnp.tanh


def _step(mode, x_t, h, c, w_hh, b_hh, w_hr):
    """One recurrence step given the input projection x_t = linear(x, w_ih, b_ih): (h', c')."""
    hh = _linear(h, w_hh, b_hh)
    if mode == "RNN_TANH":
        return _ew(_tanh, _ew(_add, hh, x_t)), None
    if mode == "RNN_RELU":
        return _ew(jax.nn.relu, _ew(_add, hh, x_t)), None
    if mode == "LSTM":
        i, f, g, o = jnp.split(_ew(_add, hh, x_t), 4, axis=-1)
        i, f, g, o = _ew(_sig, i), _ew(_sig, f), _ew(_tanh, g), _ew(_sig, o)
        c_new = _ew(_add, _ew(_mul, f, c), _ew(_mul, i, g))
        h_new = _ew(_mul, o, _ew(_tanh, c_new))
        return (h_new if w_hr is None else _mm(h_new, w_hr)), c_new
    ir, iz, i_n = jnp.split(x_t, 3, axis=-1)
    hr, hz, h_n = jnp.split(hh, 3, axis=-1)
    r = _ew(_sig, _ew(_add, hr, ir))
    z = _ew(_sig, _ew(_add, hz, iz))
    n = _ew(_tanh, _ew(_add, i_n, _ew(_mul, h_n, r)))
    return _ew(_add, _ew(_mul, _ew(_sub, h, n), z), n), None


# ---- cells -----------------------------------------------------------------------------------------------
@P.kernel(static=("mode",))
def _cell_k(x, h, c, w_ih, w_hh, b_ih, b_hh, *, mode):
    return _step(mode, _linear(x, w_ih, b_ih), h, c, w_hh, b_hh, None)


def _size(t, d):
    if t.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if t.ndim <= d:
        lo, hi = (-t.ndim, t.ndim - 1) if t.ndim else (-1, 0)
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return t._shape[d]


def _check_cell_input(input, input_size):
    if _size(input, 1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input._shape[1]} expected {input_size}")


def _check_cell_hidden(input, hx, hidden_size, label):
    if _size(input, 0) != _size(hx, 0):
        raise RuntimeError(f"Input batch size {input._shape[0]} doesn't match hidden{label} batch size "
                           f"{hx._shape[0]}")
    if _size(hx, 1) != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx._shape[1]}, expected "
                           f"{hidden_size}")


def _check_cell_weights(gates, w_ih, w_hh, hidden_size):
    for name, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if _size(w, 0) != gates * hidden_size:
            raise RuntimeError(f"{name} first dim must be {gates} * hidden_size = {gates * hidden_size}, but "
                               f"got {w._shape[0]}")


def _check_linear_dtypes(x, w, b):
    """linear(x, w, b)'s dtype errors: addmm's with a bias, matmul's without."""
    if b is None:
        if x._dtype is not w._dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {c_name(x._dtype)} != "
                               f"{c_name(w._dtype)}")
        return
    if x._dtype is not w._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {short_name(x._dtype)} and "
                           f"{short_name(w._dtype)}")
    if b._dtype is not w._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {short_name(b._dtype)} and "
                           f"{short_name(w._dtype)}")


def _check_cell_dtypes(input, h, w_ih, w_hh, b_ih, b_hh, ih_first=False):
    pairs = [(input, w_ih, b_ih), (h, w_hh, b_hh)]
    for x, w, b in (pairs if ih_first else pairs[::-1]):
        _check_linear_dtypes(x, w, b)


def _run_cell(mode, input, h, c, w_ih, w_hh, b_ih, b_hh):
    _check_cell_dtypes(input, h, w_ih, w_hh, b_ih, b_hh, ih_first=mode == "GRU")
    v = lambda t: None if t is None else t._value  # noqa: E731
    hy, cy = _cell_k(input._value, h._value, v(c), w_ih._value, w_hh._value, v(b_ih), v(b_hh), mode=mode)
    dev = input._storage.device
    hy = P.fresh(hy, input._dtype, dev)
    return hy if cy is None else (hy, P.fresh(cy, input._dtype, dev))


def _simple_cell(name, mode):
    def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        hidden_size = _size(w_hh, 1)
        _check_cell_weights(1, w_ih, w_hh, hidden_size)
        _check_cell_input(input, _size(w_ih, 1))
        _check_cell_hidden(input, hx, hidden_size, 0)
        return _run_cell(mode, input, hx, None, w_ih, w_hh, b_ih, b_hh)
    cell.__name__ = cell.__qualname__ = name
    cell.__doc__ = (f"`torch.{name}(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)`: one step of an Elman RNN, "
                    f"`{mode[4:].lower()}(linear(input, w_ih, b_ih) + linear(hx, w_hh, b_hh))`; input "
                    "(N, input_size), hx (N, hidden_size).")
    return cell


# grad_fn names: the nodes PyTorch's CPU kernels end in
register("rnn_tanh_cell", method=False, kind="nn", grad_name="TanhBackward0")(
    _simple_cell("rnn_tanh_cell", "RNN_TANH"))
register("rnn_relu_cell", method=False, kind="nn", grad_name="ReluBackward0")(
    _simple_cell("rnn_relu_cell", "RNN_RELU"))


@P.kernel(static=())
def _lstm_gates_k(x, h, c, w_ih, w_hh, b_ih, b_hh):
    i, f, g, o = jnp.split(_ew(_add, _linear(h, w_hh, b_hh), _linear(x, w_ih, b_ih)), 4, axis=-1)
    i, f, g, o = _ew(_sig, i), _ew(_sig, f), _ew(_tanh, g), _ew(_sig, o)
    return _ew(_add, _ew(_mul, f, c), _ew(_mul, i, g)), o


def _lstm_gates(input, h, c, w_ih, w_hh, b_ih, b_hh):
    v = lambda t: None if t is None else t._value  # noqa: E731
    cy, o = _lstm_gates_k(input._value, h._value, c._value, w_ih._value, w_hh._value, v(b_ih), v(b_hh))
    dev = input._storage.device
    return P.fresh(cy, input._dtype, dev), P.fresh(o, input._dtype, dev)


@P.kernel(static=())
def _lstm_out_k(o, cy):
    return _ew(_mul, o, _ew(_tanh, cy))


def _lstm_out(o, cy):
    return P.fresh(_lstm_out_k(o._value, cy._value), o._dtype, o._storage.device)


_lstm_gates_core = differentiable("_lstm_cell_state", _lstm_gates, grad_name="AddBackward0")
_lstm_out_core = differentiable("_lstm_cell_output", _lstm_out, grad_name="MulBackward0")


@register("lstm_cell", method=False, kind="composite")
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """`torch.lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)`: one LSTM step; hx is (h, c), each (N,
    H); returns (h', c') with gates i, f, g, o in the rows of w_ih / w_hh, in that order."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    hidden_size = _size(w_hh, 1)
    _check_cell_input(input, _size(w_ih, 1))
    _check_cell_weights(4, w_ih, w_hh, hidden_size)
    _check_cell_hidden(input, hx[0], hidden_size, 0)
    _check_cell_hidden(input, hx[1], hidden_size, 1)
    _check_cell_dtypes(input, hx[0], w_ih, w_hh, b_ih, b_hh)
    cy, o = _lstm_gates_core(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)
    return _lstm_out_core(o, cy), cy


@register("gru_cell", method=False, kind="nn", grad_name="AddBackward0")
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """`torch.gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)`: one GRU step (gates r, z, n):
    `n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`, `h' = (h - n) * z + n`."""
    _check_cell_input(input, _size(w_ih, 1))
    _check_cell_hidden(input, hx, _size(w_hh, 1), 0)
    _check_cell_weights(3, w_ih, w_hh, _size(w_hh, 1))
    return _run_cell("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)


# ---- whole recurrences -------------------------------------------------------------------------------------
def _scan_dir(mode, steps, h0, c0, w_hh, b_hh, w_hr, valid):
    def body(carry, inp):
        h, c = carry
        x_t, v = inp if valid is not None else (inp, None)
        h_new, c_new = _step(mode, x_t, h, c, w_hh, b_hh, w_hr)
        if v is not None:
            h_new = jnp.where(v[:, None], h_new, h)
            if c_new is not None:
                c_new = jnp.where(v[:, None], c_new, c)
        return (h_new, c_new), h_new
    xs = steps if valid is None else (steps, valid)
    return jax.lax.scan(body, (h0, c0), xs)


@P.kernel(static=("mode", "num_layers", "bidirectional", "has_biases", "proj", "scale"))
def _rnn_k(x, hx, cx, params, masks, index, *, mode, num_layers, bidirectional, has_biases, proj, scale):
    dirs = 2 if bidirectional else 1
    per = 2 + 2 * has_biases + proj
    layer_in = x
    hs, cs = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = params[k * per:(k + 1) * per]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            w_hr = w[-1] if proj else None
            xw = _linear(layer_in, w[0], b_ih)
            if index is None:
                steps, valid = (xw if d == 0 else xw[::-1]), None
            else:
                fwd, rev, valid, out_f, out_r = index
                ext = jnp.concatenate([xw, jnp.zeros((1,) + xw.shape[1:], xw.dtype)])
                steps = ext[fwd if d == 0 else rev]
            c_0 = None if cx is None else cx[k]
            (h_t, c_t), ys = _scan_dir(mode, steps, hx[k], c_0, w[1], b_hh, w_hr, valid)
            if index is None:
                y = ys if d == 0 else ys[::-1]
            else:
                y = ys.reshape((-1, ys.shape[-1]))[out_f if d == 0 else out_r]
            outs.append(y)
            hs.append(h_t)
            cs.append(c_t)
        layer_in = outs[0] if dirs == 1 else jnp.concatenate(outs, -1)
        if masks is not None and layer < num_layers - 1:
            layer_in = layer_in * (masks[layer] * jnp.asarray(scale, layer_in.dtype))
    return layer_in, hs, (None if cx is None else cs)


def _rnn_layers(input, hx, cx, params, masks, index, mode, has_biases, num_layers, bidirectional, proj,
                scale):
    """The differentiable core: (output, [h_n per layer and direction], [c_n ...] or None) of a whole stack,
    `input` time-major (T, B, F) or packed (N, F)."""
    v = lambda t: None if t is None else t._value  # noqa: E731
    out, hs, cs = _rnn_k(input._value, hx._value, v(cx), [p._value for p in params],
                         None if masks is None else [m._value for m in masks],
                         None if index is None else tuple(i._value for i in index), mode=mode,
                         num_layers=num_layers, bidirectional=bidirectional, has_biases=has_biases, proj=proj,
                         scale=scale)
    dev, dt = input._storage.device, input._dtype
    return (P.fresh(out, dt, dev), [P.fresh(h, dt, dev) for h in hs],
            None if cs is None else [P.fresh(c, dt, dev) for c in cs])


_rnn_core = differentiable("_rnn_layers", _rnn_layers, grad_name=_rnn_output_name)


def _hidden_checks(mode, hx, num_layers, bidirectional):
    """The hidden-state count checks of ATen's layer stack (`hx.unbind(0)`, paired per direction)."""
    h = hx[0] if mode == "LSTM" else hx
    if h.ndim == 0:
        raise RuntimeError("Dimension specified as 0 but tensor has no dimensions")
    n = h._shape[0]
    if bidirectional and n % 2:
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    if n // (2 if bidirectional else 1) != num_layers:
        raise RuntimeError("Expected more hidden states in stacked_rnn")


def _param_checks(params, has_biases, proj, bidirectional):
    """gather_params' count check and the bidirectional pairing of the parameter groups."""
    per = 2 + 2 * has_biases + proj
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"expected Tensor as element in argument 2, but got {type(p).__name__}")
    if len(params) % per:
        raise RuntimeError("got an incorrect number of RNN parameters")
    if bidirectional and (len(params) // per) % 2:
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")


def _weight_count_check(params, has_biases, proj, num_layers, bidirectional):
    per = 2 + 2 * has_biases + proj
    if len(params) // per // (2 if bidirectional else 1) != num_layers:
        raise RuntimeError("Expected more weights in stacked_rnn")


def _shape_checks(mode, input, h0, params, has_biases, proj, num_layers, bidirectional, packed):
    """The shape/dtype errors PyTorch's reference path raises from its matmuls and adds, layer by layer."""
    per = 2 + 2 * has_biases + proj
    dirs = 2 if bidirectional else 1
    feat = input._shape[-1]
    rows = input._shape[0] if packed else input._shape[0] * input._shape[1]
    batch = h0._shape[1] if h0.ndim > 1 else 0
    in_batch = None if packed else input._shape[1]
    for k in range(num_layers * dirs):
        w = params[k * per:(k + 1) * per]
        if k == 0:
            _check_linear_dtypes(input, w[0], w[2] if has_biases else None)
            _check_linear_dtypes(h0, w[1], w[3] if has_biases else None)
        if w[0].ndim != 2 or w[0]._shape[1] != feat:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{feat} and "
                               f"{'x'.join(map(str, w[0]._shape[::-1]))})")
        hid = h0._shape[-1]
        if w[1].ndim != 2 or w[1]._shape[1] != hid:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({batch}x{hid} and "
                               f"{'x'.join(map(str, w[1]._shape[::-1]))})")
        if in_batch is not None and in_batch != batch:
            raise RuntimeError(f"The size of tensor a ({batch}) must match the size of tensor b ({in_batch}) "
                               "at non-singleton dimension 0")
        if k % dirs == dirs - 1:
            feat = (w[-1]._shape[0] if proj else w[1]._shape[1]) * dirs
            rows = rows if packed else input._shape[0] * batch


def _bind(name, packed, args, kwargs):
    names = (("data", "batch_sizes") if packed else ("input",)) + ("hx", "params", "has_biases", "num_layers",
                                                                 "dropout", "train", "bidirectional")
    if not packed:
        names += ("batch_first",)
    if len(args) > len(names):
        raise TypeError(f"{name}() takes {len(names)} positional arguments but {len(args)} were given")
    vals = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in vals:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        vals[k] = v
    missing = [n for n in names if n not in vals]
    if missing:
        raise TypeError(f"{name}() missing required argument '{missing[0]}'")
    return vals


def _draw_masks(shape, dtype, device, p, n):
    from .creation import empty
    with no_grad():
        return [empty(shape, dtype=dtype, device=device).bernoulli_(1 - p) for _ in range(n)]


def _recurrence(name, mode, args, kwargs):
    if mode == "LSTM":
        packed = len(args) > 1 and isinstance(args[1], Tensor) or "batch_sizes" in kwargs
    else:
        packed = len(args) > 2 and isinstance(args[2], Tensor) or "batch_sizes" in kwargs
    a = _bind(name, packed, args, kwargs)
    input = a["data"] if packed else a["input"]
    hx, params = a["hx"], list(a["params"])
    has_biases, num_layers = bool(a["has_biases"]), int(a["num_layers"])
    p, train, bidirectional = float(a["dropout"]), bool(a["train"]), bool(a["bidirectional"])
    batch_first = bool(a.get("batch_first", False))
    if mode == "LSTM":
        hx = list(hx)
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        proj = _size(hx[0], 2) != _size(hx[1], 2)
        h0, c0 = hx
        if input._dtype is D.float32 and not proj and input.numel() and any(
                t._dtype is not D.float32 for t in [h0, c0] + list(params) if isinstance(t, Tensor)):
            raise RuntimeError("get_mkldnn_dtype: unsupported data type")
    else:
        proj = False
        h0, c0 = hx, None
    _param_checks(params, has_biases, proj, bidirectional)
    _hidden_checks(mode, hx, num_layers, bidirectional)
    _weight_count_check(params, has_biases, proj, num_layers, bidirectional)
    index = None
    if packed:
        bs = host_values(a["batch_sizes"], "batch_sizes")
        index = tuple(P.fresh(jnp.asarray(i), D.bool_ if i.dtype == bool else D.int64, input._storage.device)
                      for i in _packed_index(tuple(int(b) for b in bs)))
    else:
        if batch_first:
            input = input.transpose(0, 1)
        if input._shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    _shape_checks(mode, input, h0, params, has_biases, proj, num_layers, bidirectional, packed)
    masks, scale = None, 1.0
    if p != 0 and train and num_layers > 1:
        dirs = 2 if bidirectional else 1
        width = (params[-1]._shape[0] if proj else h0._shape[-1]) * dirs
        masks = _draw_masks(tuple(input._shape[:-1]) + (width,), input._dtype, input._storage.device, p,
                            num_layers - 1)
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    out, hs, cs = _rnn_core(input, h0, c0, params, masks, index, mode, has_biases, num_layers, bidirectional,
                            int(proj), scale)
    stack = installed("stack")  # with autograd recording
    if batch_first and not packed:
        out = out.transpose(0, 1)
        if mode != "LSTM" and out._grad_fn is not None:
            # PyTorch transposes its fresh RNN/GRU output in place
            rename(out._grad_fn, "TransposeBackward1")
    return (out, stack(hs)) if cs is None else (out, stack(hs), stack(cs))


def _recurrence_op(name, mode, what):
    def op(*args, **kwargs):
        return _recurrence(name, mode, args, kwargs)
    op.__name__ = op.__qualname__ = name
    hx = "hx (h_0, c_0)" if mode == "LSTM" else "hx"
    ret = "(output, h_n, c_n)" if mode == "LSTM" else "(output, h_n)"
    w_hr = ", w_hr" if mode == "LSTM" else ""
    op.__doc__ = (f"`torch.{name}(input, {hx}, params, has_biases, num_layers, dropout, train, "
                  f"bidirectional, batch_first)` or the packed form `torch.{name}(data, batch_sizes, {hx}, "
                  f"params, has_biases, num_layers, dropout, train, bidirectional)`: a stacked {what} over a "
                  f"padded or packed sequence; returns {ret}. params are (w_ih, w_hh[, b_ih, b_hh]{w_hr}) "
                  "per layer and direction. Dropout (train mode, between layers) draws from torchshim's RNG.")
    return op


register("rnn_tanh", method=False, kind="composite")(_recurrence_op("rnn_tanh", "RNN_TANH", "tanh RNN"))
register("rnn_relu", method=False, kind="composite")(_recurrence_op("rnn_relu", "RNN_RELU", "ReLU RNN"))
register("lstm", method=False, kind="composite")(_recurrence_op("lstm", "LSTM", "LSTM"))
register("gru", method=False, kind="composite")(_recurrence_op("gru", "GRU", "GRU"))

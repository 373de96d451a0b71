"""Recurrent layers, ported from PyTorch 2.13's torch/nn/modules/rnn.py: `RNNBase`, `RNN` (tanh / relu),
`LSTM` (with `proj_size`), `GRU`, and the cells `RNNCell`, `LSTMCell`, `GRUCell`.

Parameter names (`weight_ih_l0`, `weight_hh_l0_reverse`, `bias_ih_l1`, `weight_hr_l0`, ...), shapes, order and
the default initialisation U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) are PyTorch's, so state_dicts
transfer; the draws come from torchshim's RNG. A forward runs the op table's `torch.rnn_tanh` / `rnn_relu` /
`lstm` / `gru` (one scan-based node per call, see torchshim/ops/nn_rnn.py) on padded or packed input.

Differences from PyTorch: no cuDNN, so `flatten_parameters()` does nothing; dropout between layers draws its
masks from torchshim's RNG (same distribution, other numbers).
"""
import importlib
import math
import numbers
import warnings
import weakref

from ..._api import zeros
from ...ops import _rnn_packing as _ops
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from . import _init_helpers as init
from .module import Module

_F = importlib.import_module("torchshim")  # the table's public ops: rnn_tanh, lstm, gru, lstm_cell, ...

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _empty(*shape, **factory_kwargs):
    from ..._api import empty
    return empty(shape, **factory_kwargs)


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def apply_permutation(tensor, permutation, dim=1):
    """Deprecated: `tensor.index_select(dim, permutation)`."""
    warnings.warn("`apply_permutation` is deprecated, please use `tensor.index_select(dim, permutation)` "
                  "instead", FutureWarning, stacklevel=2)
    return _apply_permutation(tensor, permutation, dim)


class RNNBase(Module):
    """`RNNBase(mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0, device=None, dtype=None)`: the parameters and checks shared by RNN, LSTM
    and GRU (mode 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU')."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero "
                          "dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        if mode == "LSTM":
            gate_size = 4 * hidden_size
        elif mode == "GRU":
            gate_size = 3 * hidden_size
        elif mode in ("RNN_TANH", "RNN_RELU"):
            gate_size = hidden_size
        else:
            raise ValueError("Unrecognized RNN mode: " + mode)

        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden_size = proj_size if proj_size > 0 else hidden_size
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(_empty(gate_size, layer_input_size, **factory_kwargs))
                w_hh = Parameter(_empty(gate_size, real_hidden_size, **factory_kwargs))
                b_ih = Parameter(_empty(gate_size, **factory_kwargs))
                b_hh = Parameter(_empty(gate_size, **factory_kwargs))
                if self.proj_size == 0:
                    layer_params = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                else:
                    w_hr = Parameter(_empty(proj_size, hidden_size, **factory_kwargs))
                    layer_params = (w_ih, w_hh, b_ih, b_hh, w_hr) if bias else (w_ih, w_hh, w_hr)

                suffix = "_reverse" if direction == 1 else ""
                param_names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    param_names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if self.proj_size > 0:
                    param_names += ["weight_hr_l{}{}"]
                param_names = [x.format(layer, suffix) for x in param_names]
                for name, param in zip(param_names, layer_params, strict=True):
                    setattr(self, name, param)
                self._flat_weights_names.extend(param_names)
                self._all_weights.append(param_names)

        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            idx = self._flat_weights_names.index(attr)
            self._flat_weights[idx] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """Packs the weights for cuDNN in PyTorch; a no-op here (no cuDNN)."""
        return

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        """Re-draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        """PyTorch's checks of the input's dtype, number of dims and feature size."""
        wdt = self._flat_weights[0].dtype
        if input.dtype != wdt:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({wdt}). Convert "
                             f"input: input.to({wdt}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        """(num_layers * num_directions, batch, proj_size or hidden_size)."""
        if batch_sizes is not None:
            mini_batch = int(_ops.host_values(batch_sizes, "batch_sizes")[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        if self.proj_size > 0:
            return (self.num_layers * num_directions, mini_batch, self.proj_size)
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        """RuntimeError(msg) when hx's size is not the expected one."""
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self):
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names, strict=True):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input, hidden, batch_sizes):
        """check_input, then the hidden state's size."""
        self.check_input(input, batch_sizes)
        expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)
        self.check_hidden_size(hidden, expected_hidden_size)

    def permute_hidden(self, hx, permutation):
        """hx reordered along the batch dim (None: unchanged)."""
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        del state["_flat_weight_refs"]
        return state

    def __setstate__(self, d):
        super().__setstate__(d)
        if "all_weights" in d:
            self._all_weights = d["all_weights"]
        if "proj_size" not in d:
            self.proj_size = 0
        if not isinstance(self._all_weights[0][0], str):
            num_layers = self.num_layers
            num_directions = 2 if self.bidirectional else 1
            self._flat_weights_names = []
            self._all_weights = []
            for layer in range(num_layers):
                for direction in range(num_directions):
                    suffix = "_reverse" if direction == 1 else ""
                    weights = ["weight_ih_l{}{}", "weight_hh_l{}{}", "bias_ih_l{}{}", "bias_hh_l{}{}",
                               "weight_hr_l{}{}"]
                    weights = [x.format(layer, suffix) for x in weights]
                    if self.bias:
                        names = weights if self.proj_size > 0 else weights[:4]
                    else:
                        names = weights[:2] + weights[-1:] if self.proj_size > 0 else weights[:2]
                    self._all_weights += [names]
                    self._flat_weights_names.extend(names)
            self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                                  for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction."""
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _replicate_for_data_parallel(self):
        replica = super()._replicate_for_data_parallel()
        replica._flat_weights = replica._flat_weights[:]
        replica._flat_weights_names = replica._flat_weights_names[:]
        return replica

    # ---- shared forward plumbing (RNN and GRU: one hidden tensor) ------------------------------------------
    def _one_hidden_forward(self, name, input, hx):
        self._update_flat_weights()
        num_directions = 2 if self.bidirectional else 1
        orig_input = input
        is_batched = True
        batch_dim = 0 if self.batch_first else 1
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(_ops.host_values(batch_sizes, "batch_sizes")[0])
            if hx is None:
                hx = zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                           dtype=input.dtype, device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                what = "RNN" if name == "RNN" else name
                extra = " tensor" if name == "RNN" else ""
                raise ValueError(f"{what}: Expected input to be 2D or 3D, got {input.dim()}D{extra} instead")
            is_batched = input.dim() == 3
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                           f"{hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D "
                                   "tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                hx = zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                           dtype=input.dtype, device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)

        self.check_forward_args(input, hx, batch_sizes)
        op = {"RNN_TANH": _F.rnn_tanh, "RNN_RELU": _F.rnn_relu, "GRU": _F.gru}[self.mode]
        if batch_sizes is None:
            result = op(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                        self.training, self.bidirectional, self.batch_first)
        else:
            result = op(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                        self.training, self.bidirectional)
        output, hidden = result[0], result[1]
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNN(RNNBase):
    """`RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, device=None, dtype=None)`: a stacked Elman RNN, `h_t = nonlinearity(x_t
    W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`. forward(input, hx=None) -> (output, h_n); input (L, N, H_in)
    (batch_first: (N, L, H_in)), unbatched (L, H_in), or a PackedSequence."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        """(output, h_n): output (L, N, D * H_out) (or packed), h_n (D * num_layers, N, H_out)."""
        if self.mode not in ("RNN_TANH", "RNN_RELU"):
            raise AssertionError(f"mode must be RNN_TANH or RNN_RELU, got {self.mode}")
        return self._one_hidden_forward("RNN", input, hx)


class LSTM(RNNBase):
    """`LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0, device=None, dtype=None)`: a stacked LSTM (gates i, f, g, o; with
    proj_size > 0, h_t is projected by weight_hr). forward(input, hx=None) -> (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        """(num_layers * num_directions, batch, hidden_size)."""
        if batch_sizes is not None:
            mini_batch = int(_ops.host_values(batch_sizes, "batch_sizes")[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        """check_input, then the sizes of h_0 and c_0."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        """(h, c) reordered along the batch dim (None: unchanged)."""
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        """(output, (h_n, c_n)): output (L, N, D * H_out) (or packed), h_n (D * num_layers, N, H_out), c_n
        (D * num_layers, N, hidden_size); H_out is proj_size when > 0."""
        self._update_flat_weights()
        orig_input = input
        batch_sizes = None
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        is_batched = True
        batch_dim = 0 if self.batch_first else 1
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(_ops.host_values(batch_sizes, "batch_sizes")[0])
            if hx is None:
                h_zeros = zeros(self.num_layers * num_directions, max_batch_size, real_hidden_size,
                                dtype=input.dtype, device=input.device)
                c_zeros = zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                dtype=input.dtype, device=input.device)
                hx = (h_zeros, c_zeros)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                h_zeros = zeros(self.num_layers * num_directions, max_batch_size, real_hidden_size,
                                dtype=input.dtype, device=input.device)
                c_zeros = zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                dtype=input.dtype, device=input.device)
                hx = (h_zeros, c_zeros)
                self.check_forward_args(input, hx, batch_sizes)
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                self.check_forward_args(input, hx, batch_sizes)
                hx = self.permute_hidden(hx, sorted_indices)

        if batch_sizes is None:
            result = _F.lstm(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                                         self.training, self.bidirectional, self.batch_first)
        else:
            result = _F.lstm(input, batch_sizes, hx, self._flat_weights, self.bias, self.num_layers,
                                         self.dropout, self.training, self.bidirectional)
        output = result[0]
        hidden = result[1:]
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class GRU(RNNBase):
    """`GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None)`: a stacked GRU (gates r, z, n). forward(input, hx=None) ->
    (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        """(output, h_n) as RNN.forward."""
        return self._one_hidden_forward("GRU", input, hx)


class RNNCellBase(Module):
    """`RNNCellBase(input_size, hidden_size, bias, num_chunks, device=None, dtype=None)`: weight_ih
    (num_chunks * hidden_size, input_size), weight_hh (num_chunks * hidden_size, hidden_size), bias_ih,
    bias_hh."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_empty(num_chunks * hidden_size, input_size, **factory_kwargs))
        self.weight_hh = Parameter(_empty(num_chunks * hidden_size, hidden_size, **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(_empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(_empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        """Re-draw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)


class RNNCell(RNNCellBase):
    """`RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh', device=None, dtype=None)`: one Elman
    RNN step. forward(input, hx=None) -> h'; input (N, H_in) or unbatched (H_in)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(input_size, hidden_size, bias, num_chunks=1, **factory_kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """h' = nonlinearity(input W_ih^T + b_ih + hx W_hh^T + b_hh) (hx defaults to zeros)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        if self.nonlinearity == "tanh":
            ret = _F.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = _F.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


class LSTMCell(RNNCellBase):
    """`LSTMCell(input_size, hidden_size, bias=True, device=None, dtype=None)`: one LSTM step.
    forward(input, hx=None) -> (h', c'); hx is (h, c)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(input_size, hidden_size, bias, num_chunks=4, **factory_kwargs)

    def forward(self, input, hx=None):
        """(h', c') of one step (hx defaults to zeros)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D "
                                     "instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (z, z)
        else:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if not is_batched else hx
        ret = _F.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    """`GRUCell(input_size, hidden_size, bias=True, device=None, dtype=None)`: one GRU step.
    forward(input, hx=None) -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(input_size, hidden_size, bias, num_chunks=3, **factory_kwargs)

    def forward(self, input, hx=None):
        """h' of one step (hx defaults to zeros)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        ret = _F.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


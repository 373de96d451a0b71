"""Autocast's per-thread state and its one hook on the op table (`torch.autocast`'s public API is in
`torchshim/amp/`).

`install()` passes each public op function through `wrap(name, fn)`: ops on one of PyTorch's autocast lists
get a front that, while autocast is on for the device type of their tensor arguments, casts those arguments
as PyTorch's autocast dispatch key does, then calls the op:
- lower precision (matmul, linear, conv, ...): floating tensors other than float64 -> the autocast dtype;
- fp32 (losses, pooling3d, linalg, ...): floating tensors other than float64 -> float32;
- promote (cat, stack, index_copy): float32 if any input is float32, else the autocast dtype (PyTorch's
  `prioritize`; float64 inputs are left alone).
The casts are ordinary `Tensor.to` calls, so they record `ToCopyBackward0` and gradients flow back to the
original dtype. Inside a cast op, nested op calls are not cast again (PyTorch excludes the autocast key while
running the op). Other ops, in-place variants and `out=` calls run unchanged, as in PyTorch.
"""
import functools
import threading

from .. import _dtype as D
from .._tensor import Tensor

__all__ = ["wrap", "is_enabled", "set_enabled", "get_dtype", "set_dtype", "DEFAULT_DTYPES"]

DEFAULT_DTYPES = {"cpu": D.bfloat16, "cuda": D.float16}

# PyTorch 2.13's autocast op lists (docs: "Autocast Op Reference"), by the names torchshim registers
_MM = ("conv1d", "conv2d", "conv3d", "bmm", "mm", "vecdot", "linalg_vecdot", "baddbmm", "addmm", "addbmm",
       "linear", "matmul", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
       "convolution", "scaled_dot_product_attention")
_LOWER = {
    "cpu": frozenset(_MM + ("prelu",)),
    "cuda": frozenset(_MM + ("addmv", "addr", "chain_matmul", "multi_dot", "lstm_cell", "gru_cell",
                             "rnn_tanh_cell", "rnn_relu_cell")),
}
_LOSSES = ("mse_loss", "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "poisson_nll_loss",
           "smooth_l1_loss", "cross_entropy", "l1_loss", "huber_loss", "margin_ranking_loss",
           "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss", "ctc_loss", "kl_div",
           "multilabel_margin_loss", "binary_cross_entropy_with_logits")
_FP32 = {
    "cpu": frozenset(_LOSSES + (
        "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "quantile", "nanquantile",
        "stft", "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse", "cholesky_solve",
        "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d",
        "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d", "replication_pad1d",
        "replication_pad2d", "replication_pad3d", "fractional_max_pool2d", "fractional_max_pool3d",
        "adaptive_max_pool3d", "geqrf", "qr", "svd", "triangular_solve")),
    "cuda": frozenset(_LOSSES + (
        "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal",
        "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm", "norm", "nuclear_norm",
        "cosine_similarity", "dist", "pdist", "cdist", "renorm", "logsumexp", "prod", "cumprod", "cumsum",
        "sum", "softmax", "log_softmax", "binary_cross_entropy", "upsample_nearest1d", "upsample_nearest2d",
        "upsample_nearest3d", "upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d",
        "upsample_bicubic2d")),
}
_PROMOTE = frozenset(("cat", "stack", "index_copy"))
# on CPU, every linalg_* and fft_* op runs in float32 too (PyTorch's list names each; linalg_vecdot excepted)
_FP32_PREFIXES = {"cpu": ("linalg_", "linalg.", "fft_", "fft.")}


def _fp32(dev, name):
    return name in _FP32.get(dev, ()) or (name.startswith(_FP32_PREFIXES.get(dev, ("\0",)))
                                          and name not in _LOWER.get(dev, ()))

_local = threading.local()


def _st():
    s = getattr(_local, "s", None)
    if s is None:
        s = _local.s = {"enabled": {}, "dtype": dict(DEFAULT_DTYPES), "cache": True, "depth": 0, "inside": 0}
    return s


def is_enabled(device_type):
    """Whether autocast is on for `device_type` in this thread."""
    return _st()["enabled"].get(device_type, False)


_on = [0]  # (thread, device type) pairs with autocast on, all threads: the ops' fast check


def set_enabled(device_type, enabled):
    """Only enabled device types are kept (and counted in `_on`), so an op's check when autocast is off
    everywhere is one list read."""
    d = _st()["enabled"]
    if enabled and device_type not in d:
        d[device_type] = True
        _on[0] += 1
    elif not enabled and device_type in d:
        del d[device_type]
        _on[0] -= 1


def get_dtype(device_type):
    return _st()["dtype"].get(device_type, D.float16)


def set_dtype(device_type, dtype):
    _st()["dtype"][device_type] = dtype


def state():
    """The thread's state dict (cache flag, nesting depth) for `torchshim.amp`."""
    return _st()


def _eligible(t):
    return isinstance(t, Tensor) and t._dtype.is_floating_point and t._dtype is not D.float64


def _device_type(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            return a._storage.device.type
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor):
                    return b._storage.device.type
    return None


def _map(x, fn):
    if isinstance(x, Tensor):
        return fn(x)
    if isinstance(x, (list, tuple)) and any(isinstance(b, Tensor) for b in x):
        return type(x)(_map(b, fn) for b in x)
    return x


def _prioritize(args, kwargs, dev, lower):
    """PyTorch's `at::autocast::prioritize` for promote ops: float32 if any eligible input is float32, else
    the
    autocast dtype; float64 inputs are ignored; another floating dtype raises."""
    current = lower
    for a in (*args, *kwargs.values()):
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            if not (isinstance(t, Tensor) and t._dtype.is_floating_point and t._storage.device.type == dev):
                continue
            nxt = t._dtype
            if nxt is D.float64:
                continue
            if current is D.float32 or nxt is D.float32:
                current = D.float32
            elif not (current is lower and nxt is lower):
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def wrap(name, fn):
    """`fn` (the public function of op `name`) with autocast's casts in front, or `fn` itself when the op is
    on no autocast list."""
    if not (any(name in v for v in _LOWER.values()) or any(_fp32(d, name) for d in ("cpu", "cuda"))
            or name in _PROMOTE):
        return fn

    def autocast_op(*args, **kwargs):
        if not _on[0]:
            return fn(*args, **kwargs)
        s = _st()
        if not s["enabled"] or s["inside"] or kwargs.get("out") is not None:
            return fn(*args, **kwargs)
        dev = _device_type(args, kwargs)
        if dev is None or not s["enabled"].get(dev, False):
            return fn(*args, **kwargs)
        if name in _LOWER.get(dev, ()):
            target = s["dtype"].get(dev)
        elif _fp32(dev, name):
            target = D.float32
        elif name in _PROMOTE:
            target = _prioritize(args, kwargs, dev, s["dtype"].get(dev))
        else:
            return fn(*args, **kwargs)

        def cast(t):
            if t._storage.device.type != dev:
                return t
            return t.to(target) if _eligible(t) and t._dtype is not target else t
        args = tuple(_map(a, cast) for a in args)
        kwargs = {k: _map(v, cast) for k, v in kwargs.items()}
        s["inside"] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            s["inside"] -= 1
    return functools.wraps(fn)(autocast_op)

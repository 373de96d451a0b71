"""`torch.nn.functional` losses: PyTorch's Python-level signatures (string `reduction`, the legacy
`size_average` / `reduce` arguments and their deprecation warning, the target-size warnings and checks, the
errors for arguments PyTorch can't differentiate) over the ATen-form table ops of torchshim/ops/nn_loss.py
(`reduction` as 0 none / 1 mean / 2 sum). Where PyTorch's F function is plain Python over public ops (weighted
l1/mse/huber, kl_div's 'batchmean', triplet_margin_with_distance_loss), it is written the same way here.
"""
import warnings

from ...autograd.grad_mode import is_grad_enabled
from ...ops._registry import installed
from .. import _reduction as _R

__all__ = ["l1_loss", "mse_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "poisson_nll_loss", "gaussian_nll_loss", "kl_div",
           "smooth_l1_loss", "huber_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "multilabel_margin_loss", "multi_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss",
           "margin_ranking_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss"]


def _torch():
    from ... import _api as torchshim
    return torchshim


def _enum(size_average, reduce, reduction):
    """The at::Reduction code: the legacy arguments (when given) override `reduction`, with a warning."""
    if size_average is not None or reduce is not None:
        return _R.legacy_get_enum(size_average, reduce)
    return _R.get_enum(reduction)


def _string(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _R.legacy_get_string(size_average, reduce)
    return reduction


def _no_grad_arg(fn_name, arg_name, t):
    """PyTorch's error for an argument its derivative formulas don't cover (weights, soft_margin's target)."""
    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{fn_name}' is not differentiable with respect to argument "
                           f"'{arg_name}'. This input cannot have requires_grad True.")


def _size_warning(input, target):
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please "
                      "ensure they have the same size.", stacklevel=3)


def _broadcast(input, target):
    """torch.broadcast_tensors(input, target) (which returns inputs of the broadcast shape themselves)."""
    if input.shape == target.shape:
        return input, target
    return _torch().broadcast_tensors(input, target)


def _weighted(loss, weight, reduction, input):
    """F.l1_loss / mse_loss / huber_loss with a per-element weight (PyTorch's Python path)."""
    T = _torch()
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    w = loss * weight
    if reduction == "none":
        return w
    if reduction == "sum":
        return T.sum(w)
    if reduction == "mean":
        return T.sum(w) / T.sum(weight)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# ---- regression --------------------------------------------------------------------------------------------
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """`F.l1_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None)`: mean (or
    sum, or none) of |input - target|; inputs are broadcast (with PyTorch's warning when the sizes differ).
    With `weight`, 'mean' divides the weighted sum by weight.sum()."""
    T = _torch()
    _size_warning(input, target)
    reduction = _string(size_average, reduce, reduction)
    x, y = _broadcast(input, target)
    if weight is not None:
        return _weighted(T.abs(x - y), weight, reduction, input)
    return installed("l1_loss")(x, y, _R.get_enum(reduction))


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """`F.mse_loss(input, target, size_average=None, reduce=None, reduction='mean', weight=None)`: mean
    squared error (inputs broadcast with PyTorch's size warning); `weight` as in l1_loss."""
    T = _torch()
    _size_warning(input, target)
    reduction = _string(size_average, reduce, reduction)
    x, y = _broadcast(input, target)
    if weight is not None:
        return _weighted(T.pow(x - y, 2), weight, reduction, input)
    return installed("mse_loss")(x, y, _R.get_enum(reduction))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """`F.smooth_l1_loss(input, target, size_average=None, reduce=None, reduction='mean', beta=1.0)`: squared
    below `beta`, absolute above (beta == 0 is l1_loss)."""
    _size_warning(input, target)
    reduction = _string(size_average, reduce, reduction)
    x, y = _broadcast(input, target)
    if beta == 0.0:
        return installed("l1_loss")(x, y, _R.get_enum(reduction))
    return installed("smooth_l1_loss")(x, y, _R.get_enum(reduction), beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """`F.huber_loss(input, target, reduction='mean', delta=1.0, weight=None)`."""
    T = _torch()
    _size_warning(input, target)
    x, y = _broadcast(input, target)
    if weight is None:
        return installed("huber_loss")(x, y, _R.get_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    loss = installed("huber_loss")(x, y, 0, delta) * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return T.sum(loss)
    if reduction == "mean":
        return loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """`F.soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean')`:
    log(1 + exp(-target * input)); target can't require grad (as PyTorch)."""
    r = _enum(size_average, reduce, reduction)
    _no_grad_arg("soft_margin_loss", "target", target)
    return installed("soft_margin_loss")(input, target, r)


# ---- probabilistic -----------------------------------------------------------------------------------------
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """`F.binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction='mean')`:
    input and target of the same size (ValueError otherwise), weight broadcast to it; inputs outside [0, 1]
    raise (a host check: skipped under jax tracing)."""
    r = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        _no_grad_arg("binary_cross_entropy", "weight", weight)
        weight = weight.expand(_torch().broadcast_shapes(target.size(), weight.size()))
    return installed("binary_cross_entropy")(input, target, weight, r)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """`F.binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
    reduction='mean', pos_weight=None)`: sigmoid + binary cross entropy in one numerically stable formula."""
    r = _enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    _no_grad_arg("binary_cross_entropy_with_logits", "weight", weight)
    _no_grad_arg("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    return installed("binary_cross_entropy_with_logits")(input, target, weight, pos_weight, r)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """`F.poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
    reduce=None, reduction='mean')`."""
    reduction = _string(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return installed("poisson_nll_loss")(input, target, log_input, full, eps, _R.get_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """`F.gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean')`: var a tensor (same
    size as input, or one dim short, or with one mismatching dim of size 1) or a float. Negative variances
    raise (a host check: skipped under jax tracing)."""
    T = _torch()
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * T.ones_like(input)
    elif not isinstance(var, T.Tensor):
        got = type(var < 0).__name__
        raise TypeError(f"any() received an invalid combination of arguments - got ({got}), but expected one "
                        "of:")
    else:
        from ...ops._loss_common import host
        h = host(var)
        if h is not None and (h < 0).any():
            raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = T.unsqueeze(var, -1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return installed("gaussian_nll_loss")(input, target, var, full, eps, _R.get_enum(reduction))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """`F.kl_div(input, target, size_average=None, reduce=None, reduction='mean', log_target=False)`: input
    holds log-probabilities; 'batchmean' divides the sum by the batch size, 'mean' by every element (with
    PyTorch's warning that this is not the KL divergence)."""
    if size_average is not None or reduce is not None:
        r = _R.legacy_get_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support "
                          "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                          "definition.'mean' will be changed to behave the same as 'batchmean' in the "
                          "next major "
                          "release.", stacklevel=2)
        r = _R.get_enum("sum") if reduction == "batchmean" else _R.get_enum(reduction)
    out = installed("kl_div")(input, target, r, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        out = out / input.size()[0]
    return out


def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


# ---- classification ----------------------------------------------------------------------------------------
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """`F.nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
    reduction='mean')`: input (C), (N, C) or (N, C, d1, ...) of log-probabilities, int64 (or uint8) targets;
    out-of-range targets raise IndexError (a host check: skipped under jax tracing)."""
    r = _R.get_enum(_string(size_average, reduce, reduction))
    _no_grad_arg("nll_loss_forward", "weight", weight)
    return installed("nll_loss")(input, target, weight, r, ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """`F.cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
    reduction='mean', label_smoothing=0.0)`: logits (C), (N, C) or (N, C, d1, ...); targets are class indices
    or, shaped like the input, class probabilities."""
    r = _R.get_enum(_string(size_average, reduce, reduction))
    if tuple(input.shape) != tuple(target.shape):
        _no_grad_arg("nll_loss_forward", "weight", weight)
    return installed("cross_entropy")(input, target, weight, r, ignore_index, label_smoothing)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """`F.multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
    reduction='mean')`: binary cross entropy with logits per class, averaged over the last dim."""
    reduction = _string(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        installed("multilabel_soft_margin_loss")(input, target, weight, 0)
        raise ValueError(reduction + " is not valid")
    return installed("multilabel_soft_margin_loss")(input, target, weight, _R.get_enum(reduction))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """`F.multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean')`: int64
    targets, the class indices of each sample before the first -1."""
    return installed("multilabel_margin_loss")(input, target, _enum(size_average, reduce, reduction))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """`F.multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
    reduction='mean')`: p is 1 or 2; weight one-dimensional."""
    r = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None:
        if weight.dim() != 1:
            raise ValueError("weight must be one-dimensional")
        _no_grad_arg("multi_margin_loss", "weight", weight)
    return installed("multi_margin_loss")(input, target, p, margin, weight, r)


# ---- embeddings and ranking --------------------------------------------------------------------------------
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """`F.hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
    reduction='mean')`."""
    return installed("hinge_embedding_loss")(input, target.detach(), margin,
                                             _enum(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """`F.cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
    reduction='mean')`."""
    return installed("cosine_embedding_loss")(input1, input2, target.detach(), margin,
                                       _enum(size_average, reduce, reduction))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """`F.margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
    reduction='mean')`: all three of the same number of dims."""
    r = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got "
                           f"sizes: input1: {input1.size()}, input2: {input2.size()}, target: "
                           f"{target.size()} ")
    return installed("margin_ranking_loss")(input1, input2, target, margin, r)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """`F.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
    size_average=None, reduce=None, reduction='mean')`: margin must be positive."""
    r = _enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return installed("triplet_margin_loss")(anchor, positive, negative, margin, p, eps, swap, r)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """`F.triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
    swap=False, reduction='mean')`: `distance_function(a, b)` (default `torch.pairwise_distance`) is any
    callable on tensors; built from public ops, as PyTorch's Python function."""
    T = _torch()
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number "
                           f"of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")
    if distance_function is None:
        distance_function = T.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = T.minimum(dist_neg, distance_function(positive, negative))
    loss = T.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return T.sum(loss)
    if reduction == "mean":
        return T.mean(loss)
    return loss


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """`F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean',
    zero_infinity=False)`: see `torch.ctc_loss`."""
    r = _R.get_enum(reduction)
    if isinstance(input_lengths, (int, float)) or isinstance(target_lengths, (int, float)):
        from ...ops._loss_ctc import lengths_type_error
        raise lengths_type_error(input_lengths, target_lengths, blank, r, zero_infinity)
    return installed("ctc_loss")(log_probs, targets, input_lengths, target_lengths, blank, r, zero_infinity)

"""`F.linear_cross_entropy`: cross entropy of a linear projection's logits, with PyTorch's checks. The
`options` (LinearCrossEntropyOptions) select PyTorch's chunked kernel, which saves memory but gives the same
loss; torchshim always computes the reference path (linear then cross_entropy) and only validates them."""
import math
import warnings

from .loss import cross_entropy

__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """`F.linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
    reduction='mean', ignore_index=None, label_smoothing=0.0, options=None)`: `cross_entropy(linear(input,
    linear_weight, linear_bias), target, ...)`; linear_weight (C, *out_features, in_features) gives the
    K-dimensional loss. ignore_index None means -100 (and is required with class-probability targets)."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None and (out_features or reduction not in {"mean", "sum", "none"}
                                or label_smoothing != 0.0 or str(target.dtype) != "torch.int64"):
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                      "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == "
                      f"(). Got reduction={reduction!r}, label_smoothing={label_smoothing}, "
                      f"target.dtype={target.dtype}, out_features={out_features}, tracing=False, "
                      "linear_bias.shape="
                      f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
    w2 = linear_weight.reshape(num_classes * math.prod(out_features), in_features)
    logits = input.matmul(w2.t())
    logits = logits.reshape(logits_shape)
    if linear_bias is not None:
        logits = logits + linear_bias
    return cross_entropy(logits, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
                         label_smoothing=label_smoothing)

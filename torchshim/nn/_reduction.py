"""`torch.nn._reduction`: the loss `reduction` strings, their at::Reduction codes and the legacy
`size_average` / `reduce` arguments (with PyTorch's deprecation warning)."""
import warnings

__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum"]


def get_enum(reduction):
    """'none' -> 0, 'mean' -> 1, 'sum' -> 2 ('elementwise_mean' warns and means 'mean'); ValueError
    otherwise."""
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=2)
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction string the legacy arguments stand for (None means True), with PyTorch's warning."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
                      "instead.", stacklevel=2)
    return ret


def legacy_get_enum(size_average, reduce, emit_warning=True):
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))

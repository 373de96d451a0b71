"""`torch.nn.functional` normalizations whose Python signature or checks differ from the op table's aten form
(torchshim/ops/nn_norm.py): batch_norm, instance_norm, group_norm, and F.normalize (a Python composite, as in
PyTorch). layer_norm, rms_norm and local_response_norm are table entries with F's signature."""

__all__ = ["batch_norm", "instance_norm", "group_norm", "normalize"]


def _torch():
    from ... import _api as torchshim
    return torchshim


def _verify_batch_size(size):
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size):
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-5):
    """`F.batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
    eps=1e-05)`: see `torch.batch_norm`; in training the running statistics are updated in place."""
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _torch().batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """`F.instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
    use_input_stats=True, momentum=0.1, eps=1e-05)`: per-sample, per-channel normalization."""
    if use_input_stats:
        _verify_spatial_size(input.size())
    return _torch().instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                                  eps, True)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """`F.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)`: see `torch.group_norm`."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _torch().group_norm(input, num_groups, weight, bias, eps, True)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """`F.normalize(input, p=2.0, dim=1, eps=1e-12, out=None)`: input / max(||input||_p along dim, eps), as
    PyTorch's composite (norm, clamp_min, expand_as, div), so its gradients are those ops'."""
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _torch().div(input, denom, out=out)

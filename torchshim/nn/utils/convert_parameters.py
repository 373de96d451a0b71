"""`parameters_to_vector` / `vector_to_parameters`, ported from PyTorch 2.13's
torch/nn/utils/convert_parameters.py."""
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """`parameters_to_vector(parameters)`: the parameters flattened (`view(-1)`) and concatenated into one
    vector (differentiable w.r.t. them).

    >>> parameters_to_vector([torchshim.ones(2, 2), torchshim.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    from ... import _api as torchshim
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return torchshim.cat(vec)


def vector_to_parameters(vec, parameters):
    """`vector_to_parameters(vec, parameters)`: give each parameter, in order, the next `numel()` elements of
    `vec` as its `.data` (shaped like it; the parameters then share `vec`'s storage, as in PyTorch)."""
    if not isinstance(vec, Tensor):
        from ..modules.module import _typename
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _check_param_device(param, old_param_device):
    """The device index of the first parameter (-1 for cpu); TypeError when a later one is elsewhere."""
    support_device_types = ["cuda"]
    if old_param_device is None:
        old_param_device = param.get_device() if param.device.type in support_device_types else -1
    else:
        if param.device.type in support_device_types:
            warn = param.get_device() != old_param_device
        else:
            warn = old_param_device != -1
        if warn:
            raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device

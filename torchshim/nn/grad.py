"""`torch.nn.grad`: gradients of convolutions with respect to their input or weight, given the gradient of
the output (computed by differentiating the convolution itself, which is linear in each argument)."""
from .. import _api as torch
from ..autograd.engine_api import grad as _grad

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _conv(dim):
    from . import functional as F
    return {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[dim]


def _input_grad(dim, input_size, weight, grad_output, stride, padding, dilation, groups):
    x = torch.zeros(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device, requires_grad=True)
    with torch.enable_grad():
        out = _conv(dim)(x, weight.detach(), None, stride, padding, dilation, groups)
        return _grad(out, x, grad_output)[0]


def _weight_grad(dim, input, weight_size, grad_output, stride, padding, dilation, groups):
    w = torch.zeros(tuple(weight_size), dtype=grad_output.dtype, device=grad_output.device,
                    requires_grad=True)
    with torch.enable_grad():
        out = _conv(dim)(input.detach(), w, None, stride, padding, dilation, groups)
        return _grad(out, w, grad_output)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """`torch.nn.grad.conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1,
    groups=1)`: the gradient of conv1d with respect to its input (of shape `input_size`)."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """`torch.nn.grad.conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,
    groups=1)`: the gradient of conv1d with respect to its weight."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """`torch.nn.grad.conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1,
    groups=1)`."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """`torch.nn.grad.conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,
    groups=1)`."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """`torch.nn.grad.conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1,
    groups=1)`."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """`torch.nn.grad.conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1,
    groups=1)`."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)

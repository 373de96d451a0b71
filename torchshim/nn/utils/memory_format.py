"""`torch.nn.utils.memory_format`: re-lay the weights of every 2-D (4-D weight) or 3-D (5-D weight)
convolution in a module tree in a given memory format (e.g. `torch.channels_last`)."""
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """`convert_conv2d_weight_memory_format(module, memory_format)` -> `module`, with the weight of each
    Conv2d / ConvTranspose2d in it (itself included) copied into `memory_format` (strides change, values
    do not)."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """`convert_conv3d_weight_memory_format(module, memory_format)` -> `module`, the same for Conv3d /
    ConvTranspose3d (e.g. `torch.channels_last_3d`)."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))

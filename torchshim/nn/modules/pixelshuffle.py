"""`nn.PixelShuffle` / `nn.PixelUnshuffle` (ported from PyTorch 2.13): (*, C*r^2, H, W) <-> (*, C, H*r, W*r)
through `F.pixel_shuffle` / `F.pixel_unshuffle`."""
from .. import functional as F
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """`PixelShuffle(upscale_factor)`: rearrange (*, C*r^2, H, W) into (*, C, H*r, W*r)."""

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """`PixelUnshuffle(downscale_factor)`: rearrange (*, C, H*r, W*r) into (*, C*r^2, H, W)."""

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"

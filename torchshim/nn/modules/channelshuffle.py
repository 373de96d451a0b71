"""`nn.ChannelShuffle` (ported from PyTorch 2.13): `F.channel_shuffle` with a fixed number of groups."""
from .. import functional as F
from .module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """`ChannelShuffle(groups)`: split the channels (dim 1) into `groups` groups and interleave them."""

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"

"""The dropout layers (ported from PyTorch 2.13's torch/nn/modules/dropout.py): Dropout, Dropout1d/2d/3d
(whole channels), AlphaDropout and FeatureAlphaDropout (SELU-preserving), each a call of its
`torch.nn.functional` function with `self.training`. Masks are drawn with torchshim's RNG: the same law as
PyTorch, not the same numbers; in eval mode every layer is the identity.

Example:
    >>> m = nn.Dropout(p=0.25).eval()
    >>> bool((m(torch.ones(3)) == 1).all())
    True
"""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """`(p=0.5, inplace=False)`, with PyTorch's check of p."""

    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """`Dropout(p=0.5, inplace=False)`: in training, zero each element with probability p and scale the rest
    by 1 / (1 - p)."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """`Dropout1d(p=0.5, inplace=False)`: zero whole channels of (N, C, L) or (C, L)."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """`Dropout2d(p=0.5, inplace=False)`: zero whole channels of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """`Dropout3d(p=0.5, inplace=False)`: zero whole channels of (N, C, D, H, W) or (C, D, H, W)."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """`AlphaDropout(p=0.5, inplace=False)`: dropout that keeps zero mean and unit variance for SELU networks
    (`inplace` is stored but not used, as PyTorch)."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """`FeatureAlphaDropout(p=0.5, inplace=False)`: AlphaDropout of whole channels."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)

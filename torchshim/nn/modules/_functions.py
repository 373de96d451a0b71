"""`torch.nn.modules._functions`: the autograd Function behind `nn.CrossMapLRN2d` (ported from PyTorch 2.13).

PyTorch's legacy (Lua-torch) cross-map LRN, reproduced with its quirks: the forward's running window never
drops channel 0 once it is past the first `size // 2 + 1` channels, and the hand-written backward uses the
symmetric window (so it is not the exact derivative of the forward). Both windows are 0/1 matrices over the
channels built on the host from the (static) channel count and size, applied with one einsum, so the Function
also runs under `jax.jit`. (PyTorch's SyncBatchNorm Function has no counterpart: one process, no sync.)
"""
import numpy as np

from ..._api import einsum, tensor
from ...autograd.function import Function

__all__ = []


def _forward_window(channels, size):
    """M[c, i] = 1 where channel i is in the scale sum of channel c (PyTorch's running window, quirk kept)."""
    pre_pad = int((size - 1) / 2 + 1)
    m = np.zeros((channels, channels))
    m[0, :min(pre_pad, channels)] = 1
    for c in range(1, channels):
        m[c] = m[c - 1]
        if c < channels - pre_pad + 1:
            m[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            m[c, c - pre_pad] -= 1
    return m


def _backward_window(channels, size):
    """B[c, j] = 1 where ratio channel j enters the accumulated sum of channel c in PyTorch's backward."""
    inverse_pre_pad = int(size - (size - 1) / 2)
    b = np.zeros((channels, channels))
    for c in range(channels):
        lo, hi = c - inverse_pre_pad, c + size - 1 - inverse_pre_pad
        b[c, max(lo, 0):max(min(hi, channels - 1) + 1, 0)] = 1
    return b


def _channel_mix(window, x):
    return einsum("ci,nihw->nchw", tensor(window, dtype=x.dtype), x)


class CrossMapLRN2d(Function):
    """PyTorch's torch.nn._functions.CrossMapLRN2d: `apply(input, size, alpha=1e-4, beta=0.75, k=1)` on a 4D
    input, with the hand-written backward (nodes named CrossMapLRN2dBackward, as PyTorch's)."""

    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        ctx.size, ctx.alpha, ctx.beta, ctx.k = size, alpha, beta, k
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        scale = _channel_mix(_forward_window(input.size(1), size), input * input) * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.scale = scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output = ctx.saved_tensors
        channels = input.size(1)
        if int(ctx.size - (ctx.size - 1) / 2) > ctx.size - 1:  # PyTorch's narrow() of its padded buffer fails
            raise RuntimeError(f"start ({int(ctx.size - (ctx.size - 1) / 2)}) + length ({channels}) exceeds "
                               f"dimension size ({channels + ctx.size - 1}).")
        cache_ratio_value = 2 * ctx.alpha * ctx.beta / ctx.size
        ratio = grad_output * output / ctx.scale
        accum = _channel_mix(_backward_window(channels, ctx.size), ratio)
        grad_input = ctx.scale.pow(-ctx.beta) * grad_output - cache_ratio_value * input * accum
        return grad_input, None, None, None, None

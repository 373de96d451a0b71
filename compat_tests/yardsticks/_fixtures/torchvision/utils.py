"""Stand-ins for `torchvision.utils.make_grid` / `save_image` (test fixture): the grid is built in NumPy and
written as a PNG with PIL."""
import math

import numpy as np
import torch
from PIL import Image


def _grid(array, nrow=8, padding=2, normalize=False, value_range=None, pad_value=0.0):
    if array.ndim == 3:
        array = array[None]
    if array.shape[1] == 1:
        array = np.repeat(array, 3, axis=1)
    if normalize:
        lo, hi = value_range if value_range is not None else (float(array.min()), float(array.max()))
        array = (np.clip(array, lo, hi) - lo) / max(hi - lo, 1e-5)
    n, c, h, w = array.shape
    cols = min(nrow, n)
    rows = int(math.ceil(n / cols))
    grid = np.full((c, rows * (h + padding) + padding, cols * (w + padding) + padding), pad_value,
                   dtype=array.dtype)
    for k in range(n):
        r, q = divmod(k, cols)
        top, left = r * (h + padding) + padding, q * (w + padding) + padding
        grid[:, top:top + h, left:left + w] = array[k]
    return grid


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """A (B, C, H, W) batch -> one (3, H', W') image tensor, `nrow` images per row."""
    array = tensor.detach().cpu().numpy()
    return torch.tensor(_grid(array, nrow, padding, normalize, value_range, pad_value))


def save_image(tensor, fp, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False,
               pad_value=0.0, format=None):
    """Write `make_grid(tensor, ...)` to `fp` as an 8-bit image."""
    grid = _grid(tensor.detach().cpu().numpy(), nrow, padding, normalize, value_range, pad_value)
    pixels = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    Image.fromarray(pixels, mode="RGB").save(fp, format=format)

"""Values given to SummaryWriter as numpy arrays (torchshim tensors, numpy arrays, Python numbers), and the
image layout helpers (any of NCHW/CHW/HWC/HW... to one HWC image, a batch laid out as a grid)."""
import numpy as np

from ... import _api as torch

__all__ = ["make_np", "convert_to_hwc", "make_grid"]


def make_np(x):
    """A numpy array of `x`: a numpy array as is, a Python/numpy scalar as a 1-element array, a tensor
    detached (bfloat16 read as float16, as PyTorch does)."""
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, torch.Tensor):
        if x.dtype == torch.bfloat16:
            x = x.to(torch.float16)
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def make_grid(images, ncols=8):
    """(N, 1 or 3, H, W) -> (3, H * rows, W * cols): the images side by side, `ncols` per row."""
    if images.shape[1] == 1:
        images = np.concatenate([images, images, images], 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = int(np.ceil(float(n) / ncols))
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def convert_to_hwc(array, input_format):
    """`array` laid out as `input_format` (e.g. 'CHW', 'NHWC', 'HW') -> an (H, W, C) image with 3 channels
    (or 4 for RGBA input)."""
    if len(set(input_format)) != len(input_format):
        raise AssertionError("You can not use the same dimension shorthand twice. "
                             f"input_format: {input_format}")
    if len(array.shape) != len(input_format):
        raise AssertionError("size of input tensor and input format are different. "
                             f"tensor shape: {array.shape}, input_format: {input_format}")
    fmt = input_format.upper()
    if len(fmt) == 4:
        grid = make_grid(array.transpose([fmt.find(c) for c in "NCHW"]))
        return grid.transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = array.transpose([fmt.find(c) for c in "HWC"])
        if hwc.shape[2] == 1:
            hwc = np.concatenate([hwc, hwc, hwc], 2)
        return hwc
    if len(fmt) == 2:
        hw = array.transpose([fmt.find(c) for c in "HW"])
        return np.stack([hw, hw, hw], 2)
    raise AssertionError(f"input_format should have 2, 3 or 4 letters, got {input_format}")

"""Stand-ins for the `torchvision.transforms` the yardstick scripts use (test fixture).

PIL images in, `torch` tensors out of `ToTensor`; `Normalize` works on tensors. `Resize`/`CenterCrop` take PIL
images only (what the scripts give them).
"""
import numbers

import numpy as np
import torch
from PIL import Image


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class ToTensor:
    """PIL image / HxWxC uint8 array -> float32 CxHxW tensor in [0, 1]."""

    def __call__(self, pic):
        arr = np.array(pic, dtype=np.uint8, copy=True)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return torch.tensor(arr.transpose(2, 0, 1).astype(np.float32) / 255.0)


class Normalize:
    def __init__(self, mean, std, inplace=False):
        self.mean, self.std, self.inplace = mean, std, inplace

    def __call__(self, tensor):
        mean = torch.as_tensor(self.mean, dtype=tensor.dtype).view(-1, 1, 1)
        std = torch.as_tensor(self.std, dtype=tensor.dtype).view(-1, 1, 1)
        if self.inplace:
            return tensor.sub_(mean).div_(std)
        return (tensor - mean) / std


def _size_pair(size):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    return int(size[0]), int(size[1])


class Resize:
    """Resize(size): an int matches the smaller edge to it (aspect kept); (h, w) resizes to that."""

    def __init__(self, size, interpolation=Image.BILINEAR):
        self.size, self.interpolation = size, interpolation

    def __call__(self, img):
        w, h = img.size
        if isinstance(self.size, numbers.Number):
            short, long = (w, h) if w <= h else (h, w)
            new_short, new_long = int(self.size), int(self.size * long / short)
            new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
        else:
            new_h, new_w = _size_pair(self.size)
        return img.resize((new_w, new_h), self.interpolation)


class CenterCrop:
    def __init__(self, size):
        self.size = _size_pair(size)

    def __call__(self, img):
        w, h = img.size
        th, tw = self.size
        left, top = int(round((w - tw) / 2.0)), int(round((h - th) / 2.0))
        return img.crop((left, top, left + tw, top + th))


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

"""Synthetic stand-ins for `torchvision.datasets.MNIST`, `FashionMNIST` and `FakeData` (test fixture, no
download).

MNIST: `len` is YARDSTICK_MNIST_TRAIN / YARDSTICK_MNIST_TEST (default 2048 / 512, not 60000 / 10000: the
scripts run in CI on two cores). Each image is 28x28 grey noise with a bright 6x6 square whose position
depends on the label, so that the digit is learnable; labels are Python ints like the real dataset's.
FashionMNIST: the same kind of images with another layout (a faint 8x4 bar, brighter than the noise by 64,
whose position, jittered by a pixel or two, and direction depend on the label), so that it is learnable but
not at once; `len` is YARDSTICK_FASHION_TRAIN / YARDSTICK_FASHION_TEST (default 2048
/ 512, not 60000 / 10000).
FakeData: random RGB images of `image_size` and random int labels, one fixed generator per index.
"""
import os

import numpy as np
from PIL import Image


def _length(name, default):
    return int(os.environ.get(name, default))


class MNIST:
    """MNIST(root, train=True, transform=None, target_transform=None, download=False) over synthetic data."""

    classes = [f"{i} - {w}" for i, w in enumerate(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        self.root, self.train = root, train
        self.transform, self.target_transform = transform, target_transform
        n = _length("YARDSTICK_MNIST_TRAIN", 2048) if train else _length("YARDSTICK_MNIST_TEST", 512)
        rs = np.random.RandomState(1 if train else 2)
        self.targets = rs.randint(0, 10, size=n)
        data = rs.randint(0, 64, size=(n, 28, 28)).astype(np.uint8)
        for i, label in enumerate(self.targets):
            r, c = 4 + (label // 5) * 12, 2 + (label % 5) * 5
            data[i, r:r + 6, c:c + 6] = 255
        self.data = data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = Image.fromarray(self.data[index], mode="L"), int(self.targets[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class FashionMNIST(MNIST):
    """FashionMNIST(root, train=True, transform=None, target_transform=None, download=False), synthetic."""

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        self.root, self.train = root, train
        self.transform, self.target_transform = transform, target_transform
        n = _length("YARDSTICK_FASHION_TRAIN", 2048) if train else _length("YARDSTICK_FASHION_TEST", 512)
        rs = np.random.RandomState(3 if train else 4)
        self.targets = rs.randint(0, 10, size=n)
        data = rs.randint(0, 176, size=(n, 28, 28))
        for i, label in enumerate(self.targets):
            r, c = 3 + (label // 5) * 13 + rs.randint(-2, 3), 1 + (label % 5) * 5 + rs.randint(-1, 2)
            r, c = max(r, 0), max(c, 0)
            if label % 2:
                data[i, r:r + 8, c:c + 4] += 64
            else:
                data[i, r:r + 4, c:c + 8] += 64
        self.data = np.minimum(data, 255).astype(np.uint8)


class FakeData:
    """FakeData(size=1000, image_size=(3, 224, 224), num_classes=10, transform=None, target_transform=None,
    random_offset=0): random PIL images and int labels."""

    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        self.size, self.image_size, self.num_classes = size, tuple(image_size), num_classes
        self.transform, self.target_transform, self.random_offset = transform, target_transform, random_offset

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        if index >= len(self):
            raise IndexError(f"{type(self).__name__} index out of range")
        rs = np.random.RandomState(index + self.random_offset)
        c, h, w = self.image_size
        pixels = rs.randint(0, 256, size=(h, w, c)).astype(np.uint8)
        img = Image.fromarray(pixels[:, :, 0] if c == 1 else pixels, mode="L" if c == 1 else "RGB")
        target = int(rs.randint(0, self.num_classes))
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

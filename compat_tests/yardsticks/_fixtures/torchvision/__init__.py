"""A tiny stand-in for `torchvision`, for the yardstick tests only (compat_tests/test_yardsticks.py).

This machine is offline and has no torchvision, and the pytorch/examples scripts import it to download
MNIST / make FakeData, to transform images and to save image grids. This package gives them just the
names they use, over synthetic data that is generated in memory (nothing is downloaded or written under
`root`). It imports `torch`, so the same scripts run against it under real PyTorch and under
`python -m torchshim run` (which makes `import torch` give torchshim). It is put on PYTHONPATH by the
tests only; it is not part of torchshim.

- datasets: `MNIST` (learnable synthetic digits, 28x28 grey PIL images, int labels), `FakeData`
- transforms: `Compose`, `ToTensor`, `Normalize`, `Resize`, `CenterCrop`, `Lambda`
- utils: `make_grid`, `save_image` (writes a PNG with PIL)
- models: `resnet18` (the ResNet-18 architecture, for the fx module_tracer demo)
"""
from . import datasets, models, transforms, utils

__version__ = "0.0+yardstick-fixture"
__all__ = ["datasets", "models", "transforms", "utils"]

"""`torch.optim.lr_scheduler`: PyTorch 2.13's learning-rate schedulers, ported (see `_lr_base.py`,
`_lr_decay.py`, `_lr_composite.py`, `_lr_cyclic.py`)."""
from ._lr_base import EPOCH_DEPRECATION_WARNING  # noqa: F401
from ._lr_base import LambdaLR, LRScheduler, MultiplicativeLR, _LRScheduler
from ._lr_composite import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from ._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from ._lr_decay import (ConstantLR, CosineAnnealingLR, ExponentialLR, LinearLR, MultiStepLR, PolynomialLR,
                        StepLR)

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]

for _cls in (LRScheduler, _LRScheduler, LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR, LinearLR,
             ExponentialLR, SequentialLR, CosineAnnealingLR, ChainedScheduler, ReduceLROnPlateau, CyclicLR,
             CosineAnnealingWarmRestarts, OneCycleLR, PolynomialLR):
    _cls.__module__ = __name__
del _cls

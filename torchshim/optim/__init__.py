"""`torch.optim`: optimizers (a stateful shell over pure jax updates, see `_functional.py`) and
`lr_scheduler`."""
from . import lr_scheduler  # noqa: F401
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

# PyTorch removes the submodule names from `torch.optim` (importing `torch.optim.adam` still works)
del adadelta, adagrad, adam, adamw, sparse_adam, adamax, asgd, sgd, radam, rprop  # noqa: F821
del rmsprop, optimizer, nadam, lbfgs  # noqa: F821

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "lr_scheduler", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam"]

"""`torch.optim`: optimizers (a stateful shell over pure jax updates, see `_functional.py`) and
`lr_scheduler`."""
from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401
from ._stateless import swap_in_optimizer_params_and_state
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

# PyTorch removes the submodule names from `torch.optim` (importing `torch.optim.adam` still works)
del adadelta, adagrad, adam, adamw, sparse_adam, adamax, asgd, sgd, radam, rprop  # noqa: F821
del rmsprop, optimizer, nadam, lbfgs, adafactor, muon  # noqa: F821

__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "lr_scheduler",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "swa_utils",
           "swap_in_optimizer_params_and_state"]

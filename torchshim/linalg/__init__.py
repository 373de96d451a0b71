"""`torch.linalg`: PyTorch's linear-algebra namespace on jax.numpy.linalg / jax.scipy.linalg.

The ops are table ops registered under PyTorch's aten names (`linalg_svd`, ...; torchshim/ops/linalg_*.py),
so they record autograd nodes, take `out=` and go through `__torch_function__`; this package binds them under
their `torch.linalg` names. Decompositions and solvers are in `_decompositions.py`, norms and the other matrix
functions in `_functions.py`.
"""
from .. import _api  # noqa: F401  (installs the op table)
from ._decompositions import *  # noqa: F401,F403
from ._functions import *  # noqa: F401,F403

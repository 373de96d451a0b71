"""torchshim: PyTorch's API on JAX. `import torchshim as torch`.

This file only re-exports: the public namespace of tensors and ops from `_api.py` (built from the op table),
then the packages built on it (`nn`, `optim`, `utils`, `serialization`, ...). No module of torchshim imports
the package root (docs/dev/architecture.md: the layers, checked by `nox -s lint`).
"""
import jax as _jax

# int64/float64 are PyTorch's defaults; float32 stays the default float
_jax.config.update("jax_enable_x64", True)

from ._api import *  # noqa: E402,F401,F403  (tensors, dtypes, every op, grad modes, generators)
from . import autograd, cuda, utils  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from .autograd import functional as _autograd_functional  # noqa: E402,F401  (torch.autograd.functional)
from .autograd.gradcheck import gradcheck as _gradcheck, gradgradcheck as _gradgradcheck  # noqa: E402

# `torch.autograd.gradcheck` is the function (the module stays importable as torch.autograd.gradcheck), as in
# PyTorch; torchshim/autograd/__init__.py can't import it (gradcheck uses the public API, a layer above the
# tape)
autograd.gradcheck, autograd.gradgradcheck = _gradcheck, _gradgradcheck

__version__ = "2.13.0+torchshim.0.1.0"
from . import return_types  # noqa: E402,F401
from . import func  # noqa: E402,F401
from ._cli import install_as_torch  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import serialization  # noqa: E402,F401

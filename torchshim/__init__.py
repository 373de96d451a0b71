"""torchshim: PyTorch's API on JAX. `import torchshim as torch`.

The public names are built here from the op table (`torchshim/ops`) and the facade modules; nothing else lives
in this file.
"""
import jax as _jax

_jax.config.update("jax_enable_x64", True)  # int64/float64 are PyTorch's defaults; float32 stays the default float

from . import _dtype as _D  # noqa: E402
from ._device import device, get_default_device, set_default_device  # noqa: E402
from ._dtype import dtype, finfo, get_default_dtype, iinfo, set_default_dtype  # noqa: E402
from ._layout import layout, memory_format  # noqa: E402
from ._promotion import can_cast, promote_types, result_type  # noqa: E402
from ._tensor import Size, Tensor  # noqa: E402
from . import ops as _ops  # noqa: E402,F401  (registers every op)
from . import _indexing  # noqa: E402,F401  (Tensor.__getitem__/__setitem__)
from .ops._registry import install as _install  # noqa: E402

globals().update(_D.PUBLIC)
from ._layout import PUBLIC as _LAYOUTS  # noqa: E402
globals().update(_LAYOUTS)  # torch.strided, torch.channels_last, ...
bool = _D.bool_  # noqa: A001  torch.bool
_install(globals())

from ._legacy import *  # noqa: E402,F401,F403  FloatTensor, LongTensor, ...
from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: E402,F401,E501
from ._tensor_str import set_printoptions  # noqa: E402,F401
from ._warnings import is_warn_always_enabled, set_warn_always  # noqa: E402,F401
from . import autograd, cuda, utils  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402,F401

__version__ = "2.13.0+torchshim.0.1.0"
from . import return_types  # noqa: E402,F401
from . import func  # noqa: E402,F401
from ._install import install_as_torch  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import serialization  # noqa: E402,F401

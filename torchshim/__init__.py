"""torchshim: PyTorch's API on JAX. `import torchshim as torch`.

This file only re-exports: the public namespace of tensors and ops from `_api.py` (built from the op table),
then the packages built on it (`nn`, `optim`, `utils`, `serialization`, ...). No module of torchshim imports
the package root (docs/dev/architecture.md: the layers, checked by `nox -s lint`).
"""
import jax as _jax

# int64/float64 are PyTorch's defaults; float32 stays the default float
_jax.config.update("jax_enable_x64", True)

# jax's persistent compilation cache (TORCHSHIM_COMPILE_CACHE=0 turns it off) and TORCHSHIM_LOGS=kernels,
# before anything compiles
from . import _compile_cache, _kernel_log  # noqa: E402
_compile_cache.configure()
if _kernel_log.enabled():
    _kernel_log.install()

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
from . import overrides, _C  # noqa: E402,F401  (the __torch_function__ protocol's helpers)
# torch.autograd re-exports these of torch.overrides, as PyTorch's does
autograd.has_torch_function, autograd.handle_torch_function = overrides.has_torch_function, \
    overrides.handle_torch_function
autograd.is_tensor_like = overrides.is_tensor_like

from . import return_types  # noqa: E402,F401
from . import func  # noqa: E402,F401
from .func import vmap  # noqa: E402,F401  (torch.vmap)
from ._cli import install_as_torch  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import serialization  # noqa: E402,F401
from . import multiprocessing  # noqa: E402,F401  (cheap: stdlib + modules already imported)
from . import fx  # noqa: E402,F401
from . import testing  # noqa: E402,F401
from . import backends  # noqa: E402,F401
from .backends._global_flags import *  # noqa: E402,F401,F403  (torch.use_deterministic_algorithms, ...)
from . import amp, cpu  # noqa: E402,F401
from .cuda import amp as _cuda_amp  # noqa: E402,F401  (torch.cuda.amp, the deprecated spellings)
from .amp import autocast  # noqa: E402,F401
from .amp.autocast_mode import (  # noqa: E402,F401  (torch.is_autocast_enabled, ...)
    autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache, get_autocast_cpu_dtype,
    get_autocast_dtype, get_autocast_gpu_dtype, is_autocast_cache_enabled, is_autocast_cpu_enabled,
    is_autocast_enabled, set_autocast_cache_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled,
    set_autocast_dtype, set_autocast_enabled, set_autocast_gpu_dtype)
from . import compiler, distributed, jit, onnx  # noqa: E402,F401
from .compiler import compile  # noqa: E402,F401  (torch.compile: XLA programs, compiler/_program.py)
from . import _dynamo  # noqa: E402,F401
from . import profiler  # noqa: E402,F401
from . import fused  # noqa: E402,F401  (torchshim's fused eager mode)
from .fused import set_eager_mode  # noqa: E402,F401
from .autograd import profiler as _autograd_profiler  # noqa: E402,F401  (torch.autograd.profiler)
from . import hub  # noqa: E402,F401
from . import library  # noqa: E402,F401  (torch.library; torch.ops.<ns> is ops/_namespace.py)
# torch.* submodules and objects that are not ops (issue 10; compat_tests/test_torch_modules.py)
from ._C import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402,F401
from ._errors import AcceleratorError, FatalError, OutOfMemoryError  # noqa: E402,F401
from .amp import GradScaler  # noqa: E402,F401  (torch.GradScaler is torch.amp.GradScaler)
from . import accelerator, mps, mtia, xpu  # noqa: E402,F401
from ._streams import Event, Stream  # noqa: E402,F401
from ._device_module import get_device_module  # noqa: E402,F401
from ._higher_order_ops import cond, while_loop  # noqa: E402,F401
from . import export  # noqa: E402,F401
from ._buffers import from_file, frombuffer  # noqa: E402,F401
from . import functional, futures, random, signal, types, version, torch_version  # noqa: E402,F401
from . import quasirandom  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from . import fft  # noqa: E402,F401
from . import special  # noqa: E402,F401
from . import sparse  # noqa: E402,F401
from . import distributions  # noqa: E402,F401
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402,F401
from ._lobpcg import lobpcg  # noqa: E402,F401
from .autograd.anomaly_mode import (  # noqa: E402,F401
    is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled)
from ._default_tensor_type import set_default_tensor_type  # noqa: E402,F401
__version__ = version.__version__  # a TorchVersion: compares with "2.1" and (2, 1), as torch.__version__

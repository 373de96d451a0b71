"""torch.autograd: the eager tape, grad modes, custom Functions.

This package is the tape's layer (below the ops); its `functional` and `gradcheck` modules are written on the
public API, a layer above, so the package root imports them (and binds `torch.autograd.gradcheck` to the
function, as PyTorch does)."""
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .variable import Variable  # noqa: F401
from . import _tensor_api  # noqa: F401  (Tensor.backward, register_hook, retain_grad, ...)
from .engine_api import backward, grad  # noqa: F401
from .function import Function, once_differentiable  # noqa: F401
from . import function  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from . import anomaly_mode, graph  # noqa: F401
from . import forward_ad  # noqa: F401
from .engine_flags import (  # noqa: F401
    enforce_grad_layout_policy, is_multithreading_enabled, is_view_replay_enabled, set_multithreading_enabled)
from .._c_profiler import DeviceType, ProfilerActivity, ProfilerState, kineto_available  # noqa: F401

"""torch.autograd: grad modes and the legacy `Variable`. The eager tape arrives with the autograd issue."""
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .variable import Variable  # noqa: F401

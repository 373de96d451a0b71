"""`torch._dynamo.exc`: the exceptions torch.compile raises."""
from ..compiler._compile import InvalidBackend  # noqa: F401
from ..compiler._program import Unsupported  # noqa: F401

__all__ = ["Unsupported", "InvalidBackend", "TorchRuntimeError", "BackendCompilerFailed"]


class TorchRuntimeError(RuntimeError):
    """`torch._dynamo.exc.TorchRuntimeError`."""


class BackendCompilerFailed(RuntimeError):
    """`torch._dynamo.exc.BackendCompilerFailed`."""

"""`torch.distributed`'s exception classes: DistError and its subclasses (all RuntimeErrors, as PyTorch's)."""

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError"]


class DistError(RuntimeError):
    """`torch.distributed.DistError`: the base of torch.distributed's errors."""


class DistBackendError(DistError):
    """`torch.distributed.DistBackendError`: a collective failed in the backend (a peer died, a timeout)."""


class DistNetworkError(DistError):
    """`torch.distributed.DistNetworkError`: a network failure (the coordinator cannot be reached)."""


class DistStoreError(DistError):
    """`torch.distributed.DistStoreError`: a store operation failed or timed out (rendezvous included)."""

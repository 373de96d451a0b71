"""`torch.backends.cusparselt`: NVIDIA's cuSPARSELt; absent from a CPU-only build, so every answer is the
one PyTorch's CPU build gives."""

__all__ = ["version", "is_available", "get_max_alg_id"]


def version():
    """`torch.backends.cusparselt.version() -> int | None`: None (no cuSPARSELt in a CPU-only build)."""
    return None


def is_available():
    """`torch.backends.cusparselt.is_available() -> bool`: False (CPU-only build)."""
    return False


def get_max_alg_id():
    """`torch.backends.cusparselt.get_max_alg_id() -> int | None`: None (no cuSPARSELt)."""
    return None

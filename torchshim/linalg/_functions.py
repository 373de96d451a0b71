"""torch.linalg names bound from the op table (see __init__.py)."""
__all__ = []

"""torch.utils (the parts that exist so far)."""
from . import backcompat  # noqa: F401
from . import checkpoint  # noqa: F401
from . import data  # noqa: F401

"""Stand-in for `IPython` (test fixture for the d2l yardsticks): d2l imports `IPython.display` only."""
from . import display

__all__ = ["display"]

"""The op table: importing this package registers every op (see `_registry.py`)."""
from . import pointwise, comparison, views, copy, creation, indexing, reduction, sorting, movement, linalg, random  # noqa: F401

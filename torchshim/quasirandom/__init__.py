"""`torch.quasirandom`: `SobolEngine`, Sobol' low-discrepancy sequences (torchshim/quasirandom/_engine.py)."""
from ._engine import SobolEngine  # noqa: F401

"""The command-line tool `python -m torchshim run|check` and `install_as_torch()` (re-exports only).

- `commands.py` the command line: `main` (`python -m torchshim`, called by torchshim/__main__.py), `run_main`.
- `install.py` `install_as_torch()`: `import torch` / `import torch.X.Y` give torchshim's modules.
- `launch.py` runs a script or `-m` module as `__main__` like Python does (standard library only: `check`
  also executes it, unimported, under the real PyTorch).
- `workers.py`, `spawn_main.py` worker processes started by 'spawn' / 'forkserver' under `run` get the alias.
- `check.py`, `compare.py` `check`: run a script under PyTorch and under torchshim, compare what they print.
"""
from .commands import main, run_main
from .install import install_as_torch

__all__ = ["main", "run_main", "install_as_torch"]

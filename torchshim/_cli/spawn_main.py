"""Run as `__mp_main__` in a process that multiprocessing starts with 'spawn' or 'forkserver' under
`python -m torchshim run`: installs torchshim as `torch`, then runs the parent's main script (workers.py)."""
from .workers import child_main_globals as _child_main_globals

globals().update(_child_main_globals())

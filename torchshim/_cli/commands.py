"""`python -m torchshim run|check ...`: the drop-in runner and the conformance checker's command line
(`main`, called by torchshim/__main__.py)."""
import sys

from .launch import USAGE_TARGET, UsageError, parse_target, run_target

USAGE = f"""usage: python -m torchshim run {USAGE_TARGET}
       python -m torchshim check [--rtol R] [--atol A] [--timeout S] [--python EXE] {USAGE_TARGET}
       python -m torchshim doctor SCRIPT

  run     run an unmodified PyTorch script (or -m module) on torchshim: `import torch` gives torchshim
  check   run it under the real PyTorch and under torchshim and compare what both print (docs/porting.md)
  doctor  before running anything: every torch name SCRIPT and its local modules use, marked supported,
          supported with a documented difference, or missing, with file:line (exit status 1 if one is missing)

  --seed N   seed Python's random, NumPy and torch.manual_seed with N before the script starts
             (check seeds with 0 unless given)"""


def run_main(argv):
    """`python -m torchshim run [--seed N] (SCRIPT | -m MODULE) [ARGS...]`: install torchshim as `torch`
    (`install_as_torch`) and run the target as `__main__`, like `python SCRIPT ARGS` / `python -m MODULE
    ARGS`: same sys.argv, sys.path[0], exit status and traceback."""
    try:
        seed, is_module, target, args = parse_target(argv)
    except UsageError as e:
        return _usage_error(e)
    from .install import install_as_torch
    from .workers import install_spawn_hook

    install_as_torch()
    install_spawn_hook()  # worker processes started by 'spawn' / 'forkserver' get the alias too
    run_target(target, args, is_module=is_module, seed=seed)
    return 0


def _usage_error(message):
    print(USAGE, file=sys.stderr)
    print(f"python -m torchshim: error: {message}", file=sys.stderr)
    return 2


def main(argv=None):
    """Entry point of `python -m torchshim`; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if not argv:
        return _usage_error("a command is required (run, check or doctor)")
    command, rest = argv[0], argv[1:]
    if command == "run":
        return run_main(rest)
    if command == "check":
        from .check import check_main

        return check_main(rest)
    if command == "doctor":
        from .doctor import doctor_main

        return doctor_main(rest)
    return _usage_error(f"unknown command {command!r} (choose run, check or doctor)")

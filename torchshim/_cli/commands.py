"""`python -m torchshim run|check ...`: the drop-in runner and the conformance checker's command line
(`main`, called by torchshim/__main__.py)."""
import sys

from .launch import USAGE_TARGET, UsageError, parse_target, run_target

USAGE = f"""usage: python -m torchshim run {USAGE_TARGET}
       python -m torchshim run --fused {USAGE_TARGET}
       python -m torchshim run --nproc_per_node N [TORCHRUN OPTIONS] [--seed N] (SCRIPT | -m MODULE) [ARGS...]
       python -m torchshim check [--rtol R] [--atol A] [--timeout S] [--python EXE] {USAGE_TARGET}
       python -m torchshim doctor SCRIPT

  run     run an unmodified PyTorch script (or -m module) on torchshim: `import torch` gives torchshim;
          with torchrun's options, N worker processes as torchrun starts them (`python -m torchshim run
          --help` lists the options)
  check   run it under the real PyTorch and under torchshim and compare what both print (docs/porting.md)
  doctor  before running anything: every torch name SCRIPT and its local modules use, marked supported,
          supported with a documented difference, or missing, with file:line (exit status 1 if one is missing)

  --seed N   seed Python's random, NumPy and torch.manual_seed with N before the script starts
             (check seeds with 0 unless given)
  --fused    run in fused eager mode (TORCHSHIM_EAGER=fused: ops recorded and run as cached XLA programs;
             docs/performance.md)"""


def _is_launch(argv):
    """Whether `run`'s arguments hold a launcher option (anything but --seed N / -m before the target):
    `run --nproc_per_node N SCRIPT` is torchrun's launcher with torchshim as `torch` in each worker."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] == "--seed":
            i += 2
        elif argv[i] == "-m":
            return False
        else:
            return True
    return False


def run_main(argv):
    """`python -m torchshim run [--seed N] (SCRIPT | -m MODULE) [ARGS...]`: install torchshim as `torch`
    (`install_as_torch`) and run the target as `__main__`, like `python SCRIPT ARGS` / `python -m MODULE
    ARGS`: same sys.argv, sys.path[0], exit status and traceback.

    With torchrun's options (`run --nproc_per_node N [--nnodes ...] SCRIPT ARGS`): the launcher of
    torchshim/distributed/run.py, each worker running `python -m torchshim run SCRIPT ARGS`."""
    argv = _take_fused(argv)
    if _is_launch(argv):
        from ..distributed.run import main as launch_main

        launch_main(argv, torchshim_run=True)
        return 0
    try:
        seed, is_module, target, args = parse_target(argv)
    except UsageError as e:
        return _usage_error(e)
    if is_module and target == "torch.distributed.run":  # `run -m torch.distributed.run ...`: torchrun
        from ..distributed.run import main as launch_main

        launch_main([*(["--seed", str(seed)] if seed is not None else []), *args], torchshim_run=True)
        return 0
    from .install import install_as_torch
    from .workers import install_spawn_hook

    install_as_torch()
    install_spawn_hook()  # worker processes started by 'spawn' / 'forkserver' get the alias too
    run_target(target, args, is_module=is_module, seed=seed)
    return 0


def _take_fused(argv):
    """`run`'s arguments without a `--fused` option before the target; `--fused` sets TORCHSHIM_EAGER=fused
    (for this process, its workers and subprocesses)."""
    argv = list(argv)
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-m":
        if argv[i] == "--fused":
            del argv[i]
            import os

            from .. import _fused

            os.environ["TORCHSHIM_EAGER"] = "fused"
            _fused.set_mode("fused")
            continue
        i += 2 if argv[i] == "--seed" else 1
    return argv


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

"""`python -m torchshim check`: run a script under the real PyTorch and under torchshim, compare the output.

Both runs are subprocesses, one after the other, in the current working directory, with stdin closed, the same
environment plus PYTHONHASHSEED=0 (unless set), PYTHONUNBUFFERED=1 and TORCHSHIM_CHECK_RUN=reference or
torchshim, and, before the script starts, Python's `random`, NumPy and `torch.manual_seed` seeded (0 unless
--seed). Their stdout is compared line by line (compare.py); then the exit statuses, and on a traceback the
exception's `Type: message` line. Exit status: 0 when everything matches, 1 at the first
difference, 2 when the comparison could not be made (no PyTorch, a timeout, bad options).
"""
import os
import signal
import subprocess
import sys
import time

from . import compare, launch

DEFAULT_RTOL = 1.3e-6  # torch.testing.assert_close's float32 defaults
DEFAULT_ATOL = 1e-5
DEFAULT_TIMEOUT = 600.0
_OPTIONS = {"--rtol": float, "--atol": float, "--timeout": float, "--python": str, "--seed": int}

# The reference side: execute launch.py (standard library only) in the given interpreter, unimported.
_REFERENCE_BOOT = ("import sys; p = sys.argv.pop(1); ns = {'__name__': 'torchshim_reference_launch', "
                   "'__file__': p}; exec(compile(open(p, encoding='utf-8').read(), p, 'exec'), ns); "
                   "ns['reference_main'](sys.argv[1:])")
# The torchshim side: `python -m torchshim run`, with this torchshim importable (dropped from sys.path again,
# so the script sees the same sys.path as under `python script.py`).
_TORCHSHIM_BOOT = ("import sys; sys.path.insert(0, sys.argv.pop(1)); from torchshim._cli.commands "
                   "import run_main; sys.path.pop(0); sys.exit(run_main(sys.argv[1:]))")


class _Run:
    def __init__(self, name, returncode, stdout, stderr, seconds, timed_out):
        self.name, self.returncode, self.stdout, self.stderr = name, returncode, stdout, stderr
        self.seconds, self.timed_out = seconds, timed_out
        self.lines = stdout.splitlines()

    def status(self):
        if self.timed_out:
            return "timed out"
        if self.returncode < 0:
            try:
                return f"killed by {signal.Signals(-self.returncode).name}"
            except ValueError:
                return f"killed by signal {-self.returncode}"
        return f"exit status {self.returncode}"


def _parse(argv):
    """check's options, then the target: -> (options dict, target argv for the launcher)."""
    opts = {"--rtol": DEFAULT_RTOL, "--atol": DEFAULT_ATOL, "--timeout": DEFAULT_TIMEOUT,
            "--python": sys.executable, "--seed": 0}
    i = 0
    while i < len(argv) and argv[i] in _OPTIONS:
        if i + 1 >= len(argv):
            raise launch.UsageError(f"{argv[i]} needs a value")
        try:
            opts[argv[i]] = _OPTIONS[argv[i]](argv[i + 1])
        except ValueError:
            raise launch.UsageError(f"{argv[i]}: bad value {argv[i + 1]!r}") from None
        i += 2
    target = argv[i:]
    launch.parse_target(target)  # validates (SCRIPT | -m MODULE) [ARGS...]
    return opts, target


def _execute(name, cmd, timeout):
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    env["PYTHONUNBUFFERED"] = "1"
    env["TORCHSHIM_CHECK_RUN"] = name
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:  # interrupted: take the whole process group (DataLoader workers) down
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    decode = lambda b: b.decode("utf-8", errors="replace")  # noqa: E731
    return _Run(name, proc.returncode, decode(out), decode(err), time.perf_counter() - start, timed_out)


def _tail(text, n=15):
    lines = text.rstrip("\n").splitlines()
    return "\n".join("    " + line for line in lines[-n:]) or "    (empty)"


def _report_line(n, ref, got, why):
    print(f"line {n} differs: {why}")
    print(f"  torch:     {ref!r}" if ref is not None else "  torch:     (no such line)")
    print(f"  torchshim: {got!r}" if got is not None else "  torchshim: (no such line)")


def _verdict(ref, shim, rtol, atol):
    """Print the verdict; return 0 when the runs match, else 1."""
    diverged = False
    first = compare.first_difference(ref.lines, shim.lines, rtol, atol)
    if first is not None:
        _report_line(*first)
        diverged = True
    if ref.returncode != shim.returncode:
        print(f"the exit status differs: torch {ref.status()}, torchshim {shim.status()}")
        for label, run in (("torch", ref), ("torchshim", shim)):
            print(f"  end of the {label} run's stderr:\n{_tail(run.stderr)}")
        diverged = True
    elif ref.returncode != 0:
        ref_exc, shim_exc = compare.exception_line(ref.stderr), compare.exception_line(shim.stderr)
        if (ref_exc is None) != (shim_exc is None) or (
                ref_exc is not None and compare.compare_line(ref_exc, shim_exc, rtol, atol) is not None):
            print("the exception differs:")
            print(f"  torch:     {ref_exc}")
            print(f"  torchshim: {shim_exc}")
            diverged = True
    if diverged:
        return 1
    exc = compare.exception_line(ref.stderr) if ref.returncode else None
    ending = f", same {ref.status()}" + (f" and exception ({exc})" if exc else "")
    n = len(ref.lines)
    print(f"{n} line{'s match' if n != 1 else ' matches'}{ending} (rtol {rtol:g}, atol {atol:g})")
    return 0


def check_main(argv):
    """`python -m torchshim check [--rtol R] [--atol A] [--timeout S] [--python EXE] [--seed N]
    (SCRIPT | -m MODULE) [ARGS...]`; returns the exit status (0 match, 1 difference, 2 no comparison)."""
    from .commands import USAGE

    try:
        opts, target = _parse(argv)
    except launch.UsageError as e:
        print(USAGE, file=sys.stderr)
        print(f"python -m torchshim check: error: {e}", file=sys.stderr)
        return 2
    launch_args = ["--seed", str(opts["--seed"]), *target]
    pkg_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # torchshim/..
    runs = []
    for name, cmd in (
            ("reference", [opts["--python"], "-c", _REFERENCE_BOOT, launch.__file__, *launch_args]),
            ("torchshim", [sys.executable, "-c", _TORCHSHIM_BOOT, pkg_parent, *launch_args])):
        try:
            run = _execute(name, cmd, opts["--timeout"])
        except OSError as e:
            print(f"torchshim check: cannot start {cmd[0]}: {e}")
            return 2
        if run.returncode == launch.NO_TORCH_EXIT and launch.NO_TORCH_MARK in run.stderr:
            why = run.stderr.split(launch.NO_TORCH_MARK, 1)[1].strip().splitlines()[0]
            print(f"torchshim check: PyTorch is not installed for {opts['--python']} ({why}); install it or "
                  f"name an interpreter that has it with --python")
            return 2
        label = "torch:    " if name == "reference" else "torchshim:"
        print(f"{label} {run.status()}, {len(run.lines)} lines of output, {run.seconds:.1f} s")
        if run.timed_out:
            print(f"torchshim check: the {label.strip(' :')} run timed out after {opts['--timeout']:g} s; "
                  f"end of its stderr:\n{_tail(run.stderr)}")
            return 2
        runs.append(run)
    return _verdict(*runs, opts["--rtol"], opts["--atol"])

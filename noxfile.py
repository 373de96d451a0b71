"""Developer and CI entry points. `nox -s tests` (default), `nox -s tests_slow`, `nox -s bench`,
`nox -s lint`, `nox -s example`, `nox -s coverage`.

Sessions use nox's default virtualenv + pip backend and the interpreter nox itself runs on (no pinned Python).
torchshim is installed into each session's venv as a regular (non-editable) package, so the tests exercise the
installed package, not the source tree; the `test` extra brings in the PyTorch reference (torch==2.13.0).
"""
import os
import pathlib
import shutil

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

HERE = os.path.dirname(os.path.abspath(__file__))
LINT_PATHS = ["torchshim", "compat_tests", "bench", "examples", "tools", "noxfile.py"]


def _install_torchshim(session, spec):
    """`pip install SPEC` for this checkout, dropping setuptools' build/ first: a module deleted from the
    source tree would otherwise live on in build/lib and be packaged."""
    shutil.rmtree(os.path.join(HERE, "build"), ignore_errors=True)
    session.install(spec)


def _names_tests(arg):
    """True for a pytest argument that selects tests by path (`compat_tests/test_x.py`, `...::test_y`)."""
    return not arg.startswith("-") and os.path.exists(arg.split("::")[0])


# pytest-xdist: one worker per CPU core (at most 4: each worker holds its own compiled kernels, GBs for the
# whole suite); "worksteal" hands each worker a contiguous block of tests (an op's cases share kernels) and
# rebalances at the end. Compiled kernels are also shared between workers and runs through jax's persistent
# compilation cache (see compat_tests/conftest.py).
XDIST_ARGS = ["-n", "auto", "--maxprocesses", "4", "--dist", "worksteal"]


def _sets_workers(arg):
    """True for a pytest argument that chooses the xdist workers itself (`-n 0`, `-n4`, `--numprocesses=2`,
    `-p no:xdist`)."""
    return arg.startswith(("-n", "--numprocesses")) or arg.endswith("no:xdist")


BENCHES = ["eager_overhead", "autograd_step", "nn_step", "compile_step", "first_result", "random_init",
           "data_loading", "distributed"]


def _files_with_slow_cases():
    """The test files that mark a case slow: collecting the whole suite (~45k cases, half a minute per xdist
    worker) to deselect all but a few hundred is the slow session's largest fixed cost."""
    files = sorted(pathlib.Path(HERE, "compat_tests").glob("test_*.py"))
    return [os.path.relpath(p, HERE) for p in files if "mark.slow" in p.read_text(encoding="utf-8")]


def _run_suite(session, marker):
    _install_torchshim(session, ".[test]")
    default = _files_with_slow_cases() if marker == "slow" else ["compat_tests"]
    paths = [] if any(_names_tests(a) for a in session.posargs) else default
    xdist = [] if any(_sets_workers(a) for a in session.posargs) else XDIST_ARGS
    select = [] if "-m" in session.posargs else ["-m", marker]
    session.run("pytest", *xdist, *select, *paths, *session.posargs)


@nox.session
def tests(session):
    """Conformance suite against real PyTorch, without the cases marked slow: `nox -s tests [-- PYTEST_ARGS]`.

    Runs all of compat_tests/ unless the arguments name test files or directories themselves, in parallel on
    the CPU cores (pytest-xdist) unless the arguments set `-n` themselves (`-n 0`: one process, e.g. for
    `--pdb`); `-m EXPR` replaces the `not slow` selection."""
    _run_suite(session, "not slow")


@nox.session
def tests_slow(session):
    """The conformance cases marked slow (subprocesses, whole scripts, worker pools): `nox -s tests_slow`.
    CI runs it after `nox -s tests`."""
    _run_suite(session, "slow")


@nox.session
def bench(session):
    """The benchmarks, PyTorch vs raw JAX vs torchshim side by side: `nox -s bench` runs every script in
    BENCHES; `nox -s bench -- NAME [ARGS]` runs one (e.g. `-- eager_overhead --iters 500`). Each prints its
    table and writes bench/results/NAME.json."""
    _install_torchshim(session, ".[test]")
    args = list(session.posargs)
    names = [args.pop(0)] if args and args[0] in BENCHES else BENCHES
    for name in names:
        session.run("python", f"bench/{name}.py", *args)


@nox.session
def lint(session):
    """ruff over the package, the tests, the benchmarks and the examples; then the layer check
    (tools/check_layers.py: imports only point down, no import cycle of more than 10 modules)."""
    session.install("ruff")
    session.run("ruff", "check", *LINT_PATHS, *session.posargs)
    session.run("python", "tools/check_layers.py")


@nox.session
def coverage(session):
    """Write docs/coverage.md and docs/coverage.json: real torch's public names per namespace, which torchshim
    has, which it lacks and which are out of scope by the rules of tools/coverage.py (needs torch: the `test`
    extra). `nox -s coverage -- --check` only checks that no name the JSON marks supported has gone."""
    _install_torchshim(session, ".[test]")
    session.run("python", "tools/coverage.py", *session.posargs)


@nox.session
def example(session):
    """Run the examples with only torchshim's own dependencies installed (no torch): basics.py, then the main
    training example, the unmodified PyTorch script examples/mnist_like.py, under `python -m torchshim run`
    in its short mode (`nox -s example -- ARGS` passes other arguments to it instead of --short)."""
    _install_torchshim(session, ".")
    session.run("python", "examples/basics.py")
    # from a scratch folder: `-m torchshim` then imports the installed package, not ./torchshim, and the
    # example's checkpoint lands there
    session.chdir(session.create_tmp())
    session.run("python", "-m", "torchshim", "run", os.path.join(HERE, "examples", "mnist_like.py"),
                *(session.posargs or ["--short"]))

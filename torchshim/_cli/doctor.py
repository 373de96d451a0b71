"""`python -m torchshim doctor SCRIPT`: a pre-flight report, before anything runs, of every torch name the
script and its local modules use (doctor_scan.py, static: `ast` only, torch is never imported), each marked
supported, supported with a documented difference (doctor_notes.py -> docs/differences.md) or missing, with
file:line. Whether torchshim has a name is looked up in torchshim itself at run time (getattr through the
dotted path, or an importable submodule), never in a frozen list.

Exit status 0 when every name is supported, 1 when one is missing, 2 on a usage error."""
import importlib
import importlib.util
import os
import sys

from . import doctor_notes, doctor_scan, torch_names

USAGE = "usage: python -m torchshim doctor SCRIPT"
# `obj.name(...)` with these names may be a str/list/dict/set/bytes method: not counted when missing
_BUILTIN_METHODS = frozenset(n for t in (str, list, dict, set, tuple, bytes) for n in dir(t))
_SHOWN_LOCATIONS = 6


def _torchshim():
    return importlib.import_module("torchshim")  # the package root, as `import torch` gives it under `run`


def lookup(name):
    """None when torchshim has the dotted torch name `name` (`torch.X.Y` or `Tensor.m`), else why not."""
    parts = name.split(".")
    if parts[0] == "Tensor":
        obj, path = _torchshim().Tensor, "Tensor"
    else:
        obj, path = _torchshim(), "torch"
    for part in parts[1:]:
        if part == "*":
            break
        if hasattr(obj, part):
            obj, path = getattr(obj, part), f"{path}.{part}"
            continue
        if not hasattr(obj, "__path__"):  # not a package: no submodule to import
            return f"no {path}.{part}"
        target = f"{obj.__name__}.{part}"
        try:
            if importlib.util.find_spec(target) is None:
                return f"no {path}.{part}"
            obj = importlib.import_module(target)
        except Exception as e:  # noqa: BLE001  the import error is the answer
            return f"import {path}.{part} fails: {type(e).__name__}: {e}"
        path = f"{path}.{part}"
    return None


def classify(uses):
    """{name: (status, detail, kind, [(path, line)])}; status is 'supported', 'difference', 'missing' or
    'uncounted' (a missing name that is also a str/list/dict method, called on something else)."""
    found = {}
    for name, path, line, kind in uses:
        found.setdefault(name, (kind, []))[1].append((path, line))
    result = {}
    for name, (kind, where) in found.items():
        why = lookup(name)
        if why is None:
            note = doctor_notes.note(name)
            status, detail = ("difference", f"{note[1]} (docs/differences.md: {note[0]})") if note else \
                ("supported", "")
        else:
            rule = torch_names.OUT_OF_SCOPE.get(name)
            detail = why + (f"; out of scope in docs/coverage.md ({rule})" if rule else "")
            method = name.partition(".")[2]
            status = "uncounted" if kind == "method" and method in _BUILTIN_METHODS else "missing"
            if status == "uncounted":
                detail += "; also a str/list/dict method, not counted"
        result[name] = (status, detail, kind, sorted(set(where)))
    return result


def _where(where, cwd):
    shown = [f"{os.path.relpath(p, cwd)}:{line}" for p, line in where[:_SHOWN_LOCATIONS]]
    more = len(where) - _SHOWN_LOCATIONS
    return ", ".join(shown) + (f" (+{more} more)" if more > 0 else "")


SECTIONS = [("missing", "missing"), ("uncounted", "missing, not counted (ambiguous method names)"),
            ("difference", "supported with a documented difference"), ("supported", "supported")]


def report(script, result, files, cwd=None):
    """The report as text."""
    cwd = cwd or os.getcwd()
    local = len(files) - 1
    lines = [f"torchshim doctor: {os.path.relpath(script, cwd)} "
             f"({local} local module{'s' if local != 1 else ''} followed"
             + (": " + ", ".join(os.path.relpath(f, cwd) for f in files[1:]) if local else "") + ")"]
    counts = {}
    for status, title in SECTIONS:
        names = sorted(n for n, r in result.items() if r[0] == status)
        counts[status] = len(names)
        if not names:
            continue
        lines += ["", f"{title} ({len(names)}):"]
        for name in names:
            _, detail, kind, where = result[name]
            label = name + ("  (tensor method, if x is a tensor)" if kind == "method" else "")
            lines.append(f"  {label:<56} {_where(where, cwd)}")
            if detail:
                lines.append(f"      {detail}")
    lines += ["", f"{len(result)} torch names: {counts['supported']} supported, {counts['difference']} "
              f"with a documented difference, {counts['missing']} missing"
              + (f" (+{counts['uncounted']} ambiguous, not counted)" if counts["uncounted"] else "") + "."]
    return "\n".join(lines)


def doctor_main(argv):
    """`python -m torchshim doctor SCRIPT`: print the pre-flight report; 0 if nothing is missing, else 1."""
    if len(argv) != 1 or argv[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        print("python -m torchshim doctor: error: one script path is required", file=sys.stderr)
        return 2
    script = argv[0]
    if not os.path.isfile(script):
        print(f"python -m torchshim doctor: error: can't open file {script!r}", file=sys.stderr)
        return 2
    try:
        uses, files = doctor_scan.scan(script)
    except SyntaxError as e:
        print(f"python -m torchshim doctor: error: {e.filename}:{e.lineno}: {e.msg}", file=sys.stderr)
        return 2
    result = classify(uses)
    print(report(os.path.abspath(script), result, files))
    return 1 if any(r[0] == "missing" for r in result.values()) else 0

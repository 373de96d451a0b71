"""What torch.compile tells the user: one warning per graph-break site, and with `TORCHSHIM_LOGS=recompiles`
(like PyTorch's `TORCH_LOGS=recompiles`) a line on stderr for every trace saying which guard changed."""
import os
import sys
import warnings

from .._warnings import user_stacklevel

__all__ = ["warn_once", "recompile", "enabled"]


def enabled(what):
    """Whether `TORCHSHIM_LOGS` (comma-separated) names `what` (or 'all')."""
    names = {n.strip() for n in os.environ.get("TORCHSHIM_LOGS", "").split(",") if n.strip()}
    return what in names or "all" in names


def warn_once(cf, site, message):
    """A UserWarning once per (compiled function, site)."""
    if site in cf.warned:
        return
    cf.warned.add(site)
    warnings.warn(message, UserWarning, stacklevel=user_stacklevel())


def recompile(cf, key, state):
    """Log a trace of compiled function `cf` for guard key `key` when recompiles are logged."""
    if not enabled("recompiles"):
        return
    if not cf.cache:
        print(f"[torchshim] compiling {cf.name}: first call", file=sys.stderr)
        return
    last = next(reversed(cf.cache))
    print(f"[torchshim] recompiling {cf.name}: {_diff(last, key)}", file=sys.stderr)


def _diff(old, new):
    """The first guard that differs between two guard keys, in words."""
    (osig, ograd, oprec, omodes), (nsig, ngrad, nprec, nmodes) = old, new
    if omodes != nmodes:
        return f"autocast or default dtype changed ({omodes} -> {nmodes})"
    if ograd != ngrad:
        return f"grad mode changed ({ograd} -> {ngrad})"
    if oprec != nprec:
        return f"matmul precision changed ({oprec} -> {nprec})"
    oa, na = osig[1], nsig[1]
    orr, nr = osig[2].value, nsig[2].value
    orel, nrel = osig[3:], nsig[3:]
    for what, a, b in (("arguments", oa, na), ("state reached by the function", orr, nr)):
        if a != b:
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    return f"{what}: entry {i} changed ({_short(x)} -> {_short(y)})"
            return f"{what}: {len(a)} -> {len(b)} entries"
    if orel != nrel:
        return "aliasing between tensors changed"
    return "unknown"


def _short(x):
    s = repr(x)
    return s if len(s) < 160 else s[:157] + "..."

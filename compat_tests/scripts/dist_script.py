"""Shared by the multi-process check scripts (ddp_checks.py, join_checks.py, dist_compile_checks.py), which
run with this folder first on sys.path."""


def error(fn):
    """[exception type name, message] of what `fn()` raises, or None: the check's result."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are the result
        return [type(e).__name__, str(e)]
    return None

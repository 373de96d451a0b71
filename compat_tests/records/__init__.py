"""Op records, one module per area; each module defines RECORDS (a list of harness.OpRecord) and may define
EXTRA_COVERED (table names exercised by hand-written tests in compat_tests/test_*.py)."""
import importlib
import pkgutil


def all_modules():
    return [importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)]


def all_records():
    recs = []
    for mod in all_modules():
        recs.extend(getattr(mod, "RECORDS", []))
    return recs


def covered_names():
    names = set()
    for mod in all_modules():
        for rec in getattr(mod, "RECORDS", []):
            names.add(rec.name)
            names.update(rec.covers)
        names.update(getattr(mod, "EXTRA_COVERED", ()))
    return names

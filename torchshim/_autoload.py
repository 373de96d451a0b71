"""Package assembly: a package's public names gathered from the `__all__` of each of its submodules."""
import importlib
import pkgutil


def gather(package_name, package_path, namespace):
    """Import every non-private submodule of the package and copy the names in its `__all__` into
    `namespace` (the package's globals). Returns the names added. A name exported twice is an error."""
    added = []
    for info in sorted(pkgutil.iter_modules(package_path), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{package_name}.{info.name}")
        for name in getattr(mod, "__all__", ()):
            if name in added:
                raise RuntimeError(f"{package_name}: '{name}' is exported by two submodules")
            namespace[name] = getattr(mod, name)
            added.append(name)
    return added

"""The layer check of `nox -s lint`: torchshim's imports only point down.

Reads every module of the package with `ast` (function-level imports included, `if TYPE_CHECKING` too) and
fails when
- a module imports a module of a higher layer (LAYERS below, lowest first; docs/dev/architecture.md draws it),
- a module other than the package root's own `__init__.py` imports the package root,
- a module belongs to no layer (a new module must be placed),
- the import graph has a cycle (strongly connected component) of more than MAX_CYCLE modules.

Usage: python tools/check_layers.py [PACKAGE_DIR]   (default: torchshim next to this folder)
"""
import ast
import os
import sys

MAX_CYCLE = 10

# lowest first; a module's layer is that of the longest prefix that names it (module or package)
LAYERS = [
    ("base", ["_dtype", "_device", "_promotion", "_storage", "_view", "_layout", "_warnings",
              "_kernel_budget", "_precision", "_compile_cache", "_kernel_log",
              "_index_check", "_hooks", "_backcompat", "_methods", "_autoload", "return_types",
              "_c_profiler", "_errors", "_fused"]),
    ("tensor", ["_tensor", "_random", "_tensor_str", "_dlpack"]),
    ("autograd", ["autograd"]),
    ("ops", ["ops"]),
    ("api", ["_api"]),
    ("users", ["nn", "optim", "utils", "serialization", "func", "cuda", "autograd.functional",
               "autograd.gradcheck", "autograd._gradcheck", "amp", "backends", "multiprocessing", "testing",
               "autograd.profiler", "autograd.profiler_legacy", "autograd.profiler_util", "cpu",
               "jit", "compiler", "distributed", "onnx", "hub", "profiler", "fx", "overrides", "_C",
               # torch.* submodules and objects of issue 10 (test_torch_modules.py)
               "accelerator", "mps", "xpu", "mtia", "_device_types", "_device_module", "_streams",
               "_higher_order_ops", "export", "_buffers", "_default_tensor_type", "functional", "futures",
               "library", "quasirandom", "random", "signal", "types", "version", "torch_version", "_dynamo",
               # issue 12 (numerics)
               "linalg", "fft", "special", "distributions", "sparse",
               "_lowrank", "_lobpcg",
               # issue 14 (fused eager)
               "fused"]),
    ("tools", ["_cli", "__main__"]),
    ("root", [""]),
]


def modules(root):
    """{dotted module name: file path} for the package at `root`."""
    pkg, base = os.path.basename(root), os.path.dirname(root)
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, base)[:-3].replace(os.sep, ".")
                out[name[: -len(".__init__")] if name.endswith(".__init__") else name] = path
    assert pkg in out, f"{root} is not a package"
    return out


def imports(name, path, mods):
    """[(imported module, line)] of module `name`: each import resolved to the deepest module of the
    package."""
    is_pkg = path.endswith("__init__.py")
    pkg = name.split(".")[0]
    found = []
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".")[: None if is_pkg else -1]
                parts = parts[: len(parts) - (node.level - 1)]
                b = ".".join(parts + ([node.module] if node.module else []))
            else:
                b = node.module or ""
            # `from pkg import sub` depends on the submodule, `from mod import name` on the module
            targets = [b + "." + a.name if b + "." + a.name in mods else b for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in mods:
                t = t.rpartition(".")[0]
            if t and t != name and (t == pkg or t.startswith(pkg + ".")):
                found.append((t, node.lineno))
    return found


def layer_of(name):
    """(index, layer name) of module `name`, or None."""
    rel = name.partition(".")[2]
    best = None
    for i, (layer, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if rel == p or rel.startswith(p + ".") or p == "" or (p.endswith("_gradcheck") and
                                                                     rel.startswith(p)):
                if best is None or len(p) > best[0]:
                    best = (len(p), i, layer)
    return None if best is None else best[1:]


def largest_cycles(edges):
    """Strongly connected components with more than one module (Tarjan, iterative), largest first."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for v0 in edges:
        if v0 in index:
            continue
        work = [(v0, iter(sorted(edges[v0])))]
        index[v0] = low[v0] = counter[0]
        counter[0] += 1
        stack.append(v0)
        on.add(v0)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                elif w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
    return sorted(comps, key=len, reverse=True)


def check(root):
    """The list of problems (empty when the layering holds)."""
    mods = modules(root)
    pkg = os.path.basename(root)
    problems, edges = [], {m: set() for m in mods}
    for m, path in sorted(mods.items()):
        lm = layer_of(m)
        if lm is None:
            problems.append(f"{m}: in no layer (add it to LAYERS in tools/check_layers.py)")
            continue
        for t, line in sorted(set(imports(m, path, mods))):
            edges[m].add(t)
            if t == pkg and m != pkg:
                problems.append(f"{path}:{line}: imports the package root (import public names from "
                                f"{pkg}._api, or the module that defines them)")
                continue
            lt = layer_of(t)
            if lt is not None and lt[0] > lm[0]:
                problems.append(f"{path}:{line}: {m} ({lm[1]}) imports {t} ({lt[1]}), a higher layer")
    for comp in largest_cycles(edges):
        if len(comp) > MAX_CYCLE:
            problems.append(f"import cycle of {len(comp)} modules (at most {MAX_CYCLE}): {' '.join(comp)}")
    return problems


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(here, "..", "torchshim"))
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering problem(s); the layers are in tools/check_layers.py and "
              "docs/dev/architecture.md")
        return 1
    print("layers: every import points down; no import cycle larger than", MAX_CYCLE, "modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

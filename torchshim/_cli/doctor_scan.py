"""The static half of `python -m torchshim doctor`: which torch names a script and its local modules use.

Only `ast`: nothing is imported or run. A *use* is `(name, path, line, kind)`:
- kind "name": a dotted torch name, resolved through the file's imports and aliases (`torch.X`,
  `import torch.nn.functional as F` then `F.relu`, `from torch import nn` then `nn.Linear`, `from torch.nn
  import Linear`, `import torch.onnx`, `Tensor = torch.Tensor`);
- kind "method": `obj.name(...)` where `obj` is not a torch module or a name imported from another library and
  `name` is one of PyTorch's Tensor attributes: a Tensor method if `obj` is a tensor (ambiguous: reported as
  `Tensor.name`).
`torchshim` imports count as torch ones (`import torchshim as torch`). Local modules are the `.py` files
next to the script (and packages there) that it imports, followed recursively. Bindings are per file and
ignore scopes (a name bound to torch anywhere in the file counts)."""
import ast
import os

from . import torch_names

_ROOT = "torch"
_ROOTS = ("torch", "torchshim")  # `import torchshim as torch` scripts are read as torch scripts


def _as_torch(dotted):
    """`torchshim.nn` -> `torch.nn`; torch names unchanged."""
    top, dot, rest = dotted.partition(".")
    return _ROOT + dot + rest


class _FileScan:
    """The uses of one file, and the local modules it imports."""

    def __init__(self, path, base_dir):
        self.path, self.base_dir = path, base_dir
        self.bindings = {}  # local name -> dotted torch name
        self.foreign = set()  # local names bound to other libraries' modules or objects
        self.uses = []
        self.local_imports = []  # paths of local modules this file imports
        with open(path, encoding="utf-8") as f:
            source = f.read()
        self.tree = ast.parse(source, path)
        self.parents = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def use(self, name, node, kind="name"):
        self.uses.append((name, self.path, node.lineno, kind))

    # ---- imports and aliases ----------------------------------------------------------------------------
    def scan_imports(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self._import(alias, node)
            elif isinstance(node, ast.ImportFrom):
                self._import_from(node)
        # `F = torch.nn.functional`, `Tensor = torch.Tensor`: aliases of torch names (a second pass picks up
        # aliases of aliases in source order)
        for _ in range(2):
            for node in ast.walk(self.tree):
                if (isinstance(node, ast.Assign) and len(node.targets) == 1
                        and isinstance(node.targets[0], ast.Name)):
                    dotted = self.resolve(node.value)
                    if dotted is not None:
                        self.bindings[node.targets[0].id] = dotted

    def _import(self, alias, node):
        top = alias.name.split(".")[0]
        if top in _ROOTS:
            dotted = _as_torch(alias.name)
            self.use(dotted, node)
            if alias.asname:
                self.bindings[alias.asname] = dotted
            else:
                self.bindings[top] = _ROOT
            return
        local = self._local_module(alias.name, 0)
        if local:
            self.local_imports.append(local)
        else:
            self.foreign.add(alias.asname or top)

    def _import_from(self, node):
        module = node.module or ""
        if node.level == 0 and module.split(".")[0] in _ROOTS:
            module = _as_torch(module)
            for alias in node.names:
                if alias.name == "*":
                    self.use(module + ".*", node)
                    continue
                dotted = f"{module}.{alias.name}"
                self.use(dotted, node)
                self.bindings[alias.asname or alias.name] = dotted
            return
        local = self._local_module(module, node.level)
        if local:
            self.local_imports.append(local)
            for alias in node.names:  # `from pkg import mod`: mod may be a local module too
                sub = self._local_module(f"{module}.{alias.name}" if module else alias.name, node.level)
                if sub:
                    self.local_imports.append(sub)
        else:
            for alias in node.names:
                self.foreign.add(alias.asname or alias.name)

    def _local_module(self, dotted, level):
        """The path of the local module `dotted` (relative `level` dots from this file), or None."""
        base = self.base_dir if level == 0 else os.path.dirname(self.path)
        for _ in range(max(level - 1, 0)):
            base = os.path.dirname(base)
        parts = [p for p in dotted.split(".") if p]
        if not parts:
            init = os.path.join(base, "__init__.py")
            return init if level and os.path.isfile(init) else None
        stem = os.path.join(base, *parts)
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
        return None

    # ---- attribute chains -------------------------------------------------------------------------------
    def resolve(self, node):
        """The dotted torch name of an expression made of a bound name and attributes, else None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.bindings:
            return ".".join([self.bindings[node.id]] + parts[::-1])
        return None

    def scan_uses(self):
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Attribute):
                continue
            parent = self.parents.get(node)
            outermost = not (isinstance(parent, ast.Attribute) and parent.value is node)
            dotted = self.resolve(node)
            if dotted is not None:
                if outermost:
                    self.use(dotted, node)
                continue
            if isinstance(parent, ast.Call) and parent.func is node and self._maybe_tensor(node.value):
                if node.attr in torch_names.TENSOR:
                    self.use("Tensor." + node.attr, node, "method")

    def _maybe_tensor(self, receiver):
        """False for receivers that cannot be tensors: other libraries' names, literals, torch modules."""
        root = receiver
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.foreign:
            return False
        if isinstance(receiver, (ast.Constant, ast.JoinedStr, ast.List, ast.Dict, ast.Set, ast.Tuple,
                                 ast.ListComp, ast.DictComp, ast.SetComp)):
            return False
        return self.resolve(receiver) is None


def scan(script):
    """[(name, path, line, kind)] for `script` and the local modules it imports (recursively), and the list of
    files read."""
    script = os.path.abspath(script)
    base_dir = os.path.dirname(script)
    todo, seen, uses = [script], [], []
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.append(path)
        file_scan = _FileScan(path, base_dir)
        file_scan.scan_imports()
        file_scan.scan_uses()
        uses += file_scan.uses
        todo += [p for p in file_scan.local_imports if p not in seen]
    return uses, seen

"""Every op in the table has a record (or a named hand-written test); a missing one fails here."""
from records import covered_names

from torchshim.ops._registry import OPS


def test_every_op_has_a_record():
    missing = sorted(set(OPS) - covered_names())
    assert not missing, f"ops without a conformance record: {missing}"


def test_records_name_real_ops():
    names = set(OPS) | {a for op in OPS.values() for a in op.aliases}
    unknown = sorted(n for n in covered_names() if n not in names)
    assert not unknown, f"records name ops that are not in the table: {unknown}"


def test_duplicate_registration_fails():
    import pytest

    from torchshim.ops._registry import register
    with pytest.raises(RuntimeError, match="registered twice"):
        register("add")(lambda input, other: None)


def test_gradient_facts_live_on_registrations():
    """An op's grad_fn name, save policy and explicit rule are arguments of its `register()` (or of the
    `differentiable()` call of an op recorded outside the table): no module keeps a side table of them."""
    import ast
    import pathlib

    import torchshim
    banned = {"_NAMES", "add_names", "RULES", "INPUT_RULES"}
    found = []
    for path in sorted(pathlib.Path(torchshim.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.asname or a.name.split(".")[-1] for a in node.names]
            found += [f"{path.name}:{node.lineno}: {n}" for n in names if n in banned]
    assert not found, f"gradient side tables (put the facts on the op's registration): {found}"


def test_gradient_facts_are_not_redundant():
    """No registration repeats a default: grad_name equal to `<CamelCase>Backward0`, saves='inputs' without
    a rule, or gradient facts on an op that records no node of its own (never used)."""
    from torchshim.autograd._names import default_grad_name
    from torchshim.ops._registry import records_node
    redundant = sorted(op.name for op in OPS.values()
                       if isinstance(op.grad_name, str) and op.grad_name == default_grad_name(op.name))
    assert not redundant, f"grad_name equal to the default: {redundant}"
    inputs = sorted(op.name for op in OPS.values() if op.saves == "inputs" and op.grad_rule is None)
    assert not inputs, f"saves='inputs' is the default: {inputs}"
    unused = sorted(op.name for op in OPS.values() if not records_node(op)
                    and (op.grad_name, op.saves, op.grad_rule) != (None, None, None))
    assert not unused, f"gradient facts on ops that record no node: {unused}"


def test_grad_name_default_and_overrides():
    import torchshim as T
    x = T.ones(3, requires_grad=True)
    assert x.exp().grad_fn.name() == "ExpBackward0"  # the default, with an explicit rule
    assert x.log1p().grad_fn.name() == "Log1PBackward0"  # grad_name from a loop registration
    assert x[0].grad_fn.name() == "SelectBackward0"  # __getitem__'s callable grad_name
    y = x * 1.0
    T.nn.functional.elu_(y)
    assert y.grad_fn.name() == "EluBackward1"  # an in-place variant's own name

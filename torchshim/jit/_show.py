"""How a torch.jit program is shown: `.graph` (the jaxpr of the program, as JAX prints it) and `.code` (the
same program as Python-like text: one line per XLA primitive, arguments named after the module's parameters
and buffers and the inputs)."""
from jax.extend import core as jcore

__all__ = ["Graph", "python_code"]


class Graph:
    """What `.graph` returns: the program's jaxpr (`.jaxpr`; a loaded program's StableHLO text); `str(graph)`
    is its text. PyTorch's `torch._C.Graph` holds TorchScript IR instead; its node-editing API
    is not available."""

    def __init__(self, jaxpr):
        self.jaxpr = jaxpr

    def __str__(self):
        return str(self.jaxpr)

    __repr__ = __str__

    def str(self):  # noqa: A003  (PyTorch's Graph.str())
        return str(self.jaxpr)


def _atom(v, names):
    if isinstance(v, jcore.Literal):
        return repr(v.val.item()) if hasattr(v.val, "item") and getattr(v.val, "shape", ()) == () else str(v)
    return names.setdefault(id(v), f"_{len(names)}")


def _param(v):
    if isinstance(v, (jcore.ClosedJaxpr, jcore.Jaxpr)):
        return "<subprogram>"
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


def python_code(closed, name, arg_names):
    """Python-like text of `closed` (a ClosedJaxpr) as `def name(self, args...)`; `arg_names` names the
    flattened inputs (state arrays, input arrays, then the generator key and draw count)."""
    jaxpr = closed.jaxpr
    names = {}
    for v, n in zip(jaxpr.invars, arg_names):
        names[id(v)] = n
    for k, v in enumerate(jaxpr.constvars):
        names[id(v)] = f"CONSTANTS.c{k}"
    params = [n for n in arg_names if not n.startswith("self.")]
    lines = [f"def {name}(self, {', '.join(params)}):" if any(n.startswith("self.") for n in arg_names)
             else f"def {name}({', '.join(params)}):"]
    for eqn in jaxpr.eqns:
        outs = ", ".join(_atom(v, names) for v in eqn.outvars) or "_"
        args = [_atom(v, names) for v in eqn.invars]
        if "jaxpr" in eqn.params and "name" in eqn.params:  # a jitted torchshim kernel: called by its name
            lines.append(f"  {outs} = {eqn.params['name']}({', '.join(args)})")
            continue
        args += [f"{k}={_param(p)}" for k, p in eqn.params.items()]
        lines.append(f"  {outs} = {eqn.primitive.name}({', '.join(args)})")
    lines.append(f"  return ({', '.join(_atom(v, names) for v in jaxpr.outvars)})")
    return "\n".join(lines) + "\n"

"""`torch.export`: importable, so scripts that only mention it run. Exporting needs a captured graph of the
program (torch.export's `ExportedProgram`), which torchshim does not build: `export`, `draft_export`, `save`
and `load` raise NotImplementedError naming the issue "torch.compile/jit" (the compiler's own issue), and
the graph classes (`ExportedProgram`, `Dim`, ...) are absent rather than shells. docs/differences.md:
"torch.export"."""

__all__ = ["export", "draft_export", "save", "load"]

_MESSAGE = ("torchshim has no graph capture: {what} is not available (torchshim runs programs eagerly on "
            "JAX). See the issue \"torch.compile/jit\" and docs/differences.md.")


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, preserve_module_call_signature=(),
           prefer_deferred_runtime_asserts_over_guards=False):
    """`torch.export.export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, ...)`:
    NotImplementedError (no graph capture in torchshim)."""
    raise NotImplementedError(_MESSAGE.format(what="torch.export.export"))


def draft_export(mod, args, kwargs=None, *, dynamic_shapes=None, preserve_module_call_signature=(),
                 strict=False, prefer_deferred_runtime_asserts_over_guards=False):
    """`torch.export.draft_export(...)`: NotImplementedError (no graph capture in torchshim)."""
    raise NotImplementedError(_MESSAGE.format(what="torch.export.draft_export"))


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol=2):
    """`torch.export.save(ep, f, ...)`: NotImplementedError (there are no ExportedPrograms to save)."""
    raise NotImplementedError(_MESSAGE.format(what="torch.export.save"))


def load(f, *, extra_files=None, expected_opset_version=None):
    """`torch.export.load(f, ...)`: NotImplementedError (an exported archive holds a graph torchshim cannot
    run)."""
    raise NotImplementedError(_MESSAGE.format(what="torch.export.load"))

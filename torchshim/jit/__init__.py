"""`torch.jit`: importable, eager. `script`/`trace` return objects that run the same computation eagerly;
decorators and helpers behave as in eager PyTorch; `save`/`load`/`freeze` (TorchScript IR) raise
NotImplementedError naming the issue "torch.compile/jit". docs/differences.md: "torch.jit"."""
from ._eager import (  # noqa: F401
    Attribute, CompilationUnit, Error, Final, Future, annotate, enable_onednn_fusion, export, fork, freeze,
    fuser,
    ignore, interface, is_scripting, isinstance, load, onednn_fusion_enabled, optimize_for_inference,
    optimized_execution, save, script_if_tracing, set_fusion_strategy, unused, wait)
from ._script import (  # noqa: F401
    RecursiveScriptModule, ScriptFunction, ScriptModule, TopLevelTracedModule, TracerWarning, is_tracing,
    script,
    trace, trace_module)

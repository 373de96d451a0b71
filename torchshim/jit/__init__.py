"""`torch.jit` as XLA programs: `trace` and `script` build jax programs from the Python code (`_script.py`,
`_program.py`), `save`/`load` write and read them as `jax.export` artifacts (`_archive.py`); decorators and
helpers behave as in eager PyTorch (`_eager.py`). docs/compile.md, section "torch.jit"."""
from ._eager import (  # noqa: F401
    Attribute, CompilationUnit, Error, Final, Future, annotate, enable_onednn_fusion, export, fork, freeze,
    fuser,
    ignore, interface, isinstance, load, onednn_fusion_enabled, optimize_for_inference,
    optimized_execution, save, script_if_tracing, set_fusion_strategy, unused, wait)
from ._script import (  # noqa: F401
    RecursiveScriptModule, ScriptFunction, ScriptModule, TopLevelTracedModule, TracedModule, TracerWarning,
    TracingCheckError, is_scripting, is_tracing,
    script,
    trace, trace_module)

"""Coverage of PyTorch's public names by torchshim: `nox -s coverage` (or `python tools/coverage.py`).

Lists real torch's public names (`dir()` without leading underscore) per namespace (NAMESPACES), sorts each
name into supported (torchshim has it: `hasattr` through the dotted path, or an importable submodule),
missing (in scope, torchshim lacks it) or excluded (out of scope by one of the RULES below, each shown in the
doc with the names it excludes), and writes
- docs/coverage.md: the table per namespace (% of in-scope names present), every missing name with its
  reason, every excluded name with its rule;
- docs/coverage.json: the same, machine-readable; compat_tests/test_coverage_doc.py fails when a name marked
  supported there is missing from torchshim;
- torchshim/_cli/torch_names.py: PyTorch's Tensor attribute names and the out-of-scope names with their rule,
  for `python -m torchshim doctor` (which decides what torchshim has at run time, not from this list).

In scope is everything a user script calls. A rule excludes a whole family that torchshim deliberately does
not model (sparse, quantized, named and nested tensors, mkldnn, TorchScript IR, ...) or names that are not
API at all (modules and typing helpers a namespace merely imports). Excluded names count neither way.

Usage: python tools/coverage.py [--check] [--quiet]
  --check  compare with docs/coverage.json instead of writing: exit 1 if a name marked supported there is
           missing now (what compat_tests/test_coverage_doc.py checks, without torch)
Needs torch (the reference) and torchshim importable; takes a few seconds.
"""
import collections
import importlib
import json
import os
import re
import sys
import types
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DOC = os.path.join(ROOT, "docs", "coverage.md")
JSON = os.path.join(ROOT, "docs", "coverage.json")
NAMES_MODULE = os.path.join(ROOT, "torchshim", "_cli", "torch_names.py")

NAMESPACES = ["torch", "Tensor", "nn", "nn.functional", "nn.init", "nn.utils", "optim", "optim.lr_scheduler",
              "autograd", "autograd.functional", "utils.data", "linalg", "fft", "special", "distributions",
              "amp", "cuda", "backends", "testing", "func", "jit", "distributed", "multiprocessing",
              "profiler", "utils.checkpoint", "fx", "hub", "onnx"]
# issue 10's goal: >= 95% of the in-scope names of these
GOAL = {"torch", "Tensor", "nn", "nn.functional", "nn.init", "nn.utils", "optim", "optim.lr_scheduler",
        "autograd", "utils.data", "amp", "testing", "func", "backends",
        # issue 12's goal
        "linalg", "fft", "special", "distributions"}
GOAL_PERCENT = 95.0

# why an in-scope name is missing, when there is more to say than "not implemented yet"
LATER = {
    "jit": "torch.jit has an issue of its own (compile/script)",
    "distributed": "torch.distributed has an issue of its own",
}


def _words(text):
    return frozenset(text.split())


# COO (sparse_coo_tensor, to_sparse, indices/values, coalesce, torch.sparse.mm, spmm, ...) is in scope (issue
# 12: as far as graph networks use it); these are the other layouts and the sparse-only ops left out
SPARSE = _words("""sparse_csr_tensor sparse_csc_tensor sparse_bsr_tensor
    sparse_bsc_tensor sparse_compressed_tensor to_sparse_csr to_sparse_csc
    to_sparse_bsr to_sparse_bsc crow_indices col_indices
    ccol_indices
    row_indices sparse_resize_ sparse_resize_and_clear_ smm hsmm dsmm
    sspaddmm saddmm hspmm resize_as_sparse_ indices_copy values_copy crow_indices_copy
    col_indices_copy ccol_indices_copy row_indices_copy""")
QUANTIZED = _words("""ao quantization quantized qat quantizable intrinsic dequantize int_repr qscheme q_scale
    q_zero_point q_per_channel_scales q_per_channel_zero_points q_per_channel_axis quantize_per_tensor
    quantize_per_tensor_dynamic quantize_per_channel fake_quantize_per_tensor_affine
    fake_quantize_per_channel_affine fused_moving_avg_obs_fake_quant choose_qparams_optimized qint8 quint8
    qint32 quint4x2 quint2x4 per_tensor_affine per_channel_affine per_channel_affine_float_qparams
    per_tensor_symmetric per_channel_symmetric empty_quantized""")
NAMED = _words("names rename rename_ refine_names align_to align_as has_names")
NESTED = _words("nested to_padded_tensor")
# torch submodules that are prototypes or deployment formats no script needs to run (issue 10's decision)
PROTOTYPE_MODULES = _words("masked monitor package")
TORCHSCRIPT = _words("""AliasDb AnyType Argument ArgumentSpec AwaitType Block BoolType CallStack Capsule
    ClassType Code CompilationUnit CompleteArgumentSpec ComplexType ConcreteModuleType
    ConcreteModuleTypeBuilder
    DeepCopyMemoTable DeviceObjType DictType EnumType ErrorReport ExecutionPlan FileCheck FloatType
    FunctionSchema FutureType Gradient Graph GraphExecutorState IODescriptor InferredType IntType
    InterfaceType JITException ListType LiteScriptModule NoneType NumberType OperatorInfo OptionalType
    PyObjectType RRefType ScriptClass ScriptClassFunction ScriptDict ScriptDictIterator ScriptDictKeyIterator
    ScriptFunction ScriptList ScriptListIterator ScriptMethod ScriptModule ScriptModuleSerializer ScriptObject
    ScriptObjectProperty StaticModule StreamObjType StringType SymBoolType SymIntType TensorType TracingState
    TupleType Type UnionType Use Value import_ir_module import_ir_module_from_buffer parse_ir parse_schema
    parse_type_comment merge_type_from_type_comment unify_type_list fork wait classes AggregationType AVG SUM
    BenchmarkConfig BenchmarkExecutionStats ThroughputBenchmark LockingLogger LoggerBase NoopLogger
    PyTorchFileReader PyTorchFileWriter DeserializationStorageContext SerializationStorageContext DispatchKey
    DispatchKeySet ExcludeDispatchKeyGuard Tag PRIVATE_OPS Node ModuleDict ParameterDict BufferDict Future""")
SYMBOLIC = _words("""SymInt SymFloat SymBool sym_constrain_range sym_constrain_range_for_size sym_float
    sym_fresh_size sym_int sym_ite sym_max sym_min sym_not sym_sqrt sym_sum""")
STORAGE_TYPES = re.compile(r"^(\w*Storage|StorageBase|storage|storage_type)$")
PRIVATE_KERNEL = re.compile(r"^(cudnn_|miopen_|fbgemm_|mkldnn_|native_|quantized_|"
                            r"batch_norm_(backward|elemt|gather|stats|update)|grid_sampler_[23]d$|to_mkldnn$|"
                            r"segment_reduce$|norm_except_dim$|unsafe_)")
VIEW_COPY = re.compile(r"^(\w+)_copy$")
SUB_BYTE = re.compile(r"^(bit|bits\w+|u?int[1-7]|float4_\w+|float8_e8m0fnu|float8_e4m3fnuz|float8_e5m2fnuz)$")
OTHER_BACKENDS = re.compile(r"(_ipu_|_xla_|vulkan)")
REMOVED = _words("eig symeig lstsq matrix_rank solve reinforce NestedIOFunction")
PROFILER_BACKEND = _words("ProfilerConfig ProfilerEvent")
BUILD_INTERNALS = _words("""USE_GLOBAL_DEPS USE_RTLD_GLOBAL_WITH_LIBTORCH TYPE_CHECKING classproperty
    get_file_path prepare_multiprocessing_environment profiler_allow_cudagraph_cupti_lazy_reinit_cuda12
    thread_safe_generator has_lapack has_mkl has_openmp has_spectral""")
# torch objects a namespace imports for its own use (each is public where it is defined)
HELPERS = {
    "nn": _words("common_types factory_kwargs"),
    "nn.functional": _words("""boolean_dispatch assert_int_or_pair handle_torch_function has_torch_function
        has_torch_function_unary has_torch_function_variadic BroadcastingList1 BroadcastingList2
        BroadcastingList3"""),
    "optim.lr_scheduler": _words("Optimizer"),
    "autograd": _words("handle_torch_function has_torch_function is_tensor_like"),
    "cuda": _words("classproperty"),
    "profiler": _words("Optimizer register_optimizer_step_post_hook is_fbcode"),
    "utils.checkpoint": _words("LoggingTensorMode TorchDispatchMode capture_logs tree_map SavedTensor"),
    "jit": _words("set_module"),
}
DATAPIPES = _words("""DFIterDataPipe DataChunk IterDataPipe MapDataPipe argument_validation datapipes
    functional_datapipe graph graph_settings guaranteed_datapipes_determinism non_deterministic
    runtime_validation runtime_validation_disabled""")


def _foreign(obj):
    """A class, function or typing object defined outside torch (typing, the standard library, numpy, ...)."""
    if isinstance(obj, types.ModuleType):
        return False
    if type(obj).__module__ in ("typing", "typing_extensions", "__future__"):
        return True
    if isinstance(obj, (types.UnionType, types.GenericAlias)):  # a type alias (`MAP_LOCATION = A | B`)
        return True
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        mod = getattr(obj, "__module__", None)
        return isinstance(mod, str) and mod.split(".")[0] != "torch"
    return False


# the predicates of RULES: (namespace, name, torch's object, ctx) -> bool; ctx has "module" (the namespace's
# module name), "all" (its __all__ or None) and "torch_names" (dir(torch))
def _reexported_module(ns, n, o, c):
    return isinstance(o, types.ModuleType) and o.__name__ != f"{c['module']}.{n}"


def _imported_helper(ns, n, o, c):
    constant = ns != "torch" and isinstance(o, (str, dict, bool, int, float))
    return _foreign(o) or (constant and (c["all"] is None or n not in c["all"]))


def _view_copy(ns, n, o, c):
    m = VIEW_COPY.match(n)
    return ns == "torch" and m is not None and m.group(1) in c["torch_names"]


def _in(names, namespaces=None):
    return lambda ns, n, o, c: (namespaces is None or ns in namespaces) and n in names


def _matches(pattern, namespaces):
    return lambda ns, n, o, c: ns in namespaces and pattern.search(n) is not None


Rule = collections.namedtuple("Rule", "id excludes why test")
# the first matching rule excludes the name
RULES = [
    Rule("reexported-module", "a module that the namespace imports but that is not its own submodule (os, "
         "sys, math, typing, numpy as np, `torch` itself, ...)", "not API: `torch.os` is Python's os",
         _reexported_module),
    Rule("imported-helper", "a typing or standard-library object a namespace imports for its own code "
         "(Optional, Callable, `functools.wraps`, `from __future__ import annotations`, ...); outside "
         "`torch` itself also plain constants (str, dict, bool, numbers) that the namespace's `__all__` "
         "(when it has one) does not export",
         "not API of this namespace (typing names, `math.inf`, docstring fragments)",
         _imported_helper),
    Rule("build-internals", "flags and hooks of PyTorch's build and loader", "not API",
         _in(BUILD_INTERNALS, ("torch",))),
    Rule("namespace-helpers", "torch objects a namespace imports for its own code, listed by hand in HELPERS "
         "(`torch.nn.init.Tensor`, `lr_scheduler.Optimizer`, torch-function dispatch helpers, "
         "boolean_dispatch, common_types, the checkpoint module's test helpers, ...)",
         "not API of that namespace: each is public where it is defined (torch.Tensor, "
         "torch.optim.Optimizer, "
         "torch.overrides, ...)",
         lambda ns, n, o, c: n in HELPERS.get(ns, ()) or (n == "Tensor" and ns != "torch")),
    Rule("datapipes", "the DataPipe API of torch.utils.data (IterDataPipe, MapDataPipe, functional_datapipe, "
         "datapipes, ...)", "deprecated: torchdata's DataPipes are discontinued; scripts use "
         "Dataset/DataLoader",
         _in(DATAPIPES, ("utils.data",))),
    Rule("sparse", "sparse layouts other than COO (CSR/CSC/BSR/BSC: constructors, conversions, their index "
         "accessors) and COO's rarer sparse-only ops (smm, sspaddmm, hspmm, sparse_resize_, *_copy)",
         "torchshim has strided tensors and COO as far as graph networks use it (docs/differences.md); "
         "these raise NotImplementedError naming the layout or op", _in(SPARSE)),
    Rule("quantized", "quantized tensors, dtypes, qschemes and modules (torch.ao, nn.quantized, ...)",
         "no quantized kernels on JAX; out of scope", _in(QUANTIZED)),
    Rule("named-tensors", "named tensors (prototype API)", "out of scope", _in(NAMED)),
    Rule("nested-tensors", "nested (jagged) tensors", "another layout; out of scope", _in(NESTED)),
    Rule("prototype-modules", "torch.masked (MaskedTensor, a prototype layout), torch.monitor (a prototype "
         "API for C++ event/counter telemetry handlers), torch.package (torch::deploy's hermetic model "
         "archives)", "prototypes and a deployment format outside what a training or inference script "
         "runs; torch.package archives hold pickled code for PyTorch's own runtime",
         _in(PROTOTYPE_MODULES, ("torch",))),
    Rule("torchscript-ir", "TorchScript IR, schema, dispatcher and JIT-runtime types of torch._C (Graph, "
         "Node, ScriptModule, ListType, the script-module containers ModuleDict/ParameterDict/BufferDict, "
         "...), "
         "torch.classes, fork/wait/Future", "torchshim has no TorchScript; torch.jit's own issue decides "
         "what it offers", _in(TORCHSCRIPT, ("torch",))),
    Rule("symbolic-shapes", "symbolic sizes (SymInt, sym_* functions) of torch.compile/export",
         "compiler internals", _in(SYMBOLIC, ("torch",))),
    Rule("storage-classes", "typed storage classes (FloatStorage, ..., TypedStorage, UntypedStorage) and "
         "torch.storage", "deprecated since PyTorch 2.0 (TypedStorage warns); torchshim's storage is a jax "
         "array (docs/differences.md, Memory and aliasing)", _matches(STORAGE_TYPES, ("torch", "Tensor"))),
    Rule("private-kernels", "backend kernels and ATen internals exposed as functions: cudnn_*, miopen_*, "
         "fbgemm_*, mkldnn_*, native_*, quantized_*, sync-batch-norm pieces (batch_norm_stats, ...), "
         "grid_sampler_2d, unsafe_split, segment_reduce, norm_except_dim, to_mkldnn",
         "called by PyTorch's own Python code, not by scripts",
         _matches(PRIVATE_KERNEL, ("torch", "Tensor", "nn.functional"))),
    Rule("view-copy", "`<view>_copy` functions (view_copy, permute_copy, ...) generated for "
         "functionalization",
         "torch.compile internals: the view op itself is in scope", _view_copy),
    Rule("sub-byte-dtypes", "bit-packed and sub-byte dtypes (bits8, bit, int1..int7, uint1..uint7, "
         "float4_e2m1fn_x2, float8_e8m0fnu, fnuz float8)", "storage tags without CPU arithmetic in PyTorch",
         _matches(SUB_BYTE, ("torch",))),
    Rule("other-backends", "autocast and availability switches of the IPU, XLA and Vulkan backends",
         "devices this machine cannot have; torch.cuda/mps/xpu answers stay in scope",
         _matches(OTHER_BACKENDS, ("torch",))),
    Rule("removed", "functions PyTorch removed but still binds to raise an error (torch.eig, symeig, lstsq, "
         "matrix_rank, solve, Tensor.reinforce), and autograd's legacy NestedIOFunction (a Function with "
         "non-static forward_extended/backward_extended: calling it, or its apply, raises AttributeError in "
         "PyTorch 2.13)", "they only raise in PyTorch too",
         _in(REMOVED, ("torch", "Tensor", "autograd"))),
    Rule("profiler-backend", "the C++ profiler's own config and record types in torch.autograd "
         "(ProfilerConfig, ProfilerEvent): a ProfilerConfig is only passed to the private "
         "`torch.autograd.profiler._enable_profiler*` functions, ProfilerEvents only come back from the "
         "private `_disable_profiler_legacy`; neither has any other use",
         "not API: scripts use torch.profiler / torch.autograd.profiler.profile, which torchshim has (with "
         "its own recorder)", _in(PROFILER_BACKEND, ("autograd",))),
]


def _torch_namespace(torch, ns):
    if ns == "torch":
        return torch
    if ns == "Tensor":
        return torch.Tensor
    return importlib.import_module("torch." + ns)


def _shim_namespace(shim, ns):
    """torchshim's object for `ns` (getattr through the dotted path, else an import), or None."""
    if ns == "torch":
        return shim
    obj = shim
    for part in ns.split("."):
        nxt = getattr(obj, part, None)
        if nxt is None:
            try:
                return importlib.import_module("torchshim." + ns)
            except Exception:  # noqa: BLE001  an absent or broken namespace has no names
                return None
        obj = nxt
    return obj


def has_name(shim_obj, ns, name, torch_obj=None):
    """True when torchshim's namespace has `name` (an attribute, or a submodule one can import)."""
    if shim_obj is None:
        return False
    if hasattr(shim_obj, name):
        return True
    if isinstance(torch_obj, types.ModuleType) and isinstance(shim_obj, types.ModuleType):
        try:
            importlib.import_module(f"{shim_obj.__name__}.{name}")
            return True
        except Exception:  # noqa: BLE001
            return False
    return False


def classify(torch, shim):
    """{ns: {"supported": [...], "missing": {name: reason}, "excluded": {name: rule id}, "modules": [supported
    names that are submodules]}}."""
    result = {}
    all_torch = set(dir(torch))
    for ns in NAMESPACES:
        t_obj = _torch_namespace(torch, ns)
        s_obj = _shim_namespace(shim, ns)
        ctx = {"module": getattr(t_obj, "__name__", "") if ns != "Tensor" else "torch.Tensor",
               "all": None if ns == "Tensor" else set(getattr(t_obj, "__all__", None) or []) or None,
               "torch_names": all_torch}
        supported, missing, excluded, modules = [], {}, {}, []
        for name in sorted(n for n in dir(t_obj) if not n.startswith("_")):
            with warnings.catch_warnings():  # deprecated aliases warn when read
                warnings.simplefilter("ignore")
                obj = getattr(t_obj, name, None)
            rule = next((r.id for r in RULES if r.test(ns, name, obj, ctx)), None)
            if rule is not None:
                excluded[name] = rule
            elif has_name(s_obj, ns, name, obj):
                supported.append(name)
                if isinstance(obj, types.ModuleType):
                    modules.append(name)
            else:
                missing[name] = LATER.get(ns, "not implemented yet")
        result[ns] = {"supported": supported, "missing": missing, "excluded": excluded, "modules": modules}
    return result


def percent(entry):
    n = len(entry["supported"]) + len(entry["missing"])
    return 100.0 * len(entry["supported"]) / n if n else 100.0


def table(result):
    """The summary table as text lines (Markdown)."""
    lines = ["| namespace | in scope | present | % | missing | excluded | goal |",
             "|---|---:|---:|---:|---:|---:|:---:|"]
    for ns, e in result.items():
        n = len(e["supported"]) + len(e["missing"])
        goal = ("met" if percent(e) >= GOAL_PERCENT else "**not met**") if ns in GOAL else ""
        lines.append(f"| {ns} | {n} | {len(e['supported'])} | {percent(e):.1f} | {len(e['missing'])} | "
                     f"{len(e['excluded'])} | {goal} |")
    return lines


def markdown(result, torch_version):
    out = ["# Coverage of PyTorch's public names", "",
           f"Generated by `nox -s coverage` (tools/coverage.py) against torch {torch_version}: do not edit. "
           "Public names are `dir(namespace)` without a leading underscore. A name is *present* when "
           "torchshim's namespace has it (or can import it as a submodule); *excluded* names are out of "
           "scope by one of the rules below and count neither way. `docs/coverage.json` holds the same "
           "lists; "
           "compat_tests/test_coverage_doc.py fails when a name listed as present there disappears.",
           "", f"Goal of issue 10: at least {GOAL_PERCENT:.0f}% of the in-scope names of "
           + ", ".join(f"`{g}`" for g in NAMESPACES if g in GOAL) + ".", "", *table(result), "",
           "## Exclusion rules", "", "| rule | excludes | why |", "|---|---|---|"]
    for rule in RULES:
        out.append(f"| `{rule.id}` | {rule.excludes} | {rule.why} |")
    for ns, e in result.items():
        out += ["", f"## {ns}", "", f"{len(e['supported'])} of {len(e['supported']) + len(e['missing'])} "
                f"in-scope names present ({percent(e):.1f}%)."]
        if e["missing"]:
            out += ["", "Missing:", ""]
            by_reason = {}
            for name, why in e["missing"].items():
                by_reason.setdefault(why, []).append(name)
            for why, names in by_reason.items():
                out.append(f"- {why}: " + ", ".join(f"`{n}`" for n in names))
        if e["excluded"]:
            out += ["", "Excluded:", ""]
            by_rule = {}
            for name, rid in e["excluded"].items():
                by_rule.setdefault(rid, []).append(name)
            for rid, names in by_rule.items():
                out.append(f"- `{rid}`: " + ", ".join(f"`{n}`" for n in names))
    return "\n".join(out) + "\n"


def _dotted(ns, name):
    return f"{ns}.{name}" if ns in ("torch", "Tensor") else f"torch.{ns}.{name}"


def names_module(torch, result):
    """The text of torchshim/_cli/torch_names.py."""
    tensor = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    out_of_scope = {_dotted(ns, n): rule for ns, e in result.items() for n, rule in e["excluded"].items()}
    lines = ["# ruff: noqa: E501  (generated)",
             f'"""PyTorch {torch.__version__}\'s public names for `python -m torchshim doctor`.', "",
             "Generated by tools/coverage.py (`nox -s coverage`): do not edit.",
             "TENSOR: every public attribute of torch.Tensor (doctor reports `x.name(...)` calls with these",
             "names); OUT_OF_SCOPE: dotted name -> the docs/coverage.md rule that puts it out of scope;",
             "EXCLUSION_RULES: rule -> what it excludes. Whether torchshim has a name is decided at run",
             "time, never from this file.",
             '"""', f"TORCH_VERSION = {torch.__version__!r}", "", 'TENSOR = frozenset("""']
    line = ""
    for n in tensor:
        if len(line) + len(n) + 1 > 100:
            lines.append(line.rstrip())
            line = ""
        line += n + " "
    lines += [line.rstrip(), '""".split())', "", "OUT_OF_SCOPE = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in sorted(out_of_scope.items())]
    lines += ["}", "", "EXCLUSION_RULES = {"]
    lines += [f"    {r.id!r}: {r.excludes!r}," for r in RULES]
    return "\n".join(lines) + "\n}\n"


def check(shim):
    """Names docs/coverage.json marks supported that torchshim lacks now: [(ns, name)]."""
    with open(JSON) as f:
        data = json.load(f)
    gone = []
    for ns, entry in data["namespaces"].items():
        s_obj = _shim_namespace(shim, ns)
        for name in entry["supported"]:
            module = types.ModuleType(name) if name in entry.get("modules", []) else None
            if not has_name(s_obj, ns, name, module):
                gone.append((ns, name))
    return gone


def main(argv):
    warnings.filterwarnings("ignore", category=FutureWarning)  # deprecated aliases warn when read
    import torchshim

    if "--check" in argv:
        gone = check(torchshim)
        for ns, name in gone:
            print(f"missing now: {ns}.{name}")
        return 1 if gone else 0
    import torch

    result = classify(torch, torchshim)
    with open(DOC, "w") as f:
        f.write(markdown(result, torch.__version__))
    data = {"torch_version": torch.__version__, "rules": {r.id: r.excludes for r in RULES},
            "namespaces": result}
    with open(JSON, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(NAMES_MODULE, "w") as f:
        f.write(names_module(torch, result))
    if "--quiet" not in argv:
        print("\n".join(table(result)))
        print(f"wrote {', '.join(os.path.relpath(p, ROOT) for p in (DOC, JSON, NAMES_MODULE))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""PyTorch's own OpInfo sample inputs as conformance cases (compat_tests/test_opinfo.py).

For each OpInfo of `torch.testing._internal.common_methods_invocations.op_db` (which already holds the
linalg/fft/special/signal op_dbs of torch/testing/_internal/opinfo/definitions) whose op torchshim has, each
sample of `op.sample_inputs('cpu', dtype)` is converted (tensors -> numpy -> torchshim tensors with the same
values, dtypes and requires_grad) and the op is run in both libraries through the OpInfo's
`gradcheck_wrapper` and the sample's `output_process_fn_grad` (svd/eigh gauge, ...), which are rebound to
torchshim when they are test-suite functions (see `rebind`). Compared: forward values/dtypes/shapes (shapes
and dtypes only for ops whose values are random or undefined), and for float64 samples of ops that support
autograd the gradient and gradient-of-gradient of a fixed random-weighted sum of the outputs
(grad_harness.grad_pipeline, the same stages as test_gradients.py).

Case ids are stable names: `<op key>-<dtype>-<sample index>` (forward) and `...-grad` (gradients), where the
op key is `op.name`, plus `.<variant_test_name>` when the OpInfo has one (`max.reduction_with_dim`).

Importing op_db costs 10-20 s, so collection never does it: `opinfo_manifest.json` (written by
`python compat_tests/opinfo_harness.py --write-manifest`, from the pinned torch 2.13 reference) lists every
OpInfo's key, the dtypes tested, the number of samples per dtype and the gradient flags; op_db is imported
once per process, on the first case that runs, and the samples of the last few (op, dtype) pairs are cached.
"""
import functools
import importlib
import json
import os
import sys
import threading
import types

import torch

import torchshim
from grad_harness import _compare_stage, _detached, _materialized, grad_pipeline
from harness import compare_values

__all__ = ["manifest", "op_info", "resolve", "samples", "check_forward_case", "check_grad_case", "Skip",
           "FLOAT_DTYPES", "INT_DTYPES"]

MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "opinfo_manifest.json")
FLOAT_DTYPES = ("float32", "float64", "complex64", "complex128")
INT_DTYPES = ("int64", "int32", "int16", "int8", "uint8")  # the first one an op supports is tested
GRAD_DTYPE = "float64"

# forward tolerances per sample dtype (rtol, atol): loose enough for different LAPACK/XLA algorithms
TOL = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4), "float64": (1e-7, 1e-7),
       "complex128": (1e-7, 1e-7)}
GRAD_TOL = (1e-6, 1e-6)


class Skip(Exception):
    """The case can't run (op missing in torchshim, sample not convertible): the test skips with this text."""


# ---- op_db and the manifest -------------------------------------------------------------------------------
@functools.cache
def manifest():
    """{op key: entry} from opinfo_manifest.json (no torch import beyond the reference's own)."""
    with open(MANIFEST) as f:
        return json.load(f)["ops"]


@functools.cache
def _op_db():
    from torch.testing._internal.common_methods_invocations import op_db
    return {key_of(op): op for op in op_db}


def key_of(op):
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def op_info(key):
    return _op_db()[key]


def in_fresh_thread(fn, *args):
    """`fn(*args)` run in a thread of its own (its result, or its exception re-raised). PyTorch's sample
    iterator records the calling test with `inspect.stack()` (source lines of every frame) for each sample,
    and `torch.manual_seed` records `traceback.format_stack()` three times, both in proportion to pytest's
    deep stack (measured: a slow forward case 10% faster, the manifest check 56 -> 37 s of CPU); a fresh
    thread's stack is a few frames."""
    box = {}

    def run():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


@functools.lru_cache(maxsize=6)
def samples(key, dtype, requires_grad):
    """The OpInfo's sample inputs for (op, dtype), generated once under a fixed torch seed."""
    op = op_info(key)

    def make():
        torch.manual_seed(0)
        return tuple(op.sample_inputs("cpu", getattr(torch, dtype), requires_grad=requires_grad))
    return in_fresh_thread(make)


# ---- rebinding test-suite functions to torchshim -----------------------------------------------------------
_GLOBALS = {}  # module name -> globals dict with torch modules replaced by torchshim's
_REBOUND = {}  # id(function) -> (function, rebound)


def _shim_module(mod):
    """torchshim's counterpart of a torch module (torch.nn.functional -> torchshim.nn.functional), or None."""
    name = mod.__name__
    if name == "torch":
        return torchshim
    if not name.startswith("torch.") or name.startswith("torch.testing"):
        return None
    try:
        return importlib.import_module("torchshim" + name[len("torch"):])
    except ImportError:
        return None


def _is_suite_function(f):
    return isinstance(f, types.FunctionType) and (f.__module__ or "").startswith("torch.testing._internal")


def _globals_for(modname):
    g = _GLOBALS.get(modname)
    if g is not None:
        return g
    src = sys.modules[modname].__dict__
    g = _GLOBALS[modname] = dict(src)
    for k, v in src.items():
        if isinstance(v, types.ModuleType):
            shim = _shim_module(v)
            if shim is not None:
                g[k] = shim
        elif _is_suite_function(v):
            g[k] = rebind(v)
    return g


def rebind(f):
    """A test-suite function (an OpInfo's lambda op, a gradcheck wrapper, an output_process_fn_grad) with
    its module's `torch` (and torch.* submodules, and the module's other test-suite functions) read as
    torchshim's; anything else is returned as it is."""
    if not _is_suite_function(f):
        return f
    hit = _REBOUND.get(id(f))
    if hit is not None and hit[0] is f:
        return hit[1]
    new = types.FunctionType(f.__code__, {}, f.__name__, f.__defaults__, f.__closure__)
    _REBOUND[id(f)] = (f, new)  # before filling the globals: functions of one module refer to each other
    g = _globals_for(f.__module__)
    new = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
    new.__kwdefaults__ = f.__kwdefaults__
    _REBOUND[id(f)] = (f, new)
    return new


# ---- resolving an OpInfo's op in torchshim ----------------------------------------------------------------
def _walk(root, path):
    obj = root
    for part in path.split("."):
        if isinstance(obj, types.ModuleType) and obj.__name__.startswith("torchshim.ops"):
            return None  # torchshim.ops makes namespaces on demand: not evidence of an op
        try:
            obj = getattr(obj, part)
        except Exception:
            return None
    return obj


def shim_name(op):
    """Where the OpInfo's name lives in torchshim (`torch.X`, or `Tensor.X` for method-only ops), or None."""
    name = op.name
    if name.startswith("torch.") or name.startswith("_"):
        return name if _walk(torchshim, name.removeprefix("torch.")) is not None else None
    if _walk(torchshim, name) is not None:
        return name
    if "." not in name and getattr(torchshim.Tensor, name, None) is not None:
        return "Tensor." + name
    return None


def resolve(key):
    """torchshim's callable for the OpInfo `key`: its op when the op is a torch function, the OpInfo's own
    wrapper (rebound) when it is a test-suite lambda. Raises Skip when torchshim lacks the name."""
    op = op_info(key)
    where = shim_name(op)
    if where is None:
        raise Skip(f"not in torchshim: {op.name}")
    f = op.op
    if _is_suite_function(f):
        return rebind(f)
    if getattr(f, "__objclass__", None) is not None or type(f).__name__ in ("method_descriptor",
                                                                               "wrapper_descriptor"):
        m = getattr(torchshim.Tensor, f.__name__, None)
        if m is None:
            raise Skip(f"not in torchshim: Tensor.{f.__name__}")
        return m
    ref = _walk(torch, op.name.removeprefix("torch."))
    if ref is f or where.startswith("Tensor."):
        return _walk(torchshim, where) if not where.startswith("Tensor.") else getattr(torchshim.Tensor,
                                                                                      where[7:])
    mod = getattr(f, "__module__", None) or ""
    if mod.startswith("torch") and getattr(f, "__name__", None):
        shim = _walk(torchshim, (mod.removeprefix("torch").lstrip(".") + "." + f.__name__).lstrip("."))
        if shim is not None:
            return shim
    raise Skip(f"op of {key} is {f!r}: no torchshim counterpart found")


# ---- converting samples -----------------------------------------------------------------------------------
def to_shim(x, memo):
    """A torch object as torchshim's: tensors by value (dtype, shape, requires_grad kept), dtypes, devices,
    sizes, memory formats; containers recursively. Raises Skip for what torchshim can't take."""
    if isinstance(x, torch.Tensor):
        hit = memo.get(id(x))
        if hit is not None:
            return hit
        if x.layout != torch.strided:
            raise Skip(f"sample has a {x.layout} tensor")
        d = x.detach().resolve_conj().resolve_neg()
        dt = str(x.dtype).removeprefix("torch.")
        wide = d.float() if x.dtype == torch.bfloat16 else d
        t = torchshim.tensor(wide.numpy()).to(getattr(torchshim, dt))
        if x.requires_grad:
            t.requires_grad_(True)
        memo[id(x)] = t
        return t
    if isinstance(x, torch.Size):
        return torchshim.Size(tuple(x))
    if isinstance(x, torch.dtype):
        return getattr(torchshim, str(x).removeprefix("torch."))
    if isinstance(x, torch.device):
        return torchshim.device(str(x))
    if isinstance(x, (torch.memory_format, torch.layout)):
        return getattr(torchshim, str(x).removeprefix("torch."))
    if isinstance(x, torch.Generator):
        raise Skip("sample passes a torch.Generator")
    if isinstance(x, tuple):
        return type(x)(*(to_shim(v, memo) for v in x)) if hasattr(x, "_fields") else \
            tuple(to_shim(v, memo) for v in x)
    if isinstance(x, list):
        return [to_shim(v, memo) for v in x]
    if isinstance(x, dict):
        return {k: to_shim(v, memo) for k, v in x.items()}
    if callable(x) and not isinstance(x, type) and getattr(x, "__module__", "") and \
            str(getattr(x, "__module__", "")).startswith("torch"):
        raise Skip(f"sample passes a torch callable {x!r}")
    return x


def _call(T, key, fn, sample, inputs, for_grad):
    """The op on converted inputs through the OpInfo's gradcheck wrapper (gradient cases) and the sample's
    output_process_fn_grad (both, rebound for torchshim)."""
    op = op_info(key)
    inp, args, kwargs = inputs
    process = sample.output_process_fn_grad
    if T is torchshim:
        process = rebind(process)
    if for_grad:
        wrapper = op.gradcheck_wrapper if T is torch else rebind(op.gradcheck_wrapper)
        out = wrapper(fn, inp, *args, **kwargs)
    else:
        out = fn(inp, *args, **kwargs)
    return process(out)


def _inputs(sample, lib):
    if lib is torch:
        return sample.input, tuple(sample.args), dict(sample.kwargs)
    memo = {}
    return (to_shim(sample.input, memo), tuple(to_shim(a, memo) for a in sample.args),
            {k: to_shim(v, memo) for k, v in sample.kwargs.items()})


def _run(lib, key, fn, sample, for_grad):
    inputs = _inputs(sample, lib)
    try:
        return inputs, _call(lib, key, fn, sample, inputs, for_grad), None
    except Skip:
        raise
    except Exception as e:  # the outcome, compared
        return inputs, None, e


def _meta(x):
    """Shapes and dtypes only (ops whose values are random or undefined)."""
    if isinstance(x, (torch.Tensor, torchshim.Tensor)):
        return ("tensor", tuple(x.shape), str(x.dtype))
    if isinstance(x, (tuple, list)):
        return tuple(_meta(v) for v in x)
    return type(x).__name__


def _sample(key, dtype, index, requires_grad):
    got = samples(key, dtype, requires_grad)
    if index >= len(got):
        raise Skip(f"{key} has {len(got)} samples for {dtype}")
    return got[index]


def _errors(ref_err, got_err):
    if ref_err is not None and got_err is None:
        raise AssertionError(f"torch raised {type(ref_err).__name__}: {ref_err}; torchshim computed it")
    if got_err is not None and ref_err is None:
        raise AssertionError(f"torchshim raised {type(got_err).__name__}: {str(got_err)[:500]}") from got_err
    # both raised: the sample is an error case for this op; types must agree
    rbase = next(c for c in type(ref_err).__mro__ if c.__module__ == "builtins")
    assert isinstance(got_err, rbase), f"torch raised {type(ref_err).__name__}({ref_err}), torchshim " \
                                       f"{type(got_err).__name__}({got_err})"


def check_forward_case(key, dtype, index):
    """Forward values (or shapes/dtypes) of sample `index` for `dtype`."""
    entry = manifest()[key]
    fn = resolve(key)
    sample = _sample(key, dtype, index, False)
    _, ref, ref_err = _run(torch, key, op_info(key).op, sample, False)
    _, got, got_err = _run(torchshim, key, fn, sample, False)
    if ref_err is not None or got_err is not None:
        return _errors(ref_err, got_err)
    if entry["values"] != "exact":
        assert _meta(ref) == _meta(got), f"shapes/dtypes: torch {_meta(ref)} vs torchshim {_meta(got)}"
        return
    rtol, atol = TOL.get(dtype, (None, None))
    compare_values(ref, got, rtol, atol, path="forward")


def check_grad_case(key, index):
    """float64 gradient and (where the OpInfo supports it) gradient-of-gradient of sample `index`."""
    entry = manifest()[key]
    fn = resolve(key)
    sample = _sample(key, GRAD_DTYPE, index, True)
    pipeline = grad_pipeline()
    outcomes = []
    for lib, f in ((torch, op_info(key).op), (torchshim, fn)):
        inputs, value, err = _run(lib, key, f, sample, True)
        if err is not None:
            outcomes.append((None, err))
            continue
        try:
            flat = [inputs[0], *inputs[1], *inputs[2].values()]
            outcomes.append((pipeline(lib, value, flat), None))
        except Skip:
            raise
        except Exception as e:
            outcomes.append((None, e))
    (r, r_err), (g, g_err) = outcomes
    if r_err is not None or g_err is not None:
        return _errors(r_err, g_err)
    rtol, atol = GRAD_TOL
    compare_values(r.value, g.value, rtol, atol, path="forward (inputs requiring grad)")
    if r.grad1 is None and g.grad1 is None:
        return
    if not _compare_stage("first-order backward", r.grad1, g.grad1, None):
        return
    if r.grad1 is None or g.grad1 is None:
        raise AssertionError(f"first-order: torch {'no ' if r.grad1 is None else ''}gradient, torchshim "
                             f"{'no ' if g.grad1 is None else ''}gradient")
    compare_values(_materialized(r.grad1, r.leaves), _materialized(g.grad1, g.leaves), rtol, atol,
                   path="first-order grad")
    if not entry["gradgrad"] or (r.grad2 is None and g.grad2 is None):
        return
    if not _compare_stage("second-order backward", r.grad2, g.grad2, None):
        return
    compare_values(_materialized(r.grad2, r.leaves), _materialized(g.grad2, g.leaves), rtol, atol,
                   path="second-order grad")


_ = _detached  # (grad_harness's detaching is used through _materialized)


# ---- writing the manifest ----------------------------------------------------------------------------------
def _tested_dtypes(op):
    supported = {str(d).removeprefix("torch.") for d in op.supported_dtypes("cpu")}
    out = [d for d in FLOAT_DTYPES if d in supported]
    ints = [d for d in INT_DTYPES if d in supported]
    return out + ints[:1]


def _count(op, dtype, requires_grad):
    torch.manual_seed(0)
    try:
        return sum(1 for _ in op.sample_inputs("cpu", getattr(torch, dtype), requires_grad=requires_grad))
    except Exception:
        return 0


def _same(a, b):
    if isinstance(a, torch.Tensor):
        if not isinstance(b, torch.Tensor) or a.shape != b.shape or a.layout != torch.strided:
            return a.shape == getattr(b, "shape", None)
        return bool(torch.equal(a, b) or (a.is_floating_point() and torch.allclose(a, b, equal_nan=True)))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return True


def _random_values(op, dtype):
    """Whether runs of the first samples under different seeds differ (sampling ops)."""
    code = getattr(op.op, "__code__", None)
    if code is not None and "wrapper_set_seed" in code.co_names:  # seeded inside: torch's stream only
        return True
    torch.manual_seed(0)
    try:
        for k, s in enumerate(op.sample_inputs("cpu", getattr(torch, dtype))):
            if k == 4:
                return False
            outs = []
            for seed in (1, 2):
                torch.manual_seed(seed)
                outs.append(op.op(s.input, *s.args, **s.kwargs))
            if not _same(*outs):
                return True
    except Exception:
        return False
    return False


def build_manifest(count_keys=None):
    """The manifest from the installed torch's op_db. Counting samples enumerates every sample input of every
    op (many minutes): `count_keys` (a set of keys) limits the counting to those ops, the others' counts are
    None."""
    from torch.testing._internal.common_methods_invocations import op_db
    ops = {}
    for op in op_db:
        key = key_of(op)
        counted = count_keys is None or key in count_keys
        assert key not in ops, f"duplicate OpInfo key {key}"
        dtypes = _tested_dtypes(op)
        backward = {str(d).removeprefix("torch.") for d in op.supported_backward_dtypes("cpu")}
        grad = bool(op.supports_autograd and GRAD_DTYPE in dtypes and GRAD_DTYPE in backward)
        values = "exact"
        if op.has_nondeterministic_output or "empty" in op.name:
            values = "undefined"
        elif not counted:
            values = None  # deciding "random" draws samples too
        elif dtypes and _random_values(op, dtypes[0]):
            values = "random"
        ops[key] = {
            "name": op.name, "variant": op.variant_test_name, "dtypes": dtypes,
            "samples": {d: _count(op, d, False) if counted else None for d in dtypes},
            "grad": grad, "grad_samples": (_count(op, GRAD_DTYPE, True) if counted else None) if grad else 0,
            "gradgrad": bool(grad and op.supports_gradgrad), "values": values,
        }
    return {"torch": torch.__version__.split("+")[0], "ops": ops}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-manifest"]:
        raise SystemExit("usage: python compat_tests/opinfo_harness.py --write-manifest")
    import warnings
    warnings.simplefilter("ignore")
    data = build_manifest()
    with open(MANIFEST, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"{len(data['ops'])} OpInfos written to {MANIFEST}")

"""The names that complete the small namespaces (issue 10): torch.backends (cusparselt, kleidiai, miopen,
nnpack, python_native), torch.func (rearrange, debug_unwrap), torch.autograd (engine switches, profiler
enums, profiler_legacy / profiler_util), torch.profiler (DeviceType, RecordScope, KinetoStepTracker, itt)
and torch.hub.tqdm — each against real PyTorch 2.13 on this machine, or its documented difference."""
import io
import warnings

import pytest
import torch

import torchshim

LIBS = (torch, torchshim)


def _plain(x):
    if isinstance(x, (torch.Tensor, torchshim.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.detach().numpy().tolist())
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _outcome(fn, T):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            return _plain(fn(T)), None
        except Exception as e:  # noqa: BLE001
            return None, (type(e).__name__, str(e).replace("torchshim", "torch"))  # module names in text


def _same(fn):
    ref, got = _outcome(fn, torch), _outcome(fn, torchshim)
    assert got == ref


# ---- torch.backends ----------------------------------------------------------------------------------------
BACKENDS = [
    lambda T: T.backends.cusparselt.is_available(),
    lambda T: T.backends.cusparselt.version(),
    lambda T: T.backends.cusparselt.get_max_alg_id(),
    lambda T: T.backends.kleidiai.is_available(),
    lambda T: T.backends.nnpack.is_available(),
    lambda T: T.backends.miopen.immediate,
    lambda T: T.backends.nnpack.set_flags(1),
    lambda T: setattr(T.backends.miopen, "immediate", 1),
    lambda T: T.backends.python_native.all_dsls,
    lambda T: T.backends.python_native.available_dsls,
    lambda T: [repr(getattr(T.backends.python_native, d)) for d in ("triton", "cutedsl")],
    lambda T: [(c.name, c.available, c.version, c.enabled) for c in
               (T.backends.python_native.triton, T.backends.python_native.cutedsl)],
    lambda T: T.backends.python_native.get_dsl_operations("triton"),
    lambda T: T.backends.python_native.triton is T.backends.python_native.triton,
    lambda T: T.backends.python_native.no_such_dsl,
]


@pytest.mark.parametrize("case", range(len(BACKENDS)))
def test_backends_answers(case):
    _same(BACKENDS[case])


def _nnpack_flags(T):
    n = T.backends.nnpack
    out = [n.set_flags(False)]
    with n.flags(enabled=True):
        out.append(n.set_flags(True))
    out.append(n.set_flags(True))
    return out


def _miopen_flags(T):
    m = T.backends.miopen
    out = [m.immediate, m.set_flags(None)]
    m.immediate = True
    out += [m.immediate, m.set_flags(False), m.immediate]
    with m.flags(immediate=True):
        out.append(m.immediate)
    out.append(m.immediate)
    return out


def _python_native_switches(T):
    pn = T.backends.python_native
    out = []
    pn.triton.enabled = False
    out += [pn.is_dsl_disabled("triton"), pn.triton.enabled, repr(pn.triton)]
    pn.triton.enabled = True
    with pn.cutedsl.disabled():
        out.append(pn.is_dsl_disabled("cutedsl"))
    out.append(pn.is_dsl_disabled("cutedsl"))
    pn.disable_operations("scaled_mm", "flash")
    out.append([pn.is_operation_disabled(o) for o in ("scaled_mm", "flash", "other")])
    with pn.operations_disabled("flash", "other"):
        out.append([pn.is_operation_disabled(o) for o in ("scaled_mm", "flash", "other")])
    out.append([pn.is_operation_disabled(o) for o in ("scaled_mm", "flash", "other")])
    pn.enable_operations("scaled_mm", "flash")
    out.append([pn.is_operation_disabled(o) for o in ("scaled_mm", "flash", "other")])
    pn.disable_dispatch_keys("CPU")
    pn.enable_dispatch_keys("CPU")
    return out


@pytest.mark.parametrize("fn", [_nnpack_flags, _miopen_flags, _python_native_switches])
def test_backends_switches(fn):
    _same(fn)


def test_backends_unknown_dsl_module():
    for T in LIBS:
        with pytest.raises(ValueError, match=r"Unknown DSL: foo. Available DSLs: \('cutedsl', 'triton'\)"):
            T.backends.python_native._get_dsl_module("foo") if T is torch else \
                T.backends.python_native.DSLController("foo").disable()


# ---- torch.func --------------------------------------------------------------------------------------------
PATTERNS = [
    ("b h c -> b (h c)", {}), ("b h c -> c b h", {}), ("b h c -> (b h c)", {}),
    ("(a b) h c -> a b h c", {"a": 2}), ("(a b) h c -> b a h c", {"a": 2, "b": 1}), ("b h c -> b h c 1", {}),
    ("b h c -> () b h c", {}), ("... c -> (... c)", {}), ("b ... -> ... b", {}), ("... h c -> h ... c", {}),
    ("b h (c) -> (b h) c", {}), ("b h c -> b (h 1 c)", {}), ("  b h  c->b  c h ", {}),
    ("b2 h_1 c -> h_1 b2 c", {}), ("b h c -> b h c", {"h": 3}),
    # errors
    ("b h c", {}), ("b h c -> b h c -> b", {}), ("b h c -> b h", {}), ("b h c d -> b h c d", {}),
    ("b h c -> b h c 2", {}), ("b h c -> b h (c", {}), ("b h c -> b h c)", {}), ("b ... ... -> b", {}),
    ("b h c -> b h c c", {}), ("b 2h c -> h b c", {}), ("_ h c -> h _ c", {}), ("b h c -> b ((h c))", {}),
    ("b (...) -> b", {}), ("b h c -> b h c ...", {}), ("b h c -> b h c", {"a": 2}),
    ("b h c -> b h c", {"b": "x"}), ("b h c -> b h c", {"h": 2}), ("(a b) h c -> a b h c", {}),
    ("(a b) h c -> a b h c", {"a": 5}),
]


@pytest.mark.parametrize("pattern,lengths", PATTERNS)
def test_rearrange(pattern, lengths):
    def fn(T):
        return T.func.rearrange(T.arange(24).reshape(2, 3, 4), pattern, **lengths)
    ref, got = _outcome(fn, torch), _outcome(fn, torchshim)
    if ref[1] is not None and ref[1][0] == "DimensionBindError":  # functorch.dim's class; torchshim's own
        assert got[1] == ref[1]
    else:
        assert got == ref


def test_rearrange_list_gradient_and_view():
    out = []
    for T in LIBS:
        parts = [T.full((2, 3), float(i)) for i in range(4)]
        y = T.func.rearrange(parts, "n a b -> a (n b)")
        x = T.arange(24.0).reshape(2, 3, 4).requires_grad_()
        z = T.func.rearrange(x, "a b c -> c (a b)")
        (z * T.arange(24.0).reshape(4, 6)).sum().backward()
        base = T.arange(24.0).reshape(2, 3, 4)
        out.append((_plain(y), _plain(x.grad), T.func.rearrange(base, "a b c -> a (b c)")._base is base))
    assert out[1] == out[0]


def _unwrap_probe(T):
    du, seen = T.func.debug_unwrap, []
    x = T.arange(12.0).reshape(3, 4)

    def f(v):
        seen.append((tuple(du(v).shape), tuple(du(v, recurse=False).shape)))
        return v * 2
    T.func.vmap(f)(x)
    T.func.vmap(T.func.vmap(f))(x)
    T.func.vmap(f, in_dims=1)(x.t().contiguous())

    def h(v):
        seen.append(_plain(du(v * 3)))
        return v
    T.func.vmap(h)(x)

    def g(v):
        seen.append((tuple(du(v).shape), T.equal(du(v), x)))
        return v
    T.func.jvp(g, (x,), (T.ones_like(x),))
    seen.append(du(x) is x)
    return seen


def test_debug_unwrap():
    _same(_unwrap_probe)


def test_debug_unwrap_grad_difference():
    """Documented difference: inside torch.func.grad (torchshim's tape) the tensor comes back as is."""
    seen = []

    def g(v):
        seen.append(torchshim.func.debug_unwrap(v).requires_grad)
        return v.sum()
    torchshim.func.grad(g)(torchshim.ones(3))
    assert seen == [True]


# ---- torch.autograd ----------------------------------------------------------------------------------------
ENUMS = ["DeviceType", "ProfilerActivity", "ProfilerState"]


@pytest.mark.parametrize("name", ENUMS)
def test_autograd_enums(name):
    def fn(T):
        e = getattr(T.autograd, name)
        first = next(iter(e.__members__.values()))
        return ([(k, int(v)) for k, v in e.__members__.items()], repr(first), str(first), first.name,
                first == 0, e(int(first)) == first, hash(first) == hash(e(int(first))))
    _same(fn)


def test_profiler_enums_shared():
    def fn(T):
        return (T.autograd.ProfilerActivity is T.profiler.ProfilerActivity,
                T.autograd.DeviceType is T.profiler.DeviceType,
                {k: int(v) for k, v in T.profiler.RecordScope.__members__.items()},
                sorted(a.name for a in T.profiler.supported_activities()) == ["CPU"])
    _same(fn)
    assert torchshim.autograd.kineto_available is torchshim.profiler.kineto_available


def test_kineto_available_difference():
    """Documented difference: torchshim has no Kineto (PyTorch's CPU wheel does)."""
    assert torch.autograd.kineto_available() is True
    assert torchshim.autograd.kineto_available() is False


def _engine_flags(T):
    A = T.autograd
    out = [A.is_multithreading_enabled(), A.is_view_replay_enabled()]
    A.set_multithreading_enabled(False)
    out.append(A.is_multithreading_enabled())
    A.set_multithreading_enabled(True)
    with A.set_multithreading_enabled(False):
        out.append(A.is_multithreading_enabled())
    out.append(A.is_multithreading_enabled())

    @A.set_multithreading_enabled(False)
    def f():
        return A.is_multithreading_enabled()
    A.set_multithreading_enabled(True)
    out += [f(), A.is_multithreading_enabled()]
    out.append(T._C._is_grad_layout_enforcement_enabled())
    with A.enforce_grad_layout_policy(False):
        out.append(T._C._is_grad_layout_enforcement_enabled())
    out.append(T._C._is_grad_layout_enforcement_enabled())
    A.enforce_grad_layout_policy(False)
    out.append(T._C._is_grad_layout_enforcement_enabled())
    A.enforce_grad_layout_policy()
    out.append(T._C._is_grad_layout_enforcement_enabled())
    return out


@pytest.mark.parametrize("fn", [
    _engine_flags,
    lambda T: T.autograd.set_multithreading_enabled(1),
    lambda T: T.autograd.enforce_grad_layout_policy("no"),
])
def test_autograd_engine_flags(fn):
    _same(fn)


def test_view_replay_off_records_as_strided():
    def fn(T):
        a = T.randn(3, 4, requires_grad=True).clone()
        b = a[1:]
        b.mul_(2)
        return (T.autograd.is_view_replay_enabled(), type(b.grad_fn).__name__,
                type(b.grad_fn.next_functions[0][0]).__name__)
    _same(fn)


# PyTorch's table-formatting helpers that torchshim's profiler_util leaves out (its docstring)
NOT_IN_UTIL = {"StringTable", "MemRecordsAcc", "FormattedTimesMixin", "EventMetadata"}


def test_profiler_legacy_and_util():
    def fn(T):
        A = T.autograd
        util, legacy = A.profiler_util, A.profiler_legacy
        with legacy.profile() as prof:
            with A.profiler.record_function("span"):
                T.ones(3).sum()
        names = [e.name for e in prof.function_events]
        return (sorted(set(util.__all__) - NOT_IN_UTIL), legacy.__all__, util.Interval(3, 10).elapsed_us(),
                tuple(util.Kernel("k", 0, 5)), util.Kernel._fields, util.MEMORY_EVENT_NAME,
                util.OUT_OF_MEMORY_EVENT_NAME, util.EventList is A.profiler.EventList,
                util.FunctionEvent is A.profiler.FunctionEvent, legacy.DeviceType is A.DeviceType,
                legacy.ProfilerState is A.ProfilerState, "span" in names)
    ref, got = _outcome(fn, torch), _outcome(fn, torchshim)
    assert got == ref


# ---- torch.profiler ----------------------------------------------------------------------------------------
def _step_tracker(T):
    K = T.profiler.KinetoStepTracker
    out = [K is T.autograd.profiler.KinetoStepTracker]
    start = K.current_step()
    with T.profiler.profile() as p:
        out.append(dict(K._step_dict))
        p.step()
    out.append(dict(K._step_dict))
    out.append(K.increment_step("req_a") - start)
    out.append(K.increment_step("req_a") - start)
    K.init_step_count("req_b")
    out.append(K._step_dict["req_b"] - start)
    out.append(K.increment_step("req_b") - start)  # req_b below the max: the global step stays
    out += [K.erase_step_count("req_a"), K.erase_step_count("req_a"), K.erase_step_count("req_b")]
    out.append(K.current_step() - start)
    return out


def test_kineto_step_tracker():
    _same(_step_tracker)


def test_itt_difference():
    """Documented difference: torchshim has no ITT, so torch.profiler.itt is that of a build without it."""
    assert torch.profiler.itt.is_available() is True
    itt = torchshim.profiler.itt
    assert itt.is_available() is False
    for call in (lambda: itt.range_push("a"), itt.range_pop, lambda: itt.mark("a")):
        with pytest.raises(RuntimeError, match="ITT functions not installed. Are you sure you have a ITT "
                                               "build?"):
            call()
    with pytest.raises(RuntimeError, match="ITT functions not installed"):
        with itt.range("x {}", 1):
            pass
    assert sorted(itt.__all__) == sorted(torch.profiler.itt.__all__)


# ---- torch.hub ---------------------------------------------------------------------------------------------
def _tqdm_output(T, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    bar = T.hub.tqdm
    with bar(total=200, unit="B") as p:
        p.update(50)
        p.update(150)
        p.write("note")
    with bar(total=None) as p:
        p.update(7)
    with bar(total=10, disable=True) as p:
        p.update(3)
    p.close()
    return bar.__name__, err.getvalue()


def test_hub_tqdm(monkeypatch):
    assert _tqdm_output(torchshim, monkeypatch) == _tqdm_output(torch, monkeypatch)


def test_hub_download_progress(tmp_path, monkeypatch):
    src = tmp_path / "blob.bin"
    src.write_bytes(bytes(range(256)) * 1000)
    outs = []
    for T in LIBS:
        err = io.StringIO()
        monkeypatch.setattr("sys.stderr", err)
        dst = tmp_path / f"out_{T.__name__}.bin"
        T.hub.download_url_to_file(src.as_uri(), str(dst), progress=True)
        T.hub.download_url_to_file(src.as_uri(), str(dst), progress=False)
        outs.append((err.getvalue(), dst.read_bytes() == src.read_bytes()))
    assert outs[1] == outs[0]


# ---- torch.fx ----------------------------------------------------------------------------------------------
def _immutable(T):
    import copy
    import pickle
    ic = __import__(T.__name__ + ".fx.immutable_collections", fromlist=["x"])
    lst, dct = ic.immutable_list([1, 2]), ic.immutable_dict(a=1)
    out = []
    for f in (lambda: lst.append(3), lambda: lst.__setitem__(0, 1), lambda: dct.__setitem__("b", 2),
              lambda: dct.update(b=2), lambda: lst.sort(), lambda: dct.pop("a"), lambda: lst.__iadd__([1])):
        try:
            f()
        except TypeError as e:
            out.append(str(e))
    out += [repr(lst), repr(dct), hash(lst) == hash((1, 2)), hash(dct) == hash(frozenset({"a": 1}.items())),
            type(lst + [3]).__name__, type(lst[0:1]).__name__, type(copy.copy(dct)).__name__,
            type(pickle.loads(pickle.dumps(lst))).__name__, pickle.loads(pickle.dumps(dct)) == dct,
            sorted(ic.__all__)]
    return out


def test_fx_immutable_collections():
    _same(_immutable)

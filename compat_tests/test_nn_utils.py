"""torch.nn.utils against real PyTorch: gradient clipping (same grads in, same total norm and clipped grads
out), parameters <-> vector, the hook-based weight_norm / spectral_norm (parameter and buffer names,
state_dict keys and metadata, outputs, buffers after power iteration, first- and second-order gradients),
BatchNorm fusion and skip_init. Parametrizations are in test_nn_utils_parametrize.py, functional_call /
torch.func in test_func.py."""
import math
import types
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import Arg, compare_errors, compare_values
from nn_harness import build_pair, check_module, check_traced, copy_state, to_shim


def grads_pair(shapes, dtype="float32", seed=0, special=None):
    """(torch params, torchshim params) with equal values and equal `.grad`s (None where `shapes` has None
    for the grad); `special` maps an index to a value put in that grad (nan, inf)."""
    rng = np.random.default_rng(seed)
    ref, got = [], []
    for i, shape in enumerate(shapes):
        has_grad = not (isinstance(shape, tuple) and len(shape) == 2 and shape[1] is None)
        shape = shape[0] if not has_grad else shape
        value = rng.standard_normal(shape)
        grad = rng.standard_normal(shape) * 3
        if special and i in special:
            grad.flat[0] = special[i]
        pr = torch.nn.Parameter(torch.tensor(value, dtype=getattr(torch, dtype)))
        pg = torchshim.nn.Parameter(torchshim.tensor(value, dtype=getattr(torchshim, dtype)))
        if has_grad:
            pr.grad = torch.tensor(grad, dtype=getattr(torch, dtype))
            pg.grad = torchshim.tensor(grad, dtype=getattr(torchshim, dtype))
        ref.append(pr)
        got.append(pg)
    return ref, got


def compare_grads(ref, got):
    compare_values([p.grad for p in ref], [p.grad for p in got])


# ---- clip_grad ---------------------------------------------------------------------------------------------
SHAPES = [(3, 4), (5,), (2, 2, 2), ()]


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, 0.5, 0, float("inf"), "inf", -float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 1e4])
def test_clip_grad_norm_(norm_type, max_norm):
    ref, got = grads_pair(SHAPES)
    r = torch.nn.utils.clip_grad_norm_(ref, max_norm, norm_type)
    g = torchshim.nn.utils.clip_grad_norm_(got, max_norm, norm_type)
    compare_values(r, g)
    compare_grads(ref, got)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_dtypes_and_foreach(dtype, foreach):
    ref, got = grads_pair(SHAPES, dtype=dtype)
    r = torch.nn.utils.clip_grad_norm_(ref, 1.0, foreach=foreach)
    g = torchshim.nn.utils.clip_grad_norm_(got, 1.0, foreach=foreach)
    compare_values(r, g)
    compare_grads(ref, got)


def test_clip_grad_norm_mixed_dtypes_and_missing_grads():
    ref, got = grads_pair([(3, 4), ((2,), None), (5,)])
    for ps in (ref, got):
        ps[2].data = ps[2].data.double()
        ps[2].grad = ps[2].grad.double()
    compare_values(torch.nn.utils.clip_grad_norm_(ref, 0.1), torchshim.nn.utils.clip_grad_norm_(got, 0.1))
    compare_grads(ref, got)


def test_clip_grad_norm_single_tensor_and_empty():
    ref, got = grads_pair([(4, 3)])
    compare_values(torch.nn.utils.clip_grad_norm_(ref[0], 0.3),
                   torchshim.nn.utils.clip_grad_norm_(got[0], 0.3))
    compare_grads(ref, got)
    compare_values(torch.nn.utils.clip_grad_norm_([], 1.0), torchshim.nn.utils.clip_grad_norm_([], 1.0))
    ref, got = grads_pair([((3,), None)])
    compare_values(torch.nn.utils.clip_grad_norm_(ref, 1.0), torchshim.nn.utils.clip_grad_norm_(got, 1.0))


def test_clip_grad_norm_generator_parameters():
    ref, got = grads_pair(SHAPES)
    r = torch.nn.utils.clip_grad_norm_((p for p in ref), 1.0)
    g = torchshim.nn.utils.clip_grad_norm_((p for p in got), 1.0)
    compare_values(r, g)
    compare_grads(ref, got)
    for T in (torch, torchshim):
        with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping will "
                                             "occur."):
            T.nn.utils.clip_grad_norm_((p for p in []), 1.0)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("norm_type", [2.0, float("inf")])
def test_clip_grad_norm_nonfinite(value, norm_type):
    ref, got = grads_pair(SHAPES, special={1: value})
    errors = []
    for ps, T in ((ref, torch), (got, torchshim)):
        with pytest.raises(RuntimeError) as e:
            T.nn.utils.clip_grad_norm_(ps, 1.0, norm_type, error_if_nonfinite=True)
        errors.append(e.value)
    compare_errors(*errors)
    compare_grads(ref, got)  # untouched by the failed call
    r = torch.nn.utils.clip_grad_norm_(ref, 1.0, norm_type)
    g = torchshim.nn.utils.clip_grad_norm_(got, 1.0, norm_type)
    compare_values(r, g)
    compare_grads(ref, got)


def test_clip_grad_norm_deprecated_alias():
    ref, got = grads_pair(SHAPES)
    msgs = []
    for ps, T in ((ref, torch), (got, torchshim)):
        with pytest.warns(FutureWarning) as rec:
            T.nn.utils.clip_grad_norm(ps, 1.0)
        msgs.append([str(w.message) for w in rec])
    assert msgs[0] == msgs[1]
    compare_grads(ref, got)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_get_total_norm_and_clip_grads_with_norm_(norm_type):
    ref, got = grads_pair(SHAPES)
    r = torch.nn.utils.get_total_norm([p.grad for p in ref], norm_type)
    g = torchshim.nn.utils.get_total_norm([p.grad for p in got], norm_type)
    compare_values(r, g)
    compare_values(torch.nn.utils.get_total_norm(ref[0].grad), torchshim.nn.utils.get_total_norm(got[0].grad))
    compare_values(torch.nn.utils.get_total_norm([]), torchshim.nn.utils.get_total_norm([]))
    torch.nn.utils.clip_grads_with_norm_(ref, 2.0, r)
    torchshim.nn.utils.clip_grads_with_norm_(got, 2.0, g)
    compare_grads(ref, got)
    torch.nn.utils.clip_grads_with_norm_(ref[1], 0.1, torch.tensor(0.5))
    torchshim.nn.utils.clip_grads_with_norm_(got[1], 0.1, torchshim.tensor(0.5))
    compare_grads(ref, got)


@pytest.mark.parametrize("clip_value", [0.5, 2, 100.0])
@pytest.mark.parametrize("foreach", [None, True])
def test_clip_grad_value_(clip_value, foreach):
    ref, got = grads_pair([(3, 4), ((2,), None), (5,)])
    assert torch.nn.utils.clip_grad_value_(ref, clip_value, foreach=foreach) is None
    assert torchshim.nn.utils.clip_grad_value_(got, clip_value, foreach=foreach) is None
    compare_grads(ref, got)
    torch.nn.utils.clip_grad_value_(ref[0], 0.1)
    torchshim.nn.utils.clip_grad_value_(got[0], 0.1)
    compare_grads(ref, got)


def test_clip_grad_norm_under_jit():
    """The clipping reads no value on the host: under jax.jit (grads as tracers) it gives the eager result."""
    import jax
    from torchshim.ops._dispatch import fresh
    _, got = grads_pair(SHAPES)
    grads = [p.grad._value for p in got]
    eager_norm = torchshim.nn.utils.clip_grad_norm_(got, 1.0)
    eager = [p.grad._value for p in got]

    def f(*gs):
        ps = [torchshim.nn.Parameter(torchshim.zeros(g.shape)) for g in gs]
        for p, g in zip(ps, gs):
            p.grad = fresh(g, torchshim.float32, p.device)
        n = torchshim.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
        return n._value, [p.grad._value for p in ps]

    n, out = jax.jit(f)(*grads)
    np.testing.assert_allclose(np.asarray(n), eager_norm.numpy(), rtol=1e-6)
    for a, b in zip(out, eager):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


# ---- parameters <-> vector ---------------------------------------------------------------------------------
def test_parameters_to_vector_and_back():
    ref, mod = build_pair(lambda T: T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Linear(4, 2)))
    r = torch.nn.utils.parameters_to_vector(ref.parameters())
    g = torchshim.nn.utils.parameters_to_vector(mod.parameters())
    compare_values(r, g)
    # differentiable w.r.t. the parameters
    compare_values(torch.autograd.grad((r * r).sum(), list(ref.parameters())),
                   torchshim.autograd.grad((g * g).sum(), list(mod.parameters())))
    vec = np.arange(r.numel(), dtype=np.float32) / 10
    torch.nn.utils.vector_to_parameters(torch.tensor(vec), ref.parameters())
    torchshim.nn.utils.vector_to_parameters(torchshim.tensor(vec), mod.parameters())
    compare_values(dict(ref.named_parameters()), dict(mod.named_parameters()))
    assert all(isinstance(p, torchshim.nn.Parameter) for p in mod.parameters())


@pytest.mark.parametrize("call", [
    lambda T: T.nn.utils.vector_to_parameters([1.0, 2.0], [T.nn.Parameter(T.zeros(2))]),
    lambda T: T.nn.utils.vector_to_parameters(np.zeros(2), [T.nn.Parameter(T.zeros(2))]),
    lambda T: T.nn.utils.parameters_to_vector([T.zeros(3, 4).t()]),
    lambda T: T.nn.utils.parameters_to_vector([]),
])
def test_vector_errors(call):
    errs = []
    for T in (torch, torchshim):
        with pytest.raises(Exception) as e:
            call(T)
        errs.append(e.value)
    compare_errors(*errs)


# ---- weight_norm (hook API) --------------------------------------------------------------------------------
def _quiet(fn):
    def build(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return fn(T)
    return build


WEIGHT_NORM_CASES = [
    (lambda T: T.nn.utils.weight_norm(T.nn.Linear(3, 4)), [Arg((2, 3))]),
    (lambda T: T.nn.utils.weight_norm(T.nn.Linear(3, 4), dim=None), [Arg((2, 3))]),
    (lambda T: T.nn.utils.weight_norm(T.nn.Linear(3, 4), dim=1), [Arg((2, 3))]),
    (lambda T: T.nn.utils.weight_norm(T.nn.Linear(3, 4), name="bias"), [Arg((2, 3))]),
    (lambda T: T.nn.utils.weight_norm(T.nn.Conv2d(2, 3, 3)), [Arg((1, 2, 5, 5))]),
    (lambda T: T.nn.utils.weight_norm(T.nn.Conv2d(2, 3, 3), dim=2), [Arg((1, 2, 5, 5))]),
    (lambda T: T.nn.utils.weight_norm(T.nn.Linear(3, 4).double(), dim=-1), [Arg((2, 3), "float64")]),
]
WN_IDS = ["linear", "dim-none", "dim-1", "bias", "conv2d", "conv2d-dim2", "f64-dim-minus1"]


@pytest.mark.parametrize("build,inputs", WEIGHT_NORM_CASES, ids=WN_IDS)
def test_weight_norm(build, inputs):
    res = check_module(_quiet(build), inputs, second_order=True)
    ref, mod = res.ref, res.module
    assert [n for n, _ in ref.named_parameters()] == [n for n, _ in mod.named_parameters()]
    assert list(ref.state_dict()) == list(mod.state_dict())
    for n in ("weight", "bias"):
        is_param = isinstance(getattr(mod, n), torchshim.nn.Parameter)
        assert isinstance(getattr(ref, n), torch.nn.Parameter) == is_param
    check_traced(_quiet(build), inputs)


def test_weight_norm_warns_and_removes():
    msgs = []
    for T in (torch, torchshim):
        with pytest.warns(FutureWarning) as rec:
            T.nn.utils.weight_norm(T.nn.Linear(3, 4))
        msgs.append([str(w.message) for w in rec])
    assert msgs[0] == msgs[1]
    ref, mod = build_pair(_quiet(lambda T: T.nn.utils.weight_norm(T.nn.Linear(3, 4), dim=None)))
    torch.nn.utils.remove_weight_norm(ref)
    torchshim.nn.utils.remove_weight_norm(mod)
    names = [n for n, _ in mod.named_parameters()]
    assert [n for n, _ in ref.named_parameters()] == names == ["bias", "weight"]
    assert isinstance(mod.weight, torchshim.nn.Parameter) and not mod._forward_pre_hooks
    compare_values(dict(ref.named_parameters()), dict(mod.named_parameters()))


@pytest.mark.parametrize("call", [
    lambda T: T.nn.utils.weight_norm(T.nn.utils.weight_norm(T.nn.Linear(3, 4))),
    lambda T: T.nn.utils.remove_weight_norm(T.nn.Linear(3, 4)),
    lambda T: T.nn.utils.remove_weight_norm(T.nn.utils.weight_norm(T.nn.Linear(3, 4)), "bias"),
    lambda T: T.nn.utils.weight_norm(T.nn.LazyLinear(4)),
    lambda T: T.nn.utils.weight_norm(T.nn.Linear(3, 4), name="nope"),
])
def test_weight_norm_errors(call):
    errs = []
    for T in (torch, torchshim):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as e:
                call(T)
        errs.append(e.value)
    compare_errors(*errs)


# ---- spectral_norm (hook API) ------------------------------------------------------------------------------
SPECTRAL_CASES = [
    (lambda T: T.nn.utils.spectral_norm(T.nn.Linear(3, 4)), [Arg((2, 3))]),
    (lambda T: T.nn.utils.spectral_norm(T.nn.Linear(5, 2), n_power_iterations=3), [Arg((2, 5))]),
    (lambda T: T.nn.utils.spectral_norm(T.nn.Linear(3, 4), dim=1, eps=1e-4), [Arg((2, 3))]),
    (lambda T: T.nn.utils.spectral_norm(T.nn.Conv2d(2, 3, 3)), [Arg((1, 2, 5, 5))]),
    (lambda T: T.nn.utils.spectral_norm(T.nn.ConvTranspose2d(2, 3, 3)), [Arg((1, 2, 4, 4))]),
    (lambda T: T.nn.utils.spectral_norm(T.nn.Linear(3, 4).double()), [Arg((2, 3), "float64")]),
]
SN_IDS = ["linear", "iters-3", "dim-1-eps", "conv2d", "conv-transpose2d", "f64"]


@pytest.mark.parametrize("build,inputs", SPECTRAL_CASES, ids=SN_IDS)
def test_spectral_norm(build, inputs):
    """Buffers weight_u/weight_v are copied from torch; training runs the power iteration in place (state
    after each forward compared), eval uses the stored vectors."""
    res = check_module(build, inputs, modes=("train", "train", "eval"), second_order=True, rtol=1e-4,
                       atol=1e-5)
    ref, mod = res.ref, res.module
    assert list(ref.state_dict()) == list(mod.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert ref.state_dict()._metadata == mod.state_dict()._metadata
    check_traced(build, inputs)


def test_spectral_norm_dim_default_for_conv_transpose():
    _, mod = build_pair(lambda T: T.nn.utils.spectral_norm(T.nn.ConvTranspose2d(2, 3, 3)))
    hook = next(iter(mod._forward_pre_hooks.values()))
    assert hook.dim == 1 and tuple(mod.weight_u.shape) == (3,)


def test_spectral_norm_remove_and_state_dict_roundtrip():
    ref, mod = build_pair(lambda T: T.nn.utils.spectral_norm(T.nn.Linear(3, 4)))
    sd = {k: to_shim(v) for k, v in ref.state_dict().items()}
    fresh = torchshim.nn.utils.spectral_norm(torchshim.nn.Linear(3, 4))
    assert not fresh.load_state_dict(sd).missing_keys
    compare_values(dict(ref.state_dict()), dict(fresh.state_dict()))
    for m, T in ((ref, torch), (mod, torchshim)):
        T.nn.utils.remove_spectral_norm(m)
    names = [n for n, _ in mod.named_parameters()]
    assert [n for n, _ in ref.named_parameters()] == names == ["bias", "weight"]
    assert list(ref.named_buffers()) == list(mod.named_buffers()) == []
    compare_values(dict(ref.named_parameters()), dict(mod.named_parameters()), rtol=1e-5, atol=1e-6)
    # PyTorch leaves its load_state_dict pre-hook behind: a strict load then misses weight_orig / weight_u
    errs = []
    for m in (ref, mod):
        with pytest.raises(RuntimeError) as e:
            m.load_state_dict(m.state_dict())
        errs.append(e.value)
    compare_errors(*errs)


def test_spectral_norm_loads_version_0_state_dict():
    """A state dict with `weight` and no `weight_v` (before version 1) gets its `v` solved for."""
    ref, mod = build_pair(lambda T: T.nn.utils.spectral_norm(T.nn.Linear(3, 4)))
    ref(torch.ones(1, 3))
    mod(torchshim.ones(1, 3))
    copy_state(ref, mod)
    outs = []
    for m, T, conv in ((ref, torch, lambda t: t), (mod, torchshim, to_shim)):
        sd = m.state_dict()
        sd._metadata[""].pop("spectral_norm")
        old = {"bias": sd["bias"], "weight_orig": sd["weight_orig"], "weight_u": sd["weight_u"],
               "weight": m.weight.detach()}
        target = T.nn.utils.spectral_norm(T.nn.Linear(3, 4))
        od = type(sd)({k: conv(v) for k, v in old.items()})
        od._metadata = sd._metadata
        target.load_state_dict(od)
        outs.append(target.weight_v.detach())
    compare_values(outs[0], outs[1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.utils.spectral_norm(T.nn.utils.spectral_norm(T.nn.Linear(3, 4))),
    lambda T: T.nn.utils.spectral_norm(T.nn.Linear(3, 4), n_power_iterations=0),
    lambda T: T.nn.utils.spectral_norm(T.nn.Linear(3, 4, bias=False), name="bias"),
    lambda T: T.nn.utils.spectral_norm(T.nn.LazyLinear(4)),
    lambda T: T.nn.utils.remove_spectral_norm(T.nn.Linear(3, 4)),
])
def test_spectral_norm_errors(call):
    errs = []
    for T in (torch, torchshim):
        with pytest.raises(Exception) as e:
            call(T)
        errs.append(e.value)
    compare_errors(*errs)


# ---- fusion ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_linear_bn_eval(bias):
    def build(T):
        return T.nn.Sequential(T.nn.Linear(3, 4, bias=bias), T.nn.BatchNorm1d(4))
    ref, mod = build_pair(build)
    rng = np.random.default_rng(0)
    mean, var = rng.standard_normal(4), rng.uniform(0.5, 2, 4)
    for m, T in ((ref, torch), (mod, torchshim)):
        with T.no_grad():
            m[1].running_mean.copy_(T.tensor(mean, dtype=T.float32))
            m[1].running_var.copy_(T.tensor(var, dtype=T.float32))
            m[1].weight.copy_(T.tensor([0.5, 1.5, -1.0, 2.0]))
        m.eval()
    fr = torch.nn.utils.fuse_linear_bn_eval(ref[0], ref[1])
    fg = torchshim.nn.utils.fuse_linear_bn_eval(mod[0], mod[1])
    assert type(fg) is torchshim.nn.Linear and fg is not mod[0]
    compare_values(dict(fr.named_parameters()), dict(fg.named_parameters()), rtol=1e-5, atol=1e-6)
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    compare_values(fr(torch.tensor(x)), fg(torchshim.tensor(x)), rtol=1e-5, atol=1e-6)
    unfused = mod(torchshim.tensor(x)).detach().numpy()
    np.testing.assert_allclose(unfused, fg(torchshim.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_conv_bn_eval(transpose, bias):
    def build(T):
        conv = (T.nn.ConvTranspose2d if transpose else T.nn.Conv2d)(2, 3, 3, bias=bias)
        return T.nn.Sequential(conv, T.nn.BatchNorm2d(3))
    ref, mod = build_pair(build)
    stats = [np.random.default_rng(0).standard_normal(3), np.random.default_rng(1).uniform(0.5, 2, 3)]
    for m, T in ((ref, torch), (mod, torchshim)):
        with T.no_grad():
            m[1].running_mean.copy_(T.tensor(stats[0], dtype=T.float32))
            m[1].running_var.copy_(T.tensor(stats[1], dtype=T.float32))
            m[1].bias.fill_(0.25)
        m.eval()
    fr = torch.nn.utils.fuse_conv_bn_eval(ref[0], ref[1], transpose=transpose)
    fg = torchshim.nn.utils.fuse_conv_bn_eval(mod[0], mod[1], transpose=transpose)
    compare_values(dict(fr.named_parameters()), dict(fg.named_parameters()), rtol=1e-5, atol=1e-6)
    x = np.random.default_rng(2).standard_normal((1, 2, 5, 5)).astype(np.float32)
    compare_values(fr(torch.tensor(x)), fg(torchshim.tensor(x)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("with_affine", [True, False])
def test_fuse_weights_functions(with_affine):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(4, 2, 3), (4,), (4,), (4,), (4,), (4,)]]
    arrays[3] = np.abs(arrays[3]) + 0.5
    for fn, w_shape in (("fuse_conv_bn_weights", (4, 2, 3)), ("fuse_linear_bn_weights", (4, 3))):
        outs = []
        for T in (torch, torchshim):
            cw, cb, rm, rv, bw, bb = [T.tensor(a) for a in arrays]
            cw = T.ones(w_shape).requires_grad_() if fn == "fuse_linear_bn_weights" else cw.requires_grad_()
            if not with_affine and fn == "fuse_conv_bn_weights":
                bw = bb = cb = None
            outs.append(getattr(T.nn.utils, fn)(cw, cb, rm, rv, 1e-5, bw, bb))
        compare_values(outs[0], outs[1], rtol=1e-5, atol=1e-6)
        assert all(isinstance(p, torchshim.nn.Parameter) for p in outs[1])


def test_fuse_errors():
    errs = []
    for T in (torch, torchshim):
        with pytest.raises(AssertionError) as e:
            T.nn.utils.fuse_linear_bn_eval(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4))
        errs.append(e.value)
        with pytest.raises(AssertionError) as e:
            T.nn.utils.fuse_linear_bn_eval(T.nn.Linear(3, 4).eval(), T.nn.BatchNorm1d(5).eval())
        errs.append(e.value)
    compare_errors(errs[0], errs[2])
    compare_errors(errs[1], errs[3])


# ---- skip_init and the namespace ---------------------------------------------------------------------------
def test_skip_init():
    m = torchshim.nn.utils.skip_init(torchshim.nn.Linear, 5, 1)
    r = torch.nn.utils.skip_init(torch.nn.Linear, 5, 1)
    assert type(m) is torchshim.nn.Linear and tuple(m.weight.shape) == tuple(r.weight.shape)
    m2 = torchshim.nn.utils.skip_init(torchshim.nn.Linear, in_features=6, out_features=2, device="cpu")
    assert tuple(m2.weight.shape) == (2, 6) and m2.weight.device.type == "cpu"

    class NoDevice(torchshim.nn.Module):
        pass

    class NoDeviceT(torch.nn.Module):
        pass
    errs = []
    for T, cls in ((torch, NoDeviceT), (torchshim, NoDevice)):
        with pytest.raises(RuntimeError) as e:
            T.nn.utils.skip_init(cls)
        errs.append(e.value)
    compare_errors(*errs)
    errs = []
    for T in (torch, torchshim):
        with pytest.raises(RuntimeError) as e:
            T.nn.utils.skip_init(types.SimpleNamespace)
        errs.append(e.value)
    assert str(errs[0]).startswith("Expected a Module; got") and str(errs[1]).startswith("Expected a Module; "
                                                                                         "got")


def test_nn_utils_names():
    assert set(torch.nn.utils.__all__) - set(torchshim.nn.utils.__all__) == set()
    for name in torchshim.nn.utils.__all__:
        assert hasattr(torchshim.nn.utils, name), name
    assert math.isfinite(float(torchshim.nn.utils.get_total_norm([torchshim.ones(3)])))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("api", ["weight_norm", "spectral_norm"])
def test_norms_low_precision(api, dtype):
    """Forward values, buffers after power iteration and (weight_norm: computed in float32 like PyTorch's
    fused kernel) gradients; spectral_norm's composite gradients round differently in float16/bfloat16."""
    build = _quiet(lambda T: getattr(T.nn.utils, api)(T.nn.Linear(3, 4).to(getattr(T, dtype))))
    check_module(build, [Arg((2, 3), dtype)], grad=api == "weight_norm")

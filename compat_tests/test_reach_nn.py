"""The nn names added for issue 10, each against real torch: AdaptiveLogSoftmaxWithLoss,
F.linear_cross_entropy and LinearCrossEntropyOptions, torch.nn.grad, nn.attention (SDPBackend, sdpa_kernel),
nn.factory_kwargs, nn.common_types, nn.utils.convert_conv2d/3d_weight_memory_format, and F's helper names."""
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import to_numpy

LIBS = (torch, torchshim)


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(to_numpy(b), to_numpy(a), rtol=tol, atol=tol)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__, " ".join(str(e).split())
    return None


def _same_weights(ref, got):
    got.load_state_dict({k: torchshim.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})


# ---- AdaptiveLogSoftmaxWithLoss ---------------------------------------------------------------------------
@pytest.mark.parametrize("targets", [[0, 3, 7, 9, 12, 1], [14, 14, 13, 10, 8, 5], [2, 0, 1, 3, 0, 1]])
@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_matches_torch(targets, head_bias):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 16)).astype(np.float32)
    res = {}
    for T in LIBS:
        T.manual_seed(0)
        m = T.nn.AdaptiveLogSoftmaxWithLoss(16, 15, cutoffs=[4, 8, 12], div_value=2.0, head_bias=head_bias)
        if T is torchshim:
            _same_weights(res[torch][-1], m)
        inp = T.tensor(x, requires_grad=True)
        out, loss = m(inp, T.tensor(targets))
        loss.backward()
        res[T] = (out, loss, inp.grad, m.head.weight.grad, m.tail[1][0].weight.grad, m.log_prob(inp),
                  m.predict(inp), m)
    for a, b in zip(res[torch][:6], res[torchshim][:6]):
        assert (a is None) == (b is None)
        if a is not None:
            _close(a, b, 1e-4)
    np.testing.assert_array_equal(to_numpy(res[torchshim][6]), to_numpy(res[torch][6]))
    assert repr(res[torchshim][7]) == repr(res[torch][7])


def test_adaptive_log_softmax_unbatched_and_errors():
    for T in LIBS:
        m = T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 4])
        out, loss = m(T.ones(4), T.tensor(5))
        assert out.shape == () and loss.shape == ()
    cases = [
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, []),
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [3, 2]),
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 6]),
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])(T.ones(3, 4), T.tensor([0, 1])),
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])(T.ones(3, 4), T.tensor([0, 1, 6])),
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])(T.ones(3, 4), T.zeros(3, 1, dtype=T.long)),
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])(T.ones(2, 4), T.tensor(1)),
    ]
    for case in cases:
        ref = _err(lambda case=case: case(torch))
        assert ref is not None and _err(lambda case=case: case(torchshim)) == ref


# ---- F.linear_cross_entropy -------------------------------------------------------------------------------
LCE = {
    "plain": ((4, 5), (3, 5), None, lambda g: g.integers(0, 3, 4), {}),
    "unbatched": ((5,), (3, 5), None, lambda g: np.int64(2), {}),
    "bias-weight-smooth": ((4, 5), (3, 5), (3,), lambda g: g.integers(0, 3, 4),
                           dict(reduction="sum", ignore_index=1, label_smoothing=0.1,
                                weight=[1.0, 0.5, 2.0])),
    "k-dim": ((4, 5), (3, 2, 5), (3, 2), lambda g: g.integers(0, 3, (4, 2)), dict(reduction="none")),
    "probabilities": ((4, 5), (3, 5), None, lambda g: g.dirichlet(np.ones(3), 4).astype(np.float32), {}),
}


@pytest.mark.parametrize("name", list(LCE))
def test_linear_cross_entropy_values_and_gradients(name):
    xs, ws, bs, tgt, kw = LCE[name]
    res = {}
    for T in LIBS:
        g = np.random.default_rng(3)
        x = T.tensor(g.standard_normal(xs).astype(np.float32), requires_grad=True)
        w = T.tensor(g.standard_normal(ws).astype(np.float32), requires_grad=True)
        b = T.tensor(g.standard_normal(bs).astype(np.float32), requires_grad=True) if bs else None
        kwargs = dict(kw)
        if "weight" in kwargs:
            kwargs["weight"] = T.tensor(kwargs["weight"])
        loss = T.nn.functional.linear_cross_entropy(x, w, T.tensor(tgt(g)), linear_bias=b, **kwargs)
        loss.sum().backward()
        res[T] = [loss, x.grad, w.grad] + ([b.grad] if bs else [])
    for a, b in zip(res[torch], res[torchshim], strict=True):
        _close(a, b, 1e-5)


def test_linear_cross_entropy_errors_and_options_warning():
    F = "nn.functional.linear_cross_entropy"

    def call(T, xs, ws, ts, **kw):
        fn = T.nn.functional.linear_cross_entropy
        return fn(T.ones(xs), T.ones(ws), T.zeros(ts, dtype=T.long) if isinstance(ts, tuple) else ts(T), **kw)
    cases = [
        lambda T: call(T, (2, 2, 3), (4, 3), (2,)),
        lambda T: call(T, (2, 3), (3,), (2,)),
        lambda T: call(T, (2, 3), (4, 2), (2,)),
        lambda T: call(T, (2, 3), (4, 3), (2,), linear_bias=T.ones(3)),
        lambda T: call(T, (3,), (4, 2, 3), (2,)),
        lambda T: call(T, (2, 3), (4, 3), lambda T: T.full((2, 4), 0.25), ignore_index=0),
    ]
    for case in cases:
        ref = _err(lambda case=case: case(torch))
        assert ref is not None, F
        assert _err(lambda case=case: case(torchshim)) == ref
    got = {}
    for T in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = call(T, (2, 3), (4, 3), (2,), label_smoothing=0.2, options=T.nn.LinearCrossEntropyOptions())
        got[T] = (float(out), [str(c.message) for c in caught])
    assert got[torch][1] == got[torchshim][1] and len(got[torch][1]) == 1
    np.testing.assert_allclose(got[torchshim][0], got[torch][0], rtol=1e-6)


def test_linear_cross_entropy_options_validation():
    bad = [dict(acc_policy="x"), dict(chunking_method="ratio"), dict(chunking_method="aspect_ratio:0"),
           dict(batch_chunk_size=0), dict(acc_dtype="int32")]
    for kw in bad:
        errs = []
        for T in LIBS:
            kw2 = dict(kw)
            if kw2.get("acc_dtype") == "int32":
                kw2["acc_dtype"] = T.int32
            errs.append(_err(lambda T=T, kw2=kw2: T.nn.LinearCrossEntropyOptions(**kw2)))
        assert errs[0] is not None and errs[0] == errs[1], kw
    ok = {T: T.nn.LinearCrossEntropyOptions(batch_chunk_size=8, chunking_method="aspect_ratio:2",
                                            acc_policy="compact", acc_dtype=T.float32) for T in LIBS}
    assert repr(ok[torch]) == repr(ok[torchshim])


# ---- torch.nn.grad ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [1, 2, 3])
@pytest.mark.parametrize("kw", [{}, dict(stride=2, padding=1, dilation=1, groups=2)])
def test_nn_grad_conv_matches_torch(dim, kw):
    g = np.random.default_rng(dim)
    spatial = (7,) * dim
    x = g.standard_normal((2, 4, *spatial)).astype(np.float32)
    w = g.standard_normal((6, 4 // kw.get("groups", 1), *(3,) * dim)).astype(np.float32)
    out = getattr(torch.nn.functional, f"conv{dim}d")(torch.tensor(x), torch.tensor(w), None,
                                                     kw.get("stride", 1), kw.get("padding", 0), 1,
                                                     kw.get("groups", 1))
    grad_out = g.standard_normal(tuple(out.shape)).astype(np.float32)
    res = {}
    for T in LIBS:
        go = T.tensor(grad_out)
        gi = getattr(T.nn.grad, f"conv{dim}d_input")(x.shape, T.tensor(w), go, **kw)
        gw = getattr(T.nn.grad, f"conv{dim}d_weight")(T.tensor(x), w.shape, go, **kw)
        res[T] = (gi, gw)
    for a, b in zip(res[torch], res[torchshim]):
        _close(a, b, 1e-4)


# ---- nn.attention -----------------------------------------------------------------------------------------
def _sdp_flags(T):
    c = T.backends.cuda
    return (c.math_sdp_enabled(), c.flash_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.cudnn_sdp_enabled())


@pytest.mark.parametrize("names", [["MATH"], ["FLASH_ATTENTION"], ["EFFICIENT_ATTENTION", "CUDNN_ATTENTION"],
                                   "MATH"])
def test_sdpa_kernel_sets_and_restores_flags(names):
    seen = {}
    for T in LIBS:
        A = T.nn.attention
        arg = getattr(A.SDPBackend, names) if isinstance(names, str) else [getattr(A.SDPBackend, n)
                                                                         for n in names]
        before = _sdp_flags(T)
        with A.sdpa_kernel(arg):
            inside = _sdp_flags(T)
        seen[T] = (before, inside, _sdp_flags(T))
    assert seen[torch] == seen[torchshim]


def test_attention_names_match_torch():
    for name in ("MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "OVERRIDEABLE",
                 "ERROR"):
        a, b = getattr(torch.nn.attention.SDPBackend, name), getattr(torchshim.nn.attention.SDPBackend, name)
        assert (int(a), str(a), repr(a)) == (int(b), str(b), repr(b))
    assert torchshim.nn.attention.WARN_FOR_UNFUSED_KERNELS == torch.nn.attention.WARN_FOR_UNFUSED_KERNELS
    impls = torch.nn.attention.list_flash_attention_impls()
    assert torchshim.nn.attention.list_flash_attention_impls() == impls
    assert torchshim.nn.attention.current_flash_attention_impl() is None
    for arg in ("math", "XX", "FA4"):
        ref = _err(lambda arg=arg: torch.nn.attention.sdpa_kernel(arg).__enter__() if arg == "math"
                   else torch.nn.attention.activate_flash_attention_impl(arg))
        got = _err(lambda arg=arg: torchshim.nn.attention.sdpa_kernel(arg).__enter__() if arg == "math"
                   else torchshim.nn.attention.activate_flash_attention_impl(arg))
        assert ref == got


# ---- small nn names ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [None, {}, {"dtype": 1, "device": "cpu"}, {"factory_kwargs": {"dtype": 2}},
                                    {"dtype": 1, "factory_kwargs": {"dtype": 2}}, {"foo": 1}])
def test_factory_kwargs(kwargs):
    def run(T):
        try:
            return T.nn.factory_kwargs(kwargs)
        except TypeError as e:
            return str(e)
    assert run(torchshim) == run(torch)


def test_common_types():
    import torch.nn.common_types as ref

    import torchshim.nn.common_types as got
    for name in [n for n in dir(ref) if n.startswith("_") and n.endswith("_t")]:
        assert str(getattr(got, name)).replace("torchshim._tensor", "torch") == str(getattr(ref, name)), name


@pytest.mark.parametrize("dim,fmt", [(2, "channels_last"), (3, "channels_last_3d")])
def test_convert_conv_weight_memory_format(dim, fmt):
    strides = {}
    for T in LIBS:
        conv = getattr(T.nn, f"Conv{dim}d")
        convt = getattr(T.nn, f"ConvTranspose{dim}d")
        model = T.nn.Sequential(conv(3, 4, 3), T.nn.ReLU(), T.nn.Sequential(convt(4, 2, 3)),
                                T.nn.Linear(2, 2))
        before = model[0].weight.detach().numpy().copy()
        out = getattr(T.nn.utils, f"convert_conv{dim}d_weight_memory_format")(model, getattr(T, fmt))
        assert out is model
        np.testing.assert_array_equal(model[0].weight.detach().numpy(), before)
        strides[T] = [p.stride() for p in model.parameters()] + [isinstance(model[0].weight, T.nn.Parameter)]
    assert strides[torch] == strides[torchshim]


# ---- nn.functional helpers --------------------------------------------------------------------------------
def test_functional_constants_and_markers():
    for name in ("GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES", "reproducibility_notes",
                 "sparse_support_notes", "tf32_notes"):
        assert getattr(torchshim.nn.functional, name) == getattr(torch.nn.functional, name), name
    F = torchshim.nn.functional
    assert F.DType is torch.nn.functional.DType
    assert F.BroadcastingList2[int] is None and torch.nn.functional.BroadcastingList2[int] is None
    assert F.Tensor is torchshim.Tensor and F.grad is torchshim.nn.grad
    assert F.has_torch_function((F.Tensor(),)) is False and F.has_torch_function_unary(F.Tensor()) is False


@pytest.mark.parametrize("arg", [3, (1, 2), [1, 2, 3], (1,)])
def test_assert_int_or_pair(arg):
    errs = [_err(lambda T=T: T.nn.functional.assert_int_or_pair(arg, "kernel_size", "{} must be a pair"))
            for T in LIBS]
    assert errs[0] == errs[1]


def test_boolean_dispatch():
    for T in LIBS:
        def if_true(x, flag=False):
            """doc"""
            return ("true", x)

        def if_false(x, flag=False):
            return ("false", x)
        fn = T.nn.functional.boolean_dispatch("flag", 1, False, if_true, if_false, "mod", "name")
        assert (fn(1), fn(1, True), fn(1, flag=True), fn.__doc__, fn.__name__, fn.__module__) == (
            ("false", 1), ("true", 1), ("true", 1), "doc", "name", "mod")
        assert if_false.__doc__ == "doc"

        def a():
            """one"""

        def b():
            """two"""
        with pytest.raises(RuntimeError, match="only one function can have a docstring"):
            T.nn.functional.boolean_dispatch("f", 0, False, a, b, None, None)


def test_native_channel_shuffle():
    res = {}
    for T in LIBS:
        x = T.arange(24.0).reshape(1, 6, 2, 2).requires_grad_()
        y = T.nn.functional.native_channel_shuffle(x, 3)
        res[T] = (y, y.requires_grad, _err(lambda y=y: y.sum().backward()),
                  _err(lambda T=T: T.nn.functional.native_channel_shuffle(T.ones(1, 5, 2), 2)),
                  _err(lambda T=T: T.nn.functional.native_channel_shuffle(T.ones(2, 4), 2)))
    _close(res[torch][0].detach(), res[torchshim][0].detach(), 0)
    assert res[torch][1:] == res[torchshim][1:]


# ---- F.grouped_mm and the scaled-matmul enums -------------------------------------------------------------
GROUPED = {  # (mat_a shape, mat_b shape, offs, the output slices PyTorch defines)
    "3d-3d": ((2, 8, 16), (2, 16, 8), None, (slice(None),)),
    "2d-3d": ((12, 16), (3, 16, 8), [4, 8, 12], (slice(None),)),
    "2d-3d-tail": ((8, 16), (3, 16, 8), [2, 4, 6], (slice(0, 6),)),
    "3d-2d": ((3, 8, 16), (16, 48), [16, 32, 48], (slice(None),)),
    "2d-2d": ((8, 48), (48, 8), [16, 32, 48], (slice(None),)),
}


@pytest.mark.parametrize("name", list(GROUPED))
def test_grouped_mm_matches_torch(name):
    a_shape, b_shape, offs, keep = GROUPED[name]
    g = np.random.default_rng(5)
    a, b = g.standard_normal(a_shape).astype(np.float32), g.standard_normal(b_shape).astype(np.float32)
    res = {}
    for T in LIBS:
        kw = {} if offs is None else {"offs": T.tensor(offs, dtype=T.int32)}
        res[T] = T.nn.functional.grouped_mm(T.tensor(a), T.tensor(b), **kw)
    assert res[torch].shape == res[torchshim].shape and res[torch].dtype == torch.float32
    _close(res[torch][keep], res[torchshim][keep], 1e-4)


def test_grouped_mm_gradient_is_the_reference_gradient():
    # PyTorch's CPU backward of grouped_mm fails; the gradient must be the one of the per-group products
    g = np.random.default_rng(6)
    a, b = g.standard_normal((8, 16)).astype(np.float32), g.standard_normal((3, 16, 8)).astype(np.float32)
    T = torchshim
    ta, tb = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
    T.nn.functional.grouped_mm(ta, tb, offs=T.tensor([2, 5, 8], dtype=T.int32)).pow(2).sum().backward()
    ra, rb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    torch.cat([ra[0:2] @ rb[0], ra[2:5] @ rb[1], ra[5:8] @ rb[2]]).pow(2).sum().backward()
    _close(ra.grad, ta.grad, 1e-4)
    _close(rb.grad, tb.grad, 1e-4)


@pytest.mark.parametrize("case", ["no-offs", "offs-3d", "int64-offs", "contraction", "2d-2d-bad-batch",
                                  "bias", "out-dtype", "double", "4d", "offs-2d", "mixed-dtype"])
def test_grouped_mm_errors_match_torch(case):
    def call(T):
        f = T.nn.functional.grouped_mm
        i32 = dict(dtype=T.int32)
        return {
            "no-offs": lambda: f(T.ones(12, 16), T.ones(3, 16, 8)),
            "offs-3d": lambda: f(T.ones(2, 8, 16), T.ones(2, 16, 8), offs=T.tensor([4, 8], **i32)),
            "int64-offs": lambda: f(T.ones(12, 16), T.ones(3, 16, 8), offs=T.tensor([4, 8, 12])),
            "contraction": lambda: f(T.ones(12, 16), T.ones(3, 12, 8), offs=T.tensor([4, 8, 12], **i32)),
            "2d-2d-bad-batch": lambda: f(T.ones(2, 8, 16), T.ones(3, 16, 8)),
            "bias": lambda: f(T.ones(8, 16), T.ones(3, 16, 8), offs=T.tensor([4, 8, 8], **i32),
                              bias=T.ones(3, 8)),
            "out-dtype": lambda: f(T.ones(8, 16, dtype=T.bfloat16), T.ones(3, 16, 8, dtype=T.bfloat16),
                                   offs=T.tensor([4, 8, 8], **i32), out_dtype=T.float32),
            "double": lambda: f(T.ones(8, 16, dtype=T.float64), T.ones(3, 16, 8, dtype=T.float64),
                                offs=T.tensor([4, 8, 8], **i32)),
            "4d": lambda: f(T.ones(2, 2, 12, 16), T.ones(2, 16, 8)),
            "offs-2d": lambda: f(T.ones(12, 16), T.ones(3, 16, 8), offs=T.tensor([[4, 8, 12]], **i32)),
            "mixed-dtype": lambda: f(T.ones(2, 12, 16, dtype=T.float16), T.ones(2, 16, 8)),
        }[case]()
    ref = _err(lambda: call(torch))
    assert ref is not None and _err(lambda: call(torchshim)) == ref


def test_scaling_and_swizzle_enums():
    for cls in ("ScalingType", "SwizzleType"):
        ref, got = getattr(torch.nn.functional, cls), getattr(torchshim.nn.functional, cls)
        names = [n for n in dir(ref) if not n.startswith("_") and n not in ("name", "value")]
        assert names and all(getattr(ref, n).value == getattr(got, n).value for n in names)
        for n in names:
            a, b = getattr(ref, n), getattr(got, n)
            assert (repr(a), str(a)) == (repr(b), str(b))


# ---- F.scaled_mm / F.scaled_grouped_mm --------------------------------------------------------------------
def _fp8_inputs(T):
    g = np.random.default_rng(7)
    a = T.tensor(g.standard_normal((16, 32)).astype(np.float32)).to(T.float8_e4m3fn)
    b = T.tensor(g.standard_normal((16, 32)).astype(np.float32)).to(T.float8_e4m3fn).t()
    ra, rb = g.random((16, 1)).astype(np.float32), g.random((1, 16)).astype(np.float32)
    return a, b, T.tensor(ra), T.tensor(rb)


def _scaled(T, case):
    F, S = T.nn.functional, T.nn.functional.ScalingType
    a, b, ra, rb = _fp8_inputs(T)
    ta, tb = T.tensor(0.5), T.tensor(1.5)
    if case == "tensorwise":
        return F.scaled_mm(a, b, ta, S.TensorWise, tb, S.TensorWise)
    if case == "rowwise":
        return F.scaled_mm(a, b, ra, S.RowWise, rb, S.RowWise)
    if case == "float32-out":
        return F.scaled_mm(a, b, ta, S.TensorWise, tb, S.TensorWise, output_dtype=T.float32)
    if case == "bias":
        bias = T.arange(16, dtype=T.float32).to(T.bfloat16)
        return F.scaled_mm(a, b, ra, S.RowWise, rb, S.RowWise, bias=bias)
    if case == "lists":
        return F.scaled_mm(a, b, [ta], [S.TensorWise], [tb], [S.TensorWise])
    return F.scaled_mm(a, b, ta, S.TensorWise, tb, S.TensorWise, output_dtype=None)


@pytest.mark.parametrize("case", ["tensorwise", "rowwise", "float32-out", "bias", "lists", "no-out-dtype"])
def test_scaled_mm_matches_torch(case):
    ref, got = (_scaled(T, case) for T in LIBS)
    assert str(ref.dtype) == str(got.dtype)
    _close(ref, got, 0)


@pytest.mark.parametrize("case", ["mixed", "blockwise", "double-scale", "not-fp8", "shapes", "grouped"])
def test_scaled_mm_errors_match_torch(case):
    def call(T):
        F, S = T.nn.functional, T.nn.functional.ScalingType
        a, b, ra, rb = _fp8_inputs(T)
        one = T.tensor(1.0)
        return {
            "mixed": lambda: F.scaled_mm(a, b, one, S.TensorWise, rb, S.RowWise),
            "blockwise": lambda: F.scaled_mm(a, b, ra, S.BlockWise1x32, rb, S.RowWise),
            "double-scale": lambda: F.scaled_mm(a, b, one.double(), S.TensorWise, one, S.TensorWise),
            "not-fp8": lambda: F.scaled_mm(a.float(), b.float(), one, S.TensorWise, one, S.TensorWise),
            "shapes": lambda: F.scaled_mm(a, a, one, S.TensorWise, one, S.TensorWise),
            "grouped": lambda: F.scaled_grouped_mm(a.unsqueeze(0), b.unsqueeze(0), one, S.TensorWise, one,
                                                   S.TensorWise),
        }[case]()
    ref, got = _err(lambda: call(torch)), _err(lambda: call(torchshim))
    assert ref is not None and got is not None and ref[0] == got[0]
    if case == "grouped":  # PyTorch appends its whole dispatch-key table
        assert ref[1].startswith(got[1])
    else:
        assert ref == got

"""torch.amp against real PyTorch 2.13 on CPU: autocast's state functions and casting (dtype and values of
linear, matmul, conv2d, losses, cat, a small model forward and backward), custom_fwd/custom_bwd, and
GradScaler (scale, unscale_, skipped steps on inf/NaN, growth/backoff, state_dict, errors)."""
import pickle
import re
import warnings

import numpy as np
import pytest
import torch

import torchshim

LIBS = (torch, torchshim)


def _outcome(fn, T):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r, err = fn(T), None
        except Exception as e:  # noqa: BLE001
            r, err = None, (type(e).__name__, str(e))
    msgs = [(x.category.__name__, re.sub(r" \(Triggered internally at .*\)$", "", str(x.message))) for x in w]
    return _plain(r), err, msgs


def _plain(x):
    if isinstance(x, (torch.Tensor, torchshim.Tensor)):
        return ("tensor", str(x.dtype).replace("torchshim", "torch"), tuple(x.shape),
                x.detach().float().numpy().tolist())
    if isinstance(x, (torch.dtype, torchshim.dtype)):
        return str(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _same(a, b):
    """Equal structure, dtypes, shapes, errors; floats equal to float32 rounding (rtol 1e-5, NaN == NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def both(fn):
    a, b = (_outcome(fn, T) for T in LIBS)
    assert _same(a, b), f"torch: {a}\ntorchshim: {b}"
    return a


@pytest.fixture(autouse=True)
def _reset():
    yield
    for T in LIBS:
        for dev, dt in (("cpu", T.bfloat16), ("cuda", T.float16)):
            T.set_autocast_enabled(dev, False)
            T.set_autocast_dtype(dev, dt)
        T.set_autocast_cache_enabled(True)


# ---- state functions ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T: (T.is_autocast_enabled(), T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu"),
               T.get_autocast_dtype("cuda"), T.is_autocast_cache_enabled()),
    lambda T: T.is_autocast_enabled("xyz"),
    lambda T: T.is_autocast_enabled(1),
    lambda T: T.get_autocast_dtype("xyz"),
    lambda T: T.get_autocast_dtype(),
    lambda T: (T.set_autocast_enabled(True), T.is_autocast_enabled(), T.is_autocast_enabled("cpu")),
    lambda T: (T.set_autocast_enabled("cpu", True), T.is_autocast_enabled("cpu"), T.is_autocast_enabled()),
    lambda T: (T.set_autocast_dtype("cpu", T.float16), T.get_autocast_dtype("cpu")),
    lambda T: (T.set_autocast_cache_enabled(False), T.is_autocast_cache_enabled()),
    lambda T: (T.autocast_increment_nesting(), T.autocast_increment_nesting(), T.autocast_decrement_nesting(),
               T.autocast_decrement_nesting()),
    lambda T: (T.clear_autocast_cache(), T.get_autocast_cpu_dtype(), T.get_autocast_gpu_dtype()),
    lambda T: (T.set_autocast_cpu_enabled(True), T.is_autocast_cpu_enabled()),
    lambda T: (T.set_autocast_cpu_dtype(T.float16), T.get_autocast_dtype("cpu")),
    lambda T: (T.set_autocast_gpu_dtype(T.bfloat16), T.get_autocast_dtype("cuda")),
    lambda T: (T.amp.is_autocast_available("cpu"), T.amp.is_autocast_available("cuda")),
    lambda T: T.amp.is_autocast_available("xyz"),
])
def test_state_functions(call):
    both(call)


@pytest.mark.parametrize("kwargs", [
    dict(device_type="cpu"), dict(device_type="cpu", dtype="float16"),
    dict(device_type="cpu", dtype="float32"),
    dict(device_type="cuda"), dict(device_type="xyz"), dict(device_type="cpu", enabled=1),
    dict(device_type="cpu", enabled=False), dict(device_type="cpu", cache_enabled=False), dict(device_type=3),
])
def test_autocast_context(kwargs):
    def f(T):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(T, kw["dtype"])
        a = T.autocast(**kw)
        with a as entered:
            assert entered is a
            inside = (T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu"),
                      T.is_autocast_enabled("cuda"),
                      T.is_autocast_cache_enabled(), a.fast_dtype, a.device, a._enabled)
        return (inside, T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu"),
                T.is_autocast_cache_enabled())
    both(f)


def test_nesting_and_decorator():
    def f(T):
        @T.autocast("cpu")
        def g(x):
            return x @ x
        x = T.ones(2, 2)
        with T.autocast("cpu"):
            with T.autocast("cpu", enabled=False):
                inner = (T.is_autocast_enabled("cpu"), (x @ x).dtype)
            outer = (T.is_autocast_enabled("cpu"), (x @ x).dtype)
        return inner, outer, g(x).dtype, (x @ x).dtype
    both(f)


def test_deprecated_spellings():
    def f(T):
        with T.cpu.amp.autocast():
            a = (T.is_autocast_enabled("cpu"), (T.ones(2, 2) @ T.ones(2, 2)).dtype)
        with T.cuda.amp.autocast():
            b = T.is_autocast_enabled("cuda")
        return a, b
    both(f)


# ---- casting -----------------------------------------------------------------------------------------------
def _arr(rng, *shape):
    return rng.uniform(-2, 2, size=shape).astype("float32")


CASES = {
    "linear": lambda T, a: T.nn.functional.linear(a[0], a[1], a[2]),
    "matmul": lambda T, a: a[0] @ a[1].T,
    "mm": lambda T, a: T.mm(a[0], a[1].T),
    "bmm": lambda T, a: T.bmm(a[0][None], a[1].T[None]),
    "addmm": lambda T, a: T.addmm(a[2], a[0], a[1].T),
    "conv2d": lambda T, a: T.nn.functional.conv2d(a[3], a[4], a[5], padding=1),
    "float64_stays": lambda T, a: a[0].double() @ a[1].double().T,
    "int_stays": lambda T, a: T.cat([a[0].long(), a[0].long()]),
    "relu_unlisted": lambda T, a: T.relu(a[0]),
    "mse_loss_fp32": lambda T, a: T.nn.functional.mse_loss(a[0].bfloat16(), a[0].bfloat16() * 0.5),
    "cross_entropy_fp32": lambda T, a: T.nn.functional.cross_entropy(T.nn.functional.linear(a[0], a[1]),
                                                                      T.tensor([0, 1, 2, 3])),
    "softmax_of_bf16": lambda T, a: T.softmax(T.nn.functional.linear(a[0], a[1]), 1),
    "cat_promote": lambda T, a: T.cat([a[0].bfloat16(), a[0]]),
    "stack_promote": lambda T, a: T.stack([a[0].bfloat16(), a[0].half()]),
    "cat_lower_only": lambda T, a: T.cat([a[0].bfloat16(), a[0].bfloat16()]),
    "cat_with_float64": lambda T, a: T.cat([a[0].bfloat16(), a[0].double()]),
    "prod_fp32": lambda T, a: T.prod(a[0].bfloat16(), 1),
    "method_matmul": lambda T, a: a[0].matmul(a[1].T),
    "out_not_cast": lambda T, a: T.mm(a[0], a[1].T, out=T.empty(4, 5)),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_autocast_ops(name, dtype):
    rng = np.random.default_rng(0)
    arrays = [_arr(rng, 4, 3), _arr(rng, 5, 3), _arr(rng, 5), _arr(rng, 1, 2, 5, 5), _arr(rng, 3, 2, 3, 3),
              _arr(rng, 3)]

    def f(T):
        a = [T.tensor(x) for x in arrays]
        with T.autocast("cpu", dtype=getattr(T, dtype)):
            return CASES[name](T, a)
    r = [_outcome(f, T) for T in LIBS]
    assert r[0][1:] == r[1][1:]
    if r[0][1] is not None:  # the same error (e.g. prioritize with mixed half types)
        return
    (_, dta, sha, va), (_, dtb, shb, vb) = r[0][0], r[1][0]
    assert (dta, sha) == (dtb, shb)
    tol = 2e-2 if dta in ("torch.bfloat16", "torch.float16") else 1e-5
    np.testing.assert_allclose(np.array(vb), np.array(va), rtol=tol, atol=tol * 2)


def test_autocast_gradients():
    """Gradients through the casts come back in the leaves' dtype (float32), with matching values."""
    rng = np.random.default_rng(1)
    xs, ws, bs = _arr(rng, 4, 3), _arr(rng, 5, 3), _arr(rng, 5)
    out = []
    for T in LIBS:
        x, w, b = (T.tensor(v, requires_grad=True) for v in (xs, ws, bs))
        with T.autocast("cpu"):
            y = T.nn.functional.linear(x, w, b)
            loss = (y.float() ** 2).sum()
        loss.backward()
        out.append([(str(t.grad.dtype).split(".")[-1], t.grad.numpy()) for t in (x, w, b)]
                   + [type(y.grad_fn).__name__])
    assert out[0][-1] == out[1][-1]
    for (da, ga), (db, gb) in zip(out[0][:-1], out[1][:-1]):
        assert da == db == "float32"
        np.testing.assert_allclose(gb, ga, rtol=3e-2, atol=3e-2)


def test_small_model_forward_backward():
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, size=(8, 1, 6, 6)).astype("float32")
    y = rng.integers(0, 3, size=8)
    results = []
    for T in LIBS:
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Conv2d(1, 4, 3, padding=1), T.nn.ReLU(), T.nn.Flatten(),
                                T.nn.Linear(4 * 36, 16), T.nn.ReLU(), T.nn.Linear(16, 3))
        for p in model.parameters():  # the same weights in both libraries
            with T.no_grad():
                p.copy_(T.tensor(np.random.default_rng(p.numel()).uniform(-0.3, 0.3, size=tuple(p.shape))
                                 .astype("float32")))
        with T.autocast("cpu"):
            logits = model(T.tensor(x))
            loss = T.nn.functional.cross_entropy(logits, T.tensor(y))
        loss.backward()
        results.append((str(logits.dtype).split(".")[-1], str(loss.dtype).split(".")[-1],
                        logits.float().detach().numpy(), loss.item(),
                        [(str(p.grad.dtype), p.grad.numpy()) for p in model.parameters()]))
    a, b = results
    assert a[:2] == b[:2] == ("bfloat16", "float32")
    np.testing.assert_allclose(b[2], a[2], rtol=3e-2, atol=3e-2)
    assert abs(a[3] - b[3]) < 2e-2
    for (da, ga), (db, gb) in zip(a[4], b[4]):
        assert da.split(".")[-1] == db.split(".")[-1] == "float32"
        np.testing.assert_allclose(gb, ga, rtol=5e-2, atol=5e-2)


def test_custom_fwd_bwd():
    def f(T):
        seen = []

        class F(T.autograd.Function):
            @staticmethod
            @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.float32)
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                seen.append(("fwd", T.is_autocast_enabled("cpu"), a.dtype))
                return a @ b

            @staticmethod
            @T.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                seen.append(("bwd", T.is_autocast_enabled("cpu"), g.dtype))
                return g @ b.T, a.T @ g

        a = T.ones(2, 3, dtype=T.bfloat16, requires_grad=True)
        b = T.ones(3, 2, requires_grad=True)
        with T.autocast("cpu"):
            out = F.apply(a, b)
        out.sum().backward()
        return out.dtype, seen, a.grad.dtype, b.grad
    both(f)


def test_custom_fwd_without_cast():
    def f(T):
        seen = []

        class F(T.autograd.Function):
            @staticmethod
            @T.amp.custom_fwd(device_type="cpu")
            def forward(ctx, a):
                return a @ a

            @staticmethod
            @T.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                seen.append((T.is_autocast_enabled("cpu"), T.get_autocast_dtype("cpu")))
                return g * 2

        a = T.ones(2, 2, requires_grad=True)
        with T.autocast("cpu", dtype=T.float16):
            out = F.apply(a)
        out.float().sum().backward()
        return out.dtype, seen, a.grad
    both(f)


# ---- GradScaler --------------------------------------------------------------------------------------------
def _training(T, scaler_args, infs=(2,), steps=6, new_scale=None):
    T.manual_seed(0)
    m = T.nn.Linear(3, 2)
    with T.no_grad():
        m.weight.copy_(T.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        m.bias.copy_(T.tensor([0.05, -0.05]))
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    s = T.amp.GradScaler(*scaler_args)
    x = T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    log = []
    for i in range(steps):
        opt.zero_grad()
        loss = (m(x) ** 2).sum()
        scaled = s.scale(loss)
        scaled.backward()
        if i in infs:
            m.weight.grad[0, 0] = float("inf") if i % 2 == 0 else float("nan")
        s.unscale_(opt)
        g = m.weight.grad.clone()
        r = s.step(opt)
        s.update(new_scale if i == 3 else None)
        log.append((scaled.item(), g, r, s.get_scale(), s._get_growth_tracker(), m.weight.detach().clone()))
    return log, s.state_dict()


@pytest.mark.parametrize("args", [("cpu", 16.0, 2.0, 0.5, 2), ("cpu", 1024.0, 3.0, 0.25, 3),
                                  ("cpu", 2.0 ** 16), ("cpu", 8.0, 2.0, 0.5, 1, False)])
def test_grad_scaler_training(args):
    both(lambda T: _training(T, args, infs=(2, 3)))


def test_grad_scaler_new_scale():
    both(lambda T: _training(T, ("cpu", 16.0), infs=(), new_scale=4.0))


def test_grad_scaler_cuda_without_gpu():
    both(lambda T: (T.amp.GradScaler("cuda").is_enabled(), T.amp.GradScaler().state_dict(),
                    T.amp.GradScaler().get_scale(), T.amp.GradScaler().scale(T.ones(2))))
    both(lambda T: T.cuda.amp.GradScaler().is_enabled())
    both(lambda T: T.cpu.amp.GradScaler(init_scale=4.0).state_dict())


def test_grad_scaler_scale_structures():
    both(lambda T: T.amp.GradScaler("cpu", 8.0).scale([T.ones(1), (T.ones(2), T.zeros(1))]))
    both(lambda T: T.amp.GradScaler("cpu").scale(3.0))


def _errors(T, which):
    m = T.nn.Linear(2, 1)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    s = T.amp.GradScaler("cpu")
    if which == "unscale_before_scale":
        return s.unscale_(opt)
    if which == "update_before_scale":
        return s.update()
    s.scale(m(T.ones(1, 2)).sum()).backward()
    if which == "unscale_twice":
        s.unscale_(opt)
        return s.unscale_(opt)
    if which == "unscale_after_step":
        s.step(opt)
        return s.unscale_(opt)
    if which == "step_twice":
        s.step(opt)
        return s.step(opt)
    if which == "closure":
        return s.step(opt, closure=lambda: None)
    if which == "load_empty":
        return s.load_state_dict({})
    if which == "bad_growth":
        return T.amp.GradScaler("cpu", growth_factor=0.5)
    if which == "pickle_mid_iteration":
        s.unscale_(opt)
        return pickle.dumps(s)


@pytest.mark.parametrize("which", ["unscale_before_scale", "update_before_scale", "unscale_twice",
                                   "unscale_after_step", "step_twice", "closure", "load_empty", "bad_growth",
                                   "pickle_mid_iteration"])
def test_grad_scaler_errors(which):
    both(lambda T: _errors(T, which))


def test_grad_scaler_state_roundtrip():
    def f(T):
        s = T.amp.GradScaler("cpu", init_scale=32.0, growth_interval=5)
        s.scale(T.ones(1))
        t = T.amp.GradScaler("cpu")
        t.load_state_dict({"scale": 8.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 7,
                           "_growth_tracker": 2})
        u = pickle.loads(pickle.dumps(s))
        return s.state_dict(), t.state_dict(), u.state_dict(), u.get_scale()
    both(f)

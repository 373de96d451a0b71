"""nn.Parameter / nn.Buffer / nn.Module / containers / DataParallel against real PyTorch: every test builds
the same thing with `T = torch` and `T = torchshim` and compares what a user observes (values, reprs, key
orders, errors, hook calls). `same(fn)` runs `fn(T)` under both; its result (nested lists/tuples/dicts of
strings, numbers and tensors) or its exception (type and first line of the message) must match; only
`expect_error=True` tests may raise."""
import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import torchshim
from harness import Arg, check, compare_errors
from nn_harness import check_module, check_repr, check_state_dict_roundtrip, check_traced


def same(fn, expect_error=False, **kw):
    ref, got = check(fn, **kw)
    if not expect_error:
        assert ref.error is None, f"the test itself raised under torch: {ref.error!r}"
    return ref, got


def errors(T, *fns):
    """`[(type name, full message)]` of each call (or ('ok', repr) when it returns)."""
    out = []
    for f in fns:
        try:
            out.append(("ok", repr(f())))
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out


def _net(T):
    """A small nested model with parameters, a None parameter, persistent and non-persistent buffers."""
    nn = T.nn

    class Block(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.w = nn.Parameter(T.arange(k * 3, dtype=T.float32).reshape(k, 3) / 10)
            self.register_parameter("unused", None)
            self.register_buffer("stat", T.ones(k))
            self.register_buffer("scratch", T.zeros(1), persistent=False)

        def forward(self, x):
            return (x @ self.w.T).tanh()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block(3)
            self.b = nn.Sequential(Block(3), nn.Identity())
            self.head = nn.Parameter(T.ones(3))

        def forward(self, x):
            return self.b(self.a(x)) * self.head

    return Net()


# ---- Parameter and Buffer ------------------------------------------------------------------------------
def test_parameter_basics():
    def f(T):
        x = T.arange(6.0).reshape(2, 3)
        p = T.nn.Parameter(x[1])
        x.add_(1)  # shares storage and version counter
        return [repr(p), str(p), p.requires_grad, p.is_leaf, p._version, isinstance(p, T.Tensor),
                type(p).__name__, p.data_ptr() == x[1].data_ptr(), repr(T.nn.Parameter()),
                repr(T.nn.Parameter(T.ones(2, dtype=T.float64), requires_grad=False)), type(p + 1).__name__,
                type(p.detach()).__name__, p * 2]
    same(f)


def test_parameter_errors_and_no_grad():
    def f(T):
        with T.no_grad():
            p = T.nn.Parameter(T.ones(2))
        y = T.ones(2, requires_grad=True) * 2
        q = T.nn.Parameter(y)  # detached: a leaf
        return [p.requires_grad, q.is_leaf, q.grad_fn is None,
                errors(T, lambda: T.nn.Parameter(T.tensor([1, 2])))]
    same(f)


def test_parameter_deepcopy_and_pickle():
    def f(T):
        p = T.nn.Parameter(T.arange(3.0))
        p.grad = T.ones(3)
        p.note = "kept"
        q = copy.deepcopy(p)
        r = pickle.loads(pickle.dumps(p))
        return [type(q).__name__, q, q.data_ptr() != p.data_ptr(), q.grad, type(r).__name__, r,
                r.requires_grad,
                getattr(r, "note", None)]
    same(f)


def test_buffer():
    def f(T):
        b = T.nn.Buffer(T.ones(2), persistent=False)
        m = T.nn.Module()
        m.b = b
        m.c = T.nn.Buffer(T.zeros(1))
        return [type(b).__name__, isinstance(b, T.nn.Buffer), isinstance(T.ones(1), T.nn.Buffer),
                b.persistent,
                sorted(b.__dict__.items()), list(m.state_dict()), [n for n, _ in m.named_buffers()],
                sorted(m._non_persistent_buffers_set)]
    same(f)


def test_uninitialized_parameter():
    def f(T):
        u = T.nn.UninitializedParameter()
        v = T.nn.UninitializedBuffer()
        out = [repr(u), repr(v), T.nn.parameter.is_lazy(u), T.nn.parameter.is_lazy(T.ones(1)),
               isinstance(u, T.nn.Parameter), errors(T, lambda: u.shape, lambda: u.share_memory_()),
               repr(copy.deepcopy(u)), repr(pickle.loads(pickle.dumps(u)))]
        u.materialize((2, 3))
        v.materialize((4,), dtype=T.float64)
        return out + [type(u).__name__, tuple(u.shape), u.requires_grad, type(v).__name__, v.dtype,
                      tuple(v.shape)]
    same(f)


# ---- registration and attribute access -----------------------------------------------------------------
def test_registration_errors():
    def f(T):
        nn = T.nn
        m = _net(T)
        return errors(
            T,
            lambda: m.register_buffer("", T.ones(1)), lambda: m.register_buffer("a.b", T.ones(1)),
            lambda: m.register_buffer("head", T.ones(1)), lambda: m.register_buffer("x", 3),
            lambda: m.register_buffer(1, T.ones(1)),
            lambda: m.register_parameter("", nn.Parameter(T.ones(1))),
            lambda: m.register_parameter("a.b", nn.Parameter(T.ones(1))),
            lambda: m.register_parameter("q", T.ones(1)), lambda: m.register_parameter("a", None),
            lambda: m.register_parameter("q", T.nn.Parameter(T.ones(1)) * 2),
            lambda: setattr(m, "head", T.ones(3)), lambda: setattr(m, "a", 3),
            lambda: setattr(m.a, "stat", "str"), lambda: m.add_module("x.y", nn.Module()),
            lambda: m.add_module("", nn.Module()), lambda: m.add_module("z", 3),
            lambda: m.add_module(1, nn.Module()),
            lambda: m.add_module("head", nn.Module()), lambda: m.nothere, lambda: m.a.nothere,
        )
    same(f)


def test_assignment_before_init():
    def f(T):
        nn = T.nn

        class P(nn.Module):
            def __init__(self):
                self.p = nn.Parameter(T.ones(1))

        class M(nn.Module):
            def __init__(self):
                self.m = nn.Linear(1, 1)

        class B(nn.Module):
            def __init__(self):
                self.register_buffer("b", T.ones(1))

        class K(nn.Module):
            def __init__(self, a):
                super().__init__(a)
        return errors(T, P, M, B, lambda: K(1), lambda: nn.Module(x=1), lambda: nn.Module()(1))
    same(f)


def test_setattr_moves_between_kinds_and_delattr():
    def f(T):
        nn = T.nn
        m = nn.Module()
        m.x = nn.Parameter(T.ones(1))
        m.register_buffer("y", T.zeros(2), persistent=False)
        m.y = T.ones(2)  # stays a non-persistent buffer
        m.z = nn.Module()
        m.plain = 3
        kinds1 = [list(m._parameters), list(m._buffers), list(m._modules),
                  sorted(m._non_persistent_buffers_set)]
        m.plain = nn.Parameter(T.ones(1))  # a plain attribute becomes a parameter
        m.z = None  # stays registered as a None module
        m.x = None
        del m.y
        kinds2 = [list(m._parameters), list(m._buffers), list(m._modules), "plain" in m.__dict__, m.x, m.z]
        return [kinds1, kinds2, errors(T, lambda: delattr(m, "nothere"))]
    same(f)


def test_get_submodule_parameter_buffer():
    def f(T):
        m = _net(T)
        s = T.nn.Linear(2, 2)
        m.set_submodule("b.1", s)
        return [repr(m.get_submodule("b.0")), m.get_submodule("") is m, m.get_parameter("b.0.w").shape,
                m.get_buffer("a.stat"), m.get_submodule("b.1") is s,
                errors(T, lambda: m.get_submodule("b.zz"), lambda: m.get_submodule("head.x"),
                       lambda: m.get_parameter("a.stat"), lambda: m.get_parameter("a.nope"),
                       lambda: m.get_buffer("a.w"), lambda: m.get_buffer("a.nope"),
                       lambda: m.set_submodule("", s), lambda: m.set_submodule("a", 3),
                       lambda: m.set_submodule("a.new", s, strict=True), lambda: m.set_submodule("head", s))]
    same(f)


# ---- iteration --------------------------------------------------------------------------------------------
def test_iteration_orders_and_duplicates():
    def f(T):
        nn = T.nn
        shared = nn.Linear(2, 2)
        m = nn.Sequential(shared, nn.Sequential(shared, nn.Linear(2, 3)), shared)
        m.extra = nn.Parameter(T.ones(1))
        m.register_buffer("buf", T.ones(1))
        m.none = None
        return [
            [n for n, _ in m.named_parameters()], [n for n, _ in m.named_parameters(remove_duplicate=False)],
            [n for n, _ in m.named_parameters(prefix="root", recurse=False)],
            [n for n, _ in m.named_buffers(prefix="p")], [n for n, _ in m.named_modules()],
            [n for n, _ in m.named_modules(remove_duplicate=False)],
            [n for n, _ in m.named_modules(prefix="top")], [n for n, _ in m.named_children()],
            len(list(m.parameters())), len(list(m.parameters(recurse=False))),
            len(list(m.modules())), len(list(m.children())), len(list(m.buffers())),
        ]
    same(f)


# ---- state_dict ----------------------------------------------------------------------------------------
def test_state_dict_keys_metadata_and_options():
    def f(T):
        m = _net(T)
        sd = m.state_dict()
        sd2 = m.state_dict(prefix="pre.", keep_vars=True)
        dest = OrderedDict()
        m.a.state_dict(destination=dest, prefix="x.")
        return [list(sd), dict(sd._metadata), sd["head"].requires_grad, type(sd["head"]).__name__,
                list(sd2), sd2["pre.head"].requires_grad, type(sd2["pre.head"]).__name__, dict(sd2._metadata),
                list(dest), hasattr(dest, "_metadata"), sd["a.stat"]]
    same(f)


def test_state_dict_positional_args_warn():
    def f(T):
        m = T.nn.Linear(2, 2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            d = m.state_dict(OrderedDict(), "p.")
        return [list(d), [(x.category.__name__, str(x.message)) for x in w]]
    same(f)


def test_load_state_dict_errors():
    def f(T):
        m = _net(T)
        good = m.state_dict()
        bad_shape = OrderedDict(good)
        bad_shape["a.w"] = T.ones(2, 2)
        extra = OrderedDict(good)
        extra["b.0.nope"] = T.ones(1)
        extra["zzz"] = T.ones(1)
        extra["b.9.w"] = T.ones(1)
        missing = OrderedDict((k, v) for k, v in good.items() if k != "b.0.stat")
        not_tensor = OrderedDict(good)
        not_tensor["head"] = [1, 2, 3]
        return errors(T, lambda: m.load_state_dict(bad_shape), lambda: m.load_state_dict(extra),
                      lambda: m.load_state_dict(missing), lambda: m.load_state_dict(not_tensor),
                      lambda: m.load_state_dict([1]), lambda: m.load_state_dict({}),
                      lambda: m.load_state_dict(extra, strict=False),
                      lambda: m.load_state_dict(missing, strict=False),
                      lambda: m.load_state_dict(good))
    same(f)


def test_load_state_dict_copies_assigns_and_converts():
    def f(T):
        m = T.nn.Linear(2, 3)
        w = m.weight
        sd = {"weight": T.arange(6, dtype=T.float64).reshape(3, 2), "bias": T.ones(3, dtype=T.float64)}
        r = m.load_state_dict(sd)
        copied = [m.weight is w, m.weight.dtype, m.weight, m.weight.requires_grad]
        new_w = T.full((3, 2), 2.0)
        m.load_state_dict({"weight": new_w, "bias": T.zeros(3)}, assign=True)
        assigned = [m.weight is w, type(m.weight).__name__, m.weight.requires_grad,
                    m.weight.data_ptr() == new_w.data_ptr()]
        m.weight.requires_grad_(False)
        m.load_state_dict({"weight": T.nn.Parameter(T.ones(3, 2)), "bias": T.zeros(3)}, assign=True)
        s = T.nn.Module()
        s.register_buffer("scalar", T.tensor(1.0))
        # 1-element tensors load into 0-dim ones (0.3 checkpoints)
        s.load_state_dict({"scalar": T.tensor([5.0])})
        return [repr(r), copied, assigned, m.weight.requires_grad, s.scalar]
    same(f)


def test_load_from_state_dict_and_extra_state_overrides():
    def f(T):
        nn = T.nn

        class Versioned(nn.Module):
            _version = 2

            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(T.zeros(2))
                self.calls = []

            def _load_from_state_dict(self, sd, prefix, meta, *args):
                self.calls.append((prefix, dict(meta)))
                if meta.get("version", 1) < 2 and prefix + "old_w" in sd:  # upgrade an old checkpoint
                    sd[prefix + "w"] = sd.pop(prefix + "old_w")
                super()._load_from_state_dict(sd, prefix, meta, *args)

            def _save_to_state_dict(self, dest, prefix, keep_vars):
                super()._save_to_state_dict(dest, prefix, keep_vars)
                dest[prefix + "note"] = "saved"

        class Extra(nn.Module):
            def __init__(self):
                super().__init__()
                self.v = 1

            def get_extra_state(self):
                return {"v": self.v}

            def set_extra_state(self, s):
                self.v = s["v"]

        m = nn.Sequential(Versioned(), Extra())
        sd = m.state_dict()
        keys = list(sd)
        old = OrderedDict([("0.old_w", T.ones(2)), ("1._extra_state", {"v": 7})])
        old._metadata = {"0": {"version": 1}}
        r = m.load_state_dict(old)
        return [keys, dict(sd._metadata), sd["1._extra_state"], repr(r), m[0].w, m[0].calls, m[1].v,
                errors(T, lambda: m.load_state_dict({"0.w": T.ones(2)}))]
    same(f)


@pytest.mark.parametrize("build", [
    lambda T: T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Identity(), T.nn.Bilinear(4, 4, 2)),
    lambda T: T.nn.ModuleDict({"x": T.nn.Linear(2, 2),
                               "y": T.nn.ModuleList([T.nn.Linear(2, 1, bias=False)])}),
    lambda T: T.nn.Sequential(T.nn.ParameterList([T.ones(2), T.zeros(3)]),
                              T.nn.ParameterDict({"b": T.ones(1)})),
    _net,
], ids=["sequential", "moduledict", "parameter-containers", "nested-buffers"])
def test_state_dict_round_trip_and_structure(build):
    check_state_dict_roundtrip(build)
    check_repr(build)


# ---- modes, gradients and conversion ----------------------------------------------------------------------
def test_train_eval_requires_grad_zero_grad_apply():
    def f(T):
        m = _net(T)
        out = [m.training, m.eval() is m, [x.training for x in m.modules()], m.train().b[0].training,
               errors(T, lambda: m.train("no"))]
        m(T.ones(2, 3)).sum().backward()
        m.zero_grad(set_to_none=False)
        out.append([p.grad for p in m.parameters()])
        m.zero_grad()
        out.append([p.grad for p in m.parameters()])
        m.requires_grad_(False)
        out.append([p.requires_grad for p in m.parameters()])
        seen = []
        m.apply(lambda mod: seen.append(type(mod).__name__))
        return out + [seen]
    same(f)


def test_dtype_and_device_conversions():
    def f(T):
        m = _net(T)
        m.register_buffer("steps", T.tensor(3))
        w = m.a.w
        m.a.w.grad = T.ones(3, 3)
        out = [m.double() is m, m.a.w is w, w.dtype, w.grad.dtype, m.steps.dtype, m.a.stat.dtype]
        m.half()
        out += [w.dtype, m.a.stat.dtype, m.steps.dtype]
        m.bfloat16()
        out += [w.dtype]
        m.float()
        out += [w.dtype]
        m.to(T.float64)
        out += [w.dtype, m.steps.dtype]
        m.to("cpu", T.float32)
        out += [w.dtype, str(w.device)]
        m.to(T.ones(1, dtype=T.float64))
        out += [w.dtype]
        m.to(device="cpu", dtype=T.float32, non_blocking=True)
        m.type(T.float64)
        out += [w.dtype, m.steps.dtype, m.cpu() is m, m.share_memory() is m]
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            m.to(T.complex64)
        out += [w.dtype, m.steps.dtype, [str(x.message)[:40] for x in ws]]
        return out + [errors(T, lambda: m.to(T.int64), lambda: m.to(T.bool))]
    same(f)


def test_repr_dir_and_extra_repr():
    def f(T):
        nn = T.nn

        class Multi(nn.Module):
            def extra_repr(self):
                return "first=1,\nsecond=2"

        class One(nn.Module):
            def extra_repr(self):
                return "k=3"

        m = nn.Sequential(OrderedDict([("multi", Multi()), ("one", One()), ("empty", nn.Module())]))
        m.one.child = nn.Sequential(One(), nn.ModuleList([One(), One(), Multi()]))
        m.add_module("gone", None)
        d = dir(m.one)
        return [repr(m), str(m), repr(nn.Module()), repr(nn.ModuleList()), "child" in d, "forward" in d,
                "training" in d, "0" in dir(nn.Sequential(nn.Identity())), repr(_net(T))]
    same(f)


def test_forward_not_implemented():
    same(lambda T: T.nn.Module()(T.ones(1)), expect_error=True)


# ---- hooks ----------------------------------------------------------------------------------------------
def _fmt(T, x):
    if isinstance(x, T.Tensor):
        return (tuple(x.shape), [round(v, 5) for v in x.detach().reshape(-1).tolist()])
    if isinstance(x, (tuple, list)):
        return [_fmt(T, v) for v in x]
    if isinstance(x, dict):
        return {k: _fmt(T, v) for k, v in x.items()}
    return repr(x)


def _scaled(T):
    class M(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = T.nn.Parameter(T.arange(6.0).reshape(2, 3) / 10)

        def forward(self, x, y=None, scale=1.0):
            out = x @ self.w.T * scale
            return out if y is None else (out, y * 2)
    return M()


def test_forward_hooks():
    def f(T):
        m = _scaled(T)
        log = []
        h1 = m.register_forward_pre_hook(lambda mod, args: log.append(("pre", _fmt(T, args))))
        h2 = m.register_forward_pre_hook(lambda mod, args, kw: ((args[0] + 1,), {**kw, "scale": 2.0}),
                                         with_kwargs=True)
        h3 = m.register_forward_hook(lambda mod, args, out: log.append(("fwd", _fmt(T, args), _fmt(T, out))))
        h4 = m.register_forward_hook(lambda mod, args, kw, out: out * 10, with_kwargs=True, prepend=True)
        h5 = m.register_forward_pre_hook(lambda mod, args: log.append("first"), prepend=True)
        r1 = m(T.ones(1, 3))
        for h in (h1, h2, h3, h4):
            h.remove()
        with h5:
            r2 = m(T.ones(1, 3))
        r3 = m(T.ones(1, 3))
        m.register_forward_pre_hook(lambda mod, args: T.zeros(1, 3))  # a single value becomes the args tuple
        bad = m.register_forward_pre_hook(lambda mod, args, kw: "bad", with_kwargs=True)
        e = errors(T, lambda: m(T.ones(1, 3)))
        bad.remove()
        return [_fmt(T, r1), _fmt(T, r2), _fmt(T, r3), log, e, _fmt(T, m(T.ones(1, 3)))]
    same(f)


def test_forward_hook_always_call():
    def f(T):
        class Boom(T.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        b = Boom()
        log = []
        b.register_forward_hook(lambda mod, a, o: log.append(("always", o)), always_call=True)
        b.register_forward_hook(lambda mod, a, o: log.append("never"))
        b.register_forward_hook(lambda mod, a, kw, o: 1 / 0, with_kwargs=True, always_call=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            e = errors(T, lambda: b(1))
        return [e, log, [str(x.message) for x in w]]
    same(f)


def test_full_backward_hooks():
    def f(T):
        m = _scaled(T)
        log = []

        def bh(mod, gi, go):
            log.append(("bw", _fmt(T, gi), _fmt(T, go)))

        def bph(mod, go):
            log.append(("bwpre", _fmt(T, go)))
            return tuple(g * 2 if g is not None else None for g in go)

        hb = m.register_full_backward_hook(bh)
        m.register_full_backward_pre_hook(bph)
        x = T.ones(2, 3, requires_grad=True)
        y = T.ones(2, 2, requires_grad=True)
        out, y2 = m(x, y)
        (out.sum() + y2.sum() * 3).backward()
        first = [log[:], _fmt(T, [x.grad, y.grad, m.w.grad])]
        log.clear()
        hb.remove()
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0, None, None), prepend=True)
        m.register_full_backward_hook(bh)
        x = T.ones(2, 3, requires_grad=True)
        m(x, None, 3.0).sum().backward()
        second = [log[:], _fmt(T, x.grad)]
        m.register_full_backward_hook(lambda mod, gi, go: (None,))
        x = T.ones(2, 3, requires_grad=True)
        return [first, second, errors(T, lambda: m(x).sum().backward(),
                                      lambda: m.register_backward_hook(bh))]
    same(f)


def test_full_backward_hook_inputs_without_grad():
    def f(T):
        m = _scaled(T)
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append((_fmt(T, gi), _fmt(T, go))))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(T.ones(2, 3)).sum().backward()
        m.register_full_backward_hook(lambda mod, gi, go: (T.ones(1),))
        return [log, [str(x.message)[:70] for x in w], errors(T, lambda: m(T.ones(2, 3)).sum().backward())]
    same(f)


def test_backward_hook_nested_modules_and_autograd_grad():
    def f(T):
        nn = T.nn
        net = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
        with T.no_grad():
            for i, p in enumerate(net.parameters()):
                p.copy_(T.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
        log = []
        for i, layer in enumerate(net):
            layer.register_full_backward_hook(
                lambda mod, gi, go, i=i: log.append((i, _fmt(T, gi), _fmt(T, go))))
        x = T.ones(2, 3, requires_grad=True)
        g = T.autograd.grad(net(x).sum(), x)
        return [log, _fmt(T, g)]
    same(f)


def test_full_backward_hook_edge_cases():
    """A module returning its input, outputs with a non-tensor and an unused tensor, and double backward
    through a hooked module."""
    def f(T):
        nn = T.nn
        log = []
        ident = nn.Identity()
        ident.register_full_backward_hook(lambda mod, gi, go: log.append(("id", _fmt(T, gi), _fmt(T, go))))
        ident.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _fmt(T, go))))
        x = T.ones(2, requires_grad=True)
        y = ident(x)
        (y * 3).sum().backward()
        out = [log[:], _fmt(T, x.grad), y.grad_fn.name()]
        log.clear()

        class M(nn.Module):
            def forward(self, a, b):
                return a * 2, "s", b * 3
        m = M()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("m", _fmt(T, gi), _fmt(T, go))))
        a, b = T.ones(2, requires_grad=True), T.ones(2, requires_grad=True)
        o1, _, o2 = m(a, b)
        o1.sum().backward()
        out += [log[:], _fmt(T, [a.grad, b.grad])]
        log.clear()
        lin = nn.Linear(2, 1)
        with T.no_grad():
            lin.weight.fill_(0.5)
            lin.bias.fill_(0.0)
        lin.register_full_backward_hook(lambda mod, gi, go: log.append("bw"))
        x = T.ones(3, 2, requires_grad=True)
        (g,) = T.autograd.grad((lin(x) ** 2).sum(), x, create_graph=True)
        (g2,) = T.autograd.grad(g.sum(), x)
        return out + [log, _fmt(T, [g, g2])]
    same(f)


def test_non_full_backward_hook():
    def f(T):
        m = T.nn.Linear(3, 2)
        with T.no_grad():
            m.weight.fill_(0.5)
            m.bias.fill_(0.1)
        log = []
        m.register_backward_hook(lambda mod, gi, go: log.append((len(gi), _fmt(T, go))))
        x = T.ones(2, 3, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(x).sum().backward()
        return [log, errors(T, lambda: m.register_full_backward_hook(lambda *a: None)),
                [x.category.__name__ for x in w]]
    same(f)


def test_global_module_hooks():
    def f(T):
        mm = T.nn.modules.module
        log = []
        handles = [
            mm.register_module_forward_pre_hook(lambda mod, a: log.append(("gpre", type(mod).__name__))),
            mm.register_module_forward_hook(lambda mod, a, o: log.append(("gfwd", type(mod).__name__))),
            mm.register_module_full_backward_hook(
                lambda mod, gi, go: log.append(("gbw", type(mod).__name__))),
            mm.register_module_full_backward_pre_hook(
                lambda mod, go: log.append(("gbwpre", type(mod).__name__))),
            mm.register_module_buffer_registration_hook(lambda mod, name, b: log.append(("buf", name))),
            mm.register_module_parameter_registration_hook(lambda mod, name, p: log.append(("par", name))),
            mm.register_module_module_registration_hook(lambda mod, name, s: log.append(("mod", name))),
        ]
        try:
            s = T.nn.Sequential(T.nn.Linear(2, 2))
            s.register_buffer("b", T.ones(1))
            x = T.ones(1, 2, requires_grad=True)
            s(x).sum().backward()
            e = errors(T, lambda: mm.register_module_backward_hook(lambda *a: None))
        finally:
            for h in handles:
                h.remove()
        s(x)
        return [log, e]
    same(f)


def test_state_dict_and_load_hooks():
    def f(T):
        nn = T.nn
        m = _scaled(T)
        log = []
        m.register_state_dict_pre_hook(
            lambda mod, prefix, keep_vars: log.append(("sdpre", prefix, keep_vars)))
        post = m.register_state_dict_post_hook(
            lambda mod, sd, prefix, meta: sd.__setitem__(prefix + "extra", T.zeros(1)))
        m.register_load_state_dict_pre_hook(
            lambda mod, sd, prefix, *a: log.append(("ldpre", prefix, sorted(sd))))
        m.register_load_state_dict_post_hook(
            lambda mod, keys: log.append(("ldpost", list(keys.missing_keys), list(keys.unexpected_keys))))
        s = nn.Sequential(m)
        sd = s.state_dict()
        r = s.load_state_dict(sd, strict=False)
        post.remove()
        m._register_state_dict_hook(lambda mod, sd, prefix, meta: OrderedDict(a=1))
        private = m.state_dict()
        m.register_state_dict_post_hook(lambda *a: 1)
        hook_errors = errors(T, lambda: m.state_dict())
        m2 = _scaled(T)
        m2.register_load_state_dict_post_hook(lambda mod, keys: 1)
        return [list(sd), repr(r), log, list(private), hook_errors,
                errors(T, lambda: m2.load_state_dict(m2.state_dict()))]
    same(f)


# ---- containers -------------------------------------------------------------------------------------------
def _blk(T, k):
    class L(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.k = k
            self.w = T.nn.Parameter(T.ones(k))

        def extra_repr(self):
            return f"k={self.k}"

        def forward(self, x):
            return x * self.k
    return L()


def test_sequential():
    def f(T):
        nn = T.nn
        s = nn.Sequential(_blk(T, 1), _blk(T, 2), nn.Sequential(_blk(T, 3), _blk(T, 3)))
        out = [repr(s), repr(s[1:]), repr(s[-1]), len(s), s(T.ones(1))]
        s.append(_blk(T, 4)).insert(0, _blk(T, 5)).extend([_blk(T, 6)])
        s.insert(-1, _blk(T, 7))
        out += [repr(s), repr(s.pop(1))]
        del s[0:2]
        s[0] = _blk(T, 8)
        out += [repr(s), [n for n, _ in s.named_parameters()], repr(s + s), repr(s * 2), repr(2 * s)]
        t = nn.Sequential(_blk(T, 1))
        t += nn.Sequential(_blk(T, 2))
        t *= 2
        od = nn.Sequential(OrderedDict([("conv", _blk(T, 1)), ("act", _blk(T, 2))]))
        out += [repr(t), repr(od), od(T.ones(1)), repr(od[1:]), "0" in dir(t)]
        return out + [errors(T, lambda: s[10], lambda: s + 3, lambda: s * 0, lambda: s * 1.5,
                             lambda: s.insert(0, 3), lambda: s.insert(100, _blk(T, 1)), lambda: s["a"],
                             lambda: t.__iadd__(1), lambda: t.__imul__(-1))]
    same(f)


def test_module_list_and_dict():
    def f(T):
        nn = T.nn
        ml = nn.ModuleList([_blk(T, 1), _blk(T, 1), _blk(T, 1), _blk(T, 2), _blk(T, 1)])
        out = [repr(ml), repr(ml[1:3]), repr(ml + ml), len(ml)]
        ml.insert(1, _blk(T, 9))
        del ml[0]
        ml[-1] = _blk(T, 7)
        ml += [_blk(T, 3)]
        out += [repr(ml), [n for n, _ in ml.named_parameters()], repr(ml.pop(0)), len(ml)]
        del ml[1:3]
        out += [repr(ml), [k for k in ml._modules]]
        md = nn.ModuleDict({"b": _blk(T, 1), "a": _blk(T, 2)})
        md["c"] = _blk(T, 3)
        md.update([("d", _blk(T, 4))])
        md.update(nn.ModuleDict({"e": _blk(T, 5)}))
        out += [repr(md), list(md.keys()), "a" in md, len(md), repr(md.pop("b")), list(md)]
        del md["a"]
        out += [list(md.items())[0][0], len(list(md.values()))]
        md.clear()
        return out + [len(md), errors(T, lambda: ml[10], lambda: nn.ModuleList(3), lambda: nn.ModuleDict(3),
                                      lambda: nn.ModuleDict([(1,)]), lambda: nn.ModuleDict([3]),
                                      lambda: nn.ModuleList([3]), lambda: md["zz"])]
    same(f)


def test_parameter_list_and_dict():
    def f(T):
        nn = T.nn
        pl = nn.ParameterList([T.ones(2), nn.Parameter(T.zeros(3, dtype=T.float64)), "str"])
        pl.append(T.ones(1, 2))
        pl.extend([T.ones(1)])
        pl[0] = T.full((2,), 3.0)
        out = [repr(pl), len(pl), repr(pl[0:2]), [n for n, _ in pl.named_parameters()], type(pl[0]).__name__,
               pl[2], [type(p).__name__ for p in pl]]
        pd = nn.ParameterDict({"z": T.ones(2), "a": nn.Parameter(T.zeros(2, 3))})
        pd["m"] = T.ones(1)
        pd["obj"] = 5
        out += [repr(pd), list(pd.keys()), pd.get("q"), pd.setdefault("q", T.ones(1)).shape, "q" in pd,
                list(reversed(pd)), repr(pd.popitem()), repr(pd.copy()), list(pd.fromkeys(["x", "y"]).keys())]
        pd2 = pd | nn.ParameterDict({"x": T.ones(1)})
        pd |= OrderedDict([("y", T.zeros(1))])
        out += [list(pd2.keys()), list(pd.keys()), repr(pd.pop("z")), len(pd)]
        pd.clear()
        return out + [len(pd), errors(T, lambda: pl(1), lambda: pd(1),
                                      lambda: nn.ParameterDict({1: T.ones(1)}),
                                      lambda: nn.ParameterList(T.ones(2)), lambda: pl[10], lambda: pd["nope"],
                                      lambda: nn.ParameterDict([(1,)]), lambda: pd.update(3))]
    same(f)


def test_container_deprecated():
    def f(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            c = T.nn.Container(a=T.nn.Identity())
        return [repr(c), [(x.category.__name__, str(x.message)) for x in w]]
    same(f)


# ---- copying ---------------------------------------------------------------------------------------------
def test_deepcopy_and_pickle_models():
    def f(T):
        nn = T.nn
        lin = nn.Linear(2, 2)
        m = nn.Sequential(lin, lin, nn.Identity())
        m[0].weight.grad = T.ones(2, 2)
        m.register_forward_hook(lambda mod, a, o: o)
        c = copy.deepcopy(m)
        p = pickle.loads(pickle.dumps(nn.Sequential(nn.Linear(2, 2), nn.Flatten())))
        return [repr(c), c[0] is c[1], c[0].weight is not m[0].weight, c[0].weight.grad,
                len(c._forward_hooks),
                type(c[0].weight).__name__, repr(p), [n for n, _ in p.named_parameters()],
                c[0].weight.data_ptr() != m[0].weight.data_ptr()]
    same(f)


def test_deepcopy_values_equal():
    torchshim.manual_seed(0)
    m = torchshim.nn.Linear(3, 2)
    c = copy.deepcopy(m)
    np.testing.assert_array_equal(c.weight.detach().numpy(), m.weight.detach().numpy())
    with torchshim.no_grad():
        c.weight.add_(1)
    assert not np.array_equal(c.weight.detach().numpy(), m.weight.detach().numpy())


# ---- through the harness ---------------------------------------------------------------------------------
def test_custom_module_through_harness():
    def build(T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = T.nn.Parameter(T.randn(3, 3))
                self.register_buffer("count", T.zeros(3))

            def forward(self, x):
                y = (x @ self.w.T).tanh()
                if self.training:
                    with T.no_grad():
                        self.count.add_(y.mean(0))
                return y
        return T.nn.Sequential(M(), M())
    check_module(build, [Arg((2, 3))], second_order=True)
    check_traced(build, [Arg((2, 3))])


def test_harness_tensor_kwargs():
    def build(T):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(3, 2)

            def forward(self, x, *, scale, shift=0.0):
                return self.lin(x) * scale + shift
        return M()
    r = check_module(build, [Arg((4, 3))], kwargs={"scale": Arg((4, 1)), "shift": 0.5}, second_order=True)
    assert "kwarg:scale" in r.outcomes["train"][1].leaf_names
    check_traced(build, [Arg((4, 3))], kwargs={"scale": Arg((4, 1))})


def test_harness_requires_expect_error_for_failing_calls():
    with pytest.raises(AssertionError, match="raised in both libraries"):
        check_module(lambda T: T.nn.Linear(3, 4), [Arg((2, 2))])
    check_module(lambda T: T.nn.Linear(3, 4), [Arg((2, 2))], expect_error=True)


def test_errors_helper_matches_messages():
    # the same mismatch error reported by both libraries, through harness.compare_errors
    try:
        torch.nn.Module().nothere  # noqa: B018
    except AttributeError as e:
        ref = e
    try:
        torchshim.nn.Module().nothere  # noqa: B018
    except AttributeError as e:
        got = e
    compare_errors(ref, got)


# ---- DataParallel ----------------------------------------------------------------------------------------
def _dict_net(T):
    class Two(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = T.nn.Linear(3, 2)

        def forward(self, x, extra=None):
            out = self.lin(x)
            return {"out": out, "pair": (out * 2, extra["s"] + 1 if extra is not None else None)}
    return Two()


def test_data_parallel_without_gpus_runs_the_module():
    def f(T):
        T.manual_seed(0)
        dp = T.nn.DataParallel(_dict_net(T))
        with T.no_grad():
            for p in dp.parameters():
                p.fill_(0.5)
        x = T.arange(6.0).reshape(2, 3)
        out = dp(x, extra={"s": T.ones(2)})
        return [repr(dp), dp.device_ids, hasattr(dp, "dim"), list(dp.state_dict()), out,
                errors(T, lambda: T.nn.parallel.data_parallel(dp.module, x),
                       lambda: T.nn.parallel.DistributedDataParallel(dp.module))]
    same(f)


def test_data_parallel_pieces_split_the_batch():
    """scatter -> replicate -> parallel_apply -> gather over three replicas (on the cpu: PyTorch itself only
    accepts GPUs there) computes what torch's plain module computes, with gradients reaching the original
    parameters and the inputs (first and second order)."""
    cpu = torchshim.device("cpu")

    def call(module, x, s):
        if isinstance(module, torch.nn.Module):
            return module(x, extra={"s": s})
        P = torchshim.nn.parallel
        devs = [cpu, cpu, cpu]
        inputs, kwargs = P.scatter_gather.scatter_kwargs((x,), {"extra": {"s": s}}, devs)
        replicas = P.replicate(module, devs[:len(inputs)])
        assert [n for n, _ in replicas[0].named_parameters()] == []  # replica parameters are not leaves
        assert replicas[0].lin.weight.grad_fn.name() == "BroadcastBackward"
        return P.gather(P.parallel_apply(replicas, inputs, kwargs, devs[:len(inputs)]), cpu)
    check_module(_dict_net, [Arg((5, 3)), Arg((5,))], call=call, second_order=True)


def test_data_parallel_scatter_gather_structures():
    cpu = torchshim.device("cpu")
    P = torchshim.nn.parallel
    nt = __import__("collections").namedtuple("NT", "a b")
    x = torchshim.arange(10.0).reshape(5, 2)
    parts = P.scatter((x, [x[:, 0]], {"k": x}, nt(x, 3), "s"), [cpu, cpu])
    assert len(parts) == 2 and [tuple(p[0].shape) for p in parts] == [(3, 2), (2, 2)]
    assert parts[1][3].b == 3 and parts[1][4] == "s" and isinstance(parts[0][3], nt)
    back = P.gather([p[:3] + (nt(p[0], p[0] * 2),) for p in parts], cpu)
    np.testing.assert_array_equal(back[0].numpy(), x.numpy())
    np.testing.assert_array_equal(back[2]["k"].numpy(), x.numpy())
    assert isinstance(back[3], nt) and back[3].b.tolist() == (x * 2).tolist()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        v = P.gather([torchshim.tensor(1.0), torchshim.tensor(2.0)], cpu)
    assert v.tolist() == [1.0, 2.0] and "all input tensors were scalars" in str(w[0].message)
    with pytest.raises(ValueError, match="same number of keys"):
        P.gather([{"a": x}, {"a": x, "b": x}], cpu)
    with pytest.raises(ValueError, match="Boom"):
        P.parallel_apply([lambda t: (_ for _ in ()).throw(ValueError("Boom"))], [(x,)], None, [cpu])

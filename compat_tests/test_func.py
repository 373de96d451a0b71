"""torch.func (functional_call, stack_module_state, grad, grad_and_value) and the deprecated
torch.nn.utils.stateless.functional_call against real PyTorch: outputs, gradients w.r.t. the passed tensors,
the module left unchanged, in-place buffer updates landing in the passed dict, tied weights, strict keys,
errors."""
import numpy as np
import pytest
import torch

import torchshim
from harness import compare_errors, compare_values
from nn_harness import build_pair, to_shim


def mlp(T):
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))


def counter(T):
    class Counter(T.nn.Module):
        """A buffer updated in place by forward, and a tied alias of the weight."""
        def __init__(self):
            super().__init__()
            self.weight = T.nn.Parameter(T.ones(3))
            self.tied = self.weight
            self.register_buffer("count", T.zeros(()))

        def forward(self, x):
            self.count.add_(1)
            return x * self.weight + self.tied + self.count
    return Counter()


def values(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def pair_dict(ref, seed=0):
    """Same new values for every parameter of the torch module, as (torch dict, torchshim dict), requiring
    grad."""
    rd, sd = {}, {}
    for i, (name, p) in enumerate(ref.named_parameters()):
        v = values(tuple(p.shape), seed + i)
        rd[name] = torch.tensor(v, requires_grad=True)
        sd[name] = torchshim.tensor(v, requires_grad=True)
    return rd, sd


@pytest.mark.parametrize("api", ["func", "stateless"])
def test_functional_call_outputs_and_gradients(api):
    ref, mod = build_pair(mlp)
    rd, sd = pair_dict(ref)
    x = values((5, 3), 10)
    calls = {"func": lambda T: T.func.functional_call,
             "stateless": lambda T: T.nn.utils.stateless.functional_call}
    with pytest.warns(FutureWarning) if api == "stateless" else _nothing():
        r = calls[api](torch)(ref, rd, (torch.tensor(x),))
    with pytest.warns(FutureWarning) if api == "stateless" else _nothing():
        g = calls[api](torchshim)(mod, sd, (torchshim.tensor(x),))
    compare_values(r, g)
    compare_values(torch.autograd.grad(r.sum(), list(rd.values())),
                   torchshim.autograd.grad(g.sum(), list(sd.values())))
    # the module's own parameters are untouched and get no gradient
    compare_values(dict(ref.named_parameters()), dict(mod.named_parameters()))
    compare_values(ref(torch.tensor(x)), mod(torchshim.tensor(x)))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_functional_call_partial_dict_kwargs_and_tuple_of_dicts():
    ref, mod = build_pair(mlp)
    rd, sd = pair_dict(ref)
    x = values((2, 3), 3)
    r = torch.func.functional_call(ref, {"0.weight": rd["0.weight"]}, torch.tensor(x))
    g = torchshim.func.functional_call(mod, {"0.weight": sd["0.weight"]}, torchshim.tensor(x))
    compare_values(r, g)
    first = {k: v for k, v in rd.items() if k.startswith("0.")}
    second = {k: v for k, v in rd.items() if k.startswith("2.")}
    r = torch.func.functional_call(ref, (first, second), args=(), kwargs={"input": torch.tensor(x)})
    first = {k: v for k, v in sd.items() if k.startswith("0.")}
    second = {k: v for k, v in sd.items() if k.startswith("2.")}
    g = torchshim.func.functional_call(mod, (first, second), args=(), kwargs={"input": torchshim.tensor(x)})
    compare_values(r, g)


def test_functional_call_buffers_and_tied_weights():
    ref, mod = build_pair(counter)
    x = values((3,), 0)
    outs = []
    for m, T in ((ref, torch), (mod, torchshim)):
        d = {"weight": T.full((3,), 2.0), "count": T.zeros(())}
        out1 = T.func.functional_call(m, d, T.tensor(x))
        out2 = T.func.functional_call(m, d, T.tensor(x), tie_weights=False)
        outs.append((out1, out2, d["count"], m.count.clone(), m(T.tensor(x))))
    compare_values(outs[0], outs[1])


@pytest.mark.parametrize("call", [
    lambda T, m: T.func.functional_call(m, {"weight": T.ones(3), "tied": T.zeros(3)}, T.ones(3)),
    lambda T, m: T.func.functional_call(m, {"weight": T.ones(3)}, T.ones(3), strict=True),
    lambda T, m: T.func.functional_call(m, {"weight": T.ones(3), "count": T.ones(()), "tied": T.ones(3),
                                            "extra": T.ones(1)}, T.ones(3), strict=True),
    lambda T, m: T.func.functional_call(m, ({"weight": T.ones(3)}, {"weight": T.ones(3)}), T.ones(3)),
    lambda T, m: T.func.functional_call(m, [{"weight": T.ones(3)}, 3], T.ones(3)),
    lambda T, m: T.func.functional_call(m, 3, T.ones(3)),
    lambda T, m: T.func.functional_call(m, {"nope.weight": T.ones(3)}, T.ones(3)),
    lambda T, m: T.func.functional_call(m, {"weight": 3}, T.ones(3)),
    lambda T, m: T.func.functional_call(T.nn.DataParallel(m), {}, T.ones(3)),
], ids=["tied-conflict", "strict-missing", "strict-unexpected", "repeated-keys", "not-a-dict", "not-dicts",
        "missing-submodule", "not-a-tensor", "data-parallel"])
def test_functional_call_errors(call):
    ref, mod = build_pair(counter)
    errs = []
    for T, m in ((torch, ref), (torchshim, mod)):
        with pytest.raises(Exception) as e:
            call(T, m)
        errs.append(e.value)
    msg = "exact"
    if isinstance(errs[0], TypeError):  # torch prints the offending value: 3 in both
        msg = "is not an instance of torch.Tensor"
    compare_errors(*errs, msg=msg)
    compare_values(dict(ref.named_parameters()), dict(mod.named_parameters()))  # restored


def test_functional_call_restores_module_when_forward_raises():
    for T in (torch, torchshim):
        m = T.nn.Linear(3, 2)
        w = m.weight
        with pytest.raises(RuntimeError):
            T.func.functional_call(m, {"weight": T.ones(2, 3)}, T.ones(4))
        assert m.weight is w


def test_stack_module_state():
    refs, mods = zip(*[build_pair(mlp, seed=s) for s in range(3)])
    rp, rb = torch.func.stack_module_state(list(refs))
    gp, gb = torchshim.func.stack_module_state(list(mods))
    compare_values(rp, gp)
    compare_values(rb, gb)
    assert all(p.is_leaf and p.requires_grad for p in gp.values())
    errs = []
    for T, ms in ((torch, refs), (torchshim, mods)):
        for bad in ([], [ms[0], ms[1].eval()], [ms[0], T.nn.Linear(3, 4)]):
            with pytest.raises(RuntimeError) as e:
                T.func.stack_module_state(bad)
            errs.append(e.value)
        ms[1].train()
    for a, b in zip(errs[:3], errs[3:]):
        compare_errors(a, b)


# ---- grad / grad_and_value ---------------------------------------------------------------------------------
def _f(T):
    return lambda x, y: (x.sin() * y).sum() + (x ** 3).mean()


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), -1, (1, 0)])
def test_grad_argnums(argnums):
    x, y = values((3, 2), 0), values((3, 2), 1)
    r = torch.func.grad(_f(torch), argnums)(torch.tensor(x), torch.tensor(y))
    g = torchshim.func.grad(_f(torchshim), argnums)(torchshim.tensor(x), torchshim.tensor(y))
    compare_values(r, g)


def test_grad_and_value_has_aux_and_pytrees():
    ref, mod = build_pair(mlp)
    x = values((4, 3), 2)

    def loss(T, m):
        def fn(params, inp):
            out = T.func.functional_call(m, params, inp)
            return (out ** 2).mean(), {"out": out, "pair": (out.sum(), inp)}
        return fn
    rp = {k: v.detach() for k, v in ref.named_parameters()}
    gp = {k: v.detach() for k, v in mod.named_parameters()}
    r = torch.func.grad_and_value(loss(torch, ref), has_aux=True)(rp, torch.tensor(x))
    g = torchshim.func.grad_and_value(loss(torchshim, mod), has_aux=True)(gp, torchshim.tensor(x))
    compare_values(r, g)
    r = torch.func.grad(loss(torch, ref), has_aux=True)(rp, torch.tensor(x))
    g = torchshim.func.grad(loss(torchshim, mod), has_aux=True)(gp, torchshim.tensor(x))
    compare_values(r, g)


def test_grad_nested_and_outer_autograd():
    x = values((3,), 0)
    f = {T: (lambda T: lambda v: (v ** 3).sum())(T) for T in (torch, torchshim)}
    r = torch.func.grad(lambda v: torch.func.grad(f[torch])(v).sum())(torch.tensor(x))
    g = torchshim.func.grad(lambda v: torchshim.func.grad(f[torchshim])(v).sum())(torchshim.tensor(x))
    compare_values(r, g)
    # an argument that requires grad keeps the result differentiable by ordinary autograd
    xr, xg = torch.tensor(x, requires_grad=True), torchshim.tensor(x, requires_grad=True)
    gr, gg = torch.func.grad(f[torch])(xr), torchshim.func.grad(f[torchshim])(xg)
    compare_values(gr, gg)
    compare_values(torch.autograd.grad(gr.sum(), xr), torchshim.autograd.grad(gg.sum(), xg))
    # unused argument: zeros
    compare_values(torch.func.grad(lambda a, b: (a * 2).sum(), 1)(torch.tensor(x), torch.tensor(x)),
                   torchshim.func.grad(lambda a, b: (a * 2).sum(), 1)(torchshim.tensor(x),
                                                                      torchshim.tensor(x)))


@pytest.mark.parametrize("call", [
    lambda T: T.func.grad(lambda x: x * 2)(T.ones(3)),
    lambda T: T.func.grad(lambda x: 3.0)(T.ones(3)),
    lambda T: T.func.grad(lambda x: x.sum(), has_aux=True)(T.ones(3)),
    lambda T: T.func.grad(lambda x: x.sum(), argnums=2)(T.ones(3)),
    lambda T: T.func.grad(lambda x: x.sum(), argnums=[0])(T.ones(3)),
    lambda T: T.func.grad(lambda x, y: x.sum(), argnums=(0, 0))(T.ones(3), T.ones(3)),
    lambda T: T.func.grad(lambda x, y: x.sum(), argnums=())(T.ones(3), T.ones(3)),
    lambda T: T.func.grad(lambda x: x)(3.0),
    lambda T: T.func.grad(lambda x: (x.sum(), {"n": 4}), has_aux=True)(T.ones(3)),
], ids=["non-scalar", "not-a-tensor", "aux-not-tuple", "argnum-range", "argnums-list", "argnums-repeated",
        "argnums-empty", "float-arg", "aux-not-tensors"])
def test_grad_errors(call):
    errs = []
    for T in (torch, torchshim):
        with pytest.raises(Exception) as e:
            call(T)
        errs.append(e.value)
    compare_errors(*errs)


def test_func_names():
    assert {"functional_call", "stack_module_state", "grad", "grad_and_value"} <= set(torchshim.func.__all__)
    assert to_shim(torch.ones(1)).shape == (1,)

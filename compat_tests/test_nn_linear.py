"""nn.Identity / Flatten / Unflatten / Linear / Bilinear / LazyLinear against real PyTorch, through
nn_harness: outputs, first- and second-order gradients w.r.t. inputs and parameters, reprs, state dicts,
tracing; default initialisation checked statistically (the RNG streams differ)."""
import math
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import Arg, check
from nn_harness import check_module, check_repr, check_state_dict_roundtrip, check_traced


@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.Linear(3, 4), [Arg((2, 3))]),
    (lambda T: T.nn.Linear(3, 4, bias=False), [Arg((2, 3))]),
    (lambda T: T.nn.Linear(3, 4), [Arg((3,))]),
    (lambda T: T.nn.Linear(3, 4), [Arg((2, 5, 3))]),
    (lambda T: T.nn.Linear(3, 4), [Arg((2, 5, 3), noncontig=True)]),
    (lambda T: T.nn.Linear(3, 4, bias=False), [Arg((2, 2, 5, 3))]),
    (lambda T: T.nn.Linear(3, 4, dtype=T.float64), [Arg((2, 3), "float64")]),
    (lambda T: T.nn.Linear(3, 4).double(), [Arg((0, 3), "float64")]),
    (lambda T: T.nn.Linear(1, 1), [Arg((4, 1))]),
    (lambda T: T.nn.Bilinear(3, 4, 5), [Arg((2, 3)), Arg((2, 4))]),
    (lambda T: T.nn.Bilinear(3, 4, 5, bias=False), [Arg((2, 3)), Arg((2, 4))]),
    (lambda T: T.nn.Bilinear(3, 4, 5, dtype=T.float64),
     [Arg((2, 2, 3), "float64"), Arg((2, 2, 4), "float64")]),
    (lambda T: T.nn.Bilinear(3, 4, 5), [Arg((3,)), Arg((4,))]),
    (lambda T: T.nn.Identity(54, unused="x"), [Arg((2, 3))]),
    (lambda T: T.nn.Flatten(), [Arg((2, 3, 4))]),
    (lambda T: T.nn.Flatten(0, 1), [Arg((2, 3, 4), noncontig=True)]),
    (lambda T: T.nn.Unflatten(1, (2, 2)), [Arg((3, 4))]),
    (lambda T: T.nn.Unflatten(-1, [2, -1]), [Arg((3, 4))]),
    (lambda T: T.nn.Sequential(T.nn.Flatten(), T.nn.Linear(6, 4), T.nn.Unflatten(1, (2, 2)),
                               T.nn.Linear(2, 3, bias=False)), [Arg((5, 2, 3))]),
], ids=["linear", "linear-nobias", "linear-1d", "linear-3d", "linear-3d-noncontig", "linear-4d-nobias",
        "linear-f64", "linear-empty", "linear-1x1", "bilinear", "bilinear-nobias", "bilinear-3d-f64",
        "bilinear-1d", "identity", "flatten", "flatten-0-1", "unflatten", "unflatten-neg", "mlp"])
def test_layer_matches_torch(build, inputs):
    check_module(build, inputs, second_order=True)
    check_traced(build, inputs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_linear_low_precision(dtype):
    check_module(lambda T: T.nn.Linear(3, 4).to(getattr(T, dtype)), [Arg((2, 3), dtype)], grad=False)


def test_linear_without_input_grad():
    check_module(lambda T: T.nn.Linear(3, 2), [Arg((4, 3))], input_grad=False, second_order=True)


@pytest.mark.parametrize("build,inputs", [
    (lambda T: T.nn.Linear(3, 4), [Arg((2, 2))]),
    (lambda T: T.nn.Linear(3, 4), [Arg((2, 3), "float64")]),
    (lambda T: T.nn.Linear(3, 4), [Arg((2, 3), "int64")]),
    (lambda T: T.nn.Bilinear(3, 4, 5), [Arg((2, 3)), Arg((3, 4))]),
    (lambda T: T.nn.Bilinear(3, 4, 5), [Arg((2, 3)), Arg((2, 5))]),
    (lambda T: T.nn.Unflatten(1, (3, 3)), [Arg((3, 4))]),
], ids=["linear-shape", "linear-dtype", "linear-int", "bilinear-batch", "bilinear-in2", "unflatten-size"])
def test_layer_errors_match_torch(build, inputs):
    check_module(build, inputs, expect_error=True)


@pytest.mark.parametrize("build", [
    lambda T: T.nn.Linear(3, 4), lambda T: T.nn.Linear(3, 4, bias=False), lambda T: T.nn.Bilinear(2, 3, 4),
    lambda T: T.nn.Bilinear(2, 3, 4, bias=False), lambda T: T.nn.Identity(), lambda T: T.nn.Flatten(2, 3),
    lambda T: T.nn.Unflatten(0, (1, 2)), lambda T: T.nn.LazyLinear(3),
    lambda T: T.nn.LazyLinear(3, bias=False),
], ids=["linear", "linear-nobias", "bilinear", "bilinear-nobias", "identity", "flatten", "unflatten", "lazy",
        "lazy-nobias"])
def test_repr_and_state_dict(build):
    check_repr(build)


@pytest.mark.parametrize("build", [lambda T: T.nn.Linear(3, 4), lambda T: T.nn.Bilinear(2, 3, 4)],
                         ids=["linear", "bilinear"])
def test_state_dict_round_trip(build):
    check_state_dict_roundtrip(build)


def test_constructor_errors_and_warnings():
    def f(T):
        out = []
        for fn in (lambda: T.nn.Bilinear(0, 2, 3), lambda: T.nn.Unflatten(1, 4),
                   lambda: T.nn.Unflatten(1, (2, 2.0)), lambda: T.nn.Linear(3, 4, dtype=T.int64)):
            try:
                out.append(repr(fn()))
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            z = T.nn.Linear(0, 3)
        return out + [repr(z), [str(x.message) for x in w], z.bias, z(T.ones(2, 0))]
    check(f)


def test_factory_kwargs():
    def f(T):
        a = T.nn.Linear(2, 3, device="cpu", dtype=T.float64)
        b = T.nn.Bilinear(2, 3, 4, dtype=T.float16)
        return [a.weight.dtype, a.bias.dtype, str(a.weight.device), b.weight.dtype, a.weight.requires_grad,
                type(a.weight).__name__]
    check(f)


# ---- default initialisation (statistics: the RNG streams differ) -------------------------------------------
def _uniform_stats(values, bound):
    v = np.asarray(values, dtype=np.float64).ravel()
    return v.min(), v.max(), v.mean(), v.std(), bound / math.sqrt(3.0)


@pytest.mark.parametrize("fan_in,out", [(50, 400), (7, 3000)])
def test_linear_default_init_statistics(fan_in, out):
    torchshim.manual_seed(0)
    layer = torchshim.nn.Linear(fan_in, out)
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)): gain * sqrt(3 / fan_in) = 1 / sqrt(fan_in)
    for t, n in ((layer.weight, fan_in * out), (layer.bias, out)):
        lo, hi, mean, std, want_std = _uniform_stats(t.detach().numpy(), bound)
        assert -bound <= lo and hi <= bound, (lo, hi, bound)
        assert hi > 0.95 * bound and lo < -0.95 * bound  # the whole range is used
        assert abs(mean) < 5 * want_std / math.sqrt(n)
        assert abs(std - want_std) < 0.05 * want_std
    # the same law as PyTorch's own layer (its bound, computed from its values)
    torch.manual_seed(0)
    ref = torch.nn.Linear(fan_in, out)
    ref_max, got_max = ref.weight.detach().abs().max().item(), layer.weight.detach().abs().max().item()
    assert abs(ref_max - got_max) < 0.01 * bound


def test_bilinear_default_init_statistics():
    torchshim.manual_seed(1)
    layer = torchshim.nn.Bilinear(20, 30, 100)
    bound = 1 / math.sqrt(20)
    for t in (layer.weight, layer.bias):
        lo, hi, mean, std, want_std = _uniform_stats(t.detach().numpy(), bound)
        assert -bound <= lo and hi <= bound
        assert abs(mean) < 5 * want_std / math.sqrt(t.numel())
    lo, hi, mean, std, want_std = _uniform_stats(layer.weight.detach().numpy(), bound)
    assert abs(std - want_std) < 0.03 * want_std


def test_init_is_seeded_and_reset_parameters_redraws():
    torchshim.manual_seed(3)
    a = torchshim.nn.Linear(4, 5)
    torchshim.manual_seed(3)
    b = torchshim.nn.Linear(4, 5)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    w = a.weight
    before = w.detach().numpy().copy()
    a.reset_parameters()
    assert a.weight is w and not np.array_equal(before, w.detach().numpy())
    assert a.weight.grad_fn is None and a.weight.requires_grad


# ---- LazyLinear ----------------------------------------------------------------------------------------
def test_lazy_linear_materializes_on_first_call():
    def f(T):
        ll = T.nn.LazyLinear(4)
        before = [repr(ll), type(ll).__name__, repr(ll.weight), ll.has_uninitialized_params(),
                  list(ll.state_dict()),
                  [type(v).__name__ for v in ll.state_dict().values()]]
        y = ll(T.ones(2, 5))
        after = [type(ll).__name__, repr(ll), tuple(y.shape), tuple(ll.weight.shape),
                 type(ll.weight).__name__,
                 ll.weight.requires_grad, len(ll._forward_pre_hooks), len(ll._load_state_dict_pre_hooks)]
        nb = T.nn.LazyLinear(3, bias=False)
        nb(T.ones(3))
        seq = T.nn.Sequential(T.nn.LazyLinear(3), T.nn.Flatten(0))
        return before + after + [repr(nb), tuple(seq(T.ones(2, 4)).shape), repr(seq)]
    check(f)


def test_lazy_linear_load_state_dict():
    def f(T):
        src = T.nn.Linear(5, 4)
        ll = T.nn.LazyLinear(4)
        r = ll.load_state_dict(src.state_dict())
        out = [repr(r), type(ll).__name__, tuple(ll.weight.shape), type(ll.weight).__name__, ll.in_features]
        y = ll(T.ones(2, 5))  # the first call drops the hooks and becomes Linear
        out += [type(ll).__name__, ll.in_features, tuple(y.shape)]
        try:
            T.nn.LazyLinear(3).load_state_dict({"weight": T.ones(3, 2)})
        except RuntimeError as e:
            out.append(str(e))
        return out
    check(f)


def test_lazy_linear_values_match_after_copy():
    """A materialized LazyLinear computes what torch's does once weights are shared."""
    def build(T):
        ll = T.nn.LazyLinear(3)
        ll(T.ones(1, 4))
        return ll
    check_module(build, [Arg((2, 4))], second_order=True)


def test_lazy_linear_deepcopy_and_pickle():
    import copy
    import pickle

    def f(T):
        ll = T.nn.LazyLinear(3)
        c = copy.deepcopy(ll)
        p = pickle.loads(pickle.dumps(ll))
        c(T.ones(2, 2))
        p(T.ones(2, 6))
        return [type(c).__name__, tuple(c.weight.shape), type(p).__name__, tuple(p.weight.shape),
                repr(ll.weight)]
    check(f)

"""repr()/str() of tensors and set_printoptions, compared character for character with PyTorch 2.13."""
import math

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import torchshim
from torchshim import _tensor_str

LIBS = (torch, torchshim)
NAN, INF = math.nan, math.inf


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    for lib in LIBS:
        lib.set_printoptions(profile="default")
        lib.set_default_dtype(lib.float32)


def opts(**kw):
    for lib in LIBS:
        lib.set_printoptions(**kw)


def t(data, dtype=None, shape=None):
    """A builder: the same tensor in either library, from a Python/numpy value."""
    def build(lib):
        d = None if dtype is None else getattr(lib, dtype)
        x = lib.tensor(data, dtype=d) if isinstance(data, (list, float, int, bool, complex)) \
            else lib.tensor(np.asarray(data), dtype=d)
        return x if shape is None else x.reshape(*shape)
    return build


def assert_same(build):
    ref, got = build(torch), build(torchshim)
    assert repr(got) == repr(ref), f"\nexpected:\n{ref!r}\ngot:\n{got!r}"
    assert str(got) == str(ref)


rng = np.random.default_rng(0)
R = lambda *s: rng.standard_normal(s)  # noqa: E731

CASES = {
    # values and formatter modes
    "small_ints": t([1, 2, 3]),
    "negative_ints": t([-1, 20, -300]),
    "negative_floats": t([-1.25, -0.5, -3.75]),
    "mixed_floats": t([-1.5, 0.0, 2.25, 10.125]),
    "sci_ratio": t([1e-3, 1e2, 5.0]),
    "sci_ratio_edge": t([1.0, 1000.0, 0.5]),
    "no_sci_ratio_1000": t([1.0, 1000.0]),
    "huge": t([1e10, 2.5e10, -3e9]),
    "huge_int_valued_over_1e8": t([2e8, 1.0]),
    "small": t([1e-6, 2.5e-6]),
    "tiny_and_zero": t([0.0, 1e-5]),
    "nan_inf": t([NAN, 1.5, -INF, INF]),
    "nan_inf_int_valued": t([NAN, 2.0, -INF]),
    "all_nan": t([NAN, NAN]),
    "all_inf": t([INF, -INF]),
    "nan_inf_sci": t([NAN, 1e-7, 1e5, INF]),
    "int_valued_floats": t([1.0, 2.0, -3.0, 100.0]),
    "zeros": t([0.0, 0.0, 0.0]),
    "neg_zero": t([-0.0, 1.0]),
    "neg_zero_frac": t([-0.0, 1.5]),
    "rounding_width": t([9.99996, 0.5]),
    "single": t([3.14159]),
    "float_values_random": t(R(7)),
    "large_int_values": t([2 ** 62, -(2 ** 40), 7]),
    # dtypes
    "float64": t(R(2, 3), "float64"),
    "float64_int_valued": t([1.0, 2.0], "float64"),
    "float16": t(R(3, 2), "float16"),
    "float16_big": t([60000.0, 0.001], "float16"),
    "bfloat16": t(R(4), "bfloat16"),
    "bfloat16_sci": t([1e-8, 3.0, 1e20], "bfloat16"),
    "int32": t([[1, -2], [300, 4]], "int32"),
    "int16": t([1, -2], "int16"),
    "int8": t([-128, 127], "int8"),
    "uint8": t([0, 255, 7], "uint8"),
    "bool": t([True, False, True]),
    "bool_2d": t([[True], [False]]),
    "complex64": t([1 + 2j, -3.5 - 1j, 0.25j], "complex64"),
    "complex128": t([1 + 2j, -3.5 - 1j], "complex128"),
    "complex_sci": t([1e-6 + 1e6j, 2 - 0j], "complex64"),
    "complex_nan": t([complex(NAN, 1), complex(1, INF), complex(0, -0.0)], "complex64"),
    "complex_int_valued": t([[1 + 1j, 2 - 3j], [0j, -1j]], "complex128"),
    "complex_random": t(R(3, 3) + 1j * R(3, 3), "complex64"),
    # 0-dim
    "0d_float": t(1.5),
    "0d_int_valued": t(2.0),
    "0d_int": t(3),
    "0d_bool": t(True),
    "0d_float64": t(-0.125, "float64"),
    "0d_nan": t(NAN),
    "0d_sci": t(1e-9),
    "0d_complex": t(1 - 2j),
    "0d_uint8": t(200, "uint8"),
    "0d_bfloat16": t(1.25, "bfloat16"),
    # empty
    "empty_1d": t([]),
    "empty_1d_int64": t(np.zeros(0, np.int64)),
    "empty_1d_float64": t([], "float64"),
    "empty_2d": t(np.zeros((0, 3))),
    "empty_3d_int32": t(np.zeros((2, 0, 4)), "int32"),
    "empty_bool": t(np.zeros((3, 0), bool)),
    "empty_complex": t(np.zeros((0,)), "complex64"),
    # nesting and wrapping
    "2d": t(R(3, 4)),
    "3d_nested": t(np.arange(24.0), shape=(2, 3, 4)),
    "4d_nested": t(np.arange(36), shape=(2, 3, 2, 3)),
    "3d_ints": t(np.arange(-12, 12), shape=(2, 3, 4)),
    "wide_row": t(R(40)),
    "wide_2d": t(R(3, 25)),
    "wide_ints": t(np.arange(100)),
    "wide_float64_suffix": t(R(2, 9), "float64"),
    "wide_complex": t(R(2, 12) + 1j * R(2, 12), "complex128"),
    "wide_3d": t(R(2, 2, 30)),
    # summarised
    "arange_2000": t(np.arange(2000)),
    "arange_2000_float": t(np.arange(2000.0) / 7),
    "50x50": t(R(50, 50)),
    "20x20x20": t(R(20, 20, 20)),
    "1x2000": t(R(1, 2000)),
    "2000x1": t(R(2000, 1)),
    "summ_sci_hidden_middle": t(np.concatenate([np.ones(3), np.full(1000, 1e9), np.ones(3) * 2])),
    "summ_int32": t(np.arange(3000), "int32", shape=(30, 100)),
    "summ_bool": t(rng.random(1500) < 0.5),
    "summ_complex": t(R(40, 40) + 1j * R(40, 40), "complex64"),
    "summ_float16": t(R(1100), "float16"),
    "summ_bfloat16_2d": t(R(40, 30), "bfloat16"),
    "summ_float64": t(R(11, 100), "float64"),
    "exactly_threshold": t(np.arange(1000)),
    "threshold_plus_one": t(np.arange(1001)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_repr(name):
    assert_same(CASES[name])


OPTION_CASES = ["small_ints", "mixed_floats", "sci_ratio", "huge", "small", "nan_inf", "int_valued_floats",
                "float64", "complex64", "0d_float", "0d_complex", "empty_2d", "3d_nested", "wide_row",
                "wide_complex", "arange_2000", "50x50", "20x20x20", "summ_complex", "bool", "neg_zero_frac",
                "summ_bool", "1x2000", "2000x1", "wide_float64_suffix"]

OPTIONS = {
    "precision2": dict(precision=2),
    "precision0": dict(precision=0),
    "precision8": dict(precision=8),
    "sci_false": dict(sci_mode=False),
    "sci_true": dict(sci_mode=True),
    "threshold5_edge2": dict(threshold=5, edgeitems=2),
    "edgeitems0": dict(threshold=5, edgeitems=0),
    "edgeitems1": dict(edgeitems=1),
    "linewidth40": dict(linewidth=40),
    "linewidth200": dict(linewidth=200),
    "linewidth5": dict(linewidth=5),
    "profile_full": dict(profile="full"),
    "profile_short": dict(profile="short"),
    "short_with_override": dict(profile="short", precision=6, sci_mode=True),
}


@pytest.mark.parametrize("opt", list(OPTIONS))
@pytest.mark.parametrize("name", OPTION_CASES)
def test_repr_with_options(opt, name):
    opts(**OPTIONS[opt])
    assert_same(CASES[name])


def test_options_persist_and_profile_default_restores():
    opts(precision=2)
    opts(threshold=5)  # precision stays 2, sci_mode resets to None each call
    assert_same(t(np.arange(10) / 3))
    opts(sci_mode=True)
    opts(linewidth=60)  # sci_mode back to None
    assert_same(t([1.5, 2.5]))
    opts(profile="default")
    assert_same(t(np.arange(10) / 3))
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()


def test_printoptions_context_manager():
    with _tensor_str.printoptions(precision=1), torch._tensor_str.printoptions(precision=1):
        assert_same(t([1.25, 2.5]))
    assert_same(t([1.25, 2.5]))
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()


def test_unknown_profile_ignored():
    opts(profile="nonsense", precision=3)
    assert_same(t([1.23456, 2.0]))


def test_threshold_float_and_inf():
    opts(threshold=math.inf)
    assert_same(t(np.arange(1500)))
    opts(threshold=10.5)
    assert_same(t(np.arange(11)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_default_dtype_float64(dtype):
    for lib in LIBS:
        lib.set_default_dtype(lib.float64)
    assert_same(t([1.5, 2.0], dtype))
    assert_same(t([], dtype))


def test_requires_grad():
    def build(lib, data, dtype="float32"):
        x = lib.tensor(data, dtype=getattr(lib, dtype))
        return x.requires_grad_(True)
    for data, dtype in [([1.5, -2.0], "float32"), (R(2, 9).tolist(), "float64"), (2.5, "float32"),
                        (R(20).tolist(), "float32"), (R(30, 40).tolist(), "float64")]:
        assert_same(lambda lib, data=data, dtype=dtype: build(lib, data, dtype))
    opts(edgeitems=0, threshold=3)
    assert_same(lambda lib: build(lib, [1.0, 2.0, 3.0, 4.0]))


@pytest.mark.parametrize("data,dtype", [([1.5, -2.0], "float32"), ([[1.0, 2.0]] * 4, "float64"),
                                        (2.5, "float32"), (list(range(40)), "float64")])
def test_grad_fn(data, dtype):
    def build(lib):
        base = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        return repr(base + 0), repr(Twice.apply(base)), repr(base.sum())

    assert build(torchshim) == build(torch)


def test_device_suffix():
    from torchshim._storage import Storage
    x = torchshim.tensor([1.0, 2.0])
    x._storage = Storage(x._storage.array, torchshim.device("cuda", 0))  # a fake cuda placement
    assert repr(x) == "tensor([1., 2.], device='cuda:0')"
    y = torchshim.tensor(np.arange(15, dtype=np.float64) / 3)
    y._storage = Storage(y._storage.array, torchshim.device("cuda", 1))
    y.requires_grad_(True)
    # what PyTorch's own printer makes of these contents and suffixes
    ts = torch._tensor_str
    ref = ts._add_suffixes("tensor(" + ts._tensor_str(torch.tensor(np.arange(15, dtype=np.float64) / 3), 7),
                           ["device='cuda:1'", "dtype=torch.float64", "requires_grad=True"], 7, False)
    assert repr(y) == ref


@pytest.mark.skipif(not torchshim.cuda.is_available(), reason="needs a GPU")
def test_device_suffix_real_gpu():
    x = torchshim.tensor([[1.5, 2.0], [3.0, -4.0]]).cuda()
    assert repr(x) == repr(torch.tensor([[1.5, 2.0], [3.0, -4.0]]))[:-1] + ", device='cuda:0')"


def test_views_print_their_own_contents():
    assert_same(lambda lib: lib.tensor(np.arange(24.0)).reshape(4, 6).t()[1:, ::2])
    assert_same(lambda lib: lib.tensor(np.arange(2400.0)).reshape(40, 60).t())


def test_subclass_prefix_and_parameter_hook():
    class MyTensor(torchshim.Tensor):
        pass

    class TorchMyTensor(torch.Tensor):
        pass
    TorchMyTensor.__name__ = "MyTensor"

    x = torchshim.tensor([[1.5, 2.0], [3.0, 4.0]])
    x.__class__ = MyTensor
    assert repr(x) == repr(torch.tensor([[1.5, 2.0], [3.0, 4.0]]).as_subclass(TorchMyTensor))

    class Parameter(torchshim.Tensor):
        _repr_prefix = "Parameter containing:\n"

    p = torchshim.tensor([[1.5, 2.0], [3.0, 4.0]])
    p.__class__ = Parameter
    p.requires_grad_(True)
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([[1.5, 2.0], [3.0, 4.0]])))


FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]


def _float_arrays():
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6)
    elements = st.one_of(
        st.floats(-1e3, 1e3, width=16),
        st.floats(width=16, allow_nan=True, allow_infinity=True),
        st.integers(-50, 50).map(float),
        st.sampled_from([0.0, -0.0, 1e-5, 1e9, 0.5]),
    )
    return hnp.arrays(np.float64, shapes, elements=elements)


# torchshim.tensor(big float64 array, dtype=float16) warns "overflow encountered in cast"; PyTorch is silent
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@settings(max_examples=50, deadline=None)
@given(arr=_float_arrays(), dtype=st.sampled_from(FLOAT_DTYPES))
def test_hypothesis_float_arrays(arr, dtype):
    assert_same(t(arr, dtype))


@settings(max_examples=30, deadline=None)
@given(arr=_float_arrays(), precision=st.integers(0, 8), sci=st.sampled_from([None, True, False]),
       linewidth=st.integers(10, 120), threshold=st.integers(1, 60), edgeitems=st.integers(0, 4))
def test_hypothesis_with_options(arr, precision, sci, linewidth, threshold, edgeitems):
    opts(precision=precision, sci_mode=sci, linewidth=linewidth, threshold=threshold, edgeitems=edgeitems)
    try:
        assert_same(t(arr))
    finally:
        opts(profile="default")


@settings(max_examples=30, deadline=None)
@given(re=_float_arrays(), dtype=st.sampled_from(["complex64", "complex128"]))
def test_hypothesis_complex(re, dtype):
    with np.errstate(invalid="ignore"):
        z = re + 1j * np.flip(re)
    assert_same(t(z, dtype))


@settings(max_examples=30, deadline=None)
@given(arr=hnp.arrays(np.int64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
                      elements=st.integers(-10 ** 6, 10 ** 6)),
       dtype=st.sampled_from(["int64", "int32", "bool", "uint8"]))
def test_hypothesis_int_arrays(arr, dtype):
    if dtype == "uint8":
        arr = np.abs(arr) % 256
    assert_same(t(arr, dtype))

"""torch.testing against real PyTorch: assert_close's outcome and full report text on the same inputs
(tensors of each dtype, scalars, sequences, mappings, NumPy arrays, nan/inf, complex, tolerances, msg=),
assert_allclose (deprecated), make_tensor's value ranges, dtypes, shapes, flags and errors, FileCheck."""
import math
import warnings

import numpy as np
import pytest
import torch

import torchshim

NAN, INF = float("nan"), float("inf")



def _linear(T):
    """An nn.Linear(2, 2) with fixed parameters."""
    lin = T.nn.Linear(2, 2)
    with T.no_grad():
        lin.weight.copy_(T.tensor([[1., 2.], [3., 4.]]))
        lin.bias.copy_(T.tensor([0.5, -1.]))
    return lin


# name -> fn(T, testing): the call, with T the library (torch / torchshim)
CLOSE_CASES = {
    "float": lambda T, t: t.assert_close(T.tensor([1., 2., 3.]), T.tensor([1., 2.5, 3.])),
    "float_pass_within_tol": lambda T, t: t.assert_close(T.tensor([1., 2.]), T.tensor([1., 2.000001])),
    "0d": lambda T, t: t.assert_close(T.tensor(1.), T.tensor(2.)),
    "0d_f32_repr": lambda T, t: t.assert_close(T.tensor(0.1), T.tensor(0.2)),
    "0d_int": lambda T, t: t.assert_close(T.tensor(3), T.tensor(5)),
    "0d_bool": lambda T, t: t.assert_close(T.tensor(True), T.tensor(False)),
    "0d_half": lambda T, t: t.assert_close(T.tensor(3., dtype=T.half), T.tensor(5., dtype=T.half)),
    "0d_complex": lambda T, t: t.assert_close(T.tensor(1 + 1j), T.tensor(1 + 2j)),
    "int": lambda T, t: t.assert_close(T.tensor([1, 2, 3]), T.tensor([1, 5, 3])),
    "int8": lambda T, t: t.assert_close(T.tensor([1, 2], dtype=T.int8), T.tensor([1, 3], dtype=T.int8)),
    "uint8_no_wrap": lambda T, t: t.assert_close(T.tensor([1, 200], dtype=T.uint8),
                                                  T.tensor([1, 3], dtype=T.uint8)),
    "int64_overflow": lambda T, t: t.assert_close(T.tensor([2 ** 62]), T.tensor([-2 ** 62])),
    "int_with_atol": lambda T, t: t.assert_close(T.tensor([1, 2]), T.tensor([1, 3]), atol=1, rtol=0),
    "bool": lambda T, t: t.assert_close(T.tensor([True, False]), T.tensor([True, True])),
    "bool_vs_int_dtype": lambda T, t: t.assert_close(T.tensor([True]), T.tensor([1])),
    "bool_vs_int_values": lambda T, t: t.assert_close(T.tensor([True]), T.tensor([2]), check_dtype=False),
    "half": lambda T, t: t.assert_close(T.tensor([1., 2.], dtype=T.half), T.tensor([1., 2.01], dtype=T.half)),
    "bfloat16_within": lambda T, t: t.assert_close(T.tensor([1., 2.], dtype=T.bfloat16),
                                                   T.tensor([1., 2.03], dtype=T.bfloat16)),
    "bfloat16_off": lambda T, t: t.assert_close(T.tensor([1., 2.], dtype=T.bfloat16),
                                                T.tensor([1., 2.5], dtype=T.bfloat16)),
    "float64": lambda T, t: t.assert_close(T.tensor([1., 2.], dtype=T.float64),
                                           T.tensor([1., 2.000001], dtype=T.float64)),
    "complex": lambda T, t: t.assert_close(T.tensor([1 + 1j, 2]), T.tensor([1 + 1j, 3])),
    "complex_nan": lambda T, t: t.assert_close(T.tensor([complex(NAN, 1)]), T.tensor([complex(NAN, 1)])),
    "complex_nan_equal": lambda T, t: t.assert_close(T.tensor([complex(NAN, 1)]), T.tensor([complex(NAN, 2)]),
                                                     equal_nan=True),
    "complex_vs_float": lambda T, t: t.assert_close(T.tensor([1 + 0j]), T.tensor([2.]), check_dtype=False),
    "nan": lambda T, t: t.assert_close(T.tensor([NAN, 1.]), T.tensor([NAN, 1.])),
    "nan_equal": lambda T, t: t.assert_close(T.tensor([NAN, 1.]), T.tensor([NAN, 2.]), equal_nan=True),
    "inf_vs_minus_inf": lambda T, t: t.assert_close(T.tensor([INF, 1.]), T.tensor([-INF, 1.])),
    "inf_vs_finite": lambda T, t: t.assert_close(T.tensor([INF, 1.]), T.tensor([1., 1.])),
    "expected_zero": lambda T, t: t.assert_close(T.tensor([1., 1e-3]), T.tensor([1., 0.])),
    "actual_zero": lambda T, t: t.assert_close(T.tensor([1., 0.]), T.tensor([1., 1e-3])),
    "2d_index": lambda T, t: t.assert_close(T.tensor([[1., 2.], [3., 4.]]), T.tensor([[1., 2.], [3., 5.]])),
    "first_of_ties": lambda T, t: t.assert_close(T.arange(100.).reshape(10, 10),
                                                 T.arange(100.).reshape(10, 10) + T.eye(10)),
    "percent_rounding": lambda T, t: t.assert_close(T.zeros(3000), T.cat([T.ones(1), T.zeros(2999)])),
    "percent_two_thirds": lambda T, t: t.assert_close(T.zeros(3), T.tensor([1., 1., 0.])),
    "large_values": lambda T, t: t.assert_close(T.tensor([1e10, 2.]), T.tensor([1.1e10, 2.])),
    "rtol_atol_zero": lambda T, t: t.assert_close(T.tensor([1., 2.]), T.tensor([1., 3.]), rtol=0, atol=0),
    "custom_tol_pass": lambda T, t: t.assert_close(T.tensor([1.]), T.tensor([1.001]), rtol=1e-2, atol=0),
    "custom_tol_fail": lambda T, t: t.assert_close(T.tensor([1.]), T.tensor([1.1]), rtol=1e-2, atol=1e-3),
    "rtol_only": lambda T, t: t.assert_close(1., 1., rtol=1e-3),
    "atol_only": lambda T, t: t.assert_close(T.tensor([1.]), T.tensor([1.]), atol=1e-3),
    "shape": lambda T, t: t.assert_close(T.zeros(2), T.zeros(3)),
    "shape_empty": lambda T, t: t.assert_close(T.zeros(0, 3), T.zeros(3, 0)),
    "empty_pass": lambda T, t: t.assert_close(T.zeros(0), T.zeros(0)),
    "dtype": lambda T, t: t.assert_close(T.zeros(2), T.zeros(2, dtype=T.float64)),
    "dtype_off": lambda T, t: t.assert_close(T.zeros(2), T.ones(2, dtype=T.float64), check_dtype=False),
    "dtype_off_int_float": lambda T, t: t.assert_close(T.tensor([1, 2]), T.tensor([1., 2.5]),
                                                       check_dtype=False),
    "dtype_off_half_f32": lambda T, t: t.assert_close(T.tensor([1.], dtype=T.half), T.tensor([1.01]),
                                                      check_dtype=False),
    "stride": lambda T, t: t.assert_close(T.zeros(2, 3).t(), T.zeros(3, 2), check_stride=True),
    "stride_ignored": lambda T, t: t.assert_close(T.zeros(2, 3).t(), T.zeros(3, 2)),
    "requires_grad_ignored": lambda T, t: t.assert_close(T.zeros(2, requires_grad=True), T.zeros(2)),
    "requires_grad_report": lambda T, t: t.assert_close(T.tensor([1.], requires_grad=True), T.tensor([2.])),
    "conj_view": lambda T, t: t.assert_close(T.tensor([1 + 1j]).conj(), T.tensor([1 - 1j])),
    "parameter_vs_tensor": lambda T, t: t.assert_close(T.nn.Parameter(T.zeros(2)), T.zeros(2)),
    "no_subclasses": lambda T, t: t.assert_close(T.nn.Parameter(T.zeros(2)), T.zeros(2),
                                                  allow_subclasses=False),
    # Python and NumPy scalars
    "float_scalars": lambda T, t: t.assert_close(1.0, 1.1),
    "int_scalars": lambda T, t: t.assert_close(1, 2),
    "int_scalars_zero": lambda T, t: t.assert_close(1, 0),
    "float_scalar_zero": lambda T, t: t.assert_close(1., 0.),
    "complex_scalars": lambda T, t: t.assert_close(1 + 1j, 1 + 2j),
    "nan_scalars": lambda T, t: t.assert_close(NAN, NAN),
    "nan_scalars_equal": lambda T, t: t.assert_close(NAN, NAN, equal_nan=True),
    "inf_scalars": lambda T, t: t.assert_close(INF, INF),
    "inf_scalars_sign": lambda T, t: t.assert_close(INF, -INF),
    "bool_scalars": lambda T, t: t.assert_close(True, False),
    "int_vs_float": lambda T, t: t.assert_close(1, 1.0),
    "float_vs_complex": lambda T, t: t.assert_close(1.0, 1 + 0j),
    "int_vs_float_nodtype": lambda T, t: t.assert_close(1, 1.5, check_dtype=False),
    "float_vs_complex_nodtype": lambda T, t: t.assert_close(1.0, 1 + 1j, check_dtype=False),
    "bool_vs_int": lambda T, t: t.assert_close(True, 1),
    "bool_vs_float_nested": lambda T, t: t.assert_close([True], [1.0]),
    "np_float32_vs_float": lambda T, t: t.assert_close(np.float32(1.0), 1.0),
    "np_float64_vs_float": lambda T, t: t.assert_close(np.float64(1.0), 1.5),
    "np_int_vs_int": lambda T, t: t.assert_close(np.int64(1), 2),
    "np_scalars": lambda T, t: t.assert_close(np.float32(1.0), np.float32(2.0)),
    "np_bool": lambda T, t: t.assert_close(np.bool_(True), np.bool_(False)),
    "np_bool_vs_bool": lambda T, t: t.assert_close(np.bool_(True), True),
    "np_bool_vs_int": lambda T, t: t.assert_close(np.bool_(True), 1),
    "none": lambda T, t: t.assert_close(None, None),
    "none_vs_int": lambda T, t: t.assert_close(None, 1),
    "str": lambda T, t: t.assert_close("a", "a"),
    "object": lambda T, t: t.assert_close(1j, object()),
    "tensor_vs_float": lambda T, t: t.assert_close(T.tensor(1.), 1.0),
    "float_vs_tensor": lambda T, t: t.assert_close(1.0, T.tensor(1.)),
    # NumPy arrays
    "np_arrays": lambda T, t: t.assert_close(np.array([1., 2.]), np.array([1., 3.])),
    "np_0d": lambda T, t: t.assert_close(np.array(1.), np.array(2.)),
    "np_int": lambda T, t: t.assert_close(np.array([1, 2]), np.array([1, 3])),
    "np_dtype": lambda T, t: t.assert_close(np.array([1.], dtype=np.float32), np.array([1.])),
    "np_shape": lambda T, t: t.assert_close(np.zeros(2), np.zeros(3)),
    "np_uint16": lambda T, t: t.assert_close(np.array([1], dtype=np.uint16), np.array([2], dtype=np.uint16)),
    "np_strings": lambda T, t: t.assert_close(np.array(["a"]), np.array(["a"])),
    "np_vs_tensor": lambda T, t: t.assert_close(np.array([1., 2.]), T.tensor([1., 2.])),
    "tensor_vs_np": lambda T, t: t.assert_close(T.tensor([1., 2.]), np.array([1., 2.])),
    # sequences and mappings
    "list": lambda T, t: t.assert_close([1., 2.], [1., 3.]),
    "tuple_vs_list": lambda T, t: t.assert_close((1, 2), [1, 2]),
    "list_of_tensors": lambda T, t: t.assert_close([T.tensor(1.), T.tensor([2., 3.])],
                                                   [T.tensor(1.), T.tensor([2., 4.])]),
    "list_of_np": lambda T, t: t.assert_close([np.array([1.])], [np.array([2.])]),
    "list_length": lambda T, t: t.assert_close([1, 2], [1, 2, 3]),
    "list_vs_tensor": lambda T, t: t.assert_close([1, 2], T.tensor([1, 2])),
    "structure_first": lambda T, t: t.assert_close([1., "a"], [2., "a"]),
    "nested_length": lambda T, t: t.assert_close([1., [1, 2]], [2., [1]]),
    "tensor_in_list_vs_number": lambda T, t: t.assert_close([T.tensor(1.)], [1.]),
    "set": lambda T, t: t.assert_close({1}, {1}),
    "size": lambda T, t: t.assert_close(T.Size([2, 3]), T.Size([2, 4])),
    "dict": lambda T, t: t.assert_close({"a": 1., "b": T.tensor([1.])}, {"a": 1., "b": T.tensor([2.])}),
    "dict_keys": lambda T, t: t.assert_close({"a": 1}, {"b": 1}),
    "dict_missing": lambda T, t: t.assert_close({"a": 1}, {"a": 1, "b": 1}),
    "dict_extra": lambda T, t: t.assert_close({"a": 1, "c": 2, "b": 1}, {"a": 1}),
    "dict_sorted_order": lambda T, t: t.assert_close({"b": 1., "a": 1.}, {"a": 2., "b": 2.}),
    # (unsortable keys: PyTorch's order follows a set's, which changes with PYTHONHASHSEED; not compared)
    "dict_tuple_key": lambda T, t: t.assert_close({(0, 1): 1.}, {(0, 1): 3.}),
    "dict_vs_list": lambda T, t: t.assert_close({"a": 1}, [1]),
    "nested": lambda T, t: t.assert_close({"a": [1., {"c": 2.}]}, {"a": [1., {"c": 3.}]}),
    "state_dicts": lambda T, t: t.assert_close(_linear(T).state_dict(),
                                               {k: v * 1.5 for k, v in _linear(T).state_dict().items()}),
    # msg=
    "msg_str": lambda T, t: t.assert_close(1., 2., msg="custom"),
    "msg_callable": lambda T, t: t.assert_close(T.tensor([1.]), T.tensor([2.]), msg=lambda m: "X" + m + "Y"),
    "msg_attribute": lambda T, t: t.assert_close(T.zeros(2), T.zeros(3), msg="boom"),
    "msg_callable_attribute": lambda T, t: t.assert_close(T.zeros(2), T.zeros(3),
                                                           msg=lambda m: "<" + m + ">"),
    "msg_callable_nested": lambda T, t: t.assert_close([1., 2.], [1., 3.], msg=lambda m: "<" + m + ">"),
    "msg_type": lambda T, t: t.assert_close(1, 1.0, msg="m"),
    "msg_none": lambda T, t: t.assert_close(None, 1, msg="m"),
    "msg_bool": lambda T, t: t.assert_close(True, False, msg="m"),
    "msg_not_for_structure": lambda T, t: t.assert_close([1, 2], [1, 2, 3], msg="m"),
    "msg_not_for_keys": lambda T, t: t.assert_close({"a": 1}, {"b": 1}, msg="m"),
    "msg_not_for_type_error": lambda T, t: t.assert_close("a", "b", msg="m"),
}

ALLCLOSE_CASES = {
    "tensors": lambda T, t: t.assert_allclose(T.tensor([1.]), T.tensor([2.])),
    "list_vs_tensor": lambda T, t: t.assert_allclose([1., 2.], T.tensor([1., 2.])),
    "nan_equal_default": lambda T, t: t.assert_allclose(T.tensor([NAN]), T.tensor([NAN])),
    "numbers": lambda T, t: t.assert_allclose(1., 2.),
    "dtype_free": lambda T, t: t.assert_allclose(T.tensor([1.]), T.tensor([1.], dtype=T.float64)),
    "float32_old_tol": lambda T, t: t.assert_allclose(T.tensor([1.]), T.tensor([1.00005])),
    "float64_old_tol": lambda T, t: t.assert_allclose(T.tensor([1.], dtype=T.float64),
                                                      T.tensor([1.00002], dtype=T.float64)),
    "half_old_tol": lambda T, t: t.assert_allclose(T.tensor([1.], dtype=T.half),
                                                   T.tensor([1.001], dtype=T.half)),
    "int_vs_float": lambda T, t: t.assert_allclose(T.tensor([1]), T.tensor([1.5])),
    "msg": lambda T, t: t.assert_allclose(T.tensor([1.]), T.tensor([2.]), msg="mm"),
    "rtol_only": lambda T, t: t.assert_allclose(T.tensor([1.]), T.tensor([2.]), rtol=1),
    "numpy": lambda T, t: t.assert_allclose(np.array([1.]), T.tensor([2.])),
    "shape": lambda T, t: t.assert_allclose(T.tensor([1., 1.]), T.tensor([1.])),
}


def _outcome(lib, fn):
    """('ok', warnings) or (exception type name, message, warnings)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn(lib, lib.testing)
            result = ("ok",)
        except Exception as e:  # noqa: BLE001  the outcome is what is compared
            result = (type(e).__name__, str(e))
    return result + (sorted({(x.category.__name__, str(x.message)) for x in w}),)


@pytest.mark.parametrize("case", sorted(CLOSE_CASES))
def test_assert_close(case):
    assert _outcome(torchshim, CLOSE_CASES[case]) == _outcome(torch, CLOSE_CASES[case])


@pytest.mark.parametrize("case", sorted(ALLCLOSE_CASES))
def test_assert_allclose(case):
    assert _outcome(torchshim, ALLCLOSE_CASES[case]) == _outcome(torch, ALLCLOSE_CASES[case])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128",
                                   "int8", "uint8", "int32", "int64", "bool"])
@pytest.mark.parametrize("scale", [1e-8, 1e-6, 1e-4, 1e-2])
def test_default_tolerance_boundaries(dtype, scale):
    """Random values and a relative perturbation around the default tolerances: same outcome and report."""
    rng = np.random.default_rng(int(scale * 1e9) % 1000 + len(dtype))
    base = rng.uniform(-3, 3, size=(4, 5))
    other = base * (1 + scale * rng.standard_normal((4, 5)))

    def fn(T, t):
        dt = getattr(T, dtype)
        a = T.tensor(base).to(dt) if dtype != "bool" else T.tensor(base > 0)
        e = T.tensor(other).to(dt) if dtype != "bool" else T.tensor(other > 0.1)
        t.assert_close(a, e)

    assert _outcome(torchshim, fn) == _outcome(torch, fn)


def test_filecheck_is_a_clear_error():
    assert hasattr(torch.testing, "FileCheck")
    with pytest.raises(NotImplementedError, match="TorchScript IR"):
        torchshim.testing.FileCheck()


def test_public_names():
    assert sorted(n for n in dir(torchshim.testing) if not n.startswith("_")) == \
        sorted(n for n in dir(torch.testing) if not n.startswith("_"))


# ---- make_tensor ---------------------------------------------------------------------------------------
# (dtype, low, high) -> PyTorch's range: values lie in [lo, hi] (closed: ints shown by their largest value)
def _values(x):
    x = x.detach()
    if x.dtype.is_complex:
        return np.concatenate([x.real.to(torchshim.float64).numpy().ravel(),
                               x.imag.to(torchshim.float64).numpy().ravel()])
    return x.to(torchshim.float64).numpy().ravel()


def _torch_values(x):
    x = x.detach()
    if x.dtype.is_complex:
        return np.concatenate([x.real.double().numpy().ravel(), x.imag.double().numpy().ravel()])
    return x.double().numpy().ravel()


RANGE_CASES = [
    ("float32", None, None), ("float64", None, None), ("float16", None, None), ("bfloat16", None, None),
    ("complex64", None, None), ("complex128", 1, 2), ("int64", None, None), ("int32", None, None),
    ("int16", None, None), ("int8", None, None), ("uint8", None, None), ("uint16", None, None),
    ("uint32", None, None), ("uint64", None, None), ("bool", None, None), ("float32", 2, 3),
    ("float32", 5, None), ("int64", -3, 3), ("int64", 1.5, 3.5), ("int64", 2, 3), ("int8", -1000, 1000),
    ("int8", 0, 127), ("int8", -1000, -127), ("uint8", -5, 3), ("float16", -1e300, 1e300),
    ("float32", -INF, INF), ("float8_e4m3fn", None, None), ("float8_e5m2", None, None),
]


@pytest.mark.parametrize("dtype,low,high", RANGE_CASES)
def test_make_tensor_range(dtype, low, high):
    """Each draw lies inside PyTorch's interval and covers it (min/max of many draws, as PyTorch's do)."""
    torch.manual_seed(0)
    torchshim.manual_seed(0)
    ref = torch.testing.make_tensor(40, 100, dtype=getattr(torch, dtype), device="cpu", low=low, high=high)
    got = torchshim.testing.make_tensor(40, 100, dtype=getattr(torchshim, dtype), device="cpu", low=low,
                                        high=high)
    assert str(got.dtype) == str(ref.dtype) and tuple(got.shape) == tuple(ref.shape)
    r, g = _torch_values(ref), _values(got)
    if dtype in ("bool",) or dtype.startswith(("int", "uint")):
        assert set(np.unique(g)) == set(np.unique(r))  # 4000 draws hit every value of these small ranges
    else:
        span = r.max() - r.min()
        assert r.min() - 0.02 * span <= g.min() <= r.min() + 0.02 * span + 0.1
        assert r.max() - 0.02 * span - 0.1 <= g.max() <= r.max() + 0.02 * span


@pytest.mark.parametrize("shape", [(), (0,), (3,), ((2, 3),), ([2, 3],), (2, 3, 4)])
def test_make_tensor_shapes(shape):
    ref = torch.testing.make_tensor(*shape, dtype=torch.float32, device="cpu")
    shim_shape = tuple(torchshim.Size(s) if isinstance(s, tuple) else s for s in shape)
    got = torchshim.testing.make_tensor(*shim_shape, dtype=torchshim.float32, device="cpu")
    assert tuple(got.shape) == tuple(ref.shape)
    assert got.is_contiguous() and got.stride() == ref.stride()


@pytest.mark.parametrize("shape", [(3, 4), (3, 1), (3, 0), (1,), (5,), ()])
def test_make_tensor_noncontiguous(shape):
    ref = torch.testing.make_tensor(shape, dtype=torch.float32, device="cpu", noncontiguous=True)
    got = torchshim.testing.make_tensor(shape, dtype=torchshim.float32, device="cpu", noncontiguous=True)
    assert (got.stride(), got.is_contiguous(), got.storage_offset()) == \
        (ref.stride(), ref.is_contiguous(), ref.storage_offset())


def test_make_tensor_memory_format_and_grad():
    ref = torch.testing.make_tensor(2, 3, 4, 5, dtype=torch.float32, device="cpu",
                                    memory_format=torch.channels_last, requires_grad=True)
    got = torchshim.testing.make_tensor(2, 3, 4, 5, dtype=torchshim.float32, device="cpu",
                                        memory_format=torchshim.channels_last, requires_grad=True)
    assert (got.stride(), got.requires_grad, got.is_leaf) == (ref.stride(), ref.requires_grad, ref.is_leaf)
    got2 = torchshim.testing.make_tensor(2, 2, dtype=torchshim.float32, device="cpu", noncontiguous=True,
                                         requires_grad=True)
    assert got2.is_leaf and got2.requires_grad and not got2.is_contiguous()


@pytest.mark.parametrize("dtype,low,high", [("int64", -1, 1), ("int64", 0, 1), ("float32", 0, 0),
                                            ("float16", 0, 1e-9), ("complex64", 0, 0), ("bfloat16", 0, 0),
                                            ("bool", None, None)])
def test_make_tensor_exclude_zero(dtype, low, high):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ref = torch.testing.make_tensor(1000, dtype=getattr(torch, dtype), device="cpu", low=low, high=high,
                                        exclude_zero=True)
        got = torchshim.testing.make_tensor(1000, dtype=getattr(torchshim, dtype), device="cpu", low=low,
                                            high=high, exclude_zero=True)
    assert set(np.unique(_values(got)).tolist()) == set(np.unique(_torch_values(ref)).tolist())


MAKE_ERRORS = {
    "low_ge_high_int": dict(dtype="int32", low=3, high=2),
    "low_eq_high_int": dict(dtype="int64", low=2, high=2),
    "low_gt_high_float": dict(dtype="float32", low=3, high=2),
    "high_below_default_low": dict(dtype="float32", high=-20),
    "nan_low": dict(dtype="float32", low=NAN),
    "nan_high": dict(dtype="float16", low=1, high=NAN),
    "inf_low_int": dict(dtype="int64", low=INF),
    "outside_int8": dict(dtype="int8", low=200, high=300),
    "below_uint8": dict(dtype="uint8", low=-300, high=-200),
    "outside_half": dict(dtype="float16", low=70000., high=80000.),
    "requires_grad_int": dict(dtype="int64", requires_grad=True),
    "requires_grad_bool": dict(dtype="bool", requires_grad=True),
    "bool_low_high": dict(dtype="bool", low=5, high=1),
    "noncontiguous_and_memory_format": dict(dtype="float32", noncontiguous=True,
                                            memory_format="channels_last"),
    "low_equals_high_float_warns": dict(dtype="float32", low=2, high=2),
}


@pytest.mark.parametrize("case", sorted(MAKE_ERRORS))
def test_make_tensor_errors(case):
    def fn(T, t):
        kw = dict(MAKE_ERRORS[case])
        kw["dtype"] = getattr(T, kw["dtype"])
        if "memory_format" in kw:
            kw["memory_format"] = getattr(T, kw["memory_format"])
        shape = (2, 3, 4, 5) if "memory_format" in kw else (3,)
        x = t.make_tensor(*shape, device="cpu", **kw)
        assert str(x.dtype) == str(kw["dtype"])

    assert _outcome(torchshim, fn) == _outcome(torch, fn)


def test_make_tensor_low_equals_high_float_is_full():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        got = torchshim.testing.make_tensor(4, dtype=torchshim.float32, device="cpu", low=1.5, high=1.5)
    assert got.tolist() == [1.5] * 4


def test_make_tensor_missing_keywords():
    for kw in ({"dtype": torchshim.float32}, {"device": "cpu"}):
        with pytest.raises(TypeError, match="missing 1 required keyword-only argument"):
            torchshim.testing.make_tensor(2, **kw)


def test_make_tensor_seeded():
    torchshim.manual_seed(3)
    a = torchshim.testing.make_tensor(5, dtype=torchshim.float32, device="cpu")
    torchshim.manual_seed(3)
    b = torchshim.testing.make_tensor(5, dtype=torchshim.float32, device="cpu")
    assert a.tolist() == b.tolist() and not math.isnan(a.sum().item())

"""Issue 10, names and argument forms: `torch.*` constants and predicates, NumPy-style keyword aliases
(`axis=`, `keepdims=`, `x1`/`x2`, ...), `range` indices, the top-level in-place functions (`torch.abs_`),
Tensor attributes (`is_xla`, `name`, `output_nr`, ...) and the Tensor methods of ops/tensor_misc.py, each
against real torch."""
import math
import warnings

import numpy as np
import pytest
import torch

import torchshim
from harness import Arg, check


# ---- constants and predicates ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["pi", "e", "inf", "nan", "newaxis"])
def test_constants(name):
    a, b = getattr(torch, name), getattr(torchshim, name)
    if isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b and type(a) is type(b)


PREDICATES = ["is_floating_point", "is_complex", "is_signed", "numel", "get_device", "is_nonzero",
              "is_inference", "is_distributed"]


@pytest.mark.parametrize("name", PREDICATES)
@pytest.mark.parametrize("spec", [Arg((3,), "float32"), Arg((1,), "int64"), Arg((), "complex64"),
                                  Arg((0,), "bool"), Arg((1,), "uint8")], ids=str)
def test_predicates(name, spec):
    check(lambda T, x: getattr(T, name)(x), (spec,))


@pytest.mark.parametrize("name", PREDICATES + ["is_tensor", "is_storage", "typename"])
def test_predicates_on_non_tensors(name):
    check(lambda T: getattr(T, name)([1.0]))


def test_is_same_size_and_method_forms():
    check(lambda T, a, b: (T.is_same_size(a, b), a.is_same_size(b), a.is_nonzero() if a.numel() == 1 else 0),
          (Arg((1,)), Arg((1,))))
    check(lambda T, a, b: T.is_same_size(a, b), (Arg((2, 3)), Arg((3, 2))))
    check(lambda T, a: T.is_same_size(a, 1), (Arg((2,)),))


def test_typename_and_storage():
    for T in (torch, torchshim):
        x = T.zeros(2, dtype=T.float64)
        assert T.typename(x) == "torch.DoubleTensor"
        assert T.is_storage(x.untyped_storage()) and not T.is_storage(x)
        assert T.is_tensor(x) and not T.is_tensor(x.tolist())
    shim = torchshim.typename(torchshim.nn.Linear)
    assert shim == torch.typename(torch.nn.Linear).replace("torch", "torchshim")
    assert torchshim.typename(3) == torch.typename(3) == "int"


def test_inference_mode_enabled():
    for T in (torch, torchshim):
        assert not T.is_inference_mode_enabled()
        with T.inference_mode():
            assert T.is_inference_mode_enabled()
            with T.inference_mode(False):
                assert not T.is_inference_mode_enabled()
        assert not T.is_inference_mode_enabled()


def test_tensor_flags():
    check(lambda T, x: (x.is_xla, x.is_mps, x.is_ipu, x.is_xpu, x.is_mtia, x.is_maia, x.is_vulkan, x.name,
                        x.output_nr, x.dim_order(), x.t().dim_order(), x.grad_dtype,
                        x.const_data_ptr() == x.data_ptr()), (Arg((2, 3)),))
    check(lambda T, x: x.xpu(), (Arg((2,)),))
    check(lambda T, x: x.ipu(), (Arg((2,)),))
    check(lambda T, x: T.unbind(x.requires_grad_(), 0)[1].output_nr, (Arg((2, 3)),))


def test_volatile_warns():
    for T in (torch, torchshim):
        x = T.zeros(2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert x.volatile is False
        assert "volatile was removed" in str(w[0].message)


# ---- NumPy-style keyword aliases -------------------------------------------------------------------------
ALIAS_CALLS = {
    "sum_axis": lambda T, x: T.sum(x, axis=0),
    "sum_keepdims": lambda T, x: x.sum(1, keepdims=True),
    "sum_both": lambda T, x: x.sum(axis=1, keepdims=True),
    "mean_a": lambda T, x: T.mean(a=x, axis=1),
    "sum_x": lambda T, x: T.sum(x=x),
    "argmax_axis": lambda T, x: x.argmax(axis=1),
    "max_axis": lambda T, x: T.max(x, axis=1, keepdims=True),
    "std_axis": lambda T, x: x.std(axis=0),
    "cat_axis": lambda T, x: T.cat([x, x], axis=0),
    "stack_axis": lambda T, x: T.stack([x, x], axis=1),
    "softmax_axis": lambda T, x: T.softmax(x, axis=0),
    "cumsum_axis": lambda T, x: x.cumsum(axis=1),
    "squeeze_axis": lambda T, x: T.unsqueeze(x, axis=0).squeeze(axis=0),
    "add_x1_x2": lambda T, x: T.add(x1=x, x2=x),
    "sort_axis": lambda T, x: T.sort(x, axis=0).values,
    "gather_axis": lambda T, x: T.gather(x, axis=1, index=T.zeros(3, 1, dtype=T.long)),
    "dup_dim": lambda T, x: x.sum(dim=0, axis=0),
    "dup_keepdim": lambda T, x: x.sum(0, keepdim=True, keepdims=True),
    "dup_other": lambda T, x: T.add(x, other=x, x2=x),
}


@pytest.mark.parametrize("name", list(ALIAS_CALLS))
def test_numpy_keyword_aliases(name):
    check(ALIAS_CALLS[name], (Arg((3, 4)),))


# ---- range / list / numpy indices ------------------------------------------------------------------------
INDICES = {
    "range": lambda: range(2), "range_empty": lambda: range(0), "range_pair": lambda: (range(3), [0, 1, 3]),
    "slice_range": lambda: (slice(None), range(1, 3)), "range_step": lambda: range(0, 3, 2),
    "range_oob": lambda: range(5), "np_pair": lambda: (np.array([0, 2]), np.array([1, 3])),
    "range_np": lambda: (range(2), np.array([3, 0])),
}


@pytest.mark.parametrize("name", list(INDICES))
def test_range_indices_read(name):
    check(lambda T, x: x[INDICES[name]()], (Arg((3, 4)),))


@pytest.mark.parametrize("name", list(INDICES))
def test_range_indices_write(name):
    def fn(T, x):
        y = x.clone()
        y[INDICES[name]()] = -1.0
        return y
    check(fn, (Arg((3, 4)),))


def test_range_index_write_gradient():
    def fn(T, x, v):
        x = x.clone().requires_grad_()
        y = x * 1
        y[range(3), [0, 1, 2]] = v
        y.sum().backward()
        return y, x.grad
    check(fn, (Arg((3, 4)), 5.0))


# ---- torch-level in-place functions ----------------------------------------------------------------------
INPLACE = [("abs_", ()), ("sin_", ()), ("exp_", ()), ("clamp_", (-1, 1)), ("fill_", (2.0,)), ("zero_", ()),
           ("square_", ()), ("sigmoid_", ()), ("xlogy_", (2.0,)), ("nan_to_num_", ()), ("neg_", ()),
           ("trunc_", ()), ("logit_", (0.1,)), ("detach_", ()), ("round_", ()), ("rsqrt_", ())]


@pytest.mark.parametrize("name,args", INPLACE, ids=[n for n, _ in INPLACE])
def test_torch_inplace_functions(name, args):
    def fn(T, x):
        y = x.clone()
        r = getattr(T, name)(y, *args)
        assert r is y
        return y
    check(fn, (Arg((3, 4), "float32", 0.1, 0.9),))


def test_torch_inplace_function_type_error():
    check(lambda T: T.abs_([1.0]))


def test_torch_detach():
    check(lambda T, x: T.detach(x.requires_grad_()).requires_grad, (Arg((2,)),))


# ---- Tensor methods of ops/tensor_misc.py ---------------------------------------------------------------
MISC = {
    "new_empty": lambda T, x: x.new(),
    "new_sizes": lambda T, x: x.new(2, 3).shape,
    "new_data": lambda T, x: x.new([1, 2, 3]),
    "new_size_obj": lambda T, x: x.new(T.Size([2])).shape,
    "new_int": lambda T, x: x.long().new([1.5, 2]),
    "new_empty_strided": lambda T, x: (x.new_empty_strided((2, 3), (1, 2)).shape,
                                       x.new_empty_strided((2, 3), (1, 2)).stride(),
                                       x.new_empty_strided((2,), (1,), dtype=T.int32).dtype),
    "sum_to_size": lambda T, x: x.sum_to_size(1, 4),
    "sum_to_size_tuple": lambda T, x: x.sum_to_size((3, 1)),
    "sum_to_size_lead": lambda T, x: x.sum_to_size(4),
    "sum_to_size_same": lambda T, x: x.sum_to_size(3, 4),
    "sum_to_size_bad": lambda T, x: x.sum_to_size(2, 4),
    "apply_": lambda T, x: x.clone().apply_(lambda v: v * 2 + 1),
    "map_": lambda T, x: x.clone().map_(x[0], lambda a, b: a - b),
    "map2_": lambda T, x: x.clone().map2_(x, x[:, :1], lambda a, b, c: a + b * c),
    "resize_grow": lambda T, x: x.clone().resize_(4, 4)[:3].reshape(-1)[:12],
    "resize_shrink": lambda T, x: x.clone().resize_(2, 2),
    "resize_tuple": lambda T, x: x.clone().resize_((12,)),
    "resize_as_": lambda T, x: x.clone().resize_as_(T.zeros(6)),
    "resize_grad": lambda T, x: x.clone().requires_grad_().resize_(2),
}


@pytest.mark.parametrize("name", list(MISC))
def test_tensor_misc_methods(name):
    check(MISC[name], (Arg((3, 4)),))


def test_tensor_misc_sum_to_size_gradient():
    def fn(T, x):
        x = x.clone().requires_grad_()
        x.sum_to_size(1, 4).sum().backward()
        return x.grad
    check(fn, (Arg((3, 4)),))


def test_return_types():
    for n in ("frexp", "histogram", "aminmax"):
        a, b = getattr(torch.return_types, n), getattr(torchshim.return_types, n)
        assert a.n_fields == b.n_fields

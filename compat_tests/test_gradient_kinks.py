"""Gradients at kinks, ties and singular points, where PyTorch's subgradient conventions decide the answer.

Each case is checked with grad_harness.check_grad: forward values, grad_fn names, first-order gradients and
second-order gradients against real PyTorch. Inputs are explicit values (`V`), so the kink is hit exactly.
"""
import math

import pytest

from grad_harness import V, check_grad

NAN, INF = math.nan, math.inf

CASES = {
    # ---- relu-like: clamp at 0
    "relu": (lambda T, x: T.relu(x), [V([-1.0, 0.0, -0.0, 2.0])]),
    "clamp_min0": (lambda T, x: T.clamp(x, min=0), [V([-1.0, 0.0, -0.0, 2.0])]),
    "clamp_max0": (lambda T, x: T.clamp(x, max=0), [V([-1.0, 0.0, -0.0, 2.0])]),
    "clamp_min_fn": (lambda T, x: T.clamp_min(x, 0.0), [V([-1.0, 0.0, 2.0])]),
    "clamp_max_fn": (lambda T, x: T.clamp_max(x, 0.0), [V([-1.0, 0.0, 2.0])]),
    "clamp_min_tensor": (lambda T, x, m: T.clamp_min(x, m), [V([-1.0, 0.0, 2.0]), V([0.0, 0.0, 0.0])]),
    "clamp_max_tensor": (lambda T, x, m: T.clamp_max(x, m), [V([-1.0, 0.0, 2.0]), V([0.0, 0.0, 0.0])]),
    # ---- abs, sign
    "abs": (lambda T, x: T.abs(x), [V([-1.0, 0.0, -0.0, 2.0])]),
    "abs_complex": (lambda T, x: T.abs(x), [V([0j, 1 + 1j, -2j], "complex128")]),
    "sign": (lambda T, x: T.sign(x), [V([-1.0, 0.0, 2.0])]),
    "sgn": (lambda T, x: T.sgn(x), [V([-1.0, 0.0, 2.0])]),
    "sgn_complex": (lambda T, x: T.sgn(x), [V([0j, 1 + 1j, -2j], "complex128")]),
    # ---- max/min reductions with ties (full: split evenly; dim: to the returned index)
    "max_full": (lambda T, x: T.max(x), [V([[1.0, 3.0, 3.0], [0.0, 3.0, 2.0]])]),
    "min_full": (lambda T, x: T.min(x), [V([[1.0, 0.0, 3.0], [0.0, 3.0, 0.0]])]),
    "max_full_nan": (lambda T, x: T.max(x), [V([1.0, NAN, 3.0, NAN])]),
    "max_dim": (lambda T, x: T.max(x, 1), [V([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])]),
    "min_dim": (lambda T, x: T.min(x, 0, keepdim=True), [V([[1.0, 3.0, 3.0], [1.0, 2.0, 3.0]])]),
    "amax_full": (lambda T, x: T.amax(x), [V([[1.0, 3.0, 3.0], [0.0, 3.0, 2.0]])]),
    "amin_full": (lambda T, x: T.amin(x), [V([[1.0, 0.0, 3.0], [0.0, 3.0, 0.0]])]),
    "amax_dim": (lambda T, x: T.amax(x, 1), [V([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])]),
    "amin_dims": (lambda T, x: T.amin(x, (0, 2), keepdim=True), [V([[[1.0, 1.0], [0.0, 2.0]],
                                                                     [[1.0, 3.0], [0.0, 0.0]]])]),
    "amax_nan": (lambda T, x: T.amax(x, 0), [V([[1.0, NAN], [NAN, 2.0], [NAN, 2.0]])]),
    # ---- pairwise extrema with equal operands (and NaN)
    "maximum": (lambda T, x, y: T.maximum(x, y), [V([1.0, 2.0, 3.0, NAN]), V([1.0, 0.0, 4.0, 1.0])]),
    "minimum": (lambda T, x, y: T.minimum(x, y), [V([1.0, 2.0, 3.0, NAN]), V([1.0, 0.0, 4.0, 1.0])]),
    "maximum_self": (lambda T, x: T.maximum(x, x), [V([1.0, -2.0])]),
    "max_other": (lambda T, x, y: T.max(x, y), [V([1.0, 2.0, 3.0]), V([1.0, 0.0, 4.0])]),
    "fmax": (lambda T, x, y: T.fmax(x, y), [V([1.0, 2.0, 3.0, NAN, 1.0]), V([1.0, 0.0, 4.0, 1.0, NAN])]),
    "fmin": (lambda T, x, y: T.fmin(x, y), [V([1.0, 2.0, 3.0, NAN, 1.0]), V([1.0, 0.0, 4.0, 1.0, NAN])]),
    # ---- clamp / clip exactly at the bounds
    "clamp_scalar": (lambda T, x: T.clamp(x, -0.5, 1.0), [V([-1.0, -0.5, 0.0, 1.0, 2.0, NAN])]),
    "clip_scalar": (lambda T, x: T.clip(x, -0.5, 1.0), [V([-1.0, -0.5, 0.0, 1.0, 2.0])]),
    "clamp_method": (lambda T, x: x.clamp(min=-0.5), [V([-1.0, -0.5, 0.0])]),
    "clamp_tensor": (lambda T, x, lo, hi: T.clamp(x, lo, hi),
                     [V([-1.0, -0.5, 0.0, 1.0, 2.0, 0.5]), V([-0.5, -0.5, -0.5, -0.5, -0.5, 0.5]),
                      V([1.0, 1.0, 1.0, 1.0, 1.0, 0.5])]),
    "clamp_tensor_min_gt_max": (lambda T, x, lo, hi: T.clamp(x, lo, hi),
                                [V([-1.0, 0.0, 1.0, 2.0]), V([1.0, 1.0, 1.0, 1.0]), V([0.0, 0.0, 0.0, 0.0])]),
    "clamp_tensor_min_only": (lambda T, x, lo: T.clamp(x, min=lo), [V([-1.0, 0.0, 1.0]), V([0.0, 0.0, 0.0])]),
    "clamp_tensor_max_only": (lambda T, x, hi: T.clamp(x, max=hi), [V([-1.0, 0.0, 1.0]), V([0.0, 0.0, 0.0])]),
    "clamp_mixed": (lambda T, x, lo: T.clamp(x, lo, 1.0),
                    [V([-1.0, 0.0, 1.0, 2.0]), V([0.0, 0.0, 0.0, 0.0])]),
    "clip_tensor": (lambda T, x, lo, hi: T.clip(x, lo, hi), [V([-1.0, 0.0, 1.0]), V([0.0, 0.0, 0.0]),
                                                             V([1.0, 1.0, 1.0])]),
    "clamp_min_gt_max_scalar": (lambda T, x: T.clamp(x, 1.0, 0.0), [V([-1.0, 0.0, 0.5, 1.0, 2.0])]),
    # ---- sqrt, rsqrt, norm at 0
    "sqrt0": (lambda T, x: T.sqrt(x), [V([0.0, 1.0, 4.0])]),
    "sqrt_neg": (lambda T, x: T.sqrt(x), [V([-1.0, 0.0, -0.0])]),
    "rsqrt0": (lambda T, x: T.rsqrt(x), [V([0.0, 1.0])]),
    "norm2_zero": (lambda T, x: T.norm(x), [V([0.0, 0.0, 0.0])]),
    "norm2_dim_zero_row": (lambda T, x: T.norm(x, dim=1), [V([[0.0, 0.0], [3.0, 4.0]])]),
    "norm1_zero": (lambda T, x: T.norm(x, 1), [V([0.0, -1.0, 2.0])]),
    "norm_inf_ties": (lambda T, x: T.norm(x, INF), [V([-2.0, 2.0, 1.0])]),
    "norm_ninf": (lambda T, x: T.norm(x, -INF), [V([-1.0, 1.0, 2.0])]),
    "norm_p3_zero": (lambda T, x: T.norm(x, 3), [V([0.0, 0.0])]),
    "norm_p3_some_zero": (lambda T, x: T.norm(x, 3), [V([0.0, -1.0, 2.0])]),
    "norm_p1_5_zero": (lambda T, x: T.norm(x, 1.5), [V([0.0, 0.0])]),
    "norm_p0_5": (lambda T, x: T.norm(x, 0.5), [V([0.0, -1.0, 2.0])]),
    "norm_p0": (lambda T, x: T.norm(x, 0), [V([0.0, -1.0, 2.0])]),
    "norm_fro_zero": (lambda T, x: T.norm(x, "fro"), [V([[0.0, 0.0], [0.0, 0.0]])]),
    "norm2_zero_complex": (lambda T, x: T.norm(x), [V([0j, 0j], "complex128")]),
    "norm_inf_complex": (lambda T, x: T.norm(x, INF), [V([1j, -1.0, 0.5], "complex128")]),
    # ---- float32 variants (dtype of the gradients, single-precision conventions)
    "clamp_scalar_f32": (lambda T, x: T.clamp(x, -0.5, 1.0), [V([-1.0, -0.5, 0.0, 1.0, 2.0], "float32")]),
    "abs_f32": (lambda T, x: T.abs(x), [V([-1.0, 0.0, 2.0], "float32")]),
    "maximum_f32": (lambda T, x, y: T.maximum(x, y), [V([1.0, 2.0], "float32"), V([1.0, 3.0], "float32")]),
    "amax_f32": (lambda T, x: T.amax(x, 1), [V([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], "float32")]),
    "norm2_zero_f32": (lambda T, x: T.norm(x, dim=1), [V([[0.0, 0.0], [3.0, 4.0]], "float32")]),
    "std_const_f32": (lambda T, x: T.std(x, 1), [V([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]], "float32")]),
    "pow_f32": (lambda T, x, y: T.pow(x, y), [V([0.0, 0.0, -2.0], "float32"), V([0.0, 2.0, 2.0], "float32")]),
    # ---- pow
    "pow_tensor": (lambda T, x, y: T.pow(x, y), [V([0.0, 0.0, 0.0, -2.0, -2.0, 2.0]),
                                                 V([0.0, 2.0, -1.0, 2.0, 0.5, 0.0])]),
    "pow_scalar_exp0": (lambda T, x: T.pow(x, 0), [V([0.0, -2.0, 2.0])]),
    "pow_scalar_exp2": (lambda T, x: T.pow(x, 2), [V([0.0, -2.0, 2.0])]),
    "pow_scalar_exp_half": (lambda T, x: T.pow(x, 0.5), [V([0.0, -2.0, 2.0])]),
    "pow_scalar_exp3": (lambda T, x: T.pow(x, 3), [V([0.0, -2.0])]),
    "pow_scalar_base0": (lambda T, y: T.pow(0.0, y), [V([0.0, 1.0, -1.0, 2.0])]),
    "pow_scalar_base_neg": (lambda T, y: T.pow(-2.0, y), [V([0.0, 1.0, 0.5])]),
    "pow_scalar_base2": (lambda T, y: T.pow(2.0, y), [V([0.0, 1.0, -1.0])]),
    "float_power0": (lambda T, x, y: T.float_power(x, y), [V([0.0, 0.0, -2.0]), V([0.0, 2.0, 2.0])]),
    # ---- where: the NaN of the unselected branch
    "where_sqrt": (lambda T, x: T.where(x > 0, T.sqrt(x), T.zeros_like(x)), [V([-1.0, 0.0, 4.0])]),
    "where_log": (lambda T, x: T.where(x > 0, T.log(x), x), [V([-1.0, 0.0, 4.0])]),
    "where_nan_operand": (lambda T, c, x, y: T.where(c > 0, x, y),
                          [V([1.0, -1.0, 1.0], requires_grad=False), V([1.0, NAN, 2.0]), V([NAN, 3.0, INF])]),
    "where_scalar": (lambda T, c, x: T.where(c > 0, x, 0.0),
                     [V([1.0, -1.0], requires_grad=False), V([NAN, NAN])]),
    # ---- order statistics with ties
    "median_full_ties": (lambda T, x: T.median(x), [V([3.0, 1.0, 3.0, 2.0, 3.0])]),
    "median_full_even": (lambda T, x: T.median(x), [V([2.0, 1.0, 2.0, 4.0])]),
    "nanmedian_full_ties": (lambda T, x: T.nanmedian(x), [V([3.0, NAN, 3.0, 1.0])]),
    "median_dim_ties": (lambda T, x: T.median(x, 1),
                        [V([[3.0, 1.0, 3.0, 2.0, 3.0], [1.0, 1.0, 1.0, 2.0, 0.0]])]),
    "kthvalue_ties": (lambda T, x: T.kthvalue(x, 2), [V([[3.0, 1.0, 3.0, 1.0], [2.0, 2.0, 2.0, 2.0]])]),
    "sort_ties": (lambda T, x: T.sort(x), [V([[3.0, 1.0, 3.0, 1.0], [2.0, 2.0, 2.0, 2.0]])]),
    "sort_desc_ties": (lambda T, x: T.sort(x, descending=True), [V([[3.0, 1.0, 3.0, 1.0]])]),
    "sort_stable_ties": (lambda T, x: T.sort(x, stable=True), [V([[3.0, 1.0, 3.0, 1.0]])]),
    "topk_ties": (lambda T, x: T.topk(x, 2), [V([[3.0, 1.0, 3.0, 3.0], [2.0, 2.0, 1.0, 2.0]])]),
    "topk_smallest_ties": (lambda T, x: T.topk(x, 2, largest=False), [V([[3.0, 1.0, 1.0, 1.0]])]),
    "msort_ties": (lambda T, x: T.msort(x), [V([[1.0, 2.0], [1.0, 2.0], [0.0, 2.0]])]),
    "cummax_ties": (lambda T, x: T.cummax(x, 0), [V([1.0, 3.0, 3.0, 2.0, 5.0, 5.0])]),
    "cummin_ties": (lambda T, x: T.cummin(x, 0), [V([5.0, 3.0, 3.0, 4.0, 1.0, 1.0])]),
    "cummax_nan": (lambda T, x: T.cummax(x, 0), [V([1.0, NAN, 3.0, NAN])]),
    "mode_ties": (lambda T, x: T.mode(x), [V([[1.0, 2.0, 2.0, 1.0], [3.0, 3.0, 1.0, 3.0]])]),
    # ---- logsumexp with -inf
    "logsumexp_neginf": (lambda T, x: T.logsumexp(x, 1), [V([[-INF, 0.0, 1.0], [-INF, -INF, -INF]])]),
    "logsumexp_inf": (lambda T, x: T.logsumexp(x, 0), [V([INF, 0.0])]),
    # ---- prod with zeros
    "prod_one_zero": (lambda T, x: T.prod(x), [V([2.0, 0.0, 3.0])]),
    "prod_two_zeros": (lambda T, x: T.prod(x), [V([0.0, 2.0, 0.0])]),
    "prod_dim_zeros": (lambda T, x: T.prod(x, 1), [V([[2.0, 0.0, 3.0], [0.0, 2.0, 0.0], [1.0, 2.0, 3.0]])]),
    "cumprod_zeros": (lambda T, x: T.cumprod(x, 0), [V([2.0, 0.0, 3.0, 0.0, 4.0])]),
    # ---- scatter/index reductions: products with zeros and repeated indices, max ties
    "index_reduce_prod": (lambda T, x, i, s: T.index_reduce(x, 0, i, s, "prod"),
                          [V([[1.0, 2.0], [3.0, 0.0], [5.0, 6.0]]),
                           V([0, 2, 0, 1], "int64", requires_grad=False),
                           V([[2.0, 0.0], [4.0, 5.0], [0.0, 3.0], [1.0, 1.0]])]),
    "index_reduce_prod_excl": (lambda T, x, i, s: T.index_reduce(x, 0, i, s, "prod", include_self=False),
                               [V([[1.0, 2.0], [3.0, 0.0], [5.0, 6.0]]),
                                V([0, 2, 0, 1], "int64", requires_grad=False),
                                V([[2.0, 0.0], [4.0, 5.0], [0.0, 3.0], [1.0, 1.0]])]),
    "index_reduce_prod_two_zeros": (lambda T, x, i, s: T.index_reduce(x, 0, i, s, "prod"),
                                    [V([[1.0, 2.0], [3.0, 0.0]]), V([0, 0, 1], "int64", requires_grad=False),
                                     V([[0.0, 2.0], [0.0, 5.0], [1.0, 3.0]])]),
    "scatter_reduce_prod": (lambda T, x, i, s: T.scatter_reduce(x, 0, i, s, "prod"),
                            [V([[1.0, 2.0], [0.0, 4.0]]),
                             V([[0, 1], [0, 1], [1, 1]], "int64", requires_grad=False),
                             V([[0.0, 2.0], [3.0, 0.0], [2.0, 5.0]])]),
    "scatter_reduce_amax_ties": (lambda T, x, i, s: T.scatter_reduce(x, 0, i, s, "amax"),
                                 [V([[1.0, 2.0], [0.0, 4.0]]),
                                  V([[0, 1], [0, 1], [1, 1]], "int64", requires_grad=False),
                                  V([[1.0, 2.0], [1.0, 4.0], [0.0, 4.0]])]),
    # ---- std / var of a constant
    "std_const": (lambda T, x: T.std(x), [V([2.0, 2.0, 2.0])]),
    "std_dim_const": (lambda T, x: T.std(x, 1), [V([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]])]),
    "var_const": (lambda T, x: T.var(x), [V([2.0, 2.0, 2.0])]),
    "std_mean_const": (lambda T, x: T.std_mean(x), [V([2.0, 2.0])]),
    "std_single": (lambda T, x: T.std(x, correction=0), [V([1.5])]),
    # ---- singular points
    "atan2_origin": (lambda T, y, x: T.atan2(y, x), [V([0.0, 0.0, 1.0]), V([0.0, -0.0, 0.0])]),
    "div_by_zero": (lambda T, x, y: T.div(x, y), [V([1.0, 0.0, -1.0]), V([0.0, 0.0, 0.0])]),
    "div_scalar_zero": (lambda T, x: T.div(x, 0.0), [V([1.0, 0.0])]),
    "rdiv_zero": (lambda T, x: 1.0 / x, [V([0.0, -0.0, 2.0])]),
    "reciprocal0": (lambda T, x: T.reciprocal(x), [V([0.0, 2.0])]),
    "hypot_origin": (lambda T, x, y: T.hypot(x, y), [V([0.0, 0.0, 3.0]), V([0.0, 1.0, 4.0])]),
    "log0": (lambda T, x: T.log(x), [V([0.0, 1.0])]),
    "xlogy0": (lambda T, x, y: T.xlogy(x, y), [V([0.0, 0.0, 1.0]), V([0.0, 1.0, 0.0])]),
    "logit_bounds": (lambda T, x: T.logit(x, eps=0.25), [V([0.0, 0.25, 0.5, 0.75, 1.0])]),
    # ---- piecewise constant: zero gradient
    "floor": (lambda T, x: T.floor(x), [V([-1.5, 0.0, 1.0, 2.5])]),
    "ceil": (lambda T, x: T.ceil(x), [V([-1.5, 0.0, 1.0, 2.5])]),
    "round": (lambda T, x: T.round(x), [V([-1.5, 0.5, 1.0, 2.5])]),
    "round_decimals": (lambda T, x: T.round(x, decimals=1), [V([-1.55, 0.25])]),
    "trunc": (lambda T, x: T.trunc(x), [V([-1.5, 0.0, 1.0, 2.5])]),
    "frac": (lambda T, x: T.frac(x), [V([-1.5, 0.0, 2.5])]),
    "remainder": (lambda T, x, y: T.remainder(x, y), [V([-3.0, 3.0, 4.0]), V([2.0, 2.0, 2.0])]),
    "fmod": (lambda T, x, y: T.fmod(x, y), [V([-3.0, 3.0, 4.0]), V([2.0, 2.0, 2.0])]),
    "floor_divide": (lambda T, x, y: T.floor_divide(x, y), [V([-3.0, 3.0]), V([2.0, 2.0])]),
    "copysign0": (lambda T, x, y: T.copysign(x, y), [V([0.0, -1.0, 2.0]), V([-1.0, 0.0, -0.0])]),
    "nan_to_num": (lambda T, x: T.nan_to_num(x), [V([NAN, INF, -INF, 1.0])]),
}

# name -> (reason, strict): gaps that are not an op's jax formulation (see the report)
XFAIL = {
    "norm_p0": ("PyTorch's norm(p=0) backward returns an undefined gradient (autograd.grad gives None); the "
                "torchshim engine has no undefined gradients and returns zeros", True),
    "floor_divide": ("PyTorch's floor_divide has no derivative (grad_fn NotImplemented, backward raises); "
                     "torchshim needs an explicit raising rule on its registration (register(..., "
                     "grad_rule=, saves='inputs'), lead)", True),
    "kthvalue_ties": ("index among equal values: PyTorch's CPU quickselect picks a different copy than "
                      "torchshim's stable sort (documented in ops/sorting.py); the gradient follows the "
                      "index",
                      True),
    "topk_ties": ("index among equal values: PyTorch's CPU topk picks different copies than torchshim's "
                  "stable sort (documented in ops/sorting.py); the gradient follows the index", True),
    "topk_smallest_ties": ("index among equal values, as topk_ties", True),
    "index_reduce_prod_two_zeros": ("PyTorch refuses the double backward when more than one zero of source "
                                    "lands on one position (a DelayedError node); torchshim differentiates "
                                    "its first-order formula (a value-dependent error can't be raised from "
                                    "jax)", True),
}


def _param(name):
    marks = [pytest.mark.xfail(reason=XFAIL[name][0], strict=XFAIL[name][1])] if name in XFAIL else []
    return pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", [_param(n) for n in CASES])
def test_kink(name):
    fn, specs = CASES[name]
    check_grad(fn, specs)

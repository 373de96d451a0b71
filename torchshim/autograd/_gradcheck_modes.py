"""gradcheck's comparisons of numerical and analytical Jacobians: slow mode (full Jacobians), fast mode
(`v^T J u` for random unit vectors u, v, recomputed in slow mode for the message when they disagree), complex
outputs as their real and imaginary parts, and the mismatch messages."""
from .. import _api as torch

from ._gradcheck_analytic import _check_analytical_jacobian_attributes, _get_analytical_vJu_backward_mode
from ._gradcheck_common import (GradcheckError, _as_tuple, _differentiable_outputs, _imag, _is_tensor_like,
                                _real, _to_real_dtype)
from ._gradcheck_numeric import (_get_numerical_jacobian, _get_numerical_jvp_wrt_specific_input,
                                 _get_numerical_vJu)


def _check_no_differentiable_outputs(func, inputs, func_out, eps):
    # no differentiable output: the numerical gradient must be zero
    for jacobians in _get_numerical_jacobian(func, inputs, func_out, eps=eps):
        for jacobian in jacobians:
            if torch.ne(jacobian, 0).sum() > 0:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _check_no_differentiable_outputs_fast(func, func_out, all_inputs, inputs_indices, all_u, eps, nondet_tol):
    for inp_idx, u in zip(inputs_indices, all_u):
        for jvp in _get_numerical_jvp_wrt_specific_input(func, inp_idx, all_inputs, u, eps):
            if jvp.numel() != 0 and jvp.abs().max() > nondet_tol:
                raise GradcheckError("Numerical gradient for function expected to be zero")
    return True


def _allclose_with_type_promotion(a, b, rtol, atol):
    promoted_type = torch.promote_types(a.dtype, b.dtype)
    return torch.allclose(a.to(dtype=promoted_type), b.to(dtype=promoted_type), rtol, atol)


def _get_notallclose_msg(analytical, numerical, output_idx, input_idx, complex_indices, test_imag=False):
    out_is_complex = complex_indices and output_idx in complex_indices
    part = "imaginary" if test_imag else "real"
    prefix = f"While considering the {part} part of complex outputs only, " if out_is_complex else ""
    return (prefix + f"Jacobian mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


# ---- slow mode: full Jacobians ----------------------------------------------------------------------------
def _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, *,
                    complex_indices=None, test_imag=False, masked=False):
    func_out = _as_tuple(func_out)
    if not outputs:
        return _check_no_differentiable_outputs(func, tupled_inputs, func_out, eps=eps)
    numerical = list(zip(*_get_numerical_jacobian(func, tupled_inputs, func_out, eps=eps)))
    numerical = [nj for o, nj in zip(func_out, numerical) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _check_analytical_jacobian_attributes(tupled_inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose_with_type_promotion(a, n, rtol, atol):
                raise GradcheckError(_get_notallclose_msg(a, n, i, j, complex_indices, test_imag))
    return True


# ---- fast mode: v^T J u -----------------------------------------------------------------------------------
def _vec_from_tensor(x, generator, downcast_complex=False):
    dtype = _to_real_dtype(x.dtype) if downcast_complex else x.dtype
    vec = torch.rand(x.numel(), generator=generator).to(dtype=dtype, device=x.device)
    vec /= vec.norm()
    return vec


def _make_vectors(inp_tensors, outputs):
    g = torch.Generator()
    all_u = []
    for inp in inp_tensors:
        ur = _vec_from_tensor(inp, g, True)
        all_u.append((ur, _vec_from_tensor(inp, g, True)) if inp.is_complex() else ur)
    return [_vec_from_tensor(out, g) for out in outputs], all_u


def _adjusted_atol(atol, u, v):
    # |v^T (A - B) u| is compared against atol * sum(u) * sum(v) (atol scaled by v^T ones u)
    sum_v = 1.0 if v is None else v.sum()
    if isinstance(u, tuple):
        return atol * (float(u[0].sum()) + float(u[1].sum())) * float(sum_v)
    return atol * float(u.sum()) * float(sum_v)


FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _run_slow_mode_and_get_error(func, tupled_inputs, outputs, input_idx, output_idx, rtol, atol, eps):
    slow_numerical = _get_numerical_jacobian(func, tupled_inputs, outputs, eps=eps)[input_idx][output_idx]
    slow_analytical = _check_analytical_jacobian_attributes(tupled_inputs, outputs[output_idx],
                                                            nondet_tol=float("inf"),
                                                            check_grad_dtypes=False)[input_idx]
    slow_max_diff = (slow_numerical - slow_analytical).abs().max()
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are computed \nin fast "
           "mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \nabout fast "
           "mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\nNumerical:\n "
           f"{slow_numerical}\nAnalytical:\n{slow_analytical}\n\nThe max per-element difference (slow mode) "
           f"is: {slow_max_diff}.\n")
    if torch.allclose(slow_analytical, slow_numerical, rtol, atol):
        msg += FAST_FAIL_SLOW_OK_MSG
    return msg


def _fast_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, *,
                    complex_indices=None, test_imag=False, masked=False):
    inp_tensors_idx = [i for i, t in enumerate(inputs) if _is_tensor_like(t) and t.requires_grad]
    all_v, all_u = _make_vectors([inputs[i] for i in inp_tensors_idx], outputs)
    numerical_vJu = _get_numerical_vJu(func, inputs, inp_tensors_idx, func_out, all_u, all_v, eps)
    if not outputs:
        _check_no_differentiable_outputs_fast(func, func_out, inputs, inp_tensors_idx, all_u, eps, nondet_tol)
    analytical_vJu = _get_analytical_vJu_backward_mode(inputs, outputs, nondet_tol, check_grad_dtypes, all_v,
                                                       all_u)
    for i, numerical_for_input_i in enumerate(numerical_vJu):
        for j, n in enumerate(numerical_for_input_i):
            a = analytical_vJu[j][i]
            if not _allclose_with_type_promotion(a, n, rtol, _adjusted_atol(atol, all_u[i], all_v[j])):
                jacobians_str = _run_slow_mode_and_get_error(func, inputs, outputs, i, j, rtol, atol, eps)
                raise GradcheckError(_get_notallclose_msg(a, n, j, i, complex_indices, test_imag)
                                     + jacobians_str)
    return True


# ---- complex outputs -------------------------------------------------------------------------------------
def _real_and_imag_output(fn):
    def apply_to_c_outs(fn_to_apply):
        def wrapped_fn(*inputs):
            return tuple(fn_to_apply(o) if o.is_complex() else o for o in _as_tuple(fn(*inputs)))
        return wrapped_fn
    return apply_to_c_outs(_real), apply_to_c_outs(_imag)


def _gradcheck_real_imag(gradcheck_fn, func, func_out, tupled_inputs, outputs, eps, rtol, atol,
                         check_grad_dtypes, nondet_tol):
    # complex outputs: check the real and the imaginary parts as two real-valued functions
    if any(o.is_complex() for o in _as_tuple(func_out)):
        complex_out_indices = [i for i, o in enumerate(outputs) if o.is_complex()]
        real_fn, imag_fn = _real_and_imag_output(func)
        imag_func_out = imag_fn(*tupled_inputs)
        gradcheck_fn(imag_fn, imag_func_out, tupled_inputs, _differentiable_outputs(imag_func_out), eps, rtol,
                     atol, check_grad_dtypes, nondet_tol, complex_indices=complex_out_indices, test_imag=True)
        real_func_out = real_fn(*tupled_inputs)
        gradcheck_fn(real_fn, real_func_out, tupled_inputs, _differentiable_outputs(real_func_out), eps, rtol,
                     atol, check_grad_dtypes, nondet_tol, complex_indices=complex_out_indices)
    else:
        gradcheck_fn(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)

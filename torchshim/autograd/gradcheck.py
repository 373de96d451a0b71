"""`torch.autograd.gradcheck`: finite-difference checks of torchshim's reverse-mode gradients.

A port of PyTorch 2.13's torch/autograd/gradcheck.py on torchshim's public API (same algorithm: central
differences with `eps` on each input element through `input.data`, analytical Jacobian row by row with
`autograd.grad`, computed twice for the reentrancy check; the same messages and `GradcheckError`). Complex
inputs and outputs use PyTorch's Wirtinger scheme (real and imaginary parts of complex outputs are checked as
two real functions; a complex input's numerical column is d/dx + 1j d/dy). Differences from PyTorch:
- no forward-mode AD: `check_forward_ad=True`, `check_batched_forward_grad=True` (gradcheck) and
  `check_fwd_over_rev=True` (gradgradcheck) raise NotImplementedError;
- `check_batched_grad=True` computes the "batched" gradients with a loop (no vmap over autograd.grad);
- `check_undefined_grad` has no undefined gradients to feed: it runs its check with zero output gradients;
- fast mode's random vectors come from torchshim's RNG, so they differ from PyTorch's (the verdict does not);
- no sparse/MKLDNN layouts (`masked` is accepted and ignored).
"""
import collections.abc
import functools
import warnings
from itertools import product

from .. import _api as torch

from .engine_api import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian",
           "get_analytical_jacobian",
           "get_numerical_jacobian_wrt_specific_input"]


class GradcheckError(RuntimeError):
    r"""Error raised by :func:`gradcheck` and :func:`gradgradcheck`."""


def _is_tensor_like(x):
    return isinstance(x, torch.Tensor)


def _is_float_or_complex_tensor(obj):
    return _is_tensor_like(obj) and (obj.is_floating_point() or obj.is_complex())


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _iter_tensors(x, only_requiring_grad=False):
    if _is_tensor_like(x):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _to_real_dtype(dtype):
    return {torch.complex128: torch.float64, torch.complex64: torch.float32}.get(dtype, dtype)


def _real(t):
    if hasattr(torch, "real"):
        return torch.real(t)
    with warnings.catch_warnings():  # a differentiable real part: casting to the real dtype keeps it
        warnings.simplefilter("ignore")
        return t.to(_to_real_dtype(t.dtype))


def _imag(t):
    if hasattr(torch, "imag"):
        return torch.imag(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (t * -1j).to(_to_real_dtype(t.dtype))


def _zeros(shape, dtype, device=None):
    return torch.zeros(tuple(shape), dtype=dtype, device=device)


# ---- numerical Jacobian ------------------------------------------------------------------------------------
def _compute_numerical_gradient(fn, entry, v, norm_v, nbhd_checks_fn):
    # central difference of `fn` at `entry` perturbed in place by `v`
    orig = entry.clone()
    entry.copy_(orig - v)
    outa = fn()
    entry.copy_(orig + v)
    outb = fn()
    entry.copy_(orig)

    def compute(a, b):
        nbhd_checks_fn(a, b)
        return ((b - a) / (2 * norm_v)).detach().reshape(-1)

    return tuple(compute(a, b) for (a, b) in zip(outa, outb))


def _compute_numerical_jvps_wrt_specific_input(jvp_fn, delta, input_is_complex):
    jvps = []
    ds_dx_tup = jvp_fn(delta[0] if isinstance(delta, tuple) else delta)
    if input_is_complex:  # C -> R: the conjugate Wirtinger derivative
        ds_dy_tup = jvp_fn(delta[1] * 1j) if isinstance(delta, tuple) else jvp_fn(delta * 1j)
        for ds_dx, ds_dy in zip(ds_dx_tup, ds_dy_tup):
            if ds_dx.is_complex():
                raise AssertionError("Expected ds_dx to be real-valued, not complex")
            jvps.append(ds_dx + ds_dy * 1j)
    else:
        for ds_dx in ds_dx_tup:
            if ds_dx.is_complex():
                raise AssertionError("Expected ds_dx to be real-valued, not complex.")
            jvps.append(ds_dx)
    return jvps


def _check_outputs_same_dtype_and_shape(output1, output2, eps, idx=None):
    on_index = f"on index {idx} " if idx is not None else ""
    if output1.shape != output2.shape:
        raise AssertionError("Expected `func` to return outputs with the same shape when inputs are "
                             f"perturbed {on_index}by {eps}, but got: shapes {output1.shape} and "
                             f"{output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError("Expected `func` to return outputs with the same dtype when inputs are "
                             f"perturbed {on_index}by {eps}, but got: dtypes {output1.dtype} and "
                             f"{output2.dtype}.")


def _with_prepare_inputs(fn, inputs):
    # the inputs are perturbed in place (through .data), so fn is called with the original tensors
    def wrapped_fn():
        return tuple(a.clone() for a in _as_tuple(fn(*_as_tuple(inputs))))
    return wrapped_fn


def _combine_jacobian_cols(jacobian_cols, outputs, input, numel):
    # jacobian_cols: column index -> output index -> column; -> one (numel, out.numel()) Jacobian per output
    dtype = input.dtype if input.dtype.is_complex else None
    res = []
    for i, out in enumerate(o for o in outputs if _is_float_or_complex_tensor(o)):
        dt = dtype or out.dtype
        if numel == 0:
            res.append(_zeros((0, out.numel()), dt, out.device))
        else:
            res.append(torch.stack([jacobian_cols[k][i] for k in range(numel)], dim=0).to(dt))
    return tuple(res)


def get_numerical_jacobian_wrt_specific_input(fn, input_idx, inputs, outputs, eps, input=None,
                                              is_forward_ad=False):
    """Numerical Jacobians (one per output, shape `(input.numel(), output.numel())`) w.r.t. one input."""
    jacobian_cols = {}
    input = inputs[input_idx] if input is None else input
    if not input.requires_grad:
        raise AssertionError("Expected input to have requires_grad=True")
    x = input.data
    wrapped_fn = _with_prepare_inputs(fn, inputs)
    for d_idx, idx in enumerate(product(*[range(m) for m in x.size()])):
        nbhd_checks_fn = functools.partial(_check_outputs_same_dtype_and_shape, idx=idx, eps=eps)
        jvp_fn = functools.partial(_compute_numerical_gradient, wrapped_fn, x[idx], norm_v=eps,
                                   nbhd_checks_fn=nbhd_checks_fn)
        jacobian_cols[d_idx] = _compute_numerical_jvps_wrt_specific_input(jvp_fn, eps, x.is_complex())
    return _combine_jacobian_cols(jacobian_cols, outputs, input, input.numel())


def _get_numerical_jacobian(fn, inputs, outputs=None, target=None, eps=1e-3):
    if outputs is None:
        outputs = _as_tuple(fn(*_as_tuple(inputs)))
    if any(o.is_complex() for o in outputs):
        raise ValueError("Expected output to be non-complex. get_numerical_jacobian no longer supports "
                         "functions that return complex outputs.")
    if target is None:
        target = inputs
    inp_indices = [i for i, a in enumerate(target) if _is_tensor_like(a) and a.requires_grad]
    return [get_numerical_jacobian_wrt_specific_input(fn, inp_idx, inputs, outputs, eps, input=inp)
            for inp, inp_idx in zip(_iter_tensors(target, True), inp_indices)]


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated PyTorch API: numerical Jacobians of `fn(inputs)` (first output) w.r.t. each input."""
    warnings.warn("`get_numerical_jacobian` was part of PyTorch's private API and not meant to be exposed. "
                  "We are deprecating it and it will be removed in a future version of PyTorch. If you have "
                  "a specific use for this or feature request for this to be a stable API, please file us "
                  "an issue at https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    jacobians = _get_numerical_jacobian(lambda *inps: fn(inps), inputs, None, target, eps)
    return tuple(j[0] for j in jacobians)


# ---- analytical Jacobian ----------------------------------------------------------------------------------
def _stack_and_check_tensors(list_of_list_of_tensors, inputs, numel_outputs):
    # (jacobians of shape (inp.numel(), numel_outputs), sizes ok, dtypes ok)
    diff_input_list = list(_iter_tensors(inputs, True))
    out_jacobians, correct_grad_sizes, correct_grad_types = [], True, True
    for i, tensor_list in enumerate(list_of_list_of_tensors):
        inp = diff_input_list[i]
        cols = []
        for tensor in tensor_list:
            if tensor is not None and tensor.size() != inp.size():
                correct_grad_sizes = False
            elif tensor is not None and tensor.dtype != inp.dtype:
                correct_grad_types = False
            if tensor is None:
                cols.append(_zeros((inp.numel(),), inp.dtype, inp.device))
            else:
                if inp.numel() != tensor.numel():
                    raise AssertionError(f"Expected out_jacobian column to have {tensor.numel()} elements, "
                                         f"but got {inp.numel()}")
                cols.append(tensor.reshape(-1).to(inp.dtype))
        out_jacobians.append(torch.stack(cols, dim=1) if cols else
                             _zeros((inp.numel(), numel_outputs), inp.dtype, inp.device))
    return tuple(out_jacobians), correct_grad_sizes, correct_grad_types


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _jacobian_rows(vjp_fn, sample_output):
    # rows[i][j]: row j of the Jacobian w.r.t. input i (vjp with the j-th basis vector)
    n = sample_output.numel()
    basis = torch.eye(n, dtype=sample_output.dtype, device=sample_output.device) if n else None
    rows = []
    for j in range(n):
        grad_inputs = vjp_fn(basis[j].view(sample_output.shape))
        for i, d_x in enumerate(grad_inputs):
            if j == 0:
                rows.append([])
            rows[i].append(d_x.clone() if isinstance(d_x, torch.Tensor) else None)
    return rows


def _check_analytical_jacobian_attributes(inputs, output, nondet_tol, check_grad_dtypes, fast_mode=False,
                                          v=None):
    diff_input_list = list(_iter_tensors(inputs, True))

    def vjp_fn(grad_output):
        return _grad(output, diff_input_list, grad_output, retain_graph=True, allow_unused=True)

    if fast_mode:
        def rows():
            return [[g.clone() if isinstance(g, torch.Tensor) else None]
                    for g in vjp_fn(v.reshape(output.shape))]
    else:
        def rows():
            return _jacobian_rows(vjp_fn, output.clone())
    vjps1, vjps2 = rows(), rows()  # twice: the reentrancy (determinism) check
    if not vjps1:  # an output with no elements: PyTorch's preallocated empty Jacobians
        vjps1 = vjps2 = [[] for _ in diff_input_list]
    output_numel = output.numel() if not fast_mode else 1
    # PyTorch names these (types_ok, sizes_ok) the other way round; its checks are reproduced as they behave
    jacobians1, sizes_ok, types_ok = _stack_and_check_tensors(vjps1, inputs, output_numel)
    jacobians2, _, _ = _stack_and_check_tensors(vjps2, inputs, output_numel)
    reentrant = all(j1.numel() == 0 or not bool((j1 - j2).abs().max() > nondet_tol)
                    for j1, j2 in zip(jacobians1, jacobians2))
    if not sizes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not types_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and "
                             "grad_output multiple times gives different values, although analytical "
                             "gradient matches numerical gradient.The tolerance for nondeterminism was "
                             f"{nondet_tol}."
                             + FAILED_NONDET_MSG)
    return jacobians1


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated PyTorch API: (jacobians, reentrant, sizes_ok, types_ok) of `output` w.r.t. `inputs`."""
    warnings.warn("`get_analytical_jacobian` was part of PyTorch's private API and not meant to be exposed. "
                  "We are deprecating it and it will be removed in a future version of PyTorch. If you have "
                  "a specific use for this or feature request for this to be a stable API, please file us "
                  "an issue at https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    if output.is_complex():
        raise ValueError("Expected output to be non-complex. get_analytical_jacobian no longer supports "
                         "functions that return complex outputs.")
    diff_input_list = list(_iter_tensors(inputs, True))

    def vjp_fn(grad_output):
        return _grad(output, diff_input_list, grad_output, retain_graph=True, allow_unused=True)

    j1, types_ok, sizes_ok = _stack_and_check_tensors(_jacobian_rows(vjp_fn, output.clone()), inputs,
                                                      output.numel())
    j2, _, _ = _stack_and_check_tensors(_jacobian_rows(vjp_fn, output.clone()), inputs, output.numel())
    reentrant = all(a.numel() == 0 or not bool((a - b).abs().max() > nondet_tol) for a, b in zip(j1, j2))
    return j1, reentrant, sizes_ok, types_ok



# ---- input/output checks ----------------------------------------------------------------------------------
def _check_inputs(tupled_inputs):
    any_input_requiring_grad = False
    for idx, inp in enumerate(tupled_inputs):
        if _is_tensor_like(inp) and inp.requires_grad:
            if not (inp.dtype == torch.float64 or inp.dtype == torch.complex128):
                warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating point "
                              "or complex. This check will likely fail if all the inputs are not of double "
                              "precision floating point or complex. ", stacklevel=3)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only "
                                   "supports inputs that are non-overlapping to be able to compute the "
                                   "numerical gradients correctly. You should call .contiguous on the input "
                                   "before passing it to gradcheck.")
            any_input_requiring_grad = True
    if not any_input_requiring_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them "
                         "have requires_grad=True.")
    return True


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


def _get_numerical_jvp_wrt_specific_input(fn, input_idx, inputs, u, eps):
    input = inputs[input_idx]
    entry = input.data
    nbhd_checks_fn = functools.partial(_check_outputs_same_dtype_and_shape, eps=eps)
    jvp_fn = functools.partial(_compute_numerical_gradient, _with_prepare_inputs(fn, inputs), entry,
                               norm_v=eps,
                               nbhd_checks_fn=nbhd_checks_fn)
    if isinstance(u, tuple):
        u = (u[0].reshape(entry.shape) * eps, u[1].reshape(entry.shape) * eps)
    else:
        u = u.reshape(entry.shape) * eps
    return _compute_numerical_jvps_wrt_specific_input(jvp_fn, u, input.is_complex())


def _get_numerical_vJu(fn, inputs, inp_indices, func_out, all_u, all_v, eps):
    reduced_jacobians = []
    func_out = _as_tuple(func_out)
    for inp_idx, u in zip(inp_indices, all_u):
        all_Ju = _get_numerical_jvp_wrt_specific_input(fn, inp_idx, inputs, u, eps)
        filtered_Ju = [Ju for Ju, output in zip(all_Ju, func_out) if _is_float_or_complex_tensor(output)]
        reduced_jacobians.append([(v * Ju).sum() for v, Ju in zip(all_v, filtered_Ju)])
    return reduced_jacobians


def _get_analytical_vJu_backward_mode(inputs, outputs, nondet_tol, check_grad_dtypes, all_v, all_u):
    reduced_jacobians = []
    for output, v in zip(outputs, all_v):
        all_vJ = _check_analytical_jacobian_attributes(inputs, output, nondet_tol, check_grad_dtypes,
                                                       fast_mode=True, v=v)
        jacobian_scalars = []
        for vJ, u in zip(all_vJ, all_u):
            vJ = vJ.T.squeeze(0)
            if vJ.is_complex():  # C -> R
                jacobian_scalars.append(_real(vJ).dot(u[0]) + 1j * _imag(vJ).dot(u[1]))
            else:
                jacobian_scalars.append(vJ.dot(u))
        reduced_jacobians.append(jacobian_scalars)
    return reduced_jacobians


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


# ---- the other checks -------------------------------------------------------------------------------------
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


def _test_batched_grad(input, output, output_idx):
    # PyTorch vmaps autograd.grad over a batch of grad_outputs; torchshim loops over the batch
    diff_input_list = list(_iter_tensors(input, True))

    def vjp(v):
        results = _grad(output, diff_input_list, v, retain_graph=True, allow_unused=True)
        return tuple(g if g is not None else _zeros((), inp.dtype, inp.device).expand(inp.shape)
                     for g, inp in zip(results, diff_input_list))

    grad_outputs = [torch.randn(tuple(output.shape), dtype=output.dtype, device=output.device)
                    for _ in range(2)]
    expected = [torch.stack(shards) for shards in zip(*[vjp(gO) for gO in grad_outputs])]
    try:
        batch = torch.stack(grad_outputs)
        result = [torch.stack(shards) for shards in zip(*[vjp(batch[k]) for k in range(len(grad_outputs))])]
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {ex}") from ex
    for input_idx, (res, exp) in enumerate(zip(result, expected)):
        if not torch.allclose(res, exp):
            raise GradcheckError(f"For output {output_idx} and input "
                                 f"{input_idx}:\n\nGot:\n{res}\n\nExpected:\n{exp}")
    return True


def _test_backward_mul_by_grad_output(outputs, inputs, masked):
    diff_input_list = list(_iter_tensors(inputs, True))
    if not diff_input_list:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads_input = _grad(outputs, diff_input_list, [_zeros(o.shape, o.dtype, o.device) for o in outputs],
                        allow_unused=True)
    for gi, di in zip(grads_input, diff_input_list):
        if gi is None:
            continue
        if masked:
            if not torch.allclose(gi, _zeros(gi.shape, gi.dtype, gi.device)):
                raise GradcheckError("backward not multiplied by grad_output")
        elif not gi.eq(0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")
    return True


def _test_undefined_backward_mode(func, outputs, inputs):
    # torchshim has no undefined gradients: all-zero output gradients must give zero (or no) input gradients
    diff_input_list = list(_iter_tensors(inputs, True))
    if not diff_input_list:
        raise GradcheckError("no Tensors requiring grad found in input")

    def warn_bc_breaking():
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled "
                      "by default, but it may break existing callers of this function. If this is true for "
                      'you, you can call this function with "check_undefined_grad=False" to disable the '
                      "feature",
                      stacklevel=2)

    def check_undefined_grad_support(output_to_check):
        grads_output = [_zeros(o.shape, o.dtype, o.device) for o in output_to_check]
        try:
            grads_input = _grad(output_to_check, diff_input_list, grads_output, allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError("Expected backward function to handle undefined output grads. Please look "
                                 'at "Notes about undefined output gradients" in '
                                 '"tools/autograd/derivatives.yaml"') from e
        for gi in grads_input:
            if (gi is not None) and (not gi.eq(0).all()):
                warn_bc_breaking()
                raise GradcheckError("Expected all input grads to be undefined or zero when all output "
                                     'grads are undefined or zero. Please look at "Notes about undefined '
                                     'output gradients" in "tools/autograd/derivatives.yaml"')
        return True

    outputs_to_check = [[o for o in _differentiable_outputs(func(*inputs)) if isinstance(o, torch.Tensor)]]
    if len(outputs_to_check[0]) > 1:
        for _ in range(len(outputs)):
            outputs_to_check.append(list(_differentiable_outputs(func(*inputs))))
    return all(check_undefined_grad_support(output) for output in outputs_to_check)


# ---- entry points -----------------------------------------------------------------------------------------
def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """`torch.autograd.gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True,
    nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
    check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
    masked=None)` -> True, or False / GradcheckError when finite differences disagree with autograd.

    torchshim: no forward-mode AD (check_forward_ad / check_batched_forward_grad raise NotImplementedError);
    check_batched_grad loops instead of vmap; fast mode draws its vectors from torchshim's RNG."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    if check_forward_ad:
        raise NotImplementedError("gradcheck: check_forward_ad=True is not supported by torchshim (no "
                                  "forward-mode AD)")
    try:
        tupled_inputs = _as_tuple(inputs)
        _check_inputs(tupled_inputs)
        func_out = func(*tupled_inputs)
        outputs = _differentiable_outputs(func_out)
        gradcheck_fn = functools.partial(_fast_gradcheck if fast_mode else _slow_gradcheck, masked=masked)
        _gradcheck_real_imag(gradcheck_fn, func, func_out, tupled_inputs, outputs, eps, rtol, atol,
                             check_grad_dtypes, nondet_tol)
        for i, o in enumerate(outputs):
            if check_batched_grad:
                _test_batched_grad(tupled_inputs, o, i)
        _test_backward_mul_by_grad_output(outputs, tupled_inputs, masked)
        if check_undefined_grad:
            _test_undefined_backward_mode(func, outputs, tupled_inputs)
        return True
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _make_grad_output(x, noncontiguous):
    # torch.testing.make_tensor(x.shape, dtype, low=-1, high=1, requires_grad=True, noncontiguous=...)
    dtype = x.dtype if x.is_floating_point() or x.is_complex() else torch.float64
    real, shape = _to_real_dtype(dtype), tuple(x.shape)
    wide = shape[:-1] + (2 * shape[-1],) if noncontiguous and x.numel() > 1 else shape
    t = torch.rand(wide, dtype=real, device=x.device) * 2 - 1
    if dtype.is_complex:
        t = torch.complex(t, torch.rand(wide, dtype=real, device=x.device) * 2 - 1)
    if wide != shape:
        t = t[..., ::2]
    return t.requires_grad_(True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """`torch.autograd.gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
    gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
    check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
    fast_mode=False, masked=False)` -> gradcheck of the gradient of `func` (with `grad_outputs`, random in
    [-1, 1) when None) w.r.t. the inputs and the grad_outputs.

    torchshim: check_fwd_over_rev=True raises NotImplementedError; random grad_outputs come from torchshim's
    RNG."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_make_grad_output(x, gen_non_contig_grad_outputs) for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_args_indices = {i for i, x in enumerate(tupled_inputs)
                               if _is_tensor_like(x) and x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_args_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outputs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                             for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_args_indices)
        grad_inputs = _grad(outputs, diff_input_args, grad_outputs, create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)


# `torch.autograd.gradcheck` is this module in PyTorch, shadowed by the function in torch.autograd; these
# attributes let `torchshim.autograd.gradcheck.gradcheck` / `.GradcheckError` work on the function too
gradcheck.gradcheck = gradcheck
gradcheck.gradgradcheck = gradgradcheck
gradcheck.GradcheckError = GradcheckError

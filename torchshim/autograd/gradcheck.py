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

import torchshim as torch

from .engine_api import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian", "get_analytical_jacobian",
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
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                             f"{on_index}by {eps}, but got: shapes {output1.shape} and {output2.shape}.")
    if output1.dtype != output2.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                             f"{on_index}by {eps}, but got: dtypes {output1.dtype} and {output2.dtype}.")


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
        raise ValueError("Expected output to be non-complex. get_numerical_jacobian no longer supports functions "
                         "that return complex outputs.")
    if target is None:
        target = inputs
    inp_indices = [i for i, a in enumerate(target) if _is_tensor_like(a) and a.requires_grad]
    return [get_numerical_jacobian_wrt_specific_input(fn, inp_idx, inputs, outputs, eps, input=inp)
            for inp, inp_idx in zip(_iter_tensors(target, True), inp_indices)]


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated PyTorch API: numerical Jacobians of `fn(inputs)` (first output) w.r.t. each input."""
    warnings.warn("`get_numerical_jacobian` was part of PyTorch's private API and not meant to be exposed. We are "
                  "deprecating it and it will be removed in a future version of PyTorch. If you have a specific "
                  "use for this or feature request for this to be a stable API, please file us an issue at "
                  "https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
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
                    raise AssertionError(f"Expected out_jacobian column to have {tensor.numel()} elements, but "
                                         f"got {inp.numel()}")
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


def _check_analytical_jacobian_attributes(inputs, output, nondet_tol, check_grad_dtypes, fast_mode=False, v=None):
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
        raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and grad_output "
                             "multiple times gives different values, although analytical gradient matches "
                             f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
                             + FAILED_NONDET_MSG)
    return jacobians1


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated PyTorch API: (jacobians, reentrant, sizes_ok, types_ok) of `output` w.r.t. `inputs`."""
    warnings.warn("`get_analytical_jacobian` was part of PyTorch's private API and not meant to be exposed. We are "
                  "deprecating it and it will be removed in a future version of PyTorch. If you have a specific "
                  "use for this or feature request for this to be a stable API, please file us an issue at "
                  "https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
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


"""gradcheck's analytical side: Jacobians from reverse-mode autograd (`autograd.grad` row by row, computed
twice for the reentrancy check) and fast mode's `v^T J`; the deprecated `get_analytical_jacobian` API."""
import warnings

from .. import _api as torch

from ._gradcheck_common import GradcheckError, _iter_tensors, _real, _imag, _zeros
from .engine_api import grad as _grad

__all__ = ["get_analytical_jacobian"]


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
    """`torch.autograd.gradcheck.get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0)`:
    deprecated PyTorch API, (jacobians, reentrant, sizes_ok, types_ok) of `output` w.r.t. `inputs`."""
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


# ---- fast mode: v^T J u ----------------------------------------------------------------------------------
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

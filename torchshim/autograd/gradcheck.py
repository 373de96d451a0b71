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
import functools
import warnings

from .. import _api as torch

from ._gradcheck_analytic import get_analytical_jacobian
from ._gradcheck_common import (GradcheckError, _as_tuple, _differentiable_outputs, _is_tensor_like,
                                _iter_tensors, _to_real_dtype, _zeros)
from ._gradcheck_modes import _fast_gradcheck, _gradcheck_real_imag, _slow_gradcheck
from ._gradcheck_numeric import get_numerical_jacobian, get_numerical_jacobian_wrt_specific_input
from .engine_api import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian",
           "get_analytical_jacobian",
           "get_numerical_jacobian_wrt_specific_input"]


# the numerical and analytical Jacobians (`_gradcheck_numeric.py`, `_gradcheck_analytic.py`) and the slow/fast
# mode comparisons (`_gradcheck_modes.py`) live in private siblings; their public names belong to this module
for _f in (get_numerical_jacobian, get_numerical_jacobian_wrt_specific_input, get_analytical_jacobian):
    _f.__module__ = __name__


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


# ---- the other checks -------------------------------------------------------------------------------------

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

"""gradcheck's numerical side: Jacobians by central differences (slow mode) and the Jacobian-vector products
`J u` of fast mode, perturbing the inputs in place through `input.data`; the deprecated
`get_numerical_jacobian` API."""
import functools
import warnings
from itertools import product

from .. import _api as torch

from ._gradcheck_common import (_as_tuple, _is_float_or_complex_tensor, _is_tensor_like, _iter_tensors,
                                _zeros)

__all__ = ["get_numerical_jacobian", "get_numerical_jacobian_wrt_specific_input"]


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
    """`torch.autograd.gradcheck.get_numerical_jacobian_wrt_specific_input(fn, input_idx, inputs, outputs,
    eps, input=None, is_forward_ad=False)` -> numerical Jacobians (one per output, shape
    `(input.numel(), output.numel())`) w.r.t. one input."""
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
    """`torch.autograd.gradcheck.get_numerical_jacobian(fn, inputs, target=None, eps=0.001, grad_out=1.0)`:
    deprecated PyTorch API, numerical Jacobians of `fn(inputs)` (first output) w.r.t. each input."""
    warnings.warn("`get_numerical_jacobian` was part of PyTorch's private API and not meant to be exposed. "
                  "We are deprecating it and it will be removed in a future version of PyTorch. If you have "
                  "a specific use for this or feature request for this to be a stable API, please file us "
                  "an issue at https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=2)
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    jacobians = _get_numerical_jacobian(lambda *inps: fn(inps), inputs, None, target, eps)
    return tuple(j[0] for j in jacobians)


# ---- fast mode: J u --------------------------------------------------------------------------------------
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

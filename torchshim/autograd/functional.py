"""`torch.autograd.functional`: jacobian, hessian, vjp, jvp, hvp, vhp on top of `torchshim.autograd.grad`.

A port of PyTorch 2.13's torch/autograd/functional.py (same preprocessing, same strict-mode checks and
messages, same output structures). Differences from PyTorch:
- `vectorize=True` computes the same result with a Python loop over the standard basis (torchshim has no
  batched `autograd.grad`); it is accepted everywhere PyTorch accepts it, and keeps PyTorch's errors
  (`strict=True` together with `vectorize=True` raises).
- `strategy="forward-mode"` (jacobian) and `outer_jacobian_strategy="forward-mode"` (hessian) keep PyTorch's
  argument checks and errors (create_graph / strict / vectorize=False raise as in PyTorch) but compute the
  Jacobian by reverse mode: torchshim has no forward-mode AD. Values are the same.
- `jvp` and `hvp` use PyTorch's double-backward trick, as PyTorch does.
"""
from .. import _api as torch

from .engine_api import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _zeros_like(t, requires_grad=False):
    # a fresh leaf (the *_like factories must not connect to `t`'s graph)
    return torch.zeros(tuple(t.shape), dtype=t.dtype, device=t.device, requires_grad=requires_grad)


def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, torch.Tensor):
            if is_inp_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                                f"Tensors but the value at index {i} has type {type(el)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                            f"Tensors but the given {arg_name} has type {type(el)}.")
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], torch.Tensor):
        return tuple(inp.detach() for inp in inputs) if not create_graph else inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got "
                               f"{el_v.size()}.")


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This "
                               "is not allowed in strict mode.")
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(f"The hessian of the user-provided function with respect to input {i} is "
                                   "independent of the input. This is not allowed in strict mode. You "
                                   "should ensure that your function is thrice differentiable and that the "
                                   "hessian depends on the inputs.")
            if input_type == "jacobian":
                raise RuntimeError("While computing the hessian, found that the jacobian of the "
                                   f"user-provided function with respect to input {i} is independent of the "
                                   "input. This is not allowed in strict mode. You should ensure that your "
                                   "function is twice differentiable and that the jacobian depends on the "
                                   "inputs (this would be violated by a linear function for example).")
            if input_type == "grad_inputs":
                raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of "
                                   "the user-provided function. This is not allowed in strict mode.")
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The "
                               "outputs must be computed in a differentiable manner from the input when "
                               "running in strict mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    # autograd.grad that skips outputs not requiring grad, allow_unused=True
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grad_outputs = (), ()
    for out, grad_out in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs += (out,)
            new_grad_outputs += (grad_out,)
    if len(new_outputs) == 0:
        return (None,) * len(inputs)
    return _grad(new_outputs, inputs, new_grad_outputs, allow_unused=True, create_graph=create_graph,
                 retain_graph=retain_graph)


_FILL_MSGS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
            "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs "
                  "when using the double backward trick to compute forward mode gradients. This is not "
                  "allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
                   "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                         "double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = ()
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise RuntimeError(_FILL_MSGS[stage].format(i=i))
            grads_i = _zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "jacobian" if "double" not in stage else "hessian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This "
                               "is not allowed in strict mode when create_graph=True.")
        res += (grads_i,)
    return res


def _prepare_v(v, other, is_other_tuple, create_graph, fn_name, none_msg):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, other, is_other_tuple)
    elif len(other) != 1 or other[0].nelement() != 1:
        raise RuntimeError(none_msg)
    return v


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a single "
                 "Tensor with a single element.")


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.vjp(func, inputs, v=None, create_graph=False, strict=False)` ->
    (func_output, vjp): the dot product of `v` with the Jacobian of `func` at `inputs`."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a single Tensor "
                       "with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.jvp(func, inputs, v=None, create_graph=False, strict=False)` ->
    (func_output, jvp): the Jacobian of `func` at `inputs` times `v`, by the double-backward trick."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp",
                       "The vector v can only be None if the input to the user-provided function is a "
                       "single Tensor with a single element.")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(_zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_outputs_tuple)


def _construct_standard_basis_for(tensors, tensor_numels):
    total_numel = sum(tensor_numels)
    chunks = tuple(t.new_zeros(total_numel, n).detach() for t, n in zip(tensors, tensor_numels))
    diag_start_idx = 0
    for chunk, numel in zip(chunks, tensor_numels):
        chunk.diagonal(diag_start_idx).fill_(1)
        diag_start_idx -= numel
    return chunks


def _jacobian_vectorized(inputs, outputs, create_graph):
    # PyTorch's vectorized reverse-mode path, with a loop over the basis instead of is_grads_batched=True
    output_numels = tuple(o.numel() for o in outputs)
    total = sum(output_numels)
    grad_outputs = _construct_standard_basis_for(outputs, output_numels)
    flat_outputs = tuple(o.reshape(-1) for o in outputs)
    rows = [_autograd_grad(flat_outputs, inputs, tuple(g[k] for g in grad_outputs), create_graph=create_graph,
                           retain_graph=True) for k in range(total)]
    jacobian_input_output = []
    for el_idx, input_i in enumerate(inputs):
        col = [r[el_idx] for r in rows]
        if total == 0 or any(c is None for c in col):
            z = _zeros_like(input_i)
            col = [z if c is None else c for c in col]
        jac_input_i = _stack_rows(col, input_i)
        jacobian_input_output.append([jac.view(output_j.shape + input_i.shape)
                                      for jac, output_j in zip(jac_input_i.split(output_numels, dim=0),
                                                               outputs)])
    return tuple(zip(*jacobian_input_output))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """`torch.autograd.functional.jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
    strategy="reverse-mode")` -> the Jacobian: a Tensor, a tuple (several inputs or outputs) or a tuple of
    tuples (several of both; `jac[i][j]` is output i w.r.t. input j, shape `out_i.shape + in_j.shape`).

    torchshim: `vectorize=True` loops; `strategy="forward-mode"` (which PyTorch allows only with
    vectorize=True, create_graph=False, strict=False) is computed by reverse mode."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If '
                             'your function has more outputs than inputs, "forward-mode" tends to be more '
                             'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please '
                                      'either set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                               '`strategy="forward-mode"` are not supported together (yet). Please either '
                               'set `strict=False` or `strategy="reverse-mode"`.')
        _as_tuple(inputs, "inputs", "jacobian")
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian "
                                      "isonly implemented for `vectorize=True`.")
        return _jacobian_forward_by_reverse(func, inputs)
    return _jacobian_reverse(func, inputs, create_graph, strict, vectorize)


def _jacobian_forward_by_reverse(func, inputs):
    # PyTorch's forward-mode Jacobian of output i requires grad iff output i does (computed from the caller's
    # inputs): probe that on detached copies of the inputs that don't require grad, then compute by reverse
    # mode
    # with a graph and set the flags accordingly
    with enable_grad():
        probe = _as_tuple_nocheck(func(*(t if t.requires_grad else t.detach()
                                         for t in _as_tuple_nocheck(inputs))))
    req = tuple(isinstance(o, torch.Tensor) and o.requires_grad for o in probe)

    def flags(jac):
        return tuple(tuple(j if r and j.requires_grad else j.detach().requires_grad_(r) for j in row)
                     for r, row in zip(req, jac))
    return _jacobian_reverse(func, inputs, any(req), False, True, adjust=flags)


def _jacobian_reverse(func, inputs, create_graph, strict, vectorize, adjust=None):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize:
            if strict:
                raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` "
                                   "are not supported together. Please either set `strict=False` or "
                                   "`vectorize=False`.")
            jac = _jacobian_vectorized(inputs, outputs, create_graph)
            jac = adjust(jac) if adjust is not None else _grad_postprocess(jac, create_graph)
            return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))
        jac = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in range(len(inputs)))
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError("The jacobian of the user-provided function is independent "
                                               f"of input {i}. This is not allowed in strict mode when "
                                               "create_graph=True.")
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of "
                                               f"input {el_idx}. This is not allowed in strict mode.")
                        jac_i_el.append(_zeros_like(inp_el))
            jac += (tuple(_stack_rows(jac_i_el, inputs[el_idx]).view(out.size() + inputs[el_idx].size())
                          for el_idx, jac_i_el in enumerate(jac_i)),)
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _stack_rows(rows, inp):
    if rows:
        return torch.stack(rows, dim=0)
    return torch.zeros((0,) + tuple(inp.shape), dtype=inp.dtype, device=inp.device)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """`torch.autograd.functional.hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
    outer_jacobian_strategy="reverse-mode")` -> the Hessian of a scalar function: a Tensor for one input, a
    tuple of tuples for several (`h[i][j]` has shape `in_i.shape + in_j.shape`).

    torchshim: `outer_jacobian_strategy="forward-mode"` is computed by reverse mode."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, torch.Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a "
                               "single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_func_output(func, inputs, strict, fn_name):
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], torch.Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single "
                           "element")
    return is_outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.vhp(func, inputs, v=None, create_graph=False, strict=False)` ->
    (func_output, vhp): `v` times the Hessian of the scalar function `func` at `inputs`."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp", _V_NONE_INPUT)
        is_outputs_tuple, outputs = _scalar_func_output(func, inputs, strict, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.hvp(func, inputs, v=None, create_graph=False, strict=False)` ->
    (func_output, hvp): the Hessian of the scalar function `func` at `inputs` times `v` (double-backward
    trick, as PyTorch)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp", _V_NONE_INPUT)
        is_outputs_tuple, outputs = _scalar_func_output(func, inputs, strict, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)

"""`torch.func.functional_call` and `torch.func.stack_module_state`."""
from ..nn.utils.stateless import _functional_call

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """`torch.func.functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
    tie_weights=True, strict=False)`: call `module(*args, **kwargs)` with its parameters and buffers replaced
    by the given ones (a dict by dotted name, or a sequence of dicts with distinct keys); the module is left
    unchanged. `tie_weights`: a value given for one of several tied names applies to all of them. `strict`:
    the names must be exactly the module's parameters and buffers.

    >>> m = torchshim.nn.Linear(2, 1)
    >>> functional_call(m, {"weight": torchshim.ones(1, 2), "bias": torchshim.zeros(1)}, torchshim.ones(1, 2))
    tensor([[2.]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        all_keys_counter = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                all_keys_counter[k] = all_keys_counter.get(k, 0) + 1
        repeated_keys = [key for key, n in all_keys_counter.items() if n > 1]
        if len(repeated_keys) > 0:
            raise ValueError(f"{repeated_keys} appeared in multiple dictionaries; behavior of functional "
                             f"call is "
                             "ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
                         "got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


def _construct_stacked_leaf(tensors, name):
    from .. import _api as torchshim
    all_requires_grad = all(t.requires_grad for t in tensors)
    none_requires_grad = all(not t.requires_grad for t in tensors)
    if not all_requires_grad and not none_requires_grad:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = torchshim.stack(tensors)
    if all_requires_grad:
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """`torch.func.stack_module_state(models) -> (params, buffers)`: each parameter and buffer of the (same
    class, same mode) models stacked along a new dim 0, by name; stacked parameters are new leaves."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    model0_typ = type(models[0])
    if not all(type(m) is model0_typ for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(model.named_parameters()) for model in models]
    params = {k: _construct_stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(model.named_buffers()) for model in models]
    buffers = {k: _construct_stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """`torch.func.replace_all_batch_norm_modules_(root)`: in place, every batch-norm module under `root`
    stops tracking running statistics (`running_mean`, `running_var`, `num_batches_tracked` become None,
    `track_running_stats` False), so it normalises with the batch's statistics (what vmap over a model with
    batch norm needs); returns `root`."""
    from ..nn.modules.batchnorm import _BatchNorm
    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root

"""`functional_call`: call a module with some parameters and buffers replaced, ported from PyTorch 2.13's
torch/nn/utils/stateless.py. The replacements are swapped in for the call and swapped back afterwards (also
when the call raises); in-place updates the module makes to them (e.g. BatchNorm's running statistics) land in
the given tensors. `torch.nn.utils.stateless.functional_call` is deprecated (FutureWarning) in favour of
`torch.func.functional_call`.
"""
import contextlib
import warnings

from ._named_member_accessor import NamedMemberAccessor

__all__ = ["functional_call"]


def _untie_named_tensors_map(module, parameters_and_buffers):
    """`parameters_and_buffers` plus, for every given name of a tied tensor (one tensor under several names in
    `module`), the same value under the other names; ValueError when tied names get different values."""
    all_named_tensors = {}
    all_named_tensors.update(module.named_parameters(remove_duplicate=False))
    all_named_tensors.update(module.named_buffers(remove_duplicate=False))
    tensor_to_tied_names_map = {}
    for name, tensor in all_named_tensors.items():
        tensor_to_tied_names_map.setdefault(tensor, set()).add(name)
    tied_names_map = {}
    for tied_names in tensor_to_tied_names_map.values():
        if len(tied_names) > 1:
            for tied_name in tied_names:
                tied_names_map[tied_name] = tied_names
    given_names = set(parameters_and_buffers.keys())
    given_names_for_tied_tensors = {name for name in given_names if name in tied_names_map}
    for given_name in given_names_for_tied_tensors:
        tied_names = tied_names_map[given_name]
        if len(tied_names.intersection(given_names_for_tied_tensors)) > 1 \
                and len({id(parameters_and_buffers[tied_name]) for tied_name in tied_names}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied_names)}, which are "
                             f"tied. "
                             "Consider using tie_weights=False")
    untied_parameters_and_buffers = parameters_and_buffers.copy()
    for given_name in given_names_for_tied_tensors:
        for tied_name in tied_names_map[given_name]:
            untied_parameters_and_buffers[tied_name] = parameters_and_buffers[given_name]
    return untied_parameters_and_buffers


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False,
                          stack_weights=False):
    if tie_weights:
        untied_parameters_and_buffers = _untie_named_tensors_map(module, parameters_and_buffers)
    else:
        untied_parameters_and_buffers = parameters_and_buffers
    accessor = NamedMemberAccessor(module)
    if strict:
        missing_keys, unexpected_keys = accessor.check_keys(untied_parameters_and_buffers)
        error_msgs = []
        if len(unexpected_keys) > 0:
            error_msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected_keys))}.")
        if len(missing_keys) > 0:
            error_msgs.append(f"Missing key(s): {', '.join(map(repr, missing_keys))}.")
        if len(error_msgs) > 0:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                  "\n\t".join(error_msgs)))
    orig_parameters_and_buffers = {}
    try:
        orig_parameters_and_buffers, _ = accessor.swap_tensors_dict(untied_parameters_and_buffers,
                                                                    allow_missing=True)
        yield
    finally:
        if stack_weights:
            orig_parameters_and_buffers = dict(reversed(orig_parameters_and_buffers.items()))
        new_parameters_and_buffers, _ = accessor.swap_tensors_dict(orig_parameters_and_buffers,
                                                                   allow_missing=True)
        # in-place updates may have replaced a tensor (e.g. `self.buf = self.buf + 1`): hand it back
        parameters_and_buffers.update({k: new_parameters_and_buffers[k] for k in parameters_and_buffers
                                       if k in new_parameters_and_buffers})


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """`torch.nn.utils.stateless.functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
    tie_weights=True, strict=False)`: deprecated (FutureWarning) alias of `torch.func.functional_call` for one
    dict."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
                  "removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                            strict=strict)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True,
                     strict=False):
    from ..parallel import DataParallel
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)

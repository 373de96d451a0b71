"""Running Module hooks around a call: `Module._call_impl`'s slow path (forward pre-hooks, forward hooks,
`always_call` hooks when forward raises) and the autograd plumbing of full backward hooks (`BackwardHook`,
PyTorch's torch/utils/hooks.py, over an identity `autograd.Function`).

How full backward hooks work (as in PyTorch): before `forward`, the module's tensor inputs that require grad
go through an identity Function; after `forward`, so do its tensor outputs. A post-hook on the output identity
node sees the gradients w.r.t. the outputs (and runs the backward pre-hooks, which may replace them); a
post-hook on the input identity node sees the gradients w.r.t. the inputs and calls the user's hooks with
`(module, grad_input, grad_output)`, whose result may replace `grad_input`.
"""
import warnings

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ._hooks import (_global_backward_hooks, _global_backward_pre_hooks, _global_forward_hooks,
                     _global_forward_hooks_always_called, _global_forward_hooks_with_kwargs,
                     _global_forward_pre_hooks, _WrappedHook)

__all__ = ["BackwardHook", "BackwardHookFunction"]

_NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs "
    "require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


class BackwardHookFunction(Function):
    """The identity Function whose backward node carries a module's full backward hooks."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


def _pack_with_none(indices, values, size):
    res = [None] * size
    for idx, val in zip(indices, values):
        res[idx] = val
    return tuple(res)


def _unpack_none(indices, values):
    return tuple(values[idx] for idx in indices)


class BackwardHook:
    """`torch.utils.hooks.BackwardHook`: sets up a module's full backward (pre-)hooks around one forward call.

    `setup_input_hook(args)` before forward, `setup_output_hook(result)` after; both return the arguments with
    the tensors that require grad replaced by identity-Function outputs. Only tensors that require grad go
    through the Function here (PyTorch passes every tensor and marks the others non-differentiable); the
    gradient tuples the hooks see are the same: one entry per argument, None where there is no gradient."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None
        self._input_grad_index = None  # positions of the inputs that went through the Function

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # the output hook didn't run (no gradient flowed through the outputs)
                return None
            res = _pack_with_none(self._input_grad_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                       f"{len(out)}, "
                                       f"but expected {len(res)}")
                res = out
            self.grad_outputs = None
            return _unpack_none(self._input_grad_index, res)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        """(args with the grad-requiring tensors replaced, indices of all tensors or None, indices of the
        replaced ones)."""
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        grad_idx = [i for i in tensors_idx if args[i].requires_grad]
        if not (grad_idx and is_grad_enabled()):
            return args, None, None
        new_tensors = BackwardHookFunction.apply(*[args[i] for i in grad_idx])
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if len(grad_fns) == 0:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with a code "
                               "sample to "
                               "reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(grad_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx, grad_idx

    def setup_input_hook(self, args):
        res, input_idx, grad_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        self._input_grad_index = grad_idx
        return res

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = _pack_with_none(self._output_grad_index, grad_output, self.n_outputs)
                if self.user_pre_hooks:
                    expected_len = len(self.grad_outputs)
                    for user_pre_hook in self.user_pre_hooks:
                        hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                        if hook_grad_outputs is None:
                            continue
                        actual_len = len(hook_grad_outputs)
                        if actual_len != expected_len:
                            raise RuntimeError("Backward pre hook returned an invalid number of "
                                               "grad_output, "
                                               f"got {actual_len}, but expected {expected_len}")
                        self.grad_outputs = hook_grad_outputs
                local_grad_outputs = self.grad_outputs
                if self.input_tensors_index is None:
                    warnings.warn(_NO_INPUT_GRAD_WARNING, stacklevel=5)
                    grad_inputs = _pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient "
                                               "should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
                if local_grad_outputs is not None:
                    return tuple(local_grad_outputs[i] for i in self._output_grad_index)
                return None
            grad_fn.register_hook(hook)

        is_tuple = True
        if not isinstance(args, tuple):
            args = (args,)
            is_tuple = False
        res, output_idx, grad_idx = self._apply_on_tensors(fn, args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        self._output_grad_index = grad_idx
        if not is_tuple:
            res = res[0]
        return res


def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
    """`Module._maybe_warn_non_full_backward_hook`: PyTorch's FutureWarnings for the cases where a non-full
    backward hook misses some gradients."""
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor "
                          "or a tuple "
                          "of Tensors is deprecated and will be removed in future versions. This hook will "
                          "be "
                          "missing some of the grad_output. Please use register_full_backward_hook to get "
                          "the "
                          "documented behavior.", FutureWarning, stacklevel=2)
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            warnings.warn("Using non-full backward hooks on a Module that does not take as input a single "
                          "Tensor or "
                          "a tuple of Tensors is deprecated and will be removed in future versions. This "
                          "hook will be "
                          "missing some of the grad_input. Please use register_full_backward_hook to get the "
                          "documented behavior.", FutureWarning, stacklevel=2)
            return
    else:
        inputs = (inputs,)
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is "
                      "deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_output.",
                      FutureWarning, stacklevel=2)
    elif len(out_grad_fn) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different autograd "
                      "Nodes is "
                      "deprecated and will be removed in future versions. This hook will be missing some "
                      "grad_output. Please use register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=2)
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_functions = {n[0] for n in grad_fn.next_functions}
        if inputs_grad_fn != next_functions:
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes "
                          "is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_input. Please use register_full_backward_hook to get the documented "
                          "behavior.",
                          FutureWarning, stacklevel=2)


def call_with_hooks(self, forward_call, args, kwargs):
    """`Module._call_impl` when any hook is registered: forward pre-hooks, backward-hook setup, forward,
    forward hooks, and the `always_call` forward hooks when forward raises."""
    result = None
    called_always_called_hooks = set()

    def inner():
        nonlocal result, args, kwargs
        full_backward_hooks, non_full_backward_hooks = [], []
        backward_pre_hooks = []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            backward_pre_hooks = self._get_backward_pre_hooks()
        if self._backward_hooks or _global_backward_hooks:
            full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()
        if _global_forward_pre_hooks or self._forward_pre_hooks:
            for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    args_kwargs_result = hook(self, args, kwargs)
                    if args_kwargs_result is not None:
                        if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                            args, kwargs = args_kwargs_result
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {args_kwargs_result}.")
                else:
                    args_result = hook(self, args)
                    if args_result is not None:
                        if not isinstance(args_result, tuple):
                            args_result = (args_result,)
                        args = args_result

        bw_hook = None
        if full_backward_hooks or backward_pre_hooks:
            bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)

        result = forward_call(*args, **kwargs)
        if _global_forward_hooks or self._forward_hooks:
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if (hook_id in self._forward_hooks_always_called
                        or hook_id in _global_forward_hooks_always_called):
                    called_always_called_hooks.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result

        if bw_hook:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple "
                              "of "
                              f"Tensors but received {type(result)}", stacklevel=2)
            result = bw_hook.setup_output_hook(result)

        if non_full_backward_hooks:
            var = result
            while not isinstance(var, Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, Tensor))
                else:
                    var = var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_backward_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, self))
                self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
        return result

    try:
        return inner()
    except Exception:
        # run always_call forward hooks that have not run yet; their errors are turned into warnings
        for hook_id, hook in _global_forward_hooks.items():
            if hook_id in _global_forward_hooks_always_called and hook_id not in called_always_called_hooks:
                try:
                    hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("global module forward hook with ``always_call=True`` raised an exception "
                                  "that "
                                  f"was silenced as another error was raised in forward: {str(e)}",
                                  stacklevel=2)
                    continue
        for hook_id, hook in self._forward_hooks.items():
            if hook_id in self._forward_hooks_always_called and hook_id not in called_always_called_hooks:
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        hook_result = hook(self, args, kwargs, result)
                    else:
                        hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an exception that "
                                  "was "
                                  f"silenced as another error was raised in forward: {str(e)}", stacklevel=2)
                    continue
        raise

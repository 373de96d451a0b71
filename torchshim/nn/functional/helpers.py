"""The rest of `torch.nn.functional`'s public names: argument helpers (`assert_int_or_pair`,
`boolean_dispatch`), TorchScript typing markers (`BroadcastingList1/2/3`, `DType`), the grid_sample mode
tables, the doc-note dictionaries, the `__torch_function__` helpers re-exported from `torch.overrides`,
`native_channel_shuffle`, and the `Tensor` / `grad` names PyTorch's module exposes."""
from ... import _api as torch
from ...autograd.function import Function
from ...overrides import (handle_torch_function, has_torch_function, has_torch_function_unary,
                          has_torch_function_variadic)
from .. import grad

__all__ = ["assert_int_or_pair", "boolean_dispatch", "BroadcastingList1", "BroadcastingList2",
           "BroadcastingList3", "DType", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES",
           "reproducibility_notes", "sparse_support_notes", "tf32_notes", "handle_torch_function",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "native_channel_shuffle", "Tensor", "grad"]

Tensor = torch.Tensor
DType = int  # TorchScript's stand-in for a dtype argument, as in PyTorch

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

_CUDNN_NOTE = ("In some circumstances when given tensors on a CUDA device and using CuDNN, this operator may "
               "select a nondeterministic algorithm to increase performance. If this is undesirable, you can "
               "try to make the operation deterministic (potentially at a performance cost) by setting "
               "``torch.backends.cudnn.deterministic = True``. See :doc:`/notes/randomness` for more "
               "information.")
reproducibility_notes = {
    "forward_reproducibility_note": ("This operation may behave nondeterministically when given tensors on a "
                                     "CUDA device. See :doc:`/notes/randomness` for more information."),
    "backward_reproducibility_note": ("This operation may produce nondeterministic gradients when given "
                                      "tensors on a CUDA device. See :doc:`/notes/randomness` for more "
                                      "information."),
    "cudnn_reproducibility_note": _CUDNN_NOTE,
}
sparse_support_notes = {
    "sparse_beta_warning": ("\n.. warning::\n    Sparse support is a beta feature and some "
                            "layout(s)/dtype/device combinations may not be supported,\n    or may not have "
                            "autograd support. If you notice missing functionality please\n    open a "
                            "feature request."),
}
tf32_notes = {"tf32_note": "This operator supports :ref:`TensorFloat32<tf32_on_ampere>`."}


class _BroadcastingListCls:
    """`BroadcastingList1[int]`: a TorchScript annotation (an int or a list of N ints); None in eager."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = _BroadcastingListCls()

boolean_dispatched = {}


def assert_int_or_pair(arg, arg_name, message):
    """`assert_int_or_pair(arg, arg_name, message)`: AssertionError(message.format(arg_name)) unless `arg`
    is an int or has two elements."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """`boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name)`: a
    function calling `if_true` or `if_false` by the boolean argument `arg_name` (keyword, or position
    `arg_index`, else `default`); the one docstring of the two is shared."""
    def fn(*args, **kwargs):
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        doc = if_true.__doc__ = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        doc = if_false.__doc__ = if_true.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is None:
        doc = None
    else:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    boolean_dispatched[fn] = {"if_true": if_true, "if_false": if_false, "index": arg_index,
                              "default": default, "arg_name": arg_name}
    return fn


class _NativeChannelShuffle(Function):
    @staticmethod
    def forward(ctx, input, groups):
        return torch.channel_shuffle(input, groups)

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError("derivative for aten::native_channel_shuffle is not implemented")


def native_channel_shuffle(input, groups):
    """`F.native_channel_shuffle(input, groups)`: `channel_shuffle` without a derivative (backward raises
    PyTorch's error)."""
    return _NativeChannelShuffle.apply(input, groups)

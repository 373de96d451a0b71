"""`torch.autograd.backward` and `torch.autograd.grad`."""
from .._tensor import Tensor
from ._engine import run_backward

__all__ = ["backward", "grad"]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor) or hasattr(x, "output_nr") and isinstance(x, tuple):  # a graph.GradientEdge
        return (x,)
    return tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """`torch.autograd.backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
    inputs=None)`: sum of gradients of `tensors` accumulated into the leaves' `.grad` (only `inputs` when
    given)."""
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    ins = _as_tuple(inputs)
    if ins is not None and len(ins) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    run_backward(tensors, grads, retain_graph, create_graph, inputs=ins, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """`torch.autograd.grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
    allow_unused=None, materialize_grads=False)` -> tuple of gradients of `outputs` w.r.t. each of `inputs`;
    no `.grad` is touched."""
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported by torchshim")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but "
                         "got allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad_outputs must be of the same length as outputs. Got {len(grads)} "
                           f"grad_outputs and {len(outputs)} outputs.")
    return run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs_t,
                        allow_unused=allow_unused,
                        accumulate=False, materialize=materialize_grads)

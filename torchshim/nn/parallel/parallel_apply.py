"""`torch.nn.parallel.parallel_apply` (ported from PyTorch 2.13). PyTorch runs one thread per replica; here
the replicas run one after the other on the calling thread: jax dispatches asynchronously, so the devices
still compute concurrently, and torchshim's grad mode and RNG stay per-thread-consistent."""
from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled, set_grad_enabled
from ._functions import as_device

__all__ = ["get_a_var", "parallel_apply"]


def get_a_var(obj):
    """The first tensor found in a (nested) input, or None."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for result in map(get_a_var, obj):
            if isinstance(result, Tensor):
                return result
    if isinstance(obj, dict):
        for result in map(get_a_var, obj.items()):
            if isinstance(result, Tensor):
                return result
    return None


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """`parallel_apply(modules, inputs, kwargs_tup=None, devices=None)`: `[modules[i](*inputs[i],
    **kwargs_tup[i])]` (a non-tuple input is one argument). A replica's exception is re-raised (the first
    one), naming the replica, as PyTorch does."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs "
                             f"{len(inputs)}")
    if kwargs_tup is not None:
        if len(modules) != len(kwargs_tup):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of "
                                 "kwargs_tup "
                                 f"{len(kwargs_tup)}")
    else:
        kwargs_tup = ({},) * len(modules)
    if devices is not None:
        if len(modules) != len(devices):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of "
                                 "devices "
                                 f"{len(devices)}")
    else:
        devices = [None] * len(modules)
    grad_enabled = is_grad_enabled()
    outputs = []
    for i, (module, input, kwargs, device) in enumerate(zip(modules, inputs, kwargs_tup, devices)):
        if device is None:
            t = get_a_var(input)
            if t is None:
                raise RuntimeError(f"Caught an exception in replica {i}, no device was provided and no "
                                   "tensor input "
                                   "was found; device cannot be resolved")
            device = t.device
        device = as_device(device)
        if not isinstance(input, (list, tuple)):
            input = (input,)
        with set_grad_enabled(grad_enabled):
            try:
                outputs.append(module(*input, **kwargs))
            except Exception as e:
                _reraise(e, f"in replica {i} on device {device}")
    return outputs


def _reraise(e, where):
    """PyTorch's ExceptionWrapper.reraise: the same exception type, its message prefixed with where it was
    caught and the original traceback (RuntimeError when the type can't take a message)."""
    import traceback
    msg = f"Caught {type(e).__name__} {where}.\nOriginal {''.join(traceback.format_exception(e))}"
    if isinstance(e, KeyError):
        msg = KeyErrorMessage(msg)
    try:
        exception = type(e)(msg)
    except Exception:
        raise RuntimeError(msg) from None
    raise exception from e


class KeyErrorMessage(str):
    """str subclass that returns itself in repr (KeyError's message is printed with repr)."""

    def __repr__(self):
        return self

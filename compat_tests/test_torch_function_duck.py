"""`__torch_function__` of a non-Tensor ("duck") type, defined as a plain method or a classmethod: PyTorch
looks it up on the argument, so a plain method is bound to the instance; both libraries must call it with the
same (self/cls, function name, types) and return its result. Also `torch.overrides.handle_torch_function`."""
import pytest
import torch

import torchshim

LIBS = (torch, torchshim)


def _duck_classes(log):
    class Plain:
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((type(self).__name__, self.tag, func.__name__, [t.__name__ for t in types]))
            return "plain"

    class Cls:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append((cls.__name__, None, func.__name__, [t.__name__ for t in types]))
            return "cls"
    Plain.tag = "class-level"
    return Plain, Cls


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("call", ["add", "sin", "cat"])
def test_duck_type_dispatch(which, call):
    out = []
    for T in LIBS:
        log = []
        duck = _duck_classes(log)[which]()
        if which == 0:
            duck.tag = "instance"
        calls = {"add": lambda T, d: T.add(d, 1), "sin": lambda T, d: T.sin(d),
                 "cat": lambda T, d: T.cat([T.ones(1), d])}
        out.append((calls[call](T, duck), log))
    assert out[0] == out[1]


def test_handle_torch_function_binds_plain_methods():
    out = []
    for T in LIBS:
        log = []
        Plain, _ = _duck_classes(log)
        duck = Plain()
        duck.tag = "instance"

        def public(x):
            return x
        out.append((T.overrides.handle_torch_function(public, (duck,), duck), log))
    assert out[0] == out[1]

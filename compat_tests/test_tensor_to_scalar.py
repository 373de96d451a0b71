"""float(t) / complex(t) / int(t) / t.item() of tensors that require grad: PyTorch 2.13 warns (UserWarning,
once per process unless `set_warn_always(True)`) for float() and complex() only, and only in grad mode; a
tensor of more than one element raises ValueError (after the warning)."""
import contextlib
import math

import pytest

from harness import Arg, check


@contextlib.contextmanager
def _warn_always(T):
    old = T.is_warn_always_enabled()
    T.set_warn_always(True)
    try:
        yield
    finally:
        T.set_warn_always(old)


CASES = {
    "float_leaf": lambda T, x: float(x),
    "float_nonleaf": lambda T, x: float(x * 2),
    "complex": lambda T, x: complex(x),
    "int": lambda T, x: int(x),
    "item": lambda T, x: x.item(),
    "tolist": lambda T, x: x.tolist(),
    "floor": lambda T, x: math.floor(x),
    "format": lambda T, x: "%.3f" % x,
    "no_grad": lambda T, x: _no_grad(T, lambda: float(x)),
    "detached": lambda T, x: float(x.detach()),
    "twice": lambda T, x: (float(x), float(x)),
}


def _no_grad(T, fn):
    with T.no_grad():
        return fn()


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)], ids=str)
def test_to_scalar_warning(case, shape):
    def fn(T, x):
        with _warn_always(T):
            return CASES[case](T, x)
    check(fn, [Arg(shape, requires_grad=True)], warn=True)


@pytest.mark.parametrize("conv", [float, int, complex])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_to_scalar_many_elements(conv, requires_grad):
    def fn(T, x):
        with _warn_always(T):
            return conv(x)
    check(fn, [Arg((2,), requires_grad=requires_grad)], warn=True)


def test_without_grad_no_warning():
    check(lambda T, x: (float(x), complex(x)), [Arg(())], warn=True)

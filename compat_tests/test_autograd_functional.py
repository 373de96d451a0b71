"""torch.autograd.gradcheck / gradgradcheck and torch.autograd.functional against real PyTorch.

Every case runs `fn(T, *inputs)` under torch and torchshim (compat_tests/harness.py) and compares values,
output structure, requires_grad, errors (type and message) and warnings. torchshim's implementations are
imported from their modules (`torchshim.autograd.gradcheck`, `torchshim.autograd.functional`); the tests
marked `public path` use `torchshim.autograd.gradcheck` / `torchshim.autograd.functional` as a user would.
"""
import importlib
import re
import subprocess
import sys

import pytest
import torch

import torchshim
from harness import Arg, check, run_both

# the module (the package attribute `torchshim.autograd.gradcheck` is the function, as in PyTorch)
TS_GC = importlib.import_module("torchshim.autograd.gradcheck")
TS_F = importlib.import_module("torchshim.autograd.functional")


def F(T):
    """torch.autograd.functional of library T."""
    return torch.autograd.functional if T is torch else TS_F


def gradcheck(T, *a, **k):
    return (torch.autograd.gradcheck if T is torch else TS_GC.gradcheck)(*a, **k)


def gradgradcheck(T, *a, **k):
    return (torch.autograd.gradgradcheck if T is torch else TS_GC.gradgradcheck)(*a, **k)


def D(*shape, rg=True, dtype="float64", low=-2.0, high=2.0, nc=False):
    return Arg(shape, dtype, low, high, noncontig=nc, requires_grad=rg)


N3 = D(3, rg=False)  # a vector v (no grad)
C3 = D(3, dtype="complex128")


def scaled_grad(T, a, k=2.0):
    """a * 1 whose gradient is scaled by k on the way back (a deliberately wrong derivative)."""
    h = a * 1.0
    h.register_hook(lambda g: None if g is None else g * k)  # PyTorch's undefined-grad check passes None
    return h


def cut_grad(T, a):
    """a * 1 whose gradient is detached on the way back (wrong under create_graph=True)."""
    h = a * 1.0
    h.register_hook(lambda g: None if g is None else g.detach())
    return h


# ---- gradcheck ----------------------------------------------------------------------------------------
GRADCHECK = [
    ("sin_mul", lambda T, a, b: gradcheck(T, lambda x, y: x.sin() * y, (a, b)), (D(3, 4), D(3, 4))),
    ("matmul", lambda T, a, b: gradcheck(T, lambda x, y: x @ y, (a, b)), (D(3, 4), D(4, 2))),
    ("pow", lambda T, a: gradcheck(T, lambda x: x.pow(3), (a,)), (D(5),)),
    ("pow_tensor", lambda T, a, b: gradcheck(T, lambda x, y: x.pow(y), (a, b)), (D(4, low=0.5), D(4))),
    ("scalar", lambda T, a: gradcheck(T, lambda x: x * x * x, (a,)), (D(),)),
    ("single_tensor_input", lambda T, a: gradcheck(T, lambda x: x.exp(), a), (D(2, 3),)),
    ("multi_output", lambda T, a, b: gradcheck(T, lambda x, y: (x * y, x.exp().sum(0), y), (a, b)),
     (D(3, 4), D(3, 4))),
    ("int_output", lambda T, a: gradcheck(T, lambda x: (x.sin(), x.argmax()), (a,)), (D(3, 4),)),
    ("int_output_first", lambda T, a: gradcheck(T, lambda x: (x.argmax(), x.sin()), (a,)), (D(3, 4),)),
    ("noncontig", lambda T, a: gradcheck(T, lambda x: x.cos(), (a,)), (D(4, 6, nc=True),)),
    ("non_tensor_args", lambda T, a, b: gradcheck(T, lambda x, k, y: x * k + y, (a, 3, b)), (D(3), D(3))),
    ("partial_requires_grad", lambda T, a, b: gradcheck(T, lambda x, y: x.tanh() * y, (a, b)),
     (D(3), D(3, rg=False))),
    ("reduction", lambda T, a: gradcheck(T, lambda x: (x.sum(1), x.mean(), x.prod(0)), (a,)), (D(2, 3),)),
    ("unused_input", lambda T, a, b: gradcheck(T, lambda x, y: x * 2, (a, b)), (D(3), D(3))),
    ("constant_output", lambda T, a: gradcheck(T, lambda x: x.detach() * 2, (a,)), (D(3),)),
    ("bool_output", lambda T, a: gradcheck(T, lambda x: x > 0, (a,)), (D(3),)),
    ("fast", lambda T, a, b: gradcheck(T, lambda x, y: x @ y.T, (a, b), fast_mode=True), (D(3, 4), D(2, 4))),
    ("fast_multi_output", lambda T, a: gradcheck(T, lambda x: (x.sin(), x.sum()), (a,), fast_mode=True),
     (D(3, 4),)),
    ("batched_grad", lambda T, a, b: gradcheck(T, lambda x, y: x.sin() * y, (a, b), check_batched_grad=True),
     (D(3, 4), D(3, 4))),
    ("grad_dtypes", lambda T, a: gradcheck(T, lambda x: x.exp(), (a,), check_grad_dtypes=True), (D(3),)),
    ("no_undefined_check", lambda T, a: gradcheck(T, lambda x: x.exp(), (a,), check_undefined_grad=False),
     (D(3),)),
    # complex: PyTorch's Wirtinger checks
    ("complex_in_real_out", lambda T, a: gradcheck(T, lambda x: (x * x).abs(), (a,)), (C3,)),
    ("complex_out", lambda T, a: gradcheck(T, lambda x: x * x, (a,)), (D(3, dtype="complex128"),)),
    ("complex_mixed", lambda T, a, b: gradcheck(T, lambda x, y: x * y, (a, b)),
     (D(3, dtype="complex128"), D(3))),
    ("complex_fast", lambda T, a: gradcheck(T, lambda x: (x * x).abs(), (a,), fast_mode=True),
     (D(3, dtype="complex128"),)),
    ("complex_out_fast", lambda T, a: gradcheck(T, lambda x: x.exp(), (a,), fast_mode=True),
     (D(3, dtype="complex128"),)),
    # a wrong gradient: PyTorch's GradcheckError (a RuntimeError), or False without raise_exception
    ("wrong_grad", lambda T, a: gradcheck(T, lambda x: scaled_grad(T, x).sin(), (a,)), (D(3, 4),)),
    ("wrong_grad_false", lambda T, a: gradcheck(T, lambda x: scaled_grad(T, x).sin(), (a,),
                                                raise_exception=False), (D(3, 4),)),
    ("wrong_grad_second_input", lambda T, a, b: gradcheck(T, lambda x, y: x * scaled_grad(T, y), (a, b)),
     (D(2), D(2))),
    ("wrong_grad_second_output", lambda T, a: gradcheck(T, lambda x: (x * 2, scaled_grad(T, x).exp()), (a,)),
     (D(2),)),
    ("wrong_grad_fast", lambda T, a: gradcheck(T, lambda x: scaled_grad(T, x).sin(), (a,), fast_mode=True),
     (D(3, 4),)),
    ("wrong_grad_fast_false", lambda T, a: gradcheck(T, lambda x: scaled_grad(T, x).sin(), (a,),
                                                     fast_mode=True, raise_exception=False), (D(3, 4),)),
    ("wrong_grad_complex_out", lambda T, a: gradcheck(T, lambda x: scaled_grad(T, x) * x, (a,)),
     (D(2, dtype="complex128"),)),
    ("wrong_grad_complex_in", lambda T, a: gradcheck(T, lambda x: (scaled_grad(T, x) * x).abs(), (a,)),
     (D(2, dtype="complex128"),)),
    ("wrong_grad_loose_tol", lambda T, a: gradcheck(T, lambda x: scaled_grad(T, x, 1.0001).sin(), (a,),
                                                    rtol=1e-2), (D(3),)),
    ("custom_function", lambda T, a: gradcheck(T, _sin_function(T, 1.0).apply, (a,)), (D(3, 2),)),
    ("custom_function_wrong", lambda T, a: gradcheck(T, _sin_function(T, 1.5).apply, (a,)), (D(3, 2),)),
    ("nonzero_numerical", lambda T, a: gradcheck(T, lambda x: x.detach().sin(), (a,)), (D(3),)),
    ("nonzero_numerical_fast", lambda T, a: gradcheck(T, lambda x: x.detach().sin(), (a,), fast_mode=True),
     (D(3),)),
    ("nondeterministic", lambda T, a: gradcheck(T, lambda x: _noisy(T, x), (a,)), (D(3),)),
    ("nondeterministic_tol", lambda T, a: gradcheck(T, lambda x: _noisy(T, x), (a,), nondet_tol=1e-6),
     (D(3),)),
    # input checks and argument errors
    ("float32_warns", lambda T, a: gradcheck(T, lambda x: x * 3, (a,)), (D(3, dtype="float32"),)),
    ("float32_fails", lambda T, a: gradcheck(T, lambda x: x.exp(), (a,), raise_exception=False),
     (D(3, dtype="float32"),)),
    ("no_requires_grad", lambda T, a: gradcheck(T, lambda x: x * 2, (a,)), (D(3, rg=False),)),
    ("stride0", lambda T, a: gradcheck(T, lambda x: x * 2, (a.expand(2, 3).requires_grad_(),)), (N3,)),
    ("no_ad_checks", lambda T, a: gradcheck(T, lambda x: x, (a,), check_backward_ad=False), (D(3),)),
    ("batched_needs_backward", lambda T, a: gradcheck(T, lambda x: x, (a,), check_backward_ad=False,
                                                      check_forward_ad=True, check_batched_grad=True),
     (D(3),)),
    ("batched_fwd_needs_fwd", lambda T, a: gradcheck(T, lambda x: x, (a,), check_batched_forward_grad=True),
     (D(3),)),
]


def _sin_function(T, k):
    """A custom autograd.Function for sin whose backward is scaled by k (k != 1: a wrong gradient)."""
    class Sin(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x.cos() * k
    return Sin


def _noisy(T, x):
    """A backward that differs by ~1e-9 from call to call."""
    h = x * 1.0
    h.register_hook(lambda g: None if g is None else g * (1 + T.rand(1, dtype=T.float64) * 1e-9))
    return h * 3


@pytest.mark.parametrize("name,fn,specs", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(name, fn, specs):
    check(fn, specs, warn=True)


@pytest.mark.parametrize("name", ["wrong_grad", "wrong_grad_second_input", "wrong_grad_second_output",
                                  "wrong_grad_complex_out", "wrong_grad_complex_in", "custom_function_wrong",
                                  "nondeterministic"])
def test_gradcheck_full_message(name):
    """The whole message (numerical and analytical Jacobians printed) and PyTorch's error class name."""
    _, fn, specs = next(c for c in GRADCHECK if c[0] == name)
    ref, got = run_both(fn, specs)
    assert ref.error is not None and got.error is not None
    assert type(ref.error).__name__ == type(got.error).__name__ == "GradcheckError"
    assert isinstance(got.error, RuntimeError) and isinstance(got.error, TS_GC.GradcheckError)
    assert _unsign_zeros(str(ref.error)) == _unsign_zeros(str(got.error))


def _unsign_zeros(msg):
    """Printed Jacobians with the sign of zero dropped: backward formulas may differ in the sign of an exact
    zero (jax's vs PyTorch's complex products), which torch.allclose and the harness's value comparisons
    ignore."""
    return re.sub(r"[-+ ](0\.0+)(?![0-9])", r"~\1", msg)


def test_gradcheck_fast_mode_message():
    """Fast mode's message: its first line, then the slow-mode Jacobians (the random vectors differ)."""
    _, fn, specs = next(c for c in GRADCHECK if c[0] == "wrong_grad_fast")
    ref, got = run_both(fn, specs)
    r, g = str(ref.error), str(got.error)
    assert r.splitlines()[0] == g.splitlines()[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    tail = "Below, we recompute numerical and analytical jacobians in slow mode:"
    assert r[r.index(tail):] == g[g.index(tail):]


@pytest.mark.xfail(reason="torchshim has no forward-mode AD: check_forward_ad=True raises "
                          "NotImplementedError")
def test_gradcheck_forward_ad():
    check(lambda T, a: gradcheck(T, lambda x: x.sin(), (a,), check_forward_ad=True), (D(3),))


# ---- gradgradcheck ------------------------------------------------------------------------------------
GRADGRADCHECK = [
    ("sin_mul", lambda T, a, b: gradgradcheck(T, lambda x, y: x.sin() * y, (a, b)), (D(3, 4), D(3, 4))),
    ("sum_cube", lambda T, a: gradgradcheck(T, lambda x: (x ** 3).sum(), (a,)), (D(3, 4),)),
    ("matmul_noncontig_go", lambda T, a, b: gradgradcheck(T, lambda x, y: x @ y.T, (a, b),
                                                          gen_non_contig_grad_outputs=True),
     (D(3, 4), D(2, 4))),
    ("given_grad_outputs", lambda T, a, g: gradgradcheck(T, lambda x: x.exp(), (a,), (g,)),
     (D(3, 4), D(3, 4))),
    ("fast", lambda T, a: gradgradcheck(T, lambda x: x.exp() * x, (a,), fast_mode=True), (D(3, 4),)),
    ("complex", lambda T, a: gradgradcheck(T, lambda x: x * x * x, (a,)), (D(2, dtype="complex128"),)),
    # consistent under create_graph: the scaled first derivative is differentiated consistently
    ("scaled_first_grad", lambda T, a: gradgradcheck(T, lambda x: scaled_grad(T, x).sin(), (a,)), (D(3),)),
    # a detached backward: the gradient no longer depends on its inputs, but its finite differences do
    ("cut_grad", lambda T, a: gradgradcheck(T, lambda x: cut_grad(T, x).sin(), (a,)), (D(3),)),
    ("cut_grad_false", lambda T, a: gradgradcheck(T, lambda x: cut_grad(T, x).sin(), (a,),
                                                  raise_exception=False), (D(3),)),
    ("no_checks", lambda T, a: gradgradcheck(T, lambda x: x, (a,), check_rev_over_rev=False), (D(3),)),
    ("undefined_needs_rev", lambda T, a: gradgradcheck(T, lambda x: x, (a,), check_rev_over_rev=False,
                                                       check_fwd_over_rev=True), (D(3),)),
]


@pytest.mark.parametrize("name,fn,specs", GRADGRADCHECK, ids=[c[0] for c in GRADGRADCHECK])
def test_gradgradcheck(name, fn, specs):
    check(fn, specs, warn=True)


# ---- torch.autograd.functional ------------------------------------------------------------------------
def _f2(x, y):
    return x.sum() * y, x * 3


FUNCTIONAL = [
    # jacobian: structure follows the tuple-ness of inputs and outputs
    ("jac_single", lambda T, a: F(T).jacobian(lambda x: x.sin() * 2, a), (D(3),)),
    ("jac_2d", lambda T, a: F(T).jacobian(lambda x: x @ x.T, a), (D(2, 3),)),
    ("jac_scalar", lambda T, a: F(T).jacobian(lambda x: x.exp(), a), (D(),)),
    ("jac_tuple_in", lambda T, a: F(T).jacobian(lambda x: x.sin(), (a,)), (D(3),)),
    ("jac_tuple_out", lambda T, a: F(T).jacobian(lambda x: (x.sin(),), a), (D(3),)),
    ("jac_multi", lambda T, a, b: F(T).jacobian(_f2, (a, b)), (D(3), D(2, 2))),
    ("jac_multi_vectorize", lambda T, a, b: F(T).jacobian(_f2, (a, b), vectorize=True), (D(3), D(2, 2))),
    ("jac_unused_input", lambda T, a, b: F(T).jacobian(lambda x, y: x * 2, (a, b)), (D(3), D(2))),
    ("jac_unused_vectorize", lambda T, a, b: F(T).jacobian(lambda x, y: (x * 2, y.sum()), (a, b),
                                                           vectorize=True), (D(3), D(2))),
    ("jac_nondiff_output", lambda T, a: F(T).jacobian(lambda x: (x * 2, x.detach()), a), (D(3),)),
    ("jac_create_graph", lambda T, a: F(T).jacobian(lambda x: x ** 3, a, create_graph=True), (D(3),)),
    ("jac_create_graph_again", lambda T, a: T.autograd.grad(
        F(T).jacobian(lambda x: x ** 3, a, create_graph=True).sum(), a), (D(3),)),
    ("jac_forward_mode", lambda T, a, b: F(T).jacobian(_f2, (a, b), vectorize=True, strategy="forward-mode"),
     (D(3), D(2, 2))),
    ("jac_forward_mode_mixed_rg", lambda T, a, b: F(T).jacobian(
        lambda x, y: (x * 2, y ** 2, x.sum() * y ** 2), (a, b), vectorize=True, strategy="forward-mode"),
     (D(3), D(2, rg=False))),
    ("jac_forward_mode_no_rg", lambda T, a: F(T).jacobian(lambda x: x.sin(), a, vectorize=True,
                                                          strategy="forward-mode"), (D(3, rg=False),)),
    ("jac_forward_mode_no_vectorize", lambda T, a: F(T).jacobian(lambda x: x, a, strategy="forward-mode"),
     (D(3),)),
    ("jac_forward_mode_create_graph", lambda T, a: F(T).jacobian(lambda x: x, a, create_graph=True,
                                                                 strategy="forward-mode"), (D(3),)),
    ("jac_forward_mode_strict", lambda T, a: F(T).jacobian(lambda x: x, a, strict=True,
                                                           strategy="forward-mode"), (D(3),)),
    ("jac_bad_strategy", lambda T, a: F(T).jacobian(lambda x: x, a, strategy="sideways"), (D(3),)),
    ("jac_bad_inputs", lambda T, a: F(T).jacobian(lambda x: x, [a]), (D(3),)),
    ("jac_bad_inputs_tuple", lambda T, a: F(T).jacobian(lambda x, y: x, (a, 2.0)), (D(3),)),
    ("jac_bad_outputs", lambda T, a: F(T).jacobian(lambda x: 3.0, a), (D(3),)),
    ("jac_strict_output", lambda T, a, c: F(T).jacobian(lambda x: c * 2, a, strict=True), (D(3), N3)),
    ("jac_strict_independent", lambda T, a, b: F(T).jacobian(lambda x, y: x * 2, (a, b), strict=True),
     (D(3), D(2))),
    ("jac_strict_vectorize", lambda T, a: F(T).jacobian(lambda x: x * 2, a, strict=True, vectorize=True),
     (D(3),)),
    ("jac_strict_create_graph", lambda T, a: F(T).jacobian(lambda x: x * 2, a, strict=True,
                                                           create_graph=True), (D(3),)),
    ("jac_no_grad_mode", lambda T, a: _in_no_grad(T, lambda: F(T).jacobian(lambda x: x ** 2, a)), (D(3),)),
    # hessian
    ("hess_cube", lambda T, a: F(T).hessian(lambda x: (x ** 3).sum(), a), (D(4),)),
    ("hess_2d", lambda T, a: F(T).hessian(lambda x: (x.sin() * x).sum(), a), (D(2, 2),)),
    ("hess_multi", lambda T, a, b: F(T).hessian(lambda x, y: (x ** 2).sum() * (y ** 3).sum(), (a, b)),
     (D(3), D(2))),
    ("hess_tuple_in", lambda T, a: F(T).hessian(lambda x: (x ** 3).sum(), (a,)), (D(3),)),
    ("hess_vectorize", lambda T, a, b: F(T).hessian(lambda x, y: (x * y.exp()).sum(), (a, b), vectorize=True),
     (D(3), D(3))),
    ("hess_forward_mode", lambda T, a: F(T).hessian(lambda x: (x ** 3).sum(), a, vectorize=True,
                                                    outer_jacobian_strategy="forward-mode"), (D(3),)),
    ("hess_forward_mode_no_rg", lambda T, a: F(T).hessian(lambda x: (x ** 3).sum(), a, vectorize=True,
                                                          outer_jacobian_strategy="forward-mode"), (N3,)),
    ("hess_create_graph", lambda T, a: F(T).hessian(lambda x: (x ** 3).sum(), a, create_graph=True), (D(3),)),
    ("hess_create_graph_again", lambda T, a: T.autograd.grad(
        F(T).hessian(lambda x: (x ** 4).sum(), a, create_graph=True).sum(), a), (D(3),)),
    ("hess_linear", lambda T, a: F(T).hessian(lambda x: x.sum() * 2, a), (D(3),)),
    ("hess_strict_linear", lambda T, a: F(T).hessian(lambda x: x.sum() * 2, a, strict=True), (D(3),)),
    ("hess_strict_quadratic", lambda T, a: F(T).hessian(lambda x: (x * x).sum(), a, strict=True), (D(3),)),
    ("hess_not_scalar", lambda T, a: F(T).hessian(lambda x: x * x, a), (D(3),)),
    ("hess_tuple_output", lambda T, a: F(T).hessian(lambda x: ((x * x).sum(),), a), (D(3),)),
    ("hess_bad_strategy", lambda T, a: F(T).hessian(lambda x: x.sum(), a, outer_jacobian_strategy="x"),
     (D(3),)),
    # vjp
    ("vjp", lambda T, a, v: F(T).vjp(lambda x: x.sin() * x, a, v), (D(3), D(3, rg=False))),
    ("vjp_scalar_v_none", lambda T, a: F(T).vjp(lambda x: (x ** 2).sum(), a), (D(3),)),
    ("vjp_multi", lambda T, a, b, v1, v2: F(T).vjp(_f2, (a, b), (v1, v2)),
     (D(3), D(2, 2), D(2, 2, rg=False), D(3, rg=False))),
    ("vjp_create_graph", lambda T, a, v: F(T).vjp(lambda x: x ** 3, a, v, create_graph=True),
     (D(3), D(3, rg=False))),
    ("vjp_create_graph_again", lambda T, a, v: T.autograd.grad(
        F(T).vjp(lambda x: x ** 3, a, v, create_graph=True)[1].sum(), a), (D(3), D(3, rg=False))),
    ("vjp_v_none_error", lambda T, a: F(T).vjp(lambda x: x * 2, a), (D(3),)),
    ("vjp_v_size_error", lambda T, a, v: F(T).vjp(lambda x: x * 2, a, v), (D(3), D(4, rg=False))),
    ("vjp_v_len_error", lambda T, a, v: F(T).vjp(_f2, (a, a), (v,)), (D(3), D(3, rg=False))),
    ("vjp_v_entry_size_error", lambda T, a, b, v: F(T).vjp(_f2, (a, b), (v, v)), (D(3), D(2, 2), N3)),
    ("vjp_v_single_error", lambda T, a, v: F(T).vjp(lambda x: x * 2, a, (v, v)), (D(3), D(3, rg=False))),
    ("vjp_v_type_error", lambda T, a: F(T).vjp(lambda x: x * 2, a, 1.0), (D(3),)),
    ("vjp_strict_independent", lambda T, a, b, v: F(T).vjp(lambda x, y: x * 2, (a, b), v, strict=True),
     (D(3), D(3), D(3, rg=False))),
    ("vjp_strict_output", lambda T, a, c, v: F(T).vjp(lambda x: c * 2, a, v, strict=True),
     (D(3), D(3, rg=False), D(3, rg=False))),
    ("vjp_strict_create_graph_linear", lambda T, a, v: F(T).vjp(lambda x: x * 2, a, v, strict=True,
                                                                create_graph=True), (D(3), D(3, rg=False))),
    # jvp (double-backward trick)
    ("jvp", lambda T, a, v: F(T).jvp(lambda x: x.sin() * x, a, v), (D(3), D(3, rg=False))),
    ("jvp_scalar_v_none", lambda T, a: F(T).jvp(lambda x: x.exp() * 2, a), (D(),)),
    ("jvp_multi", lambda T, a, b, v1, v2: F(T).jvp(_f2, (a, b), (v1, v2)),
     (D(3), D(2, 2), D(3, rg=False), D(2, 2, rg=False))),
    ("jvp_create_graph", lambda T, a, v: F(T).jvp(lambda x: x ** 3, a, v, create_graph=True),
     (D(3), D(3, rg=False))),
    ("jvp_create_graph_again", lambda T, a, v: T.autograd.grad(
        F(T).jvp(lambda x: x ** 3, a, v, create_graph=True)[1].sum(), a), (D(3), D(3, rg=False))),
    ("jvp_linear", lambda T, a, v: F(T).jvp(lambda x: x * 2, a, v), (D(3), D(3, rg=False))),
    ("jvp_strict_linear", lambda T, a, v: F(T).jvp(lambda x: x * 2, a, v, strict=True), (D(3), N3)),
    ("jvp_strict_independent", lambda T, a, b, v1, v2: F(T).jvp(lambda x, y: (x * x, y.detach()), (a, b),
                                                                (v1, v2), strict=True),
     (D(3), D(2), D(3, rg=False), D(2, rg=False))),
    ("jvp_v_none_error", lambda T, a: F(T).jvp(lambda x: x * 2, a), (D(3),)),
    ("jvp_v_size_error", lambda T, a, v: F(T).jvp(lambda x: x * 2, a, v), (D(3), D(2, rg=False))),
    # hvp / vhp
    ("hvp", lambda T, a, v: F(T).hvp(lambda x: (x ** 3).sum(), a, v), (D(3), D(3, rg=False))),
    ("vhp", lambda T, a, v: F(T).vhp(lambda x: (x ** 3).sum(), a, v), (D(3), D(3, rg=False))),
    ("hvp_multi", lambda T, a, b, v1, v2: F(T).hvp(lambda x, y: (x.sin() * y.sum()).sum(), (a, b), (v1, v2)),
     (D(3), D(2), D(3, rg=False), D(2, rg=False))),
    ("vhp_multi", lambda T, a, b, v1, v2: F(T).vhp(lambda x, y: (x.sin() * y.sum()).sum(), (a, b), (v1, v2)),
     (D(3), D(2), D(3, rg=False), D(2, rg=False))),
    ("hvp_scalar_v_none", lambda T, a: F(T).hvp(lambda x: x.exp() * x, a), (D(),)),
    ("vhp_scalar_v_none", lambda T, a: F(T).vhp(lambda x: x.exp() * x, a), (D(),)),
    ("hvp_create_graph", lambda T, a, v: F(T).hvp(lambda x: (x ** 4).sum(), a, v, create_graph=True),
     (D(3), D(3, rg=False))),
    ("vhp_create_graph_again", lambda T, a, v: T.autograd.grad(
        F(T).vhp(lambda x: (x ** 4).sum(), a, v, create_graph=True)[1].sum(), a), (D(3), D(3, rg=False))),
    ("hvp_create_graph_again", lambda T, a, v: T.autograd.grad(
        F(T).hvp(lambda x: (x ** 4).sum(), a, v, create_graph=True)[1].sum(), a), (D(3), D(3, rg=False))),
    ("hvp_linear", lambda T, a, v: F(T).hvp(lambda x: x.sum() * 2, a, v), (D(3), D(3, rg=False))),
    ("vhp_linear", lambda T, a, v: F(T).vhp(lambda x: x.sum() * 2, a, v), (D(3), D(3, rg=False))),
    ("hvp_strict_linear", lambda T, a, v: F(T).hvp(lambda x: x.sum() * 2, a, v, strict=True), (D(3), N3)),
    ("vhp_strict_linear", lambda T, a, v: F(T).vhp(lambda x: x.sum() * 2, a, v, strict=True), (D(3), N3)),
    ("vhp_strict_independent", lambda T, a, b, v1, v2: F(T).vhp(lambda x, y: (x * x).sum() + y.sum(), (a, b),
                                                                (v1, v2), strict=True),
     (D(3), D(2), D(3, rg=False), D(2, rg=False))),
    ("hvp_not_scalar", lambda T, a, v: F(T).hvp(lambda x: x * x, a, v), (D(3), D(3, rg=False))),
    ("vhp_tuple_output", lambda T, a, v: F(T).vhp(lambda x: ((x * x).sum(),), a, v), (D(3), D(3, rg=False))),
    ("hvp_v_none_error", lambda T, a: F(T).hvp(lambda x: (x * x).sum(), a), (D(3),)),
]


def _in_no_grad(T, fn):
    with T.no_grad():
        return fn()


@pytest.mark.parametrize("name,fn,specs", FUNCTIONAL, ids=[c[0] for c in FUNCTIONAL])
def test_functional(name, fn, specs):
    check(fn, specs)


# ---- the public paths ---------------------------------------------------------------------------------
# `from torchshim.autograd import gradcheck` gives the function once torchshim/autograd/__init__.py exports it
# (until then the package attribute is the submodule this file imported)
_exported = callable(getattr(torchshim.autograd, "gradcheck", None)) and \
    callable(getattr(torchshim.autograd, "gradgradcheck", None))
public_path = pytest.mark.xfail(not _exported, reason="public path: the exports in "
                                                      "torchshim/autograd/__init__.py are pending (the lead "
                                                      "adds them)")


@public_path
def test_public_names():
    """In a fresh interpreter, as a user would: torch.autograd.gradcheck is the function, the module stays
    importable by name, torch.autograd.functional is there without importing it."""
    code = ("import torchshim, types\nfrom torchshim.autograd import gradcheck, gradgradcheck\nfrom "
            "torchshim.autograd.gradcheck import GradcheckError\nassert isinstance(gradcheck, "
            "types.FunctionType) and gradcheck is torchshim.autograd.gradcheck\nassert "
            "issubclass(GradcheckError, RuntimeError)\nf = torchshim.autograd.functional\nassert "
            "all(callable(getattr(f, n)) for n in ('jacobian', 'hessian', 'vjp', 'jvp', 'hvp', 'vhp'))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@public_path
def test_public_gradcheck_path():
    check(lambda T, a, b: (T.autograd.gradcheck(lambda x, y: x.sin() * y, (a, b)),
                           T.autograd.gradgradcheck(lambda x: (x ** 3).sum(), (a,)),
                           T.autograd.gradcheck(lambda x: scaled_grad(T, x).sin(), (a,),
                                                raise_exception=False)),
          (D(3), D(3)))
    ref, got = run_both(lambda T, a: T.autograd.gradcheck(lambda x: scaled_grad(T, x).sin(), (a,)), (D(3),))
    assert isinstance(got.error, TS_GC.GradcheckError)
    assert str(ref.error) == str(got.error)


def test_public_functional_path():
    check(lambda T, a, v: (T.autograd.functional.jacobian(lambda x: x ** 2, a),
                           T.autograd.functional.hessian(lambda x: (x ** 3).sum(), a),
                           T.autograd.functional.vjp(lambda x: x.exp(), a, v),
                           T.autograd.functional.jvp(lambda x: x.exp(), a, v),
                           T.autograd.functional.hvp(lambda x: (x ** 3).sum(), a, v),
                           T.autograd.functional.vhp(lambda x: (x ** 3).sum(), a, v)),
          (D(3), D(3, rg=False)))

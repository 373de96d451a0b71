"""`torch.optim.LBFGS`, ported from PyTorch 2.13's lbfgs.py onto torchshim tensor ops.

The algorithm is driven by the closure and by data-dependent Python control flow (history updates, the line
search), so it is written with torchshim tensors rather than as one pure jax function; each op is a cached
jitted kernel. The `x.add_(y, alpha=a)` updates go through one jitted kernel with `a` traced (`_add_`), so new
step sizes do not compile new kernels. State entries, their types and the history lists are PyTorch's.
"""
import numpy as np

from .. import _api as torchshim

from .._tensor import Tensor
from ..autograd import grad_mode as _gm
from ._checks import validate
from ._functional import _add
from ._line_search import strong_wolfe
from .optimizer import Optimizer, _to_scalar
from .._fused import jit as _fjit

__all__ = ["LBFGS"]


def _num(x):
    """A tensor used as an `alpha=` scalar becomes a Python number (PyTorch converts it to a Scalar)."""
    return x.item() if isinstance(x, Tensor) else x


_axpy = _fjit(_add)


def _add_(x, y, alpha):
    """`x.add_(y, alpha=alpha)` (under no_grad) with alpha traced: one compiled kernel for every alpha value.
    Same rounding as PyTorch's kernel (fused multiply-add)."""
    x._write(_axpy(x._value, y._value, np.float64(_num(alpha))))


class LBFGS(Optimizer):
    """`torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None)`: L-BFGS; `step(closure)` needs a closure
    that re-evaluates the model and returns the loss. `line_search_fn` is None or 'strong_wolfe'. One
    parameter group only."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        validate(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        views = []
        for p in self._params:
            if p.grad is None:
                view = p.new_zeros(p.numel())
            else:
                view = p.grad.view(-1)
            if view.is_complex():
                view = torchshim.view_as_real(view).view(-1)
            views.append(view)
        return torchshim.cat(views, 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            if p.is_complex():
                p = torchshim.view_as_real(p)
            numel = p.numel()
            _add_(p, update[offset:offset + numel].view_as(p), step_size)
            offset += numel
        if offset != self._numel():
            raise AssertionError(f"Expected offset {offset} to equal {self._numel()}")

    def _clone_param(self):
        return [p.clone(memory_format=torchshim.contiguous_format) for p in self._params]

    def _set_param(self, params_data):
        for p, pdata in zip(self._params, params_data):
            p.copy_(pdata)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @_gm.no_grad()
    def step(self, closure):
        """`step(closure)`: up to `max_iter` L-BFGS iterations; returns the closure's first loss."""
        if len(self.param_groups) != 1:
            raise AssertionError(f"Expected exactly one param_group, but got {len(self.param_groups)}")
        closure = _gm.enable_grad()(closure)
        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        history_size = group["history_size"]
        # NOTE: LBFGS has only global state, but we register it as state for the first param, because this
        # helps with casting in load_state_dict
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        # evaluate initial f(x) and df/dx
        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        # optimal condition
        if opt_cond:
            return orig_loss
        # tensors cached in state (for tracing)
        d = state.get("d")
        t = state.get("t")
        old_dirs = state.get("old_dirs")
        old_stps = state.get("old_stps")
        ro = state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad = state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")
        n_iter = 0
        # optimize for a max of max_iter iterations
        while n_iter < max_iter:
            # keep track of nb of iterations
            n_iter += 1
            state["n_iter"] += 1
            # compute gradient descent direction
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs = []
                old_stps = []
                ro = []
                H_diag = 1
            else:
                # do lbfgs update (update memory)
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)  # y*s
                if ys > 1e-10:
                    # updating memory
                    if len(old_dirs) == history_size:
                        # shift history by one (limited-memory)
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    # store new direction/step
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    # update scale of initial Hessian approximation
                    H_diag = ys / y.dot(y)  # (y*y)
                # compute the approximate (L-BFGS) inverse Hessian multiplied by the gradient
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                # iteration in L-BFGS loop collapsed to use just one buffer
                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    _add_(q, old_dirs[i], -_num(al[i]))
                # multiply by initial Hessian; r/d is the final direction
                d = r = torchshim.mul(q, H_diag)
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    _add_(r, old_stps[i], al[i] - be_i)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone(memory_format=torchshim.contiguous_format)
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            # compute step length: reset initial guess for step size
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            # directional derivative
            gtd = flat_grad.dot(d)  # g * d
            # directional derivative is below tolerance
            if gtd > -tolerance_change:
                break
            # optional line search: user function
            ls_func_evals = 0
            if line_search_fn is not None:
                # perform line search, using user function
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                 max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                # no line search, simply move with fixed-step
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # re-evaluate function only if not in last iteration; the reason we do this: in a
                    # stochastic setting, no use to re-evaluate that function here
                    with _gm.enable_grad():
                        loss = closure()
                    loss = float(loss)
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            # update func eval
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            # check conditions
            if n_iter == max_iter:
                break
            if current_evals >= max_eval:
                break
            # optimal condition
            if opt_cond:
                break
            # lack of progress
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state["d"] = d
        state["t"] = t
        state["old_dirs"] = old_dirs
        state["old_stps"] = old_stps
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = prev_flat_grad
        state["prev_loss"] = prev_loss
        return orig_loss

"""`torch.optim.swa_utils`: stochastic weight averaging and EMA of a model's weights (`AveragedModel`, the
averaging functions), BatchNorm statistics recomputed for the averaged model (`update_bn`), and the SWA
learning-rate schedule (`SWALR`)."""
import itertools
import math
import warnings
from copy import deepcopy

from .. import _api as torch
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ._lr_base import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """`get_ema_multi_avg_fn(decay=0.999)` -> `fn(ema_params, current_params, num_averaged)` updating the
    lists in place: ema = decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            floating = torch.is_floating_point(ema_param_list[0]) or torch.is_complex(ema_param_list[0])
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                if floating:
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """`get_swa_multi_avg_fn()` -> `fn(averaged_params, current_params, num_averaged)` updating the lists in
    place to the running equal-weight mean."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            floating = (torch.is_floating_point(averaged_param_list[0])
                        or torch.is_complex(averaged_param_list[0]))
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                if floating:
                    p_avg.lerp_(p_model, float(1 / (num_averaged + 1)))
                elif isinstance(num_averaged, torch.Tensor):
                    p_avg.addcdiv_(p_model - p_avg, num_averaged + 1)
                else:
                    p_avg.add_(p_model - p_avg, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """`get_ema_avg_fn(decay=0.999)` -> `fn(ema_param, current_param, num_averaged)` returning
    decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """`get_swa_avg_fn()` -> `fn(averaged_param, current_param, num_averaged)` returning the running mean."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """`AveragedModel(model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False)`: a deep copy
    of `model` whose parameters (and buffers with `use_buffers`) `update_parameters(model)` averages
    (equal weights by default); buffer `n_averaged` counts the updates. Calls run the copy."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Average `model`'s current parameters into this copy (the first call copies them)."""
        if self.use_buffers:
            self_params = itertools.chain(self.module.parameters(), self.module.buffers())
            model_params = itertools.chain(model.parameters(), model.buffers())
        else:
            self_params, model_params = self.parameters(), model.parameters()
        mine, theirs = [], []
        copy_param = bool(self.n_averaged == 0)
        with no_grad():
            for p_avg, p_model in zip(self_params, model_params, strict=False):
                p_model_ = p_model.detach().to(p_avg.device)
                mine.append(p_avg.detach())
                theirs.append(p_model_)
                if copy_param:
                    p_avg.detach().copy_(p_model_)
            if self.n_averaged > 0:
                if self.multi_avg_fn is not None or self.avg_fn is None:
                    groups = {}
                    for a, b in zip(mine, theirs, strict=True):
                        groups.setdefault((str(a.device), a.dtype), ([], []))
                        groups[(str(a.device), a.dtype)][0].append(a)
                        groups[(str(a.device), a.dtype)][1].append(b)
                    fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                    for a_list, b_list in groups.values():
                        fn(a_list, b_list, self.n_averaged.to(a_list[0].device))
                else:
                    for p_avg, p_model in zip(mine, theirs, strict=True):
                        n = self.n_averaged.to(p_avg.device)
                        p_avg.detach().copy_(self.avg_fn(p_avg.detach(), p_model, n))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1


def update_bn(loader, model, device=None):
    """`update_bn(loader, model, device=None)`: one pass over `loader` (batches, or tuples whose first item
    is the input) in train mode with cumulative BatchNorm statistics (momentum None), after resetting them;
    momenta and the train/eval mode are restored."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for bn_module in momenta:
            bn_module.momentum = momenta[bn_module]
        model.train(was_training)


class SWALR(LRScheduler):
    """`SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos', last_epoch=-1)`: anneals each
    group's lr to its `swa_lr` over `anneal_epochs` epochs ('cos' or 'linear'), then keeps it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The learning rates of this step (use `get_last_lr()` to read the latest)."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)

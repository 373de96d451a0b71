"""Helpers for the optimizer tests: the same tiny model, data and training loop under real PyTorch and
torchshim.

- `build_model(T, dtype)`: Linear(3, 6) - Tanh - Linear(6, 2) with seeded NumPy weights (identical in both).
- `batch(T, dtype)`: a fixed (16, 3) input and (16, 2) target.
- `train(T, make_opt, steps, dtype, maximize=False)`: `steps` plain steps (zero_grad, MSE loss (negated with
  `maximize`), backward, step); returns (model, optimizer, losses). `make_opt(T, params)` builds the
  optimizer.
- `train_closure(T, make_opt, steps, dtype)`: the same with `opt.step(closure)` (LBFGS).
- `params_np(model)`, `state_np(opt)`: parameters and the optimizer's state_dict as NumPy / Python values.
- `compare_trajectories(ref, got, rtol, atol)`: parameters and the full state_dict (keys, dtypes, values).
- `to_shim_state_dict(sd)` / `to_torch_state_dict(sd)`: convert an optimizer state_dict tensor by tensor.
"""
import numpy as np
import torch

import torchshim

TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-10)}


def build_model(T, dtype="float32", seed=0):
    """The test model with seeded uniform(-0.8, 0.8) weights, cast to `dtype`."""
    rng = np.random.default_rng(seed)
    model = T.nn.Sequential(T.nn.Linear(3, 6), T.nn.Tanh(), T.nn.Linear(6, 2)).to(getattr(T, dtype))
    with T.no_grad():
        for p in model.parameters():
            p.copy_(T.tensor(rng.uniform(-0.8, 0.8, size=tuple(p.shape)), dtype=getattr(T, dtype)))
    return model


def batch(T, dtype="float32", seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(16, 3))
    y = rng.normal(size=(16, 2))
    return T.tensor(x, dtype=getattr(T, dtype)), T.tensor(y, dtype=getattr(T, dtype))


def _loss(model, x, y, sign=1.0):
    return ((model(x) - y) ** 2).mean() * sign


def train(T, make_opt, steps=100, dtype="float32", model=None, opt=None, maximize=False):
    """Train the test model for `steps` steps; returns (model, optimizer, losses). With `maximize` the loss is
    the negated MSE (so `maximize=True` optimizers converge instead of diverging)."""
    model = build_model(T, dtype) if model is None else model
    opt = make_opt(T, model.parameters()) if opt is None else opt
    x, y = batch(T, dtype)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = _loss(model, x, y, -1.0 if maximize else 1.0)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return model, opt, losses


def train_closure(T, make_opt, steps=5, dtype="float32"):
    """`steps` calls of `opt.step(closure)`; returns (model, optimizer, returned losses)."""
    model = build_model(T, dtype)
    opt = make_opt(T, model.parameters())
    x, y = batch(T, dtype)

    def closure():
        opt.zero_grad()
        loss = _loss(model, x, y)
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    return model, opt, losses


def params_np(model):
    return [p.detach().numpy() for p in model.parameters()]


def _plain(v):
    """A state value as NumPy (tensors, with their dtype name) or plain Python (recursively)."""
    if isinstance(v, (torch.Tensor, torchshim.Tensor)):
        return ("tensor", str(v.dtype).replace("torch.", ""), np.asarray(v.detach().numpy()))
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_plain(x) for x in v)
    return v


def state_np(opt):
    return _plain(opt.state_dict())


def compare_plain(ref, got, rtol, atol, path="state_dict"):
    """Structure, dtypes and values (with tolerances for floating arrays and floats) are equal."""
    if isinstance(ref, tuple) and len(ref) == 3 and ref[0] == "tensor":
        assert isinstance(got, tuple) and got[0] == "tensor", f"{path}: {got!r} is not a tensor"
        assert ref[1] == got[1], f"{path}: dtype {got[1]} != {ref[1]}"
        assert ref[2].shape == got[2].shape, f"{path}: shape {got[2].shape} != {ref[2].shape}"
        np.testing.assert_allclose(got[2], ref[2], rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(ref, dict):
        assert isinstance(got, dict) and list(ref) == list(got), f"{path}: keys {list(got)} != {list(ref)}"
        for k in ref:
            compare_plain(ref[k], got[k], rtol, atol, f"{path}[{k!r}]")
    elif isinstance(ref, (list, tuple)):
        assert type(ref) is type(got) and len(ref) == len(got), f"{path}: {got!r} != {ref!r}"
        for i, (r, g) in enumerate(zip(ref, got)):
            compare_plain(r, g, rtol, atol, f"{path}[{i}]")
    elif isinstance(ref, float) and not isinstance(got, bool):
        assert type(got) is float, f"{path}: {type(got).__name__} != float"
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, err_msg=path)
    else:
        assert type(ref) is type(got) and ref == got, f"{path}: {got!r} != {ref!r}"


def compare_trajectories(ref, got, rtol, atol):
    """`ref`/`got` are (model, optimizer, losses) from `train` under torch and torchshim."""
    np.testing.assert_allclose(got[2], ref[2], rtol=rtol, atol=atol, err_msg="losses")
    for i, (r, g) in enumerate(zip(params_np(ref[0]), params_np(got[0]))):
        assert r.dtype == g.dtype, f"param {i}: dtype {g.dtype} != {r.dtype}"
        np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, err_msg=f"param {i}")
    compare_plain(state_np(ref[1]), state_np(got[1]), rtol, atol)


def _convert(v, fn):
    if isinstance(v, dict):
        return {k: _convert(x, fn) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_convert(x, fn) for x in v)
    if isinstance(v, (torch.Tensor, torchshim.Tensor)):
        return fn(v)
    return v


def to_shim_state_dict(sd):
    """A torch optimizer state_dict with every tensor replaced by a torchshim tensor (values and dtype)."""
    return _convert(sd, lambda t: torchshim.tensor(t.detach().numpy(),
                                                   dtype=getattr(torchshim, str(t.dtype)[6:])))


def to_torch_state_dict(sd):
    """A torchshim optimizer state_dict with every tensor replaced by a torch tensor."""
    return _convert(sd, lambda t: torch.tensor(t.detach().numpy(), dtype=getattr(torch, str(t.dtype)[6:])))

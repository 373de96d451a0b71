"""The hand-written JAX side of bench/compile_step.py: each case's training step as a JAX user would write
it (pure functions over a dict of parameters keyed by the PyTorch state_dict names, `jax.value_and_grad`, the
optimizer update written out as torch.optim does it), all under one `jax.jit` with the parameters, optimizer
state and buffers donated. `make_step(case, weights, put)` returns a zero-argument step returning the loss.
"""
import jax
import jax.numpy as jnp
import numpy as np

from _compile_models import GPT, LSTM, data

F32 = jnp.float32


def _linear(p, name, x):
    y = x @ p[name + ".weight"].T
    b = p.get(name + ".bias")
    return y if b is None else y + b


def _xent(logits, y):
    """Mean cross-entropy of logits (N, C) against int labels (N,)."""
    return (jax.nn.logsumexp(logits, 1) - jnp.take_along_axis(logits, y[:, None], 1)[:, 0]).mean()


# ---- losses ------------------------------------------------------------------------------------------------
def _mlp_loss(p, bufs, x, y):
    h = jax.nn.relu(_linear(p, "0", x))
    h = jax.nn.relu(_linear(p, "2", h))
    return _xent(_linear(p, "4", h), y), bufs


def _bn_block(p, bufs, conv, bn, h, eps=1e-5, momentum=0.1):
    h = jax.lax.conv_general_dilated(h, p[conv + ".weight"], (1, 1), ((1, 1), (1, 1)),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
    h = h + p[conv + ".bias"][None, :, None, None]
    mean, var = h.mean((0, 2, 3)), h.var((0, 2, 3))
    n = h.size / h.shape[1]
    new = {bn + ".running_mean": (1 - momentum) * bufs[bn + ".running_mean"] + momentum * mean,
           bn + ".running_var": (1 - momentum) * bufs[bn + ".running_var"] + momentum * var * n / (n - 1)}
    h = (h - mean[None, :, None, None]) * jax.lax.rsqrt(var[None, :, None, None] + eps)
    h = jax.nn.relu(h * p[bn + ".weight"][None, :, None, None] + p[bn + ".bias"][None, :, None, None])
    h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    return h, new


def _cnn_loss(p, bufs, x, y):
    h, b1 = _bn_block(p, bufs, "0", "1", x)
    h, b2 = _bn_block(p, bufs, "4", "5", h)
    return _xent(_linear(p, "9", h.reshape(h.shape[0], -1)), y), {**b1, **b2}


def _lstm_loss(p, bufs, x, y):
    h = p["encoder.weight"][x]  # (seq, batch, ninp)
    for layer in range(LSTM["nlayers"]):
        wih, whh = p[f"rnn.weight_ih_l{layer}"], p[f"rnn.weight_hh_l{layer}"]
        b = p[f"rnn.bias_ih_l{layer}"] + p[f"rnn.bias_hh_l{layer}"]
        xw = h @ wih.T + b  # input projection for every step at once

        def cell(carry, xt, whh=whh):
            hh, c = carry
            i, f, g, o = jnp.split(xt + hh @ whh.T, 4, axis=1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            hh = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (hh, c), hh
        z = jnp.zeros((x.shape[1], LSTM["nhid"]), F32)
        _, h = jax.lax.scan(cell, (z, z), xw)
    logp = jax.nn.log_softmax(_linear(p, "decoder", h).reshape(-1, LSTM["ntoken"]), axis=1)
    return -jnp.take_along_axis(logp, y[:, None], 1).mean(), bufs


def _layer_norm(p, name, x, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * p[name + ".weight"] + p[name + ".bias"]


def _gpt_loss(p, bufs, idx, targets):
    B, Tn = idx.shape
    C, nh = GPT["n_embd"], GPT["n_head"]
    x = p["transformer.wte.weight"][idx] + p["transformer.wpe.weight"][:Tn]
    for i in range(GPT["n_layer"]):
        pre = f"transformer.h.{i}."
        q, k, v = jnp.split(_linear(p, pre + "attn.c_attn", _layer_norm(p, pre + "ln_1", x)), 3, axis=2)
        q, k, v = (a.reshape(B, Tn, nh, C // nh) for a in (q, k, v))  # (B, T, N, H) as jax wants it
        y = jax.nn.dot_product_attention(q, k, v, is_causal=True).reshape(B, Tn, C)
        x = x + _linear(p, pre + "attn.c_proj", y)
        h = jax.nn.gelu(_linear(p, pre + "mlp.c_fc", _layer_norm(p, pre + "ln_2", x)), approximate=False)
        x = x + _linear(p, pre + "mlp.c_proj", h)
    x = _layer_norm(p, "transformer.ln_f", x)
    logits = x @ p["transformer.wte.weight"].T  # lm_head tied to wte
    return _xent(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)), bufs


# ---- optimizers (torch.optim's update rules) --------------------------------------------------------------
def _sgd(lr, momentum):
    def init(p):
        return {"m": jax.tree.map(jnp.zeros_like, p)} if momentum else {}

    def update(p, g, s):
        if not momentum:
            return jax.tree.map(lambda a, b: a - lr * b, p, g), s
        m = jax.tree.map(lambda a, b: momentum * a + b, s["m"], g)  # the first step's buffer is the grad
        return jax.tree.map(lambda a, b: a - lr * b, p, m), {"m": m}
    return init, update


def _adamw(lr, b1, b2, weight_decay, eps=1e-8):
    """torch.optim.AdamW with nanoGPT's groups: weight decay on the >=2-D parameters only."""
    def init(p):
        z = jax.tree.map(jnp.zeros_like, p)
        return {"step": jnp.zeros((), F32), "m": z, "v": jax.tree.map(jnp.zeros_like, p)}

    def update(p, g, s):
        step = s["step"] + 1
        bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
        m = jax.tree.map(lambda a, b: a + (b - a) * (1 - b1), s["m"], g)
        v = jax.tree.map(lambda a, b: a * b2 + (1 - b2) * b * b, s["v"], g)

        def one(a, mm, vv):
            if a.ndim >= 2:
                a = a * (1 - lr * weight_decay)
            return a - (lr / bc1) * mm / (jnp.sqrt(vv) / jnp.sqrt(bc2) + eps)
        return jax.tree.map(one, p, m, v), {"step": step, "m": m, "v": v}
    return init, update


LOSSES = {"mlp": _mlp_loss, "cnn": _cnn_loss, "lstm": _lstm_loss, "gpt": _gpt_loss}
OPTIMIZERS = {"mlp": lambda: _sgd(0.01, 0.9), "cnn": lambda: _sgd(0.01, 0.9), "lstm": lambda: _sgd(1.0, 0.0),
              "gpt": lambda: _adamw(1e-3, 0.9, 0.99, 0.1)}


def make_step(case, weights, put):
    """The jitted JAX step of `case` from the state_dict `weights` (name -> numpy array; running statistics
    go to the buffers, lm_head.weight is dropped as it is tied to wte), with `put` placing numpy arrays on the
    device. Returns a zero-argument function doing one step and returning the loss."""
    params, bufs = {}, {}
    for k, a in weights.items():
        if k == "lm_head.weight" or k.endswith("num_batches_tracked"):
            continue
        (bufs if k.endswith(("running_mean", "running_var")) else params)[k] = put(np.asarray(a))
    init, update = OPTIMIZERS[case]()
    loss_fn = LOSSES[case]
    x, y = (put(a) for a in data(case))

    def raw(p, s, b, x, y):
        (loss, b), g = jax.value_and_grad(loss_fn, has_aux=True)(p, b, x, y)
        p, s = update(p, g, s)
        return loss, p, s, b
    f = jax.jit(raw, donate_argnums=(0, 1, 2))
    state = {"p": params, "s": init(params), "b": bufs}

    def step():
        loss, state["p"], state["s"], state["b"] = f(state["p"], state["s"], state["b"], x, y)
        return loss
    return step

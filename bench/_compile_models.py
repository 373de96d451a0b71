"""The PyTorch side of bench/compile_step.py: four models and their training steps, written once against the
PyTorch API and built under `torch` or `torchshim` (the module is passed in as `T`).

mlp   784-512-512-10 MLP (Linear/ReLU), batch 128, cross-entropy, SGD(lr=0.01, momentum=0.9)
cnn   the CNN of bench/nn_step.py: conv3x3(3->32)+BN+ReLU+maxpool2, conv3x3(32->64)+BN+ReLU+maxpool2,
      linear(4096->10), batch 64 of 32x32x3, cross-entropy, SGD(lr=0.01, momentum=0.9), BN in training mode
lstm  pytorch/examples' word_language_model RNNModel (Embedding 1000x128 -> LSTM(128, 256, 2 layers) ->
      Linear(256, 1000) -> log_softmax, NLLLoss), seq 35, batch 20, SGD(lr=1.0); dropout 0, no gradient
      clipping, and the hidden state starts at zero every step (the example carries it across batches)
gpt   nanoGPT's model.py shape (LayerNorm with bias, CausalSelfAttention on F.scaled_dot_product_attention
      with is_causal=True, MLP with GELU, pre-norm blocks, tied wte/lm_head, nanoGPT's init), 4 layers, 4
      heads, 128 embedding, block 128, vocab 65 (shakespeare_char), batch 8, dropout 0; AdamW(lr=1e-3,
      betas=(0.9, 0.99), weight_decay=0.1 on the >=2-D parameters only) as nanoGPT's configure_optimizers
      groups them (and, as it does on CUDA, fused=True: step counters on the device); no gradient clipping

The training step is what training scripts write: forward, `loss.backward()`, `opt.step()`,
`opt.zero_grad()`. The mlp and cnn steps take no argument and close over their batch; the lstm and gpt steps
take `(x, y)`.
"""
import math

import numpy as np

CASES = ("mlp", "cnn", "lstm", "gpt")
GPT = dict(n_layer=4, n_head=4, n_embd=128, block_size=128, vocab_size=65, batch=8)
LSTM = dict(ntoken=1000, ninp=128, nhid=256, nlayers=2, seq=35, batch=20)


def data(case):
    """The batch of `case` as numpy arrays (x, y); the same in every flavour."""
    r = np.random.default_rng(0)
    if case == "mlp":
        return r.standard_normal((128, 784)).astype(np.float32), r.integers(0, 10, 128)
    if case == "cnn":
        return r.standard_normal((64, 3, 32, 32)).astype(np.float32), r.integers(0, 10, 64)
    if case == "lstm":
        tokens = r.integers(0, LSTM["ntoken"], (LSTM["seq"] + 1, LSTM["batch"]))
        return tokens[:-1], tokens[1:].reshape(-1)
    tokens = r.integers(0, GPT["vocab_size"], (GPT["batch"], GPT["block_size"] + 1))
    return tokens[:, :-1], tokens[:, 1:]


def _gpt_classes(T):
    nn, F = T.nn, T.nn.functional

    class LayerNorm(nn.Module):
        """LayerNorm but with an optional bias (nanoGPT)."""

        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(T.ones(ndim))
            self.bias = nn.Parameter(T.zeros(ndim)) if bias else None

        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

    class CausalSelfAttention(nn.Module):
        def __init__(self, n_embd, n_head, bias=True):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
            self.c_proj = nn.Linear(n_embd, n_embd, bias=bias)
            self.n_head, self.n_embd, self.dropout = n_head, n_embd, 0.0

        def forward(self, x):
            B, Tn, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, Tn, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, Tn, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, Tn, self.n_head, C // self.n_head).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None,
                                               dropout_p=self.dropout if self.training else 0, is_causal=True)
            y = y.transpose(1, 2).contiguous().view(B, Tn, C)
            return self.c_proj(y)

    class MLP(nn.Module):
        def __init__(self, n_embd, bias=True):
            super().__init__()
            self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * n_embd, n_embd, bias=bias)
            self.dropout = nn.Dropout(0.0)

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self, n_embd, n_head, bias=True):
            super().__init__()
            self.ln_1 = LayerNorm(n_embd, bias=bias)
            self.attn = CausalSelfAttention(n_embd, n_head, bias)
            self.ln_2 = LayerNorm(n_embd, bias=bias)
            self.mlp = MLP(n_embd, bias)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPTModel(nn.Module):
        def __init__(self, n_layer, n_head, n_embd, block_size, vocab_size, bias=True):
            super().__init__()
            self.block_size = block_size
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(vocab_size, n_embd),
                wpe=nn.Embedding(block_size, n_embd),
                drop=nn.Dropout(0.0),
                h=nn.ModuleList([Block(n_embd, n_head, bias) for _ in range(n_layer)]),
                ln_f=LayerNorm(n_embd, bias=bias)))
            self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith("c_proj.weight"):
                    T.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                T.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    T.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                T.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = T.arange(0, t, dtype=T.long, device=idx.device)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, betas, device_type="cpu"):
            params = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
            decay = [p for p in params.values() if p.dim() >= 2]
            nodecay = [p for p in params.values() if p.dim() < 2]
            groups = [{"params": decay, "weight_decay": weight_decay},
                      {"params": nodecay, "weight_decay": 0.0}]
            # nanoGPT: the fused AdamW on CUDA (its step counters live on the device)
            extra = {"fused": True} if device_type == "cuda" else {}
            return T.optim.AdamW(groups, lr=learning_rate, betas=betas, **extra)

    return GPTModel


def _lstm_class(T):
    nn, F = T.nn, T.nn.functional

    class RNNModel(nn.Module):
        """pytorch/examples word_language_model's RNNModel (LSTM), dropout 0."""

        def __init__(self, ntoken, ninp, nhid, nlayers):
            super().__init__()
            self.ntoken = ntoken
            self.drop = nn.Dropout(0.0)
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.0)
            self.decoder = nn.Linear(nhid, ntoken)
            initrange = 0.1
            nn.init.uniform_(self.encoder.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)

        def forward(self, input, hidden=None):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            output = self.drop(output)
            decoded = self.decoder(output).view(-1, self.ntoken)
            return F.log_softmax(decoded, dim=1), hidden

    return RNNModel


def build(T, case, device):
    """(model, optimizer factory, loss function) of `case` under the library T; the model is on `device`,
    freshly initialised (the caller loads the shared weights)."""
    nn, F = T.nn, T.nn.functional
    T.manual_seed(0)
    if case == "mlp":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))

        def loss_of(m, x, y):
            return F.cross_entropy(m(x), y)
    elif case == "cnn":
        model = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(64 * 8 * 8, 10))

        def loss_of(m, x, y):
            return F.cross_entropy(m(x), y)
    elif case == "lstm":
        model = _lstm_class(T)(LSTM["ntoken"], LSTM["ninp"], LSTM["nhid"], LSTM["nlayers"])
        criterion = nn.NLLLoss()

        def loss_of(m, x, y):
            output, hidden = m(x)
            return criterion(output, y)
    else:
        cfg = {k: v for k, v in GPT.items() if k != "batch"}
        model = _gpt_classes(T)(**cfg)

        def loss_of(m, x, y):
            logits, loss = m(x, y)
            return loss
    model = model.to(device)
    if case in ("mlp", "cnn"):
        def make_opt(m):
            return T.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    elif case == "lstm":
        def make_opt(m):
            return T.optim.SGD(m.parameters(), lr=1.0)
    else:
        def make_opt(m):
            return m.configure_optimizers(weight_decay=0.1, learning_rate=1e-3, betas=(0.9, 0.99),
                                          device_type=str(device).split(":")[0])
    return model, make_opt, loss_of


def train_step_fn(case, model, opt, loss_of, x, y):
    """The training step as scripts write it, and the arguments to call it with: forward, backward,
    optimizer step, zero_grad. mlp/cnn close over their batch (zero arguments); lstm/gpt take (x, y)."""
    if case in ("mlp", "cnn"):
        def train_step():
            loss = loss_of(model, x, y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss
        return train_step, ()

    def train_step(x, y):
        loss = loss_of(model, x, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return train_step, (x, y)

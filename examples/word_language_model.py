"""A word-level LSTM language model on a small text shipped in the repo: plain PyTorch.

A smaller version of pytorch/examples' word_language_model: the text (examples/data/fables.txt, Aesop's
fables retold) is split into train/valid/test lines and tokenised into words plus `<eos>`; `batchify` cuts
the token stream into columns, `get_batch` takes `--bptt` steps at a time, and training is truncated
back-propagation through time: the hidden state is carried from one chunk to the next but detached
(`repackage_hidden`), the gradient norm is clipped with `clip_grad_norm_`, and the update is plain SGD written
by hand. The learning rate is divided by 4 whenever the validation loss stops improving; the best model's
state_dict is saved and reloaded for the final test perplexity.

    python examples/word_language_model.py
    python -m torchshim run examples/word_language_model.py
    python -m torchshim check examples/word_language_model.py --short --check
    python -m torchshim run examples/word_language_model.py --compile   # the training step compiled

`--check` makes the run reproducible across libraries (their random streams differ): the initial weights
come from numpy and dropout is off. The data order is fixed in any case. `--compile` runs each training step
(forward, backward, clipping, the SGD update) through `torch.compile`: one program per chunk length (the
last chunk of an epoch is shorter) and learning rate; it prints the same numbers.
"""
import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "fables.txt")


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus:
    """Every 10th line (from the 9th) goes to valid, every 10th (from the 10th) to test, the rest to train."""

    def __init__(self, path):
        self.dictionary = Dictionary()
        with open(path, encoding="utf-8") as f:
            lines = [line for line in f.read().splitlines() if line.strip()]
        self.train = self.tokenize([x for i, x in enumerate(lines) if i % 10 < 8])
        self.valid = self.tokenize([x for i, x in enumerate(lines) if i % 10 == 8])
        self.test = self.tokenize([x for i, x in enumerate(lines) if i % 10 == 9])

    def tokenize(self, lines):
        ids = []
        for line in lines:
            words = line.replace(",", " ,").replace(".", " .").replace("?", " ?").lower().split() + ["<eos>"]
            ids.extend(self.dictionary.add_word(word) for word in words)
        return torch.tensor(ids, dtype=torch.int64)


class RNNModel(nn.Module):
    """An encoder (embedding), an LSTM and a decoder (linear) onto the vocabulary."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("When using the tied flag, nhid must be equal to emsize")
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.nhid, self.nlayers = nhid, nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def init_from_numpy(model, seed):
    """Every parameter from numpy (U(+-0.1), the decoder bias 0), whatever the library's random stream."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            values = np.zeros(p.shape) if name == "decoder.bias" else rng.uniform(-0.1, 0.1, p.shape)
            p.copy_(torch.from_numpy(values.astype(np.float32)))


def batchify(data, bsz):
    """(n,) tokens -> (n // bsz, bsz): bsz independent columns, the remainder dropped."""
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def repackage_hidden(h):
    """Detach hidden states from their history: back-propagation stops at the chunk boundary."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def evaluate(model, data_source, batch_size, bptt):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * F.nll_loss(output, targets).item()
    return total_loss / (len(data_source) - 1)


def make_train_step(model, clip):
    """One step of truncated BPTT on a chunk: forward, backward, gradient clipping and the SGD update."""
    def train_step(data, targets, hidden, lr):
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = F.nll_loss(output, targets)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        return loss.detach(), hidden, grad_norm
    return train_step


def train(model, train_step, train_data, args, lr, epoch):
    model.train()
    total_loss, start = 0.0, time.time()
    hidden = model.init_hidden(args.batch_size)
    nbatches = math.ceil((len(train_data) - 1) / args.bptt)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        hidden = repackage_hidden(hidden)
        loss, hidden, grad_norm = train_step(data, targets, hidden, lr)
        total_loss += loss.item()
        if (batch + 1) % args.log_interval == 0 or batch + 1 == nbatches:
            n = (batch % args.log_interval) + 1
            cur_loss = total_loss / n
            ms = (time.time() - start) * 1000 / n
            print(f"| epoch {epoch:3d} | {batch + 1:3d}/{nbatches:3d} batches | lr {lr:.4f} | "
                  f"loss {cur_loss:.6f} | ppl {math.exp(cur_loss):.2f} | grad norm {grad_norm.item():.6f}")
            print(f"  ({ms:.1f} ms/batch)", flush=True, file=sys.stderr)
            total_loss, start = 0.0, time.time()


FULL = {"epochs": 20, "emsize": 128, "nhid": 128}
SHORT = {"epochs": 2, "emsize": 32, "nhid": 32}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DATA, help="a text file, one sentence per line")
    parser.add_argument("--emsize", type=int,
                        help=f"default {FULL['emsize']} ({SHORT['emsize']} with --short)")
    parser.add_argument("--nhid", type=int, help=f"default {FULL['nhid']} ({SHORT['nhid']})")
    parser.add_argument("--nlayers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=20.0)
    parser.add_argument("--clip", type=float, default=0.25)
    parser.add_argument("--epochs", type=int, help=f"default {FULL['epochs']} ({SHORT['epochs']})")
    parser.add_argument("--batch-size", type=int, default=10)
    parser.add_argument("--bptt", type=int, default=20)
    parser.add_argument("--dropout", type=float, default=0.2)
    parser.add_argument("--tied", action=argparse.BooleanOptionalAction, default=True,
                        help="tie the word embedding and softmax weights (on this small text: better)")
    parser.add_argument("--log-interval", type=int, default=5)
    parser.add_argument("--save", default="word_language_model.pt", help="the best model's state_dict")
    parser.add_argument("--short", action="store_true", help="2 epochs of a smaller model")
    parser.add_argument("--check", action="store_true",
                        help="reproducible across libraries: numpy init, no dropout")
    parser.add_argument("--compile", action="store_true", help="run the training step through torch.compile")
    args = parser.parse_args()
    for name, value in (SHORT if args.short else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.check:
        args.dropout = 0.0

    corpus = Corpus(args.data)
    eval_batch_size = 4
    train_data = batchify(corpus.train, args.batch_size)
    val_data = batchify(corpus.valid, eval_batch_size)
    test_data = batchify(corpus.test, eval_batch_size)
    ntokens = len(corpus.dictionary)
    print(f"vocabulary {ntokens} words, tokens train {len(corpus.train)} valid {len(corpus.valid)} "
          f"test {len(corpus.test)}")

    model = RNNModel(ntokens, args.emsize, args.nhid, args.nlayers, args.dropout, args.tied)
    if args.check:
        init_from_numpy(model, seed=0)
    train_step = make_train_step(model, args.clip)
    if args.compile:
        train_step = torch.compile(train_step)
    lr, best_val_loss = args.lr, None
    for epoch in range(1, args.epochs + 1):
        epoch_start = time.time()
        train(model, train_step, train_data, args, lr, epoch)
        val_loss = evaluate(model, val_data, eval_batch_size, args.bptt)
        print(f"| end of epoch {epoch:3d} | valid loss {val_loss:.6f} | valid ppl {math.exp(val_loss):.2f}")
        print(f"  ({time.time() - epoch_start:.1f} s)", file=sys.stderr)
        if best_val_loss is None or val_loss < best_val_loss:
            torch.save(model.state_dict(), args.save)
            best_val_loss = val_loss
        else:
            lr /= 4.0  # no improvement on the validation set: anneal the learning rate

    model.load_state_dict(torch.load(args.save))
    model.rnn.flatten_parameters()  # after loading, make the RNN parameters one contiguous chunk (cuDNN)
    test_loss = evaluate(model, test_data, eval_batch_size, args.bptt)
    print(f"| end of training | test loss {test_loss:.6f} | test ppl {math.exp(test_loss):.2f}")


if __name__ == "__main__":
    main()

"""A ConvNet digit classifier on an MNIST-like dataset generated in the script: plain PyTorch.

The digits 0-9 are drawn from a 5x7 bitmap font, scaled to 28x28 images with random shifts, stroke gaps,
contrast and noise (numpy, seeded: no download). The script trains a small ConvNet (conv, batch norm, ReLU,
max-pool, linear) with SGD and a StepLR schedule, loads batches with a DataLoader and worker processes,
draws a progress bar on stderr, prints each epoch's loss and accuracy, and saves a checkpoint (model,
optimizer and scheduler state) after every epoch; `--resume PATH` continues from one.

    python examples/mnist_like.py                          # real PyTorch
    python -m torchshim run examples/mnist_like.py         # the same script on torchshim
    python -m torchshim run examples/mnist_like.py --short # a quick run (CI)
    python -m torchshim check examples/mnist_like.py --short --check   # both, compared line by line
    python -m torchshim run examples/mnist_like.py --compile  # the training step through torch.compile

`--check` makes the run reproducible across libraries (their random streams differ): the initial weights
come from numpy, there is no dropout and the data is not shuffled (the generated set is already in random
order).

`--compile` runs each training step (forward, loss, backward, optimizer step) through `torch.compile`: one
XLA program under torchshim, inductor's kernels under PyTorch. After every epoch a timing line on stderr gives
the median milliseconds per step and the warm-up (the seconds the first calls took beyond that: tracing and
compilation), so a run with and one without `--compile` show the speed-up. stdout is the same either way.
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

# A 5x7 bitmap font for the digits 0-9 ('#' = ink).
FONT = {
    0: [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
    1: ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
    2: [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
    3: ["#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."],
    4: ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],
    5: ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],
    6: ["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."],
    7: ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],
    8: [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],
    9: [".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."],
}
SIZE = 28  # image side, as MNIST
SCALE = 3  # a font pixel becomes SCALE x SCALE image pixels: a glyph is 21 x 15
MEAN, STD = 0.17, 0.26  # roughly the generated images' statistics, for normalisation


def make_digits(n, seed):
    """n images (n, 1, 28, 28) float32 in [0, 1] and their labels (n,) int64, from numpy's `seed`."""
    rng = np.random.default_rng(seed)
    glyphs = np.stack([np.array([[c == "#" for c in row] for row in FONT[d]], dtype=np.float32)
                       for d in range(10)])
    glyphs = glyphs.repeat(SCALE, axis=1).repeat(SCALE, axis=2)  # (10, 21, 15)
    gh, gw = glyphs.shape[1:]
    labels = rng.integers(0, 10, size=n)
    images = np.zeros((n, 1, SIZE, SIZE), dtype=np.float32)
    for i, label in enumerate(labels):
        glyph = glyphs[label] * (rng.random((gh, gw)) > 0.15)  # gaps in the strokes
        top, left = rng.integers(0, SIZE - gh + 1), rng.integers(0, SIZE - gw + 1)
        images[i, 0, top:top + gh, left:left + gw] = glyph * rng.uniform(0.5, 1.0)  # shift, contrast
    images += rng.normal(0.0, 0.2, size=images.shape).astype(np.float32)  # noise
    return np.clip(images, 0.0, 1.0), labels.astype(np.int64)


class Digits(Dataset):
    """The generated digits as a map-style dataset of (normalised image tensor, label) pairs."""

    def __init__(self, n, seed):
        self.images, self.labels = make_digits(n, seed)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = (torch.from_numpy(self.images[i]) - MEAN) / STD
        return image, int(self.labels[i])


class Net(nn.Module):
    def __init__(self, dropout=0.25):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),  # 16 x 14 x 14
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),  # 32 x 7 x 7
        )
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = torch.flatten(self.features(x), 1)
        return self.fc(self.dropout(x))


def init_from_numpy(model, seed):
    """Overwrite the conv/linear parameters with numpy draws (PyTorch's default bounds, U(+-1/sqrt(fan_in))),
    so the initial model is the same whatever the library's random stream."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                bound = 1.0 / np.sqrt(m.weight[0].numel())
                for p in (m.weight, m.bias):
                    p.copy_(torch.from_numpy(rng.uniform(-bound, bound, p.shape).astype(np.float32)))


class ProgressBar:
    """A minimal progress bar on stderr (where tqdm draws too), redrawn in place with '\\r'."""

    def __init__(self, total, desc, width=24, stream=sys.stderr):
        self.total, self.desc, self.width, self.stream = total, desc, width, stream
        self.start, self.n, self.postfix, self.shown = time.perf_counter(), 0, "", 0

    def _draw(self):
        done = self.width * self.n // self.total
        rate = self.n / max(time.perf_counter() - self.start, 1e-9)
        bar = "#" * done + "." * (self.width - done)
        text = f"{self.desc} [{bar}] {self.n}/{self.total} {rate:.1f} it/s {self.postfix}"
        self.stream.write("\r" + text.ljust(self.shown))  # pad: cover a longer previous text
        self.stream.flush()
        self.shown = max(self.shown, len(text))

    def update(self, n=1, **postfix):
        self.n += n
        self.postfix = " ".join(f"{k}={v}" for k, v in postfix.items())
        self._draw()

    def write(self, line):
        """Print a line to stdout above the bar (like tqdm.write): clear the bar, print, redraw."""
        self.stream.write("\r" + " " * self.shown + "\r")
        self.stream.flush()
        print(line, flush=True)
        self._draw()

    def close(self):
        self.stream.write("\n")
        self.stream.flush()


def make_train_step(model, optimizer):
    """One training step on a batch: forward, loss, backward, optimizer step; returns the loss."""
    def train_step(images, labels):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        return loss
    return train_step


def train_epoch(model, loader, train_step, epoch, log_interval):
    """One epoch; returns (mean loss, the seconds each step took, loss read back included)."""
    model.train()
    bar = ProgressBar(len(loader), f"epoch {epoch}")
    total_loss, seen, seconds = 0.0, 0, []
    for step, (images, labels) in enumerate(loader, 1):
        start = time.perf_counter()
        loss = train_step(images, labels)
        value = loss.item()  # waits for the step to finish
        seconds.append(time.perf_counter() - start)
        total_loss += value * len(labels)
        seen += len(labels)
        bar.update(loss=f"{value:.4f}")
        if step % log_interval == 0:
            bar.write(f"epoch {epoch} step {step}/{len(loader)} loss {value:.6f}")
    bar.close()
    return total_loss / seen, seconds


def timing_line(epoch, seconds, compiled):
    """Per-epoch timing (stderr): median ms/step and the warm-up, the time the steps took beyond the median
    (the first calls trace and compile: inductor or XLA programs when compiled, op kernels when eager)."""
    median = sorted(seconds)[len(seconds) // 2]
    warmup = sum(max(0.0, s - median) for s in seconds)
    return (f"epoch {epoch} timing ({'compiled' if compiled else 'eager'}): {len(seconds)} steps, "
            f"{1000 * median:.2f} ms/step (median), warm-up {warmup:.2f} s")


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    total_loss, correct = 0.0, 0
    for images, labels in loader:
        logits = model(images)
        total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
        correct += (logits.argmax(dim=1) == labels).sum().item()
    return total_loss / len(loader.dataset), correct


FULL = {"epochs": 5, "train_size": 8000, "test_size": 2000, "log_interval": 25}
SHORT = {"epochs": 2, "train_size": 512, "test_size": 256, "log_interval": 4}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int,
                        help=f"default {FULL['epochs']} ({SHORT['epochs']} with --short)")
    parser.add_argument("--train-size", type=int,
                        help=f"default {FULL['train_size']} ({SHORT['train_size']})")
    parser.add_argument("--test-size", type=int, help=f"default {FULL['test_size']} ({SHORT['test_size']})")
    parser.add_argument("--log-interval", type=int, help=f"default {FULL['log_interval']} "
                        f"({SHORT['log_interval']})")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--gamma", type=float, default=0.7, help="StepLR's factor per epoch")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--checkpoint", default="mnist_like.pt",
                        help="saved after every epoch; '{epoch}' in the name is replaced by the epoch")
    parser.add_argument("--resume", metavar="PATH", help="continue from this checkpoint")
    parser.add_argument("--short", action="store_true", help="a quick run: 2 epochs on 512 images")
    parser.add_argument("--check", action="store_true",
                        help="reproducible across libraries: numpy init, no dropout, no shuffling")
    parser.add_argument("--compile", action="store_true", help="run the training step through torch.compile")
    args = parser.parse_args()
    for name, value in (SHORT if args.short else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)

    train_set = Digits(args.train_size, seed=1)
    test_set = Digits(args.test_size, seed=2)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=not args.check,
                              num_workers=args.workers, persistent_workers=args.workers > 0)
    test_loader = DataLoader(test_set, batch_size=256)

    model = Net(dropout=0.0 if args.check else 0.25)
    if args.check:
        init_from_numpy(model, seed=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True,
                                weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=args.gamma)
    start = 1
    if args.resume:
        state = torch.load(args.resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start = state["epoch"] + 1
        print(f"resumed from {os.path.basename(args.resume)} after epoch {state['epoch']}")

    train_step = make_train_step(model, optimizer)
    if args.compile:
        train_step = torch.compile(train_step)
    for epoch in range(start, args.epochs + 1):
        lr = scheduler.get_last_lr()[0]
        train_loss, seconds = train_epoch(model, train_loader, train_step, epoch, args.log_interval)
        print(timing_line(epoch, seconds, args.compile), file=sys.stderr, flush=True)
        scheduler.step()
        test_loss, correct = evaluate(model, test_loader)
        print(f"epoch {epoch} lr {lr:.6f} train loss {train_loss:.6f} test loss {test_loss:.6f} "
              f"accuracy {correct}/{len(test_set)} ({100.0 * correct / len(test_set):.1f}%)")
        torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict()}, args.checkpoint.format(epoch=epoch))


if __name__ == "__main__":
    main()

"""Issue 10's d2l yardsticks: *Dive into Deep Learning* chapters under `python -m torchshim run`.

Each script in compat_tests/yardsticks/d2l/ is one chapter's PyTorch code cells, concatenated unmodified,
over a verbatim subset of d2l's own library `d2l/torch.py` (provenance, license and the few marked changes
in yardsticks/SOURCES.md). The chapters run in a subprocess under torchshim and under the real PyTorch, on the
fixtures' stand-ins for d2l's downloads and plotting (yardsticks/_fixtures: a synthetic FashionMNIST in the
torchvision stand-in, `requests` serving local synthetic data files, `matplotlib`/`IPython` stand-ins; the
`matplotlib` one writes every plotted line to YARDSTICK_PLOT_JSON, which is how the d2l `Trainer`'s recorded
losses are read back, since d2l plots them instead of printing them).

d2l sets no seed, so PyTorch's own numbers move from run to run; each comparison says how far, and where a
value does not depend on random numbers (momentum's 2-D traces, the decay curves, the layer shapes) it is
compared exactly.
"""
import json
import math
import os
import re

import pytest

import test_yardsticks as ys

# whole scripts in subprocesses: `nox -s tests_slow`
pytestmark = pytest.mark.slow

PLOTS = "plots.json"


def _chapter(tmp_path, script, extra_env=None):
    env = {"YARDSTICK_PLOT_JSON": PLOTS}
    env.update(extra_env or {})
    runs = ys._both("d2l", tmp_path, script, [], extra_env=env)
    out = {}
    for library, (result, folder) in runs.items():
        assert result.returncode == 0, (library, result.explain())
        with open(os.path.join(folder, PLOTS), encoding="utf-8") as f:
            out[library] = (result, json.load(f)["figures"])
    return out


def _curves(figures):
    """label -> (x, y) of the last line drawn with that label (d2l's ProgressBoard redraws every line at each
    point, so the last one holds the whole curve)."""
    curves = {}
    for fig in figures:
        for ax in fig["axes"]:
            for line in ax["lines"]:
                if line["label"]:
                    curves[line["label"]] = (line["x"], line["y"])
    return curves


def _check_board(curves, train_label, val_labels, epochs):
    """d2l's Trainer plots a training point every half epoch (`plot_train_per_epoch=2`: the mean x and y of
    that half's batches, so the last x is inside the last epoch) and one validation point per epoch (x =
    epoch + 1, the mean over the validation batches)."""
    for label in [train_label, *val_labels]:
        assert label in curves, (label, sorted(curves))
        x, y = curves[label]
        assert y and all(math.isfinite(v) for v in y), (label, y)
    x = curves[train_label][0]
    assert len(x) == 2 * epochs and x == sorted(x) and epochs - 1 < x[-1] < epochs, (train_label, x)
    for label in val_labels:
        assert curves[label][0] == pytest.approx(list(range(1, epochs + 1))), (label, curves[label][0])


# --- chapter_optimization/momentum ------------------------------------------------------------------------

def test_d2l_momentum(tmp_path):
    runs = _chapter(tmp_path, "momentum.py")
    result, figures = runs["torchshim"]
    traces = [line for line in result.lines if line.startswith("epoch 20, ")]
    # train_2d on Python floats: gd with eta 0.4 / 0.6, momentum with beta 0.5 / 0.25 (the 0.6 gd diverges)
    assert len(traces) == 4, result.explain()
    assert traces[0] == "epoch 20, x1: -0.943467, x2: -0.000073", result.explain()
    losses = [float(v) for v in re.findall(rf"^loss: ({ys.FLOAT}), {ys.FLOAT} sec/epoch$", result.stdout,
                                           re.M)]
    assert len(losses) == 4, result.explain()  # three from-scratch runs, then torch.optim.SGD(momentum=0.9)
    # the stand-in airfoil target keeps about a third of its variance as noise: loss (half the MSE of the
    # standardised target) ends near 0.16 (0.5 at the start)
    assert all(0.1 < v < 0.25 for v in losses), result.explain()
    curves = _curves(figures)
    assert {f"beta = {b:.2f}" for b in (0.95, 0.9, 0.6, 0)} <= set(curves)
    assert {f"lambda = {lam:.2f}" for lam in (0.1, 1, 10, 19)} <= set(curves)
    if "torch" in runs:
        ref, ref_figures = runs["torch"]
        # deterministic: the four 2-D traces, and the plotted trajectories and decay curves
        assert traces == [line for line in ref.lines if line.startswith("epoch 20, ")]
        ref_curves = _curves(ref_figures)
        for label in [k for k in ref_curves if k.startswith(("beta", "lambda"))]:
            assert curves[label][1] == pytest.approx(ref_curves[label][1], rel=1e-6), label
        ref_losses = [float(v) for v in re.findall(rf"^loss: ({ys.FLOAT}), ", ref.stdout, re.M)]
        # After 2 (4) epochs of minibatch SGD the loss of this linear regression is within a few thousandths
        # of its minimum; under PyTorch three runs gave 0.157-0.162 (spread 0.005 at most at each of the
        # four places): 0.01 is twice that.
        assert losses == pytest.approx(ref_losses, abs=0.01)


# --- chapter_linear-classification/softmax-regression-concise ----------------------------------------------

def test_d2l_softmax_regression_concise(tmp_path):
    runs = _chapter(tmp_path, "softmax_regression_concise.py")
    _, figures = runs["torchshim"]
    curves = _curves(figures)
    _check_board(curves, "train_loss", ["val_loss", "val_acc"], 2)
    train, val = curves["train_loss"][1], curves["val_loss"][1]
    assert train[-1] < train[0] and val[-1] < val[0]
    if "torch" in runs:
        ref = _curves(runs["torch"][1])
        # The first point averages 4 batches from the LazyLinear's random start, close to ln 10 = 2.303
        # whatever the weights; after 2 epochs the validation loss has moved ~0.1. Measured so far: PyTorch
        # 2.322 (first) and 2.167 (epoch 2), torchshim 2.312 and 2.191. PROVISIONAL: 0.05 is not yet
        # derived from PyTorch's seed-to-seed spread (to be measured over several runs).
        assert train[0] == pytest.approx(ref["train_loss"][1][0], abs=0.05)
        assert val[-1] == pytest.approx(ref["val_loss"][1][-1], abs=0.05)


# --- chapter_convolutional-neural-networks/lenet -----------------------------------------------------------

LENET_SHAPES = [f"{name} output shape:\t torch.Size({shape})" for name, shape in [
    ("Conv2d", [1, 6, 28, 28]), ("Sigmoid", [1, 6, 28, 28]), ("AvgPool2d", [1, 6, 14, 14]),
    ("Conv2d", [1, 16, 10, 10]), ("Sigmoid", [1, 16, 10, 10]), ("AvgPool2d", [1, 16, 5, 5]),
    ("Flatten", [1, 400]), ("Linear", [1, 120]), ("Sigmoid", [1, 120]), ("Linear", [1, 84]),
    ("Sigmoid", [1, 84]), ("Linear", [1, 10])]]


def test_d2l_lenet(tmp_path):
    runs = _chapter(tmp_path, "lenet.py")
    result, figures = runs["torchshim"]
    # layer_summary runs the lazy layers once: the classes PyTorch prints (LazyConv2d becomes Conv2d)
    assert result.lines[:len(LENET_SHAPES)] == LENET_SHAPES, result.explain()
    curves = _curves(figures)
    _check_board(curves, "train_loss", ["val_loss", "val_acc"], 2)
    if "torch" in runs:
        ref, ref_figures = runs["torch"]
        assert ref.lines[:len(LENET_SHAPES)] == LENET_SHAPES
        ref_curves = _curves(ref_figures)
        # LeNet's sigmoids start from Xavier weights and all outputs near uniform: the loss stays close to
        # ln 10 for the first epochs. PROVISIONAL: 0.06 is not yet derived from PyTorch's seed-to-seed
        # spread (to be measured over several runs).
        assert curves["train_loss"][1][0] == pytest.approx(ref_curves["train_loss"][1][0], abs=0.06)
        assert curves["val_loss"][1][-1] == pytest.approx(ref_curves["val_loss"][1][-1], abs=0.06)


# --- chapter_recurrent-neural-networks/rnn-concise ---------------------------------------------------------

def test_d2l_rnn_concise(tmp_path):
    runs = _chapter(tmp_path, "rnn_concise.py")
    _, figures = runs["torchshim"]
    curves = _curves(figures)
    _check_board(curves, "train_ppl", ["val_ppl"], 4)
    train, val = curves["train_ppl"][1], curves["val_ppl"][1]
    assert train[-1] < train[0] and val[-1] < val[0]
    if "torch" in runs:
        ref = _curves(runs["torch"][1])
        # the untrained perplexity is about the vocabulary size and falls to about 10 in 4 epochs. Measured
        # so far: PyTorch 21.94 (first point) and 9.96 (last validation), torchshim 21.51 and 10.19.
        # PROVISIONAL: 0.5 / 2.0 are not yet derived from PyTorch's seed-to-seed spread.
        assert train[0] == pytest.approx(ref["train_ppl"][1][0], abs=0.5)
        assert val[-1] == pytest.approx(ref["val_ppl"][1][-1], abs=2.0)

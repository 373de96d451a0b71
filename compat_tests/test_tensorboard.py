"""torch.utils.tensorboard.SummaryWriter: the same calls made with torch's writer and torchshim's, both event
files read back with tensorboard's EventAccumulator: same runs, tags, steps and values (scalars, histograms,
images as decoded pixels, text, tensors, hparams), same projector files, and PyTorch's import error when the
tensorboard package is missing."""
import glob
import importlib
import io
import os
import re
import sys

import numpy as np
import pytest
import torch

import torchshim

pytest.importorskip("tensorboard")
import torch.utils.tensorboard  # noqa: E402  (not imported by `import torch`, as in PyTorch)
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

import torchshim.utils.tensorboard  # noqa: E402

LIBS = {"torch": torch, "torchshim": torchshim}


def _write_both(tmp_path, body, **kw):
    dirs = {}
    for name, T in LIBS.items():
        d = str(tmp_path / name)
        with T.utils.tensorboard.SummaryWriter(d, **kw) as w:
            body(T, w)
        dirs[name] = d
    return dirs


def _acc(path):
    acc = EventAccumulator(path, size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0})
    acc.Reload()
    return acc


def _runs(root):
    return sorted(os.path.relpath(os.path.dirname(p), root) for p in glob.glob(f"{root}/**/events.out.*",
                                                                                 recursive=True))


def test_scalars(tmp_path):
    def body(T, w):
        for step in range(5):
            w.add_scalar("loss", 1.0 / (step + 1), step)
            w.add_scalar("t/acc", T.tensor(0.25 * step), step)
            w.add_scalar("np", np.float32(step) * 2, step)
            w.add_scalar("arr", np.array([step + 0.5]), global_step=step)
            w.add_scalar("new", step * 3.0, step, new_style=True)
            w.add_scalar("dbl", step / 3.0, step, new_style=True, double_precision=True)
    dirs = _write_both(tmp_path, body)
    ref, got = _acc(dirs["torch"]), _acc(dirs["torchshim"])
    assert ref.Tags()["scalars"] == got.Tags()["scalars"] and ref.Tags()["scalars"]
    for tag in ref.Tags()["scalars"]:
        assert [(e.step, e.value) for e in ref.Scalars(tag)] == [(e.step, e.value) for e in got.Scalars(tag)]
    assert ref.Tags()["tensors"] == got.Tags()["tensors"]
    for tag in ref.Tags()["tensors"]:
        assert ([(e.step, e.tensor_proto.SerializeToString()) for e in ref.Tensors(tag)]
                == [(e.step, e.tensor_proto.SerializeToString()) for e in got.Tensors(tag)])


def test_add_scalars_makes_one_run_per_key(tmp_path):
    def body(T, w):
        for step in range(3):
            w.add_scalars("run/main", {"a": step * 1.5, "b": T.tensor(step - 1.0)}, step)
    dirs = _write_both(tmp_path, body)
    assert _runs(dirs["torch"]) == _runs(dirs["torchshim"]) == [".", "run_main_a", "run_main_b"]
    for sub in ("run_main_a", "run_main_b"):
        ref, got = _acc(os.path.join(dirs["torch"], sub)), _acc(os.path.join(dirs["torchshim"], sub))
        assert ref.Tags()["scalars"] == got.Tags()["scalars"] == ["run/main"]
        assert ([(e.step, e.value) for e in ref.Scalars("run/main")]
                == [(e.step, e.value) for e in got.Scalars("run/main")])


def _histos(acc, tag):
    return [(e.step, e.histogram_value.min, e.histogram_value.max, e.histogram_value.num,
             e.histogram_value.sum, e.histogram_value.sum_squares, list(e.histogram_value.bucket_limit),
             list(e.histogram_value.bucket)) for e in acc.Histograms(tag)]


def test_histograms(tmp_path):
    data = np.random.default_rng(0).standard_normal((3, 500)).astype(np.float32)

    def body(T, w):
        for step in range(3):
            w.add_histogram("w", T.tensor(data[step]), step)
            w.add_histogram("np_auto", data[step] * 4, step, bins="auto")
            w.add_histogram("few", T.tensor(data[step]), step, bins=10, max_bins=3)
        w.add_histogram_raw("raw", min=0.0, max=3.0, num=6, sum=9.0, sum_squares=19.0,
                            bucket_limits=[1.0, 2.0, 3.0], bucket_counts=[1, 2, 3], global_step=7)
    dirs = _write_both(tmp_path, body)
    ref, got = _acc(dirs["torch"]), _acc(dirs["torchshim"])
    assert ref.Tags()["histograms"] == got.Tags()["histograms"]
    for tag in ref.Tags()["histograms"]:
        for a, b in zip(_histos(ref, tag), _histos(got, tag), strict=True):
            assert a[:4] == b[:4] and a[6:] == b[6:]
            np.testing.assert_allclose(b[4:6], a[4:6], rtol=1e-6)


def _pixels(acc, tag):
    from PIL import Image
    return [(e.step, e.width, e.height, np.asarray(Image.open(io.BytesIO(e.encoded_image_string))))
            for e in acc.Images(tag)]


def test_images(tmp_path):
    pytest.importorskip("PIL")
    rng = np.random.default_rng(1)
    chw = rng.random((3, 8, 6)).astype(np.float32)
    batch = rng.random((5, 1, 4, 4)).astype(np.float32)
    u8 = (rng.random((7, 5)) * 255).astype(np.uint8)

    def body(T, w):
        w.add_image("chw", T.tensor(chw), 0)
        w.add_image("hwc", T.tensor(chw).permute(1, 2, 0), 1, dataformats="HWC")
        w.add_image("hw_uint8", u8, 2, dataformats="HW")
        w.add_images("batch", T.tensor(batch), 3)
        w.add_images("nhwc", batch.transpose(0, 2, 3, 1), 4, dataformats="NHWC")
    dirs = _write_both(tmp_path, body)
    ref, got = _acc(dirs["torch"]), _acc(dirs["torchshim"])
    assert ref.Tags()["images"] == got.Tags()["images"] and len(ref.Tags()["images"]) == 5
    for tag in ref.Tags()["images"]:
        for a, b in zip(_pixels(ref, tag), _pixels(got, tag), strict=True):
            assert a[:3] == b[:3]
            np.testing.assert_array_equal(b[3], a[3])


def test_text_and_tensor(tmp_path):
    def body(T, w):
        w.add_text("note", "hello *world*", 0)
        w.add_text("note", "second", 1)
        w.add_tensor("t", T.arange(6, dtype=T.float32).reshape(2, 3), 2)
        w.add_tensor("i", T.tensor([1, -2, 3]), 3)
        w.add_tensor("h", T.tensor([0.5, 1.5], dtype=T.float16), 4)
    dirs = _write_both(tmp_path, body)
    ref, got = _acc(dirs["torch"]), _acc(dirs["torchshim"])
    assert ref.Tags()["tensors"] == got.Tags()["tensors"]
    for tag in ref.Tags()["tensors"]:
        assert ([(e.step, e.tensor_proto.SerializeToString()) for e in ref.Tensors(tag)]
                == [(e.step, e.tensor_proto.SerializeToString()) for e in got.Tensors(tag)])
        assert ref.SummaryMetadata(tag) == got.SummaryMetadata(tag)


def test_hparams(tmp_path):
    def body(T, w):
        w.add_hparams({"lr": 0.1, "bsize": 16, "opt": "adam", "flag": True, "skip": None},
                      {"hparam/acc": 0.9, "hparam/loss": 0.3}, run_name="trial",
                      hparam_domain_discrete={"opt": ["adam", "sgd"]})
    dirs = _write_both(tmp_path, body)
    assert _runs(dirs["torch"]) == _runs(dirs["torchshim"]) == [".", "trial"]
    ref, got = _acc(os.path.join(dirs["torch"], "trial")), _acc(os.path.join(dirs["torchshim"], "trial"))
    assert ref.Tags()["scalars"] == got.Tags()["scalars"]
    for tag in ref.Tags()["scalars"]:
        assert [e.value for e in ref.Scalars(tag)] == [e.value for e in got.Scalars(tag)]
    ref_meta, got_meta = ref.PluginTagToContent("hparams"), got.PluginTagToContent("hparams")
    assert ref_meta == got_meta and len(ref_meta) == 3


@pytest.mark.parametrize("args", [({"lr": [1]}, {}), ([("lr", 1)], {})])
def test_hparams_errors(tmp_path, args):
    errs = []
    for name, T in LIBS.items():
        with T.utils.tensorboard.SummaryWriter(str(tmp_path / name)) as w:
            with pytest.raises((TypeError, ValueError)) as e:
                w.add_hparams(*args)
            errs.append((e.type, str(e.value)))
    assert errs[0] == errs[1]


def test_embedding_files(tmp_path):
    pytest.importorskip("PIL")
    rng = np.random.default_rng(2)
    mat = rng.standard_normal((4, 3)).astype(np.float32)
    imgs = rng.random((4, 3, 5, 5)).astype(np.float32)

    def body(T, w):
        w.add_embedding(T.tensor(mat), metadata=["a", "b", "c", "d"], label_img=T.tensor(imgs), global_step=3,
                        tag="emb/x")
        w.add_embedding(mat, metadata=[[1, "p"], [2, "q"], [3, "r"], [4, "s"]], metadata_header=["n", "l"])
    dirs = _write_both(tmp_path, body)
    files = {}
    for name, d in dirs.items():
        paths = glob.glob(f"{d}/**/*", recursive=True)
        files[name] = {os.path.relpath(p, d): open(p, "rb").read() for p in paths
                       if os.path.isfile(p) and "events.out" not in p}
    assert sorted(files["torch"]) == sorted(files["torchshim"]) and len(files["torch"]) == 6
    for k in files["torch"]:
        if k.endswith(".png"):
            from PIL import Image
            np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(files["torchshim"][k]))),
                                          np.asarray(Image.open(io.BytesIO(files["torch"][k]))))
        elif k.endswith("tensors.tsv"):
            a = np.loadtxt(io.BytesIO(files["torch"][k]))
            np.testing.assert_array_equal(np.loadtxt(io.BytesIO(files["torchshim"][k])), a)
        else:
            assert files["torchshim"][k] == files["torch"][k], k


def test_purge_step_suffix_and_reopen(tmp_path):
    def body(T, w):
        w.add_scalar("x", 1.0, 10)
        w.flush()
        w.close()
        w.add_scalar("x", 2.0, 11)  # after close: a new event file in the same directory
    dirs = _write_both(tmp_path, body, purge_step=5, filename_suffix=".sfx")
    for d in dirs.values():
        files = glob.glob(f"{d}/events.out.*")
        assert len(files) == 2 and all(f.endswith(".sfx") for f in files)
    ref, got = _acc(dirs["torch"]), _acc(dirs["torchshim"])
    assert [(e.step, e.value) for e in ref.Scalars("x")] == [(e.step, e.value) for e in got.Scalars("x")]
    ref_events, got_events = ([(e.step, e.WhichOneof("what")) for e in _events(d)] for d in dirs.values())
    assert ref_events == got_events


def _events(d):
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    out = []
    for f in sorted(glob.glob(f"{d}/events.out.*")):
        out.extend(e for e in EventFileLoader(f).Load() if not e.HasField("file_version") or e.step)
    return out


def test_default_log_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import socket
    w = torchshim.utils.tensorboard.SummaryWriter(comment="_lr0.1")
    w.close()
    ref = torch.utils.tensorboard.SummaryWriter(comment="_lr0.1")
    ref.close()
    pattern = r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_" + re.escape(socket.gethostname()) + r"_lr0\.1$"
    assert re.match(pattern, w.get_logdir()) and re.match(pattern, ref.get_logdir())
    assert os.path.isdir(w.get_logdir())


def test_add_graph_raises_clearly(tmp_path):
    with torchshim.utils.tensorboard.SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(NotImplementedError, match="add_graph"):
            w.add_graph(torchshim.nn.Linear(2, 2), torchshim.zeros(1, 2))


def test_scalar_must_have_one_element(tmp_path):
    errs = []
    for name, T in LIBS.items():
        with T.utils.tensorboard.SummaryWriter(str(tmp_path / name)) as w:
            with pytest.raises(AssertionError) as e:
                w.add_scalar("x", T.ones(3), 0)
            errs.append(" ".join(str(e.value).split()))
    assert errs[0] == errs[1]


def test_import_error_without_tensorboard(monkeypatch):
    got = {}
    for name in LIBS:
        mod = f"{name}.utils.tensorboard"
        saved = {k: v for k, v in sys.modules.items() if k == mod or k.startswith(mod + ".")}
        for k in saved:
            monkeypatch.delitem(sys.modules, k)
        monkeypatch.setitem(sys.modules, "tensorboard", None)
        try:
            with pytest.raises(ImportError) as e:
                importlib.import_module(mod)
            got[name] = (e.type, str(e.value))
        finally:
            monkeypatch.undo()
    assert got["torch"] == got["torchshim"]
    assert got["torch"][0] is ModuleNotFoundError

"""torch.save / torch.load against real PyTorch 2.13, both directions.

- torchshim.save writes the same bytes as torch.save for the same objects (every record of the zip,
  including data.pkl and .data/serialization_id), to buffers and to paths;
- files saved by PyTorch load in torchshim (weights_only=True, the default) with identical structure, values,
  dtypes, geometry and storage sharing; files saved by torchshim load in PyTorch the same way;
- the legacy (pre-1.6) format both ways, whole nn.Modules (weights_only=False) both ways, map_location forms,
  mmap, and PyTorch's errors for missing, truncated and corrupt files.
"""
import io
import os
import pathlib
import pickle
import struct
import zipfile

import numpy as np
import pytest
import torch

import torchshim
from serialization_cases import CASES, assert_same

LIBS = {"torch": torch, "torchshim": torchshim}


def _saved(lib, obj, **kw):
    buf = io.BytesIO()
    lib.save(obj, buf, **kw)
    return buf.getvalue()


def _outcome(fn):
    """('ok', value) or (exception type name, message)."""
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  the exception is the result being compared
        return (type(e).__name__, str(e))


def _same_error(shim_fn, torch_fn):
    got, want = _outcome(shim_fn), _outcome(torch_fn)
    assert want[0] != "ok", f"PyTorch did not raise: {want}"
    assert got == want


# ---- the file format ------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
def test_save_is_byte_identical(case):
    build = CASES[case]
    assert _saved(torchshim, build(torchshim)) == _saved(torch, build(torch))


def test_save_is_byte_identical_protocol_4():
    build = CASES["nested"]
    shim = _saved(torchshim, build(torchshim), pickle_protocol=4)
    assert shim == _saved(torch, build(torch), pickle_protocol=4)


def test_save_to_path_names_the_archive_after_the_file(tmp_path):
    for lib in (torch, torchshim):
        (tmp_path / lib.__name__).mkdir()
        lib.save(CASES["shared_views"](lib), tmp_path / lib.__name__ / "my.model.v2.pt")
    shim = (tmp_path / "torchshim" / "my.model.v2.pt").read_bytes()
    assert zipfile.ZipFile(io.BytesIO(shim)).namelist()[0] == "my.model.v2/data.pkl"
    assert shim == (tmp_path / "torch" / "my.model.v2.pt").read_bytes()


def test_records_are_64_byte_aligned():
    data = _saved(torchshim, CASES["all_dtypes"](torchshim))
    z = zipfile.ZipFile(io.BytesIO(data))
    checked = 0
    for info in z.infolist():
        if "/data/" in info.filename:
            name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
            start = info.header_offset + 30 + name_len + extra_len
            assert start % 64 == 0 and data[start:start + info.file_size] == z.read(info.filename)
            checked += 1
    assert checked == len(CASES["all_dtypes"](torchshim))


def test_serialization_id_matches_with_many_records():
    # 300 storages: the record-name hash goes through several rehashes of PyTorch's unordered_set
    state = {f"w{i}": np.full(2, i, np.float32) for i in range(300)}
    shim = _saved(torchshim, {k: torchshim.tensor(v) for k, v in state.items()})
    assert shim == _saved(torch, {k: torch.tensor(v) for k, v in state.items()})


# ---- PyTorch -> torchshim and torchshim -> PyTorch ------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
def test_pytorch_file_loads_in_torchshim(case):
    data = _saved(torch, CASES[case](torch))
    assert_same(torchshim.load(io.BytesIO(data)), torch.load(io.BytesIO(data)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_torchshim_file_loads_in_pytorch(case):
    data = _saved(torchshim, CASES[case](torchshim))
    assert_same(torchshim.load(io.BytesIO(data)), torch.load(io.BytesIO(data), weights_only=True))


def _legacy_dtypes(T):
    # PyTorch's legacy loader can't read the dtypes saved as UntypedStorage (uint16/32/64, float8)
    return {k: v for k, v in CASES["all_dtypes"](T).items() if not k.startswith(("uint16", "uint32", "uint64",
                                                                                   "float8"))}


@pytest.mark.parametrize("case", ["shared_views", "legacy_dtypes", "nested", "model_state",
                                  "view_before_base"])
def test_legacy_format_both_ways(case):
    build = _legacy_dtypes if case == "legacy_dtypes" else CASES[case]
    for saver in (torch, torchshim):
        data = _saved(saver, build(saver), _use_new_zipfile_serialization=False)
        assert_same(torchshim.load(io.BytesIO(data)), torch.load(io.BytesIO(data)))


def test_legacy_untyped_storage_dtype():
    """Deliberate difference: PyTorch's legacy loader fails on the uint16/32/64 and float8 tensors its legacy
    saver writes (AttributeError: UntypedStorage has no dtype); torchshim loads them."""
    obj = {"u": torch.tensor([1, 65535], dtype=torch.uint16), "f8": torch.tensor([0.5]).to(torch.float8_e5m2)}
    data = _saved(torch, obj, _use_new_zipfile_serialization=False)
    assert _outcome(lambda: torch.load(io.BytesIO(data)))[0] == "AttributeError"
    assert_same(torchshim.load(io.BytesIO(data)), torch.load(io.BytesIO(_saved(torch, obj))))


@pytest.mark.parametrize("case", ["shared_views", "model_state"])
def test_load_from_path_and_pathlike(tmp_path, case):
    path = tmp_path / "ckpt.pt"
    torch.save(CASES[case](torch), str(path))
    want = torch.load(path)
    assert_same(torchshim.load(str(path)), want)
    assert_same(torchshim.load(pathlib.Path(path)), want)
    with open(path, "rb") as f:
        assert_same(torchshim.load(f), want)


def test_save_to_open_file(tmp_path):
    for lib in (torch, torchshim):
        with open(tmp_path / lib.__name__, "wb") as f:
            lib.save(CASES["optimizer_state"](lib), f)
    assert (tmp_path / "torchshim").read_bytes() == (tmp_path / "torch").read_bytes()


def test_loaded_views_still_share_memory():
    results = {}
    for name, lib in LIBS.items():
        data = _saved(torch, CASES["shared_views"](torch))
        d = lib.load(io.BytesIO(data))
        d["row"].mul_(10)
        d["t"][0, 0] = -1.0
        results[name] = (d["x"].tolist(), d["col"].tolist(), d["flat"][:8].tolist(), d["other"].tolist())
    assert results["torchshim"] == results["torch"]


def test_state_dict_restores_a_model():
    data = _saved(torch, CASES["model_state"](torch))
    outs = {}
    for name, lib in LIBS.items():
        m = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3), lib.nn.Flatten(),
                              lib.nn.Linear(12, 4),
                              lib.nn.LayerNorm(4))
        m.add_module("emb", lib.nn.Embedding(5, 2))
        m.load_state_dict(lib.load(io.BytesIO(data)))
        m.eval()
        x = lib.tensor(np.linspace(-1, 1, 2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4))
        outs[name] = m[:5](x).detach().numpy()
    np.testing.assert_allclose(outs["torchshim"], outs["torch"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("legacy", [False, True])
def test_whole_module_both_ways(legacy):
    kw = {"_use_new_zipfile_serialization": not legacy}
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    loaded = torchshim.load(io.BytesIO(_saved(torch, tm, **kw)), weights_only=False)
    assert isinstance(loaded, torchshim.nn.Sequential) and repr(loaded) == repr(tm)
    np.testing.assert_allclose(loaded(torchshim.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    torchshim.manual_seed(0)
    sm = torchshim.nn.Sequential(torchshim.nn.Linear(2, 4), torchshim.nn.Tanh())
    back = torch.load(io.BytesIO(_saved(torchshim, sm, **kw)), weights_only=False)
    assert isinstance(back, torch.nn.Sequential) and repr(back) == repr(sm)
    np.testing.assert_allclose(back(torch.tensor(x)).detach().numpy(),
                               sm(torchshim.tensor(x)).detach().numpy(), rtol=1e-6)


def test_get_unsafe_globals_in_checkpoint():
    torch.manual_seed(0)
    data = _saved(torch, torch.nn.Sequential(torch.nn.Linear(2, 1)))
    got = torchshim.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    assert sorted(got) == sorted(torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
    state = _saved(torch, CASES["model_state"](torch))
    assert torchshim.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(state)) == []


# ---- map_location ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("form", ["str", "device", "dict", "callable_storage", "callable_none"])
def test_map_location_forms(form):
    data = _saved(torch, CASES["shared_views"](torch))
    forms = {"str": lambda T: "cpu", "device": lambda T: T.device("cpu"), "dict": lambda T: {"cpu": "cpu"},
             "callable_storage": lambda T: lambda storage, loc: storage,
             "callable_none": lambda T: lambda storage, loc: None}
    seen = {}
    for name, lib in LIBS.items():
        calls = []
        ml = forms[form](lib)
        if callable(ml):
            inner = ml
            ml = lambda storage, loc, inner=inner, calls=calls: calls.append((loc, storage.nbytes())) or \
                inner(storage, loc)  # noqa: E731
        seen[name] = (lib.load(io.BytesIO(data), map_location=ml), calls)
    assert_same(seen["torchshim"][0], seen["torch"][0])
    assert seen["torchshim"][1] == seen["torch"][1]


def test_map_location_bytes_fails_like_pytorch():
    data = _saved(torch, {"w": torch.ones(2)})
    _same_error(lambda: torchshim.load(io.BytesIO(data), map_location=b"cpu"),
                lambda: torch.load(io.BytesIO(data), map_location=b"cpu"))


@pytest.fixture
def cuda_tagged_file():
    """A checkpoint whose storages are tagged 'cuda:0' (PyTorch writes it with a location tagger)."""
    tagger = (0, lambda obj: "cuda:0", lambda obj, loc: None)
    torch.serialization._package_registry.insert(0, tagger)
    try:
        data = _saved(torch, {"w": torch.arange(4.0)})
    finally:
        torch.serialization._package_registry.remove(tagger)
    assert b"cuda:0" in zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    return data


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only error")
@pytest.mark.parametrize("map_location", [None, "cuda", "cuda:1"])
def test_cuda_location_without_gpu_raises_like_pytorch(cuda_tagged_file, map_location):
    _same_error(lambda: torchshim.load(io.BytesIO(cuda_tagged_file), map_location=map_location),
                lambda: torch.load(io.BytesIO(cuda_tagged_file), map_location=map_location))


@pytest.mark.parametrize("map_location", ["cpu", {"cuda:0": "cpu"}, "torch.device('cpu')"])
def test_cuda_tagged_file_mapped_to_cpu(cuda_tagged_file, map_location):
    got = []
    for lib in (torchshim, torch):
        ml = lib.device("cpu") if map_location == "torch.device('cpu')" else map_location
        got.append(lib.load(io.BytesIO(cuda_tagged_file), map_location=ml))
    assert_same(*got)
    assert str(got[0]["w"].device) == "cpu"


def test_unknown_location_raises_like_pytorch():
    data = _saved(torch, {"w": torch.ones(2)})
    _same_error(lambda: torchshim.load(io.BytesIO(data), map_location="npu:0"),
                lambda: torch.load(io.BytesIO(data), map_location="npu:0"))


# ---- mmap, arguments -------------------------------------------------------------------------------------
def test_mmap_load(tmp_path):
    path = tmp_path / "m.pt"
    torch.save(CASES["all_dtypes"](torch), path)
    assert_same(torchshim.load(path, mmap=True), torch.load(path, mmap=True))


@pytest.mark.parametrize("case", ["mmap_buffer", "mmap_legacy", "pickle_module_weights_only", "unseekable",
                                  "save_bad_target", "save_missing_dir", "save_dir_path"])
def test_argument_errors_match_pytorch(tmp_path, case):
    zipped = _saved(torch, {"w": torch.ones(2)})
    legacy = _saved(torch, {"w": torch.ones(2)}, _use_new_zipfile_serialization=False)

    class Unseekable:
        def read(self, n):
            return b""

    calls = {
        "mmap_buffer": lambda T: T.load(io.BytesIO(zipped), mmap=True),
        "mmap_legacy": lambda T: T.load(io.BytesIO(legacy), mmap=True),
        "pickle_module_weights_only": lambda T: T.load(io.BytesIO(zipped), pickle_module=pickle,
                                                       weights_only=True),
        "unseekable": lambda T: T.load(Unseekable()),
        "save_bad_target": lambda T: T.save({"a": 1}, 5),
        "save_missing_dir": lambda T: T.save({"a": 1}, str(tmp_path / "no_such_dir" / "x.pt")),
        "save_dir_path": lambda T: T.save({"a": 1}, str(tmp_path) + "/"),
    }
    _same_error(lambda: calls[case](torchshim), lambda: calls[case](torch))


def test_weights_only_false_with_pickle_module():
    data = _saved(torch, CASES["nested"](torch))
    assert_same(torchshim.load(io.BytesIO(data), pickle_module=pickle, weights_only=False),
                torch.load(io.BytesIO(data), pickle_module=pickle, weights_only=False))


# ---- missing, truncated and corrupt files ---------------------------------------------------------------
def test_missing_file():
    _same_error(lambda: torchshim.load("/nonexistent/dir/x.pt"), lambda: torch.load("/nonexistent/dir/x.pt"))


_GOOD = None


def _good():
    global _GOOD
    if _GOOD is None:
        _GOOD = _saved(torch, {"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2, dtype=torch.int64)})
    return _GOOD


@pytest.mark.parametrize("cut", [0, 3, 4, 21, 22, 100, 700, -23, -22, -10, -1])
@pytest.mark.parametrize("weights_only", [True, False])
def test_truncated_file(cut, weights_only):
    data = _good()[:cut]
    _same_error(lambda: torchshim.load(io.BytesIO(data), weights_only=weights_only),
                lambda: torch.load(io.BytesIO(data), weights_only=weights_only))


def _corruptions():
    """(name, bytes) for corruptions hitting each part of the archive: garbage, pickle-only data, flipped
    bytes in data.pkl, a record's local header, the central directory, its end record, record names."""
    good = _good()
    z = zipfile.ZipFile(io.BytesIO(good))
    infos = {i.filename: i for i in z.infolist()}
    cd = good.rfind(b"PK\x01\x02")

    def flip(pos, mask=0x5A):
        d = bytearray(good)
        d[pos] ^= mask
        return bytes(d)
    return {
        "garbage": b"hello world, not a checkpoint",
        "pickle_only": pickle.dumps({"a": 1}, protocol=2),
        "pkl_opcode": flip(2),
        "pkl_global_name": flip(good.find(b"_rebuild_tensor_v2") + 3),
        "pkl_storage_numel": flip(good.find(b"cpuq") + 5),
        "local_header_sig": flip(infos["archive/data/0"].header_offset + 1),
        "local_header_method": flip(infos["archive/data/1"].header_offset + 8),
        "local_header_extra_len": flip(infos["archive/data/0"].header_offset + 28, 0x40),
        "central_sig": flip(cd + 1),
        "central_size": flip(cd + 21, 0x10),
        "central_offset": flip(good.rfind(b"PK\x01\x02") + 43, 0x7F),
        "central_name": flip(cd + 46),
        "eocd_count": flip(len(good) - 12),
        "eocd64_locator": flip(len(good) - 22 - 20 + 1),
        "serialization_id": flip(infos["archive/.data/serialization_id"].header_offset + 30 +
                                 len("archive/.data/serialization_id") + 4 + 60, 0x80),
        "byteorder_value": good.replace(b"little", b"middle"),
    }


@pytest.mark.parametrize("name", sorted(_corruptions()))
@pytest.mark.parametrize("weights_only", [True, False])
def test_corrupt_file(name, weights_only):
    data = _corruptions()[name]
    got = _outcome(lambda: torchshim.load(io.BytesIO(data), weights_only=weights_only))
    want = _outcome(lambda: torch.load(io.BytesIO(data), weights_only=weights_only))
    if want[0] == "ok":  # PyTorch reads through this corruption (it checks no CRCs): so must torchshim
        assert got[0] == "ok"
        assert_same(got[1], want[1])
    elif " from '" in want[1]:  # pickle's AttributeError names torch's module file; compare up to there
        assert got[0] == want[0] and got[1] == want[1].split(" from '")[0] + ">"
    else:
        assert got == want


def test_corruptions_that_pytorch_reads_through():
    """PyTorch reads only these corruptions without an error (so the table exercises errors elsewhere)."""
    ok = {k for k, d in _corruptions().items() if _outcome(lambda d=d: torch.load(io.BytesIO(d)))[0] == "ok"}
    assert ok == {"local_header_method", "local_header_extra_len", "eocd_count", "eocd64_locator"}


def test_empty_file(tmp_path):
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    _same_error(lambda: torchshim.load(path), lambda: torch.load(path))
    _same_error(lambda: torchshim.load(path, weights_only=False),
                lambda: torch.load(path, weights_only=False))


def test_record_names_are_read_like_pytorch():
    # archive folder named after the file, a BytesIO that already holds data before the archive
    buf = io.BytesIO(b"prefix")
    buf.seek(0, 2)
    torchshim.save({"w": torchshim.ones(2)}, buf)
    buf.seek(len(b"prefix"))
    assert torch.load(buf)["w"].tolist() == [1.0, 1.0]
    buf.seek(len(b"prefix"))
    assert torchshim.load(buf)["w"].tolist() == [1.0, 1.0]
    assert os.path.basename(__file__)  # keep os imported for the path tests above


def test_loaded_tensors_own_their_storage_shape():
    """White-box: a loaded tensor covering its storage (and a Parameter over it) reads it without a gather
    (torchshim's fast path); views of it do not."""
    torch.manual_seed(0)
    module = torchshim.load(io.BytesIO(_saved(torch, torch.nn.Linear(3, 2))), weights_only=False)
    assert module.weight._natural and module.bias._natural
    views = torchshim.load(io.BytesIO(_saved(torch, CASES["view_before_base"](torch))))
    assert views[1]._natural and not views[0]._natural


def test_big_endian_checkpoint():
    """A file written on a big-endian machine (byteorder record 'big'): storages are byte-swapped on load."""
    from torchshim.serialization._zip import ZipWriter
    arrays = {"f": np.linspace(-2, 2, 5, dtype=np.float32), "i": np.arange(-3, 3, dtype=np.int64),
              "c": np.array([1 + 2j], np.complex64)}
    src = zipfile.ZipFile(io.BytesIO(_saved(torch, {k: torch.tensor(v) for k, v in arrays.items()})))
    buf = io.BytesIO()
    w = ZipWriter(buf.write, "archive")
    for name in ("data.pkl", ".format_version", ".storage_alignment"):
        w.write_record(name, src.read(f"archive/{name}"))
    w.write_record("byteorder", b"big")
    for key, arr in enumerate(arrays.values()):
        w.write_record(f"data/{key}", arr.byteswap().tobytes())
    w.end()
    data = buf.getvalue()
    want = torch.load(io.BytesIO(data))
    assert want["f"].tolist() == arrays["f"].tolist()
    assert_same(torchshim.load(io.BytesIO(data)), want)
    assert_same(torchshim.load(io.BytesIO(_saved(torch, want))), want)  # and the next load is not swapped


def test_whole_transformer_layer_both_ways():
    """Whole-module pickles name classes and functions whose torchshim modules differ from PyTorch's
    (MultiheadAttention, the C function torch._C._nn.gelu)."""
    torch.manual_seed(0)
    tm = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, activation="gelu").eval()
    x = np.random.default_rng(0).standard_normal((2, 3, 8)).astype(np.float32)
    sm = torchshim.load(io.BytesIO(_saved(torch, tm)), weights_only=False)
    assert isinstance(sm.self_attn, torchshim.nn.MultiheadAttention)
    assert sm.activation is torchshim.nn.functional.gelu
    want = tm(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(sm(torchshim.tensor(x)).detach().numpy(), want, rtol=1e-5, atol=1e-6)
    back = torch.load(io.BytesIO(_saved(torchshim, sm)), weights_only=False)
    assert type(back.self_attn) is torch.nn.MultiheadAttention and back.activation is torch.nn.functional.gelu
    np.testing.assert_allclose(back(torch.tensor(x)).detach().numpy(), want, rtol=1e-6)

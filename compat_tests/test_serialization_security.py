"""torch.load(weights_only=True) security, against real PyTorch 2.13.

A checkpoint whose pickle references anything outside PyTorch's allowlist raises pickle.UnpicklingError with
PyTorch's message and runs nothing (a marker file that the payload would create stays absent; the same
payload with weights_only=False does create it, so the marker check can fail). add_safe_globals,
safe_globals, get_safe_globals and clear_safe_globals behave as PyTorch's.
"""
import builtins
import collections
import io
import os
import pickle
import subprocess

import numpy as np
import pytest
import torch

import torchshim
from serialization_cases import assert_same


class Point:
    """A user class saved inside a checkpoint (module-level so pickle can name it)."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return type(other) is Point and (self.x, self.y) == (other.x, other.y)


def make_point(x, y):
    return Point(x, y)


class Payload:
    """Pickles as a call `func(*args)`: what a malicious checkpoint does."""

    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


def _checkpoint(obj, legacy=False):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  the exception is the result being compared
        return (type(e).__name__, str(e))


@pytest.fixture(autouse=True)
def _clean_safe_globals():
    torch.serialization.clear_safe_globals()
    torchshim.serialization.clear_safe_globals()
    yield
    torch.serialization.clear_safe_globals()
    torchshim.serialization.clear_safe_globals()


def _payloads(marker):
    """name -> a checkpoint that would create `marker` if its pickle were obeyed."""
    m = str(marker)
    return {
        "os_system": {"w": torch.ones(2), "x": Payload(os.system, (f"touch {m}",))},
        "subprocess": [Payload(subprocess.call, (["touch", m],))],
        "eval": Payload(eval, (f"open({m!r}, 'w').close()",)),
        "exec": Payload(exec, (f"open({m!r}, 'w').close()",)),
        "open": Payload(builtins.open, (m, "w")),
        "getattr_chain": Payload(getattr, (Payload(__import__, ("os",)), "system")),
        "import": Payload(__import__, ("os",)),
        "nested_in_state_dict": collections.OrderedDict(w=torch.ones(1),
                                                        b=Payload(os.system, (f"touch {m}",))),
    }


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("name", ["os_system", "subprocess", "eval", "exec", "open", "getattr_chain",
                                  "import",
                                  "nested_in_state_dict"])
def test_malicious_pickle_is_refused_and_runs_nothing(tmp_path, name, legacy):
    marker = tmp_path / "pwned"
    data = _checkpoint(_payloads(marker)[name], legacy=legacy)
    got = _outcome(lambda: torchshim.load(io.BytesIO(data)))
    assert not marker.exists(), "the payload ran"
    want = _outcome(lambda: torch.load(io.BytesIO(data)))
    assert not marker.exists()
    assert want[0] == "UnpicklingError"
    assert got == want


@pytest.mark.parametrize("legacy", [False, True])
def test_marker_detects_execution_with_weights_only_false(tmp_path, legacy):
    """The positive control: the same kind of payload runs under weights_only=False (so the marker works)."""
    marker = tmp_path / "ran"
    data = _checkpoint({"w": torch.ones(1), "x": Payload(builtins.open, (str(marker), "w"))}, legacy=legacy)
    out = torchshim.load(io.BytesIO(data), weights_only=False)
    out["x"].close()
    assert marker.exists()
    assert out["w"].tolist() == [1.0]


def test_forced_weights_only_environment(tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    data = _checkpoint(_payloads(marker)["os_system"])
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    got = _outcome(lambda: torchshim.load(io.BytesIO(data), weights_only=False))
    want = _outcome(lambda: torch.load(io.BytesIO(data), weights_only=False))
    assert not marker.exists() and want[0] == "UnpicklingError" and got == want


def test_forced_no_weights_only_environment_with_explicit_true(monkeypatch):
    data = _checkpoint([Point(1, 2)])
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    got = _outcome(lambda: torchshim.load(io.BytesIO(data), weights_only=True))
    assert got == _outcome(lambda: torch.load(io.BytesIO(data), weights_only=True))


@pytest.mark.parametrize("opcode_case", ["build_on_int", "setitem_on_list", "append_to_dict",
                                         "persistent_id_not_storage", "newobj_unallowed"])
def test_forbidden_opcodes(opcode_case):
    """Hand-written pickles that use allowed names in disallowed ways, inside a PyTorch zip."""
    p = {
        "build_on_int": b"\x80\x02K\x01}b.",
        "setitem_on_list": b"\x80\x02]K\x01K\x02s.",
        "append_to_dict": b"\x80\x02}K\x01a.",
        "persistent_id_not_storage": b"\x80\x02X\x06\x00\x00\x00moduleK\x01\x86Q.",
        "newobj_unallowed": b"\x80\x02K\x01)\x81.",
    }[opcode_case]
    data = _zip_with_pickle(p)
    got = _outcome(lambda: torchshim.load(io.BytesIO(data)))
    want = _outcome(lambda: torch.load(io.BytesIO(data)))
    assert want[0] != "ok" and got == want


def _zip_with_pickle(pkl):
    """A PyTorch checkpoint whose data.pkl is replaced by `pkl` (written with torchshim's zip writer)."""
    from torchshim.serialization._zip import ZipWriter
    buf = io.BytesIO()
    w = ZipWriter(buf.write, "archive")
    w.write_record("data.pkl", pkl)
    w.end()
    return buf.getvalue()


# ---- allowlisting -------------------------------------------------------------------------------------
def _lib_load(lib, data, **kw):
    return lib.load(io.BytesIO(data), **kw)


def test_user_class_refused_by_default():
    data = _checkpoint({"p": Point(1, 2), "w": torch.ones(2)})
    got, want = _outcome(lambda: _lib_load(torchshim, data)), _outcome(lambda: _lib_load(torch, data))
    assert want[0] == "UnpicklingError" and "Point" in want[1] and got == want


def test_add_safe_globals_allows_user_class():
    data = _checkpoint({"p": Point(1, 2), "w": torch.ones(2), "f": Payload(make_point, (3, 4))})
    torch.serialization.add_safe_globals([Point, make_point])
    torchshim.serialization.add_safe_globals([Point, make_point])
    got, want = _lib_load(torchshim, data), _lib_load(torch, data)
    assert got["p"] == want["p"] == Point(1, 2) and got["f"] == want["f"] == Point(3, 4)
    assert_same(got["w"], want["w"])
    assert set(torchshim.serialization.get_safe_globals()) == set(torch.serialization.get_safe_globals())
    torchshim.serialization.clear_safe_globals()
    assert torchshim.serialization.get_safe_globals() == []
    assert _outcome(lambda: _lib_load(torchshim, data))[0] == "UnpicklingError"


def test_safe_globals_context_manager():
    data = _checkpoint([Point(5, 6)])
    with torchshim.serialization.safe_globals([Point]), torch.serialization.safe_globals([Point]):
        assert _lib_load(torchshim, data) == _lib_load(torch, data) == [Point(5, 6)]
        assert torchshim.serialization.get_safe_globals() == [Point]
    assert torchshim.serialization.get_safe_globals() == torch.serialization.get_safe_globals() == []
    assert _outcome(lambda: _lib_load(torchshim, data)) == _outcome(lambda: _lib_load(torch, data))


def test_safe_global_with_explicit_name():
    data = _checkpoint([Point(7, 8)])
    name = f"{Point.__module__}.Point"
    torch.serialization.add_safe_globals([(Point, name)])
    torchshim.serialization.add_safe_globals([(Point, name)])
    assert _lib_load(torchshim, data) == _lib_load(torch, data) == [Point(7, 8)]


@pytest.mark.parametrize("bad", [(Point,), (Point, 5)])
def test_safe_global_tuple_errors(bad):
    data = _checkpoint([Point(1, 2)])
    torch.serialization.add_safe_globals([bad])
    torchshim.serialization.add_safe_globals([bad])
    got, want = _outcome(lambda: _lib_load(torchshim, data)), _outcome(lambda: _lib_load(torch, data))
    assert want[0] in ("ValueError", "TypeError") and got == want


def test_blocklisted_module_stays_blocked(tmp_path):
    marker = tmp_path / "pwned"
    data = _checkpoint(Payload(os.system, (f"touch {marker}",)))
    torch.serialization.add_safe_globals([os.system])
    torchshim.serialization.add_safe_globals([os.system])
    got, want = _outcome(lambda: _lib_load(torchshim, data)), _outcome(lambda: _lib_load(torch, data))
    assert not marker.exists() and want[0] == "UnpicklingError" and got == want


def test_whole_module_needs_allowlisting_and_torchshim_class_matches_torch_name():
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    data = _checkpoint(lin)
    got, want = _outcome(lambda: _lib_load(torchshim, data)), _outcome(lambda: _lib_load(torch, data))
    assert want[0] == "UnpicklingError" and got == want
    with torchshim.serialization.safe_globals([torchshim.nn.Linear]), torch.serialization.safe_globals(
            [torch.nn.Linear]):
        mine, theirs = _lib_load(torchshim, data), _lib_load(torch, data)
    assert isinstance(mine, torchshim.nn.Linear) and repr(mine) == repr(theirs)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(mine(torchshim.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6)


def test_get_unsafe_globals_lists_the_payload(tmp_path):
    data = _checkpoint({"w": torch.ones(1), "p": Point(1, 2), "x": Payload(os.system, ("true",))})
    got = sorted(torchshim.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
    assert got == sorted(torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)))
    assert any("system" in g for g in got) and any("Point" in g for g in got)


@pytest.mark.parametrize("protocol", [3, 4])
def test_pickle_protocol_warning(protocol):
    """Protocols other than 2 warn; protocol 4's FRAME opcode is refused (as PyTorch refuses it)."""
    data = io.BytesIO()
    torch.save({"w": torch.ones(1)}, data, pickle_protocol=protocol)
    outcomes = []
    for lib in (torchshim, torch):
        with pytest.warns(UserWarning, match=f"Detected pickle protocol {protocol}"):
            outcomes.append(_outcome(lambda lib=lib: lib.load(io.BytesIO(data.getvalue()))["w"].tolist()))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == ("ok" if protocol == 3 else "UnpicklingError")


def test_plain_pickle_file_is_not_a_backdoor(tmp_path):
    """A raw pickle (no zip) goes to the legacy reader, which also refuses it under weights_only."""
    marker = tmp_path / "pwned"
    raw = pickle.dumps(Payload(os.system, (f"touch {marker}",)), protocol=2)
    got = _outcome(lambda: torchshim.load(io.BytesIO(raw)))
    want = _outcome(lambda: torch.load(io.BytesIO(raw)))
    assert not marker.exists() and got == want

"""`torch.jit.save` / `torch.jit.load` of torchshim programs: a portable `jax.export` artifact.

The archive is a zip file:

    <name>/torchshim_jit.json   format, names, the input and output structure, dtypes, what the program writes
    <name>/program.bin          the program: `jax.export.Exported.serialize(vjp_order=1)` (StableHLO + its
                                first-order vjp, so a loaded module can be trained)
    <name>/state.pt             parameters and buffers, written by torchshim's `torch.save`
    <name>/extra/<file>         `_extra_files`

Real PyTorch cannot load it (it holds StableHLO, not TorchScript IR), and torchshim cannot run a TorchScript
archive written by PyTorch: `load` says so. A saved program has the shapes it was traced with: calls with
other input shapes raise (load has no Python code to trace again).
"""
import io
import json
import os
import zipfile

import jax
from jax import export as jax_export

from .._dtype import _dtype_by_name
from ..nn.parameter import Parameter
from ._program import Entry, from_json, hashable, run, template, to_json

__all__ = ["save_program", "load_program"]

FORMAT = "torchshim.jit/1"
_MARKER = "torchshim_jit.json"
_TS_NOTE = ("is a TorchScript archive written by PyTorch (TorchScript IR). torchshim has no TorchScript "
            "interpreter and cannot load it: save the weights in PyTorch with torch.save(model.state_dict(), "
            "f), load them into the same nn.Module under torchshim (torch.load + load_state_dict), and trace "
            "that with torchshim's torch.jit.trace if you need a saved program.")
_NOT_ZIP = ("PytorchStreamReader failed reading zip archive: failed finding central directory. This is an "
            "internal miniz error. If you are seeing this error, there is a high likelihood that "
            "your checkpoint "
            "file is corrupted. This can happen if the checkpoint was not saved properly, was transferred "
            "incorrectly, or the file was modified after saving.")
_NO_CONSTANTS = ("PytorchStreamReader failed locating file constants.pkl: file not found. This is "
                 "an internal "
                 "miniz error. If you are seeing this error, there is a high likelihood that your "
                 "checkpoint file "
                 "is corrupted. This can happen if the checkpoint was not saved properly, was transferred "
                 "incorrectly, or the file was modified after saving.")


def _export(obj, entry):
    """The `jax.export` of `entry`, traced with the module's `training` flags of the entry's signature."""
    prog = obj._jit_program
    flags = entry.key[3]
    mods = list(prog.module.modules()) if prog.module is not None else []
    old = [m.training for m in mods]
    for m, f in zip(mods, flags):
        m.training = f
    try:
        return jax_export.export(jax.jit(entry.pure))(*entry.specs)
    finally:
        for m, f in zip(mods, old):
            m.training = f


def save_program(obj, f, extra_files=None):
    """Write `obj` (a traced or scripted module or function) to `f` (a path or a writable binary file)."""
    from ..serialization import save
    entry = obj._jit_entry()
    if entry.pure is None:
        raise RuntimeError("torch.jit.save: this module was loaded from an archive; save it with "
                           "its original "
                           "file, or trace the module again")
    prog = obj._jit_program
    exported = _export(obj, entry)
    meta, mi = entry.meta, entry.meta_in
    is_module = prog.module is not None
    info = {
        "format": FORMAT, "kind": "module" if is_module else "function", "name": prog.name,
        "original_name": obj.__dict__.get("original_name", prog.name),
        "state_names": mi["names"], "in_template": to_json(mi["in_template"]),
        "inputs": [[s.shape, str(dt).split(".")[-1]] for s, (dt, _) in zip(entry.specs[1], mi["in_meta"])],
        "out_template": to_json(meta["out_template"]),
        "out_dtypes": [str(dt).split(".")[-1] for dt, _ in meta["out_meta"]],
        "written": meta["written"], "in_written": meta["in_written"], "draws": meta["draws"],
        "float_idx": meta["float_idx"], "training": bool(getattr(obj, "training", False)),
    }
    state = {"parameters": {}, "buffers": {}, "persistent": []}
    if is_module:
        state["parameters"] = dict(prog.module.named_parameters())
        state["buffers"] = {n: b for n, b in prog.module.named_buffers() if b is not None}
        state["persistent"] = [n for n in prog.module.state_dict(keep_vars=True) if n in state["buffers"]]
    buf = io.BytesIO()
    save(state, buf)
    root = "archive"
    with _open(f, "wb") as fh, zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{root}/{_MARKER}", json.dumps(info))
        z.writestr(f"{root}/program.bin", bytes(exported.serialize(vjp_order=1)))
        z.writestr(f"{root}/state.pt", buf.getvalue())
        for name, content in (extra_files or {}).items():
            z.writestr(f"{root}/extra/{name}", content.encode() if isinstance(content, str) else content)


class _open:
    """A path or an open binary file, as a context manager (files passed in are not closed)."""

    def __init__(self, f, mode):
        self.f, self.mode, self.own = f, mode, isinstance(f, (str, os.PathLike))

    def __enter__(self):
        self.fh = open(self.f, self.mode) if self.own else self.f  # noqa: SIM115
        return self.fh

    def __exit__(self, *exc):
        if self.own:
            self.fh.close()
        return False


def load_program(f, map_location=None, extra_files=None):
    """Read an archive written by `save_program`; returns a `RecursiveScriptModule` running its program."""
    from ..serialization import load
    with _open(f, "rb") as fh:
        data = fh.read()
    if not zipfile.is_zipfile(io.BytesIO(data)):
        from ..serialization._zip import ZipReader
        ZipReader(io.BytesIO(data))  # raises PyTorch's reader error for this file
        raise RuntimeError(_NOT_ZIP)
    z = zipfile.ZipFile(io.BytesIO(data))
    names = z.namelist()
    marker = [n for n in names if n.endswith("/" + _MARKER)]
    if not marker:
        if any(n.endswith("/constants.pkl") for n in names) or any("/code/" in n for n in names):
            where = f if isinstance(f, (str, os.PathLike)) else "this file"
            raise RuntimeError(f"torch.jit.load: {where} {_TS_NOTE}")
        raise RuntimeError(_NO_CONSTANTS)
    root = marker[0][: -len(_MARKER) - 1]
    info = json.loads(z.read(marker[0]))
    if info.get("format") != FORMAT:
        raise RuntimeError(f"torch.jit.load: unknown torchshim program format {info.get('format')!r}")
    exported = jax_export.deserialize(bytearray(z.read(f"{root}/program.bin")))
    state = load(io.BytesIO(z.read(f"{root}/state.pt")), map_location=map_location, weights_only=False)
    if extra_files is not None:
        for name in list(extra_files):
            path = f"{root}/extra/{name}"
            extra_files[name] = z.read(path).decode() if path in names else ""
    return _loaded_module(info, exported, state)


def _child(root, dotted):
    from ._script import RecursiveScriptModule
    mod = root
    for part in dotted.split(".")[:-1]:
        sub = mod._modules.get(part)
        if sub is None:
            sub = RecursiveScriptModule()
            sub.__dict__["original_name"] = part
            mod.add_module(part, sub)
        mod = sub
    return mod, dotted.split(".")[-1]


class _LoadedProgram:
    """The program of a loaded archive: same interface as `_program.Program` for ScriptModule."""

    mode = "trace"
    last = None

    def __init__(self, info, exported, module):
        from .. import _api
        self.name = info["original_name"]
        self.module = module
        self.info = info
        self.exported = exported
        e = Entry()
        e.key = None
        e.pure = None
        call = exported.call
        e.compiled = jax.jit(call)
        e.jaxpr = None
        e.text = exported.mlir_module()
        e.meta = dict(out_template=from_json(info["out_template"]), written=info["written"],
                      in_written=info["in_written"], draws=info["draws"], float_idx=info["float_idx"],
                      out_meta=[(_dtype_by_name(d), _api.device("cpu")) for d in info["out_dtypes"]])
        e.meta_in = dict(names=info["state_names"], in_template=from_json(info["in_template"]),
                         in_meta=[(_dtype_by_name(d), _api.device("cpu")) for _, d in info["inputs"]])
        self.entry = self.example = e
        self._pure_call = call

    def __call__(self, *args, **kwargs):
        ins = []
        tmpl = template((tuple(args), dict(kwargs)), ins)
        e = self.entry
        want = [(tuple(s), d) for s, d in self.info["inputs"]]
        got = [(tuple(t.shape), str(t.dtype).split(".")[-1]) for t in ins]
        if hashable(tmpl) != hashable(e.meta_in["in_template"]) or want != got:
            raise RuntimeError(f"torch.jit.load (torchshim): this saved program of {self.name} takes inputs "
                               f"{want}; it was called with {got}. A saved program has the shapes "
                               f"it was traced "
                               "with: trace the module again for other shapes.")
        params = dict(self.module.named_parameters()) if self.module is not None else {}
        params.update(dict(self.module.named_buffers()) if self.module is not None else {})
        state = [params[n] for n in self.info["state_names"]]
        e.pure = self._pure_call
        try:
            return run(e, [t._storage for t in state], state, ins)
        finally:
            e.pure = None


def _loaded_module(info, exported, state):
    from ._script import RecursiveScriptModule
    m = RecursiveScriptModule()
    m.__dict__["original_name"] = info["original_name"]
    for name, p in state["parameters"].items():
        owner, leaf = _child(m, name)
        owner.register_parameter(leaf, p if isinstance(p, Parameter) else Parameter(p))
    for name, b in state["buffers"].items():
        owner, leaf = _child(m, name)
        owner.register_buffer(leaf, b, persistent=name in state["persistent"])
    m.train(info["training"])
    m.__dict__["_jit_program"] = _LoadedProgram(info, exported, m)
    return m


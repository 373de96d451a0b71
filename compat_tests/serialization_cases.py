"""Checkpoint contents for the save/load tests, built the same way with T = torch and T = torchshim, and a
structural comparison of what the two libraries loaded.

`CASES[name](T)` returns an object to save; values come from seeded numpy data, so both libraries build
equal objects. `assert_same(shim_obj, torch_obj)` compares recursively: container types and key order,
tensor class, dtype, shape, strides, storage offset, requires_grad, conj bit, Python attributes and exact
values (bit patterns: NaN equals NaN), and which tensors share storage.
"""
import collections

import numpy as np
import torch

import torchshim


def _rng(seed=0):
    return np.random.default_rng(seed)


def _t(T, arr, dtype=None, **kw):
    return T.tensor(arr, dtype=getattr(T, dtype) if dtype else None, **kw)


def model_state(T):
    """state_dict of a small model (Linear, Conv2d, BatchNorm2d with its int64 counter, Embedding,
    LayerNorm)."""
    rng = _rng(1)
    m = T.nn.Sequential(T.nn.Conv2d(2, 3, 3), T.nn.BatchNorm2d(3), T.nn.Flatten(), T.nn.Linear(12, 4),
                        T.nn.LayerNorm(4))
    m.add_module("emb", T.nn.Embedding(5, 2))
    with T.no_grad():
        for p in list(m.parameters()) + [m[1].running_mean, m[1].running_var]:
            p.copy_(_t(T, rng.standard_normal(tuple(p.shape)).astype(np.float32)))
        m[1].num_batches_tracked.fill_(7)
    return m.state_dict()


def optimizer_state(T):
    """An Adam-like optimizer state_dict: per-param 'step' tensors, moments, param_groups of Python values."""
    rng = _rng(2)
    state = {i: {"step": T.tensor(float(3 + i)),
                 "exp_avg": _t(T, rng.standard_normal((2, 3)).astype(np.float32)),
                 "exp_avg_sq": _t(T, rng.random((2, 3)).astype(np.float32))} for i in range(2)}
    groups = [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0, "amsgrad": False,
               "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
               "fused": None, "params": [0, 1]}]
    return {"state": state, "param_groups": groups}


def nested(T):
    """Dicts, lists, tuples, sets and Python scalars around tensors."""
    rng = _rng(3)
    a = _t(T, rng.standard_normal(3))
    return {"list": [a, (_t(T, [1, 2, 3]), {"none": None, "float": 1.5, "str": "s", "bytes": b"\x00\x01"})],
            "tuple": (1, 2.0, True), "set": {3, 1, 2}, "complex": complex(1, -2), "big": 2 ** 70,
            "same_twice": [a, a], "od": collections.OrderedDict([("z", 1), ("a", _t(T, [0.5]))])}


def shared_views(T):
    """Views of one storage (rows, columns, transpose, strided slices, a flat view) and an unrelated
    tensor."""
    x = _t(T, _rng(4).standard_normal((4, 6)).astype(np.float32))
    return {"x": x, "row": x[1], "col": x[:, 2], "t": x.t(), "slice": x[1:3, ::2], "flat": x.view(-1),
            "other": T.ones(2), "y_first": x[2:, 1:]}


def view_before_base(T):
    """A view saved before the tensor it views (the storage is first met through the view)."""
    x = _t(T, np.arange(12, dtype=np.float32).reshape(3, 4))
    return [x[1:, 2:], x]


_DTYPE_VALUES = {
    "float32": lambda r: r.standard_normal(5).astype(np.float32),
    "float64": lambda r: r.standard_normal(5),
    "float16": lambda r: r.standard_normal(5).astype(np.float16),
    "bfloat16": lambda r: r.standard_normal(5).astype(np.float32),
    "complex64": lambda r: (r.standard_normal(5) + 1j * r.standard_normal(5)).astype(np.complex64),
    "complex128": lambda r: r.standard_normal(5) + 1j * r.standard_normal(5),
    "uint8": lambda r: r.integers(0, 256, 5).astype(np.uint8),
    "int8": lambda r: r.integers(-128, 128, 5).astype(np.int8),
    "int16": lambda r: r.integers(-2 ** 15, 2 ** 15, 5).astype(np.int16),
    "int32": lambda r: r.integers(-2 ** 31, 2 ** 31, 5).astype(np.int32),
    "int64": lambda r: r.integers(-2 ** 62, 2 ** 62, 5),
    "bool": lambda r: r.random(5) < 0.5,
    "uint16": lambda r: r.integers(0, 2 ** 16, 5).astype(np.uint16),
    "uint32": lambda r: r.integers(0, 2 ** 32, 5).astype(np.uint32),
    "uint64": lambda r: r.integers(0, 2 ** 63, 5).astype(np.uint64),
    "float8_e4m3fn": lambda r: r.standard_normal(5).astype(np.float32),
    "float8_e5m2": lambda r: r.standard_normal(5).astype(np.float32),
}
DTYPES = tuple(_DTYPE_VALUES)


def all_dtypes(T):
    """One tensor of every dtype both libraries have (bfloat16/float8 rounded from float32 values)."""
    rng = _rng(5)
    out = {}
    for name, make in _DTYPE_VALUES.items():
        arr = make(rng)
        if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
            out[name] = T.tensor(arr).to(getattr(T, name))
        else:
            out[name] = _t(T, arr, name)
    out["nan_inf"] = T.tensor([float("nan"), float("inf"), -float("inf"), -0.0])
    return out


def shapes(T):
    """0-dim, empty, zero-size middle dims, non-contiguous (transposed, stepped, expanded), channels_last."""
    rng = _rng(6)
    base = _t(T, rng.standard_normal((2, 3, 4, 5)).astype(np.float32))
    return {"scalar": T.tensor(2.5), "int_scalar": T.tensor(7), "empty": T.zeros(0), "empty2d": T.zeros(0, 3),
            "zero_mid": T.ones(2, 0, 4), "transposed": base[0].transpose(0, 2), "stepped": base[:, ::2, 1::3],
            "expanded": T.tensor([1.0, 2.0]).expand(3, 2), "channels_last":
            base.contiguous(memory_format=T.channels_last), "offset_scalar": base[1, 2, 3, 4]}


def autograd_flags(T):
    """requires_grad leaves, a Parameter with requires_grad=False, a tensor that needs grad via history."""
    leaf = T.ones(3, requires_grad=True)
    return {"leaf": leaf, "param": T.nn.Parameter(T.ones(2)), "frozen": T.nn.Parameter(T.zeros(2),
            requires_grad=False), "nonleaf": (leaf * 2).detach().requires_grad_(), "plain": T.ones(1)}


def python_objects(T):
    """torch.Size, devices, dtypes and layouts as values."""
    return {"size": T.Size([2, 3]), "empty_size": T.Size([]), "cpu": T.device("cpu"),
            "cuda1": T.device("cuda", 1),
            "cuda": T.device("cuda"), "dtypes": [T.float32, T.bfloat16, T.int64, T.bool, T.uint16],
            "layout": T.strided}


def conj_and_real_views(T):
    """A lazily conjugated complex tensor and a real view of another complex tensor."""
    rng = _rng(7)
    c = _t(T, (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64))
    d = _t(T, (rng.standard_normal(2) + 1j * rng.standard_normal(2)).astype(np.complex128))
    return {"conj": c.conj(), "real_view": T.view_as_real(d)}


def tensor_attributes(T):
    """A tensor with a Python attribute (saved through _rebuild_from_type_v2)."""
    t = T.ones(2)
    t.note = "hello"
    return {"t": t}


CASES = {f.__name__: f for f in (model_state, optimizer_state, nested, shared_views, view_before_base,
                                  all_dtypes, shapes, autograd_flags, python_objects, conj_and_real_views,
                                  tensor_attributes)}


# ---- comparison ------------------------------------------------------------------------------------------
def _values(t, lib):
    t = t.detach()
    if lib is torch:
        t = t.resolve_conj()
        if t.dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
            t = t.float()
        return t.numpy()
    t = t.resolve_conj()
    if t.dtype in (torchshim.bfloat16, torchshim.float8_e4m3fn, torchshim.float8_e5m2):
        t = t.float()
    return np.asarray(t.numpy())


def _tensors(obj, out):
    """Every tensor in `obj`, in traversal order."""
    if isinstance(obj, (torch.Tensor, torchshim.Tensor)):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _tensors(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _tensors(v, out)
    return out


def _sharing(tensors, lib):
    """Which pairs share a storage (empty storages share nothing: PyTorch gives them all data_ptr 0)."""
    ptrs = [t.untyped_storage().data_ptr() if t.untyped_storage().nbytes() else None for t in tensors]
    return [[a is not None and a == b for b in ptrs] for a in ptrs]


def assert_same(shim_obj, torch_obj, path="obj"):
    """Raise AssertionError at the first difference between a torchshim-loaded and a torch-loaded object."""
    _same(shim_obj, torch_obj, path)
    ts_t, th_t = _tensors(shim_obj, []), _tensors(torch_obj, [])
    assert _sharing(ts_t, torchshim) == _sharing(th_t, torch), f"{path}: storage sharing differs"


def _same(a, b, path):
    if isinstance(b, torch.Tensor):
        assert isinstance(a, torchshim.Tensor), f"{path}: {type(a)} is not a tensor"
        assert type(a).__name__ == type(b).__name__, f"{path}: {type(a).__name__} vs {type(b).__name__}"
        assert str(a.dtype) == str(b.dtype), f"{path}: dtype {a.dtype} vs {b.dtype}"
        assert tuple(a.shape) == tuple(b.shape), f"{path}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
        assert a.stride() == b.stride(), f"{path}: stride {a.stride()} vs {b.stride()}"
        assert a.storage_offset() == b.storage_offset(), f"{path}: storage offset"
        assert a.requires_grad == b.requires_grad, f"{path}: requires_grad"
        assert a.is_conj() == b.is_conj(), f"{path}: conj bit"
        assert a.untyped_storage().nbytes() == b.untyped_storage().nbytes(), f"{path}: storage size"
        np.testing.assert_array_equal(_values(a, torchshim), _values(b, torch), err_msg=path)
        assert set(a.__dict__) == set(b.__dict__), f"{path}: attributes {a.__dict__} vs {b.__dict__}"
        for k in b.__dict__:
            _same(a.__dict__[k], b.__dict__[k], f"{path}.{k}")
        return
    if isinstance(b, (torch.Size, torch.device, torch.dtype, torch.layout)):
        assert type(a).__name__ == type(b).__name__ and str(a) == str(b), f"{path}: {a!r} vs {b!r}"
        return
    assert type(a) is type(b), f"{path}: type {type(a)} vs {type(b)}"
    if isinstance(b, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} vs {list(b)}"
        for k in b:
            _same(a[k], b[k], f"{path}[{k!r}]")
        if hasattr(b, "_metadata"):
            assert a._metadata == b._metadata, f"{path}: _metadata"
    elif isinstance(b, (list, tuple)):
        assert len(a) == len(b), f"{path}: length"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]")
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"

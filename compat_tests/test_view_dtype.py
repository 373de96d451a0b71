"""`Tensor.view(dtype)` as an alias of its input's storage: writes through either side are seen by the other,
for same-size, smaller and larger element types, strided and offset inputs, complex and bool dtypes, and
through complex views of a reinterpreted storage; its geometry, errors, version counter and autograd status
(never a differentiable view) against real PyTorch. Each case returns plain Python values, compared exactly
(floats through their bit patterns where NaN could appear)."""
import io

import pytest
import torch

import torchshim

LIBS = (torch, torchshim)


def outcome(case, T):
    try:
        return ("ok", case(T))
    except Exception as e:  # noqa: BLE001  (the exception is the result compared)
        return ("raise", type(e).__name__, str(e))


def same(case):
    ref, got = (outcome(case, T) for T in LIBS)
    assert got == ref
    return ref


def geom(t):
    return (tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype).rpartition(".")[2])


ALIASES = {
    # float32 -> int32 (same size): write the int side, then the float side
    "same_size": lambda T: _roundtrip(T, T.arange(6, dtype=T.float32).reshape(2, 3), T.int32,
                                      lambda v: v[1].fill_(1065353216), lambda x: x[0, 0].fill_(-2.5)),
    # float32 -> int16 (smaller): halves of one float
    "smaller": lambda T: _roundtrip(T, T.arange(6, dtype=T.float32).reshape(2, 3), T.int16,
                                    lambda v: v[:, 1::2].fill_(16512), lambda x: x[1].add_(1)),
    # float32 -> float64 (larger) over an offset slice of a matrix
    "larger_offset": lambda T: _roundtrip(T, T.arange(8, dtype=T.float32).reshape(2, 4)[:, 2:], T.float64,
                                          lambda v: v.mul_(2), lambda x: x.sub_(1)),
    # int64 -> uint8 then back through a slice of the bytes
    "bytes": lambda T: _roundtrip(T, T.arange(3, dtype=T.int64) * 300, T.uint8,
                                  lambda v: v[::8].fill_(7), lambda x: x.neg_()),
    "float16_bfloat16": lambda T: _roundtrip(T, T.linspace(-2, 2, 6, dtype=T.float16), T.bfloat16,
                                             lambda v: v[2].fill_(3.0), lambda x: x[0].fill_(0.5)),
    "complex_to_float64": lambda T: _roundtrip(T, T.tensor([1 + 2j, -3 + 0.5j], dtype=T.complex64), T.float64,
                                               lambda v: v[1].fill_(1.0), lambda x: x[0].fill_(2 - 1j)),
    "float_to_complex128": lambda T: _roundtrip(T, T.arange(8, dtype=T.float32), T.complex128,
                                                lambda v: v[0].fill_(1 + 1j), lambda x: x[7].fill_(9.0)),
    "int32_to_complex64": lambda T: _roundtrip(T, T.arange(4, dtype=T.int32), T.complex64,
                                               lambda v: v[1].fill_(0.5 - 2j), lambda x: x[0].fill_(3)),
    "bool_to_int16": lambda T: _roundtrip(T, T.tensor([True, False, False, True]), T.int16,
                                          lambda v: v[0].fill_(256), lambda x: x[3].fill_(False)),
    "uint8_to_bool": lambda T: _roundtrip(T, T.tensor([0, 1, 0, 1], dtype=T.uint8), T.bool,
                                          lambda v: v[0].fill_(True), lambda x: x[1].fill_(0)),
}


def _bits(T, t):
    """The tensor's values as exact Python values (floats via their integer bit patterns)."""
    if t.dtype.is_floating_point:
        width = {2: T.int16, 4: T.int32, 8: T.int64}[t.element_size()]
        return t.view(width).tolist()
    if t.dtype.is_complex:
        return _bits(T, T.view_as_real(t))
    return t.tolist()


def _roundtrip(T, x, dtype, write_view, write_base):
    v = x.view(dtype)
    out = [geom(v), _bits(T, v)]
    write_view(v)
    out += [_bits(T, x), x._version, v._version]
    write_base(x)
    out += [_bits(T, v), x._version, v._version]
    return out


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_writes_are_seen_by_both(name):
    same(ALIASES[name])


def test_complex_views_of_a_reinterpreted_storage():
    def case(T):
        i = T.arange(6, dtype=T.int32)
        c = i.view(T.complex64)
        c.real[0] = 1.0
        c.imag.mul_(0)
        r = T.view_as_real(c)
        r[2, 1] = -1.5
        return _bits(T, c), i.tolist(), geom(c.real), geom(r)
    same(case)


def test_view_of_a_view_dtype():
    def case(T):
        x = T.zeros(2, 4)
        b = x.view(T.uint8)
        b[1, 3::4] = 0x3F  # the sign/exponent byte of each float of row 1
        s = x.view(T.int16).t()
        s[1, 0] = 0x4000
        return x.tolist(), geom(b), geom(s), _bits(T, s.contiguous())
    same(case)


def test_same_dtype_is_a_new_alias():
    def case(T):
        x = T.arange(3.0)
        v = x.view(T.float32)
        v[0] = 5
        return v is x, x.tolist(), v._base is None, v.data_ptr() == x.data_ptr(), x._version
    same(case)


def test_not_differentiable():
    def case(T):
        x = T.arange(4.0, requires_grad=True)
        y = x * 2
        h = (x * 1).half()
        outs = [y.view(T.int32), y.view(T.float32), h.view(T.bfloat16), h.view(dtype=T.bfloat16)]
        flags = [(o.requires_grad, o.grad_fn is None, o._base is None, o.is_leaf) for o in outs]
        outs[0].add_(1)  # a write through the int view: y's history is untouched (PyTorch: no saved y)
        y.sum().backward()
        with T.no_grad():
            nog = x.view(T.int32)
        return flags, x.grad.tolist(), y._version, (nog.requires_grad, nog._base is None)
    same(case)


def test_saved_tensor_modified_through_view():
    def case(T):
        x = T.arange(1.0, 4.0, requires_grad=True)
        y = x * 1
        s = y.sin()
        y.view(T.int32).add_(1)
        s.sum().backward()
        return x.grad.tolist()
    same(case)


ERRORS = [
    lambda T: T.zeros(()).view(T.int16),
    lambda T: T.zeros(2, 4)[:, 1:3].view(T.float64),
    lambda T: T.zeros(4)[::2].view(T.float64),
    lambda T: T.zeros(4)[::2].view(T.int16),
    lambda T: T.zeros(3, dtype=T.bool).view(T.float16),
    lambda T: T.zeros(6).reshape(2, 3)[:, :2].view(T.float64),
    lambda T: T.zeros(3, dtype=T.complex64).view(T.complex128),
    lambda T: T.zeros(3, dtype=T.complex64).conj().view(T.complex64),
    lambda T: T.zeros(3, dtype=T.complex64).conj().imag.view(T.int32),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors(k):
    r = same(lambda T: geom(ERRORS[k](T)))
    assert r[0] == "raise"


GEOMS = [
    lambda T: T.zeros(2, 3)[:, 1:2].view(T.int16),
    lambda T: T.zeros(2, 4)[:, 2:4].view(T.float64),
    lambda T: T.zeros(0, 2).view(T.float64),
    lambda T: T.zeros(()).view(T.int32),
    lambda T: T.zeros(4)[::2].view(T.int32),
    lambda T: T.zeros(3, 4).t().view(T.int32),
    lambda T: T.zeros(3, dtype=T.complex64).view(T.int16),
]


@pytest.mark.parametrize("k", range(len(GEOMS)))
def test_geometry(k):
    r = same(lambda T: geom(GEOMS[k](T)))
    assert r[0] == "ok"


def test_save_load_a_reinterpreted_view():
    def case(T):
        x = T.arange(4, dtype=T.float32)
        v = x.view(T.int16)[2:]
        buf = io.BytesIO()
        T.save(v, buf)
        buf.seek(0)
        w = T.load(buf)
        buf = io.BytesIO()
        try:
            T.save([x, v], buf)
        except RuntimeError as e:
            err = str(e)
        return w.tolist(), geom(w), err
    same(case)

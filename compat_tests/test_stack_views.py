"""torch.stack / torch.cat of many views of one storage (`x[i]` for many i, what a DataLoader's
default_collate stacks): torchshim reads them in one kernel (`_view.read_many`) instead of one read per
view. Every layout a view can have (strided, transposed, expanded, past-the-end lattices, complex
components, lazy conj/neg, dtype bit views, 0-d elements) must give PyTorch's values, dtypes and gradients;
mixed storages and geometries take the general path."""
import pytest

from harness import Arg, check

PERM = [3, 0, 5, 5, 1, -1, 2, 4]  # repeats and a negative index on purpose


def _rows(x, perm=PERM):
    return [x[i] for i in perm]


@pytest.mark.parametrize("dim", [0, 1, -1, 3])
def test_stack_rows(dim):
    check(lambda T, x: T.stack(_rows(x), dim), [Arg((6, 3, 4))])


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_rows(dim):
    check(lambda T, x: T.cat(_rows(x), dim), [Arg((6, 3, 4))])


@pytest.mark.parametrize("layout", [
    lambda x: x.transpose(0, 2),          # rows of a transposed tensor: stride (1, ...)
    lambda x: x[::2],                     # strided outer dim
    lambda x: x[:, 1:, ::3],              # offset and strided inner dims
    lambda x: x[:, 2:, 3:],               # the last rows' lattice runs past the storage's end
    lambda x: x[:, :1].expand(-1, 5, -1),  # stride 0
    lambda x: x.unfold(2, 3, 1),          # overlapping (irregular: the gather path)
    lambda x: x.permute(1, 0, 2),
], ids=["transposed", "strided", "offset_strided", "past_end", "expanded", "unfold", "permuted"])
def test_stack_layouts(layout):
    def fn(T, x):
        v = layout(x)
        n = v.shape[0]
        return T.stack([v[i % n] for i in PERM], 1), T.cat([v[i % n] for i in PERM[::-1]], 0)
    check(fn, [Arg((6, 5, 7))])


@pytest.mark.parametrize("dtype", ["int64", "bool", "float64", "uint8"])
def test_stack_scalars(dtype):
    # 0-d elements of a 1-D tensor (the labels of a TensorDataset)
    check(lambda T, y: T.stack(_rows(y)), [Arg((6,), dtype, low=0, high=9)])


@pytest.mark.parametrize("view", [
    lambda T, c: c.real, lambda T, c: c.imag, lambda T, c: c.conj(), lambda T, c: T.view_as_real(c),
    lambda T, c: c.conj().imag, lambda T, c: T.view_as_real(c.conj_physical()),
], ids=["real", "imag", "conj", "view_as_real", "conj_imag", "conj_physical"])
def test_stack_complex_views(view):
    def fn(T, c):
        v = view(T, c)
        return T.stack(_rows(v), 0), T.cat(_rows(v), 1)
    check(fn, [Arg((6, 3, 2), "complex64")])


def test_stack_bit_view():
    check(lambda T, x: T.stack(_rows(x.view(T.int32))), [Arg((6, 4))])


def test_stack_same_tensor():
    check(lambda T, x: (T.stack([x, x, x], 1), T.cat([x, x], 0)), [Arg((3, 4))])


def test_mixed_falls_back():
    def fn(T, x, y):
        rows = _rows(x)
        return (T.stack(rows[:3] + [y[0]] + rows[3:]),           # another storage
                T.stack(rows + [x.transpose(0, 1)[0][:4].reshape(1, 4)[0].reshape(1, 4)]),  # other stride
                T.stack(rows + [x[0].double()]),                  # promotion
                T.cat(rows + [x[0][:0]], 0))                      # another shape
    check(fn, [Arg((6, 4)), Arg((2, 4))])


def test_stack_rows_grad():
    def fn(T, x):
        out = T.stack(_rows(x), 1)
        (out * T.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
        return out.detach(), x.grad, type(out.grad_fn).__name__
    check(fn, [Arg((6, 3), requires_grad=True)])


def test_cat_rows_grad():
    def fn(T, x):
        out = T.cat(_rows(x), 0)
        (out * T.arange(out.numel(), dtype=out.dtype)).sum().backward()
        return out.detach(), x.grad, type(out.grad_fn).__name__
    check(fn, [Arg((6, 3), requires_grad=True)])


def test_stack_out_and_errors():
    def fn(T, x):
        out = T.empty(0)
        T.stack(_rows(x), 0, out=out)
        return out
    check(fn, [Arg((6, 3))])
    check(lambda T, x: T.stack(_rows(x) + [x[0, :2]]), [Arg((6, 3))])
    check(lambda T, x: T.cat(_rows(x[:, 0]), 1), [Arg((6, 3))])


def test_rows_read_in_one_kernel(monkeypatch):
    # torchshim-only: the fast path is taken (no per-view read), and its result is the per-view one's
    import torchshim
    from torchshim import _view
    x = torchshim.arange(60.).reshape(5, 3, 4).transpose(1, 2)
    rows = _rows(x[:, 1:], [4, 0, 2, 2])
    expected = torchshim.stack([r.clone() for r in rows], 1)
    calls = []
    monkeypatch.setattr(_view, "read", lambda *a, **k: calls.append(a))
    got = torchshim.stack(rows, 1)
    assert not calls
    assert torchshim.equal(got, expected)

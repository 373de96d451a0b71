"""torchshim basics: ordinary PyTorch code, running on JAX.

Tensors, broadcasting, advanced indexing, in-place writes through views (slices, transpose, diagonal, view),
reductions and matmul, and PyTorch's type promotion. Run: `python examples/basics.py` (after `pip install .`).
Swap the import for `import torch` and the script prints the same values under real PyTorch.

`python examples/basics.py --compile` runs the computations below through `torch.compile`, each function
as one program, and prints the same values: the in-place writes a compiled function makes through views of
its argument land in the argument, as they do eagerly. The lines that read tensor values on the host
(boolean-mask reads, whose shape depends on the values, and `.tolist()`) stay outside compiled code: inside it
they would be graph breaks.
"""
import argparse

import torchshim as torch


def show(title, value):
    print(f"{title}:\n{value}\n")


def broadcast(x, row, col):
    return x + row, x * col - row


def gather(x):
    return x[[0, 2], [1, 3]], x[:, [0, 2]]


def negate_strided_slice(x):
    s = x[1:, ::2]  # a strided slice view
    s.mul_(-1)


def write_transposed(x):
    t = x.t()  # a transposed view
    t[0, 1] = 100.0


def diagonal_writes():
    y = torch.zeros(3, 3)
    d = y.diagonal()  # a view with stride 4 into y's storage
    d.fill_(7.0)
    d.add_(torch.tensor([1.0, 2.0, 3.0]))
    return y


def write_flat_view(y):
    flat = y.view(9)  # same storage, new shape
    flat[::4] = -1.0


def clamp_negative(x):
    x[x < 0] = 0.0  # a boolean mask write: the shape of x does not change


def write_indexed(x):
    x[torch.tensor([0, 2]), 0] = torch.tensor([5.0, 6.0])


def reductions(x):
    return (x.sum(), x.sum(dim=0)), torch.cat([x[:1], x[2:]], dim=0), x @ x.t()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compile", action="store_true", help="run the computations through torch.compile")
    args = parser.parse_args()
    run = torch.compile if args.compile else (lambda fn: fn)

    # --- Tensors --------------------------------------------------------------------------------------------
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    show("x = arange(12).reshape(3, 4)", x)
    print("shape", tuple(x.shape), "stride", x.stride(), "dtype", x.dtype, "device", x.device, "\n")

    # --- Broadcasting ---------------------------------------------------------------------------------------
    row = torch.tensor([10.0, 20.0, 30.0, 40.0])  # (4,)   -> broadcast over rows
    col = torch.tensor([[1.0], [2.0], [3.0]])  # (3, 1) -> broadcast over columns
    plus_row, times_col = run(broadcast)(x, row, col)
    show("x + row", plus_row)
    show("x * col - row", times_col)

    # --- Advanced indexing (reads) --------------------------------------------------------------------------
    paired, columns = run(gather)(x)
    show("x[[0, 2], [1, 3]]   (integer arrays, paired)", paired)
    show("x[:, [0, 2]]        (integer array on one dim)", columns)
    show("x[x > 5]            (boolean mask)", x[x > 5])  # its shape depends on the values: never compiled

    # --- In-place writes through views: every alias of the storage sees them --------------------------------
    run(negate_strided_slice)(x)
    show("after x[1:, ::2].mul_(-1)", x)

    run(write_transposed)(x)
    show("after x.t()[0, 1] = 100", x)

    y = run(diagonal_writes)()
    show("zeros(3, 3), diagonal().fill_(7).add_([1, 2, 3])", y)

    run(write_flat_view)(y)
    show("after y.view(9)[::4] = -1", y)

    # --- Advanced indexing (writes) -------------------------------------------------------------------------
    run(clamp_negative)(x)
    show("after x[x < 0] = 0", x)
    run(write_indexed)(x)
    show("after x[[0, 2], 0] = [5, 6]", x)
    print("x.tolist() ->", x.tolist(), "\n")

    # --- Reductions, concatenation, matrix products -------------------------------------------------------
    sums, joined, gram = run(reductions)(x)
    show("x.sum(), x.sum(dim=0)", sums)
    show("torch.cat([x[:1], x[2:]], dim=0)", joined)
    show("x @ x.t()", gram)

    # --- Type promotion (PyTorch's rules, not NumPy's) ------------------------------------------------------
    i64 = torch.tensor([1, 2, 3])
    print("int64 + 1.5            ->", (i64 + 1.5).dtype)  # python float -> default float dtype
    print("int64 / 2              ->", (i64 / 2).dtype)  # true division always floats
    print("int64 * float64 scalar ->", (i64 * torch.tensor(2.5, dtype=torch.float64)).dtype)  # 0-dim: float64
    print("uint8 + int8           ->",
          (torch.tensor([1], dtype=torch.uint8) + torch.tensor([1], dtype=torch.int8)).dtype)
    print("float16 + bfloat16     ->",
          (torch.tensor([1.0], dtype=torch.float16) + torch.tensor([1.0], dtype=torch.bfloat16)).dtype)
    print("promote_types(int32, float16) ->", torch.promote_types(torch.int32, torch.float16))
    print("bool + 1               ->", (torch.tensor([True]) + 1).dtype)
    try:
        i64.add_(1.5)  # in-place results must be castable to the tensor's own dtype
    except RuntimeError as e:
        print("int64.add_(1.5)        -> RuntimeError:", e)


if __name__ == "__main__":
    main()

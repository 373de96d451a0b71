"""Writes torchshim/quasirandom/_sobol_directions.npz, the Sobol' direction numbers of
`torch.quasirandom.SobolEngine` (run once; the file is committed and shipped as package data).

The numbers are Joe & Kuo's (new-joe-kuo-6.21201, search criterion D(6), 21201 dimensions), the set PyTorch's
engine uses. They are taken from the copy SciPy bundles (`scipy/stats/_sobol_direction_numbers.npz`, BSD
licence: `poly`, the primitive polynomial of each dimension with its leading and trailing terms, and `vinit`,
its initial direction integers m_1..m_s). SciPy is needed here only, never at run time.

Stored compactly (about 370 kB instead of SciPy's 590 kB or 1.8 MB for the whole 30-bit table):
- `poly_delta` (uint16, one per dimension): the differences of consecutive polynomials (they increase);
- `m_bits` (uint8, `np.packbits`): for each dimension d >= 1 and k = 1..s (s = the polynomial's degree), the
  initial direction integer m_k without its lowest bit (m_k is odd and below 2^k), in k - 1 bits, most
  significant first; dimension 0 (all m_k = 1) stores nothing.
torchshim/quasirandom/_directions.py decodes it and builds the 30-bit table. Before writing, this script
checks that the decoded table equals the one real PyTorch (if installed) builds, for all 21201 dimensions.

Usage: python tools/make_sobol_directions.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "..", "torchshim", "quasirandom", "_sobol_directions.npz")


def scipy_numbers():
    import scipy.stats
    path = os.path.join(os.path.dirname(scipy.stats.__file__), "_sobol_direction_numbers.npz")
    with np.load(path) as z:
        return z["poly"].astype(np.int64), z["vinit"].astype(np.int64)


def pack(poly, vinit):
    degrees = [int(p).bit_length() - 1 for p in poly]
    degrees[0] = 0
    bits = []
    for d in range(1, len(poly)):
        for k in range(1, degrees[d] + 1):
            m = int(vinit[d, k - 1])
            assert m % 2 == 1 and m < 2 ** k, (d, k, m)
            bits.extend(((m >> 1) >> (k - 2 - j)) & 1 for j in range(k - 1))
    delta = np.diff(poly, prepend=0)
    assert delta.min() > 0 and delta.max() < 2 ** 16
    return {"poly_delta": delta.astype(np.uint16), "m_bits": np.packbits(np.array(bits, dtype=np.uint8))}


def main():
    sys.path.insert(0, os.path.join(HERE, ".."))
    from torchshim.quasirandom import _directions

    poly, vinit = scipy_numbers()
    data = pack(poly, vinit)
    table = _directions.build_table(*_directions.decode(data["poly_delta"], data["m_bits"]))
    try:
        import torch
    except ImportError:
        print("torch not installed: the table is not checked against PyTorch's")
    else:
        ref = torch.zeros(len(poly), 30, dtype=torch.long)
        torch._sobol_engine_initialize_state_(ref, len(poly))
        assert np.array_equal(ref.numpy(), table), "decoded table differs from PyTorch's"
        print("decoded table equals PyTorch's for all", len(poly), "dimensions")
    np.savez_compressed(TARGET, **data)
    print("wrote", os.path.normpath(TARGET), os.path.getsize(TARGET), "bytes")


if __name__ == "__main__":
    main()

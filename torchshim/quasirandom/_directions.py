"""The Sobol' direction numbers of `SobolEngine`: Joe & Kuo's new-joe-kuo-6.21201 set (search criterion D(6),
21201 dimensions), as PyTorch's engine uses, read from the package data file `_sobol_directions.npz`
(written once by tools/make_sobol_directions.py, which documents its layout and source).

`table(n)` is the (n, 30) int64 table of the first n dimensions: row d holds dimension d's direction numbers
v_1..v_30 as 30-bit integers, v_j = m_j * 2^(30 - j), the same values as PyTorch's `sobolstate`."""
import os

import numpy as np

MAXBIT = 30
MAXDIM = 21201
_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_sobol_directions.npz")
_DECODED = []  # (poly, m) once read


def decode(poly_delta, m_bits):
    """(poly, m) from the stored arrays: poly[d] the primitive polynomial of dimension d (leading and trailing
    terms included; degree s_d = poly[d].bit_length() - 1, 0 for d = 0), m[d, :s_d] its initial direction
    integers m_1..m_s (zero beyond)."""
    poly = np.cumsum(poly_delta.astype(np.int64))
    degrees = _degrees(poly)
    first = np.cumsum(degrees) - degrees  # index of each dimension's m_1 in the flat list
    total = int(degrees.sum())
    k = np.arange(total, dtype=np.int64) - np.repeat(first, degrees)  # k - 1 for each stored m_k
    starts = np.cumsum(k) - k  # its first bit in the stream (m_k takes k - 1 bits)
    nbits = int(k.sum())
    bits = np.unpackbits(m_bits)[:nbits].astype(np.int64)
    exponent = np.repeat(k + starts - 1, k) - np.arange(nbits, dtype=np.int64)  # most significant first
    values = np.zeros(total, dtype=np.int64)
    some = k > 0  # m_1 = 1 has no stored bit
    values[some] = np.add.reduceat(bits << exponent, starts[some])
    m = np.zeros((len(poly), int(degrees.max())), dtype=np.int64)
    m[np.repeat(np.arange(len(poly)), degrees), k] = (values << 1) | 1
    return poly, m


def _degrees(poly):
    degrees = np.floor(np.log2(poly)).astype(np.int64)  # exact: poly < 2^19
    degrees[0] = 0
    return degrees


def build_table(poly, m):
    """The (len(poly), MAXBIT) table of 30-bit direction numbers from the polynomials and initial integers:
    Bratley & Fox's recurrence m_j = 2 a_1 m_{j-1} ^ 4 a_2 m_{j-2} ^ ... ^ 2^s m_{j-s} ^ m_{j-s}, where
    x^s + a_1 x^(s-1) + ... + a_(s-1) x + 1 is the polynomial; dimension 0 has every m_j = 1."""
    n = len(poly)
    mm = np.ones((n, MAXBIT), dtype=np.int64)
    degrees = _degrees(poly)
    for s in np.unique(degrees[1:]):
        rows = np.nonzero(degrees == s)[0]
        mm[rows, :s] = m[rows, :s]
        p = poly[rows]
        for j in range(s, MAXBIT):
            new = mm[rows, j - s] ^ (mm[rows, j - s] << s)
            for k in range(1, s):
                a_k = (p >> (s - k)) & 1
                new ^= a_k * (mm[rows, j - k] << k)
            mm[rows, j] = new
    return mm << (MAXBIT - 1 - np.arange(MAXBIT, dtype=np.int64))


def table(dimension):
    """The (dimension, MAXBIT) int64 table of the first `dimension` dimensions' direction numbers (the package
    data is read and decoded on first use)."""
    if not _DECODED:
        with np.load(_FILE) as z:
            _DECODED.append(decode(z["poly_delta"], z["m_bits"]))
    poly, m = _DECODED[0]
    return build_table(poly[:dimension], m[:dimension])

"""`torch.return_types`: the named result tuples of max/min/sort/topk/... (PyTorch's structseq types).

Each type is a tuple subclass with named fields, constructed from one sequence like a structseq:
`torch.return_types.max((values, indices))`; repr `torch.return_types.max(\\nvalues=...,\\nindices=...)`.
Attributes `n_fields`, `n_sequence_fields`, `n_unnamed_fields` as in PyTorch.

Difference: these types also have `_fields` (like `collections.namedtuple`); PyTorch's structseqs don't.
"""
from operator import itemgetter

__all__ = ["max", "min", "median", "nanmedian", "mode", "kthvalue", "cummax", "cummin", "sort", "topk",
           "aminmax", "frexp", "histogram", "triangular_solve", "slogdet", "svd", "qr", "geqrf", "lu_unpack",
           "_lu_with_info", "linalg_cholesky_ex", "linalg_qr", "linalg_svd", "linalg_eig", "linalg_eigh",
           "linalg_inv_ex", "linalg_lu", "linalg_lu_factor", "linalg_lu_factor_ex", "linalg_solve_ex",
           "linalg_lstsq", "linalg_slogdet", "linalg_ldl_factor", "linalg_ldl_factor_ex",
           "histogramdd"]


class _StructSeq(tuple):
    __slots__ = ()
    _fields = ()
    n_fields = n_sequence_fields = 0
    n_unnamed_fields = 0

    def __new__(cls, sequence=(), dict=None):
        seq = tuple(sequence)
        n = len(cls._fields)
        if len(seq) != n:
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {n}-sequence ({len(seq)}-sequence "
                            f"given)")
        return super().__new__(cls, seq)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))

    def _asdict(self):
        return dict(zip(self._fields, self))


def _make(name, fields):
    n = len(fields)
    ns = {"__slots__": (), "_fields": tuple(fields), "n_fields": n, "n_sequence_fields": n,
          "__module__": __name__, "__qualname__": name,
          "__doc__": f"`torch.return_types.{name}`: ({', '.join(fields)})."}
    for i, f in enumerate(fields):
        ns[f] = property(itemgetter(i), doc=f"Alias for field number {i}")
    return type(name, (_StructSeq,), ns)


_VI = ("values", "indices")
max = _make("max", _VI)  # noqa: A001
min = _make("min", _VI)  # noqa: A001
median = _make("median", _VI)
nanmedian = _make("nanmedian", _VI)
mode = _make("mode", _VI)
kthvalue = _make("kthvalue", _VI)
cummax = _make("cummax", _VI)
cummin = _make("cummin", _VI)
sort = _make("sort", _VI)
topk = _make("topk", _VI)
aminmax = _make("aminmax", ("min", "max"))
frexp = _make("frexp", ("mantissa", "exponent"))
histogram = _make("histogram", ("hist", "bin_edges"))
histogramdd = _make("histogramdd", ("hist", "bin_edges"))
triangular_solve = _make("triangular_solve", ("solution", "cloned_coefficient"))

# linear algebra (torch.linalg and the older top-level spellings)
slogdet = _make("slogdet", ("sign", "logabsdet"))
svd = _make("svd", ("U", "S", "V"))
qr = _make("qr", ("Q", "R"))
geqrf = _make("geqrf", ("a", "tau"))
lu_unpack = _make("lu_unpack", ("P", "L", "U"))
_lu_with_info = _make("_lu_with_info", ("LU", "pivots", "info"))
linalg_cholesky_ex = _make("linalg_cholesky_ex", ("L", "info"))
linalg_qr = _make("linalg_qr", ("Q", "R"))
linalg_svd = _make("linalg_svd", ("U", "S", "Vh"))
linalg_eig = _make("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_eigh = _make("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_inv_ex = _make("linalg_inv_ex", ("inverse", "info"))
linalg_lu = _make("linalg_lu", ("P", "L", "U"))
linalg_lu_factor = _make("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _make("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_solve_ex = _make("linalg_solve_ex", ("result", "info"))
linalg_lstsq = _make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_slogdet = _make("linalg_slogdet", ("sign", "logabsdet"))
linalg_ldl_factor = _make("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = _make("linalg_ldl_factor_ex", ("LD", "pivots", "info"))

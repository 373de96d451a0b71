"""`torch.return_types`: the named result tuples of max/min/sort/topk/... (PyTorch's structseq types).

Each type is a tuple subclass with named fields, constructed from one sequence like a structseq:
`torch.return_types.max((values, indices))`; repr `torch.return_types.max(\\nvalues=...,\\nindices=...)`.
Attributes `n_fields`, `n_sequence_fields`, `n_unnamed_fields` as in PyTorch.

Difference: these types also have `_fields` (like `collections.namedtuple`); PyTorch's structseqs don't.
"""
from operator import itemgetter

__all__ = ["max", "min", "median", "nanmedian", "mode", "kthvalue", "cummax", "cummin", "sort", "topk",
           "aminmax", "frexp", "histogram", "triangular_solve"]


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
triangular_solve = _make("triangular_solve", ("solution", "cloned_coefficient"))

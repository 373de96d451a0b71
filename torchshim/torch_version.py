"""`torch.torch_version.TorchVersion`: a `str` that compares as a PEP 440 version, also against strings
and tuples (`torch.__version__ >= (2, 1)`, `torch.__version__ < "2.14"`).

Difference: PyTorch compares with its vendored `packaging.version.Version`; torchshim parses PEP 440 itself
(the same ordering: epoch, release, pre, post, dev, local). A string that is not a version is compared as a
string, as PyTorch does.
"""
import re

__all__ = ["TorchVersion"]

# PEP 440's canonical pattern (the specification's appendix), case-insensitive, surrounding spaces allowed
_PATTERN = re.compile(r"""^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""", re.VERBOSE | re.IGNORECASE)
_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "rc": "rc", "pre": "rc", "preview": "rc"}
_INF, _NEG_INF = (1, ()), (-1, ())  # sort above / below every real segment


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


def _key(text):
    """The sort key of a PEP 440 version string."""
    m = _PATTERN.match(text)
    if m is None:
        raise InvalidVersion(f"Invalid version: {text!r}")
    release = [int(p) for p in m.group("release").split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    pre = (_PRE[m.group("pre_l").lower()], int(m.group("pre_n") or 0)) if m.group("pre") else None
    post = None
    if m.group("post"):
        post = int(m.group("post_n1") or m.group("post_n2") or 0)
    dev = int(m.group("dev_n") or 0) if m.group("dev") else None
    # a dev release without pre/post sorts before the pre-releases of the same release
    pre_key = (0, pre) if pre is not None else (_NEG_INF if dev is not None and post is None else _INF)
    post_key = (0, post) if post is not None else _NEG_INF
    dev_key = (0, dev) if dev is not None else _INF
    local = ()
    if m.group("local"):
        local = tuple((1, int(p), "") if p.isdigit() else (0, 0, p.lower())
                      for p in re.split(r"[-_.]", m.group("local")))
    return (int(m.group("epoch") or 0), tuple(release), pre_key, post_key, dev_key, local)


def _other_key(other):
    if isinstance(other, (tuple, list)):
        other = ".".join(str(p) for p in other)
    if isinstance(other, TorchVersion):
        return _key(str(other))
    if isinstance(other, str):
        return _key(other)
    raise TypeError  # caller falls back to str's comparison, which raises PyTorch's TypeError


class TorchVersion(str):
    """`TorchVersion(str)`: compares with `<, <=, ==, >, >=` against version strings, tuples and lists of
    numbers (`(2, 1)` means "2.1"); anything else compares as `str` does, and so does `!=` (as in
    PyTorch)."""

    def _compare(self, other, op, str_op):
        try:
            return op(_key(str(self)), _other_key(other))
        except (InvalidVersion, TypeError):
            return str_op(other)

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b, super().__lt__)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b, super().__le__)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b, super().__gt__)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b, super().__ge__)

    def __eq__(self, other):
        return self._compare(other, lambda a, b: a == b, super().__eq__)

    # `!=` stays str's, as in PyTorch (`TorchVersion("2.13.0") != "2.13"` is True)
    __hash__ = str.__hash__

"""The input pairing of `torch.testing.assert_close`: walk `actual` and `expected` together (sequences,
mappings) and turn each pair of leaves into a comparison pair (None, booleans, numbers, tensor-likes).

Structure errors (a length or key mismatch, a pair of inputs no comparison handles) are raised here, before
any value is compared, as PyTorch does; each carries the item path ("The failure occurred for item [1]").
"""
import collections.abc
import dataclasses

import numpy as np

from .. import _api as torch

_USER_NOTE = ("If you are a user and see this message during normal operation please file an issue at "
              "https://github.com/pytorch/pytorch/issues. If you are a developer and working on the "
              "comparison functions, please except the previous error and raise an expressive `ErrorMeta` "
              "instead.")


def path_text(path):
    """`['a'][1]` for the item path ('a', 1)."""
    return "".join(f"[{key!r}]" for key in path)


def with_path(message, path):
    """`message`, plus PyTorch's "The failure occurred for item ..." when the pair is nested."""
    return f"{message}\n\nThe failure occurred for item {path_text(path)}" if path else message


@dataclasses.dataclass
class Pair:
    """One leaf comparison: `kind` is 'none', 'bool', 'number' or 'tensor'; `path` its item path."""
    kind: str
    actual: object
    expected: object
    path: tuple


def _is_sequence(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _is_number(x):
    return isinstance(x, (int, float, complex, np.number))


def _sorted_or_as_is(keys):
    try:
        return sorted(keys)
    except TypeError:
        return list(keys)


def originate(actual, expected, allow_subclasses, path=()):
    """[Pair] for the leaves of `actual`/`expected`, in comparison order; raises PyTorch's structure
    errors."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise AssertionError(with_path(
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path))
        pairs = []
        for i, (a, e) in enumerate(zip(actual, expected)):
            pairs += originate(a, e, allow_subclasses, path + (i,))
        return pairs
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        a_keys, e_keys = set(actual.keys()), set(expected.keys())
        if a_keys != e_keys:
            missing, extra = _sorted_or_as_is(e_keys - a_keys), _sorted_or_as_is(a_keys - e_keys)
            raise AssertionError(with_path(
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {missing}\n"
                f"Additional keys in the actual mapping: {extra}", path))
        pairs = []
        for key in _sorted_or_as_is(actual.keys()):
            pairs += originate(actual[key], expected[key], allow_subclasses, path + (key,))
        return pairs
    return [_leaf(actual, expected, allow_subclasses, path)]


def _leaf(actual, expected, allow_subclasses, path):
    if actual is None or expected is None:
        return Pair("none", actual, expected, path)
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        return Pair("bool", bool(actual), bool(expected), path)
    if _is_number(actual) and _is_number(expected):
        if isinstance(actual, bool) or isinstance(expected, bool):
            # PyTorch's number comparison has no dtype for bool: an "unexpected" error, its text kept
            raise RuntimeError(
                f"Originating a NumberPair() at item {path_text(path)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): {expected}\n\n"
                f"resulted in the unexpected exception above. {_USER_NOTE}") from KeyError(bool)
        return Pair("number", _python(actual), _python(expected), path)
    tensors = _tensor_likes(actual, expected, allow_subclasses)
    if tensors is not None:
        return Pair("tensor", *tensors, path)
    raise TypeError(with_path(f"No comparison pair was able to handle inputs of type {type_text(actual)} and "
                              f"{type_text(expected)}.", path))


def type_text(x):
    """`<class 'float'>`; torchshim's classes by their PyTorch names (`<class 'torch.Tensor'>`)."""
    t = type(x)
    if t is torch.Tensor:
        return "<class 'torch.Tensor'>"
    if t.__module__.split(".")[0] == "torchshim":
        return f"<class '{'torch' + t.__module__[len('torchshim'):]}.{t.__qualname__}'>"
    return str(t)


def _python(x):
    return x.item() if isinstance(x, np.number) else x


def _tensor_likes(actual, expected, allow_subclasses):
    """(actual, expected) as tensors when they form a tensor-like pair (directly related types, convertible by
    `torch.as_tensor`), else None."""
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        return None
    if not allow_subclasses and type(actual) is not type(expected):
        return None
    try:
        return tuple(x if isinstance(x, torch.Tensor) else torch.as_tensor(x) for x in (actual, expected))
    except Exception:
        return None

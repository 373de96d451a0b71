"""`torch.testing.assert_close` and the deprecated `torch.testing.assert_allclose`: PyTorch's pairing of
inputs (`_pairs.py`), its default tolerances per dtype, its attribute checks and its mismatch report text."""
import cmath
import warnings

import numpy as np

from .. import _api as torch
from ._pairs import originate, with_path

# PyTorch's default (rtol, atol) per dtype; any other dtype compares exactly
_TOLERANCES = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}
# Python numbers compare with the tolerances of these dtypes
_NUMBER_DTYPES = {int: torch.int64, float: torch.float64, complex: torch.complex128}


def default_tolerances(*dtypes):
    """(rtol, atol): the largest default tolerances of `dtypes`."""
    tols = [_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(t[0] for t in tols), max(t[1] for t in tols)


def _check_tolerances(rtol, atol):
    if (rtol is None) ^ (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")


def _tolerances(rtol, atol, *dtypes):
    _check_tolerances(rtol, atol)
    if rtol is None:
        return default_tolerances(*dtypes)
    return rtol, atol


def _mismatch(identifier, rtol, atol, extra, abs_diff, rel_diff, abs_idx=None, rel_idx=None):
    equal = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if equal else 'close'}!", "", extra]
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol),
                                 ("relative", rel_diff, rel_idx, rtol)):
        line = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        lines.append(line if equal else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)


def _scalar_mismatch(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch("Scalars", rtol, atol, f"Expected {expected} but got {actual}.", abs_diff, rel_diff)


def _tensor_mismatch(actual, expected, matches, rtol, atol):
    total = matches.numel()
    flat_matches = matches.flatten()
    n_bad = total - int(flat_matches.sum().item())
    a, e = actual.flatten(), expected.flatten()
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        a, e = a.to(torch.int64), e.to(torch.int64)  # integer differences without overflow
    abs_diff = (a - e).abs()
    abs_diff = torch.where(flat_matches, torch.zeros((), dtype=abs_diff.dtype), abs_diff)
    rel_diff = abs_diff / e.abs()
    rel_diff = torch.where(flat_matches, torch.zeros((), dtype=rel_diff.dtype), rel_diff)
    max_abs, abs_at = abs_diff.max(0)
    max_rel, rel_at = rel_diff.max(0)
    shape = tuple(actual.shape)

    def index(flat):
        return tuple(int(i) for i in np.unravel_index(int(flat), shape))

    extra = f"Mismatched elements: {n_bad} / {total} ({n_bad / total:.1%})"
    return _mismatch("Tensor-likes", rtol, atol, extra, max_abs.item(), max_rel.item(),
                     index(abs_at.item()), index(rel_at.item()))


def _attribute(name, actual, expected):
    if actual != expected:
        raise AssertionError(f"The values for attribute '{name}' do not match: {actual} != {expected}.")


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_layout,
                     check_stride):
    """None when close, else the mismatch report."""
    _attribute("shape", actual.shape, expected.shape)
    if check_device:
        _attribute("device", actual.device, expected.device)
    if check_dtype:
        _attribute("dtype", actual.dtype, expected.dtype)
    if check_layout:
        _attribute("layout", actual.layout, expected.layout)
    if check_stride and actual.layout == torch.strided:
        _attribute("stride()", actual.stride(), expected.stride())
    rtol, atol = _tolerances(rtol, atol, actual.dtype, expected.dtype)
    actual, expected = actual.detach(), expected.detach()
    if actual.dtype != expected.dtype:
        dtype = torch.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(dtype), expected.to(dtype)
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    matches = torch.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(matches.all().item()):
        return None
    if actual.dim() == 0:
        return _scalar_mismatch(actual.item(), expected.item(), rtol, atol)
    return _tensor_mismatch(actual, expected, matches, rtol, atol)


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    if check_dtype and type(actual) is not type(expected):
        raise AssertionError(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    rtol, atol = _tolerances(rtol, atol, _NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)])
    if actual == expected or (equal_nan and cmath.isnan(actual) and cmath.isnan(expected)):
        return None
    diff = abs(actual - expected)
    if cmath.isfinite(diff) and diff <= atol + rtol * abs(expected):
        return None
    return _scalar_mismatch(actual, expected, rtol, atol)


def _compare(pair, rtol, atol, equal_nan, check_device, check_dtype, check_layout, check_stride):
    a, e = pair.actual, pair.expected
    if pair.kind == "none":
        return None if a is None and e is None else f"None mismatch: {a} is not {e}"
    if pair.kind == "bool":
        return None if a is e else f"Booleans mismatch: {a} is not {e}"
    if pair.kind == "number":
        return _compare_numbers(a, e, rtol, atol, equal_nan, check_dtype)
    return _compare_tensors(a, e, rtol, atol, equal_nan, check_device, check_dtype, check_layout,
                            check_stride)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """`torch.testing.assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
    equal_nan=False, check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None)`.

    Tensors (and NumPy arrays) pass when `|actual - expected| <= atol + rtol * |expected|` elementwise
    after equal shape, device, dtype and layout (and strides with `check_stride`); Python/NumPy scalars,
    booleans and None compare as PyTorch's; sequences and mappings compare item by item. Tolerances default
    per dtype (float32: rtol 1.3e-6, atol 1e-5; float64: 1e-7, 1e-7; float16: 1e-3, 1e-5; bfloat16: 1.6e-2,
    1e-5; integers and bool: exact). Raises AssertionError with PyTorch's report ("Tensor-likes are not
    close! ..."); `msg` (a string, or a callable given the report) replaces it. Same as PyTorch's, except
    that torchshim has one device (cpu) and one layout (strided)."""
    pairs = originate(actual, expected, allow_subclasses)
    for pair in pairs:
        if pair.kind in ("number", "tensor"):
            _check_tolerances(rtol, atol)  # the rtol/atol check comes before any comparison
    for pair in pairs:
        try:
            report = _compare(pair, rtol, atol, equal_nan, check_device, check_dtype, check_layout,
                              check_stride)
        except AssertionError as e:
            report = str(e)
        if report is None:
            continue
        report = with_path(report, pair.path)
        if callable(msg):
            report = msg(report)
        elif msg is not None:
            report = msg
        raise AssertionError(report)


# the tolerances of the deprecated assert_allclose
_OLD_TOLERANCES = {torch.float16: (1e-3, 1e-3), torch.float32: (1e-4, 1e-5), torch.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """`torch.testing.assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg='')`,
    deprecated since PyTorch 1.12 (FutureWarning on each call): non-tensors become tensors (`expected` in
    `actual`'s dtype), dtypes need not match, and the default tolerances are the old ones (float32: rtol 1e-4,
    atol 1e-5; float64: 1e-5, 1e-8; float16: 1e-3, 1e-3). Then `assert_close`. Same as PyTorch's."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. You can find detailed upgrade instructions in "
        "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, torch.Tensor):
        actual = torch.tensor(actual)
    if not isinstance(expected, torch.Tensor):
        expected = torch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        tols = [_OLD_TOLERANCES.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(t[0] for t in tols), max(t[1] for t in tols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)

"""Comparing two printed outputs line by line, numbers with a tolerance (for `python -m torchshim check`).

A line is split into numbers and the text around them. The text must be equal, except that a run of
whitespace equals any other run and whitespace next to a number is ignored (tensor printing pads numbers to a
common width, which depends on the values). Numbers are compared as `torch.testing.assert_close` does,
|a - b| <= atol + rtol * |b| with b the reference, widened by the precision they were printed with when both
have the same number of decimals: "0.6931" stands for any value that rounds to it, so "0.6931" and "0.6932"
match when some values they stand for are within tolerance (each side adds half a unit in its last digit).
With different numbers of decimals (Python's repr and %g drop trailing digits) there is no such allowance.
Integers (digits only) must be equal, and a number printed as an integer on one side and with a decimal point
or exponent on the other differs (`tensor(1)` vs `tensor(1.)`: the dtypes differ). nan matches nan; inf
matches only an inf of the same sign.
"""
import math
import re

NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)(?![\w.])")
_SPACE = re.compile(r"\s+")
_INT = re.compile(r"[-+]?\d+")


def split_line(line):
    """line -> (text skeleton, numbers): in the skeleton each number is '#', a whitespace run is one space,
    and whitespace next to a number is dropped (padding)."""
    numbers = NUMBER.findall(line)
    skeleton = re.sub(r" ?# ?", "#", _SPACE.sub(" ", NUMBER.sub("#", line)).strip())
    return skeleton, numbers


def _decimals(token):
    """(digits after the decimal point, exponent) of a printed float ("1.50e-03" -> (2, -3))."""
    m = re.fullmatch(r"[-+]?\d*\.(\d*)(?:[eE]([-+]?\d+))?", token)
    if not m:
        return 0, int(token.lower().split("e")[1]) if "e" in token.lower() else 0
    return len(m.group(1)), int(m.group(2) or 0)


def _rounding(ref, got):
    """The printed-precision allowance: half a unit in the last digit of each number when both were
    printed with the same number of decimals (a fixed format: "0.6931" vs "0.6932"), else 0 (a format that
    drops trailing digits, like Python's repr or %g, gives no bound)."""
    (dr, er), (dg, eg) = _decimals(ref), _decimals(got)
    if dr != dg or dr == 0:
        return 0.0
    return 0.5 * (10.0 ** (er - dr) + 10.0 ** (eg - dg))


def compare_numbers(ref, got, rtol, atol):
    """None when the printed numbers `ref` (reference) and `got` match, else what differs."""
    ref_int, got_int = bool(_INT.fullmatch(ref)), bool(_INT.fullmatch(got))
    if ref_int and got_int:
        return None if int(ref) == int(got) else f"{got} != {ref} (integers must be equal)"
    if ref_int != got_int:
        return f"{got!r} vs {ref!r}: printed as an integer on one side only (different dtypes?)"
    a, b = float(got), float(ref)
    if math.isnan(a) or math.isnan(b):
        return None if math.isnan(a) and math.isnan(b) else f"{got} vs {ref}: nan on one side only"
    if math.isinf(a) or math.isinf(b):
        return None if a == b else f"{got} vs {ref}: inf on one side only (or of the other sign)"
    rounding = _rounding(ref, got)
    allowed = atol + rtol * abs(b) + rounding
    diff = abs(a - b)
    if diff <= allowed:
        return None
    rel = diff / abs(b) if b else math.inf
    return (f"|{got} - {ref}| = {diff:.3g} (relative {rel:.3g}) > allowed {allowed:.3g} "
            f"(atol {atol:g} + rtol {rtol:g} * |ref| + printed precision {rounding:.3g})")


def compare_line(ref, got, rtol, atol):
    """None when the lines match, else a description of the first difference."""
    ref_text, ref_nums = split_line(ref)
    got_text, got_nums = split_line(got)
    if ref_text != got_text or len(ref_nums) != len(got_nums):
        return "the text differs"
    for i, (r, g) in enumerate(zip(ref_nums, got_nums), 1):
        why = compare_numbers(r, g, rtol, atol)
        if why is not None:
            return f"number {i} of the line: {why}"
    return None


def first_difference(ref_lines, got_lines, rtol, atol):
    """(line number from 1, reference line or None, torchshim line or None, why) of the first line that
    differs, or None when all lines match. A missing line (one output is shorter) is None."""
    for n in range(max(len(ref_lines), len(got_lines))):
        ref = ref_lines[n] if n < len(ref_lines) else None
        got = got_lines[n] if n < len(got_lines) else None
        if ref is None or got is None:
            side = "torchshim's" if got is None else "the reference"
            return n + 1, ref, got, f"{side} output ended before this line"
        why = compare_line(ref, got, rtol, atol)
        if why is not None:
            return n + 1, ref, got, why
    return None


def exception_line(stderr):
    """The `Type: message` line of the last traceback in `stderr` (its first line if the message has
    several), with the type's module path dropped (`torch.cuda.OutOfMemoryError` -> `OutOfMemoryError`);
    None when stderr has no traceback."""
    lines = stderr.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last):")]
    if not starts:
        return None
    for line in lines[starts[-1] + 1:]:
        if line and not line[0].isspace():
            head, sep, message = line.partition(": ")
            if re.fullmatch(r"[\w.]+", head):
                return head.rsplit(".", 1)[-1] + sep + message
            return line
    return None

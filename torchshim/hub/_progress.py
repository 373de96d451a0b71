"""`torch.hub.tqdm`: the progress bar of hub downloads: `tqdm.auto.tqdm` when the `tqdm` package is
installed (looked up on first use), else a minimal bar that writes the percentage (or the byte count when
the total is unknown) to stderr, as PyTorch's fallback does."""
import sys

__all__ = ["tqdm", "get_tqdm"]


class _Faketqdm:
    """`tqdm(total=None, disable=False, unit=None, *args, **kwargs)`: `update(n)`, `write(s)`, `close()`,
    a context manager; other tqdm arguments are accepted and not used (PyTorch's fallback bar)."""

    def __init__(self, total=None, disable=False, unit=None, *args, **kwargs):
        self.total = total
        self.disable = disable
        self.n = 0

    def update(self, n):
        """Add `n` to the count and redraw the line on stderr."""
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def set_description(self, *args, **kwargs):
        """Accepted; the fallback bar has no description."""

    def write(self, s):
        """Write `s` and a newline to stderr."""
        sys.stderr.write(f"{s}\n")

    def close(self):
        """Stop drawing."""
        self.disable = True

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.disable:
            sys.stderr.write("\n")


tqdm = _Faketqdm  # PyTorch's fallback keeps this class name
_found = []


def get_tqdm():
    """The progress-bar class: `tqdm.auto.tqdm` when installed, else the fallback above."""
    if not _found:
        try:
            from tqdm.auto import tqdm as real
        except ImportError:
            real = tqdm
        _found.append(real)
    return _found[0]

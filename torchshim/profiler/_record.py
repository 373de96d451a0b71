"""`torch.profiler.record_function` / `torch.autograd.profiler.record_function`: a named span, recorded by
every active torchshim profiler and passed to `jax.profiler.TraceAnnotation` (so it also appears in a
jax/XLA trace taken with `jax.profiler.trace`)."""
import contextlib
import functools

import jax

from ._events import Recorder

__all__ = ["record_function"]


class record_function(contextlib.ContextDecorator):
    """`record_function(name: str, args: str | None = None)`: context manager and decorator."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function(): argument 'name' must be str, not {type(name).__name__}")
        self.name, self.args = name, args
        self._spans = []

    def __enter__(self):
        ann = jax.profiler.TraceAnnotation(self.name)
        ann.__enter__()
        spans = [(r, r.begin(self.name)) for r in list(Recorder._active)]
        self._spans.append((ann, spans))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        ann, spans = self._spans.pop()
        for r, ev in spans:
            r.end(ev)
        ann.__exit__(exc_type, exc_value, traceback)
        return False

    def _recreate_cm(self):
        return record_function(self.name, self.args)

    def __call__(self, fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            with self._recreate_cm():
                return fn(*args, **kwargs)
        return inner

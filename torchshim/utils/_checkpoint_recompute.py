"""Non-reentrant activation checkpointing (`use_reentrant=False`).

The wrapped function runs once with grad enabled, so its graph (with edges to the inputs and to any tensor it
closes over, parameters included) is built as usual. Then every tensor the new nodes saved for backward is
replaced by a `_Recomputed` placeholder, which frees the activations. The first time backward reads one,
the function runs again (same RNG state, grad enabled) and the placeholders of that pass read the saved
tensors of the recomputed graph, matched by position: nodes in creation order, saved tensors in order (the
order PyTorch's pack hooks see). Each value is read once per recomputation, as PyTorch's frame does; a
second backward (retain_graph=True) recomputes again.
"""
import itertools
import threading

from .. import _api as torch
from ..autograd import _node as N
from ._checkpoint_reentrant import rng_state_of, with_rng_state

__all__ = ["CheckpointError", "run_checkpointed", "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]


class CheckpointError(RuntimeError):
    """`torch.utils.checkpoint.CheckpointError`: the recomputation did not match the original forward."""


class _Settings(threading.local):
    early_stop = None
    debug = None


_settings = _Settings()


class set_checkpoint_early_stop:
    """`torch.utils.checkpoint.set_checkpoint_early_stop(enable)`: context manager overriding every
    checkpoint's `early_stop=`. With False, a recomputation that saves more tensors than the forward raises
    CheckpointError (torchshim always runs the whole function again; early stop only decides whether extra
    saved tensors are an error)."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        self.prev = _settings.early_stop
        _settings.early_stop = self.enable

    def __exit__(self, *exc):
        _settings.early_stop = self.prev
        return False


class set_checkpoint_debug_enabled:
    """`torch.utils.checkpoint.set_checkpoint_debug_enabled(enabled)`: context manager overriding every
    checkpoint's `debug=` (None: leave it to each call). In debug mode a CheckpointError lists the ops
    (autograd node names) of the forward and of the recomputation."""

    def __init__(self, enabled):
        self.enabled = enabled

    def __enter__(self):
        self.prev = _settings.debug
        _settings.debug = self.enabled

    def __exit__(self, *exc):
        _settings.debug = self.prev
        return False


_TIP = ("\n\nTip: To see a more detailed error message, either pass `debug=True` to\n"
        "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block\n"
        "with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n"
        "enable checkpoint\u2011debug mode globally.\n")
_UNPACKED_TWICE = ("torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked "
                   "once. If you are calling ctx.saved_tensors in backward, make sure to do so only once. "
                   "Otherwise please open an issue with details on your use case.")
_TOO_MANY = ("torch.utils.checkpoint: trying to save more tensors during recomputation than during the "
             "original forward pass.")


def _tensors_in(obj, out):
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _tensors_in(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors_in(o, out)
    return out


def _region_nodes(outputs, start):
    """The nodes created at or after sequence number `start` that the outputs' history reaches, in creation
    order."""
    stack = [t._grad_fn for t in _tensors_in(outputs, []) if t._grad_fn is not None]
    seen, found = set(), []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or node._seq < start:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(e[0] for e in node._edges if e is not None)
    found.sort(key=lambda n: n._seq)
    return found


def _saved_of(nodes):
    """[(node, index in node._saved, SavedTensor)] over the nodes that saved tensors."""
    out = []
    for node in nodes:
        saved = getattr(node, "_saved", None)
        if not isinstance(saved, list):
            continue
        for j, s in enumerate(saved):
            if s is not None and not isinstance(s, N._Freed):
                out.append((node, j, s))
    return out


def _meta(s):
    if isinstance(s, _Recomputed):  # a nested checkpoint's placeholder
        return s.frame.meta[s.idx]
    shape = s.geom[0] if getattr(s, "geom", None) is not None else tuple(s.array.shape)
    return {"shape": torch.Size(shape), "dtype": s.dtype, "device": s.device}


class _Recomputed:
    """Stands where a node kept a saved tensor: reads it from the frame's recomputation."""

    __slots__ = ("frame", "idx", "edge", "is_output", "checked", "dtype", "device", "geom", "_leaf_ref",
                 "_out_nr", "storage", "_hooked")

    def __init__(self, frame, idx, s):
        self.frame, self.idx = frame, idx
        self.edge, self.is_output, self.checked = s.edge, s.is_output, s.checked
        self.dtype, self.device = s.dtype, s.device
        self.geom = None
        self._leaf_ref = None
        self._out_nr = getattr(s, "_out_nr", 0)
        self.storage = None
        self._hooked = None

    def _tref(self):
        return None

    def value(self, owner_name, owner, nr):
        s = self.frame.take(self.idx)
        return s.value(owner_name, owner, nr)

    def as_tensor(self, owner, nr, array):
        return N.SavedTensor.as_tensor(self, owner, nr, array)


class _Frame:
    """One checkpointed call: what recomputation needs and the recomputed saved tensors not yet read."""

    def __init__(self, function, args, kwargs, rng_state, recompute_context_fn, check, debug, early_stop):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.early_stop = early_stop
        self.rng_state = rng_state
        self.recompute_context_fn = recompute_context_fn
        self.check, self.debug = check, debug
        self.meta = []
        self.names = []
        self.cache = {}

    def take(self, idx):
        if idx not in self.cache:
            self.recompute()
            if idx not in self.cache:
                raise CheckpointError(_UNPACKED_TWICE)
        return self.cache.pop(idx)

    def recompute(self):
        with with_rng_state(self.rng_state), torch.enable_grad(), self.recompute_context_fn:
            start = next(N._seq)
            out = self.function(*self.args, **self.kwargs)
        nodes = _region_nodes(out, start)
        saved = _saved_of(nodes)
        if self.check == "default":
            self._check([s for _, _, s in saved], [n.name() for n in nodes])
        self.cache = {i: s for i, (_, _, s) in enumerate(saved[:len(self.meta)])}

    def _check(self, saved, names):
        if len(saved) > len(self.meta) and not self.early_stop:
            raise CheckpointError(_TOO_MANY + self._ops(names))
        bad = []
        for i, (s, m) in enumerate(zip(saved, self.meta)):
            got = _meta(s)
            if got != m:
                bad.append(f"tensor at position {i}:\nsaved metadata: {m}\nrecomputed metadata: {got}\n")
        if bad:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                  "different metadata than during the forward pass.\n" + "".join(bad) + "."
                                  + self._ops(names))

    def _ops(self, names):
        if not self.debug:
            return _TIP
        return ("\n\nOperations executed during the original forward:\n" + "\n".join(self.names)
                + "\n\nOperations executed during recomputation:\n" + "\n".join(names) + "\n")


def run_checkpointed(function, args, kwargs, *, context_fn, determinism_check, debug, early_stop,
                     preserve_rng_state):
    """The non-reentrant checkpoint of `function(*args, **kwargs)`."""
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    if _settings.debug is not None:
        debug = _settings.debug
    if _settings.early_stop is not None:
        early_stop = _settings.early_stop
    forward_ctx, recompute_ctx = context_fn()
    rng = rng_state_of(preserve_rng_state)
    start = next(N._seq)
    with forward_ctx:
        out = function(*args, **kwargs)
    if not torch.is_grad_enabled():
        return out
    nodes = _region_nodes(out, start)
    frame = _Frame(function, args, kwargs, rng, recompute_ctx, determinism_check, debug, early_stop)
    frame.names = [n.name() for n in nodes]
    counter = itertools.count()
    for node, j, s in _saved_of(nodes):
        frame.meta.append(_meta(s))
        node._saved[j] = _Recomputed(frame, next(counter), s)
    return out

"""DistributedDataParallel's gradient reducer (PyTorch's C++ `Reducer`, for semantics): buckets, the
post-accumulate-grad hooks, the bucket all-reduces and the write-back of the averaged gradients.

Buckets: the parameters (module order) are grouped by dtype and device, in order, into buckets of at most
`bucket_cap` bytes (the first one formed, holding the first parameters, of `first_cap` bytes: 1 MiB when the
cap is PyTorch's default); the list is then reversed, so bucket 0 holds the last parameters, whose gradients
are ready first. A backward pass marks each parameter ready from its post-accumulate-grad hook; a bucket whose
parameters are all ready is flattened into one tensor (`cat`), divided by the world size and all-reduced
(`async_op=True`, one collective per bucket), buckets launching in index order on every rank. When the last
bucket is launched, every bucket is waited on and its slices are written back into the parameters' `.grad`
(cast to their dtype: a comm hook may return a float16 bucket). Under `Join` (uneven inputs) the division is
by the number of ranks still training when `divide_by_initial_world_size=False`, and a rank that has joined
issues the same collectives with zeros (`shadow_backward`).

Differences from PyTorch: buckets are not rebuilt in the order gradients arrived after the first iteration
(the values are the same, only the grouping of collectives differs); the write-back happens inside the hook
of the last ready parameter, not in an autograd-engine callback after the backward pass (torchshim's engine
has none), so a parameter whose hook runs later in the same pass would see its `.grad` overwritten by a
stale bucket: that only happens to a parameter made ready twice, which raises (as PyTorch's reducer).
"""
from ... import _api as torch
from ... import distributed as dist
from ...distributed._grad_bucket import GradBucket

__all__ = ["Reducer", "GradBucket", "bucket_assignment"]

DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024


def bucket_assignment(params, caps):
    """[[param index, ...], ...]: `params` grouped by (dtype, device) in order, a bucket closing once its
    size reaches its cap (`caps[k]` for the k-th bucket of a group, the last cap after that); the buckets are
    ordered by their first index (PyTorch's `_compute_bucket_assignment_by_size`)."""
    open_, done = {}, []
    for i, p in enumerate(params):
        key = (p.dtype, str(p.device))
        b = open_.setdefault(key, {"idx": [], "size": 0, "k": 0})
        b["idx"].append(i)
        b["size"] += p.numel() * p.element_size()
        if b["size"] >= caps[min(b["k"], len(caps) - 1)]:
            done.append(b["idx"])
            open_[key] = {"idx": [], "size": 0, "k": b["k"] + 1}
    done += [b["idx"] for b in open_.values() if b["idx"]]
    return sorted(done, key=lambda idx: idx[0])


def _grad_error_unready(rank, indices):
    return RuntimeError(
        "Expected to have finished reduction in the prior iteration before starting a new one. This error "
        "indicates that your module has parameters that were not used in producing loss. You can enable "
        "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
        "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
        "participate in calculating loss. \nIf you already have done the above, then the distributed data "
        "parallel module wasn't able to locate the output tensors in the return value of your module's "
        "`forward` function. Please include the loss function and the structure of the return value of "
        "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\nParameter indices "
        f"which did not receive grad for rank {rank}: {' '.join(str(i) for i in indices)}\n In addition, you "
        "can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out "
        "information about which particular parameters did not receive gradient on this rank as part of this "
        "error")


class _Bucket:
    def __init__(self, index, param_indices, params, as_view):
        self.index = index
        self.members = list(param_indices)
        self.params = [params[i] for i in param_indices]
        self.offsets, n = [], 0
        for p in self.params:
            self.offsets.append(n)
            n += p.numel()
        self.numel = n
        self.flat = None  # the persistent buffer of gradient_as_bucket_view
        self.views = None
        if as_view:
            p0 = self.params[0]
            self.flat = torch.zeros(n, dtype=p0.dtype, device=p0.device)
            self.views = [self.flat[o:o + p.numel()].view(p.shape) for p, o in zip(self.params, self.offsets)]


class Reducer:
    """The gradient reducer of one DistributedDataParallel: `Reducer(params, group, bucket_cap, first_cap,
    find_unused, as_view)`. `prepare_for_backward(outputs)` arms it for the next backward pass (after a
    forward with grad sync); the hooks do the rest."""

    def __init__(self, params, group, bucket_cap, first_cap, find_unused, as_view):
        self.params = params
        self.group = group
        self.find_unused = find_unused
        self.as_view = as_view
        self.world_size = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        assignment = list(reversed(bucket_assignment(params, [first_cap, bucket_cap])))
        self.buckets = [_Bucket(k, idx, params, as_view) for k, idx in enumerate(assignment)]
        self.bucket_of = {}
        for b in self.buckets:
            for j, i in enumerate(b.members):
                self.bucket_of[i] = (b, j)
        self.comm_hook = None
        self.forward_work = None  # the Join notification of the last forward (uneven inputs)
        self.static_world = True  # divide by the world size, not by the number of ranks still training
        self.locally_used = set()  # parameters that got a gradient since the last reduction
        self._reset()
        self.handles = [p.register_post_accumulate_grad_hook(self._make_hook(i))
                        for i, p in enumerate(params)]

    # -- per-iteration state -----------------------------------------------------------------------------
    def _reset(self):
        self.expect_hooks = False
        self.started = False
        self.ready = set()
        self.pending = [len(b.members) for b in self.buckets]
        self.next_bucket = 0
        self.launched = []
        self.unused = []
        self.used_work = None
        self.div_factor = None

    def check_prior_reduction_finished(self):
        """RuntimeError (PyTorch's) when the last backward pass began but some parameters never got a
        gradient (unused parameters without `find_unused_parameters=True`)."""
        if self.expect_hooks and self.started and self.next_bucket < len(self.buckets):
            missing = sorted(i for i in range(len(self.params)) if i not in self.ready)
            self._reset()
            raise _grad_error_unready(self.rank, missing)

    def prepare_for_backward(self, outputs):
        """Arm the hooks for the next backward pass; with `find_unused`, the parameters that `outputs`' graph
        does not reach are marked ready when that pass starts."""
        self.check_prior_reduction_finished()
        self._reset()
        self.expect_hooks = True
        if self.find_unused:
            reached = _leaves_reached(outputs)
            self.unused = [i for i, p in enumerate(self.params) if id(p) not in reached]

    def set_forward_pass_work_handle(self, work, use_static_world_size):
        """Inside `Join`: `work` is this forward's all-reduce counting the ranks still training; unless
        `use_static_world_size`, the gradients of the next backward are divided by that count."""
        self.forward_work = work
        self.static_world = use_static_world_size

    def _divide_factor(self):
        if self.div_factor is None:
            self.div_factor = self.world_size
            if self.forward_work is not None and not self.static_world:
                self.div_factor = int(self.forward_work.get_future().wait()[0].item())
        return self.div_factor

    # -- hooks ---------------------------------------------------------------------------------------------
    def _make_hook(self, i):
        def hook(param):
            self._on_grad_ready(i)
        return hook

    def _on_grad_ready(self, i):
        if self.find_unused:
            self.locally_used.add(i)
        if not self.expect_hooks:
            return
        if not self.started:
            self.started = True
            if self.find_unused:
                self._launch_used_map()
                for u in self.unused:
                    self._mark_ready(u)
        self._mark_ready(i)

    def _mark_ready(self, i):
        if i in self.ready:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by one of the "
                "following reasons: 1) Use of a module parameter outside the `forward` function. "
                "2) Reused parameters in multiple reentrant backward passes. 3) Incorrect unused parameter "
                "detection. "
                f"Parameter at index {i} has been marked as ready twice. This means that multiple autograd "
                "engine hooks have fired for this particular parameter during this iteration.")
        self.ready.add(i)
        b, _ = self.bucket_of[i]
        self.pending[b.index] -= 1
        try:
            while self.next_bucket < len(self.buckets) and self.pending[self.next_bucket] == 0:
                self._launch(self.buckets[self.next_bucket])
                self.next_bucket += 1
            if self.next_bucket == len(self.buckets):
                self._finalize()
        except BaseException:
            # a failed collective (a dead peer, or a torch.compile trace that falls back to eager) abandons
            # this iteration: the next forward starts afresh instead of reporting unfinished buckets
            self._reset()
            raise

    # -- communication -------------------------------------------------------------------------------------
    def _launch_used_map(self):
        used = torch.tensor([1 if i in self.locally_used or i not in self.unused else 0
                             for i in range(len(self.params))], dtype=torch.int32)
        self.used_work = (used, dist.all_reduce(used, group=self.group, async_op=True))

    def _flatten(self, b):
        if b.flat is not None:
            for p, v in zip(b.params, b.views):
                g = p.grad
                if g is None:
                    v.zero_()
                elif g is not v:
                    v.copy_(g)
            return b.flat
        parts = [p.grad.reshape(-1) if p.grad is not None else torch.zeros(p.numel(), dtype=p.dtype,
                                                                             device=p.device)
                 for p in b.params]
        return torch.cat(parts) if len(parts) > 1 else parts[0].clone()

    def _launch(self, b):
        with torch.no_grad():
            flat = self._flatten(b)
            if self.comm_hook is not None:
                hook, state = self.comm_hook
                bucket = GradBucket(b.index, flat, b.params, b.offsets, b.index == len(self.buckets) - 1)
                self.launched.append((b, hook(state, bucket)))
                return
            flat.mul_(1.0 / self._divide_factor())  # PyTorch multiplies by the reciprocal too
            self.launched.append((b, (flat, dist.all_reduce(flat, group=self.group, async_op=True))))

    def shadow_backward(self):
        """The collectives of one backward pass with zero gradients, for a rank that joined (ran out of
        inputs) under `Join`: the used-parameter map (under find_unused; this rank's own, normally all 0),
        then each bucket in order, through the comm hook if one is registered (else a plain sum); the
        results are dropped."""
        with torch.no_grad():
            used_work = None
            if self.find_unused:
                used = torch.tensor([1 if i in self.locally_used else 0 for i in range(len(self.params))],
                                    dtype=torch.int32)
                used_work = dist.all_reduce(used, group=self.group, async_op=True)
            pending = []
            for b in self.buckets:
                p0 = b.params[0]
                zeros = torch.zeros(b.numel, dtype=p0.dtype, device=p0.device)
                if self.comm_hook is not None:
                    hook, state = self.comm_hook
                    bucket = GradBucket(b.index, zeros, b.params, b.offsets, b.index == len(self.buckets) - 1)
                    pending.append(hook(state, bucket))
                else:
                    pending.append(dist.all_reduce(zeros, group=self.group, async_op=True))
            for w in pending:
                w.wait()
            if used_work is not None:
                used_work.wait()

    def _finalize(self):
        self.expect_hooks = False
        globally_unused = set()
        if self.used_work is not None:
            used, work = self.used_work
            work.wait()
            globally_unused = {i for i, n in enumerate(used.tolist()) if n == 0}
            self.locally_used = set()
        with torch.no_grad():
            for b, pending in self.launched:
                if self.comm_hook is not None:
                    result = pending.wait()
                    if isinstance(result, (list, tuple)):
                        result = result[0]
                    if result.shape != (b.numel,):
                        raise RuntimeError(f"Comm hook of bucket {b.index} returned a tensor of shape "
                                           f"{list(result.shape)}; expected the bucket's shape [{b.numel}]")
                else:
                    result, work = pending
                    work.wait()
                self._write_back(b, result, globally_unused)
        self.launched = []

    def _write_back(self, b, result, globally_unused):
        for j, (i, p, o) in enumerate(zip(b.members, b.params, b.offsets)):
            if i in globally_unused:
                continue
            if b.views is not None:
                if result is not b.flat:
                    b.views[j].copy_(result[o:o + p.numel()].view(p.shape))
                p.grad = b.views[j]
                continue
            v = result[o:o + p.numel()].view(p.shape)
            if p.grad is None:
                p.grad = v.to(dtype=p.dtype, copy=True)
            else:
                p.grad.copy_(v)

    def remove_hooks(self):
        for h in self.handles:
            h.remove()
        self.handles = []


def _leaves_reached(outputs):
    """ids of the leaf tensors (AccumulateGrad variables) that the autograd graphs of `outputs` reach."""
    seen, reached = set(), set()
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    for t in outputs:
        if t.grad_fn is None and t.requires_grad:
            reached.add(id(t))
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        var = getattr(fn, "variable", None)
        if var is not None:
            reached.add(id(var))
        for nxt, _ in fn.next_functions:
            if nxt is not None and id(nxt) not in seen:
                stack.append(nxt)
    return reached

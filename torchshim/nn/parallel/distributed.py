"""`torch.nn.parallel.DistributedDataParallel` on torchshim's `torch.distributed`
(JAX's multi-process runtime).

At construction the parameters' shapes are checked across ranks and the parameters and buffers are broadcast
from the group's rank 0; each forward (with grad sync) first broadcasts the buffers from rank 0 and arms the
reducer (`_reducer.py`), whose post-accumulate-grad hooks average the gradients across ranks during
`backward()`, bucket by bucket (one all-reduce per bucket)."""
import contextlib
import inspect
import warnings

from ... import _api as torch
from ... import distributed as dist
from ...compiler import _capture
from ...distributed.algorithms.join import Join, Joinable
from ...futures import Future
from ..modules.module import Module
from ._join import _DDPJoinHook
from ._reducer import DEFAULT_FIRST_BUCKET_BYTES, GradBucket, Reducer

__all__ = ["DistributedDataParallel", "GradBucket"]

_DEFAULT_BUCKET_CAP_MB = 25
_MB = 1024 * 1024
_BROADCAST_BUCKET_BYTES = 250 * _MB


def _find_tensors(obj):
    """The tensors inside a forward's output (tensors, lists, tuples, dicts, dataclasses)."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    fields = getattr(obj, "__dataclass_fields__", None)
    if fields is not None:
        return [t for name in fields for t in _find_tensors(getattr(obj, name))]
    return []


def _device_index(d):
    if isinstance(d, int):
        return d
    return torch.device(d).index


def _to_device(obj, device):
    """`obj` (tensors inside tuples, lists and dicts) with its tensors moved to `device`."""
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_to_device(o, device) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: _to_device(v, device) for k, v in obj.items()}
    return obj


def _broadcast_coalesced(tensors, src, group):
    """Broadcast `tensors` from global rank `src`, flattened per dtype into chunks of at most 250 MiB (one
    collective per chunk), and write the result back on the other ranks."""
    by_key = {}
    for t in tensors:
        by_key.setdefault((t.dtype, str(t.device)), []).append(t)
    is_src = dist.get_rank() == src
    for ts in by_key.values():
        chunk, size = [], 0
        for t in ts + [None]:
            nbytes = 0 if t is None else t.numel() * t.element_size()
            if t is not None and (not chunk or size + nbytes <= _BROADCAST_BUCKET_BYTES):
                chunk.append(t)
                size += t.numel() * t.element_size()
                continue
            if chunk:
                flat = torch.cat([c.detach().reshape(-1) for c in chunk])
                dist.broadcast(flat, src, group=group)
                if not is_src or _capture.active() is not None:
                    # (inside a torch.compile trace every rank writes, src its own values: the ranks' programs
                    # must be the same to run together)
                    o = 0
                    for c in chunk:
                        c.copy_(flat[o:o + c.numel()].view(c.shape))
                        o += c.numel()
            chunk, size = ([t], t.numel() * t.element_size()) if t is not None else ([], 0)


def _verify_param_shapes(params, group):
    """PyTorch's `_verify_param_shape_across_processes`: every rank has as many parameters, of the same
    shapes, as the group's rank 0; otherwise a RuntimeError on every rank (PyTorch's text on the ranks that
    differ; rank 0 names them too, where PyTorch's rank 0 would wait forever)."""
    mine = [list(p.shape) for p in params]
    shapes = [None] * dist.get_world_size(group)
    dist.all_gather_object(shapes, mine, group=group)
    me = dist.get_rank(group)
    for r, theirs in enumerate(shapes):
        if len(theirs) != len(mine):
            raise RuntimeError(f"DDP expects same model across all ranks, but Rank {me} has {len(mine)} "
                               f"params, while rank {r} has inconsistent {len(theirs)} params.")
    ref = shapes[0]
    for r, theirs in enumerate(shapes):
        for k, (a, b) in enumerate(zip(theirs, ref)):
            if a != b:
                who = "this process" if r == me else f"process {r}"
                raise RuntimeError(f"[{me}]: params[{k}] in {who} with sizes {a} appears not to match sizes "
                                   "of the same param in process 0.")


class DistributedDataParallel(Module, Joinable):
    """`DistributedDataParallel(module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None,
    init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
    check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
    delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
    device_mesh=None, skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
    forward_sync_buffers=None)`.

    Needs `torch.distributed.init_process_group` first. Gradients are averaged across the group's ranks
    during `backward()`, bucket by bucket; `no_sync()` skips that (the gradients accumulate locally until
    the next synchronised backward); `find_unused_parameters=True` walks the output's autograd graph so that
    parameters the loss does not use are reduced too (without it, PyTorch's error at the next forward);
    buffers are broadcast from rank 0 before every forward unless `forward_sync_buffers` (or the deprecated
    `broadcast_buffers`) is False. `state_dict()` keys carry the `module.` prefix.

    `device_ids=[i]` (a single-device GPU module) moves the forward's tensor inputs to that device, as
    PyTorch; on CPU modules `device_ids`/`output_device` raise PyTorch's ValueError.

    Differences from PyTorch: `static_graph=True` is accepted and handled as `find_unused_parameters=True`
    (the same gradients); `batched_grad_copy` changes nothing (the copies are batched anyway);
    `delay_all_reduce_named_params`, `param_to_hook_all_reduce`, `mixed_precision`, `device_mesh`,
    `skip_all_reduce_unused_params` and `bucket_cap_mb_list` raise NotImplementedError when given.

    Uneven inputs: `with ddp.join():` (a `Joinable`; see `join`)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params=False, bucket_cap_mb_list=None,
                 batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
        Joinable.__init__(self)
        self._divide_by_initial_world_size = True
        if (delay_all_reduce_named_params is not None) != (param_to_hook_all_reduce is not None):
            raise ValueError("delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at "
                             "the same time.")
        for name, value in (("delay_all_reduce_named_params", delay_all_reduce_named_params),
                            ("mixed_precision", mixed_precision), ("device_mesh", device_mesh),
                            ("bucket_cap_mb_list", bucket_cap_mb_list)):
            if value is not None:
                raise NotImplementedError(f"DistributedDataParallel({name}=...) is not supported by "
                                          "torchshim")
        if skip_all_reduce_unused_params:
            raise NotImplementedError("DistributedDataParallel(skip_all_reduce_unused_params=True) is not "
                                      "supported by torchshim")
        if process_group is None:
            dist.get_world_size()  # PyTorch's ValueError when there is no default process group
        self.process_group = process_group
        ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        self.parameters_to_ignore = ignore
        module_params = [p for n, p in module.named_parameters() if n not in ignore]
        if not any(p.requires_grad for p in module_params):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any "
                               "parameter that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        self.is_multi_device_module = len({p.device for p in module_params}) > 1
        types = {p.device.type for p in module_params}
        if len(types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of devices, "
                             f"but input module parameters locate in {types}.")
        self.device_type = next(iter(types))
        if not device_ids or self.device_type == "cpu" or self.is_multi_device_module:
            if device_ids or output_device:
                devices = {p.device for p in module_params}
                raise ValueError("DistributedDataParallel device_ids and output_device arguments only work "
                                 "with single-device/multiple-device GPU modules or CPU modules, but got "
                                 f"device_ids {device_ids}, output_device {output_device}, and module "
                                 f"parameters {devices}.")
            self.device_ids = None
            self.output_device = None
        else:  # a single-device GPU module: inputs are moved to device_ids[0] before each forward
            self.device_ids = [_device_index(d) for d in device_ids]
            self.output_device = _device_index(device_ids[0] if output_device is None else output_device)
        self.dim = dim
        self.module = module
        self.device = module_params[0].device
        if broadcast_buffers is not None:
            if forward_sync_buffers is not None:
                warnings.warn("Both `broadcast_buffers` and `forward_sync_buffers` were specified. "
                              "`broadcast_buffers` is deprecated and its value is ignored when "
                              "`forward_sync_buffers` is provided.", FutureWarning, stacklevel=2)
            else:
                warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. "
                              "IMPORTANT: unlike `broadcast_buffers=False`, `forward_sync_buffers=False` "
                              "still syncs buffers at init. If you rely on buffers NOT being synced at "
                              "init (e.g. rank-local buffers), keep using `broadcast_buffers=False` until "
                              "`init_sync_buffers` is available.", FutureWarning, stacklevel=2)
        if forward_sync_buffers is not None:
            self.forward_sync_buffers = bool(forward_sync_buffers)
            init_sync_buffers = True
        else:
            self.forward_sync_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
            init_sync_buffers = self.forward_sync_buffers
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is deprecated. "
                          "Please avoid using it.", FutureWarning, stacklevel=2)
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = bool(static_graph)
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.batched_grad_copy = batched_grad_copy
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap_mb = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * _MB)
        first_cap = DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        params = self._params_for_reducer()
        self._src = self._group_rank0()
        if init_sync:
            _verify_param_shapes(params, process_group)
            with torch.no_grad():
                tensors = [p for n, p in module.named_parameters() if n not in ignore]
                if init_sync_buffers:
                    tensors += self._module_buffers()
                _broadcast_coalesced(tensors, self._src, process_group)
        self._reducer = Reducer(params, process_group, self.bucket_bytes_cap, first_cap,
                                find_unused_parameters or self.static_graph, gradient_as_bucket_view)

    # -- construction helpers ----------------------------------------------------------------------------
    def _params_for_reducer(self):
        seen, out = set(), []
        for mname, m in self.module.named_modules():
            for pname, p in m.named_parameters(recurse=False):
                full = f"{mname}.{pname}" if mname else pname
                if p.requires_grad and full not in self.parameters_to_ignore and id(p) not in seen:
                    seen.add(id(p))
                    out.append(p)
        return out

    def _module_buffers(self):
        return [b for n, b in self.module.named_buffers() if n not in self.parameters_to_ignore]

    def _group_rank0(self):
        if self.process_group is None:
            return 0
        return dist.get_global_rank(self.process_group, 0)

    # -- the public API -------------------------------------------------------------------------------------
    @property
    def broadcast_buffers(self):
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value):
        self.forward_sync_buffers = value

    def will_sync_module_buffers(self):
        """Whether the next forward broadcasts the buffers from rank 0."""
        return (self.require_forward_param_sync and self.forward_sync_buffers
                and len(self._module_buffers()) > 0)

    @contextlib.contextmanager
    def no_sync(self):
        """`with ddp.no_sync():` forwards and backwards inside accumulate gradients locally, without any
        communication; the first synchronised backward after it averages the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def forward(self, *inputs, **kwargs):
        """Broadcast the buffers from rank 0 (when `will_sync_module_buffers()`), run the module, and arm
        the gradient reducer when grad mode is on and sync is required."""
        return self._forward_with(self.module, *inputs, **kwargs)

    def _compile_split(self):
        """`torch.compile(ddp)`: the program is the wrapped module's forward; the buffer broadcast and the
        arming of the reducer run eagerly around it at every call (PyTorch's compiled DDP also keeps them
        outside its graphs); the backward, with its bucket all-reduces, is eager."""
        return self.module, self._forward_with

    def _forward_with(self, run_module, *inputs, **kwargs):
        work = Join.notify_join_context(self)  # inside `join()`: "this rank has not joined" (None outside)
        if work:
            self._reducer.set_forward_pass_work_handle(work, self._divide_by_initial_world_size)
        if self.will_sync_module_buffers():
            self._sync_buffers()
        if self._join_config.enable:
            self._check_global_requires_backward_grad_sync(is_joined_rank=False)
        if self.device_ids:
            device = torch.device(self.device_type, self.device_ids[0])
            inputs, kwargs = _to_device(inputs, device), _to_device(kwargs, device)
        output = run_module(*inputs, **kwargs)
        if torch.is_grad_enabled() and self.require_backward_grad_sync:
            self.require_forward_param_sync = True
            self._reducer.prepare_for_backward(_find_tensors(output) if self._reducer.find_unused else [])
        else:
            self.require_forward_param_sync = False
        return output

    def register_comm_hook(self, state, hook):
        """`register_comm_hook(state, hook)`: `hook(state, bucket: GradBucket) -> torch.futures.Future`
        replaces the all-reduce of each bucket; the future's value (a tensor, or a list holding one, of the
        bucket's shape) is written back into the gradients, cast to their dtype. The bucket is not
        pre-divided by the world size. Only one hook, registered before the first backward; the hook's
        second parameter must be named `bucket`, and its annotations, if any, `dist.GradBucket` and
        `torch.futures.Future[torch.Tensor]` (PyTorch's errors otherwise). Hooks for any state:
        `torch.distributed.algorithms.ddp_comm_hooks`."""
        self._check_comm_hook(hook)
        self._set_comm_hook(hook, state)

    def _register_builtin_comm_hook(self, comm_hook_type):
        """`_register_builtin_comm_hook(comm_hook_type: dist.BuiltinCommHookType)`: ALLREDUCE or
        FP16_COMPRESS, on the DDP's process group (PyTorch's C++ hooks; here the Python `allreduce_hook` and
        `fp16_compress_hook`, which compute the same)."""
        from ...distributed.algorithms.ddp_comm_hooks import default_hooks
        if not isinstance(comm_hook_type, dist.BuiltinCommHookType):
            raise TypeError("_register_builtin_comm_hook(): incompatible function arguments. The following "
                            "argument types are supported:\n    1. (reducer: torch._C._distributed_c10d."
                            "Reducer, comm_hook_type: torch._C._distributed_c10d.BuiltinCommHookType) -> None"
                            f"\n\nInvoked with: {comm_hook_type!r}")
        hook = (default_hooks.allreduce_hook if comm_hook_type is dist.BuiltinCommHookType.ALLREDUCE
                else default_hooks.fp16_compress_hook)
        self._set_comm_hook(hook, self.process_group, "register_builtin_comm_hook or register_comm_hook")

    def _set_comm_hook(self, hook, state, names="register_comm_hook or register_builtin_comm_hook"):
        if self._reducer.comm_hook is not None:
            raise RuntimeError(f"{names} can only be called once.")
        self._reducer.comm_hook = (hook, state)

    def _check_comm_hook(self, hook):
        """PyTorch's checks of a communication hook: callable, the annotations of `bucket` and of the
        return, and the bf16 hooks only where CUDA+NCCL 2.10 (or XPU+XCCL) exist."""
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        sig = inspect.signature(hook)
        ann = sig.parameters["bucket"].annotation
        if ann is not inspect.Parameter.empty and ann != dist.GradBucket:
            raise ValueError("Communication hook: bucket annotation should be dist.GradBucket.")
        ret = sig.return_annotation
        if ret is not inspect.Signature.empty and ret != Future[torch.Tensor]:
            raise ValueError("Communication hook: return annotation should be "
                             "torch.futures.Future[torch.Tensor].")
        if hook.__name__ in ("bf16_compress_hook", "bf16_compress_wrapper_hook"):
            from ... import version
            cuda = version.cuda is not None or version.hip is not None
            if not (cuda and dist.is_nccl_available()):
                raise TypeError("BF16 all reduce communication hook required CUDA 11+ and NCCL 2.10+ or XPU "
                                "and XCCL")

    # -- uneven inputs (Join) --------------------------------------------------------------------------------
    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """`join(divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False)`: the
        context manager for uneven inputs, `Join([self], enable, throw_on_early_termination,
        divide_by_initial_world_size=...)`. A rank that runs out of data leaves the loop and, in `__exit__`,
        shadows the others' iterations (buffer broadcast, the gradient buckets with zeros) until every rank
        has joined; then the model of the last rank to join is broadcast to all. The gradients are divided
        by the initial world size (`divide_by_initial_world_size=True`) or by the number of ranks still
        training. `throw_on_early_termination=True`: every rank raises RuntimeError as soon as one runs out.
        Inside it, the buffers are broadcast from the highest non-joined rank (PyTorch's choice)."""
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        """`join_hook(**kwargs) -> JoinHook`: DDP's hook for `Join` (kwarg `divide_by_initial_world_size`,
        True by default): it shadows the forward's buffer broadcast and the backward's bucket all-reduces."""
        divide = kwargs.get("divide_by_initial_world_size", True)
        return _DDPJoinHook(self, divide_by_initial_world_size=divide)

    @property
    def join_device(self):
        return self.device

    @property
    def join_process_group(self):
        """The DDP's process group (the default group's ProcessGroup when it was built with None)."""
        return self.process_group if self.process_group is not None else dist.group.WORLD

    @property
    def _distributed_rank(self):
        return dist.get_rank(self.process_group)

    def _global_rank(self, group_rank):
        if self.process_group is None:
            return group_rank
        return dist.get_global_rank(self.process_group, group_rank)

    def _find_common_rank(self, input_rank, rank_cond):
        """The largest group rank among the ranks where `rank_cond` holds (an all-reduce MAX)."""
        rank = torch.tensor([input_rank if rank_cond else -1], device=self.device)
        dist.all_reduce(rank, op=dist.ReduceOp.MAX, group=self.process_group)
        if rank.item() == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process. This indicates a "
                             "bug in PyTorch, please report an issue.")
        return rank.item()

    def _sync_buffers(self):
        """Broadcast the buffers: from the group's rank 0, or, inside `join()`, from the highest rank that
        has not joined (rank 0 may have joined and hold stale buffers)."""
        with torch.no_grad():
            if self._join_config.enable:
                src = self._global_rank(self._find_common_rank(self._distributed_rank, True))
            else:
                src = self._src
            _broadcast_coalesced(self._module_buffers(), src, self.process_group)

    def _check_and_sync_module_buffers(self):
        """A joined rank's side of `_sync_buffers`."""
        if self.will_sync_module_buffers():
            src = self._global_rank(self._find_common_rank(self._distributed_rank, False))
            with torch.no_grad():
                _broadcast_coalesced(self._module_buffers(), src, self.process_group)

    def _check_global_requires_backward_grad_sync(self, is_joined_rank):
        """Inside `join()`: an all-reduce telling the joined ranks whether this iteration's backward
        synchronises (1 from each training rank with grad sync on); the joined ranks get the answer."""
        flag = torch.ones(1, device=self.device) if (not is_joined_rank and self.require_backward_grad_sync) \
            else torch.zeros(1, device=self.device)
        work = dist.all_reduce(flag, group=self.process_group, async_op=True)
        if is_joined_rank:
            work.wait()
            return flag.item() != 0
        return None

    def _match_all_reduce_for_bwd_pass(self):
        """A joined rank's side of one backward pass: the reducer's collectives, with zero gradients."""
        self._reducer.shadow_backward()

    def _sync_final_model(self, is_last_joiner):
        """After every rank joined: broadcast the parameters (and the buffers, when they are synchronised)
        from the highest rank among the last to join."""
        src = self._global_rank(self._find_common_rank(self._distributed_rank, is_last_joiner))
        with torch.no_grad():
            tensors = [p for n, p in self.module.named_parameters() if n not in self.parameters_to_ignore]
            if self.forward_sync_buffers:
                tensors += self._module_buffers()
            _broadcast_coalesced(tensors, src, self.process_group)

    def _set_static_graph(self):
        self.static_graph = True
        self._reducer.find_unused = True

"""One rank of test_distributed_join.py's multi-process run: uneven inputs (Join) and DDP communication hooks.

    RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p python join_checks.py torch|torchshim OUT_DIR

Imports the library named by argv[1] as `torch` (the same checks run on real PyTorch's gloo: the oracle for
values and error texts), joins the group through `env://` and writes OUT_DIR/rank{r}.json. Rank 0 trains on 5
batches and rank 1 on 3 inside `ddp.join(...)`; the results are the final state_dicts (which must equal
PyTorch's), errors as [type, message]. Weights and data come from numpy.
"""
import contextlib
import importlib
import json
import os
import sys
import time

import numpy as np

from dist_script import error

T0 = time.time()

torch = importlib.import_module(sys.argv[1])
OUT = sys.argv[2]
dist = torch.distributed
nn = torch.nn
F = torch.nn.functional
DDP = torch.nn.parallel.DistributedDataParallel
from_algorithms = importlib.import_module(sys.argv[1] + ".distributed.algorithms")
hooks = importlib.import_module(sys.argv[1] + ".distributed.algorithms.ddp_comm_hooks")
default = hooks.default_hooks
Join, Joinable, JoinHook = from_algorithms.Join, from_algorithms.Joinable, from_algorithms.JoinHook

dist.init_process_group("gloo")
RANK, WORLD = dist.get_rank(), dist.get_world_size()
results = {"rank": RANK}
print(f"init done {time.time() - T0:.1f}s", flush=True)

D_IN, D_H, D_OUT, BATCH = 5, 8, 3, 4
rng = np.random.default_rng(0)
X = rng.standard_normal((2 * 8 * BATCH, D_IN)).astype(np.float32)
Y = rng.integers(0, D_OUT, len(X))
WEIGHTS = [rng.uniform(-0.5, 0.5, s).astype(np.float32)
           for s in ((D_H, D_IN), (D_H,), (D_OUT, D_H), (D_OUT,))]
EXTRA_WEIGHT = np.random.default_rng(1).uniform(-0.5, 0.5, (D_OUT, D_OUT)).astype(np.float32)
MY_BATCHES = 5 if RANK == 0 else 3


def make_model():
    """Linear -> BatchNorm1d (buffers) -> Tanh -> Linear, rank 1 perturbed (DDP broadcasts rank 0's)."""
    model = nn.Sequential(nn.Linear(D_IN, D_H), nn.BatchNorm1d(D_H), nn.Tanh(), nn.Linear(D_H, D_OUT))
    with torch.no_grad():
        for p, w in zip([model[0].weight, model[0].bias, model[3].weight, model[3].bias], WEIGHTS):
            p.copy_(torch.tensor(w + 0.1 * RANK))
    return model


class Net(nn.Module):
    """make_model(); `extra` adds a Linear applied to the output only while `use_extra` is set
    (find_unused_parameters)."""

    def __init__(self, extra):
        super().__init__()
        self.seq = make_model()
        self.use_extra = False
        if extra:
            self.extra = nn.Linear(D_OUT, D_OUT)
            with torch.no_grad():
                self.extra.weight.copy_(torch.tensor(EXTRA_WEIGHT))
                self.extra.bias.zero_()

    def forward(self, x):
        y = self.seq(x)
        return self.extra(y) if self.use_extra else y


def batches(n):
    for k in range(n):
        lo = (RANK * 8 + k) * BATCH
        yield torch.tensor(X[lo:lo + BATCH]), torch.tensor(Y[lo:lo + BATCH])


def state(model):
    return {k: v.detach().double().reshape(-1).tolist() for k, v in model.module.state_dict().items()}


def train(n, join=None, hook=None, accumulate=False, generic=False, extra=False, **ddp_kwargs):
    """SGD with momentum over `n` batches of this rank, inside `ddp.join(**join)` (or `Join([ddp])`)
    unless `join` is None; `accumulate`: even iterations under no_sync (synchronised at the next one);
    `extra`: a Linear that only rank 0's last two iterations use (rank 1 has joined by then).
    Returns (state_dict, losses)."""
    model = DDP(Net(extra), **ddp_kwargs)
    if hook is not None:
        hook(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []

    def loop():
        for k, (x, y) in enumerate(batches(n)):
            local = accumulate and k % 2 == 0  # accumulate locally, synchronise at the next one
            model.module.use_extra = extra and k >= 3
            if local or not accumulate:
                opt.zero_grad()
            with model.no_sync() if local else contextlib.nullcontext():
                loss = F.cross_entropy(model(x), y)
                loss.backward()
            if not local:
                opt.step()
            losses.append(loss.item())

    if join is None:
        loop()
    else:
        with (Join([model], **join) if generic else model.join(**join)):
            loop()
    return state(model), losses


def register(h, state=None):
    return lambda m: m.register_comm_hook(state, h)


# -- uneven inputs -------------------------------------------------------------------------------------------
results["join_default"] = train(MY_BATCHES, join={})
results["join_effective_world"] = train(MY_BATCHES, join={"divide_by_initial_world_size": False})
results["join_generic"] = train(MY_BATCHES, join={"divide_by_initial_world_size": False}, generic=True)
results["join_accumulate"] = train(MY_BATCHES, join={}, accumulate=True)
results["join_find_unused"] = train(MY_BATCHES, join={}, extra=True, find_unused_parameters=True)
results["join_fp16_hook_small_buckets"] = train(MY_BATCHES, join={}, bucket_cap_mb=0.0001,
                                                hook=register(default.fp16_compress_hook))
results["join_no_buffer_sync"] = train(MY_BATCHES, join={}, broadcast_buffers=False)
results["join_disabled_even"] = train(3, join={"enable": False})
results["even_no_join"] = train(3)


print(f"joins done {time.time() - T0:.1f}s", flush=True)


class Counter(Joinable):
    """A Joinable of its own: each step all-reduces a value; the hook shadows it with 0."""

    def __init__(self):
        super().__init__()
        self.total, self.last = 0.0, None

    def join_hook(self, **kwargs):
        return CounterHook(self, kwargs.get("scale", 1.0))

    @property
    def join_device(self):
        return torch.device("cpu")

    @property
    def join_process_group(self):
        return None

    def step(self, v):
        Join.notify_join_context(self)
        t = torch.tensor([float(v)])
        dist.all_reduce(t)
        self.total += t.item()


class CounterHook(JoinHook):
    def __init__(self, counter, scale):
        self.counter, self.scale = counter, scale

    def main_hook(self):
        t = torch.zeros(1)
        dist.all_reduce(t)
        self.counter.total += self.scale * t.item()

    def post_hook(self, is_last_joiner):
        self.counter.last = is_last_joiner


counter = Counter()
with Join([counter], scale=2.0):
    for i in range(4 if RANK == 0 else 1):
        counter.step(i + 10 * RANK)
results["custom_joinable"] = [counter.total, counter.last]


# -- comm hooks, even inputs ---------------------------------------------------------------------------------
def builtin(kind):
    return lambda m: m._register_builtin_comm_hook(getattr(dist.BuiltinCommHookType, kind))


def unchecked(h):
    """Register `h` past PyTorch's CUDA-only check of the bf16 hooks (to compare their values on CPU)."""
    def reg(m):
        m._check_comm_hook = lambda hook: None
        m.register_comm_hook(None, h)
    return reg


HOOKS = {
    "allreduce": register(default.allreduce_hook),
    "allreduce_world_state": register(default.allreduce_hook, dist.group.WORLD),
    "fp16": register(default.fp16_compress_hook),
    "fp16_wrapper": register(default.fp16_compress_wrapper(default.allreduce_hook)),
    "noop": register(hooks.debugging_hooks.noop_hook),
    "enum_fp16": lambda m: hooks.register_ddp_comm_hook(hooks.DDPCommHookType.FP16_COMPRESS, m),
    "enum_allreduce": lambda m: hooks.DDPCommHookType.ALLREDUCE.value(model=m, state=None),
    "builtin_allreduce": builtin("ALLREDUCE"),
    "builtin_fp16": builtin("FP16_COMPRESS"),
    "bf16_unchecked": unchecked(default.bf16_compress_hook),
    "bf16_wrapper_unchecked": unchecked(default.bf16_compress_wrapper(default.allreduce_hook)),
}
for name, reg in HOOKS.items():
    results["hook_" + name] = train(3, hook=reg, bucket_cap_mb=0.0001) if name.startswith("fp16") or \
        name == "allreduce" else train(3, hook=reg)
    if name == "fp16":
        results["hook_fp16_one_bucket"] = train(3, hook=reg)


print(f"hooks done {time.time() - T0:.1f}s", flush=True)


# -- registration errors -------------------------------------------------------------------------------------
def bad_bucket_annotation(state, bucket: int):
    return None


def bad_return_annotation(state, bucket) -> int:
    return None


def bucket_named_b(state, b):
    return None


def good_annotations(state, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    return default.allreduce_hook(state, bucket)


def fresh():
    return DDP(Net(False))


checks = {
    "not_callable": lambda: fresh().register_comm_hook(None, 3),
    "bucket_annotation": lambda: fresh().register_comm_hook(None, bad_bucket_annotation),
    "return_annotation": lambda: fresh().register_comm_hook(None, bad_return_annotation),
    "bucket_param_name": lambda: fresh().register_comm_hook(None, bucket_named_b),
    "good_annotations": lambda: fresh().register_comm_hook(None, good_annotations),
    "bf16_hook": lambda: fresh().register_comm_hook(None, default.bf16_compress_hook),
    "bf16_wrapper": lambda: fresh().register_comm_hook(None,
                                                       default.bf16_compress_wrapper(default.allreduce_hook)),
}
for name, fn in checks.items():
    results["error_" + name] = error(fn)
wrapped = default.fp16_compress_wrapper(default.allreduce_hook)
results["fp16_wrapper_name"] = [wrapped.__name__, wrapped.__qualname__]
m = fresh()
results["error_twice_comm_hook"] = error(lambda: [m.register_comm_hook(None, default.allreduce_hook)
                                                  for _ in range(2)])
m = fresh()
m.register_comm_hook(None, default.allreduce_hook)
results["error_twice"] = error(lambda: m._register_builtin_comm_hook(dist.BuiltinCommHookType.ALLREDUCE))
results["error_builtin_type"] = error(lambda: fresh()._register_builtin_comm_hook("ALLREDUCE"))[0]
results["join_attrs"] = [m.join_process_group is dist.group.WORLD, str(m.join_device),
                         type(m.join_hook()).__name__, isinstance(m, Joinable)]
results["join_hook_not_ddp"] = error(lambda: type(m.join_hook())(nn.Linear(1, 1), True))


# -- throw_on_early_termination (last: the ranks leave the join mid-iteration) -------------------------------
def throw():
    model = DDP(Net(False))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    done = 0
    try:
        with model.join(throw_on_early_termination=True):
            for x, y in batches(MY_BATCHES):
                opt.zero_grad()
                F.cross_entropy(model(x), y).backward()
                opt.step()
                done += 1
    except RuntimeError as e:
        return [type(e).__name__, str(e), done, state(model)]
    return ["no error", done]


results["throw"] = throw()
t = torch.tensor([1.0 + RANK])
dist.all_reduce(t)  # the group still works after the error
results["after_throw"] = t.item()

results["seconds"] = time.time() - T0
with open(os.path.join(OUT, f"rank{RANK}.json"), "w") as f:
    json.dump(results, f)
dist.destroy_process_group()

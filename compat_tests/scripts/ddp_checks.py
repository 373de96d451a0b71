"""One rank of test_distributed_ddp.py's multi-process run: every DistributedDataParallel check in one launch.

    RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p python ddp_checks.py torch|torchshim OUT_DIR

Imports the library named by argv[1] as `torch` (the same checks run on real PyTorch's gloo for the error
texts and the values), joins the group through `env://` and writes OUT_DIR/rank{r}.json: the results of each
check (values as lists, errors as [type, message]). Rank 0 also trains the same models in one process on the
full batch (the reference) and saves a checkpoint of a DDP model to OUT_DIR/ddp.pt. Weights and data come
from numpy, so that both libraries start from the same numbers.
"""
import importlib
import json
import os
import sys

import numpy as np

from dist_script import error

torch = importlib.import_module(sys.argv[1])
OUT = sys.argv[2]
dist = torch.distributed
nn = torch.nn
F = torch.nn.functional
DDP = torch.nn.parallel.DistributedDataParallel
DistributedSampler = torch.utils.data.distributed.DistributedSampler
SHIM = sys.argv[1] == "torchshim"

dist.init_process_group("gloo")
RANK, WORLD = dist.get_rank(), dist.get_world_size()
results = {"rank": RANK, "world": WORLD}

N, D_IN, D_H, D_OUT = 64, 6, 16, 3
rng = np.random.default_rng(0)
X = rng.standard_normal((N, D_IN)).astype(np.float32)
Y = rng.integers(0, D_OUT, N)
WEIGHTS = [rng.uniform(-0.4, 0.4, s).astype(np.float32)
           for s in ((D_H, D_IN), (D_H,), (D_H, D_H), (D_H,), (D_OUT, D_H), (D_OUT,))]
dataset = torch.utils.data.TensorDataset(torch.tensor(X), torch.tensor(Y))


def make_model(perturb=0.0):
    model = nn.Sequential(nn.Linear(D_IN, D_H), nn.Tanh(), nn.Linear(D_H, D_H), nn.Tanh(),
                          nn.Linear(D_H, D_OUT))
    with torch.no_grad():
        for p, w in zip(model.parameters(), WEIGHTS):
            p.copy_(torch.tensor(w + perturb))
    return model


def params_of(model):
    return [p.detach().reshape(-1).tolist() for p in model.parameters()]


def train_ddp(steps, batch, accumulate=1, shuffle=True, **ddp_kwargs):
    """`steps` SGD-with-momentum steps of a DDP model over DistributedSampler batches of `batch` per rank
    (each step `accumulate` micro-batches, all but the last under no_sync); the ranks start from different
    weights (construction broadcasts rank 0's)."""
    model = DDP(make_model(perturb=0.1 * RANK), **ddp_kwargs)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sampler = DistributedSampler(dataset, shuffle=shuffle, seed=3)
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch, sampler=sampler)
    losses, step, epoch = [], 0, 0
    while step < steps:
        sampler.set_epoch(epoch)
        micro = []
        for x, y in loader:
            micro.append((x, y))
            if len(micro) < accumulate:
                continue
            opt.zero_grad()
            for k, (mx, my) in enumerate(micro):
                if k < accumulate - 1:
                    with model.no_sync():
                        F.cross_entropy(model(mx), my).div(accumulate).backward()
                else:
                    loss = F.cross_entropy(model(mx), my) / accumulate
                    loss.backward()
            opt.step()
            losses.append(loss.item())
            micro = []
            step += 1
            if step == steps:
                break
        epoch += 1
    return model, losses


def train_reference(steps, batch, shuffle=True):
    """The same training in this process alone: each step on the union of the ranks' batches."""
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    step, epoch = 0, 0
    while step < steps:
        sampler = DistributedSampler(dataset, num_replicas=1, rank=0, shuffle=shuffle, seed=3)
        sampler.set_epoch(epoch)
        order = list(sampler)
        for k in range(0, N, batch):
            idx = torch.tensor(order[k:k + batch])
            opt.zero_grad()
            F.cross_entropy(model(dataset.tensors[0][idx]), dataset.tensors[1][idx]).backward()
            opt.step()
            step += 1
            if step == steps:
                break
        epoch += 1
    return model


# -- the sampler reads the group ------------------------------------------------------------------------
s = DistributedSampler(dataset)
results["sampler"] = [s.num_replicas, s.rank, len(s)]

# -- construction broadcasts rank 0's parameters and buffers ----------------------------------------------
m = make_model(perturb=float(RANK))
m.register_buffer("stat", torch.full((2,), float(RANK)))
ddp = DDP(m)
results["init_params_equal_rank0"] = params_of(ddp.module) == params_of(make_model())
results["init_buffer"] = ddp.module.stat.tolist()
results["state_dict_keys"] = list(ddp.state_dict())
ddp.module.stat.fill_(10.0 + RANK)
ddp(torch.zeros(2, D_IN))
results["forward_buffer"] = ddp.module.stat.tolist()  # broadcast before each forward
ddp_nb = DDP(make_model(), forward_sync_buffers=False)
ddp_nb.module.register_buffer("stat", torch.full((1,), float(RANK)))
ddp_nb(torch.zeros(2, D_IN))
results["forward_buffer_nosync"] = ddp_nb.module.stat.tolist()

# -- 20 steps with 2 processes = one process on the full batch ---------------------------------------------
calls = []
if SHIM:  # count the collectives a step issues (bucketing): torchshim's reducer calls dist.all_reduce
    real_all_reduce = dist.all_reduce

    def counting_all_reduce(tensor, *args, **kwargs):
        calls.append(tensor.numel())
        return real_all_reduce(tensor, *args, **kwargs)
    dist.all_reduce = counting_all_reduce
model, losses = train_ddp(20, 8)
results["train_params"] = params_of(model.module)
results["train_losses"] = losses
results["collectives_per_step"] = [len(calls) / 20, sorted(set(calls))]
del calls[:]
# ~524 bytes: several buckets; no shuffle (torchshim's randperm is not PyTorch's): comparable with PyTorch
model_b, losses_b = train_ddp(20, 8, shuffle=False, bucket_cap_mb=0.0005)
results["small_buckets_params"] = params_of(model_b.module)
results["small_buckets_losses"] = losses_b
results["small_buckets_collectives_per_step"] = [len(calls) / 20, calls[:len(calls) // 20]]
if SHIM:
    dist.all_reduce = real_all_reduce
model_v, _ = train_ddp(20, 8, gradient_as_bucket_view=True)
results["bucket_view_params"] = params_of(model_v.module)
results["bucket_view_grad_is_view"] = model_v.module[0].weight.grad._base is not None

# -- no_sync: 2 micro-batches of 4 per rank, the first under no_sync ---------------------------------------
model_a, _ = train_ddp(10, 4, accumulate=2)
results["no_sync_params"] = params_of(model_a.module)
# a no_sync backward leaves the gradients local
ddp_ns = DDP(make_model())
with ddp_ns.no_sync():
    F.cross_entropy(ddp_ns(dataset.tensors[0][RANK::2]), dataset.tensors[1][RANK::2]).backward()
results["no_sync_grad"] = ddp_ns.module[0].bias.grad.tolist()

# -- comm hooks ---------------------------------------------------------------------------------------------


def noop_hook(state, bucket):
    fut = torch.futures.Future()
    fut.set_result(bucket.buffer())
    return fut


def allreduce_hook(state, bucket):
    t = bucket.buffer().div_(WORLD)
    return dist.all_reduce(t, async_op=True).get_future().then(lambda f: f.value()[0])


for name, hook in (("noop_hook", noop_hook), ("allreduce_hook", allreduce_hook)):
    ddp_h = DDP(make_model())
    ddp_h.register_comm_hook(None, hook)
    F.cross_entropy(ddp_h(dataset.tensors[0][RANK::2]), dataset.tensors[1][RANK::2]).backward()
    results[name] = ddp_h.module[0].bias.grad.tolist()
    results[name + "_twice"] = error(lambda m=ddp_h, h=hook: m.register_comm_hook(None, h))

# -- unused parameters -------------------------------------------------------------------------------------


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(3, 2), nn.Linear(3, 2), nn.Linear(2, 1)
        with torch.no_grad():
            for k, p in enumerate(self.parameters()):
                w = np.linspace(-0.5, 0.5, p.numel()).reshape(p.shape).astype(np.float32) + k
                p.copy_(torch.tensor(w))

    def forward(self, x, use_b=False):
        return self.c(self.b(x) if use_b else self.a(x))


xu = torch.tensor(np.arange(12, dtype=np.float32).reshape(4, 3) * (RANK + 1))
ddp_u = DDP(TwoHeads())
ddp_u(xu).sum().backward()
results["unused_first_grad_b"] = ddp_u.module.b.weight.grad is None
results["unused_error"] = error(lambda: ddp_u(xu))
ddp_f = DDP(TwoHeads(), find_unused_parameters=True)
for _ in range(2):
    ddp_f.zero_grad()
    ddp_f(xu, use_b=RANK == 1).sum().backward()  # b used on rank 1 only, a on rank 0 only
results["find_unused_grads"] = [None if p.grad is None else p.grad.reshape(-1).tolist()
                                for p in ddp_f.module.parameters()]
ddp_f2 = DDP(TwoHeads(), find_unused_parameters=True)
ddp_f2(xu).sum().backward()  # b unused everywhere: its grad stays None
results["find_unused_global"] = [p.grad is None for p in ddp_f2.module.parameters()]
ddp_s = DDP(TwoHeads(), static_graph=True)
for _ in range(2):
    ddp_s.zero_grad()
    ddp_s(xu).sum().backward()
results["static_graph_grads"] = [None if p.grad is None else p.grad.reshape(-1).tolist()
                                 for p in ddp_s.module.parameters()]

# -- argument errors -------------------------------------------------------------------------------------
results["err_device_ids"] = error(lambda: DDP(nn.Linear(2, 2), device_ids=[0]))
results["err_device_ids_2"] = error(lambda: DDP(nn.Linear(2, 2), device_ids=[0, 1]))
results["ok_output_device_0"] = error(lambda: DDP(nn.Linear(2, 2), output_device=0))
results["err_no_params"] = error(lambda: DDP(nn.ReLU()))
if SHIM:  # PyTorch's rank 0 waits forever here; torchshim raises on every rank
    results["err_shapes"] = error(lambda: DDP(nn.Linear(3, 2 + RANK)))
    results["err_count"] = error(lambda: DDP(nn.Sequential(*[nn.Linear(3, 3) for _ in range(1 + RANK)])))

# -- torch.compile of a DDP training step (torchshim only: inductor would take minutes) ---------------------
if SHIM:
    import warnings

    def make_step(ddp_c, opt_c):
        def step():
            loss = F.cross_entropy(ddp_c(dataset.tensors[0][RANK::2]), dataset.tensors[1][RANK::2])
            loss.backward()
            opt_c.step()
            opt_c.zero_grad()
            return loss
        return step

    compiled = {}
    for mode in ("eager", "compiled"):
        ddp_c = DDP(make_model())
        step = make_step(ddp_c, torch.optim.SGD(ddp_c.parameters(), lr=0.1))
        fn = torch.compile(step) if mode == "compiled" else step
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                fn()
        compiled[mode] = params_of(ddp_c.module)
        compiled[mode + "_warnings"] = [str(w.message) for w in caught if "torch.compile" in str(w.message)]
    results["compiled_step"] = compiled

# -- checkpoint from rank 0 --------------------------------------------------------------------------------
if RANK == 0:
    torch.save(model.state_dict(), os.path.join(OUT, "ddp.pt"))
dist.barrier()

# -- the references, in one process ------------------------------------------------------------------------
if RANK == 0:
    results["ref_params"] = params_of(train_reference(20, 16))
    results["ref_params_noshuffle"] = params_of(train_reference(20, 16, shuffle=False))
    results["ref_no_sync_params"] = params_of(train_reference(10, 16))
    ref = make_model()
    F.cross_entropy(ref(dataset.tensors[0]), dataset.tensors[1]).backward()
    results["ref_full_grad"] = ref[0].bias.grad.tolist()
local = make_model()
F.cross_entropy(local(dataset.tensors[0][RANK::2]), dataset.tensors[1][RANK::2]).backward()
results["ref_local_grad"] = local[0].bias.grad.tolist()

dist.destroy_process_group()
with open(os.path.join(OUT, f"rank{RANK}.json"), "w") as f:
    json.dump(results, f)

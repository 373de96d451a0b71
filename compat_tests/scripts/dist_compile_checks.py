"""One rank of test_distributed_compile.py's multi-process run: collectives inside torch.compile'd functions.

    RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p python dist_compile_checks.py OUT_DIR

(WORLD_SIZE=1: only the first checks, on a world of one process.)

torchshim only (the oracle for values is the same code run eagerly, and one process on the full batch). Writes
OUT_DIR/rank{r}.json: for each check its values, the torch.compile warnings it raised, whether the compiled
function's programs hold collectives (not eager) and how many eager collective programs ran
(`_programs.run` calls) while the compiled calls ran.
"""
import json
import os
import sys
import time
import warnings

import numpy as np

from dist_script import error

import torchshim as torch
from torchshim.distributed import _programs

OUT = sys.argv[1]
dist = torch.distributed
nn = torch.nn
F = torch.nn.functional
DDP = torch.nn.parallel.DistributedDataParallel

dist.init_process_group("gloo")
RANK, WORLD = dist.get_rank(), dist.get_world_size()
results = {"rank": RANK, "world": WORLD}

_EAGER_RUNS = [0]
_run = _programs.run


def _counting_run(*a, **k):
    _EAGER_RUNS[0] += 1
    return _run(*a, **k)


_programs.run = _counting_run


def programs_of(cf):
    """[(eager, number of collectives)] of a compiled function's cache entries."""
    cf = getattr(cf, "_compiled", cf)
    return [[e.eager, len(e.collectives or []) if not e.eager else 0] for e in cf.cache.values()]


def run_compiled(fn, calls):
    """Call `fn()` `calls` times (compiled and eager); the values, warnings and eager collective programs."""
    out = {}
    cf = torch.compile(fn)
    for mode, f in (("eager", fn), ("compiled", cf)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            before = _EAGER_RUNS[0]
            vals = [f() for _ in range(calls)]
            out[mode + "_eager_runs"] = _EAGER_RUNS[0] - before
        out[mode] = [[v.tolist() for v in (r if isinstance(r, (list, tuple)) else [r])] for r in vals]
        out[mode + "_warnings"] = [str(w.message) for w in caught if "torch.compile" in str(w.message)]
    out["programs"] = programs_of(cf)
    return out


# -- collectives in a compiled function -------------------------------------------------------------------
base = torch.arange(6, dtype=torch.float32).reshape(2, 3) + 1 + RANK * 10
RO = dist.ReduceOp


def reductions():
    outs = []
    for op in (RO.SUM, RO.AVG, RO.MIN, RO.MAX, RO.PRODUCT):
        t = base * 1.5
        dist.all_reduce(t, op=op)
        outs.append(t + 1)
    i = (base * 2).to(torch.int64)
    dist.all_reduce(i)
    outs.append(i)
    s = base.sum()  # a 0-d tensor
    dist.all_reduce(s, op=RO.MAX)
    outs.append(s)
    b = base > 3 + RANK * 10
    dist.all_reduce(b)
    outs.append(b)
    return outs


results["reductions"] = run_compiled(reductions, 3)


def gathers():
    x = base * 2
    parts = [torch.empty_like(x) for _ in range(WORLD)]
    dist.all_gather(parts, x)
    cat = torch.empty(WORLD * 2, 3)
    dist.all_gather_into_tensor(cat, x + 1)
    y = x.clone()
    dist.broadcast(y, src=WORLD - 1)
    w = dist.all_reduce(x, async_op=True)  # an async Work inside the program
    w.wait()
    fut = dist.all_reduce(y, async_op=True).get_future().wait()[0]
    return parts + [cat, y, x, fut * 1]


results["gathers"] = run_compiled(gathers, 3)

if WORLD == 1:  # a world of one process: the collectives are their identity, no shard_map
    with open(os.path.join(OUT, f"rank{RANK}.json"), "w") as f:
        json.dump(results, f)
    dist.destroy_process_group()
    sys.exit(0)


def with_rng():
    r = torch.rand(4)
    dist.all_reduce(r)
    return r


torch.manual_seed(5)
eager_rng = [with_rng().tolist() for _ in range(3)]
torch.manual_seed(5)
crng = torch.compile(with_rng)
results["rng"] = {"eager": eager_rng, "compiled": [crng().tolist() for _ in range(3)],
                  "programs": programs_of(crng)}

# -- what stays a graph break --------------------------------------------------------------------------------
sub = dist.new_group([0, 1])


def on_subgroup():
    t = base * 3
    dist.all_reduce(t, group=sub)
    return t


def with_reduce():
    t = base * 3
    dist.reduce(t, dst=0)
    return t


results["subgroup"] = run_compiled(on_subgroup, 2)
results["reduce_breaks"] = run_compiled(with_reduce, 2)

# -- programs without collectives: one rank alone ------------------------------------------------------------
if RANK == 0:
    lone = torch.compile(lambda v: (v * 2).sum())
    before = _EAGER_RUNS[0]
    results["rank0_only"] = [float(lone(base)) for _ in range(3)] + [_EAGER_RUNS[0] - before]
dist.barrier()

# -- the ranks call different programs: a clear error, not a hang --------------------------------------------


def shaped(v):
    dist.all_reduce(v)
    return v


cshaped = torch.compile(shaped)
cshaped(torch.ones(3))
t0 = time.monotonic()
results["mismatch"] = error(lambda: cshaped(torch.ones(3 + RANK)))
results["mismatch_s"] = time.monotonic() - t0
results["after_mismatch"] = cshaped(torch.ones(3)).tolist()  # the group still works

# -- DDP + torch.compile of the whole step -------------------------------------------------------------------
N, D_IN, D_H, D_OUT = 64, 6, 16, 3
rng = np.random.default_rng(0)
X = torch.tensor(rng.standard_normal((N, D_IN)).astype(np.float32))
Y = torch.tensor(rng.integers(0, D_OUT, N))
WEIGHTS = [rng.uniform(-0.4, 0.4, s).astype(np.float32)
           for s in ((D_H, D_IN), (D_H,), (D_H, D_H), (D_H,), (D_OUT, D_H), (D_OUT,))]
STEPS = 10


def make_model(bn=False):
    model = nn.Sequential(nn.Linear(D_IN, D_H), nn.Tanh(), nn.Linear(D_H, D_H), nn.Tanh(),
                          nn.Linear(D_H, D_OUT))
    with torch.no_grad():
        for p, w in zip(model.parameters(), WEIGHTS):
            p.copy_(torch.tensor(w))
    if bn:  # buffers: DDP broadcasts them from rank 0 before each forward (inside the program)
        model = nn.Sequential(nn.BatchNorm1d(D_IN), model)
    return model


def params_of(model):
    return [p.detach().reshape(-1).tolist() for p in model.parameters()]


def train(mode, bn=False, **ddp_kwargs):
    """STEPS SGD-momentum steps of a DDP model on this rank's half of the batch; mode: eager, step (the
    whole step compiled), module (torch.compile(ddp_model), backward eager)."""
    ddp = DDP(make_model(bn), **ddp_kwargs)
    model = torch.compile(ddp) if mode == "module" else ddp
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    x, y = X[RANK::2], Y[RANK::2]

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    fn = torch.compile(step) if mode == "step" else step
    losses, runs = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(STEPS):
            before = _EAGER_RUNS[0]
            losses.append(float(fn()))
            runs.append(_EAGER_RUNS[0] - before)
    return {"params": params_of(ddp.module), "losses": losses, "eager_runs": runs,
            "buffers": [b.reshape(-1).tolist() for b in ddp.module.buffers()],
            "warnings": [str(w.message) for w in caught if "torch.compile" in str(w.message)],
            "programs": programs_of(fn) if mode == "step" else programs_of(model) if mode == "module" else []}


results["ddp_eager"] = train("eager")
results["ddp_step"] = train("step")
results["ddp_step_small_buckets"] = train("step", bucket_cap_mb=0.0005)
results["ddp_step_bucket_view"] = train("step", gradient_as_bucket_view=True)
results["ddp_module"] = train("module")
results["ddp_bn_eager"] = train("eager", bn=True)
results["ddp_bn_step"] = train("step", bn=True)
results["ddp_step_find_unused"] = train("step", find_unused_parameters=True)
results["ddp_module_find_unused"] = train("module", find_unused_parameters=True)
if RANK == 0:  # the reference: one process on the full batch
    ref = make_model()
    opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for _ in range(STEPS):
        F.cross_entropy(ref(X), Y).backward()
        opt.step()
        opt.zero_grad()
    results["ref_params"] = params_of(ref)

dist.destroy_process_group()
results["after_destroy"] = error(lambda: cshaped(torch.ones(3)))
with open(os.path.join(OUT, f"rank{RANK}.json"), "w") as f:
    json.dump(results, f)

"""torch.distributed with 2 local processes, side by side in one run: real PyTorch's gloo vs torchshim (JAX's
multi-process runtime, gloo CPU collectives) vs hand-written JAX (the same psum program torchshim runs,
called directly: the all_reduce rows only).

Cases
  all_reduce  `dist.all_reduce` (SUM, in place) of a float32 tensor of 1, 4, 16 and 64 MB; bus bandwidth
              = bytes * 2 (n - 1) / n / time (NCCL-tests' definition; with n = 2 it is bytes / time)
  ddp_step    one training step of the MLP of bench/ (784-512-512-10, batch 128 per rank, cross-entropy,
              SGD momentum 0.9: forward, backward, step, zero_grad) wrapped in DistributedDataParallel,
              against the same step without DDP run by the same 2 processes at the same time (so both see
              the same CPU contention): the ratio is DDP's overhead (gradient all-reduce, hooks)
  ddp_compiled_step  (torchshim only) the same DDP step under torch.compile: one program per step with the
              bucket all-reduce inside, against the compiled step without DDP

Each library runs as 2 worker processes of this script (`--worker LIB`, rank/port in the environment); each
timing is the median over `--batches` batches of `--iters` calls after warm-up, the slower rank's batch time
counting (a collective ends on both ranks together). Targets: torchshim's all_reduce bandwidth >= 0.8x
PyTorch's gloo; DDP step <= 1.3x the single-process step. Writes bench/results/distributed.json.
Run: `nox -s bench -- distributed` or `python bench/distributed.py [--iters N --batches N --no-torch]`.
"""
import argparse
import importlib
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES_MB = (1, 4, 16, 64)
WORLD = 2
TIMEOUT = 600


# ---- the worker (one rank) -------------------------------------------------------------------------------
def _sync(T, t):
    """Wait for t's value (torchshim dispatches asynchronously)."""
    v = getattr(t, "_value", None)
    if v is not None:
        v.block_until_ready()


def _timed(T, dist, fn, iters, batches, warmup):
    """Median over batches of the slowest rank's ms per call."""
    for _ in range(warmup):
        _sync(T, fn())
    times = []
    for _ in range(batches):
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(iters):
            r = fn()
        _sync(T, r)
        ms = T.tensor([(time.perf_counter() - t0) / iters * 1e3], dtype=T.float64)
        dist.all_reduce(ms, op=dist.ReduceOp.MAX)
        times.append(float(ms))
    return statistics.median(times)


def _mlp_step(T, ddp):
    import numpy as np
    nn, F = T.nn, T.nn.functional
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    if ddp:
        model = nn.parallel.DistributedDataParallel(model)
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    r = np.random.default_rng(T.distributed.get_rank())
    x = T.tensor(r.standard_normal((128, 784)).astype(np.float32))
    y = T.tensor(r.integers(0, 10, 128))

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def worker(lib, args):
    T = importlib.import_module(lib)
    dist = T.distributed
    dist.init_process_group("gloo")
    out = {"all_reduce_ms": {}, "version": getattr(T, "__version__", "?")}
    for mb in SIZES_MB:
        t = T.ones(mb * 1024 * 1024 // 4, dtype=T.float32)
        out["all_reduce_ms"][mb] = _timed(T, dist, lambda t=t: (dist.all_reduce(t), t)[1],
                                          max(1, args.iters // mb), args.batches, 2)
    out["local_step_ms"] = _timed(T, dist, _mlp_step(T, False), args.iters, args.batches, args.warmup)
    out["ddp_step_ms"] = _timed(T, dist, _mlp_step(T, True), args.iters, args.batches, args.warmup)
    if lib == "torchshim":  # PyTorch's inductor would compile for minutes on this machine
        out["local_compiled_step_ms"] = _timed(T, dist, T.compile(_mlp_step(T, False)), args.iters,
                                               args.batches, args.warmup)
        out["ddp_compiled_step_ms"] = _timed(T, dist, T.compile(_mlp_step(T, True)), args.iters,
                                             args.batches, args.warmup)
    if dist.get_rank() == 0:
        with open(args.out, "w") as f:
            json.dump(out, f)
    dist.destroy_process_group()


def jax_worker(args):
    """The hand-written JAX column: `jax.distributed` + one `jit(shard_map(psum))` per size over both
    processes' CPU devices (gloo), the floor under torchshim's all_reduce (which adds the ranks' agreement,
    the facade's write and the checks)."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    jax.distributed.initialize(f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", world, rank)
    mesh = Mesh(jax.devices(), ("r",))
    sharding = NamedSharding(mesh, P("r"))
    dev = jax.local_devices()[0]

    def program(fn):
        return jax.jit(jax.shard_map(fn, mesh=mesh, in_specs=P("r"), out_specs=P("r")))
    psum, pmax = program(lambda x: jax.lax.psum(x, "r")), program(lambda x: jax.lax.pmax(x, "r"))

    def glob(a):
        return jax.make_array_from_single_device_arrays((world * a.shape[0],), sharding, [a])

    def local(g):
        return g.addressable_shards[0].data

    def slowest(ms):
        return float(local(pmax(glob(jax.device_put(jnp.array([ms], jnp.float32), dev))))[0])

    out = {"all_reduce_ms": {}, "version": jax.__version__}
    for mb in SIZES_MB:
        x = jax.device_put(jnp.ones(mb * 1024 * 1024 // 4, jnp.float32), dev)
        iters = max(1, args.iters // mb)
        for _ in range(2):
            local(psum(glob(x))).block_until_ready()
        times = []
        for _ in range(args.batches):
            slowest(0.0)  # a barrier
            t0 = time.perf_counter()
            for _ in range(iters):
                r = local(psum(glob(x)))
            r.block_until_ready()
            times.append(slowest((time.perf_counter() - t0) / iters * 1e3))
        out["all_reduce_ms"][mb] = statistics.median(times)
    if rank == 0:
        with open(args.out, "w") as f:
            json.dump(out, f)
    jax.distributed.shutdown()


# ---- the parent ----------------------------------------------------------------------------------------
def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(lib, args, tmp):
    port, out = _free_port(), os.path.join(tmp, f"{lib}.json")
    procs = []
    for rank in range(WORLD):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(WORLD), LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", lib, "--out", out,
             "--iters", str(args.iters), "--batches", str(args.batches), "--warmup", str(args.warmup)],
            env=env))
    try:
        codes = [p.wait(timeout=TIMEOUT) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    if any(codes):
        raise SystemExit(f"{lib} workers exited {codes}")
    with open(out) as f:
        return json.load(f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--no-torch", action="store_true", help="skip the PyTorch column")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--json", default=os.path.join(HERE, "results", "distributed.json"))
    args = ap.parse_args(argv)
    if args.worker == "jax":
        return jax_worker(args)
    if args.worker:
        return worker(args.worker, args)
    import tempfile
    has_torch = not args.no_torch and importlib.util.find_spec("torch") is not None
    with tempfile.TemporaryDirectory() as tmp:
        res = {"torch": _run("torch", args, tmp)} if has_torch else {}
        res["torchshim"] = _run("torchshim", args, tmp)
        res["jax"] = _run("jax", args, tmp)
    rows = {}
    print(f"{'case':18} {'torch':>10} {'torchshim':>10} {'jax':>10} {'ts/torch':>9} {'ts/jax':>7}")
    for mb in SIZES_MB:
        gbs = {lib: mb * 2 ** 20 * 2 * (WORLD - 1) / WORLD / (r["all_reduce_ms"][str(mb)] / 1e3) / 1e9
               for lib, r in res.items()}
        ratio = gbs["torchshim"] / gbs["torch"] if "torch" in gbs else None
        vs_jax = gbs["torchshim"] / gbs["jax"]
        ms = {k: r["all_reduce_ms"][str(mb)] for k, r in res.items()}
        rows[f"all_reduce_{mb}MB"] = {"busbw_GBps": gbs, "ms": ms, "ratio": ratio, "vs_jax": vs_jax}
        print(f"{'all_reduce ' + str(mb) + ' MB':18} {gbs.get('torch', float('nan')):>8.2f}GB/s "
              f"{gbs['torchshim']:>6.2f}GB/s {gbs['jax']:>6.2f}GB/s "
              f"{ratio if ratio is not None else float('nan'):>8.2f}x {vs_jax:>6.2f}x")
    for lib, r in res.items():
        if "ddp_step_ms" not in r:
            continue
        over = r["ddp_step_ms"] / r["local_step_ms"]
        rows[f"ddp_step_{lib}"] = {"local_ms": r["local_step_ms"], "ddp_ms": r["ddp_step_ms"],
                                   "overhead": over}
        print(f"ddp_step {lib:9} local {r['local_step_ms']:8.2f} ms  DDP {r['ddp_step_ms']:8.2f} ms  "
              f"overhead {over:.2f}x")
        if "ddp_compiled_step_ms" in r:
            c_over = r["ddp_compiled_step_ms"] / r["local_compiled_step_ms"]
            rows[f"ddp_compiled_step_{lib}"] = {"local_ms": r["local_compiled_step_ms"],
                                                "ddp_ms": r["ddp_compiled_step_ms"], "overhead": c_over,
                                                "vs_eager_ddp": r["ddp_compiled_step_ms"] / r["ddp_step_ms"]}
            print(f"ddp_compiled_step {lib:9} local {r['local_compiled_step_ms']:8.2f} ms  DDP "
                  f"{r['ddp_compiled_step_ms']:8.2f} ms  overhead {c_over:.2f}x")
    bw = [row["ratio"] for k, row in rows.items() if k.startswith("all_reduce") and row["ratio"] is not None]
    ddp_over = rows["ddp_step_torchshim"]["overhead"]
    if bw:
        print(f"target all_reduce >= 0.8x PyTorch gloo: {'met' if min(bw) >= 0.8 else 'NOT met'} "
              f"(min {min(bw):.2f}x)")
    print(f"target DDP step overhead <= 1.3x: {'met' if ddp_over <= 1.3 else 'NOT met'} ({ddp_over:.2f}x)")
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        machine = {"python": sys.version, "platform": platform.platform(), "cpus": os.cpu_count()}
        json.dump({"rows": rows, "raw": res, "machine": machine}, f, indent=1)


if __name__ == "__main__":
    main()

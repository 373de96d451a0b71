"""One rank of test_distributed_core.py's multi-process scenarios. Run with RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT in the environment (or the init method the scenario names):

    python dist_core_worker.py SCENARIO OUT_JSON [IMPL]

IMPL is "torchshim" (default) or "torch" (real PyTorch's gloo, the reference for the same calls). Every call's
result (tensor values, dtype, shape) or error (type, message) is recorded under a name and written to OUT_JSON
as {"rank": r, "results": {...}}; the parent test compares them with values computed in one process (and with
real PyTorch's record). Inputs are small integers (exact in every dtype): see `values`.
"""
import datetime
import importlib
import json
import os
import sys
import time
import warnings

import numpy as np

torch = dist = None  # the library under test, imported by main()

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]
OPS = ["SUM", "PRODUCT", "MIN", "MAX", "AVG", "BAND", "BOR", "BXOR"]
res = {}


def values(r, shape, dt, mod=11):
    """The numpy values rank r contributes (float64, complex128 or bool); shared with the parent test."""
    k = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    v = (k * 3 + r * 5) % mod + 1
    if dt == "bool":
        return (k + r) % 3 == 0
    if dt.startswith("float") or dt == "bfloat16":
        return v / 4.0
    if dt.startswith("complex"):
        return v / 4.0 + 1j * ((k + r) % 3)
    return v


def inp(r, shape, dt, mod=11):
    return torch.tensor(values(r, shape, dt, mod)).to(getattr(torch, dt))


def enc(v):
    if isinstance(v, torch.Tensor):
        t = v.detach()
        wide = torch.complex128 if t.is_complex() else torch.float64
        vals = t if t.dtype == torch.bool else t.to(wide)
        flat = vals.reshape(-1).tolist()
        if t.is_complex():
            flat = [[c.real, c.imag] for c in flat]
        return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": flat}
    if isinstance(v, (list, tuple)):
        return [enc(x) for x in v]
    if isinstance(v, dict):
        return {str(k): enc(x) for k, x in v.items()}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


def rec(name, fn):
    """Record fn()'s value (or its error) and the 'not in group' warnings it gave."""
    t0 = time.monotonic()
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            v = fn()
        res[name] = {"ok": enc(v), "warn": [str(x.message) for x in w if "does not belong" in str(x.message)]}
    except Exception as e:
        res[name] = {"err": type(e).__name__, "msg": str(e)}
    res[name]["seconds"] = round(time.monotonic() - t0, 3)


def init(**kw):
    seconds = float(os.environ.get("DIST_TIMEOUT", 30))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=seconds), **kw)


# ----- scenario "core": every collective, dtype, op, group, object and p2p form -----------------------------
def core():
    init()
    r, n = dist.get_rank(), dist.get_world_size()
    rec("rank_size", lambda: [dist.get_rank(), dist.get_world_size(), dist.is_initialized(),
                              str(dist.get_backend())])
    shape = (2, 3)
    full = os.environ.get("DIST_SWEEP", "1") == "1"  # the dtype sweep (2 processes); 4 processes skip it
    for dt in DTYPES if full else ["bool", "int64", "float32"]:
        # every op on bool/int64/float32; the others: SUM and MIN run, AVG/BAND/PRODUCT check gloo's errors
        ops = OPS if dt in ("bool", "int64", "float32") else ["SUM", "MIN", "AVG", "BAND", "PRODUCT"]
        if dt.startswith("complex"):
            ops = ["SUM", "AVG", "MIN", "BAND", "PRODUCT"]
        for op in ops:
            def ar(dt=dt, op=op):
                t = inp(r, shape, dt, 3 if op == "PRODUCT" else 11)
                ret = dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
                return [ret, t]
            rec(f"all_reduce/{dt}/{op}", ar)

        def bc(dt=dt):
            t = inp(r, shape, dt)
            dist.broadcast(t, src=n - 1)
            return t
        rec(f"broadcast/{dt}", bc)

        def ag(dt=dt):
            outs = [torch.zeros(shape, dtype=getattr(torch, dt)) for _ in range(n)]
            dist.all_gather(outs, inp(r, shape, dt))
            return outs
        if dt in ("bool", "int16", "bfloat16", "complex128", "float32"):
            rec(f"all_gather/{dt}", ag)

        def p2p(dt=dt):
            t = inp(r, shape, dt)
            out = torch.zeros(shape, dtype=getattr(torch, dt))
            if r % 2 == 0:
                dist.send(t, (r + 1) % n)
                src = dist.recv(out, (r - 1) % n)
            else:
                src = dist.recv(out, (r - 1) % n)
                dist.send(t, (r + 1) % n)
            return [src, out]
        rec(f"sendrecv/{dt}", p2p)
    for dt in ["bool", "int64", "float32", "complex64"] if full else ["float32"]:
        def red(dt=dt):
            t = inp(r, shape, dt)
            dist.reduce(t, dst=1)
            return t
        rec(f"reduce/{dt}", red)

        def agit(dt=dt):
            cat = torch.zeros((n * 2, 3), dtype=getattr(torch, dt))
            dist.all_gather_into_tensor(cat, inp(r, shape, dt))
            return cat
        rec(f"all_gather_into_tensor/{dt}", agit)
        rec(f"all_gather_into_tensor_stacked/{dt}", lambda dt=dt: dist.all_gather_into_tensor(
            torch.zeros((n, 2, 3), dtype=getattr(torch, dt)), inp(r, shape, dt)))

        def ga(dt=dt):
            lst = [torch.zeros(shape, dtype=getattr(torch, dt)) for _ in range(n)] if r == 0 else None
            dist.gather(inp(r, shape, dt), lst, dst=0)
            return lst
        rec(f"gather/{dt}", ga)

        def sc(dt=dt):
            out = torch.zeros(shape, dtype=getattr(torch, dt))
            lst = [inp(10 + i, shape, dt) for i in range(n)] if r == 1 else None
            dist.scatter(out, lst, src=1)
            return out
        rec(f"scatter/{dt}", sc)

        def rs(dt=dt):
            out = torch.zeros(shape, dtype=getattr(torch, dt))
            dist.reduce_scatter(out, [inp(r + 3 * i, shape, dt) for i in range(n)])
            return out
        rec(f"reduce_scatter/{dt}", rs)

        def rst(dt=dt):
            out = torch.zeros(shape, dtype=getattr(torch, dt))
            dist.reduce_scatter_tensor(out, inp(r, (n * 2, 3), dt))
            return out
        rec(f"reduce_scatter_tensor/{dt}", rst)

        def a2a(dt=dt):
            outs = [torch.zeros(shape, dtype=getattr(torch, dt)) for _ in range(n)]
            dist.all_to_all(outs, [inp(r * n + i, shape, dt) for i in range(n)])
            return outs
        rec(f"all_to_all/{dt}", a2a)

        def a2as(dt=dt):
            out = torch.zeros((n * 2, 3), dtype=getattr(torch, dt))
            dist.all_to_all_single(out, inp(r, (n * 2, 3), dt))
            return out
        rec(f"all_to_all_single/{dt}", a2as)
    for op in ["MAX", "MIN", "PRODUCT", "AVG", "BXOR"]:
        dt = "int64" if op == "BXOR" else "float32"

        def rso(op=op, dt=dt):
            out = torch.zeros(shape, dtype=getattr(torch, dt))
            dist.reduce_scatter_tensor(out, inp(r, (n * 2, 3), dt, 3), op=getattr(dist.ReduceOp, op))
            return out
        rec(f"reduce_scatter_tensor_op/{op}", rso)

    def uneven():  # rank r sends i + r + 1 rows to rank i
        isp = [i + r + 1 for i in range(n)]
        osp = [r + j + 1 for j in range(n)]
        out = torch.zeros((sum(osp), 2))
        dist.all_to_all_single(out, inp(r, (sum(isp), 2), "float32"), osp, isp)
        return out
    rec("all_to_all_single/uneven", uneven)

    # in place through views and non-contiguous tensors
    def views():
        base = torch.zeros(3, 2) + inp(r, (3, 2), "float32")
        dist.all_reduce(base[:, 1])
        m = torch.zeros(3, n)
        dist.all_gather([m[:, i] for i in range(n)], inp(r, (3,), "float32"))
        tt = inp(r, (2, 3), "float32").t()
        dist.broadcast(tt, src=0)
        return [base, m, tt]
    rec("views", views)

    def rgrad():
        t = inp(r, (3,), "float32").requires_grad_()
        dist.all_reduce(t)
        return [t, t.requires_grad]
    rec("requires_grad", rgrad)

    def asyn():
        t = inp(r, (4,), "float32")
        w = dist.all_reduce(t, async_op=True)
        ok = w.wait()
        fut = w.get_future().wait()
        t2 = inp(r, (4,), "float32")
        w2 = dist.broadcast(t2, src=0, async_op=True)
        w2.wait()
        return [type(w).__name__, ok, w.is_completed(), fut, t, t2, dist.barrier(async_op=True).wait()]
    rec("async", asyn)

    def p2p_async():
        a = inp(r, (3,), "float32")
        b = torch.zeros(3)
        ws = [dist.isend(a, (r + 1) % n), dist.irecv(b, (r - 1) % n)]
        for w in ws:
            w.wait()
        c = torch.zeros(3)
        d = torch.zeros(3)
        ops = [dist.P2POp(dist.irecv, c, (r - 1) % n), dist.P2POp(dist.isend, a * 2, (r + 1) % n),
               dist.P2POp(dist.irecv, d, (r + 1) % n, tag=3),
               dist.P2POp(dist.isend, a * 3, (r - 1) % n, tag=3)]
        for w in dist.batch_isend_irecv(ops):
            w.wait()
        return [b, c, d]
    rec("p2p_async", p2p_async)

    def recv_any():
        if r == 0:
            got = []
            for _ in range(n - 1):
                t = torch.zeros(2)
                src = dist.recv(t)
                got.append([src, t])
            return sorted(got, key=lambda p: p[0])
        dist.send(inp(r, (2,), "float32"), 0)
        return None
    rec("recv_any", recv_any)

    # groups: every rank creates both, in the same order
    g_even = dist.new_group([i for i in range(n) if i % 2 == 0])
    g_last = dist.new_group([n - 1])
    for name, g in (("even", g_even), ("last", g_last)):
        rec(f"group/{name}/info", lambda g=g: [dist.get_rank(g), dist.get_world_size(g),
                                                dist.get_process_group_ranks(g)])

        def gar(g=g):
            t = inp(r, (3,), "float32")
            ret = dist.all_reduce(t, group=g)
            return [ret, t]
        rec(f"group/{name}/all_reduce", gar)
    rec("group/even/global_rank", lambda: dist.get_global_rank(g_even, 0))
    rec("group/last/group_rank", lambda: dist.get_group_rank(g_last, n - 1))
    rec("group/last/group_rank_bad", lambda: dist.get_group_rank(g_last, 0))
    rec("group/world_ranks", lambda: dist.get_process_group_ranks(dist.group.WORLD))
    rec("group/none_rank", lambda: dist.get_group_rank(None, 0))

    def gbc():
        t = inp(r, (3,), "float32")
        if r % 2 == 0:
            dist.broadcast(t, src=0, group=g_even)
        return t
    rec("group/even/broadcast", gbc)

    # objects
    def bol():
        lst = [{"rank": r, "x": [1, 2]}, (r, "a"), None] if r == 0 else [None, None, None]
        dist.broadcast_object_list(lst, src=0)
        return lst
    rec("objects/broadcast_object_list", bol)

    def ago():
        lst = [None] * n
        dist.all_gather_object(lst, {"r": r, "sq": r * r})
        return lst
    rec("objects/all_gather_object", ago)

    def go():
        lst = [None] * n if r == n - 1 else None
        dist.gather_object(("obj", r), lst, dst=n - 1)
        return lst
    rec("objects/gather_object", go)

    def solist():
        out = [None]
        dist.scatter_object_list(out, [{"to": i} for i in range(n)] if r == 0 else None, src=0)
        return out
    rec("objects/scatter_object_list", solist)

    if torch.__name__ == "torchshim":  # real torch.compile would need inductor's C++ toolchain here
        def compiled():
            def step(x):
                y = x * 2
                dist.all_reduce(y)
                return y + 1
            f = torch.compile(step)
            return [f(inp(r, (3,), "float32")), f(inp(r, (3,), "float32") * 3)]
        rec("compile_graph_break", compiled)

    rec("barrier", lambda: dist.barrier())
    rec("monitored_barrier", lambda: dist.monitored_barrier(timeout=datetime.timedelta(seconds=20)))

    # errors PyTorch's gloo raises locally (the same call on every rank)
    rec("err/broadcast_src_range", lambda: dist.broadcast(torch.ones(2), n + 3))
    rec("err/reduce_dst_range", lambda: dist.reduce(torch.ones(2), n + 3))
    rec("err/send_self", lambda: dist.send(torch.ones(2), r))
    rec("err/gather_list_missing", lambda: dist.gather(torch.ones(2), None, dst=r))
    rec("err/scatter_list_missing", lambda: dist.scatter(torch.ones(2), None, src=r))
    rec("err/all_gather_len", lambda: dist.all_gather([torch.zeros(2)] * (n + 1), torch.ones(2)))
    rec("err/all_gather_shape", lambda: dist.all_gather([torch.zeros(3) for _ in range(n)], torch.ones(2)))
    rec("err/all_gather_dtypes", lambda: dist.all_gather([torch.zeros(2, dtype=torch.int64)] * n,
                                                         torch.ones(2)))
    rec("err/not_tensor", lambda: dist.all_reduce(5))
    rec("err/not_tensor_list", lambda: dist.all_reduce([torch.ones(2)]))
    rec("err/group_member_src",
        lambda: dist.broadcast(torch.ones(2), 1, group=g_even) if r % 2 == 0 else None)
    rec("err/twice", lambda: init())
    rec("destroy", lambda: dist.destroy_process_group())
    rec("post/rank", lambda: dist.get_rank())
    rec("post/is_initialized", lambda: dist.is_initialized())
    rec("post/destroy", lambda: dist.destroy_process_group())


# ----- scenario "faults": mismatches, a late rank, re-init, then a rank killed mid all_reduce ---------------
def faults():
    init()
    r = dist.get_rank()
    before = torch.arange(3.0) + r  # made before the re-init below

    rec("mismatch/shape", lambda: dist.all_reduce(torch.ones(2 + r)))
    rec("mismatch/dtype", lambda: dist.all_reduce(torch.ones(2, dtype=torch.float64 if r else torch.float32)))
    rec("mismatch/op", lambda: dist.all_reduce(torch.ones(2),
                                               op=dist.ReduceOp.SUM if r else dist.ReduceOp.MAX))
    rec("mismatch/collective",
        lambda: dist.all_reduce(torch.ones(2)) if r else dist.broadcast(torch.ones(2), 0))

    def still_works():
        t = torch.ones(3) * (r + 1)
        dist.all_reduce(t)
        return t
    rec("after_mismatch", still_works)

    def late():
        t0 = time.monotonic()
        try:
            if r == 0:
                dist.all_reduce(torch.ones(2))
            else:
                time.sleep(float(os.environ["DIST_TIMEOUT"]) + 3)
        finally:
            res.setdefault("late_seconds", time.monotonic() - t0)
    rec("late", late)
    # rank 1 never entered that all_reduce: it skips the sequence number rank 0 used, then both re-init
    rec("destroy", lambda: dist.destroy_process_group())
    rec("reinit", lambda: init())

    def after_reinit():
        t = torch.ones(3) * (r + 1)
        dist.all_reduce(t)
        return [t, before + t]
    rec("after_reinit", after_reinit)

    def killed():
        x = torch.ones(256)
        dist.all_reduce(x)
        t0 = time.monotonic()
        try:
            for i in range(100000):
                if r == 1 and i == 3:
                    os.kill(os.getpid(), 9)
                dist.all_reduce(x)
        finally:
            res["kill_seconds"] = time.monotonic() - t0
    rec("killed", killed)


# ----- scenario "init": init methods and stores -------------------------------------------------------------
def init_methods():
    r, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    addr, port = os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"]
    path = os.environ["DIST_FILE"]

    def use():
        t = torch.ones(2) * (dist.get_rank() + 1)
        dist.all_reduce(t)
        out = [t, dist.get_rank(), dist.get_world_size()]
        dist.destroy_process_group()
        return out
    rec("tcp", lambda: (init(init_method=f"tcp://{addr}:{port}", rank=r, world_size=n), use())[1])
    rec("tcp_query", lambda: (init(init_method=f"tcp://{addr}:{port}?rank={r}&world_size={n}"), use())[1])
    rec("file", lambda: (init(init_method=f"file://{path}", rank=r, world_size=n), use())[1])
    rec("file_removed", lambda: os.path.exists(path))

    def via_store(kind):
        if kind == "file":
            store = dist.FileStore(path + ".store", n)
        else:
            store = dist.TCPStore(addr, int(port), n, r == 0)
        init(store=store, rank=r, world_size=n)
        if kind == "tcp":
            store.set(f"k{r}", f"v{r}")
            got = store.get(f"k{(r + 1) % n}")
            store.add("count", 1)
            dist.barrier()
            extra = [got.decode(), int(store.get("count"))]
        else:
            extra = []
        return use() + extra
    rec("store_file", lambda: via_store("file"))
    rec("store_tcp", lambda: via_store("tcp"))
    rec("env_again", lambda: (init(), use())[1])


def main():
    global torch, dist
    scenario, out = sys.argv[1], sys.argv[2]
    impl = sys.argv[3] if len(sys.argv) > 3 else "torchshim"
    torch = importlib.import_module(impl)
    dist = importlib.import_module(impl + ".distributed")
    {"core": core, "faults": faults, "init": init_methods}[scenario]()
    with open(out, "w") as f:
        json.dump({"rank": int(os.environ.get("RANK", "0")), "results": res}, f)


if __name__ == "__main__":
    main()

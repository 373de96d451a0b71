"""Time to the first result (issue 11, item 6): a fresh process imports the library, builds a small vision
transformer and runs one forward pass at batch 1 (eval mode, no_grad), PyTorch vs torchshim with a cold and a
warm persistent compilation cache.

Models (bench/models/vision.py: LeViT, CCT, MaxViT after lucidrains/vit-pytorch, in plain PyTorch). Per model,
each run a new Python process:
  torch    real PyTorch
  ts cold  torchshim, its compilation cache in an empty folder (TORCHSHIM_CACHE_DIR=<new temp folder>)
  ts warm  torchshim again, same folder: the second run of the same script
  ts off   torchshim with the cache off (TORCHSHIM_COMPILE_CACHE=0): what a cold start costs without it
           (the write overhead of `ts cold`); `--columns` drops it
"seconds" is the wall time from process start to the first result (import + build + forward; the JSON also
has each part, the process CPU time, the XLA compiles and cache hits counted with jax.monitoring). After the
timing, the torchshim run loads PyTorch's weights and input and checks its output against PyTorch's (`check`).
The machine's load matters (a 2-core CI box shared with other jobs is slow): compare ratios of one run.

Run: `nox -s bench -- first_result [--models levit,cct --columns torch,ts_cold,ts_warm --repeats N]` or
`python bench/first_result.py ...`. Writes bench/results/first_result.json.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_JSON = os.path.join(HERE, "results", "first_result.json")
COLUMNS = ("torch", "ts_cold", "ts_warm", "ts_off")

# the child: argv = library, model, data folder, bench folder, source root
CHILD = r"""
import time
t0 = time.perf_counter()
import json, os, resource, sys
lib, name, data, bench, root = sys.argv[1:6]
counts = {"compiles": 0, "compile_s": 0.0, "cache_hits": 0}
if lib == "torchshim":
    from jax import monitoring
    def _dur(event, secs, **kw):
        if event == "/jax/core/compile/backend_compile_duration":
            counts["compiles"] += 1
            counts["compile_s"] += secs
    def _ev(event, **kw):
        if event == "/jax/compilation_cache/cache_hits":
            counts["cache_hits"] += 1
    monitoring.register_event_duration_secs_listener(_dur)
    monitoring.register_event_listener(_ev)
    try:
        import torchshim as torch
    except ImportError:
        sys.path.insert(0, root)
        import torchshim as torch
else:
    import torch
t1 = time.perf_counter()
sys.path.insert(0, bench)
from models import vision
torch.manual_seed(0)
model = vision.build(name, torch)
x = torch.randn(1, 3, vision.image_size(name), vision.image_size(name))
t2 = time.perf_counter()
with torch.no_grad():
    y = model(x)
first = float(y[0, 0])  # the first result: waits for the computation
t3 = time.perf_counter()
ru = resource.getrusage(resource.RUSAGE_SELF)
out = {"import_s": t1 - t0, "build_s": t2 - t1, "forward_s": t3 - t2, "total_s": t3 - t0,
       "cpu_s": ru.ru_utime + ru.ru_stime, **counts}
ref = os.path.join(data, name + ".npz")
if lib == "torch":
    import numpy as np
    np.savez(ref, x=x.numpy(), y=y.numpy(), **{"p." + k: v.numpy() for k, v in model.state_dict().items()})
elif os.path.exists(ref):
    import numpy as np
    z = np.load(ref)
    model.load_state_dict({k[2:]: torch.from_numpy(z[k]) for k in z.files if k.startswith("p.")})
    with torch.no_grad():
        y2 = model(torch.from_numpy(z["x"])).numpy()
    out["max_abs_diff"] = float(np.abs(y2 - z["y"]).max())
    out["check"] = bool(np.allclose(y2, z["y"], rtol=1e-3, atol=1e-4))
print(json.dumps(out))
"""


def _env(column, cache_dir):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JAX_COMPILATION_CACHE", "JAX_PERSISTENT_CACHE", "TORCHSHIM_COMPILE_CACHE",
                                "TORCHSHIM_CACHE_DIR", "TORCHSHIM_LOGS"))}
    if column == "ts_off":
        env["TORCHSHIM_COMPILE_CACHE"] = "0"
    elif column != "torch":
        env["TORCHSHIM_CACHE_DIR"] = cache_dir
    return env


def _child(column, name, data, cache_dir):
    lib = "torch" if column == "torch" else "torchshim"
    r = subprocess.run([sys.executable, "-c", CHILD, lib, name, data, HERE, ROOT], capture_output=True,
                       text=True, env=_env(column, cache_dir), timeout=1800, stdin=subprocess.DEVNULL)
    if r.returncode:
        raise RuntimeError(f"{column} {name} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="levit,cct,maxvit")
    p.add_argument("--columns", default=",".join(COLUMNS))
    p.add_argument("--repeats", type=int, default=1, help="runs per column (median); cold uses a new folder")
    p.add_argument("--json", default=DEFAULT_JSON)
    a = p.parse_args(argv)
    columns = [c for c in a.columns.split(",") if c]
    bad = [c for c in columns if c not in COLUMNS]
    if bad:
        p.error(f"unknown columns {bad}; known: {COLUMNS}")
    data = tempfile.mkdtemp(prefix="first_result_")
    results = {}
    try:
        for name in a.models.split(","):
            runs = {c: [] for c in columns}
            for _ in range(a.repeats):
                cache = tempfile.mkdtemp(prefix="cache_", dir=data)  # empty: cold, then warm
                for c in ("torch", "ts_cold", "ts_warm", "ts_off"):
                    if c in columns:
                        runs[c].append(_child(c, name, data, cache))
                shutil.rmtree(cache, ignore_errors=True)
            results[name] = {c: {k: statistics.median(r[k] for r in rs) if not isinstance(rs[0][k], bool)
                                 else all(r[k] for r in rs) for k in rs[0]} for c, rs in runs.items()}
            _print_row(name, results[name], columns)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
    with open(a.json, "w") as f:
        json.dump({"machine": platform.platform(), "python": platform.python_version(),
                   "cpus": os.cpu_count(), "load_avg": os.getloadavg(), "repeats": a.repeats,
                   "results": results}, f, indent=1)
    print(f"wrote {a.json}")


_printed_header = []


def _print_row(name, res, columns):
    if not _printed_header:
        head = f"{'model':8}" + "".join(f"{c:>10}" for c in columns)
        head += "".join(f"{c + '/torch':>15}" for c in columns if c != "torch" and "torch" in columns)
        print("seconds to the first result (import + build + forward), fresh process each")
        print(head + "   compiles/hits (cold, warm)   check")
        _printed_header.append(1)
    row = f"{name:8}" + "".join(f"{res[c]['total_s']:10.2f}" for c in columns)
    if "torch" in columns:
        base = res["torch"]["total_s"]
        row += "".join(f"{res[c]['total_s'] / base:14.1f}x" for c in columns if c != "torch")
    cold, warm = res.get("ts_cold"), res.get("ts_warm")
    cw = "  ".join(f"{r['compiles']:.0f}/{r['cache_hits']:.0f}" for r in (cold, warm) if r)
    checks = [res[c].get("check") for c in columns if c != "torch" and "check" in res[c]]
    print(row + f"   {cw:>26}   {'ok' if checks and all(checks) else ('-' if not checks else 'DIFFERS')}",
          flush=True)


if __name__ == "__main__":
    main()

"""DataLoader throughput, PyTorch vs torchshim: batches built from a TensorDataset, and worker start-up.

Cases, each library in a new Python process (numbers in seconds, wall time):
  tensor    TensorDataset(60000x1x28x28 float32, 60000 int64 labels), batch 256, shuffle, num_workers=0:
            one epoch (`epoch1`, compiles included) and a second one (`epoch2`). Each batch is 256 `x[i]`
            views stacked by default_collate (torchshim reads them in one kernel, _view.read_many).
  workers   the same kind of data (4096 samples), num_workers=4, batch 256, three epochs: each epoch starts
            four new workers (no persistent_workers), as d2l's FashionMNIST loaders do. torchshim forks its
            workers from a zygote that imported torchshim once (utils/data/_zygote.py); the `ts spawn` row
            is torchshim with TORCHSHIM_WORKER_ZYGOTE=0 (every worker a spawned interpreter that imports jax
            and torchshim: how it was before the zygote).
The machine's load matters (a shared 2-core box is slow): compare rows of one run.

Run: `nox -s bench -- data_loading [--cases tensor,workers --no-torch]` or `python bench/data_loading.py`.
Writes bench/results/data_loading.json.
"""
import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_JSON = os.path.join(HERE, "results", "data_loading.json")

CHILD = r"""
import json, sys, time
lib, case = sys.argv[1:3]
T = __import__(lib)
import importlib
data = importlib.import_module(lib + ".utils.data")
n, workers, epochs = (60000, 0, 2) if case == "tensor" else (4096, 4, 3)
g = T.Generator().manual_seed(0)
ds = data.TensorDataset(T.rand(n, 1, 28, 28, generator=g), T.randint(0, 10, (n,), generator=g))
loader = data.DataLoader(ds, batch_size=256, shuffle=True, num_workers=workers)
out = {}
for e in range(epochs):
    t = time.perf_counter()
    seen = 0
    for x, y in loader:
        seen += len(y)
    float(x[-1, 0, 0, 0])  # torchshim: wait for the last batch's values
    assert seen == n, seen
    out[f"epoch{e + 1}"] = time.perf_counter() - t
print(json.dumps(out))
"""

ROWS = {"torch": ("torch", {}), "torchshim": ("torchshim", {}),
        "ts spawn": ("torchshim", {"TORCHSHIM_WORKER_ZYGOTE": "0"})}


def run(row, case):
    lib, extra = ROWS[row]
    env = dict(os.environ, OMP_NUM_THREADS="1", **extra)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD, lib, case], env=env,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        raise RuntimeError(f"{row} {case} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="tensor,workers")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--json", default=DEFAULT_JSON)
    args = parser.parse_args()
    have_torch = importlib.util.find_spec("torch") is not None and not args.no_torch
    results = {}
    for case in args.cases.split(","):
        rows = [r for r in ROWS if (r != "torch" or have_torch) and (r != "ts spawn" or case == "workers")]
        for row in rows:
            res = run(row, case)
            results[f"{case}/{row}"] = res
            cols = "  ".join(f"{k} {v:7.2f}" for k, v in res.items())
            print(f"{case:8s} {row:10s} {cols}", flush=True)
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"results": results, "python": sys.version, "machine": platform.platform(),
                   "cpus": os.cpu_count()}, f, indent=1)


if __name__ == "__main__":
    main()

"""Start-up cost of building models: a fresh process, import, then construct a model (every layer's
reset_parameters draws its weights), PyTorch vs torchshim.

Each case runs in `--repeats` new Python processes per library (a cold start: nothing compiled yet; jax's
persistent compilation cache is switched off in the child, and the child reports any cache hit, so a warm
cache cannot hide the compiles). The child times the import and the build (until every parameter's value
is computed), and for torchshim counts the XLA compilations of the build and their seconds (jax.monitoring).
The table shows the medians: build seconds for torch and torchshim, their ratio, torchshim's compiles.

  linear    nn.Linear(784, 512)
  conv      nn.Conv2d(64, 128, 3)
  mlp       784-512-512-10 with ReLU and Dropout (three Linear layers)
  dcgan     the DCGAN generator and discriminator of pytorch/examples (nz=100, ngf=ndf=64, 64x64 images)
  resnet    a ResNet-18-shaped stack of Conv2d/BatchNorm2d (no forward)
  rand20    torch.rand(k, 7) for k = 1..20, then torch.randn and torch.randint over the same shapes

Writes the table to stdout and the numbers to bench/results/random_init.json (or `--json`).
Run: `nox -s bench -- random_init`, or `python bench/random_init.py [--repeats N --cases a,b --no-torch]`.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_JSON = os.path.join(HERE, "results", "random_init.json")

CASES = {
    "linear": "m = nn.Linear(784, 512)",
    "conv": "m = nn.Conv2d(64, 128, 3)",
    "mlp": "m = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Dropout(0.2), nn.Linear(512, 512),\n"
           "                  nn.ReLU(), nn.Dropout(0.2), nn.Linear(512, 10))",
    "dcgan": """
nz, ngf, ndf, nc = 100, 64, 64, 3
def up(i, o, s, p):
    return [nn.ConvTranspose2d(i, o, 4, s, p, bias=False), nn.BatchNorm2d(o), nn.ReLU(True)]
def down(i, o, bn=True):
    bn = [nn.BatchNorm2d(o)] if bn else []
    return [nn.Conv2d(i, o, 4, 2, 1, bias=False)] + bn + [nn.LeakyReLU(0.2, True)]
g = nn.Sequential(*up(nz, ngf * 8, 1, 0), *up(ngf * 8, ngf * 4, 2, 1), *up(ngf * 4, ngf * 2, 2, 1),
                  *up(ngf * 2, ngf, 2, 1), nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())
d = nn.Sequential(*down(nc, ndf, False), *down(ndf, ndf * 2), *down(ndf * 2, ndf * 4),
                  *down(ndf * 4, ndf * 8), nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())
def weights_init(m):  # as the example does
    name = m.__class__.__name__
    if name.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif name.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)
g.apply(weights_init)
d.apply(weights_init)
m = nn.ModuleList([g, d])
""",
    "resnet": """
layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU()]
c = 64
for co in (64, 128, 256, 512):
    for j in range(2):
        layers += [nn.Conv2d(c, co, 3, 1 if c == co else 2, 1, bias=False), nn.BatchNorm2d(co), nn.ReLU(),
                   nn.Conv2d(co, co, 3, 1, 1, bias=False), nn.BatchNorm2d(co)]
        if c != co:
            layers += [nn.Conv2d(c, co, 1, 2, bias=False)]
        c = co
m = nn.Sequential(*layers, nn.Flatten(), nn.Linear(512, 1000))
""",
    "rand20": """
out = [torch.rand(k, 7) for k in range(1, 21)] + [torch.randn(k, 7) for k in range(1, 21)]
out += [torch.randint(0, 10, (k, 7)) for k in range(1, 21)]
m = nn.ParameterList([nn.Parameter(t, requires_grad=False) for t in out])
""",
}

# The child: import, build, wait for every parameter, report JSON on its last line.
CHILD = """
import json, sys, time
t0 = time.perf_counter()
LIB = sys.argv[1]
compiles = [0, 0.0, 0]
if LIB == "torchshim":
    import jax
    from jax import monitoring
    jax.config.update("jax_enable_compilation_cache", False)
    def _on(event, secs=None, **kw):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles[0] += 1
            compiles[1] += secs
        elif event == "/jax/compilation_cache/cache_hits":
            compiles[2] += 1
    monitoring.register_event_duration_secs_listener(_on)
    monitoring.register_event_listener(_on)
    try:
        import torchshim as torch
    except ImportError:  # a source checkout without `pip install .`
        sys.path.insert(0, sys.argv[3])
        import torchshim as torch
    jax.config.update("jax_enable_compilation_cache", False)
else:
    import torch
nn = torch.nn
torch.manual_seed(0)
t1 = time.perf_counter()
c0 = list(compiles)
exec(sys.argv[2])
for p in list(m.parameters()) + list(m.buffers()):
    if LIB == "torchshim":
        jax.block_until_ready(p._value)
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "build_s": t2 - t1, "compiles": compiles[0] - c0[0],
                  "compile_s": compiles[1] - c0[1], "cache_hits": compiles[2]}))
"""


def _child(lib, code):
    env = dict(os.environ, JAX_ENABLE_COMPILATION_CACHE="false")
    r = subprocess.run([sys.executable, "-c", CHILD, lib, code, ROOT], capture_output=True, text=True,
                       env=env, timeout=900)
    if r.returncode:
        raise RuntimeError(f"{lib} child failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _median(runs, key):
    return statistics.median(r[key] for r in runs)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3, help="cold processes per case and library (median)")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated subset of " + ", ".join(CASES))
    ap.add_argument("--no-torch", action="store_true", help="skip the PyTorch column")
    ap.add_argument("--json", default=DEFAULT_JSON)
    args = ap.parse_args(argv)
    with_torch = not args.no_torch and importlib.util.find_spec("torch") is not None
    rows = {}
    print(f"{'case':8} {'torch s':>8} {'torchshim s':>12} {'ts/torch':>9} {'compiles':>9} {'compile s':>10} "
          f"{'ts import s':>12}")
    for name in args.cases.split(","):
        code = CASES[name]
        r = {}
        if with_torch:
            runs = [_child("torch", code) for _ in range(args.repeats)]
            r["torch_build_s"] = _median(runs, "build_s")
        runs = [_child("torchshim", code) for _ in range(args.repeats)]
        r.update(torchshim_build_s=_median(runs, "build_s"), torchshim_import_s=_median(runs, "import_s"),
                 compiles=_median(runs, "compiles"), compile_s=_median(runs, "compile_s"),
                 cache_hits=max(x["cache_hits"] for x in runs), runs=runs)
        ratio = r["torchshim_build_s"] / r["torch_build_s"] if r.get("torch_build_s") else None
        r["ratio"] = ratio
        rows[name] = r
        ts = f"{r['torch_build_s']:8.3f}" if with_torch else f"{'-':>8}"
        rt = f"{ratio:9.1f}" if ratio else f"{'-':>9}"
        print(f"{name:8} {ts} {r['torchshim_build_s']:12.3f} {rt} {r['compiles']:9.0f} "
              f"{r['compile_s']:10.2f} {r['torchshim_import_s']:12.2f}", flush=True)
        if r["cache_hits"]:
            print(f"  warning: {r['cache_hits']} persistent-cache hits in a child: the figures are not cold")
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    import jax  # noqa: PLC0415  only for the versions in the JSON
    with open(args.json, "w") as f:
        json.dump({"jax": jax.__version__, "cpus": os.cpu_count(), "repeats": args.repeats, "cases": rows}, f,
                  indent=1)


if __name__ == "__main__":
    main()

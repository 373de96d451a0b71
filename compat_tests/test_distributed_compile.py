"""Collectives inside torch.compile'd functions: all_reduce/broadcast/all_gather(_into_tensor) on the world
group are traced into the program (one `jax.shard_map` program per compiled call), so a compiled DDP training
step (forward, backward with the bucket all-reduces, optimizer step) is one program.

The multi-process checks (slow) run compat_tests/scripts/dist_compile_checks.py once on 2 local processes
(and once on a world of 1); every check is a test here, comparing the JSON the ranks wrote: the compiled
values against the same code run eagerly, DDP training against one process on the full batch, and the
number of eager collective programs (`_programs.run`) run by the compiled calls. The in-process tests (no
process group) are not slow.
"""
import functools
import os
import warnings

import numpy as np
import pytest
import torch

import torchshim
import dist_helpers

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "scripts", "dist_compile_checks.py")
TIMEOUT = 240  # seconds for one launch (a cold jax compile cache on a loaded 2-core machine)


def run_ranks(out_dir, world):
    """Start `world` ranks of the script; return {rank: results}, or fail with their output."""
    return dist_helpers.run_ranks([SCRIPT, str(out_dir)], out_dir, world, TIMEOUT)


@functools.lru_cache(maxsize=None)
def _results(world, tmp_root):
    out = os.path.join(tmp_root, f"world{world}")
    os.makedirs(out, exist_ok=True)
    return run_ranks(out, world)


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    return _results(2, str(tmp_path_factory.mktemp("dcompile")))


@pytest.fixture(scope="module")
def one(tmp_path_factory):
    return _results(1, str(tmp_path_factory.mktemp("dcompile")))


def close(a, b, tol=1e-5):
    return all(np.allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=tol, atol=tol)
               for x, y in zip(a, b, strict=True))


# -- in-process (no process group) ---------------------------------------------------------------------------
def _with_all_reduce(lib):
    def f(x):
        lib.distributed.all_reduce(x)
        return x * 2
    return f


def test_compiled_collective_without_process_group_raises_pytorchs_error():
    x = torchshim.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torchshim also warns about the graph break
        with pytest.raises(ValueError) as ts:
            torchshim.compile(_with_all_reduce(torchshim))(x)
    with pytest.raises(ValueError) as pt:
        torch.compile(_with_all_reduce(torch), backend="eager")(torch.ones(3))
    assert str(ts.value) == str(pt.value)
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_compiled_function_without_collectives_is_unchanged():
    from torchshim.compiler import _capture
    f = torchshim.compile(lambda v: (v * 3).sum())
    assert float(f(torchshim.ones(4))) == 12.0
    assert _capture.collective_runtime.mesh() is None  # no group: nothing to shard over
    cache = f._compiled.cache
    assert cache and all(e.eager is False and e.collectives == [] for e in cache.values())


# -- 2 processes ---------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("key", ["reductions", "gathers"])
def test_collectives_traced_into_one_program(two, key):
    for r in (0, 1):
        res = two[r][key]
        assert res["compiled_warnings"] == []
        assert res["compiled"] == res["eager"]  # exact: the same reductions
        assert res["compiled_eager_runs"] == 0 and res["eager_eager_runs"] > 0
        assert len(res["programs"]) == 1 and res["programs"][0][0] is False and res["programs"][0][1] > 0


@pytest.mark.slow
def test_reduction_values(two):
    a = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    b = a + 10
    got = two[0]["reductions"]["compiled"][0]
    want = [a * 1.5 + b * 1.5, (a * 1.5 + b * 1.5) / 2, np.minimum(a, b) * 1.5, np.maximum(a, b) * 1.5,
            (a * 1.5) * (b * 1.5)]
    assert close(got[:5], [w + 1 for w in want])
    assert got[5] == (a * 2 + b * 2).astype(np.int64).tolist()
    assert got[6] == float(b.sum())
    assert got[7] == ((a > 3) | (b > 13)).tolist()


@pytest.mark.slow
def test_random_draws_in_a_collective_program_match_eager(two):
    for r in (0, 1):
        res = two[r]["rng"]
        assert close(res["compiled"], res["eager"], 1e-6)
        assert res["programs"] == [[False, 1]]


@pytest.mark.slow
@pytest.mark.parametrize("key,what", [("subgroup", "default (world) group"), ("reduce_breaks", "reduce")])
def test_subgroups_and_other_collectives_stay_graph_breaks(two, key, what):
    for r in (0, 1):
        res = two[r][key]
        assert res["compiled"] == res["eager"]
        assert len(res["compiled_warnings"]) == 1 and "graph break" in res["compiled_warnings"][0]
        assert what in res["compiled_warnings"][0]
        assert all(eager for eager, _ in res["programs"])


@pytest.mark.slow
def test_program_without_collectives_runs_on_one_rank(two):
    assert two[0]["rank0_only"] == [42.0, 42.0, 42.0, 0]


@pytest.mark.slow
def test_ranks_running_different_programs_raise_not_hang(two):
    for r in (0, 1):
        typ, msg = two[r]["mismatch"]
        assert typ == "RuntimeError" and "disagree" in msg
        assert "rank 0: compiled shaped" in msg and "rank 1: compiled shaped" in msg
        assert "shape=[3]" in msg and "shape=[4]" in msg
        assert two[r]["mismatch_s"] < 30
        assert two[r]["after_mismatch"] == [2.0, 2.0, 2.0]
        assert two[r]["after_destroy"] == ["RuntimeError", "torch.compile: shaped holds collectives compiled "
                                           "for a process group that was destroyed; call "
                                           "torch.compiler.reset() after init_process_group"]


@pytest.mark.slow
@pytest.mark.parametrize("key,buckets", [("ddp_step", 1), ("ddp_step_small_buckets", 2),
                                         ("ddp_step_bucket_view", 1)])
def test_compiled_ddp_step_is_one_program_with_the_all_reduces(two, key, buckets):
    for r in (0, 1):
        res = two[r][key]
        assert res["warnings"] == []
        assert res["programs"] == [[False, buckets]]
        # the first step runs eagerly (it creates .grad and the momentum buffers); then no eager collective
        assert res["eager_runs"] == [buckets] + [0] * 9
        assert close(res["params"], two[r]["ddp_eager"]["params"])
        assert close([res["losses"]], [two[r]["ddp_eager"]["losses"]])
    assert close(two[0][key]["params"], two[1][key]["params"], 0)
    assert close(two[0][key]["params"], two[0]["ref_params"])  # = one process on the full batch


@pytest.mark.slow
def test_compiled_ddp_module_forward_is_a_program_backward_eager(two):
    for r in (0, 1):
        res = two[r]["ddp_module"]
        assert res["warnings"] == []
        assert res["programs"] == [[False, 0]]
        assert res["eager_runs"] == [1] * 10  # the bucket all-reduce of each eager backward
        assert close(res["params"], two[r]["ddp_eager"]["params"])
    assert close(two[0]["ddp_module"]["params"], two[0]["ref_params"])


# -- a world of one process ----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("key", ["reductions", "gathers"])
def test_world_of_one_collectives_are_identity_in_the_program(one, key):
    res = one[0][key]
    assert res["compiled"] == res["eager"]
    assert res["compiled_warnings"] == []
    assert res["compiled_eager_runs"] == 0
    assert res["programs"] == [[False, 0]]  # no collective in the program, no shard_map


@pytest.mark.slow
def test_find_unused_parameters_compiled(two):
    """The step's used-parameter map is read on the host: a graph break (eager step, same values); the
    compiled module forward keeps its program."""
    for r in (0, 1):
        step, mod = two[r]["ddp_step_find_unused"], two[r]["ddp_module_find_unused"]
        assert any("graph break" in w for w in step["warnings"])
        assert mod["warnings"] == [] and mod["programs"] == [[False, 0]]
        for res in (step, mod):
            assert close(res["params"], two[r]["ddp_eager"]["params"])


@pytest.mark.slow
def test_compiled_ddp_step_with_buffers_broadcasts_inside_the_program(two):
    for r in (0, 1):
        res, eager = two[r]["ddp_bn_step"], two[r]["ddp_bn_eager"]
        assert res["warnings"] == []
        # the buffers' broadcasts (float32 running stats, int64 num_batches_tracked) and the all-reduce
        assert res["programs"] == [[False, 3]]
        assert res["eager_runs"] == [3] + [0] * 9
        # (the running stats then differ between ranks: each updates them from its own batch, as PyTorch)
        assert close(res["params"], eager["params"]) and close(res["buffers"], eager["buffers"])

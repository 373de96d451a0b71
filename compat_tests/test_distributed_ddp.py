"""torch.nn.parallel.DistributedDataParallel on torchshim's torch.distributed.

The multi-process checks (slow) run compat_tests/scripts/ddp_checks.py once on 2 local processes for
torchshim and once for real PyTorch's gloo (the oracle for error texts and values); every check of that run
is a test here, comparing the JSON the ranks wrote. 20 training steps with DistributedSampler are compared
with one process training on the full batch (rank 0 computes that reference), to 1e-5. The in-process tests
(errors before init, the bucket assignment against PyTorch's) are not slow.
"""
import functools
import os

import numpy as np
import pytest
import torch

import torchshim
import dist_helpers
from torchshim.nn.parallel._reducer import bucket_assignment

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "scripts", "ddp_checks.py")
TIMEOUT = 240  # seconds for the whole 2-process run (a cold jax compile cache on a loaded 2-core machine)


def run_ranks(lib, out_dir, world=2):
    """Start `world` ranks of ddp_checks.py for `lib`; return {rank: results}, or fail with their output."""
    return dist_helpers.run_ranks([SCRIPT, lib, str(out_dir)], out_dir, world, TIMEOUT, label=lib)


@functools.lru_cache(maxsize=None)
def _results(lib, tmp_root):
    out = os.path.join(tmp_root, lib)
    os.makedirs(out, exist_ok=True)
    return run_ranks(lib, out), out


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    return _results("torchshim", str(tmp_path_factory.mktemp("ddp")))


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    return _results("torch", str(tmp_path_factory.mktemp("ddp")))


def close(a, b, tol=1e-5):
    return all(np.allclose(np.asarray(x), np.asarray(y), rtol=tol, atol=tol)
               for x, y in zip(a, b, strict=True))


# -- in-process ----------------------------------------------------------------------------------------------
def test_ddp_without_process_group_raises_pytorchs_error():
    with pytest.raises(ValueError) as ts:
        torchshim.nn.parallel.DistributedDataParallel(torchshim.nn.Linear(2, 2))
    with pytest.raises(ValueError) as pt:
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))
    assert str(ts.value) == str(pt.value)


@pytest.mark.parametrize("sizes,dtypes,caps", [
    ([100000] * 8, None, [1 << 20, 25 << 20]),
    ([100000] * 8, None, [1 << 21]),
    ([10, 300000, 5, 70000, 1, 262144, 262144], None, [1 << 20, 1 << 20]),
    ([1000, 1000, 1000, 1000], ["float32", "float64", "float32", "float64"], [4000, 4000]),
    ([3, 4], None, [1]),
])
def test_bucket_assignment_matches_pytorch(sizes, dtypes, caps):
    dtypes = dtypes or ["float32"] * len(sizes)
    ts = [torchshim.zeros(n, dtype=getattr(torchshim, d)) for n, d in zip(sizes, dtypes)]
    pt = [torch.zeros(n, dtype=getattr(torch, d)) for n, d in zip(sizes, dtypes)]
    expected, _ = torch.distributed._compute_bucket_assignment_by_size(pt, caps, [False] * len(pt))
    assert bucket_assignment(ts, caps) == [list(b) for b in expected]


# -- 2 processes ---------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_sampler_reads_the_group(shim):
    res, _ = shim
    assert [res[r]["sampler"] for r in (0, 1)] == [[2, 0, 32], [2, 1, 32]]


@pytest.mark.slow
def test_construction_broadcasts_rank0(shim, real):
    res, _ = shim
    for r in (0, 1):
        assert res[r]["init_params_equal_rank0"] is True
        assert res[r]["init_buffer"] == [0.0, 0.0]
        assert res[r]["forward_buffer"] == [10.0, 10.0]  # buffers broadcast again before each forward
        assert res[r]["forward_buffer_nosync"] == [float(r)]
        assert res[r]["state_dict_keys"] == real[0][r]["state_dict_keys"]
    assert res[0]["state_dict_keys"][0] == "module.stat"


@pytest.mark.slow
@pytest.mark.parametrize("key,ref", [("train_params", "ref_params"), ("bucket_view_params", "ref_params"),
                                     ("small_buckets_params", "ref_params_noshuffle")])
def test_twenty_steps_equal_one_process_full_batch(shim, key, ref):
    res, _ = shim
    assert close(res[0][key], res[1][key], 0)  # the ranks hold the same model
    assert close(res[0][key], res[0][ref])  # = one process on the full batch


@pytest.mark.slow
def test_training_matches_pytorchs_ddp(shim, real):
    """Without shuffling (torchshim's randperm is not PyTorch's), from the same weights and data, the
    losses of every step and the final weights are PyTorch's DDP's."""
    res, _ = shim
    for r in (0, 1):
        assert close(res[r]["small_buckets_losses"], real[0][r]["small_buckets_losses"])
        assert close(res[r]["small_buckets_params"], real[0][r]["small_buckets_params"])


@pytest.mark.slow
def test_bucketing_issues_one_collective_per_bucket(shim):
    res, _ = shim
    n_params = 6 * 16 + 16 + 16 * 16 + 16 + 3 * 16 + 3
    assert res[0]["collectives_per_step"] == [1.0, [n_params]]  # one bucket (25 MiB) for the whole model
    # bucket_cap_mb=0.0005 (524 bytes): [0.weight, 0.bias, 2.weight] and [2.bias, 4.weight, 4.bias], the
    # later parameters' bucket first
    assert res[0]["small_buckets_collectives_per_step"] == [2.0, [16 + 48 + 3, 96 + 16 + 256]]


@pytest.mark.slow
def test_gradient_as_bucket_view(shim, real):
    res, _ = shim
    assert res[0]["bucket_view_grad_is_view"] is True and real[0][0]["bucket_view_grad_is_view"] is True


@pytest.mark.slow
def test_no_sync_accumulation_equals_full_batch(shim):
    res, _ = shim
    assert close(res[0]["no_sync_params"], res[1]["no_sync_params"], 0)
    assert close(res[0]["no_sync_params"], res[0]["ref_no_sync_params"])
    for r in (0, 1):  # a backward under no_sync leaves the local gradient
        assert close([res[r]["no_sync_grad"]], [res[r]["ref_local_grad"]])


@pytest.mark.slow
def test_comm_hooks(shim, real):
    res, _ = shim
    for r in (0, 1):
        assert close([res[r]["noop_hook"]], [res[r]["ref_local_grad"]])
        assert close([res[r]["allreduce_hook"]], [res[0]["ref_full_grad"]])
        assert res[r]["noop_hook_twice"] == real[0][r]["noop_hook_twice"]


@pytest.mark.slow
def test_unused_parameters_error_as_pytorch(shim, real):
    res, _ = shim
    for r in (0, 1):
        assert res[r]["unused_first_grad_b"] is True
        assert res[r]["unused_error"] == real[0][r]["unused_error"]
        assert f"did not receive grad for rank {r}: 2 3\n" in res[r]["unused_error"][1]


@pytest.mark.slow
@pytest.mark.parametrize("key", ["find_unused_grads", "find_unused_global", "static_graph_grads"])
def test_find_unused_parameters(shim, real, key):
    res, _ = shim
    for r in (0, 1):
        a, b = res[r][key], real[0][r][key]
        if key == "find_unused_global":
            assert a == b == [False, False, True, True, False, False]
            continue
        assert [x is None for x in a] == [x is None for x in b]
        assert close([x for x in a if x is not None], [x for x in b if x is not None])


@pytest.mark.slow
@pytest.mark.parametrize("key", ["err_device_ids", "err_device_ids_2", "ok_output_device_0", "err_no_params"])
def test_argument_errors_as_pytorch(shim, real, key):
    res, _ = shim
    for r in (0, 1):
        assert res[r][key] == real[0][r][key]


@pytest.mark.slow
def test_mismatched_models_raise_on_every_rank(shim):
    res, _ = shim
    assert res[1]["err_shapes"] == ["RuntimeError", "[1]: params[0] in this process with sizes [3, 3] "
                                    "appears not to match sizes of the same param in process 0."]
    assert res[0]["err_shapes"] == ["RuntimeError", "[0]: params[0] in process 1 with sizes [3, 3] "
                                    "appears not to match sizes of the same param in process 0."]
    assert res[0]["err_count"] == ["RuntimeError", "DDP expects same model across all ranks, but Rank 0 has "
                                   "2 params, while rank 1 has inconsistent 4 params."]


@pytest.mark.slow
def test_compiled_ddp_step_matches_eager(shim):
    res, _ = shim
    for r in (0, 1):
        c = res[r]["compiled_step"]
        assert close(c["compiled"], c["eager"])


@pytest.mark.slow
def test_compiled_ddp_step_is_one_program(shim):
    res, _ = shim  # (test_distributed_compile.py checks the program and its all-reduces in detail)
    assert res[0]["compiled_step"]["compiled_warnings"] == []


@pytest.mark.slow
def test_rank0_checkpoint_loads_in_pytorch(shim):
    res, out = shim
    sd = torch.load(os.path.join(out, "ddp.pt"), weights_only=True)
    names = ("0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias")
    assert list(sd) == [f"module.{k}" for k in names]
    nn = torch.nn
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3))
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "module.")
    model.load_state_dict(sd)
    assert close([p.detach().reshape(-1).tolist() for p in model.parameters()], res[0]["train_params"], 0)

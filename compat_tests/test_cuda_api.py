"""torch.cuda's memory, stream and device-property API on a machine without a GPU: what PyTorch's CPU build
does (values, exception types and messages). On a GPU the same functions read jax's device statistics
(torchshim/cuda/memory.py); that path is exercised on a lent GPU machine only."""
import pytest
import torch

import torchshim

CALLS = {
    "memory_allocated": (), "max_memory_allocated": (), "memory_reserved": (), "max_memory_reserved": (),
    "memory_stats": (), "memory_summary": (), "reset_peak_memory_stats": (), "mem_get_info": (),
    "get_device_properties": (0,), "get_device_capability": (), "synchronize": (), "current_stream": (),
    "default_stream": (), "Event": (), "Stream": (), "is_bf16_supported": (), "get_arch_list": (),
    "set_per_process_memory_fraction": (0.5,), "empty_cache": (),
}


def _outcome(mod, name, args):
    try:
        return ("ok", getattr(mod.cuda, name)(*args))
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        return (type(e).__name__, str(e))


@pytest.mark.skipif(torchshim.cuda.is_available(), reason="this machine has a GPU: the CPU-build behaviour "
                    "does not apply")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_cuda_api_without_gpu_matches_cpu_build(name):
    want = _outcome(torch, name, CALLS[name])
    got = _outcome(torchshim, name, CALLS[name])
    assert got[0] == want[0], (got, want)
    if want[0] == "ok":
        assert got[1] == want[1]
    else:
        assert got[1] == want[1]


def test_stream_context_with_none_is_a_no_op():
    for mod in (torch, torchshim):
        with mod.cuda.stream(None) as s:
            assert s is None

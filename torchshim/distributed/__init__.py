"""`torch.distributed` on JAX's multi-process runtime: process groups, collectives, point-to-point and the
`*_object` forms, with the gloo backend on CPU (XLA's CPU collectives over gloo) and nccl on GPUs.

One module per role: `_rendezvous` (init methods, torchrun's environment), `_runtime` (jax.distributed:
start/stop, the coordination key-value store, dead/late peer detection), `_store` (Store, HashStore,
FileStore, PrefixStore, TCPStore), `_groups` (ProcessGroup, new_group, rank queries), `_agree` (the ranks'
agreement before each collective), `_programs` (one compiled program per collective/shape/dtype/group),
`_collectives`, `_traced` (collectives inside torch.compile programs), `_objects`, `_p2p`, `_work` (Work of
async_op=True), `_init` (init/destroy), `_grad_bucket` (what DDP's comm hooks get); `algorithms` (Join,
ddp_comm_hooks). Before init_process_group the rank queries and collectives raise
PyTorch's ValueError for a missing default process group.
"""
from ._collectives import (all_gather, all_gather_into_tensor, all_reduce, all_to_all, all_to_all_single,
                           barrier, broadcast, gather, monitored_barrier, reduce, reduce_scatter,
                           reduce_scatter_tensor, scatter)
from ._exceptions import DistBackendError, DistError, DistNetworkError, DistStoreError
from ._grad_bucket import BuiltinCommHookType, GradBucket
from ._groups import (ProcessGroup, get_backend, get_global_rank, get_group_rank, get_process_group_ranks,
                      get_rank, get_world_size, new_group)
from ._init import (destroy_process_group, init_process_group, is_available, is_backend_available,
                    is_gloo_available, is_initialized, is_mpi_available, is_nccl_available, is_ucc_available,
                    is_xccl_available)
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from ._p2p import P2POp, batch_isend_irecv, irecv, isend, recv, send
from ._rendezvous import get_node_local_rank, is_torchelastic_launched
from ._store import FileStore, HashStore, PrefixStore, Store, TCPStore
from ._types import Backend, GroupMember, ReduceOp, group
from ._work import Work

__all__ = ["is_available", "is_initialized", "init_process_group", "destroy_process_group", "ReduceOp",
           "Backend", "GroupMember", "group", "is_gloo_available", "is_nccl_available", "is_mpi_available",
           "is_ucc_available", "is_xccl_available", "is_backend_available", "is_torchelastic_launched",
           "get_rank", "get_world_size", "get_backend", "new_group", "barrier", "all_reduce", "broadcast",
           "all_gather", "reduce", "gather", "scatter", "reduce_scatter", "all_to_all", "send", "recv",
           "isend", "irecv", "all_gather_object", "broadcast_object_list", "gather_object",
           "scatter_object_list", "get_process_group_ranks", "monitored_barrier", "all_gather_into_tensor",
           "reduce_scatter_tensor",
           "all_to_all_single", "get_global_rank", "get_group_rank", "get_node_local_rank", "P2POp",
           "batch_isend_irecv", "ProcessGroup", "Work", "Store", "HashStore", "FileStore", "PrefixStore",
           "TCPStore", "DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
           "GradBucket", "BuiltinCommHookType"]

"""The "Distributed PyTorch" examples of the PyTorch 0.2 release notes, as one script: hello, point-to-point
send/recv, asynchronous isend/irecv, and all_reduce. Plain PyTorch; run it with 2 processes:

    python -m torch.distributed.run --nproc_per_node 2 examples/distributed_hello.py       # real PyTorch
    python -m torchshim run --nproc_per_node 2 examples/distributed_hello.py               # torchshim

Adapted from the notes only where PyTorch 2.x needs it: the `tcp` backend became `gloo`, the multicast
address is the launcher's `tcp://127.0.0.1:MASTER_PORT` (torchrun serves its store there), and a `tcp://`
init_method needs the rank and world size, read from the launcher's environment. The notes' send/recv
snippet prints nothing; this script sends the tensor back with isend/irecv and prints whether it made the
round trip intact, so that the output does not depend on the random numbers.
"""
import os

import torch
import torch.distributed as dist

dist.init_process_group(backend='gloo',
                        init_method='tcp://127.0.0.1:{}'.format(os.environ['MASTER_PORT']),
                        world_size=int(os.environ['WORLD_SIZE']), rank=int(os.environ['RANK']))

print('Hello from process {} (out of {})!'.format(
        dist.get_rank(), dist.get_world_size()))

# All processes (receiving ones too!) need to have tensors of appropriate
# size preallocated.
x = torch.Tensor(10)
if dist.get_rank() == 0:
    x.normal_()
    # Send x to process with rank 1
    dist.send(x, dst=1)
else:  # rank == 1
    # Receive data from process with rank 0 and save result in x
    dist.recv(x, src=0)

# Asynchronous p2p functions (isend, irecv) are available too: send it back.
y = torch.Tensor(10)
if dist.get_rank() == 0:
    req = dist.irecv(y, src=1)
    req.wait()
    print('Process 0 got back what it sent: {}'.format(torch.equal(x, y)))
else:
    req = dist.isend(x, dst=0)
    req.wait()

x = torch.Tensor([dist.get_rank()])
# Add tensors from all processes such that they all receive the result.
# x is an input and output to this operation.
dist.all_reduce(x)
print('Process {}: all_reduce gives {}'.format(dist.get_rank(), x))

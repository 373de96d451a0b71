"""DistributedDataParallel with a DistributedSampler, as the PyTorch 0.2 release notes introduce them: the
notes' snippet made into a whole training script. Plain PyTorch; run it with 2 processes:

    python -m torch.distributed.run --nproc_per_node 2 examples/distributed_sampler.py       # real PyTorch
    python -m torchshim run --nproc_per_node 2 examples/distributed_sampler.py               # torchshim

Adapted from the notes only where PyTorch 2.x needs it: the process group is `gloo` on
`tcp://127.0.0.1:MASTER_PORT` (rank and world size from the launcher's environment), and the model stays on
the CPU (the notes' "CUDA only for the moment" no longer holds). The data and the initial weights come from
numpy and each rank's shard is one batch, so every epoch is one step on the whole data set whatever order
the sampler shuffles it in: the printed losses are the same under PyTorch and torchshim (their random
streams differ).
"""
import argparse
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data
import torch.utils.data.distributed

parser = argparse.ArgumentParser(description='DistributedDataParallel + DistributedSampler')
parser.add_argument('--batch-size', type=int, default=32)
parser.add_argument('--workers', type=int, default=0)
parser.add_argument('--num-epochs', type=int, default=20)
parser.add_argument('--lr', type=float, default=0.5)
args = parser.parse_args()

dist.init_process_group(backend='gloo',
                        init_method='tcp://127.0.0.1:{}'.format(os.environ['MASTER_PORT']),
                        world_size=int(os.environ['WORLD_SIZE']), rank=int(os.environ['RANK']))

# 64 points in 2-D, two classes split by a circle
rng = np.random.RandomState(0)
points = rng.uniform(-1, 1, (64, 2)).astype(np.float32)
labels = ((points ** 2).sum(1) < 0.5).astype(np.int64)
train_dataset = torch.utils.data.TensorDataset(torch.from_numpy(points), torch.from_numpy(labels))

model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-1, 1, tuple(p.shape)).astype(np.float32)))

# Wrap model in DistributedDataParallel
model = torch.nn.parallel.DistributedDataParallel(model)

# Use a DistributedSampler to restrict each process to a distinct subset
# of the dataset.
train_sampler = torch.utils.data.distributed.DistributedSampler(train_dataset)
train_loader = torch.utils.data.DataLoader(
    train_dataset, batch_size=args.batch_size, num_workers=args.workers,
    pin_memory=True, sampler=train_sampler)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

for epoch in range(args.num_epochs):
    # Use .set_epoch() method to reshuffle the dataset partition at every iteration
    train_sampler.set_epoch(epoch)
    # training loop
    total, count = torch.zeros(2), 0
    for data, target in train_loader:
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        total += torch.stack([loss.detach() * len(target),
                              (output.argmax(1) == target).sum().float()])
        count += len(target)
    dist.all_reduce(total)
    if dist.get_rank() == 0:
        n = count * dist.get_world_size()
        print('epoch {}: loss {:.4f}, accuracy {:.3f}'.format(
            epoch, total[0].item() / n, total[1].item() / n))

dist.destroy_process_group()

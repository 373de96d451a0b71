"""DistributedDataParallel training written the way PyTorch's "Getting Started with Distributed Data
Parallel" tutorial writes it, on the CPU: a ToyModel wrapped in DDP, the gloo backend initialised from
torchrun's environment, a DistributedSampler over the data set, and a checkpoint saved by rank 0 and loaded
by every rank (map_location, after a barrier). Plain PyTorch; run it with 2 processes:

    python -m torch.distributed.run --nproc_per_node 2 examples/ddp_tutorial.py       # real PyTorch
    python -m torchshim run --nproc_per_node 2 examples/ddp_tutorial.py               # torchshim

The data and the initial weights come from numpy and the sampler does not shuffle, so the printed losses are
the same under PyTorch and torchshim (their random streams differ).
"""
import argparse
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class ToyModel(nn.Module):
    def __init__(self):
        super(ToyModel, self).__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def make_dataset(n=256, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 10).astype(np.float32)
    w = rng.randn(10, 5).astype(np.float32)
    y = (np.tanh(x @ w) + 0.1 * rng.randn(n, 5)).astype(np.float32)
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y))


def init_weights(model, seed=1):
    rng = np.random.RandomState(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))


def train(ddp_model, loader, sampler, optimizer, epochs, rank, first_epoch=0):
    loss_fn = nn.MSELoss()
    for epoch in range(first_epoch, first_epoch + epochs):
        sampler.set_epoch(epoch)
        total = torch.zeros(1)
        for inputs, labels in loader:
            optimizer.zero_grad()
            loss = loss_fn(ddp_model(inputs), labels)
            loss.backward()
            optimizer.step()
            total += loss.detach()
        dist.all_reduce(total, op=dist.ReduceOp.SUM)
        if rank == 0:
            print(f"epoch {epoch}: mean loss {total.item() / (len(loader) * dist.get_world_size()):.5f}")


def demo_checkpoint(args):
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    print(f"Start running DDP checkpoint example on rank {rank}.")

    model = ToyModel()
    init_weights(model)
    ddp_model = DDP(model)
    dataset = make_dataset()
    sampler = DistributedSampler(dataset, shuffle=False)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    optimizer = optim.SGD(ddp_model.parameters(), lr=args.lr)

    train(ddp_model, loader, sampler, optimizer, args.epochs, rank)

    if rank == 0:
        # All processes should see same parameters as they all start from same
        # random parameters and gradients are synchronized in backward passes.
        # Therefore, saving it in one process is sufficient.
        torch.save(ddp_model.state_dict(), args.checkpoint)

    # Use a barrier() to make sure that process 1 loads the model after process
    # 0 saves it.
    dist.barrier()
    # configure map_location properly
    map_location = {"cpu": "cpu"}
    state = torch.load(args.checkpoint, map_location=map_location, weights_only=True)
    same = all(torch.equal(state[k], v) for k, v in ddp_model.state_dict().items())
    print(f"Rank {rank} loaded the checkpoint of rank 0: {len(state)} tensors, equal to its own: {same}")

    # A fresh model resumes from the checkpoint and trains on.
    resumed = DDP(ToyModel())
    resumed.load_state_dict(state)
    optimizer = optim.SGD(resumed.parameters(), lr=args.lr)
    train(resumed, loader, sampler, optimizer, args.epochs, rank, first_epoch=args.epochs)

    # Not necessary to use a dist.barrier() to guard the file deletion below
    # as the AllReduce ops in the backward pass of DDP already served as
    # a synchronization.
    dist.barrier()
    if rank == 0:
        os.remove(args.checkpoint)
    dist.destroy_process_group()
    print(f"Finished running DDP checkpoint example on rank {rank}.")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="DDP tutorial: training with a rank-0 checkpoint")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--checkpoint", default="ddp_tutorial.checkpoint")
    demo_checkpoint(parser.parse_args())

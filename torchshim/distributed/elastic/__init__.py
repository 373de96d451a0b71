"""`torch.distributed.elastic`: the part training scripts import, `multiprocessing.errors` (`record`, ...),
which carries a worker's traceback to the launcher (`python -m torchshim.distributed.run`, torchrun's
equivalent). The elastic agent, rendezvous handlers and `start_processes` of PyTorch are not provided: the
launcher in `torchshim/distributed/run.py` does their job for its static rendezvous."""

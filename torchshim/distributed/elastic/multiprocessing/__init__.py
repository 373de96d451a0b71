"""`torch.distributed.elastic.multiprocessing`: only its `errors` subpackage (`record`, `ChildFailedError`,
`ErrorHandler`, ...) and `api.SignalException`; PyTorch's `start_processes` is not provided (the launcher
`torchshim.distributed.run` starts its workers itself)."""

"""`torch.nn.parallel`: DataParallel and its helpers."""

"""torch.nn.functional ops, pooling: max/avg/lp/adaptive/fractional pooling, max_unpool."""

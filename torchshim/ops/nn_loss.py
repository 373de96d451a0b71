"""torch.nn.functional ops, losses: l1/mse/cross_entropy/nll/bce/... and ctc_loss."""

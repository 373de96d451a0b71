"""`torch.nn.init`: parameter initializers."""

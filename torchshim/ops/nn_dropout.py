"""torch.nn.functional ops, dropout family: dropout, alpha_dropout, feature_alpha_dropout, dropout1d/2d/3d."""

"""torch.nn.functional ops, convolutions: conv1d/2d/3d, conv_transpose1d/2d/3d, conv_tbc, bilinear; im2col/col2im (F.unfold/F.fold)."""

"""torch.nn.functional ops, vision and padding: pad, interpolate/upsample, grid_sample, affine_grid, pixel_shuffle/unshuffle, channel_shuffle."""

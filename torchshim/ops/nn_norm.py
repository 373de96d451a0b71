"""torch.nn.functional ops, normalization: batch_norm, layer_norm, group_norm, instance_norm, local_response_norm, rms_norm, normalize."""

"""`torch.nn.utils`: clip_grad, parameters_to_vector, weight_norm, spectral_norm, parametrize, rnn, stateless."""

"""torch.nn.functional ops, activations: relu, relu6, leaky_relu, prelu, rrelu, elu, selu, celu, gelu, silu, mish, hard*, soft*, threshold, glu, logsigmoid, softmax/softmin/log_softmax."""

"""torch.nn.functional ops, embedding, embedding_bag, one_hot."""

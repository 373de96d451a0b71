"""torch.nn.functional ops, distances: cosine_similarity, pairwise_distance, pdist."""

"""torch.nn.functional ops, attention: scaled_dot_product_attention, multi_head_attention_forward."""

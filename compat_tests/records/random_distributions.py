"""Records for torchshim/ops/random_distributions.py. Draws can't match PyTorch's stream and the gradients are
implicit-reparameterisation values, so these ops are tested by hand in compat_tests/test_distributions_more.py
(errors and messages, shapes/dtypes, _standard_gamma_grad / _dirichlet_grad values against PyTorch on the
same samples, StandardGammaBackward0 and the raising backwards) and statistically in
test_distributions_more_sampling.py."""

EXTRA_COVERED = ["_standard_gamma", "_standard_gamma_grad", "_sample_dirichlet", "_dirichlet_grad",
                 "binomial"]
RECORDS = []

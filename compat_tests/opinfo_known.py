"""Known disagreements of torchshim with PyTorch on PyTorch's OpInfo samples (test_opinfo.py): case id ->
short reason. Each is a strict xfail: when a fix makes the case pass, the test fails until its entry goes."""

KNOWN = {
}

"""The documented differences `python -m torchshim doctor` points at: torch names (or prefixes ending in
'.') -> (section of docs/differences.md, one line). compat_tests/test_doctor.py checks that every section
named here is a heading of docs/differences.md."""

_ALIASING = "Memory and aliasing"
_PROCESSES = "Processes (torch.multiprocessing, DataLoader workers)"
_RANDOM = "Random numbers"

NOTES = {
    "torch.from_numpy": (_ALIASING, "copies the array: later writes to it are not seen"),
    "torch.as_tensor": (_ALIASING, "copies a NumPy array instead of sharing its memory"),
    "Tensor.numpy": (_ALIASING, "returns a copy, not a view of the tensor's memory"),
    "Tensor.data_ptr": (_ALIASING, "fake addresses: equal for aliases as in PyTorch, not real memory"),
    "torch.empty": (_ALIASING, "zero-filled (PyTorch leaves memory uninitialised)"),
    "torch.empty_like": (_ALIASING, "zero-filled (PyTorch leaves memory uninitialised)"),
    "Tensor.new_empty": (_ALIASING, "zero-filled (PyTorch leaves memory uninitialised)"),
    "Tensor.share_memory_": (_PROCESSES, "marks only: a child's in-place updates are not seen by the parent "
                                         "(Hogwild trains one copy per process)"),
    "Tensor.is_shared": (_PROCESSES, "True after share_memory_(), but processes do not share memory"),
    "torch.multiprocessing.": (_PROCESSES, "tensors travel between processes by value; prefer 'spawn'"),
    "torch.utils.data.DataLoader": (_PROCESSES, "worker processes are spawned, not forked"),
    "torch.manual_seed": (_RANDOM, "same seed, same numbers within torchshim, but not PyTorch's numbers"),
    "torch.seed": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.rand": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.randn": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.randint": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.randperm": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.rand_like": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.randn_like": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.randint_like": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.normal": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.bernoulli": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.multinomial": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.poisson": (_RANDOM, "random streams differ from PyTorch's"),
    "Tensor.uniform_": (_RANDOM, "random streams differ from PyTorch's"),
    "Tensor.normal_": (_RANDOM, "random streams differ from PyTorch's"),
    "Tensor.random_": (_RANDOM, "random streams differ from PyTorch's"),
    "Tensor.bernoulli_": (_RANDOM, "random streams differ from PyTorch's"),
    "Tensor.exponential_": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.nn.functional.dropout": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.nn.Dropout": (_RANDOM, "random streams differ from PyTorch's"),
    "torch.testing.make_tensor": (_RANDOM, "values in PyTorch's ranges, but not PyTorch's draws"),
}


def note(name):
    """(section, text) for the torch name `name` (or `Tensor.method`), or None."""
    if name in NOTES:
        return NOTES[name]
    for key, value in NOTES.items():
        if key.endswith(".") and name.startswith(key):
            return value
    return None

"""Functions that run in processes started by test_multiprocessing.py (torch.multiprocessing.spawn, Process,
Queue, Pipe). Like data_helpers.py, it imports neither torch nor torchshim at the top: a spawned child imports
only the library under test, named by `name` ('torch' or 'torchshim'). A child that sends tensors waits for
the parent to have received them: PyTorch's receiver fetches the shared memory from the (living) sender."""
import importlib
import os
import signal
import sys


def lib(name):
    return importlib.import_module(name)


def double_from_queue(name, inq, outq, done):
    """Process target: read a tensor from `inq`, send back (2 * it, its dtype name, its requires_grad)."""
    lib(name)
    t = inq.get(timeout=120)
    outq.put(((t * 2).detach(), str(t.dtype), t.requires_grad, t.is_shared()))
    done.wait(120)


def echo_pipe(name, conn):
    """Process target: receive a dict of tensors on `conn`, send back each tensor + 1 and its is_shared()."""
    lib(name)
    d = conn.recv()
    conn.send({k: (v + 1, type(v).__name__, v.is_shared()) for k, v in d.items()})
    conn.recv()  # the parent has the tensors
    conn.close()


def spawn_put(i, name, q, base, done):
    """spawn target: put (i, base * (i + 1)) on `q`, then wait for `done` (at most 120 s)."""
    lib(name)
    q.put((i, base * (i + 1)))
    done.wait(120)


def spawn_fail(i, name, how):
    """spawn target: process 1 fails by `how` ('raise', 'exit', 'kill'), the others return at once."""
    lib(name)
    if i != 1:
        return
    if how == "raise":
        raise ValueError(f"boom in process {i}")
    if how == "exit":
        sys.exit(3)
    os.kill(os.getpid(), signal.SIGKILL)


def spawn_wait_for(i, name, event):
    """spawn target: wait (at most 120 s) until `event` is set."""
    lib(name)
    event.wait(120)

"""`torch.distributed.Store` and its kinds: HashStore (in-process), FileStore (a file shared by the processes
of one machine or a shared filesystem), PrefixStore, and TCPStore.

Values are bytes (str is encoded); `add` keeps a decimal integer; `get`/`wait` block up to the store's
timeout and raise DistStoreError('Wait timeout') as PyTorch's.

Difference from PyTorch: torchshim's TCPStore is JAX's coordination service, which exists only while the
process group runs (rank 0 hosts it). `TCPStore(host, port, world_size, is_master)` records the address;
passed as `init_process_group(store=...)` it is where the coordinator listens (is_master must be rank 0), and
from then on its operations are the coordination service's key-value store (compare_set and append are not
atomic there). Used before that it raises RuntimeError saying so; it does not wait for workers in its
constructor.
"""
import datetime
import fcntl
import os
import pickle
import threading
import time

from ._exceptions import DistStoreError

__all__ = ["Store", "HashStore", "FileStore", "PrefixStore", "TCPStore"]

_DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


def _b(value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (list, tuple)):  # PyTorch accepts a list of ints (bytes) too
        return bytes(value)
    raise TypeError(f"set(): incompatible function arguments: value must be str or bytes, got "
                    f"{type(value).__name__}")


class Store:
    """`torch.distributed.Store`: the base class (key-value operations with a timeout). Subclasses implement
    `_get_nowait(key) -> bytes | None`, `_set(key, bytes)`, `_delete(key) -> bool`, `_keys() -> list` and
    `_add(key, int) -> int`."""

    def __init__(self):
        self._timeout = _DEFAULT_TIMEOUT

    # ----- the primitives ------------------------------------------------------------------------
    def _get_nowait(self, key):
        raise NotImplementedError

    def _set(self, key, value):
        raise NotImplementedError

    def _delete(self, key):
        raise NotImplementedError

    def _keys(self):
        raise NotImplementedError

    def _add(self, key, amount):
        cur = self._get_nowait(key)
        try:
            new = (int(cur) if cur is not None else 0) + int(amount)
        except ValueError:
            raise ValueError("stoll") from None
        self._set(key, str(new).encode())
        return new

    def _get_timeout(self, key, timeout):
        return DistStoreError("Wait timeout")

    def _wait_timeout(self, key, timeout):
        return DistStoreError("Wait timeout")

    def _wait_value(self, key, timeout, error=None):
        deadline = time.monotonic() + timeout.total_seconds()
        delay = 0.001
        while True:
            v = self._get_nowait(key)
            if v is not None:
                return v
            if time.monotonic() >= deadline:
                raise (error or self._wait_timeout)(key, timeout)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    # ----- PyTorch's API --------------------------------------------------------------------------------
    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        """`Store.set_timeout(timeout: timedelta)`."""
        self._timeout = timeout

    def set(self, key, value):
        """`Store.set(key, value)`: value str or bytes."""
        self._set(key, _b(value))

    def get(self, key):
        """`Store.get(key) -> bytes`: waits up to the timeout for the key."""
        return self._wait_value(key, self._timeout, self._get_timeout)

    def add(self, key, amount):
        """`Store.add(key, amount) -> int`: atomically adds to the integer under key (0 if missing)."""
        return self._add(key, amount)

    def compare_set(self, key, expected_value, desired_value):
        """`Store.compare_set(key, expected, desired) -> bytes`: sets desired when the current value is
        expected (or the key is missing and expected is empty); returns the value now held (expected when the
        key is missing and expected is not empty, as PyTorch)."""
        expected, desired = _b(expected_value), _b(desired_value)
        cur = self._get_nowait(key)
        if cur is None:
            if expected == b"":
                self._set(key, desired)
                return desired
            return expected
        if cur == expected:
            self._set(key, desired)
            return desired
        return cur

    def append(self, key, value):
        """`Store.append(key, value)`: appends bytes to the value (creates the key)."""
        cur = self._get_nowait(key) or b""
        self._set(key, cur + _b(value))

    def multi_get(self, keys):
        """`Store.multi_get(keys) -> list[bytes]`."""
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        """`Store.multi_set(keys, values)`."""
        for k, v in zip(keys, values):
            self.set(k, v)

    def check(self, keys):
        """`Store.check(keys) -> bool`: whether every key is set (no waiting)."""
        return all(self._get_nowait(k) is not None for k in keys)

    def wait(self, keys, timeout=None):
        """`Store.wait(keys, timeout=None)`: waits until every key is set; DistStoreError after the
        timeout."""
        t = self._timeout if timeout is None else timeout
        for k in keys:
            self._wait_value(k, t)

    def delete_key(self, key):
        """`Store.delete_key(key) -> bool`: whether the key existed."""
        return self._delete(key)

    def num_keys(self):
        """`Store.num_keys() -> int`."""
        return len(self._keys())

    def has_extended_api(self):
        return True


class HashStore(Store):
    """`torch.distributed.HashStore()`: a thread-safe in-process store."""

    def __init__(self):
        super().__init__()
        self._data = {}
        self._lock = threading.Lock()

    def _get_nowait(self, key):
        with self._lock:
            return self._data.get(key)

    def _set(self, key, value):
        with self._lock:
            self._data[key] = value

    def _delete(self, key):
        with self._lock:
            return self._data.pop(key, None) is not None

    def _keys(self):
        with self._lock:
            return list(self._data)

    def _add(self, key, amount):
        with self._lock:
            cur = self._data.get(key)
            try:
                new = (int(cur) if cur is not None else 0) + int(amount)
            except ValueError:
                raise ValueError("stoll") from None
            self._data[key] = str(new).encode()
            return new


class FileStore(Store):
    """`torch.distributed.FileStore(file_name, world_size=-1)`: a store in a file, shared by processes under
    an exclusive file lock. Difference from PyTorch: the file holds a pickled dict (not PyTorch's format), and
    is removed when `world_size` processes have called `_release()` (init_process_group does after the
    rendezvous) rather than when the store objects are destroyed."""

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path = os.fspath(file_name)
        self.world_size = world_size
        with self._locked():
            pass

    def _locked(self):
        store = self

        class _Lock:
            def __enter__(self):
                self.fd = os.open(store.path, os.O_RDWR | os.O_CREAT, 0o644)
                fcntl.flock(self.fd, fcntl.LOCK_EX)
                return self

            def read(self):
                os.lseek(self.fd, 0, os.SEEK_SET)
                raw = b""
                while chunk := os.read(self.fd, 1 << 20):
                    raw += chunk
                return pickle.loads(raw) if raw else {}

            def write(self, data):
                raw = pickle.dumps(data)
                os.lseek(self.fd, 0, os.SEEK_SET)
                os.ftruncate(self.fd, 0)
                os.write(self.fd, raw)

            def __exit__(self, *exc):
                fcntl.flock(self.fd, fcntl.LOCK_UN)
                os.close(self.fd)

        return _Lock()

    def _get_timeout(self, key, timeout):
        return RuntimeError(f"Timeout waiting for key: {key} after {int(timeout.total_seconds() * 1000)} ms")

    def _wait_timeout(self, key, timeout):
        return RuntimeError("Wait timeout")

    def delete_key(self, key):
        """`FileStore.delete_key(key) -> True` (PyTorch's FileStore answers True even for a missing key)."""
        self._delete(key)
        return True

    def _get_nowait(self, key):
        if not os.path.exists(self.path):
            return None
        with self._locked() as f:
            return f.read().get(key)

    def _set(self, key, value):
        with self._locked() as f:
            d = f.read()
            d[key] = value
            f.write(d)

    def _delete(self, key):
        with self._locked() as f:
            d = f.read()
            found = d.pop(key, None) is not None
            f.write(d)
            return found

    def _keys(self):
        with self._locked() as f:
            return list(f.read())

    def _add(self, key, amount):
        with self._locked() as f:
            d = f.read()
            cur = d.get(key)
            try:
                new = (int(cur) if cur is not None else 0) + int(amount)
            except ValueError:
                raise ValueError("stoll") from None
            d[key] = str(new).encode()
            f.write(d)
            return new

    def _release(self):
        """One of `world_size` users is done: the last one removes the file."""
        if self.world_size is None or self.world_size <= 0:
            return
        if self._add("torchshim/released", 1) >= self.world_size:
            try:
                os.remove(self.path)
            except FileNotFoundError:
                pass


class PrefixStore(Store):
    """`torch.distributed.PrefixStore(prefix, store)`: every key of `store` seen as `prefix/key`."""

    def __init__(self, prefix, store):
        super().__init__()
        self.prefix = prefix
        self.underlying_store = store
        self._timeout = store.timeout

    def _k(self, key):
        return f"{self.prefix}/{key}"

    def _get_nowait(self, key):
        return self.underlying_store._get_nowait(self._k(key))

    def _set(self, key, value):
        self.underlying_store._set(self._k(key), value)

    def _delete(self, key):
        return self.underlying_store._delete(self._k(key))

    def _keys(self):
        return self.underlying_store._keys()

    def _add(self, key, amount):
        return self.underlying_store._add(self._k(key), amount)


class TCPStore(Store):
    """`torch.distributed.TCPStore(host_name, port, world_size=None, is_master=False,
    timeout=timedelta(seconds=300), wait_for_workers=True, multi_tenant=False, master_listen_fd=None,
    use_libuv=True)`: see the module docstring (the coordination service of init_process_group)."""

    _PREFIX = "torchshim/tcpstore/"

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=_DEFAULT_TIMEOUT,
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        super().__init__()
        if master_listen_fd is not None:
            raise RuntimeError("torchshim's TCPStore does not take master_listen_fd (JAX's coordination "
                               "service binds its own socket)")
        self.host = host_name
        self.port = int(port)
        self.world_size = world_size
        self.is_master = bool(is_master)
        self._timeout = timeout
        self.libuvBackend = bool(use_libuv)

    def _client(self):
        from . import _runtime
        if not _runtime.is_running() or _runtime.coordinator() != f"{self.host}:{self.port}":
            raise RuntimeError(
                "torchshim's TCPStore is JAX's coordination service: it works once "
                "init_process_group(store=this_store, rank=..., world_size=...) has started it at "
                f"{self.host}:{self.port} (see torchshim.distributed._store).")
        return _runtime.client()

    def _get_nowait(self, key):
        try:
            return self._client().key_value_try_get_bytes(self._PREFIX + key)
        except RuntimeError:
            raise
        except Exception:
            return None

    def _wait_value(self, key, timeout, error=None):
        cl = self._client()
        try:
            ms = max(1, int(timeout.total_seconds() * 1000))
            return cl.blocking_key_value_get_bytes(self._PREFIX + key, ms)
        except Exception:
            raise DistStoreError("Wait timeout") from None

    def _set(self, key, value):
        self._client().key_value_set_bytes(self._PREFIX + key, value, allow_overwrite=True)

    def _delete(self, key):
        found = self._get_nowait(key) is not None
        if found:
            self._client().key_value_delete(self._PREFIX + key)
        return found

    def _keys(self):
        return [k for k, _ in self._client().key_value_dir_get_bytes(self._PREFIX)]

    def _add(self, key, amount):
        return int(self._client().key_value_increment(self._PREFIX + key, int(amount)))

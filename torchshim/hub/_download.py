"""torch.hub's downloads: `download_url_to_file` and `load_state_dict_from_url` (a file already in the
cache, `<hub dir>/checkpoints/`, loads with torchshim's `load` without touching the network). Every network
call has a timeout (`TIMEOUT_S`), so a machine without network fails at once with PyTorch's URLError
instead of hanging."""
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile

from ..serialization import load as _load
from ._progress import get_tqdm

__all__ = ["download_url_to_file", "load_state_dict_from_url", "HASH_REGEX", "READ_DATA_CHUNK", "TIMEOUT_S",
           "read_url"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
READ_DATA_CHUNK = 128 * 1024
TIMEOUT_S = 30.0  # seconds per network operation (PyTorch has none)


def _open(url, headers=None):
    req = urllib.request.Request(url, headers={"User-Agent": "torch.hub", **(headers or {})})
    return urllib.request.urlopen(req, timeout=TIMEOUT_S)


def read_url(url, headers=None):
    """The body of `url` as text (timeout TIMEOUT_S)."""
    with _open(url, headers) as r:
        return r.read().decode(r.headers.get_content_charset("utf-8"))


def read_json(url, headers=None):
    return json.loads(read_url(url, headers))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """`torch.hub.download_url_to_file(url, dst, hash_prefix=None, progress=True)`: download to a temporary
    file beside dst, check the SHA256 prefix (RuntimeError 'invalid hash value ...'), then move it to dst.
    Network errors are urllib's (URLError / HTTPError), raised within TIMEOUT_S. `progress` shows
    `torch.hub.tqdm`'s bar on stderr."""
    dst = os.path.expanduser(dst)
    dst_dir = os.path.dirname(os.path.abspath(dst))
    sha256 = hashlib.sha256() if hash_prefix is not None else None
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(dst) + ".", suffix=".partial", dir=dst_dir)
    try:
        with os.fdopen(fd, "wb") as f, _open(url) as u:
            length = u.info().get_all("Content-Length")
            size = int(length[0]) if length else None
            with get_tqdm()(total=size, disable=not progress, unit="B", unit_scale=True,
                            unit_divisor=1024) as pbar:
                while True:
                    buf = u.read(READ_DATA_CHUNK)
                    if not buf:
                        break
                    f.write(buf)
                    if sha256 is not None:
                        sha256.update(buf)
                    pbar.update(len(buf))
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _is_legacy_zip_format(filename):
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as z:
            infolist = z.infolist()
            return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """`torch.hub.load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
    check_hash=False, file_name=None, weights_only=False)`: the object saved at url, cached in
    `<hub dir>/checkpoints/` (or model_dir) under the url's file name (or file_name). A cached file is loaded
    without network; otherwise it is downloaded (`Downloading: "<url>" to <path>` on stderr), with the hash
    check when check_hash (the hex digits after the last '-' of the name)."""
    from . import get_dir
    if os.getenv("TORCH_MODEL_ZOO"):
        import warnings
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urllib.parse.urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        with zipfile.ZipFile(cached_file) as z:
            member = z.infolist()[0]
            z.extractall(model_dir)
            return _load(os.path.join(model_dir, member.filename), map_location=map_location,
                         weights_only=weights_only)
    return _load(cached_file, map_location=map_location, weights_only=weights_only)

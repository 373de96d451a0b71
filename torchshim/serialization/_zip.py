"""PyTorch's checkpoint container: the zip archive its C++ `PyTorchStreamWriter`/`PyTorchStreamReader` (miniz)
write and read, byte for byte.

Writer: every record is stored (no compression) under `<archive>/<name>`, its data aligned to 64 bytes by an
"FB" extra field padded with 'Z', followed by a data descriptor (records of 0 bytes have none); the archive
always ends with zip64 end-of-central-directory records, as miniz's `MZ_ZIP_FLAG_WRITE_ZIP64` does. On
`end()` the writer adds `version` ("3\\n"), `byteorder` when missing, and `.data/serialization_id` (a hash of
the record names as libstdc++'s `std::unordered_set` iterates them, then a hash of the records' CRC-32s).

Reader: miniz's checks and error texts, raised as PyTorch raises them
(`RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory. ...`).
As in PyTorch, CRC-32s are not verified on read.
"""
import bisect
import struct
import zlib

__all__ = ["ZipWriter", "ZipReader", "archive_name_of"]

_U32 = 0xFFFFFFFF
_U64 = (1 << 64) - 1
_LOCAL_SIG, _CENTRAL_SIG, _DESCRIPTOR_SIG = 0x04034B50, 0x02014B50, 0x08074B50
_EOCD_SIG, _EOCD64_SIG, _LOCATOR64_SIG = 0x06054B50, 0x06064B50, 0x07064B50
_FLAG_DESCRIPTOR, _FLAG_UTF8 = 0x0008, 0x0800
_PRODUCED_VERSION = 3
_MIN_VERSION, _MAX_VERSION = 1, 10


def archive_name_of(path):
    """PyTorch's archive folder for a file name: the base name up to its last '.' ('dir/m.pt' -> 'm')."""
    start = max(path.rfind("/"), path.rfind("\\")) + 1
    base = path[start:]
    dot = base.rfind(".")
    return base[:dot] if dot >= 0 else base


# ---- writer ---------------------------------------------------------------------------------------------
class ZipWriter:
    """Writes records through `write(bytes)` as PyTorch's stream writer does (offsets relative to the
    start)."""

    def __init__(self, write, archive_name, alignment=64, compute_crc32=True):
        if not archive_name:
            raise RuntimeError(f"invalid file name: {archive_name}")
        self._write = write
        self._prefix = archive_name + "/"
        self._alignment = alignment
        self._crc = compute_crc32
        self._pos = 0
        self._central = []
        self._names = []
        self._crc_hash = 0
        self._finalized = False

    def _out(self, data):
        self._write(data)
        self._pos += len(data)

    def write_record(self, name, data):
        """Add record `name` holding `data` (bytes-like), stored and aligned like PyTorch's writer."""
        if name in self._names:
            raise RuntimeError(f"Tried to serialize file twice: {name}")
        data = memoryview(data).cast("B")
        size = len(data)
        full = (self._prefix + name).encode("utf-8")
        ofs = self._pos
        big_size, big_ofs = size >= _U32, ofs >= _U32
        zip64 = b""
        if big_size or big_ofs:  # miniz: zip64 extra (uncompressed and compressed=0 sizes, offset) first
            zip64 = struct.pack("<HH", 1, 16 * big_size + 8 * big_ofs)
            zip64 += struct.pack("<QQ", size, 0) if big_size else b""
            zip64 += struct.pack("<Q", ofs) if big_ofs else b""
        start = ofs + 30 + len(full) + 4 + len(zip64)
        pad = (-start) % self._alignment
        extra = zip64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        flags = _FLAG_UTF8 | (_FLAG_DESCRIPTOR if size else 0)
        crc = zlib.crc32(data) if self._crc else 0
        self._out(struct.pack("<IHHHHHIIIHH", _LOCAL_SIG, 0, flags, 0, 0, 0, 0, 0, 0, len(full), len(extra)))
        self._out(full + extra)
        self._out(data)
        if size:
            if zip64:
                self._out(struct.pack("<IIQQ", _DESCRIPTOR_SIG, crc, size, size))
            else:
                self._out(struct.pack("<IIII", _DESCRIPTOR_SIG, crc, size, size))
            self._crc_hash = _hash_combine(self._crc_hash, crc)
        cextra = b""
        if zip64:
            cextra = struct.pack("<HH", 1, 16 * big_size + 8 * big_ofs)
            cextra += struct.pack("<QQ", size, size) if big_size else b""
            cextra += struct.pack("<Q", ofs) if big_ofs else b""
        self._central.append(struct.pack("<IHHHHHHIIIHHHHHII", _CENTRAL_SIG, 0, 0, flags, 0, 0, 0, crc,
                                         min(size, _U32), min(size, _U32), len(full), len(cextra), 0, 0, 0,
                                         0, min(ofs, _U32)) + full + cextra)
        self._names.append(name)

    def end(self):
        """PyTorch's `write_end_of_file`: version/byteorder/serialization_id records, then the directory."""
        if self._finalized:
            return
        self._finalized = True
        if "version" not in self._names and ".data/version" not in self._names:
            self.write_record("version", f"{_PRODUCED_VERSION}\n".encode())
        if "byteorder" not in self._names:
            self.write_record("byteorder", b"little")
        if ".data/serialization_id" not in self._names:
            sid = f"{_names_hash(self._names):020d}{self._crc_hash:020d}"
            self.write_record(".data/serialization_id", sid.encode())
        cd_ofs = self._pos
        cd = b"".join(self._central)
        self._out(cd)
        n = len(self._central)
        eocd64_ofs = self._pos
        self._out(struct.pack("<IQHHIIQQQQ", _EOCD64_SIG, 44, 0x031E, 0x002D, 0, 0, n, n, len(cd), cd_ofs))
        self._out(struct.pack("<IIQI", _LOCATOR64_SIG, 0, eocd64_ofs, 1))
        self._out(struct.pack("<IHHHHIIH", _EOCD_SIG, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF),
                              min(len(cd), _U32), min(cd_ofs, _U32), 0))


def _hash_combine(seed, value):
    """c10::hash_combine on 64-bit size_t."""
    return (seed ^ ((value + 0x9E3779B9 + (seed << 6) + (seed >> 2)) & _U64)) & _U64


_MUL = (0xC6A4A793 << 32) + 0x5BD1E995


def _hash_bytes(b, seed=0xC70F6907):
    """libstdc++'s `std::_Hash_bytes` (64-bit MurmurHash2 variant), i.e. `std::hash<std::string>`."""
    def mix(v):
        return v ^ (v >> 47)
    n = len(b)
    aligned = n & ~7
    h = (seed ^ (n * _MUL)) & _U64
    for p in range(0, aligned, 8):
        h ^= (mix((int.from_bytes(b[p:p + 8], "little") * _MUL) & _U64) * _MUL) & _U64
        h = (h * _MUL) & _U64
    if n & 7:
        h = ((h ^ int.from_bytes(b[aligned:], "little")) * _MUL) & _U64
    return mix((mix(h) * _MUL) & _U64)


# libstdc++'s bucket counts (_Prime_rehash_policy): the small-size table, then its prime list (below 1e6;
# beyond that the writer's name hash falls back to the sorted order, which no checkpoint reaches in practice).
_FAST_BKT = (2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_PRIMES = (
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109,
    113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359, 383, 409,
    439, 467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613,
    1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953,
    6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183,
    20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557,
    62233, 67307, 72817, 78779, 85229, 92203, 99733, 107897, 116731, 126271, 136607, 147793, 159871,
    172933, 187091, 202409, 218971, 236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857,
    444487, 480881, 520241, 562841, 608903, 658753, 712697, 771049, 834181, 902483, 976369)


def _names_hash(names):
    """The combined hash of `names` in the iteration order of a libstdc++ `unordered_set<string>` that had
    them inserted in this order (PyTorch's `files_written_`)."""
    codes = [_hash_bytes(n.encode("utf-8")) for n in names]
    nxt = {}            # singly linked list: node -> next node (None ends it); "head" is _M_before_begin
    before = {}         # bucket -> the node before the bucket's first node ("head" for the list's first)
    nb, next_resize = 1, 0

    def next_bkt(n):
        if n < len(_FAST_BKT):
            return _FAST_BKT[n], _FAST_BKT[n]
        i = bisect.bisect_left(_PRIMES, n, 6)
        if i >= len(_PRIMES):
            return None, None
        return _PRIMES[i], _PRIMES[i]

    def insert_front(node, b, table):
        if b in table:
            prev = table[b]
            nxt[node] = nxt[prev]
            nxt[prev] = node
        else:
            first = nxt["head"]
            nxt[node] = first
            nxt["head"] = node
            if first is not None:
                table[codes[first] % nb] = node
            table[b] = "head"

    nxt["head"] = None
    for i, code in enumerate(codes):
        if i + 1 > next_resize:
            min_bkts = max(i + 1, 0 if next_resize else 11)
            if min_bkts >= nb:
                new_nb, next_resize = next_bkt(max(min_bkts + 1, nb * 2))
                if new_nb is None:
                    return _sorted_names_hash(names)
                node, nxt["head"], table, bbegin = nxt["head"], None, {}, 0
                while node is not None:  # _M_rehash_aux for unique keys
                    following = nxt[node]
                    b = codes[node] % new_nb
                    if b not in table:
                        nxt[node] = nxt["head"]
                        nxt["head"] = node
                        table[b] = "head"
                        if nxt[node] is not None:
                            table[bbegin] = node
                        bbegin = b
                    else:
                        prev = table[b]
                        nxt[node] = nxt[prev]
                        nxt[prev] = node
                    node = following
                before, nb = table, new_nb
            else:
                next_resize = nb
        insert_front(i, code % nb, before)
    seed, node = 0, nxt["head"]
    while node is not None:
        seed = _hash_combine(seed, codes[node])
        node = nxt[node]
    return seed


def _sorted_names_hash(names):
    seed = 0
    for n in sorted(names):
        seed = _hash_combine(seed, _hash_bytes(n.encode("utf-8")))
    return seed


# ---- reader ---------------------------------------------------------------------------------------------
_ERRORS = {
    "not_archive": "not a ZIP archive",
    "no_cdir": "failed finding central directory",
    "corrupt": "invalid header or archive is corrupted",
    "multidisk": "unsupported multidisk archive",
    "too_many": "too many files",
    "cdir_size": "unsupported central directory size",
    "read": "file read failed",
    "encryption": "unsupported encryption",
    "method": "unsupported method",
    "feature": "unsupported feature",
    "not_found": "file not found",
    "decompress": "decompression failed or archive is corrupted",
    "size": "unexpected decompressed size",
}
_MINIZ_NOTE = (". This is an internal miniz error. If you are seeing this error, there is a high likelihood "
               "that "
               "your checkpoint file is corrupted. This can happen if the checkpoint was not saved properly, "
               "was transferred incorrectly, or the file was modified after saving.")


def _fail(what, info, err):
    raise RuntimeError(f"PytorchStreamReader failed {what}{info}: {_ERRORS[err]}{_MINIZ_NOTE}")


def _throw(line, msg):
    """PyTorch's CAFFE_THROW text (the line of caffe2/serialize/inline_container.cc in PyTorch 2.13)."""
    raise RuntimeError(f"[enforce fail at inline_container.cc:{line}] . {msg}")


class _Entry:
    __slots__ = ("raw", "name", "flags", "method", "comp", "size", "ofs")


class ZipReader:
    """Reads a PyTorch zip checkpoint from a seekable binary file object, from its current position."""

    def __init__(self, f):
        self._f = f
        self._start = f.tell()
        self.size = f.seek(0, 2) - self._start
        f.seek(self._start)
        self._entries = []
        self._by_name = {}
        self._read_central_dir()
        if not self._entries:
            _throw(171, "archive does not contain any files")
        first = self._entries[0].name
        if "/" not in first:
            _throw(180, f"file in archive is not in a subdirectory: {first}")
        self.archive_name = first[:first.index("/")]
        self._prefix = self.archive_name + "/"
        self.serialization_id = b""
        if self.has_record(".data/serialization_id"):
            self.serialization_id = self.get_record(".data/serialization_id")
        if self.has_record(".data/version"):
            version = self.get_record(".data/version")
        elif self.has_record("version"):
            version = self.get_record("version")
        else:
            raise RuntimeError('Expected hasRecord("version") to be true, but got false.  (Could this error '
                               'message be improved?  If so, please report an enhancement request to '
                               'PyTorch.)')
        self.version = _stoull(version.decode("latin-1"))

    def _pread(self, ofs, n):
        if ofs < 0 or ofs >= self.size:
            return b""
        self._f.seek(self._start + ofs)
        return self._f.read(min(n, self.size - ofs))

    def _locate_eocd(self):
        size = self.size
        window = min(size, 0xFFFF + 22 + 4096)
        buf = self._pread(size - window, window)
        sig = struct.pack("<I", _EOCD_SIG)
        i = buf.rfind(sig, 0, len(buf) - 22 + 4) if len(buf) >= 22 else -1
        return -1 if i < 0 else size - window + i

    def _read_central_dir(self):
        size = self.size
        if size < 22:
            _fail("reading zip archive", "", "not_archive")
        eocd = self._locate_eocd()
        if eocd < 0:
            _fail("reading zip archive", "", "no_cdir")
        buf = self._pread(eocd, 22)
        if len(buf) != 22:
            _fail("reading zip archive", "", "read")
        _, disk, cd_disk, n_disk, total, cd_size, cd_ofs, _ = struct.unpack("<IHHHHIIH", buf)
        if eocd >= 20 + 56:
            loc = self._pread(eocd - 20, 20)
            if len(loc) == 20 and struct.unpack_from("<I", loc)[0] == _LOCATOR64_SIG:
                _, _, e64_ofs, n_disks = struct.unpack("<IIQI", loc)
                if e64_ofs > size - 56:
                    _fail("reading zip archive", "", "not_archive")
                e64 = self._pread(e64_ofs, 56)
                if len(e64) == 56 and struct.unpack_from("<I", e64)[0] == _EOCD64_SIG:
                    (_, rec_size, _, _, disk, cd_disk, n_disk, total, cd_size,
                     cd_ofs) = struct.unpack("<IQHHIIQQQQ", e64)
                    if rec_size < 44:
                        _fail("reading zip archive", "", "corrupt")
                    if n_disks != 1:
                        _fail("reading zip archive", "", "multidisk")
                    if total > _U32 or n_disk > _U32:
                        _fail("reading zip archive", "", "too_many")
                    if cd_size > _U32:
                        _fail("reading zip archive", "", "cdir_size")
        if total != n_disk or ((disk | cd_disk) != 0 and (disk != 1 or cd_disk != 1)):
            _fail("reading zip archive", "", "multidisk")
        if cd_size < total * 46 or cd_ofs + cd_size > size:
            _fail("reading zip archive", "", "corrupt")
        cd = self._pread(cd_ofs, cd_size) if total else b""
        if len(cd) != (cd_size if total else 0):
            _fail("reading zip archive", "", "read")
        p = 0
        for _ in range(total):
            if cd_size - p < 46 or struct.unpack_from("<I", cd, p)[0] != _CENTRAL_SIG:
                _fail("reading zip archive", "", "corrupt")
            (_, _, _, flags, method, _, _, _, comp, usize, nlen, xlen, clen, disk_start, _, _,
             ofs) = struct.unpack_from("<IHHHHHHIIIHHHHHII", cd, p)
            if xlen and max(comp, usize, ofs) == _U32:
                usize, comp, ofs = _zip64_fields(cd[p + 46 + nlen:p + 46 + nlen + xlen], usize, comp, ofs)
            if comp != _U32 and usize != _U32:
                if (struct.unpack_from("<I", cd, p + 10)[0] == 0 and usize != comp) or (usize and not comp):
                    _fail("reading zip archive", "", "corrupt")
            if disk_start == 0xFFFF or (disk_start != disk and disk_start != 1):
                _fail("reading zip archive", "", "multidisk")
            if comp != _U32 and ofs + 30 + comp > size:
                _fail("reading zip archive", "", "corrupt")
            if flags & 0x2000:
                _fail("reading zip archive", "", "encryption")
            if 46 + nlen + xlen + clen > cd_size - p:
                _fail("reading zip archive", "", "corrupt")
            e = _Entry()
            e.raw = cd[p + 46:p + 46 + nlen]
            e.name = e.raw.decode("utf-8", "surrogateescape")
            e.flags, e.method, e.comp, e.size, e.ofs = flags, method, comp, usize, ofs
            self._entries.append(e)
            self._by_name.setdefault(e.name.lower(), e)
            p += 46 + nlen + xlen + clen

    # ---- PyTorchStreamReader's API
    def has_record(self, name):
        return (self._prefix + name).lower() in self._by_name

    def get_all_records(self):
        out = []
        for e in self._entries:
            if not e.name.startswith(self._prefix):
                _throw(340, f"file in archive is not in a subdirectory {self._prefix}: {e.name}")
            out.append(e.raw[len(self._prefix.encode()):].decode("utf-8"))
        return out

    def _entry(self, name):
        """The record's directory entry (miniz's locate + file_stat, with their errors)."""
        e = self._by_name.get((self._prefix + name).lower())
        if e is None:
            _fail("locating file ", name, "not_found")
        if e.method not in (0, 8):
            _fail("retrieving file meta-data for ", name, "method")
        if e.flags & (1 | 64):
            _fail("retrieving file meta-data for ", name, "encryption")
        if e.flags & 0x20:
            _fail("retrieving file meta-data for ", name, "feature")
        return e

    def record_size(self, name):
        """The uncompressed size of record `name`."""
        return self._entry(name).size

    def get_record_offset(self, name):
        """Where the data of record `name` starts (after its local header and extra field)."""
        e = self._entry(name)
        head = self._pread(e.ofs, 30)
        if len(head) != 30:
            _fail("reading file ", name, "read")
        if struct.unpack_from("<I", head)[0] != _LOCAL_SIG:
            _fail("reading file ", name, "corrupt")
        nlen, xlen = struct.unpack_from("<HH", head, 26)
        return e.ofs + 30 + nlen + xlen

    def get_record(self, name):
        """The bytes of record `name` (miniz's extract_to_mem: header checks, no CRC check)."""
        e = self._entry(name)
        if e.name.endswith("/") or not e.comp:
            return b""
        if e.flags & (1 | 64 | 8192):
            _fail("reading file ", name, "encryption")
        start = self.get_record_offset(name)
        if start + e.comp > self.size:
            _fail("reading file ", name, "corrupt")
        data = self._pread(start, e.comp)
        if len(data) != e.comp:
            _fail("reading file ", name, "read")
        if e.method == 8:
            try:
                data = zlib.decompressobj(-15).decompress(data)
            except zlib.error:
                _fail("reading file ", name, "decompress")
            if len(data) != e.size:
                _fail("reading file ", name, "size")
        return data


def _zip64_fields(extra, usize, comp, ofs):
    """Sizes and offset from a zip64 extended-information field (miniz's central-directory pass)."""
    p = 0
    while True:
        if len(extra) - p < 4:
            _fail("reading zip archive", "", "corrupt")
        fid, fsize = struct.unpack_from("<HH", extra, p)
        if fsize + 4 > len(extra) - p:
            _fail("reading zip archive", "", "corrupt")
        if fid == 1:
            break
        p += 4 + fsize
        if p == len(extra):
            return usize, comp, ofs
    q, end = p + 4, len(extra)
    for which in ("usize", "comp", "ofs"):
        cur = {"usize": usize, "comp": comp, "ofs": ofs}[which]
        if cur == _U32 and end - q >= 8:
            val = struct.unpack_from("<Q", extra, q)[0]
            q += 8
            usize, comp, ofs = (val, comp, ofs) if which == "usize" else \
                (usize, val, ofs) if which == "comp" else (usize, comp, val)
    return usize, comp, ofs


def _stoull(text):
    digits = text.lstrip()
    n = 0
    while n < len(digits) and digits[n].isdigit():
        n += 1
    if n == 0:
        _throw(215, f"Couldn't parse the version {text} as Long Long.")
    version = int(digits[:n])
    if version < _MIN_VERSION:
        _throw(
            219, f"Attempted to read a PyTorch file with version {version}, but the minimum supported "
                 "version for "
            f"reading is {_MIN_VERSION}. Your PyTorch script module file is too old. Please regenerate it "
            "with "
            "latest version of PyTorch to mitigate this issue.")
    if version > _MAX_VERSION:
        _throw(
            230, f"Attempted to read a PyTorch file with version {version}, but the maximum supported "
                 "version for "
            f"reading is {_MAX_VERSION}. The version of your PyTorch installation may be too old, please "
            "upgrade PyTorch to latest version to mitigate this issue.")
    return version

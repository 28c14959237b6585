"""The shard file of a decision dataset: one safetensors file per group of deals, written
byte for byte the same from the same inputs, and read back only after it proves intact.

safetensors because MLX (`mx.load`), numpy and torch all read it without each other. The
library's own writer orders `__metadata__` keys at random from one process to the next, so
shards are written here, to the published layout (8-byte little-endian header length, JSON
header, data), with sorted keys and no timestamps: the same seed gives the same bytes.
Ragged lists (legal moves, observation texts) are flat arrays plus int64 offsets.
docs/dataset-format.md describes every tensor.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path

import numpy as np

from openlandlord.errors import UserError

FORMAT = "openlandlord-decisions"
FORMAT_VERSION = 1

_DTYPES = {np.dtype(np.int64): "I64", np.dtype(np.int32): "I32", np.dtype(np.int8): "I8",
           np.dtype(np.uint8): "U8", np.dtype(np.float32): "F32", np.dtype(np.float64): "F64"}
_NUMPY = {code: dtype for dtype, code in _DTYPES.items()}


class ShardError(UserError):
    """A shard file that is missing, truncated, corrupt or of another format version."""


def pack_texts(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as one flat uint8 array of their UTF-8 bytes and int64 offsets [len + 1]."""
    encoded = [t.encode("utf-8") for t in texts]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), np.uint8).copy(), offsets


def unpack_text(flat: np.ndarray, offsets: np.ndarray, i: int) -> str:
    return flat[offsets[i]:offsets[i + 1]].tobytes().decode("utf-8")


def dumps(tensors: dict[str, np.ndarray], metadata: dict[str, str]) -> bytes:
    """A safetensors file as bytes: tensors sorted by item size then name, so every tensor
    starts aligned to its own item size, and metadata with sorted keys."""
    names = sorted(tensors, key=lambda n: (-tensors[n].dtype.itemsize, n))
    header: dict = {"__metadata__": dict(sorted(metadata.items()))}
    chunks, start = [], 0
    for name in names:
        array = np.ascontiguousarray(tensors[name])
        if array.dtype not in _DTYPES:
            raise TypeError(f"tensor {name!r} has unsupported dtype {array.dtype}")
        data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _DTYPES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [start, start + len(data)]}
        chunks.append(data)
        start += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def loads(blob: bytes, name: str) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Parse safetensors bytes; anything malformed is a ShardError naming the file."""
    def bad(why: str) -> ShardError:
        return ShardError(f"shard {name} is corrupt: {why}")

    if len(blob) < 8:
        raise bad(f"only {len(blob)} bytes")
    (size,) = struct.unpack("<Q", blob[:8])
    if size > len(blob) - 8:
        raise bad("its header runs past the end of the file (truncated?)")
    try:
        header = json.loads(blob[8:8 + size])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad(f"unreadable header ({exc})") from None
    if not isinstance(header, dict):
        raise bad("header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    data = memoryview(blob)[8 + size:]
    tensors, end = {}, 0
    for key, info in sorted(header.items(), key=lambda kv: kv[1].get("data_offsets", [0])[0]
                            if isinstance(kv[1], dict) else 0):
        try:
            dtype = _NUMPY[info["dtype"]].newbyteorder("<")
            shape = tuple(int(d) for d in info["shape"])
            lo, hi = (int(v) for v in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise bad(f"bad entry for tensor {key!r}") from None
        if lo != end or hi < lo or hi > len(data) or hi - lo != dtype.itemsize * int(np.prod(shape)):
            raise bad(f"tensor {key!r} does not fit the data section (truncated?)")
        tensors[key] = np.frombuffer(data[lo:hi], dtype).reshape(shape).astype(dtype.newbyteorder("="))
        end = hi
    if end != len(data):
        raise bad(f"{len(data) - end} stray bytes after the last tensor")
    return tensors, metadata


def write_atomic(path: Path, blob: bytes) -> None:
    """Write to a temporary name, flush it to disk, then rename: a reader (or a resumed run)
    sees either no file or the whole file, whenever the writer is killed."""
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    with tmp.open("wb") as f:
        f.write(blob)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def sha256(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def read_shard(path: Path, expect_sha256: str | None = None,
               expect_bytes: int | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """Read one shard and prove it intact: present, the size and checksum the manifest
    recorded (when given), its own payload checksum, and this format version. Returns the
    tensors and the decoded `shard` metadata."""
    name = path.name
    if not path.is_file():
        raise ShardError(f"shard {name} is missing from {path.parent}")
    blob = path.read_bytes()
    if expect_bytes is not None and len(blob) != expect_bytes:
        raise ShardError(f"shard {name} is truncated or altered: {len(blob)} bytes, the manifest "
                         f"says {expect_bytes}")
    if expect_sha256 is not None and sha256(blob) != expect_sha256:
        raise ShardError(f"shard {name} is corrupt: its SHA-256 does not match the manifest")
    tensors, metadata = loads(blob, name)
    if metadata.get("format") != FORMAT:
        raise ShardError(f"shard {name} is not an {FORMAT} file")
    version = metadata.get("format_version")
    if version != str(FORMAT_VERSION):
        raise ShardError(f"shard {name} has format version {version}, this openlandlord reads "
                         f"version {FORMAT_VERSION}: regenerate the dataset")
    size = struct.unpack("<Q", blob[:8])[0]
    if sha256(blob[8 + size:]) != metadata.get("payload_sha256"):
        raise ShardError(f"shard {name} is corrupt: its data does not match its own checksum")
    try:
        info = json.loads(metadata["shard"])
    except (KeyError, json.JSONDecodeError):
        raise ShardError(f"shard {name} has no readable shard metadata") from None
    return tensors, info


def shard_bytes(tensors: dict[str, np.ndarray], info: dict) -> bytes:
    """The complete shard file for these tensors and this `shard` metadata."""
    payload = dumps(tensors, {})
    size = struct.unpack("<Q", payload[:8])[0]
    metadata = {"format": FORMAT, "format_version": str(FORMAT_VERSION),
                "payload_sha256": sha256(payload[8 + size:]),
                "shard": json.dumps(info, sort_keys=True, separators=(",", ":"))}
    return dumps(tensors, metadata)

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
import struct
from pathlib import Path

import numpy as np

from openlandlord.errors import UserError

from .schema import DEAL_TENSORS, MOVE_TENSORS, RECORD_TENSORS, SHARD_KEYS

FORMAT = "openlandlord-decisions"
FORMAT_VERSION = 2  # 2: rec_factored (card-by-card Shengji builds)

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
    try:
        entries = sorted((int(info["data_offsets"][0]), key, info) for key, info in header.items())
    except (KeyError, IndexError, TypeError, ValueError):
        raise bad("a tensor entry without data offsets") from None
    tensors, end = {}, 0
    for _, key, info in entries:
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


def sha256(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def read_shard(path: Path, expect_sha256: str | None = None,
               expect_bytes: int | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """Read one shard and prove it intact: present, the size and checksum the manifest
    recorded (when given), this format version, its own content checksum and a consistent
    layout. Returns the tensors and the decoded `shard` metadata."""
    if not path.is_file():
        raise ShardError(f"shard {path.name} is missing from {path.parent}")
    return verify(path.read_bytes(), path.name, expect_sha256, expect_bytes)


def verify(blob: bytes, name: str, expect_sha256: str | None = None,
           expect_bytes: int | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """`read_shard` on the bytes of shard file `name`."""
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
    text = metadata.get("shard")
    if not isinstance(text, str) or _content_sha256(text, blob[8 + size:]) != metadata.get("content_sha256"):
        raise ShardError(f"shard {name} is corrupt: its content does not match its own checksum")
    info = json.loads(text)
    try:
        check_layout(tensors, info)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ShardError(f"shard {name} is inconsistent ({exc})") from None
    return tensors, info


def _content_sha256(shard_text: str, data: bytes) -> str:
    # Covers the shard metadata as well as the data, so that a shard proves itself intact
    # even where no manifest vouches for it yet (a run being resumed).
    return sha256(shard_text.encode("utf-8") + bytes(data))


def check_layout(t: dict[str, np.ndarray], info: dict) -> None:
    """Every offset table monotone and ending where its data ends, every per-deal, per-record
    and per-move tensor of the right length, every index in range; raises ValueError."""
    for key in SHARD_KEYS:
        if key not in info:
            raise ValueError(f"metadata lacks {key!r}")
    d = len(t["deal_id"])
    n = len(t["rec_deal_id"])

    def offsets(name, count, data_len):
        o = t[name]
        if len(o) != count + 1 or o[0] != 0 or o[-1] != data_len or np.any(np.diff(o) < 0):
            raise ValueError(f"offset table {name} does not match its data")

    offsets("deal_first_record", d, n)
    offsets("deal_result_offsets", d, len(t["deal_result_text"]))
    offsets("rec_obs_offsets", n, len(t["rec_obs_text"]))
    offsets("rec_hands_offsets", n, len(t["rec_hands_text"]))
    m = int(t["rec_legal_offsets"][-1]) if len(t["rec_legal_offsets"]) else -1
    offsets("rec_legal_offsets", n, m)
    offsets("move_offsets", m, len(t["move_text"]))
    for name in DEAL_TENSORS[1:]:
        if len(t[name]) != d:
            raise ValueError(f"{name} has {len(t[name])} rows for {d} deals")
    if t["deal_payoffs"].shape != (d, info["num_seats"]):
        raise ValueError(f"deal_payoffs has shape {t['deal_payoffs'].shape}")
    for name in RECORD_TENSORS[1:]:
        if len(t[name]) != n:
            raise ValueError(f"{name} has {len(t[name])} rows for {n} decisions")
    for name in MOVE_TENSORS:
        if len(t[name]) != m:
            raise ValueError(f"{name} has {len(t[name])} rows for {m} moves")
    legal_count = np.diff(t["rec_legal_offsets"])
    for name in ("rec_teacher_choice", "rec_played"):
        if np.any(t[name] < 0) or np.any(t[name] >= legal_count):
            raise ValueError(f"{name} points outside the legal list")
    if np.any(legal_count < 2):
        raise ValueError("a decision with fewer than two legal moves")
    for name, names in (("deal_split", "splits"), ("rec_split", "splits"), ("rec_chooser", "choosers")):
        if np.any(t[name] < 0) or np.any(t[name] >= len(info[names])):
            raise ValueError(f"{name} holds an unknown index")
    if np.any(t["rec_factored"] < -1):
        raise ValueError("rec_factored holds a negative prefix length")
    if np.any(t["rec_role"] < -1) or np.any(t["rec_role"] >= len(info["roles"])):
        raise ValueError("rec_role holds an unknown index")
    owner = np.repeat(t["deal_id"], np.diff(t["deal_first_record"]))
    if not np.array_equal(owner, t["rec_deal_id"]):
        raise ValueError("decisions are not grouped under their deals")


def shard_bytes(tensors: dict[str, np.ndarray], info: dict) -> bytes:
    """The complete shard file for these tensors and this `shard` metadata."""
    payload = dumps(tensors, {})
    size = struct.unpack("<Q", payload[:8])[0]
    text = json.dumps(info, sort_keys=True, separators=(",", ":"))
    metadata = {"format": FORMAT, "format_version": str(FORMAT_VERSION),
                "content_sha256": _content_sha256(text, payload[8 + size:]), "shard": text}
    return dumps(tensors, metadata)

"""The student's forward pass without MLX: the same weights.safetensors, evaluated by a
small C forward pass (`_native.pyx`, csrc/student_forward.h) one position at a time.

    student = NativeStudent("data/models/doudizhu")
    out = student.forward(features.featurize(obs, legal))     # one position
    outs = student.forward_batch(samples)                     # many, one call, GIL released

Each returns what the MLX model gives for the position on its own (`LandlordFormerLite`
on a batch of one, no padding): {"logits" [A], "value", "belief_logits" [R, K],
"belief_expect" [R, H]} (no belief keys without a belief head), float32, within 1e-5
(tests/test_native_forward.py). A position is never padded or chunked: any number of
legal actions is scored in one pass, and its numbers do not depend on the batch it came in.

The checkpoint goes through `read_meta` (its config checked, the weights' SHA-256 checked
against config.json) and its weights are checked against the architecture's parameter
names and shapes before anything is packed. `available()` says whether the extension was
built (`python setup.py build_ext --inplace`); MLX stays the training engine and the
fallback (`student:DIR,backend=mlx`).
"""
from __future__ import annotations

import math
import os

import numpy as np

from ..errors import UserError
from .checkpoint import WEIGHTS, check_weights, read_meta
from .student import ModelConfig, compositions

try:
    from . import _native
except ImportError:          # the extension is not built here
    _native = None

VECTOR = 16  # floats per vector in the C code: packed widths are rounded up to this


def available() -> bool:
    return _native is not None


def _round(n: int) -> int:
    return -(-n // VECTOR) * VECTOR


def _linear(weight: np.ndarray, bias: np.ndarray | None = None) -> tuple:
    """An [out, in] weight (and bias) as the C code takes it: [in, outp], zero-padded."""
    out, fan_in = weight.shape
    packed = np.zeros((fan_in, _round(out)), np.float32)
    packed[:, :out] = weight.T
    padded_bias = None
    if bias is not None:
        padded_bias = np.zeros(_round(out), np.float32)
        padded_bias[:out] = bias
    return packed, padded_bias, fan_in, out


def _side_by_side(linears: list) -> tuple:
    """Packed linears over the same input as one, their outputs side by side."""
    w = np.concatenate([lin[0] for lin in linears], axis=1)
    b = np.concatenate([lin[1] for lin in linears])
    return w, b, linears[0][2], w.shape[1]


def _rows(matrix: np.ndarray) -> np.ndarray:
    """[n, d] -> [n, dp], zero-padded columns."""
    out = np.zeros((matrix.shape[0], _round(matrix.shape[1])), np.float32)
    out[:, :matrix.shape[1]] = matrix
    return out


def _expected_shapes(config: ModelConfig) -> dict:
    """{name: shape} of the architecture's parameters, from the MLX model itself (the one
    place the architecture is written)."""
    from mlx.utils import tree_flatten

    from .student import LandlordFormerLite

    return {k: v.shape for k, v in tree_flatten(LandlordFormerLite(config).parameters())}


def _load(path: str) -> dict:
    from safetensors.numpy import load_file

    try:
        return {k: np.asarray(v, np.float32) for k, v in load_file(path).items()}
    except Exception:  # noqa: BLE001 - bf16/fp16 files numpy cannot hold, or a damaged file
        import mlx.core as mx
        try:
            return {k: np.array(v.astype(mx.float32)) for k, v in mx.load(path).items()}
        except (RuntimeError, ValueError, OSError) as e:
            raise UserError(f"cannot read {path}: {e}") from None


def pack(config: ModelConfig, weights: dict) -> tuple[dict, dict]:
    """(sizes, packed arrays) for `_native.Model` from MLX parameter arrays."""
    d = config.d_model
    packed = {}
    for name in weights:
        if name.endswith(".weight") and weights[name].ndim == 2 and name != "role_embedding.weight":
            stem = name[:-len(".weight")]
            packed[stem] = _linear(weights[name], weights.get(f"{stem}.bias"))
        elif weights[name].ndim == 1 and ("ln_" in name or name.startswith("encoder_norm")):
            packed[name] = _rows(weights[name][None])[0]
    packed["role_embedding"] = _rows(weights["role_embedding.weight"])
    # MLX scales q.k by float32(1 / sqrt(head_dim)). Where that is a power of two (head size
    # 16 of the shipped students: 0.25) scaling the query projection instead gives the same
    # bits (x * 2^k is exact) and saves a pass over every attention score.
    scale = float(np.float32(1.0 / math.sqrt(d // config.heads)))
    score_scale = scale
    if math.frexp(scale)[0] == 0.5:
        for name in [n for n in packed if n.endswith("attn.q_proj")]:
            w, b, fan_in, fan_out = packed[name]
            packed[name] = (w * np.float32(scale), b * np.float32(scale), fan_in, fan_out)
        score_scale = 1.0
    # Projections that read the same rows, side by side: one product instead of three (two).
    for stem in [n[:-len(".q_proj")] for n in packed if n.endswith("attn.q_proj")]:
        parts = [packed[f"{stem}.{p}_proj"] for p in "qkv"]
        packed[f"{stem}.qkv"] = _side_by_side(parts)
        packed[f"{stem}.kv"] = _side_by_side(parts[1:])
    for adapter in ("state_adapter", "action_adapter"):
        if f"{adapter}.down" in weights:
            for role in range(config.num_roles):
                packed[f"{adapter}.down.{role}"] = _linear(weights[f"{adapter}.down"][role].T)
                packed[f"{adapter}.up.{role}"] = _linear(weights[f"{adapter}.up"][role].T)
    if config.belief_mode != "off":
        packed["belief.slot_embedding"] = _rows(weights["belief.slot_embedding"])
        packed["compositions"] = compositions(config.belief_holders, config.belief_max_count).astype(np.float32)
    sizes = {"d": d, "dp": _round(d), "heads": config.heads, "score_scale": score_scale, "layers": config.layers,
             "roles": config.num_roles, "rank": config.adapter_rank, "slots": config.belief_slots,
             "holders": config.belief_holders,
             "comps": len(compositions(config.belief_holders, config.belief_max_count)),
             "max_count": config.belief_max_count, "belief_mode": config.belief_mode,
             "use_adapters": int(config.use_adapters), "use_deep_sets": int(config.use_deep_sets),
             "ffp": _round(config.ff), "fs": config.state_feat_dim, "fa": config.action_feat_dim}
    return sizes, packed


class NativeStudent:
    """A checkpoint's student evaluated by the C forward pass (see the module docstring)."""

    def __init__(self, directory: str, vector_width: int = 0):
        """`vector_width`: the kernels' vector, 0 to pick by the CPU (16 floats with AVX-512,
        else 8); 8 or 16 forces one (the tests check both on any x86-64 CPU)."""
        if _native is None:
            raise UserError("the native forward pass is not built here; build it with "
                            "`python setup.py build_ext --inplace` (or use backend=mlx)")
        self.directory = directory
        self.meta = read_meta(directory)
        path = os.path.join(directory, WEIGHTS)
        self._build(ModelConfig.from_dict(self.meta["config"]), _load(path), path, vector_width)

    @classmethod
    def from_weights(cls, config: ModelConfig, weights: dict, vector_width: int = 0) -> "NativeStudent":
        """A student from weights in memory ({name: float32 array}), e.g. an MLX model's
        parameters while it trains (distill/dmc.py acts with them)."""
        if _native is None:
            raise UserError("the native forward pass is not built here; build it with "
                            "`python setup.py build_ext --inplace`")
        self = cls.__new__(cls)
        self.directory, self.meta = None, {"config": config.to_dict()}
        self._build(config, weights, "weights in memory", vector_width)
        return self

    def _build(self, config: ModelConfig, weights: dict, where: str, vector_width: int) -> None:
        self.config = config
        check_weights(_expected_shapes(config), {k: v.shape for k, v in weights.items()}, where)
        self.model = _native.Model(*pack(config, weights), vector_width)
        self.belief = config.belief_mode != "off"

    def forward(self, sample: dict) -> dict:
        """The outputs of one featurized position (`features.featurize` keys, unpadded)."""
        logits, value, belief_logits, belief_expect = self.model.forward(
            np.ascontiguousarray(sample["state_tokens"], np.float32),
            np.ascontiguousarray(sample["actions"], np.float32), int(sample["role"]),
            np.ascontiguousarray(sample["unseen"], np.int32),
            np.ascontiguousarray(sample["capacity"], np.int32),
            np.ascontiguousarray(sample["void"], np.float32))
        out = {"logits": logits, "value": np.float32(value)}
        if self.belief:
            out.update(belief_logits=belief_logits, belief_expect=belief_expect)
        return out

    def forward_batch(self, samples: list[dict]) -> list[dict]:
        """`forward` of every sample, in one call into C (the GIL released meanwhile)."""
        if not samples:
            return []
        inputs = self.ragged_inputs(samples)
        logits, value, belief_logits, belief_expect = self.model.forward_ragged(*inputs)
        action_offsets = inputs[3]
        outs = []
        for b in range(len(samples)):
            out = {"logits": logits[action_offsets[b]:action_offsets[b + 1]], "value": value[b]}
            if self.belief:
                out.update(belief_logits=belief_logits[b], belief_expect=belief_expect[b])
            outs.append(out)
        return outs

    @staticmethod
    def ragged_inputs(samples: list[dict]) -> tuple:
        """The arguments of `forward_ragged` for `samples` (what `forward_batch` passes)."""
        tokens = [np.asarray(s["state_tokens"], np.float32) for s in samples]
        actions = [np.asarray(s["actions"], np.float32) for s in samples]
        token_offsets = np.zeros(len(samples) + 1, np.int64)
        action_offsets = np.zeros(len(samples) + 1, np.int64)
        np.cumsum([len(t) for t in tokens], out=token_offsets[1:])
        np.cumsum([len(a) for a in actions], out=action_offsets[1:])
        # (np.stack keeps the memory order of its inputs, which may be transposed views.)
        return (np.ascontiguousarray(np.concatenate(tokens)), token_offsets,
                np.ascontiguousarray(np.concatenate(actions)), action_offsets,
                np.array([s["role"] for s in samples], np.int32),
                np.ascontiguousarray(np.stack([np.asarray(s["unseen"], np.int32) for s in samples])),
                np.ascontiguousarray(np.stack([np.asarray(s["capacity"], np.int32) for s in samples])),
                np.ascontiguousarray(np.stack([np.asarray(s["void"], np.float32) for s in samples])))

    def values(self, state_tokens: np.ndarray, token_offsets: np.ndarray, role: np.ndarray,
               unseen: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        """The value head alone of many positions (float32 [B]), laid out as `forward_ragged`
        takes them (position b: tokens token_offsets[b]:token_offsets[b+1]); the value reads
        only the state, so each position is given one zero action row. No void arrays (the
        featurizer's are zero where this is used: Dou Dizhu)."""
        b = len(role)
        if b == 0:
            return np.zeros(0, np.float32)
        actions = np.zeros((b, self.config.action_feat_dim), np.float32)
        void = np.zeros((b, self.config.belief_holders, self.config.belief_slots), np.float32)
        _, value, _, _ = self.model.forward_ragged(
            np.ascontiguousarray(state_tokens, np.float32), np.ascontiguousarray(token_offsets, np.int64),
            actions, np.arange(b + 1, dtype=np.int64), np.ascontiguousarray(role, np.int32),
            np.ascontiguousarray(unseen, np.int32), np.ascontiguousarray(capacity, np.int32), void)
        return value

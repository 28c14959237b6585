"""`onnx:PATH.onnx`: a student exported by `openlandlord export --out PATH.onnx` as a player,
predicting with onnxruntime; and reading such a file (session, metadata, chunked scoring).

The file is one graph with dynamic batch, state-length and legal-count axes whose inputs
`others_sum/others_count/others_max` carry the Deep Sets pool of the rest of the legal
list when only a chunk of it is scored (export/onnx.py lists the graph). Game, feature
version and sizes come from the checkpoint config.json stored in the file's metadata.

Scores are the student's logits over the legal moves, through the one featurizer. As with
`student:PATH`, every run of the graph has a shape from a fixed set (states padded to the
featurizer's maximum length, legal lists to a power-of-two bucket of at least 8, ROWS rows),
so a position's scores do not depend on what else `scores_batch` is given. A legal list
longer than the chunk size (option `chunk`, default CHUNK) is cut into chunks scored as rows:
one run for each chunk's own pool, one with the other chunks' pools merged in: the
unchunked result (up to float summation order). `onnx:path=P,chunk=N` sets both.
"""
from __future__ import annotations

import json
import os

import numpy as np

from ..errors import UserError
from . import ListedPlays, Spec, check_options, option

CONFIG_KEY = "config.json"
ROWS = 8
MIN_SLOTS = 8
CHUNK = 64
# An empty pool's maximum: the model's fp16-safe mask value (openlandlord.model.MASK_VALUE),
# written out so that playing never imports MLX.
EMPTY_MAX = -1e4

def session(path: str):
    """An onnxruntime session on one thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own untyped errors for unreadable files
        raise UserError(f"cannot load ONNX model {path}: {e}") from None


def read_meta(path: str, sess=None) -> dict:
    """The checkpoint config.json stored in an exported file."""
    props = (sess or session(path)).get_modelmeta().custom_metadata_map
    if CONFIG_KEY not in props:
        raise UserError(f"{path} has no {CONFIG_KEY} in its metadata: it was not made by openlandlord export")
    return json.loads(props[CONFIG_KEY])


def run_session(sess, inputs: dict) -> dict:
    """{output: array} of one run, fed only the inputs the graph has (the exporter drops
    those it never reads)."""
    names = [o.name for o in sess.get_outputs()]
    wanted = {i.name for i in sess.get_inputs()}
    return dict(zip(names, sess.run(names, {k: v for k, v in inputs.items() if k in wanted})))


def no_others(rows: int, d: int) -> dict:
    """`others_*` of rows that hold a whole legal list: an empty pool."""
    return {"others_sum": np.zeros((rows, d), np.float32), "others_count": np.zeros((rows, 1), np.float32),
            "others_max": np.full((rows, d), EMPTY_MAX, np.float32)}


def others_of(pool_sum: np.ndarray, pool_count: np.ndarray, pool_max: np.ndarray) -> dict:
    """`others_*` of each of n chunks of one legal list, given every chunk's own pool
    ([n, d], [n, 1], [n, d]): the pools of all the other chunks, merged."""
    n = len(pool_sum)
    rest = [np.arange(n) != i for i in range(n)]
    return {"others_sum": np.stack([pool_sum[r].sum(axis=0) for r in rest]),
            "others_count": np.stack([pool_count[r].sum(axis=0) for r in rest]),
            "others_max": np.stack([pool_max[r].max(axis=0, initial=EMPTY_MAX) for r in rest])}


def _bucket(count: int, chunk: int) -> int:
    slots = MIN_SLOTS
    while slots < count:
        slots *= 2
    return min(slots, chunk)


class OnnxAgent(ListedPlays):
    """Scores = the exported student's logits over the legal moves (module docstring)."""

    def __init__(self, path: str, chunk: int = CHUNK):
        from openlandlord import features

        if not os.path.isfile(path):
            raise UserError(f"ONNX model {path} does not exist")
        if chunk < 1:
            raise UserError(f"chunk must be at least 1, got {chunk}")
        self.session = session(path)
        self.meta = read_meta(path, self.session)
        config = self.meta.get("config", {})
        self.game = self.meta.get("game")
        self.tokens = features.check_model(self.game, self.meta.get("feature_version"), config,
                                           str(path), "retrain and export again")
        self.d, self.chunk = int(config["d_model"]), chunk
        self.path = path
        self.name = f"onnx:{path}"

    def scores(self, obs, legal) -> np.ndarray:
        return self.scores_batch([(obs, legal)])[0]

    def scores_batch(self, items) -> list[np.ndarray]:
        """Logits over each (obs, legal) pair's legal moves, as `scores` would give them."""
        from openlandlord import features

        samples = features.featurize_all(items, self.game, self.tokens, str(self.path))
        # A unit is (position, first action, end): a whole legal list or one chunk of one.
        units = [(i, start, min(start + self.chunk, n)) for i, s in enumerate(samples)
                 for n in (s["actions"].shape[0],) for start in range(0, n, self.chunk)]
        first = self._run(samples, units, {})
        chunked: dict[int, list[int]] = {}
        for u, (i, start, end) in enumerate(units):
            if start > 0 or end < samples[i]["actions"].shape[0]:
                chunked.setdefault(i, []).append(u)
        logits = {u: out["logits"] for u, out in first.items()}
        if chunked:
            given = {}
            for members in chunked.values():
                merged = others_of(*(np.stack([first[u][k] for u in members])
                                     for k in ("pool_sum", "pool_count", "pool_max")))
                given.update({u: {k: v[row] for k, v in merged.items()} for row, u in enumerate(members)})
            second = self._run(samples, [units[u] for u in given], given, ids=list(given))
            logits.update({u: out["logits"] for u, out in second.items()})
        out: list[list] = [[] for _ in samples]
        for u, (i, start, end) in enumerate(units):
            out[i].append(logits[u][:end - start])
        return [np.concatenate(parts).astype(np.float64) for parts in out]

    def _run(self, samples: list[dict], units: list[tuple], others: dict, ids: list | None = None) -> dict:
        """{unit id: {output: row}} of every unit, run ROWS at a time per legal bucket, each
        with its `others[id]` pool (none: an empty one)."""
        from openlandlord import features

        ids = list(range(len(units))) if ids is None else ids
        groups: dict[int, list[int]] = {}
        for k, (i, start, end) in enumerate(units):
            groups.setdefault(_bucket(end - start, self.chunk), []).append(k)
        results = {}
        for slots, members in groups.items():
            for at in range(0, len(members), ROWS):
                rows = members[at:at + ROWS]
                padded = rows + [rows[0]] * (ROWS - len(rows))
                parts = [{**samples[units[k][0]], "actions": samples[units[k][0]]["actions"][units[k][1]:units[k][2]]}
                         for k in padded]
                batch = features.collate(parts, slots)
                pad = self.tokens - batch["state_tokens"].shape[1]
                if pad:
                    batch["state_tokens"] = np.pad(batch["state_tokens"], ((0, 0), (0, pad), (0, 0)))
                    batch["state_mask"] = np.pad(batch["state_mask"], ((0, 0), (0, pad)))
                pools = no_others(ROWS, self.d)
                for row, k in enumerate(padded):
                    for key, value in others.get(ids[k], {}).items():
                        pools[key][row] = value
                out = run_session(self.session, {**batch, **pools})
                for row, k in enumerate(rows):
                    results[ids[k]] = {name: value[row] for name, value in out.items()}
        return results


def make_onnx(spec: Spec, seed: int | None = None) -> OnnxAgent:
    check_options(spec, {"path", "chunk"})
    path = spec.arg or spec.options.get("path")
    if not path:
        raise UserError(f"agent spec {spec.text!r} needs a model: onnx:PATH.onnx")
    return OnnxAgent(path, option(spec, "chunk", CHUNK))

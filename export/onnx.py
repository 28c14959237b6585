"""A student checkpoint -> ONNX, through the torch mirror (`openlandlord export --out
FILE.onnx`), and reading such a file back with onnxruntime.

The file is one graph with the batch, the state length and the legal count as dynamic axes:

    inputs   state_tokens [B, T, Fs], state_mask [B, T], role int32 [B], unseen int32 [B, R],
             capacity int32 [B, H], void [B, H, R], actions [B, A, Fa], action_mask [B, A],
             others_sum [B, d], others_count [B, 1], others_max [B, d]
    outputs  logits [B, A], value [B], pool_sum [B, d], pool_count [B, 1], pool_max [B, d],
             belief_expect [B, R, H] (with a belief head)

`others_*` are the Deep Sets statistics of the rest of the legal list when `actions` is
only a chunk of it (`NO_OTHERS` when it is all of it): the logits are scored with them
merged into the chunk's own, which come back as `pool_*`. So a legal list of any length is
scored in chunks with the unchunked result (openlandlord.agents.onnx_agent does). The
exporter drops inputs the graph never reads (without a belief head: unseen, capacity,
void; without Deep Sets: others_*): feed only `session.get_inputs()` (`run_session`).
Reading the file back (session, metadata, chunks) is the library's, in
openlandlord/agents/onnx_agent.py.

The checkpoint's config.json is stored whole in the file's metadata_props under "config.json"
(with "architecture", "game", "feature_version", "num_parameters", "git_sha" and
"exporter_git_sha" beside it), so the file says what it is without its checkpoint.
"""
from __future__ import annotations

import json
import os
import warnings

import numpy as np
import torch

from openlandlord import artefacts
from openlandlord.agents.onnx_agent import CONFIG_KEY, no_others, others_of, read_meta, run_session, session
from openlandlord.model.chunked import STATE_INPUTS
from openlandlord.errors import UserError
from openlandlord.provenance import git_sha

from .torch_mirror import load_torch_student

OPSET = 17
# Which axes of each input and output are dynamic.
DYNAMIC_AXES = {
    "state_tokens": {0: "batch", 1: "tokens"}, "state_mask": {0: "batch", 1: "tokens"},
    "role": {0: "batch"}, "unseen": {0: "batch"}, "capacity": {0: "batch"}, "void": {0: "batch"},
    "actions": {0: "batch", 1: "legal"}, "action_mask": {0: "batch", 1: "legal"},
    "others_sum": {0: "batch"}, "others_count": {0: "batch"}, "others_max": {0: "batch"},
    "logits": {0: "batch", 1: "legal"}, "value": {0: "batch"}, "pool_sum": {0: "batch"},
    "pool_count": {0: "batch"}, "pool_max": {0: "batch"}, "belief_expect": {0: "batch"}}


class _Scoring(torch.nn.Module):
    """The student over one chunk of a legal list, the rest of it given by its pool."""

    def __init__(self, student):
        super().__init__()
        self.student = student

    def forward(self, state_tokens, state_mask, role, unseen, capacity, void, actions, action_mask,
                others_sum, others_count, others_max):
        s = self.student
        memory, memory_mask, belief, value = s.encode_state(state_tokens, state_mask, role, unseen, capacity, void)
        embeddings = s.embed_actions(memory, memory_mask, actions, role)
        own = s.pool(embeddings, action_mask)
        merged = (own[0] + others_sum, own[1] + others_count, torch.maximum(own[2], others_max))
        logits = s.score(embeddings, merged, role, action_mask)
        return (logits, value) + own + ((belief["belief_expect"],) if belief else ())


def signature(config) -> tuple:
    """(module class, [(input, example shape, dtype)], [outputs]) of the exported graph."""
    from .coreml import function_signatures

    _, main_inputs, main_outputs = function_signatures(config, 2, 3)["main"]
    d = config.d_model
    inputs = main_inputs + [("others_sum", (1, d), np.float32), ("others_count", (1, 1), np.float32),
                            ("others_max", (1, d), np.float32)]
    outputs = main_outputs[:2] + ["pool_sum", "pool_count", "pool_max"] + main_outputs[2:]
    return _Scoring, inputs, outputs


def to_onnx(mirror, graph: tuple, path: str, dynamic_axes: dict | None = None) -> None:
    """Trace `graph` (module class, inputs, outputs) over the torch mirror into `path`."""
    from .coreml import example_inputs

    wrapper, spec, outputs = graph
    # The TorchScript-based exporter: the default one since torch 2.9 needs onnxscript.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(wrapper(mirror).eval(), example_inputs(spec, mirror.config), path,
                          input_names=[n for n, _, _ in spec], output_names=list(outputs),
                          dynamic_axes=dynamic_axes, opset_version=OPSET, dynamo=False)


def export_functions(checkpoint: str, signatures: dict, directory: str) -> dict:
    """Each fixed-shape function of `signatures` (export.coreml.function_signatures) as
    `directory`/NAME.onnx: the Core ML package's functions, run by onnxruntime."""
    mirror = load_torch_student(checkpoint)
    paths = {name: os.path.join(directory, f"{name}.onnx") for name in signatures}
    for name, graph in signatures.items():
        to_onnx(mirror, graph, paths[name])
    return paths


def export(checkpoint: str, out_path: str, force: bool = False) -> str:
    """Write the checkpoint as one dynamic-axes ONNX graph with its config.json in the
    metadata (see the module docstring); the file appears whole or not at all, while it is
    made no other writer may touch it, and an existing one is replaced only with `force`."""
    with artefacts.exclusive(out_path, "--out"):
        return _export(checkpoint, out_path, force)


def _export(checkpoint: str, out_path: str, force: bool) -> str:
    import onnx

    if not out_path.endswith(".onnx"):
        raise UserError(f"--out {out_path} must end in .onnx")
    if os.path.isdir(out_path):
        raise UserError(f"--out {out_path} is a directory, not an .onnx file")
    parent = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(parent):
        raise UserError(f"--out {out_path}: {parent} is not a directory")
    artefacts.refuse_existing(out_path, force)
    mirror = load_torch_student(checkpoint)
    _, spec, outputs = graph = signature(mirror.config)
    tmp = str(artefacts.temporary_name(out_path)) + ".onnx"
    try:
        to_onnx(mirror, graph, tmp, {n: DYNAMIC_AXES[n] for n in [s[0] for s in spec] + outputs})
        model = onnx.load(tmp)
        meta = mirror.meta
        props = {CONFIG_KEY: json.dumps(meta, sort_keys=True), "architecture": meta["architecture"],
                 "game": mirror.config.game, "feature_version": str(mirror.config.feature_version),
                 "num_parameters": str(meta["num_parameters"]), "git_sha": str(meta.get("git_sha", "unknown")),
                 "exporter_git_sha": git_sha()}
        onnx.helper.set_model_props(model, props)
        model.doc_string = (f"LandlordFormer-Lite student for {mirror.config.game}: scores any number of "
                            "legal actions per call (dynamic axes), or chunks of them with the rest's pool")
        onnx.save(model, tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        artefacts.move_into_place(tmp, out_path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return out_path


def verify(path: str, checkpoint: str, seed: int = 0) -> dict:
    """Largest |logit difference| between onnxruntime and the torch mirror on random states:
    {"one_call": ..., "chunked": ...}; the second state's legal list is scored in three
    chunks through `others_*`."""
    from openlandlord.model.synthetic import random_batch

    mirror = load_torch_student(checkpoint)
    sess = session(path)
    d = mirror.config.d_model
    rng = np.random.default_rng(seed)
    result = {}
    for name, actions in (("one_call", 9), ("chunked", 131)):
        batch = random_batch(mirror.config, 1, mirror.config.max_state_tokens, actions, rng, padded=False)
        with torch.no_grad():
            want = mirror({k: torch.from_numpy(v) for k, v in batch.items()})["logits"][0].numpy()
        state = {k: batch[k] for k in STATE_INPUTS}
        if name == "one_call":
            got = run_session(sess, {**batch, **no_others(1, d)})["logits"][0]
        else:
            cuts = [(a, min(a + 64, actions)) for a in range(0, actions, 64)]
            chunk = lambda a, b: {**state, "actions": batch["actions"][:, a:b], "action_mask": batch["action_mask"][:, a:b]}
            pools = [run_session(sess, {**chunk(a, b), **no_others(1, d)}) for a, b in cuts]
            given = others_of(*(np.concatenate([p[k] for p in pools]) for k in ("pool_sum", "pool_count", "pool_max")))
            got = np.concatenate([
                run_session(sess, {**chunk(a, b), **{k: v[i:i + 1] for k, v in given.items()}})["logits"][0]
                for i, (a, b) in enumerate(cuts)])
        result[name] = float(np.abs(got - want).max())
    return result


def run(args) -> int:
    """`openlandlord export --checkpoint DIR --out FILE.onnx`."""
    path = export(args.checkpoint, args.out, force=getattr(args, "force", False))
    meta = read_meta(path)
    print(f"wrote {path}: {meta['game']} student, {meta['num_parameters']} parameters, fp32, "
          "dynamic batch, state length and legal count")
    check = verify(path, args.checkpoint)
    print(f"onnxruntime vs the torch mirror, max |logit difference|: {check['one_call']:.2e} in one call, "
          f"{check['chunked']:.2e} chunked (131 legal actions in 3 chunks)")
    return 0

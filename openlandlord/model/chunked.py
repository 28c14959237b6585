"""Scoring a whole legal list with a fixed-shape exported student (Core ML, or its torch
mirror), however many actions there are.

An exported package holds four functions over one state (batch 1):

    main        state inputs + actions [1, S, Fa], action_mask [1, S]
                -> logits [1, S], value [1], belief_expect [1, R, H]
    encode      state inputs -> memory [1, T', d], memory_mask [1, T'], value, belief_expect
    embed_pool  memory, memory_mask, actions, action_mask, role
                -> embeddings [1, S, d], pool_sum [1, d], pool_count [1, 1], pool_max [1, d]
    score       embeddings, pool_sum, pool_count, pool_max, role, action_mask -> logits [1, S]

(state inputs: state_tokens [1, T, Fs], state_mask [1, T], role [1], unseen [1, R],
capacity [1, H], void [1, H, R]; models without a belief head have no belief_expect.)
Up to S legal actions take one call of `main`; more take `encode` once, `embed_pool` per
chunk of S, the pooled Deep Sets statistics merged exactly, then `score` per chunk: the
same numbers as the unchunked model. Nothing is truncated: a state longer than T raises.
"""
import numpy as np

from ..errors import UserError

STATE_INPUTS = ("state_tokens", "state_mask", "role", "unseen", "capacity", "void")
FUNCTIONS = ("main", "encode", "embed_pool", "score")


def pad_to(array: np.ndarray, length: int, axis: int = 1) -> np.ndarray:
    widths = [(0, 0)] * array.ndim
    widths[axis] = (0, length - array.shape[axis])
    return np.pad(array, widths)


def fixed_state(sample: dict, tokens: int) -> dict:
    """The state inputs of one featurized sample padded to the exported length."""
    have = sample["state_tokens"].shape[1]
    if have > tokens:
        raise UserError(f"state has {have} tokens but the exported model takes at most {tokens}; "
                        f"export again with a larger max_state_tokens")
    state = {k: np.asarray(sample[k]) for k in STATE_INPUTS}
    state["state_tokens"] = pad_to(state["state_tokens"], tokens).astype(np.float32)
    state["state_mask"] = pad_to(state["state_mask"], tokens).astype(np.float32)
    state["role"] = state["role"].astype(np.int32)
    state["unseen"] = state["unseen"].astype(np.int32)
    state["capacity"] = state["capacity"].astype(np.int32)
    state["void"] = state["void"].astype(np.float32)
    return state


def score_in_chunks(call, sample: dict, slots: int, tokens: int) -> dict:
    """Score every legal action of one featurized sample (batch 1, arrays as the featurizer
    makes them). `call(function, inputs) -> outputs` runs one function of the export.
    Returns {"logits": [n], "value": float, "belief_expect": [R, H] if the model has it}."""
    state = fixed_state(sample, tokens)
    actions = np.asarray(sample["actions"], dtype=np.float32)
    action_mask = np.asarray(sample["action_mask"], dtype=np.float32)
    n = actions.shape[1]
    if n <= slots:
        out = call("main", {**state, "actions": pad_to(actions, slots),
                            "action_mask": pad_to(action_mask, slots)})
        return _result(out["logits"][0, :n], out)
    encoded = call("encode", state)
    memory = {"memory": encoded["memory"], "memory_mask": encoded["memory_mask"], "role": state["role"]}
    chunks = []
    total = count = maximum = None
    for start in range(0, n, slots):
        chunk_mask = pad_to(action_mask[:, start:start + slots], slots)
        out = call("embed_pool", {**memory, "actions": pad_to(actions[:, start:start + slots], slots),
                                  "action_mask": chunk_mask})
        chunks.append((out["embeddings"], chunk_mask, min(slots, n - start)))
        s, c, m = (np.asarray(out[k], dtype=np.float32) for k in ("pool_sum", "pool_count", "pool_max"))
        total, count, maximum = (s, c, m) if total is None else (total + s, count + c, np.maximum(maximum, m))
    logits = [call("score", {"embeddings": emb, "pool_sum": total, "pool_count": count,
                             "pool_max": maximum, "role": state["role"], "action_mask": mask})["logits"][0, :used]
              for emb, mask, used in chunks]
    return _result(np.concatenate(logits), encoded)


def _result(logits, out):
    result = {"logits": np.asarray(logits, dtype=np.float32), "value": float(np.asarray(out["value"]).reshape(-1)[0])}
    if "belief_expect" in out:
        result["belief_expect"] = np.asarray(out["belief_expect"], dtype=np.float32)[0]
    return result

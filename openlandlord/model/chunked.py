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
    # zeros + slice assignment: ~13x cheaper than np.pad at these sizes (a hot path).
    shape = list(array.shape)
    shape[axis] = length
    out = np.zeros(shape, array.dtype)
    index = [slice(None)] * array.ndim
    index[axis] = slice(0, array.shape[axis])
    out[tuple(index)] = array
    return out


def fixed_state(decision: dict, tokens: int) -> dict:
    """The state inputs of one decision, batch 1, padded to the exported length."""
    have = len(decision["state_tokens"])
    if have > tokens:
        raise UserError(f"state has {have} tokens but the exported model takes at most {tokens}; "
                        f"export again with a larger max_state_tokens")
    state_tokens = np.asarray(decision["state_tokens"], np.float32)[None]
    return {"state_tokens": pad_to(state_tokens, tokens),
            "state_mask": pad_to(np.ones((1, have), np.float32), tokens),
            "role": np.array([decision["role"]], np.int32),
            "unseen": np.asarray(decision["unseen"], np.int32)[None],
            "capacity": np.asarray(decision["capacity"], np.int32)[None],
            "void": np.asarray(decision["void"], np.float32)[None]}


def score_in_chunks(call, decision: dict, slots: int, tokens: int) -> dict:
    """Score every legal action of one decision, given as `features.featurize` returns it
    (unbatched, unpadded: state_tokens [T, Fs], actions [n, Fa], role, unseen [R],
    capacity [H], void [H, R]). `call(function, inputs) -> outputs` runs one function of
    the export. Returns {"logits": [n], "value": float, "belief_expect": [R, H] if the
    model has a belief head}."""
    state = fixed_state(decision, tokens)
    actions = np.asarray(decision["actions"], np.float32)[None]
    n = actions.shape[1]
    if n == 0:
        raise UserError("cannot score an empty legal move list")
    if n <= slots:
        out = call("main", {**state, "actions": pad_to(actions, slots),
                            "action_mask": pad_to(np.ones((1, n), np.float32), slots)})
        return _result(np.asarray(out["logits"])[0, :n], out)
    encoded = call("encode", state)
    memory = {"memory": encoded["memory"], "memory_mask": encoded["memory_mask"], "role": state["role"]}
    chunks = []
    total = count = maximum = None
    for start in range(0, n, slots):
        used = min(slots, n - start)
        mask = pad_to(np.ones((1, used), np.float32), slots)
        out = call("embed_pool", {**memory, "actions": pad_to(actions[:, start:start + used], slots),
                                  "action_mask": mask})
        chunks.append((out["embeddings"], mask, used))
        s, c, m = (np.asarray(out[k], np.float32) for k in ("pool_sum", "pool_count", "pool_max"))
        total, count, maximum = (s, c, m) if total is None else (total + s, count + c, np.maximum(maximum, m))
    logits = [np.asarray(call("score", {"embeddings": emb, "pool_sum": total, "pool_count": count,
                                        "pool_max": maximum, "role": state["role"],
                                        "action_mask": mask})["logits"])[0, :used]
              for emb, mask, used in chunks]
    return _result(np.concatenate(logits), encoded)


def _result(logits, out):
    result = {"logits": np.asarray(logits, np.float32), "value": float(np.asarray(out["value"]).reshape(-1)[0])}
    if "belief_expect" in out:
        result["belief_expect"] = np.asarray(out["belief_expect"], np.float32)[0]
    return result

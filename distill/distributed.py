"""Sums over the processes of a run under `mlx.launch` (any backend `mx.distributed`
supports). With one process none of this sends anything."""
from __future__ import annotations


def all_sum_scaled(grads, total, parts, share, group):
    """Sum share * (gradients, loss, loss parts) over the ranks in one all_sum: one message
    per step instead of one per parameter array (each costs a round trip on the ring)."""
    import mlx.core as mx
    from mlx.utils import tree_flatten, tree_unflatten

    flat = tree_flatten(grads)
    keys = sorted(parts)
    scalars = mx.stack([total] + [parts[k] for k in keys])
    summed = mx.distributed.all_sum(
        mx.concatenate([g.reshape(-1) for _, g in flat] + [scalars]) * share, group=group)
    out, offset = [], 0
    for name, g in flat:
        out.append((name, summed[offset:offset + g.size].reshape(g.shape)))
        offset += g.size
    return tree_unflatten(out), summed[offset], {k: summed[offset + 1 + i] for i, k in enumerate(keys)}


def barrier(group) -> None:
    """Wait until every process of `group` gets here."""
    import mlx.core as mx
    if group.size() > 1:
        mx.eval(mx.distributed.all_sum(mx.array(1.0), group=group))

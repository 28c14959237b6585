"""A trained student grown into a larger one that computes the same function.

`train --set init=DIR --set model.layers=L --set model.ff=F` (L, F at least DIR's) starts the
run from DIR's student grown by `grow`: every weight of the start is copied; an encoder layer
beyond the start's is appended after its layers with its attention's output projection and its
feed-forward's down projection at zero, so it adds nothing to the residual stream (each block
is pre-LN: x + attn(LN(x)), then + ff(LN(x))); a feed-forward widened to F hidden units keeps
the start's units and gives the new ones a zero down projection. So the grown model's outputs
are the start's (to float rounding) and training begins where the start left off, with room to
learn more; the new parameters that read their input (queries, keys, values, up projections)
keep the run's random initialization, so their gradients are not zero once the zeroed
projections move (as LoRA's zero-started up matrix).
"""
from __future__ import annotations

import mlx.core as mx
from mlx.utils import tree_flatten, tree_unflatten

from ..errors import UserError

# Model fields in which the grown model may be larger than its start; every other is the same.
GROWABLE = ("layers", "ff")

# Parameters of a new (appended) encoder layer that start at zero: its outputs into the stream.
_SILENT = (".attn.out_proj.weight", ".attn.out_proj.bias", ".ff.down.weight", ".ff.down.bias")


def growth(start, config, where: str) -> dict:
    """{field: [start's, config's]} of the model fields in which `config` is larger than
    `start` (ModelConfigs), {} when they are the same; UserError (prefixed by `where`) where
    they differ otherwise (any other field, or a smaller one)."""
    mine, theirs = config.to_dict(), start.to_dict()
    diff = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    if any(k not in GROWABLE or mine[k] < theirs[k] for k in diff):
        raise UserError(f"{where}: the model configs differ in {', '.join(diff)}; set them alike "
                        f"(--set model.NAME=...), or larger in {' and '.join(GROWABLE)} only to grow")
    return {k: [theirs[k], mine[k]] for k in diff}


def grow(start, model) -> None:
    """Write `start`'s weights into `model` (the same architecture, with at least as many
    encoder layers and at least as wide a feed-forward), so that `model` computes `start`'s
    function (module docstring). Raises UserError on any other difference."""
    growth(start.config, model.config, "cannot grow")
    old = dict(tree_flatten(start.parameters()))
    new = dict(tree_flatten(model.parameters()))
    used = set()
    out = {}
    for name, value in new.items():
        if name in old:
            w = old[name]
            used.add(name)
            if w.shape == value.shape:
                out[name] = w
            elif name.endswith(".ff.up.weight") or name.endswith(".ff.up.bias"):
                out[name] = _widen(value, w, axis=0, keep_rest=True, name=name)
            elif name.endswith(".ff.down.weight"):
                out[name] = _widen(value, w, axis=1, keep_rest=False, name=name)
            else:
                raise UserError(f"cannot grow parameter {name}: {w.shape} into {value.shape}")
        elif name.startswith("encoder_layers.") and name.endswith(_SILENT):
            out[name] = mx.zeros_like(value)
        elif name.startswith("encoder_layers."):
            out[name] = value
        else:
            raise UserError(f"cannot grow: the larger model's parameter {name} is not in the start")
    missing = sorted(set(old) - used)
    if missing:
        raise UserError(f"cannot grow: the start's parameters {', '.join(missing[:3])} have no place")
    model.update(tree_unflatten(list(out.items())))


def _widen(value, w, axis: int, keep_rest: bool, name: str):
    """`value`'s shape holding `w` in its first entries along `axis`; the rest `value`'s own
    (keep_rest) or zero."""
    if w.ndim != value.ndim or any(a > b for a, b in zip(w.shape, value.shape)) or \
            any(a != b for i, (a, b) in enumerate(zip(w.shape, value.shape)) if i != axis):
        raise UserError(f"cannot grow parameter {name}: {w.shape} into {value.shape}")
    base = value if keep_rest else mx.zeros_like(value)
    index = [slice(None)] * value.ndim
    index[axis] = slice(0, w.shape[axis])
    base[tuple(index)] = w
    return base

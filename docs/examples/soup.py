"""usage: python docs/examples/soup.py OUT STUDENT_DIR [STUDENT_DIR ...]: a "model soup", the
mean of the weights of students fine-tuned from the same start (the same model config), saved
as a student checkpoint in OUT (config.json records the parts and their weights' SHA-256).
docs/models.md, "A soup of the fine-tunes"."""
import sys

import mlx.core as mx
from mlx.utils import tree_flatten, tree_unflatten

from openlandlord.errors import UserError
from openlandlord.model import load_checkpoint, save_checkpoint
from openlandlord.model.checkpoint import file_sha256


def soup(out: str, parts: list[str]) -> None:
    models = [load_checkpoint(p) for p in parts]
    config = models[0][1]
    for part, (_, cfg, _) in zip(parts, models):
        if cfg.to_dict() != config.to_dict():
            raise UserError(f"{part}: its model config differs from {parts[0]}'s")
    flats = [dict(tree_flatten(m.parameters())) for m, _, _ in models]
    mean = {k: sum(f[k] for f in flats) / len(flats) for k in flats[0]}
    model = models[0][0]
    model.update(tree_unflatten(list(mean.items())))
    mx.eval(model.parameters())
    save_checkpoint(out, model, config, {"soup": [{"student": p, "weights_sha256": file_sha256(f"{p}/weights.safetensors")}
                                                  for p in parts]})


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    soup(sys.argv[1], sys.argv[2:])

"""`openlandlord soup`: a "model soup", the mean of the weights of students fine-tuned from one
start (Wortsman et al. 2022, "uniform soup"), saved as a student checkpoint.

Fine-tunes of one start stay in its basin, so the mean of their weights is itself a good
model, often better than any one of them (docs/models.md: five fine-tunes of the shipped
Shengji student, +1.06 points a deal over it on 2,000 deals, where the best single one makes
+0.68). Students trained from different starts (or from scratch) do not share a basin and
their mean is no model at all, so the parts must name the same `init` in their training
record; they must also share the model config (architecture, sizes, game, feature version).

The soup's config.json records every part (its folder, weights' SHA-256, git SHA, dataset,
training record) and the start they share, beside the usual provenance: the soup is
remade from its parts by the same command.
"""
from __future__ import annotations

from pathlib import Path

from openlandlord import artefacts
from openlandlord.errors import UserError


def _start(meta: dict) -> str | None:
    """The folder a student was fine-tuned from: `train`'s training record, or `dmc`'s init."""
    training = meta.get("training")
    return training.get("init") if isinstance(training, dict) else meta.get("init")


def _part_record(path: str, meta: dict) -> dict:
    training = meta.get("training") or {}
    return {"student": path, "weights_sha256": meta.get("weights_sha256"),
            "git_sha": meta.get("git_sha"), "dataset": meta.get("dataset"),
            "dataset_manifest_sha256": meta.get("dataset_manifest_sha256"),
            "epoch": meta.get("epoch"), "init_weights_sha256": meta.get("init_weights_sha256"),
            "training": training}


def check_parts(parts: list[str], start: tuple | None = None, base: Path | None = None
                ) -> tuple[list[dict], dict]:
    """Each part's config.json, checked to be soup-able together, and with `start` (FOLDER,
    WEIGHTS_SHA256) to be fine-tunes of that student (a recorded `init` folder is read
    relative to `base`, default the working folder); -> (their records, the start they share:
    its folder `init` and, where recorded, its `weights_sha256`)."""
    from openlandlord.model.checkpoint import read_meta
    if len(parts) < 2:
        raise UserError(f"a soup needs two or more students, got {len(parts)}")
    if len(set(Path(p).resolve() for p in parts)) != len(parts):
        raise UserError("a soup's students must be different folders (one is named twice)")
    metas = [read_meta(p) for p in parts]
    first = metas[0]
    records, starts, shas = [], set(), set()
    for path, meta in zip(parts, metas):
        if meta["config"] != first["config"]:
            differ = sorted(k for k in set(meta["config"]) | set(first["config"])
                            if meta["config"].get(k) != first["config"].get(k))
            raise UserError(f"student {path}: its model config differs from {parts[0]}'s "
                            f"({', '.join(differ)}): a soup averages students of one architecture")
        init = _start(meta)
        if not init:
            raise UserError(f"student {path} records no start (training init): a soup averages "
                            "fine-tunes of one start, trained with --set init=DIR")
        starts.add(str(init))
        shas.add(meta.get("init_weights_sha256"))
        records.append(_part_record(path, meta))
    # The start by content where the parts recorded it (train records its weights' SHA-256),
    # by folder where one did not.
    recorded = shas - {None}
    if len(recorded) > 1 or (None in shas and len(starts) > 1):
        raise UserError(f"the students were fine-tuned from different starts ({', '.join(sorted(starts))}"
                        f"{', whose weights differ' if len(recorded) > 1 else ''}): "
                        "a soup averages fine-tunes of one start")
    shared = {"init": sorted(starts)[0], "weights_sha256": recorded.pop() if recorded else None}
    if start is not None:
        folder, sha = start
        if shared["weights_sha256"] is not None:
            ours = shared["weights_sha256"] == sha
        else:
            ours = (Path(base or ".") / shared["init"]).resolve() == Path(folder).resolve()
        if not ours:
            raise UserError(f"the students were fine-tuned from {shared['init']}, not from {folder}")
    return records, shared


def val_metrics(model, config, data: str, training: dict) -> dict:
    """The val split's metrics of `model` on the dataset `data` (train's own measure, at the
    policy target temperature of `training`, a part's training record), with the dataset and
    its manifest's SHA-256: what a trained student records, for a student no run trained."""
    import mlx.core as mx

    from openlandlord.distill import dataset
    from openlandlord.distill.batches import load_split
    from openlandlord.distill.config import TrainConfig
    from openlandlord.distill.metrics import evaluate
    ds = dataset.open(data)
    if ds.game != config.game:
        raise UserError(f"--data {data} holds {ds.game} decisions, the students play {config.game}")
    cfg = TrainConfig(target_temperature=training.get("target_temperature"))
    samples = load_split(ds, "val", 0, 1, cfg.target_temperature)
    metrics = evaluate(model, samples, cfg, config, mx.distributed.init())   # none: val_decisions 0
    return {"metrics": metrics, "dataset": data, "dataset_manifest_sha256": ds.manifest_sha256}


def soup(parts: list[str], out: str, force: bool = False, data: str | None = None) -> dict:
    """Write the mean of the students `parts` to the checkpoint folder `out` (replaced only
    with `force`), with its val metrics on the dataset `data` where given; -> its
    config.json."""
    import mlx.core as mx
    from mlx.utils import tree_flatten, tree_unflatten

    from openlandlord.model.checkpoint import load_checkpoint, read_meta, save_checkpoint
    records, shared = check_parts(parts)
    out_path = Path(out)
    with artefacts.exclusive(out_path.resolve(), "--out"):
        artefacts.check_output(out, "--out", directory=True, force=force)
        models = [load_checkpoint(p) for p in parts]
        flats = [dict(tree_flatten(m.parameters())) for m, _, _ in models]
        mean = {k: sum(f[k] for f in flats) / len(flats) for k in flats[0]}
        model, config, _ = models[0]
        model.update(tree_unflatten(list(mean.items())))
        mx.eval(model.parameters())
        options = []
        for _, _, meta in models:
            options += [o for o in meta.get("game_options") or [] if o not in options]
        extra = {"soup": records, "soup_start": shared, "game_options": options}
        burials = {meta.get("burial") for _, _, meta in models} - {None}
        if burials:
            extra["burial"] = burials.pop()      # the parts share a start, so its form
        if data:
            training = records[0]["training"]
            extra.update(val_metrics(model, config, data, training if isinstance(training, dict) else {}))
        with artefacts.staged_folder(out_path, force=True) as tmp:
            save_checkpoint(str(tmp), model, config, extra)
        return read_meta(out)


def run(args) -> int:
    from openlandlord import blas
    blas.reexec_with_openblas("soup")      # the val metrics' forward passes (--data)
    meta = soup(args.students, args.out, force=args.force, data=args.data)
    print(f"soup of {len(meta['soup'])} students (fine-tuned from {meta['soup_start']['init']}) -> {args.out}")
    m = meta.get("metrics")
    if m and not m["val_decisions"]:
        print(f"val: {args.data} has no val decisions to measure the soup on")
    elif m:
        print(f"val ({m['val_decisions']:,} decisions of {args.data}): top-1 {m['val_top1']:.3f}, "
              f"regret {m['val_regret']:.4f}, KL {m['val_kl']:.4f}, value MSE {m['val_value_mse']:.4f}")
    return 0

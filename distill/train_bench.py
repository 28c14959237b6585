"""`openlandlord bench train`: training samples/s of the student, per configuration.

Each configuration (BLAS: MLX's bundled one or a preloaded OpenBLAS; mx.compile on or off;
batch size) runs in its own child process, since a BLAS preload only takes effect at
process start. Every child trains the default student on the same small generated
dataset of the `--game` (default Dou Dizhu; random teacher, featurized once by the parent) and reports optimizer
steps' samples/s after warm-up steps that absorb compilation. The figures go to stdout
as a table and, with --json, to a file with the git SHA.

    python -m openlandlord.distill.train_bench --worker '{"samples": PICKLE, "batch_size": 256,
        "compile": false, "group_by_length": 16, "seconds": 3}'
runs one measurement in this process and prints its JSON (PICKLE: `featurize_once`).
"""
from __future__ import annotations

import json
import os
import pickle
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

from openlandlord import artefacts, blas as _blas
from openlandlord.errors import UserError

from .batches import collate, epoch_batches, load_split
from .config import TrainConfig, model_config

DEFAULT_BATCH_SIZES = (64, 256)
WARMUP_STEPS = 3
BENCH_DEALS = 60
# With compile on, legal lists are padded to a multiple of this and states to the
# featurizer's maximum, so a handful of shapes are compiled once each.
COMPILE_BUCKET = 32


def featurize_once(data: str, path: str) -> None:
    """Featurize the bench dataset's train split once, for every child to load."""
    from openlandlord.distill import dataset
    with open(path, "wb") as f:
        pickle.dump(load_split(dataset.open(data), "train"), f, protocol=pickle.HIGHEST_PROTOCOL)


def measure(samples_path: str, batch_size: int, compile_step: bool, group_by_length: int,
            seconds: float, seed: int = 0, game: str = "doudizhu") -> dict:
    """samples/s of optimizer steps on the featurized decisions in `samples_path`, in this
    process."""
    import mlx.core as mx

    from .trainer import Trainer

    cfg = TrainConfig(batch_size=batch_size, compile=compile_step, seed=seed, warmup_steps=10,
                      group_by_length=group_by_length, action_bucket=COMPILE_BUCKET if compile_step else 1)
    mcfg = model_config(cfg, game)
    with open(samples_path, "rb") as f:
        samples = pickle.load(f)
    counts = np.array([s["actions"].shape[0] for s in samples])
    trainer = Trainer(cfg, mcfg, 10_000, mx.distributed.init())
    tokens = getattr(mcfg, "max_state_tokens", None) if compile_step else None
    batches = [collate([samples[i] for i in chunk], cfg.action_bucket, tokens)
               for chunk in epoch_batches(counts, cfg, 1) if len(chunk) == batch_size]
    if not batches:
        raise UserError(f"the bench dataset has fewer than {batch_size} training decisions")
    shapes = {}
    for batch in batches:
        shapes.setdefault((batch["state_tokens"].shape[1], batch["actions"].shape[1]), batch)
    # Warm-up: every batch shape once when compiled (each compiles), else a few steps.
    for batch in list(shapes.values()) if compile_step else batches[:WARMUP_STEPS]:
        trainer.train_step(batch, 1.0)
    steps = rows = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or steps < 2:
        batch = batches[steps % len(batches)]
        trainer.train_step(batch, 1.0)
        steps += 1
        rows += len(batch["role"])
    elapsed = time.perf_counter() - started
    return {"batch_size": batch_size, "compile": compile_step, "group_by_length": group_by_length,
            "blas": "openblas" if _blas.loaded() else "bundled", "steps": steps, "seconds": elapsed,
            "samples_per_s": rows / elapsed, "distinct_shapes": len(shapes),
            "mean_padded_actions": float(np.mean([b["actions"].shape[1] for b in batches])),
            "mean_legal_actions": float(counts.mean())}


def _child(spec: dict, blas: str, timeout: float) -> dict:
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if blas == "openblas":
        env["LD_PRELOAD"] = _blas.OPENBLAS
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run([sys.executable, "-m", "openlandlord.distill.train_bench", "--worker", json.dumps(spec)],
                          capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if proc.returncode != 0:
        raise RuntimeError(f"bench child failed ({blas}, {spec}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_bench(args) -> int:
    from openlandlord.games import game_options
    from openlandlord.provenance import git_sha

    game = getattr(args, "game", "doudizhu")
    game_options(game, args)         # a flag of another game is refused here
    seconds = args.seconds if args.seconds is not None else 3.0
    if seconds <= 0:
        raise UserError(f"--seconds must be positive, got {seconds}")
    sizes = DEFAULT_BATCH_SIZES
    if getattr(args, "batch_sizes", None):
        try:
            sizes = tuple(int(s) for s in args.batch_sizes.split(","))
        except ValueError:
            raise UserError(f"--batch-sizes {args.batch_sizes!r}: expected integers like 64,256") from None
        if any(s < 1 for s in sizes):
            raise UserError("--batch-sizes must be positive")
    blases = ["bundled"] + (["openblas"] if _blas.wanted() else [])
    results = []
    with tempfile.TemporaryDirectory(prefix="openlandlord-bench-train-") as tmp:
        data = os.path.join(tmp, "data")
        _generate(data, game)
        samples = os.path.join(tmp, "samples.pickle")
        featurize_once(data, samples)
        # The full grid with length grouping on (the default), and plain random batches
        # with the faster BLAS, to show what grouping buys.
        grid = [(blas, c, 16) for blas in blases for c in (False, True)] + [(blases[-1], False, 0)]
        for blas, compile_step, grouping in grid:
            for size in sizes:
                spec = {"samples": samples, "batch_size": size, "compile": compile_step,
                        "group_by_length": grouping, "seconds": seconds, "game": game}
                row = _child(spec, blas, timeout=seconds * 20 + 300)
                results.append(row)
                print(f"  {blas:9s} compile={str(compile_step):5s} grouped={str(bool(grouping)):5s} "
                      f"batch={size:4d}: {row['samples_per_s']:8.1f} samples/s", file=sys.stderr)
    _print_table(results)
    if args.json:
        doc = {"benchmark": "train", "git_sha": git_sha(), "platform": platform.platform(),
               "python": platform.python_version(), "mlx": _mlx_version(), "cpu_count": os.cpu_count(),
               "threads": {"OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
                           "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")},
               "game": game, "dataset": f"{BENCH_DEALS} random-teacher {game} deals", "seconds_per_measurement": seconds,
               "results": results}
        artefacts.write_json(args.json, doc)
    return 0


def _generate(out: str, game: str) -> None:
    from .generate import generate
    generate(out, game, "random", BENCH_DEALS, workers=1, progress=False)


def _mlx_version() -> str:
    import mlx.core as mx
    return mx.__version__


def _print_table(results: list[dict]) -> None:
    base = {r["batch_size"]: r["samples_per_s"] for r in results
            if r["blas"] == "bundled" and not r["compile"] and r["group_by_length"]}
    print(f"{'blas':10s} {'compile':8s} {'grouped':8s} {'batch':>6s} {'samples/s':>10s} {'vs bundled':>10s}")
    for r in results:
        ratio = r["samples_per_s"] / base[r["batch_size"]] if r["batch_size"] in base else float("nan")
        print(f"{r['blas']:10s} {str(r['compile']):8s} {str(bool(r['group_by_length'])):8s} "
              f"{r['batch_size']:6d} {r['samples_per_s']:10.1f} {ratio:9.2f}x")


def _worker(spec: dict) -> None:
    row = measure(spec["samples"], spec["batch_size"], spec["compile"], spec["group_by_length"],
                  spec["seconds"], game=spec.get("game", "doudizhu"))
    print(json.dumps(row))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        _worker(json.loads(sys.argv[2]))
    else:
        sys.exit("usage: python -m openlandlord.distill.train_bench --worker JSON")

"""`openlandlord bench train`: training samples/s of the student, per configuration.

Each configuration (BLAS: MLX's bundled one or a preloaded OpenBLAS; mx.compile on or off;
batch size) runs in its own child process, since a BLAS preload only takes effect at
process start. Every child trains the default student on the same small generated
Dou Dizhu dataset (random teacher, featurized once before timing) and reports optimizer
steps' samples/s after warm-up steps that absorb compilation. The figures go to stdout
as a table and, with --json, to a file with the git SHA.

    python -m distill.train_bench --worker '{"data": DIR, "batch_size": 256, "compile": false}'
runs one measurement in this process and prints its JSON.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time

from openlandlord.errors import UserError

from .train import OPENBLAS, REEXEC_GUARD, TrainConfig, collate, epoch_order, load_split, \
    model_config, openblas_loaded

DEFAULT_BATCH_SIZES = (64, 256)
WARMUP_STEPS = 3
# The timed steps cycle over this many distinct batches (each shape compiled once).
MAX_BATCHES = 6
BENCH_DEALS = 60
# With compile on, legal lists are padded to a multiple of this and states to the
# featurizer's maximum, so a handful of shapes are compiled once each.
COMPILE_BUCKET = 32


def measure(data: str, batch_size: int, compile_step: bool, seconds: float, seed: int = 0) -> dict:
    """samples/s of optimizer steps on `data`'s train split, in this process."""
    import mlx.core as mx

    from distill import dataset
    from .train import Trainer

    cfg = TrainConfig(batch_size=batch_size, compile=compile_step, seed=seed,
                      action_bucket=COMPILE_BUCKET if compile_step else 1, warmup_steps=10)
    ds = dataset.open(data)
    mcfg = model_config(cfg, ds.game)
    samples = load_split(ds, "train")
    order = epoch_order(len(samples), seed, 1, True)
    trainer = Trainer(cfg, mcfg, 10_000, mx.distributed.init())
    tokens = getattr(mcfg, "max_state_tokens", None) if compile_step else None
    batches = [collate([samples[i] for i in order[s:s + batch_size]], cfg.action_bucket, tokens)
               for s in range(0, len(order) - batch_size + 1, batch_size)][:MAX_BATCHES]
    if not batches:
        raise UserError(f"bench dataset {data} has fewer than {batch_size} training decisions")
    # Warm-up: every batch shape once (compilation), then a few steps.
    for batch in batches[:max(WARMUP_STEPS, len(batches) if compile_step else 0)]:
        trainer.train_step(batch, 1.0)
    steps = rows = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds or steps < 2:
        batch = batches[steps % len(batches)]
        trainer.train_step(batch, 1.0)
        steps += 1
        rows += len(batch["role"])
    elapsed = time.perf_counter() - started
    return {"batch_size": batch_size, "compile": compile_step, "blas": "openblas" if openblas_loaded() else "bundled",
            "steps": steps, "seconds": elapsed, "samples_per_s": rows / elapsed,
            "distinct_shapes": len({(b["state_tokens"].shape[1], b["actions"].shape[1]) for b in batches})}


def _child(spec: dict, blas: str, timeout: float) -> dict:
    env = dict(os.environ, **{REEXEC_GUARD: "1"})
    env.pop("LD_PRELOAD", None)
    if blas == "openblas":
        env["LD_PRELOAD"] = OPENBLAS
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run([sys.executable, "-m", "distill.train_bench", "--worker", json.dumps(spec)],
                          capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if proc.returncode != 0:
        raise RuntimeError(f"bench child failed ({blas}, {spec}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_bench(args) -> int:
    from openlandlord.provenance import git_sha

    if getattr(args, "game", "doudizhu") != "doudizhu":
        raise UserError("bench train measures the Dou Dizhu student only")
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
    blases = ["bundled"] + (["openblas"] if sys.platform == "linux" and os.path.exists(OPENBLAS) else [])
    results = []
    with tempfile.TemporaryDirectory(prefix="openlandlord-bench-train-") as tmp:
        data = os.path.join(tmp, "data")
        _generate(data)
        for blas in blases:
            for compile_step in (False, True):
                for size in sizes:
                    spec = {"data": data, "batch_size": size, "compile": compile_step, "seconds": seconds}
                    row = _child(spec, blas, timeout=seconds * 20 + 300)
                    row["blas"] = blas
                    results.append(row)
                    print(f"  {blas:9s} compile={str(compile_step):5s} batch={size:4d}: "
                          f"{row['samples_per_s']:8.1f} samples/s", file=sys.stderr)
    _print_table(results)
    if args.json:
        doc = {"benchmark": "train", "git_sha": git_sha(), "platform": platform.platform(),
               "python": platform.python_version(), "mlx": _mlx_version(), "cpu_count": os.cpu_count(),
               "threads": {"OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
                           "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")},
               "dataset": f"{BENCH_DEALS} random-teacher Dou Dizhu deals", "seconds_per_measurement": seconds,
               "results": results}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
    return 0


def _generate(out: str) -> None:
    from openlandlord.cli import main
    with open(os.devnull, "w") as devnull:
        stderr, sys.stderr = sys.stderr, devnull
        try:
            status = main(["generate", "--game", "doudizhu", "--teacher", "random",
                           "--deals", str(BENCH_DEALS), "--out", out, "--workers", "1"])
        finally:
            sys.stderr = stderr
    if status:
        raise RuntimeError("could not generate the bench dataset")


def _mlx_version() -> str:
    import mlx.core as mx
    return mx.__version__


def _print_table(results: list[dict]) -> None:
    base = {r["batch_size"]: r["samples_per_s"] for r in results if r["blas"] == "bundled" and not r["compile"]}
    print(f"{'blas':10s} {'compile':8s} {'batch':>6s} {'samples/s':>10s} {'vs bundled':>10s}")
    for r in results:
        ratio = r["samples_per_s"] / base[r["batch_size"]] if r["batch_size"] in base else float("nan")
        print(f"{r['blas']:10s} {str(r['compile']):8s} {r['batch_size']:6d} {r['samples_per_s']:10.1f} {ratio:9.2f}x")


def _worker(spec: dict) -> None:
    row = measure(spec["data"], spec["batch_size"], spec["compile"], spec["seconds"])
    print(json.dumps(row))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        _worker(json.loads(sys.argv[2]))
    else:
        sys.exit("usage: python -m distill.train_bench --worker JSON")

"""`openlandlord quickstart`: the whole kit end to end on built-in defaults.

Generate a small teacher-scored dataset, train the student on it, export it to Core ML, bench
its latency, evaluate it mirrored against `rule` (and `rlcard` for Dou Dizhu), then print one
summary table and write a report. Each stage is the documented command run as its own
process, so stages talk only through their files, exactly as a user would chain them; every
command is printed first so it can be rerun by hand.

Interrupted, it resumes: rerun the same command and finished stages are skipped (generation
and training resume mid-way on their own); a skipped stage keeps the seconds it took when it
ran, read from the previous run's stages.json. REPORT.md links each evaluation's own report
and pictures (the `--report` folders).
"""
from __future__ import annotations

import importlib.util
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from . import artefacts, blas
from .errors import UserError
from .games import GAMES, game_options, spec as game_spec
from .provenance import git_sha

# Each game's defaults (teacher, deals, epochs, eval deals, opponents) live with the game,
# in its spec's `quickstart`, sized to finish in <= 15 minutes on a 2-core CPU.
DEFAULTS = {name: game_spec(name).quickstart for name in GAMES}


def _stage(name: str, args: list[str], done: Path | None, log: list[dict], env: dict) -> None:
    command = [sys.executable, "-m", "openlandlord.cli", *args]
    shown = "openlandlord " + " ".join(shlex.quote(a) for a in args)
    if done is not None and done.exists():
        print(f"\n== {name}: done already ({done})", flush=True)
        log.append({"stage": name, "command": shown, "seconds": 0.0, "skipped": True})
        return
    print(f"\n== {name}: {shown}", flush=True)
    start = time.perf_counter()
    status = subprocess.run(command, env=env).returncode
    seconds = time.perf_counter() - start
    log.append({"stage": name, "command": shown, "seconds": round(seconds, 1), "skipped": False})
    if status != 0:
        raise UserError(f"quickstart stage '{name}' failed (exit {status}); rerun to resume: {shown}")


def _read(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _earlier_timings(log: list[dict], previous: dict) -> None:
    """Give each stage skipped now the seconds it took in the run that did it (a stage skipped
    then too carries them forward), so a rerun's record still says what the work cost."""
    before = {s["stage"]: s for s in previous.get("stages", [])}
    for stage in log:
        earlier = before.get(stage["stage"])
        if stage["skipped"] and earlier and earlier.get("seconds"):
            stage["seconds"] = earlier["seconds"]


def _seconds(stage: dict) -> str:
    if not stage["skipped"]:
        return str(stage["seconds"])
    return f"{stage['seconds']} (an earlier run)" if stage.get("seconds") else "done already"


def _eval_reports(game: str, out: Path) -> list[str]:
    """REPORT.md's lines linking each evaluation's report and its pictures (paths relative
    to `out`, where REPORT.md is)."""
    lines = []
    for opponent in DEFAULTS[game]["opponents"]:
        folder = out / f"report-{opponent.replace(':', '-')}"
        if not (folder / "report.md").exists():
            continue
        lines += [f"### vs {opponent}", "", f"[the full report]({folder.name}/report.md)", ""]
        for picture in sorted(folder.glob("*.png")):
            lines += [f"![vs {opponent}: {picture.stem}]({folder.name}/{picture.name})", ""]
    return ["## Evaluations", "", *lines] if lines else []


def summary_rows(game: str, out: Path) -> list[tuple[str, str]]:
    """The summary table: what was made and how good and fast it is, from the stages' files."""
    rows = []
    manifest = _read(out / "data" / "manifest.json")
    if manifest:
        counts = manifest.get("counts", {})
        rows.append(("dataset", f"{counts.get('decisions', '?')} decisions from "
                                f"{counts.get('deals', '?')} deals, teacher {manifest.get('teacher', '?')}"))
    config = _read(out / "model" / "config.json")
    if config:
        rows.append(("student", f"{config.get('num_parameters', '?')} parameters"))
    metrics = out / "model" / "metrics.jsonl"
    if metrics.exists():
        epochs = [row for row in map(json.loads, filter(str.strip, metrics.read_text().splitlines()))
                  if row.get("kind") == "epoch" and "val_top1" in row]
        if epochs:
            last = epochs[-1]
            rows.append(("val vs teacher", f"top-1 agreement {last['val_top1']:.3f}, "
                                           f"KL {last['val_kl']:.3f} after {last['epoch']} epochs"))
    latency = _read(out / "latency.json")
    if latency.get("backends"):
        best = min(latency["backends"].items(), key=lambda kv: kv[1].get("p50_ms", 1e9))
        rows.append(("latency", f"{best[0]}: P50 {best[1]['p50_ms']:.3f} ms, "
                                f"P95 {best[1].get('p95_ms', float('nan')):.3f} ms"))
    for opponent in DEFAULTS[game]["opponents"]:
        result = _read(out / f"eval-{opponent.replace(':', '-')}.json")
        if result:
            lo, hi = result["mean_score_ci95"]
            rows.append((f"vs {opponent}", f"win rate {result['win_rate']:.3f}, mean score "
                                           f"{result['mean_score']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
                                           f"over {result['deals']} deals"))
    return rows


def run(args) -> int:
    game = args.game
    plan = dict(game_spec(game).quickstart_for(game_options(game, args)))
    # The game options given (`--bidding`, `--rules`) go to every stage that makes deals.
    given = {k: v for k, v in game_options(game, args).items() if getattr(args, k, None) is not None}
    flags = [x for name, value in given.items() for x in (game_spec(game).option(name).flag, value)]
    out = Path(getattr(args, "out", None) or f"runs/quickstart-{game}")
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a folder")
    with artefacts.exclusive(out, "--out"):
        _check_out(out, game, getattr(args, "force", False))
        out.mkdir(parents=True, exist_ok=True)
        return _run(args, game, plan, flags, out)


def _check_out(out: Path, game: str, force: bool) -> None:
    """--out is new, empty, or an earlier quickstart of this game (resumed); anything else,
    or with `force` anything at all, is replaced only with `force`."""
    if not out.exists() or not any(out.iterdir()):
        return
    previous = _read(out / "stages.json") if (out / "stages.json").is_file() else None
    if force:
        artefacts.remove(out)
    elif previous is None:
        raise UserError(f"--out {out} holds files that are not a quickstart's; choose another "
                        "--out, or pass --force to replace them")
    elif previous.get("game") != game:
        raise UserError(f"--out {out} holds a quickstart of {previous.get('game')}, not {game}; "
                        "choose another --out, or pass --force to replace it")


def _run(args, game: str, plan: dict, flags: list, out: Path) -> int:
    env = blas.preloaded(os.environ)
    if blas.note():
        print(blas.note(), flush=True)
    previous = _read(out / "stages.json")
    if not previous:    # marks the folder as this quickstart's from the start, for a rerun
        artefacts.write_json(out / "stages.json", {"game": game, "options": game_options(game, args),
                                                   "git_sha": git_sha(), "stages": []})
    log: list[dict] = []
    started = time.perf_counter()
    _stage("generate", ["generate", "--game", game, *flags, "--teacher", plan["teacher"], "--deals",
                        str(plan["deals"]), "--out", str(out / "data"), "--seed", "0"],
           out / "data" / "manifest.json", log, env)
    model = out / "model"
    # The final student's config.json is written last: until it is there, train is unfinished.
    resume = ["--resume"] if (model / "last").exists() and not (model / "config.json").exists() else []
    _stage("train", ["train", "--data", str(out / "data"), "--out", str(model),
                     "--epochs", str(plan["epochs"]), *resume], model / "config.json", log, env)
    _stage("export", ["export", "--checkpoint", str(out / "model"), "--out",
                      str(out / "student.mlpackage"), "--precision", "fp16"],
           out / "student.mlpackage", log, env)
    _stage("bench latency", ["bench", "latency", "--game", game, *flags, "--checkpoint", str(out / "model"),
                             "--json", str(out / "latency.json")], out / "latency.json", log, env)
    for opponent in plan["opponents"]:
        if opponent == "rlcard" and importlib.util.find_spec("rlcard") is None:
            print("\n== eval vs rlcard: skipped, rlcard is not installed "
                  "(pip install -e '.[baselines]' adds it)", flush=True)
            continue
        name = opponent.replace(":", "-")
        _stage(f"eval vs {opponent}", ["eval", "--game", game, *flags, "--agent", f"student:{out / 'model'}",
                                       "--opponent", opponent, "--deals", str(plan["eval_deals"]),
                                       "--json", str(out / f"eval-{name}.json"),
                                       "--report", str(out / f"report-{name}"),
                                       # not done (no JSON): what an interrupted try left is ours to replace
                                       "--force"],
               out / f"eval-{name}.json", log, env)
    _earlier_timings(log, previous)
    rows = summary_rows(game, out)
    width = max(len(k) for k, _ in rows) if rows else 0
    print(f"\nOpenLandlord quickstart, {game} ({time.perf_counter() - started:.0f} s; git {git_sha()})")
    for key, value in rows:
        print(f"  {key:<{width}}  {value}")
    report = ["# OpenLandlord quickstart: " + game, "", f"git {git_sha()}", "",
              "| | |", "|---|---|", *[f"| {k} | {v} |" for k, v in rows], "",
              "## Stages (each command can be rerun by hand)", "",
              "| stage | seconds | command |", "|---|---|---|",
              *[f"| {s['stage']} | {_seconds(s)} | `{s['command']}` |" for s in log], "",
              *_eval_reports(game, out)]
    artefacts.write_text(out / "REPORT.md", "\n".join(report) + "\n")
    artefacts.write_json(out / "stages.json", {"game": game, "options": game_options(game, args),
                                               "git_sha": git_sha(), "stages": log})
    print(f"report: {out / 'REPORT.md'}")
    return 0

"""`openlandlord ship`: make a shipped student end to end, by running the documented
`openlandlord` commands one after another (docs/models.md).

The recipe (the reference study's is one mix round of 500 deals):

1. `generate` DEALS deals of teacher play (the `pimc` teacher scores and chooses);
2. `train` a first student on them;
3. for each mix round: `generate` more deals in which the previous student chooses
   MIX_FRACTION of the moves (`--mix`) while the teacher still scores every recorded state,
   then `train` a new student on the union of all datasets so far (OUT/data holds them);
4. `eval` the last student on the dev deal set against `rule`, `rlcard` and the teacher
   (mirrored seats, paired bootstrap CIs, appended to the ledger);
   (a recipe with a fine-tuning round first fine-tunes the last student on teacher deals of
   every value of one game option: Dou Dizhu's bidding flows, where it also plays its own
   bids against the rule bot's on each flow's dev set, and Shengji `tractor`'s trump ranks;
   `--from DIR` starts there, from a shipped student, skipping steps 1-3);
   (`--soup DIR,...`: the mean of those fine-tunes of the last student ships instead, if it
   beats that student head to head on the dev deals; with `--from`, only this stage runs;
   `--soup-parts N`: the last training stage, the fine-tuning round's fine-tune or the DMC
   run, is made N times with seeds SEED..SEED+N-1 from the same start, and their mean ships
   if it beats that start head to head on the dev deals, else the start ships; a `--from`
   student that a soup did not beat stays as it is: no evals, nothing copied);
5. optionally `eval` it on a final (test) deal set: final numbers only, never for choices;
6. copy its config.json + weights.safetensors to SHIP with a results.json (figures, specs,
   seeds, commands, git SHA, dataset counts, timings).

This module is only a driver: every step is a subprocess running the CLI command it prints
(`$ openlandlord ...`), so a user can run any step by hand. Each step is resumable: a
finished step (its manifest, final weights or eval JSON exists) is skipped, an interrupted
`generate` is finished by the same command (it skips the shards it wrote) and an
interrupted `train` is continued with `--resume`.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from openlandlord import artefacts, provenance
from openlandlord.errors import UserError
from openlandlord.executor import PARENT_FD
from openlandlord.games import GAMES, all_options, game_options, spec as game_spec

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Recipe:
    """The sizes and specs of one shipping run."""
    teacher: str
    deals: int
    mix_deals: tuple     # deals of each mix round
    mix_fraction: float
    epochs: tuple        # epochs of the first student, then of each round's student
    dev: list            # eval arguments choosing the dev deals
    opponents: tuple
    train_set: tuple     # extra `--set KEY=VALUE` for every training
    final_set: tuple = ()  # and for the last (shipped) student's training only
    round_set: tuple = ()  # and for every mix round's student (not the first student)
    options: tuple = ()    # game options every generate and eval takes, as (name, value)
                           # pairs (a flag given to ship wins)
    models: str = ""       # the shipped folder's name under data/models (default: the game)
    # The fine-tuning round over one game option (Dou Dizhu's bidding flows, issue 16; Shengji
    # `tractor`'s trump ranks, issue 18; Shengji `classic`'s stronger teacher): after the mix
    # rounds, the teacher (`fine_teacher`, default `teacher`) plays
    # `fine_values` ((value of the option `fine_option`, deals), ...) into
    # OUT/data-NAME/VALUE (NAME = `fine_name`), and the last student is fine-tuned on them
    # (`train --set init=LAST`, `fine_epochs`, `fine_set`) into OUT/student-NAME, the shipped
    # one; results.json records the round under NAME. `bid_dev` / `bid_final` ((flow, eval
    # arguments), ...): it plays its own bids against its `,bid=rule` twin on those deals (the
    # final ones only with --final-deal-set); flow "" where the game has one (Shengji `classic`'s
    # declarations and burial).
    fine_option: str = "bidding"
    fine_name: str = "bids"
    fine_values: tuple = ()
    fine_epochs: int = 0
    fine_set: tuple = ()
    fine_teacher: str = ""
    # The fine-tuning round's single-kind decisions (Shengji `classic`'s burials and leads):
    # `fine_phases` ((KIND, deals, teacher), ...): `deals` more deals in which the teacher (a
    # `pimc:...,burial=listed` search) takes only the decisions of KIND (`generate --phases
    # KIND`: `bury`, one listed burial a deal; `lead`, the leads over the game's candidates)
    # and the student the round starts from plays the rest (`--rest student:START`), into
    # OUT/data-NAME/KIND, seeds SEED + ROUNDS + 1 + len(fine_values) on, one a kind; the
    # fine-tune learns them with the round's deals (docs/models.md).
    fine_phases: tuple = ()
    bid_dev: tuple = ()
    bid_final: tuple = ()
    # Iterated distillation (issue 19, lever 3): after the fine-tuning round (or the last mix
    # round), at most `generations` generations. Generation K: the teacher
    # (`generation_teacher`, default `teacher`; "{student}" in it becomes the previous
    # student's path, so that student can guide the search) plays `generation_values`
    # ((value of `fine_option`, deals), ...) into OUT/data-gen-K/VALUE while the previous
    # student chooses `mix_fraction` of the moves; the previous student is fine-tuned
    # (`generation_epochs`, `generation_set`) on the union of the fine-tuning round's data
    # and every generation's so far (OUT/union-gen-K, links) into OUT/student-gen-K; then it
    # plays the previous student on `generation_dev` (mirrored, CIs). The loop stops at the
    # first generation whose CI (card points in Shengji, else score) does not lie above zero,
    # and ships the one before it.
    generations: int = 0
    generation_values: tuple = ()
    generation_epochs: int = 0
    generation_set: tuple = ()
    generation_teacher: str = ""
    generation_dev: tuple = ()
    # Deep Monte-Carlo self-play (issue 19, lever 4; distill/dmc.py): after everything above,
    # `openlandlord dmc` fine-tunes the student on `dmc_decisions` self-play decisions
    # (0: off unless `ship --dmc N`) into OUT/student-dmc, the shipped one, which then plays
    # the student it started from on `dmc_dev` (mirrored, CIs; results.json "dmc").
    dmc_decisions: int = 0
    dmc_dev: tuple = ()
    dmc_cycle: str = ""    # `dmc --cycle`: a game option whose value changes by chunk
    # `dmc --anchor-flows` (e.g. "bidding=call-rob,points"): the DMC stage keeps the bids of the
    # student it starts from (`--anchor` that student) in those flows while it learns the play.
    dmc_anchor: str = ""
    # `dmc --learn-phases` (e.g. "bury,declare", Shengji `classic`): the DMC stage learns only
    # those bidding phases from their returns and keeps the play of the student it starts from
    # (`--anchor` that student); `dmc_flags`: more `dmc` flags (its rate, exploration, chunk).
    dmc_learn_phases: str = ""
    dmc_flags: tuple = ()
    # The soup stage (`ship --soup DIR,DIR,...`, issue 19): the mean of the weights of those
    # students, each fine-tuned from the student the recipe would ship (`openlandlord soup`),
    # played against that student on `soup_dev` (default `dev`; mirrored, CIs); the soup
    # ships only if it beats it (CI above zero). With --from, the soup stage alone runs.
    soup_dev: tuple = ()
    # Opponents also played in DouZero's protocol (`eval --protocol douzero`: WP, ADP) on the
    # dev (and final) deal set.
    protocol_opponents: tuple = ()


# Each game's shipping recipe and its --quick version (the same steps at tiny sizes, for
# tests: the teacher searches 4 worlds, the student is a small one, its figures mean
# nothing) live with the game, in its spec (`ship_recipe`, `ship_quick_recipe`), with the
# measurements that chose them; `recipe_for` is the one place that reads them.
def recipe_for(game: str, options: dict | None = None, quick: bool = False) -> Recipe:
    """The recipe of a game and its options: the spec's `ship_recipe_for(options, quick)` (a
    Shengji `classic` student has its own)."""
    if game not in GAMES:
        raise UserError(f"openlandlord ship: no shipping recipe for {game!r} (known: {', '.join(GAMES)})")
    return Recipe(**game_spec(game).ship_recipe_for(dict(options or {}), quick))


def _cli(*args) -> list[str]:
    return ["openlandlord", *map(_arg, args)]


def _arg(value) -> str:
    """A command argument; paths inside the repository relative to it (the commands run there)."""
    if isinstance(value, Path):
        try:
            return str(value.relative_to(ROOT))
        except ValueError:
            return str(value)
    return str(value)


class Driver:
    """Runs the steps, printing each as its CLI command and timing the ones it runs."""

    def __init__(self, out: Path, dry_run: bool = False):
        self.out = out
        self.dry_run = dry_run
        self.commands: list[str] = []
        self.timings_path = out / "timings.json"
        self.timings = json.loads(self.timings_path.read_text()) if self.timings_path.exists() else {}

    def step(self, name: str, command: list[str], done: bool) -> None:
        text = shlex.join(command)
        self.commands.append(text)
        if done:
            print(f"[ship] {name}: done already, skipped: {text}", flush=True)
            return
        print(f"$ {text}", flush=True)
        if self.dry_run:
            return
        start = time.monotonic()
        # The CLI module, not the `openlandlord` script: the same interpreter, installed or not.
        # The step stops itself when this process is gone, even by SIGKILL: it holds the read
        # end of a pipe whose write end only this process has (executor.stop_with_parent).
        read_end, write_end = os.pipe()
        try:
            proc = subprocess.Popen([sys.executable, "-m", "openlandlord.cli", *command[1:]],
                                    cwd=ROOT, pass_fds=(read_end,),
                                    env={**os.environ, PARENT_FD: str(read_end)})
        except BaseException:
            os.close(write_end)
            raise
        finally:
            os.close(read_end)
        try:
            returncode = proc.wait()
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM): the step gets SIGTERM and time to stop its own
            # workers (SIGKILL would leave them running), then SIGKILL.
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            raise
        finally:
            os.close(write_end)
        if returncode != 0:
            raise UserError(f"ship step {name} failed (exit status {returncode}): {text}")
        # Seconds of every invocation that ran the step (a resumed step adds up).
        self.timings[name] = round(self.timings.get(name, 0.0) + time.monotonic() - start, 1)
        artefacts.write_json(self.timings_path, self.timings, indent=1, sort_keys=True)


def _train_command(data: Path, out: Path, epochs: int, seed: int, extra: tuple) -> tuple[list, bool]:
    """The `train` command of one student and whether it is done; an interrupted run resumes."""
    cmd = _cli("train", "--data", data, "--out", out, "--epochs", epochs, "--set", f"seed={seed}")
    for item in extra:
        cmd += ["--set", item]
    # The final student's config.json is written last: until it is there, the run is unfinished.
    if (out / "last").exists() and not (out / "config.json").exists():
        cmd.append("--resume")
    return cmd, (out / "config.json").exists()


def _fine_tune_set(recipe: Recipe, start: Path) -> tuple:
    """The `--set` items of a fine-tune from `start`: the recipe's, its own `init=` (where
    the first student starts, as Shengji `classic`'s from the `tractor` one) replaced."""
    return tuple(item for item in recipe.train_set if not item.startswith("init=")) \
        + (f"init={_arg(start)}",)


def _figures(path: Path) -> dict:
    """The headline figures of one `eval --json` file."""
    r = json.loads(path.read_text())
    # Shengji results also carry the card points (the Shengji target is in points).
    keys = ("mean_score", "mean_score_ci95", "mean_points", "mean_points_ci95")
    return {"opponent": r["opponent"], "deal_set": r["deal_set"]["name"], "deals": r["deals"],
            "games": r["games"], "win_rate": r["win_rate"], "win_rate_ci95": r["win_rate_ci95"],
            **{k: r[k] for k in keys + ("bidding", "protocol", "wp", "wp_ci95", "adp", "adp_ci95",
                                        "engines") if k in r},
            "per_role": {role: {k: v[k] for k in ("games", "win_rate") + keys if k in v}
                         for role, v in r["per_role"].items()},
            "git_sha": r["git_sha"]}


def _dataset_counts(path: Path) -> dict:
    manifest = json.loads((path / "manifest.json").read_text())
    return {"counts": manifest["counts"], "splits": manifest["splits"]["decisions"]}


def _round_dirs(out_dir: Path, rounds: int) -> list[tuple[Path, Path]]:
    """(mix dataset, student run) of each round: data/mix + student for round 1 (the
    reference recipe), data/mix-R + student-round-R for round R >= 2."""
    return [(out_dir / "data" / ("mix" if r == 1 else f"mix-{r}"),
             out_dir / ("student" if r == 1 else f"student-round-{r}")) for r in range(1, rounds + 1)]


def ship(game: str, out: str, ship_dir: str | None, quick: bool = False, seed: int = 1,
         workers: int = 2, ledger: str | None = None, final_args: list | None = None,
         mix_deals: tuple | None = None, epochs: tuple | None = None,
         dry_run: bool = False, options: dict | None = None, force: bool = False,
         from_dir: str | None = None, generations: int | None = None,
         dmc: int | None = None, soup: list | None = None,
         soup_parts: int | None = None) -> dict | None:
    """Run (or finish) every step; returns the results written next to the shipped student.
    OUT and SHIP are locked for the run; a SHIP folder that holds something other than an
    earlier ship from this OUT (say, the committed student) is replaced only with `force`.
    `from_dir`: start the fine-tuning round from that student (no teacher or mix rounds).
    `generations`: the most generations of iterated distillation (default: the recipe's).
    `dmc`: decisions of the DMC stage (default: the recipe's; with `from_dir`, the DMC stage
    alone runs, from that student).
    `soup`: student folders, fine-tuned from the student to ship, whose mean ships instead if
    it beats that student (with `from_dir`, the soup stage alone runs).
    `soup_parts`: make the last training stage (the DMC stage where it runs, else the
    fine-tuning round's fine-tune) that many times, seeds `seed` on, from the same start; their
    mean ships if it beats that start, else the start ships."""
    args = (game, out, ship_dir, quick, seed, workers, ledger, final_args, mix_deals, epochs,
            dry_run, options, force, from_dir, generations, dmc, soup, soup_parts)
    if dry_run:
        return _ship(*args)
    with artefacts.exclusive(Path(out).resolve(), "--out"):
        return _ship(*args)


def _hold_ship_folder(ship_path: Path | None, out_dir: Path, force: bool):
    """The lock on SHIP, once SHIP is known to be right, and the check that replacing what it
    holds is this run's to do (see `ship`)."""
    if ship_path is None:
        return contextlib.nullcontext()
    lock = artefacts.exclusive(ship_path, "--ship")
    if ship_path.is_dir() and any(ship_path.iterdir()) and not force:
        try:
            made_by = json.loads((ship_path / "results.json").read_text()).get("work_dir")
        except (OSError, ValueError, AttributeError):
            made_by = None
        if made_by != _arg(out_dir):
            lock.release()
            raise UserError(f"--ship {_arg(ship_path)} holds a student this run did not ship; "
                            "pass --force to replace it, or choose another --ship")
    return lock


def _ship(game, out, ship_dir, quick, seed, workers, ledger, final_args, mix_deals, epochs,
          dry_run, options, force, from_dir, generations=None, dmc=None, soup=None,
          soup_parts=None) -> dict | None:
    recipe = recipe_for(game, options, quick)
    options = {**dict(recipe.options), **dict(options or {})}
    mix_deals = tuple(recipe.mix_deals if mix_deals is None else mix_deals)
    epochs = tuple(epochs or (recipe.epochs if mix_deals == recipe.mix_deals else ()))
    if len(epochs) != len(mix_deals) + 1 or min(epochs) < 1 or min(mix_deals, default=1) < 1:
        raise UserError(f"--epochs needs {len(mix_deals) + 1} positive counts (the first student, then "
                        f"one per mix round of --mix-deals), got {','.join(map(str, epochs)) or 'none'}")
    out_dir = Path(out).resolve()
    ship_path = Path(ship_dir).resolve() if ship_dir else None
    data, first = out_dir / "data", out_dir / "student-1"
    rounds = _round_dirs(out_dir, len(mix_deals))
    final = rounds[-1][1] if rounds else first
    if generations is not None and generations < 0:
        raise UserError(f"--generations needs 0 or more, got {generations}")
    if generations and not recipe.generation_values:
        raise UserError(f"--generations: the {game} recipe has no iterated-distillation loop")
    if dmc is not None and dmc < 0:
        raise UserError(f"--dmc needs 0 or more decisions, got {dmc}")
    soup = [Path(p).resolve() for p in soup or []]
    if soup and dmc:
        raise UserError("--soup and --dmc: choose one stage (a soup's parts are fine-tunes of the "
                        "student the recipe ships, which the DMC stage would replace)")
    if soup_parts is not None:
        if soup_parts < 2:
            raise UserError(f"--soup-parts needs 2 or more parts, got {soup_parts}")
        if soup:
            raise UserError("--soup and --soup-parts: choose one (parts made elsewhere, or made here)")
        stage_dmc = recipe.dmc_decisions if dmc is None else dmc
        if not stage_dmc and not recipe.fine_values:
            raise UserError(f"--soup-parts: the {game} recipe has no fine-tuning round or DMC stage "
                            "to make parts in")
        if not stage_dmc and (recipe.generations if generations is None else generations):
            raise UserError("--soup-parts with --generations: the parts of the fine-tuning round "
                            "would replace the student the generations start from; choose one")
    if from_dir is not None:
        if not recipe.fine_values and not dmc and not soup:
            raise UserError(f"--from: the {game} recipe has no fine-tuning round to start from a student")
        from_dir = Path(from_dir).resolve()
        if not (from_dir / "config.json").is_file():
            raise UserError(f"--from {from_dir}: no student there (no config.json)")
    # The shipped copy must not land where a step writes (nor in the union dataset).
    steps = [data, first, out_dir / "eval", out_dir / f"data-{recipe.fine_name}",
             out_dir / f"student-{recipe.fine_name}"] + \
        [student for _, student in rounds]
    steps += [out_dir / f"{kind}-gen-{k}" for kind in ("data", "union", "student")
              for k in range(1, max(recipe.generations, generations or 0) + 1)]
    steps += [out_dir / "student-dmc", out_dir / "student-soup", out_dir / "soup-start"]
    steps += [out_dir / f"student-{kind}-{k}" for kind in (recipe.fine_name, "dmc")
              for k in range(2, (soup_parts or 0) + 1)]
    if ship_path is not None and (ship_path == out_dir or any(ship_path == d or d in ship_path.parents
                                                              for d in steps)):
        raise UserError(f"--ship {ship_dir} must not be --out {out} or lie in one of its step directories")
    ledger = ledger or str(out_dir / "ledger.jsonl" if quick else ROOT / "data" / "runs" / "ledger.jsonl")
    if dry_run:
        return _steps(game, recipe, out_dir, ship_path, quick, seed, workers, ledger, final_args,
                      mix_deals, epochs, True, options, data, first, rounds, final, from_dir,
                      generations, dmc, soup, soup_parts)
    with _hold_ship_folder(ship_path, out_dir, force):
        out_dir.mkdir(parents=True, exist_ok=True)
        return _steps(game, recipe, out_dir, ship_path, quick, seed, workers, ledger, final_args,
                      mix_deals, epochs, False, options, data, first, rounds, final, from_dir,
                      generations, dmc, soup, soup_parts)


def _steps(game, recipe, out_dir, ship_path, quick, seed, workers, ledger, final_args, mix_deals,
           epochs, dry_run, options, data, first, rounds, final, from_dir=None,
           generations=None, dmc=None, soup=None, soup_parts=None) -> dict | None:
    """Every step of the recipe, then results.json and the shipped copy."""
    run = Driver(out_dir, dry_run)
    # Seeds: the teacher deals use --seed SEED, mix round R the seed SEED + R (other deals),
    # the fine-tuning round's value k the seed SEED + ROUNDS + 1 + k; every training uses seed
    # SEED (initialization and batch order); evals use seed 0.
    seeds = {"teacher_deals": seed, "mix_deals": [seed + r for r in range(1, len(rounds) + 1)],
             "train": seed, "eval": 0}
    if recipe.fine_values:
        seeds["fine_deals"] = [seed + len(rounds) + 1 + k for k in range(len(recipe.fine_values))]
        if recipe.fine_phases:
            first_phase = seed + len(rounds) + 1 + len(recipe.fine_values)
            seeds["fine_phases"] = [first_phase + k for k in range(len(recipe.fine_phases))]
    n_parts = soup_parts or 1
    if soup_parts:
        # Part k (1-based) of the stage that makes the soup's parts trains with seed SEED + k - 1.
        seeds["soup_parts"] = [seed + k for k in range(n_parts)]

    teacher_data = data / "teacher"
    # Game options (`--bidding`, `--rules`) given to ship go to every generate and eval.
    flags = [x for name, value in (options or {}).items() for x in (game_spec(game).option(name).flag, value)]
    round_info: list = []
    if from_dir is None:
        final, round_info = _rounds(run, game, recipe, flags, teacher_data, data, first, rounds,
                                    mix_deals, epochs, seed, workers)
    fine = None
    dmc = recipe.dmc_decisions if dmc is None else dmc
    dmc_only = from_dir is not None and (dmc > 0 or bool(soup))
    # The stage that makes the soup's parts (--soup-parts): its start and its students.
    part_start, parts = None, []
    if dmc_only:
        final = from_dir
    elif recipe.fine_values:
        part_start = from_dir or final
        parts, fine = _fine_round(run, game, recipe, flags, out_dir, part_start,
                                  seeds["fine_deals"], seed, workers, dry_run,
                                  n_parts if not dmc else 1, seeds.get("fine_phases", ()))
        final = parts[0]
    limit = recipe.generations if generations is None else generations
    loop = None
    if limit and recipe.generation_values and not dmc_only:
        first_gen = seed + len(rounds) + 1 + len(recipe.fine_values) + len(recipe.fine_phases)
        seeds["generation_deals"] = [first_gen + k for k in range(limit * len(recipe.generation_values))]
        final, loop = _generations(run, game, recipe, flags, out_dir, final, seeds["generation_deals"],
                                   seed, workers, ledger, limit, dry_run)
    dmc_record = None
    if dmc:
        seeds["dmc"] = seed
        part_start = final
        parts, dmc_record = _dmc_stage(run, game, recipe, flags, out_dir, final, dmc, seeds, workers,
                                       ledger, dry_run, n_parts)
        final = parts[0]
    soup_record = None
    if soup or soup_parts:
        start, soup = (final, soup) if soup else (part_start, parts)
        final, soup_record = _soup_stage(run, game, flags, out_dir, start, soup,
                                         recipe.soup_dev or recipe.dev, workers, ledger, dry_run,
                                         made_here=bool(soup_parts),
                                         dataset=out_dir / f"data-{recipe.fine_name}"
                                         if soup_parts and not dmc else None)
    # A soup that did not beat a --from student leaves that student as it is: nothing to
    # measure again or to copy (the copy would replace its own results.json with this run's).
    kept = (not dry_run and from_dir is not None and soup_record is not None
            and not soup_record["beats_start"])
    if kept:
        soup_record["shipped"] = "nothing: the start stays as it is"
    evals = {} if kept else _evals(run, game, recipe, flags, out_dir, final, final_args, seeds,
                                   workers, ledger, dry_run)
    if dry_run:
        return None

    # Earlier rounds' students evaluated the same way (by this command when they were the
    # final one): the dev figures that chose how many rounds to ship.
    earlier = {student.name: {p.stem: _figures(p) for p in sorted((out_dir / "eval" / student.name).glob("*.json"))}
               for _, student in rounds if student != final and (out_dir / "eval" / student.name).is_dir()}
    config = json.loads((final / "config.json").read_text())
    results = {
        "game": game, "options": dict(options or {}), "quick": quick, "git_sha": provenance.git_sha(),
        "student_git_sha": config.get("git_sha"), "num_parameters": config.get("num_parameters"),
        "teacher": recipe.teacher, "deals": recipe.deals, "first_epochs": epochs[0], "rounds": round_info,
        "seeds": seeds, "train_set": list(recipe.train_set), "final_set": list(recipe.final_set),
        "round_set": list(recipe.round_set),
        "datasets": {p.name: _dataset_counts(p) for p in [teacher_data] + [m for m, _ in rounds]
                     if (p / "manifest.json").exists()},
        "final_val_metrics": config.get("metrics"),
        "eval": evals, "earlier_rounds_eval": earlier, "commands": run.commands, "timings_s": run.timings,
        "work_dir": _arg(out_dir), "shipped": not kept and ship_path is not None,
    }
    if fine is not None:
        results[recipe.fine_name] = fine
    if loop is not None:
        results["generations"] = loop
    if dmc_record is not None:
        results["dmc"] = dmc_record
    if soup_record is not None:
        results["soup"] = soup_record
    artefacts.write_json(out_dir / "results.json", results, indent=1, sort_keys=True)
    if kept:
        print(f"[ship] the soup did not beat {_arg(from_dir)}: it stays as it is, nothing shipped "
              f"({_arg(out_dir / 'results.json')} records the run)", flush=True)
    elif ship_path is not None:
        ship_path.mkdir(parents=True, exist_ok=True)
        # Each file whole (weights first, config.json after: a pair loads only once both are
        # in, as its recorded weights_sha256 says), results.json last.
        for name in ("weights.safetensors", "config.json"):
            artefacts.write_bytes(ship_path / name, (final / name).read_bytes())
        artefacts.write_json(ship_path / "results.json", results, indent=1, sort_keys=True)
        print(f"[ship] shipped {_arg(final)} -> {_arg(ship_path)}", flush=True)
    return results


def _rounds(run, game, recipe, flags, teacher_data, data, first, rounds, mix_deals, epochs, seed,
            workers):
    """Steps 1-3: the teacher's deals, the first student, the mix rounds. Returns the last
    student and each round's record."""
    run.step("generate-teacher", _cli("generate", "--game", game, *flags, "--teacher", recipe.teacher,
                                      "--deals", recipe.deals, "--out", teacher_data,
                                      "--workers", workers, "--seed", seed),
             (teacher_data / "manifest.json").exists())
    last = len(rounds)
    run.step("train-first", *_train_command(teacher_data, first, epochs[0], seed,
                                            recipe.train_set + (recipe.final_set if last == 0 else ())))
    # Round R: the previous student chooses a fraction of the moves of new deals, then a new
    # student trains on everything under data/ (the teacher deals and every round so far).
    previous, round_info = first, []
    for r, ((mix_data, student), deals, round_epochs) in enumerate(zip(rounds, mix_deals, epochs[1:]), 1):
        mix_spec = f"student:{_arg(previous)}:{recipe.mix_fraction}"
        run.step(f"generate-mix-{r}", _cli("generate", "--game", game, *flags, "--teacher", recipe.teacher,
                                           "--deals", deals, "--mix", mix_spec, "--out", mix_data,
                                           "--workers", workers, "--seed", seed + r),
                 (mix_data / "manifest.json").exists())
        run.step(f"train-round-{r}", *_train_command(data, student, round_epochs, seed,
                                                     recipe.train_set + recipe.round_set
                                                     + (recipe.final_set if r == last else ())))
        round_info.append({"mix": mix_spec, "deals": deals, "epochs": round_epochs,
                           "dataset": _arg(mix_data), "student": _arg(student)})
        previous = student
    return previous, round_info


def _fine_round(run, game, recipe, flags, out_dir, start, value_seeds, seed, workers, dry_run,
                parts: int = 1, phase_seeds=()):
    """The fine-tuning round: the teacher's deals of every value of the recipe's
    `fine_option`, then `start` fine-tuned on them (`parts` times, seeds `seed` on: the first
    into OUT/student-NAME, part k into OUT/student-NAME-k). Returns the new students and the
    round's record (with the results.json of the student it started from, when that is a
    shipped one)."""
    name = recipe.fine_name
    fine_data = out_dir / f"data-{name}"
    teacher = recipe.fine_teacher or recipe.teacher
    _generate_values(run, game, recipe, flags, fine_data, recipe.fine_values, value_seeds,
                     teacher, workers, name)
    flag = game_spec(game).option(recipe.fine_option).flag
    for (kind, deals, phase_teacher), phase_seed in zip(recipe.fine_phases, phase_seeds):
        run.step(f"generate-{name}-{kind}",
                 _cli("generate", "--game", game, *flags,
                      *([] if flag in flags else [flag, recipe.fine_values[0][0]]),
                      "--teacher", phase_teacher, "--phases", kind,
                      "--rest", f"student:{_arg(start)}", "--deals", deals,
                      "--out", fine_data / kind, "--workers", workers, "--seed", phase_seed),
                 (fine_data / kind / "manifest.json").exists())
    student = out_dir / f"student-{name}"
    # The student it starts from, recorded in OUT before the fine-tune, so that a rerun after
    # the ship (which may replace the folder it started from) still names the right one.
    parent_path = out_dir / f"{name}-parent.json"
    if parent_path.exists():
        parent = json.loads(parent_path.read_text())
    else:
        parent = {}
        with contextlib.suppress(OSError, ValueError):
            config = json.loads((start / "config.json").read_text())
            parent = {"weights_sha256": config.get("weights_sha256"), "git_sha": config.get("git_sha")}
        with contextlib.suppress(OSError, ValueError):
            parent["results"] = json.loads((start / "results.json").read_text())
        if not dry_run:
            artefacts.write_json(parent_path, parent, indent=1, sort_keys=True)
    students = [student] + [out_dir / f"student-{name}-{k}" for k in range(2, parts + 1)]
    for k, part in enumerate(students):
        run.step(f"train-{name}" + (f"-{k + 1}" if k else ""),
                 *_train_command(fine_data, part, recipe.fine_epochs, seed + k,
                                 _fine_tune_set(recipe, start) + recipe.fine_set))
    record = {"from": _arg(start), "teacher": teacher, "option": recipe.fine_option,
              "values": [list(f) for f in recipe.fine_values],
              "epochs": recipe.fine_epochs, "set": list(recipe.fine_set), "student": _arg(student),
              "parent": parent,
              **({"parts": [_arg(p) for p in students]} if parts > 1 else {}),
              "datasets": {value: _dataset_counts(fine_data / value) for value, _ in recipe.fine_values
                           if (fine_data / value / "manifest.json").exists()}}
    if recipe.fine_phases:
        record["phases"] = [{"kind": kind, "deals": deals, "teacher": phase_teacher, "seed": phase_seed}
                            for (kind, deals, phase_teacher), phase_seed
                            in zip(recipe.fine_phases, phase_seeds)]
        for kind, _, _ in recipe.fine_phases:
            if (fine_data / kind / "manifest.json").exists():
                record["datasets"][kind] = _dataset_counts(fine_data / kind)
    return students, record


def _generate_values(run, game, recipe, flags, data_dir, values, seeds, teacher, workers, label,
                     mix: str | None = None) -> None:
    """The teacher's deals of each (value of the recipe's `fine_option`, deals) into
    data_dir/VALUE; the round's own option replaces that option among the game flags."""
    flag = game_spec(game).option(recipe.fine_option).flag
    kept = [x for pair in zip(flags[::2], flags[1::2]) if pair[0] != flag for x in pair]
    for (value, deals), value_seed in zip(values, seeds):
        path = data_dir / value
        run.step(f"generate-{label}-{value}",
                 _cli("generate", "--game", game, *kept, flag, value, "--teacher", teacher,
                      "--deals", deals, *(["--mix", mix] if mix else []), "--out", path,
                      "--workers", workers, "--seed", value_seed),
                 (path / "manifest.json").exists())


def _beats(figures: dict) -> bool:
    """Whether an eval's CI lies above zero: card points where the game has them (Shengji),
    else the score."""
    ci = figures.get("mean_points_ci95") or figures["mean_score_ci95"]
    return ci[0] > 0


def _generations(run, game, recipe, flags, out_dir, start, seeds, seed, workers, ledger,
                 limit, dry_run):
    """Iterated distillation (Recipe.generations): returns the student to ship and the
    loop's record (every generation, why it stopped, the plot)."""
    previous, done, record = start, [], {"max": limit, "start": _arg(start)}
    per = len(recipe.generation_values)
    for k in range(1, limit + 1):
        data = out_dir / f"data-gen-{k}"
        teacher = (recipe.generation_teacher or recipe.teacher).replace("{student}", _arg(previous))
        mix = f"student:{_arg(previous)}:{recipe.mix_fraction}"
        _generate_values(run, game, recipe, flags, data, recipe.generation_values,
                         seeds[(k - 1) * per:k * per], teacher, workers, f"gen-{k}", mix)
        # The union: the fine-tuning round's datasets and every generation's so far, linked.
        union = out_dir / f"union-gen-{k}"
        if not dry_run:
            union.mkdir(exist_ok=True)
            parts = [(f"{recipe.fine_name}-{v}", out_dir / f"data-{recipe.fine_name}" / v)
                     for v, _ in recipe.fine_values]
            parts += [(f"gen-{j}-{v}", out_dir / f"data-gen-{j}" / v)
                      for j in range(1, k + 1) for v, _ in recipe.generation_values]
            for link, target in parts:
                if (target / "manifest.json").exists() and not (union / link).exists():
                    (union / link).symlink_to(os.path.relpath(target, union))
        student = out_dir / f"student-gen-{k}"
        run.step(f"train-gen-{k}", *_train_command(union, student, recipe.generation_epochs, seed,
                                                   _fine_tune_set(recipe, previous)
                                                   + recipe.generation_set))
        figures = _head_to_head(run, f"eval-gen-{k}-previous", game, flags, student, previous,
                                recipe.generation_dev, out_dir / "eval" / student.name / "dev-previous.json",
                                workers, ledger, dry_run)
        if dry_run:
            previous = student
            continue
        entry = {"generation": k, "from": _arg(previous), "student": _arg(student),
                 "teacher": teacher, "mix": mix, "data": _arg(data),
                 "datasets": {v: _dataset_counts(data / v) for v, _ in recipe.generation_values},
                 "vs_previous": figures, "beats_previous": _beats(figures)}
        done.append(entry)
        if not entry["beats_previous"]:
            record["stopped"] = f"generation {k} did not beat generation {k - 1}"
            break
        previous = student
    else:
        record["stopped"] = f"the most generations ({limit})"
    record["generations"] = done
    record["shipped"] = _arg(previous)
    if done and not dry_run:
        record["plot"] = _arg(_plot_generations(out_dir / "generations.png", done))
    return previous, record


def _dmc_stage(run, game, recipe, flags, out_dir, start, decisions, seeds, workers, ledger,
               dry_run, parts: int = 1) -> tuple[list, dict]:
    """The DMC stage (Recipe.dmc_decisions): `openlandlord dmc` from `start` into
    OUT/student-dmc, then that student against `start` on `dmc_dev`. With `parts` > 1 (the
    soup's parts, `--soup-parts`): also OUT/student-dmc-K, seed + K - 1, for K = 2..parts, and
    no head-to-head (the soup plays `start` instead). Returns the students and the record."""
    student = out_dir / "student-dmc"
    students = [student] + [out_dir / f"student-dmc-{k}" for k in range(2, parts + 1)]
    cycle = ("--cycle", recipe.dmc_cycle) if recipe.dmc_cycle else ()
    if recipe.dmc_anchor or recipe.dmc_learn_phases:
        # The anchor is a copy of `start` inside OUT: the ship may later replace `start`.
        anchor = out_dir / "dmc-anchor"
        if not dry_run and not (anchor / "config.json").exists():
            from openlandlord.model.checkpoint import copy_checkpoint
            copy_checkpoint(start, anchor)
        cycle += (("--anchor", anchor, "--anchor-flows", recipe.dmc_anchor) if recipe.dmc_anchor
                  else ("--anchor", anchor, "--learn-phases", recipe.dmc_learn_phases))
    for k, part in enumerate(students):
        try:
            learned = json.loads((part / "config.json").read_text()).get("decisions_learned", 0)
        except (OSError, ValueError):
            learned = 0
        run.step("dmc" + (f"-{k + 1}" if k else ""),
                 _cli("dmc", "--game", game, *flags, "--init", start, "--out", part,
                      "--decisions", decisions, "--seed", seeds["dmc"] + k, *cycle, *recipe.dmc_flags),
                 learned >= decisions)
    record = {"from": _arg(start), "student": _arg(student), "decisions": decisions,
              "metrics": _arg(student / "metrics.jsonl")}
    if parts > 1:
        record["parts"] = [_arg(p) for p in students]
        return students, record
    figures = _head_to_head(run, "eval-dmc-vs-start", game, flags, student, start, recipe.dmc_dev,
                            out_dir / "eval" / student.name / "dev-vs-start.json", workers, ledger, dry_run)
    if figures is not None:
        record["vs_start"] = figures
    return students, record


def _soup_stage(run, game, flags, out_dir, start, parts, dev, workers, ledger,
                dry_run, made_here: bool = False, dataset: Path | None = None) -> tuple[Path, dict | None]:
    """The soup stage (Recipe.soup_dev): `openlandlord soup` of `parts` into OUT/student-soup,
    then the soup against `start` (through a copy in OUT/soup-start: the ship may replace the
    folder it started from) on `dev`; its val metrics are measured on the first part's
    dataset where that is still here. `made_here`: the parts are this run's (`--soup-parts`),
    so a dry run has none yet to check, and `dataset` is where they train (None: on no
    dataset, as a DMC part). -> the student to ship (the soup if it beats the
    start, else the start's copy) and the stage's record."""
    from openlandlord.distill.soup import check_parts
    from openlandlord.model.checkpoint import copy_checkpoint, read_meta
    student, anchor = out_dir / "student-soup", out_dir / "soup-start"
    if not dry_run and not (anchor / "config.json").exists():
        copy_checkpoint(start, anchor)
    # The parts must be fine-tunes of the start (its copy, once made: the ship may since have
    # replaced the folder it started from); a dry run of a whole recipe has no start yet.
    reference = anchor if (anchor / "config.json").exists() else start
    start_sha = read_meta(str(reference))["weights_sha256"] if (reference / "config.json").exists() else None
    if dry_run and made_here:
        # Not made yet: nothing to check; the dataset they will record is known.
        records = [{"dataset": _arg(dataset)} if dataset else {} for _ in parts]
    else:
        records, _ = check_parts([str(p) for p in parts], base=ROOT,
                                 start=None if start_sha is None else (start, start_sha))
    # Measured as train measures a student (val_top1, ...) on the val split of the first
    # part's dataset, where it recorded one that is still here (a DMC part trained on none;
    # `soup --data` itself refuses a folder that is not a dataset).
    data = records[0].get("dataset")
    measure = ("--data", data) if data and (dry_run and made_here or (ROOT / data).is_dir()) else ()
    run.step("soup", _cli("soup", "--out", student, *measure, *parts), (student / "config.json").exists())
    figures = _head_to_head(run, "eval-soup-vs-start", game, flags, student, anchor, dev,
                            out_dir / "eval" / student.name / "dev-vs-start.json", workers, ledger,
                            dry_run)
    if dry_run:
        return student, None
    beats = _beats(figures)
    shipped = student if beats else anchor
    return shipped, {"from": _arg(start), "start_weights_sha256": start_sha,
                     "parts": records, "student": _arg(student), "vs_start": figures,
                     "beats_start": beats, "shipped": "the soup" if beats else "its start",
                     "parts_made_here": made_here}


def _head_to_head(run, name, game, flags, student, opponent, dev, path, workers, ledger,
                  dry_run) -> dict | None:
    """The step `name`: `student` against the student `opponent` on the deals `dev` (mirrored,
    eval seed 0) into `path`; -> its figures (None on a dry run)."""
    if not dry_run:
        path.parent.mkdir(parents=True, exist_ok=True)
    run.step(name, _cli("eval", "--game", game, *flags, "--agent", f"student:{_arg(student)}",
                        "--opponent", f"student:{_arg(opponent)}", *dev, "--seed", 0,
                        "--workers", workers, "--json", path, "--ledger", Path(ledger).resolve()),
             path.exists())
    return None if dry_run else _figures(path)


def _plot_generations(path: Path, done: list) -> Path | None:
    """Strength by generation: each generation's summed head-to-head gains over generation 0,
    with each step's 95% interval; None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    key = "mean_points" if "mean_points" in done[0]["vs_previous"] else "mean_score"
    level, xs, ys, lo, hi = 0.0, [0], [0.0], [0.0], [0.0]
    for entry in done:
        f = entry["vs_previous"]
        xs.append(entry["generation"])
        lo.append(level + f[f"{key}_ci95"][0])
        hi.append(level + f[f"{key}_ci95"][1])
        level += f[key]
        ys.append(level)
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(xs, ys, marker="o")
    ax.vlines(xs, lo, hi, alpha=0.5)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("generation")
    ax.set_ylabel(f"summed {key.replace('_', ' ')} vs the previous generation")
    ax.set_title("iterated distillation: strength by generation")
    fig.tight_layout()
    artefacts.write_bytes(path, _png(fig))
    plt.close(fig)
    return path


def _png(fig) -> bytes:
    import io
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def _evals(run, game, recipe, flags, out_dir, final, final_args, seeds, workers, ledger, dry_run) -> dict:
    """Step 4-5: the last student against each opponent on the dev set (and the final set),
    and with a bidding round, its own bids against its `,bid=rule` twin on each flow's set."""
    evals: dict = {}
    student = f"student:{_arg(final)}"
    # (label, eval arguments, opponent, game flags, the figure's name in results.json, its
    # file's stem): the opponents on the dev (and final) set, then the bidding round's twins.
    sets = [("dev", recipe.dev)] + ([("final", final_args)] if final_args else [])
    plan = [(label, args, opponent, flags, opponent, opponent.split(":")[0])
            for label, args in sets for opponent in recipe.opponents]
    plan += [(label, args, opponent, [*flags, "--protocol", "douzero"], f"douzero-{opponent}",
              f"douzero-{opponent.split(':')[0]}")
             for label, args in sets for opponent in recipe.protocol_opponents]
    for label, sets in [("dev", recipe.bid_dev)] + ([("final", recipe.bid_final)] if final_args else []):
        plan += [(label, list(args), f"{student},bid=rule", ["--bidding", flow] if flow else flags,
                  name, name) for flow, args in sets for name in [f"bids-{flow}" if flow else "bids"]]
    for label, args, opponent, game_flags, name, stem in plan:
        path = out_dir / "eval" / final.name / f"{label}-{stem}.json"
        if not dry_run:
            path.parent.mkdir(parents=True, exist_ok=True)
        run.step(f"eval-{final.name}-{label}-{name}",
                 _cli("eval", "--game", game, *game_flags, "--agent", student, "--opponent", opponent,
                      *args, "--seed", seeds["eval"], "--workers", workers, "--json", path,
                      "--ledger", Path(ledger).resolve()),
                 path.exists())
        if path.exists():
            evals.setdefault(label, {})[name] = _figures(path)
    return evals


def _counts(text: str) -> tuple:
    if text.strip().lower() == "none":
        return ()
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _folders(text: str) -> list:
    found = [part for part in text.split(",") if part.strip()]
    if not found:
        raise argparse.ArgumentTypeError("expected comma-separated folders")
    return found


def main(argv=None, prog: str = "openlandlord ship") -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=GAMES, default="doudizhu")
    for opt in all_options().values():
        p.add_argument(opt.flag, dest=opt.name, choices=opt.choices, default=None,
                       help=f"{opt.help} (default {opt.default})")
    p.add_argument("--out", required=True, help="working directory: datasets, runs, eval JSONs")
    p.add_argument("--ship", default=None,
                   help="where the student ships (default data/models/GAME; with --quick, OUT/shipped)")
    p.add_argument("--quick", action="store_true", help="tiny sizes, for tests (figures mean nothing)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    def defaults(field: str) -> str:
        return "; ".join(f"{game} {','.join(map(str, getattr(r, field)))}" for game, r in ((g, recipe_for(g)) for g in GAMES))

    p.add_argument("--mix-deals", type=_counts, default=None,
                   help=f"deals of each mix round, comma-separated, or 'none' (default {defaults('mix_deals')})")
    p.add_argument("--epochs", type=_counts, default=None,
                   help=f"epochs of the first student, then of each round (default {defaults('epochs')})")
    p.add_argument("--ledger", default=None,
                   help="eval ledger (default data/runs/ledger.jsonl; with --quick, OUT/ledger.jsonl)")
    p.add_argument("--final-deal-set", default=None,
                   help="also evaluate on this deal set (the test set: final numbers only)")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    p.add_argument("--force", action="store_true",
                   help="replace a --ship folder that holds a student this run did not ship")
    p.add_argument("--generations", type=int, default=None,
                   help="the most generations of iterated distillation after the fine-tuning "
                        "round (each fine-tuned on teacher deals half chosen by the last, and "
                        "kept while it beats the last on the dev deals; default: the recipe's)")
    p.add_argument("--dmc", type=int, default=None,
                   help="decisions of Deep Monte-Carlo self-play fine-tuning after the recipe's "
                        "rounds (distill/dmc.py; default: the recipe's, 0 = none); with --from, "
                        "the DMC stage alone runs, from that student")
    p.add_argument("--from", dest="from_dir", default=None,
                   help="start the recipe's fine-tuning round (Dou Dizhu's bidding flows, "
                        "Shengji tractor's trump ranks, Shengji classic's 128-world teacher) "
                        "from this student (a shipped one: "
                        "no teacher or mix rounds; default: the last mix round's student)")
    p.add_argument("--soup-parts", type=int, default=None, metavar="N",
                   help="make the last training stage (the DMC stage where it runs, else the "
                        "fine-tuning round's fine-tune) N times, seeds SEED..SEED+N-1, from the "
                        "same start; their mean (`openlandlord soup`) ships if it beats that start "
                        "head to head on the dev deals, else the start ships")
    p.add_argument("--soup", type=_folders, default=None, metavar="DIR,DIR,...",
                   help="students fine-tuned from the student this ship would ship (with --from: "
                        "that student); their mean (`openlandlord soup`) ships instead if it beats "
                        "it head to head on the dev deals (with --from, only this stage runs)")
    args = p.parse_args(argv)
    given = {k: v for k, v in game_options(args.game, args).items() if getattr(args, k, None) is not None}
    ship_dir = args.ship or (str(Path(args.out) / "shipped") if args.quick
                             else str(ROOT / "data" / "models" / (recipe_for(args.game, given).models
                                                                    or args.game)))
    final_args = ["--deal-set", args.final_deal_set] if args.final_deal_set else None
    try:
        ship(args.game, args.out, ship_dir, quick=args.quick, seed=args.seed, workers=args.workers,
             ledger=args.ledger, final_args=final_args, mix_deals=args.mix_deals,
             epochs=args.epochs, dry_run=args.dry_run, force=args.force, from_dir=args.from_dir,
             generations=args.generations, dmc=args.dmc, soup=args.soup,
             soup_parts=args.soup_parts,
             options={k: v for k, v in game_options(args.game, args).items()
                      if getattr(args, k, None) is not None})
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

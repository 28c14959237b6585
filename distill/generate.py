"""`openlandlord generate`: play seeded deals with a teacher, record every decision the
teacher scored, and write them as a sharded, versioned, resumable dataset
(docs/dataset-format.md).

A run is a pure function of its command: deal i of `--seed S` is always the same deal
(`deal_seed`), every shard (DEALS_PER_SHARD consecutive deals) is one deterministic unit of
work whose agents are seeded from (S, shard), and shard files hold no timestamps. So the
shards do not depend on `--workers`, and a run killed at any moment and started again with
the same command skips the shards it finished and ends with the same bytes as a clean run.
The manifest is written last: a directory without one is an unfinished run.

With `--mix SPEC:FRACTION` another agent (typically the current student) chooses that
fraction of the moves, decided per decision by a seeded coin; the teacher still scores
every decision that is recorded.

With `--phases KIND,...` only the decisions of those kinds are scored and recorded (the
spec's `bidding_kinds`, e.g. Shengji `classic`'s `bury` and `declare`, Dou Dizhu's `bid` and
`double`, `play`, or one of the play's `play_kinds`: `lead`, a play nobody must follow, or
`follow`); every other decision is played, unscored and unrecorded, by `--rest SPEC`
(default: the teacher). A teacher that is costly in the play then makes data of one rare
decision cheaply: `--phases bury --rest student:DIR` searches only the burials, `--phases
lead --rest student:DIR` only the leads, in the student's own games.

Deals are driven by the one decision loop (`openlandlord.agents.loop`). A play too large to
list (more than the spec's `legal_cap` legal plays) for which the game has a short list of
candidates (`play_candidates`: a Shengji `classic` lead; a `classic` burial where the teacher
has `burial=listed`) is recorded as one listed decision over them, the form the network
players choose it in (`agents.ListedPlays`); any other (a Shengji follow, a `classic` burial
by default) as the card-by-card steps the arena builds it with, each
scored through full-play completions (the spec's `complete`, docs/dataset-format.md). The
teacher temperature, the roles recorded, the seats and the move encoding are the game spec's.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from openlandlord import agents, artefacts, provenance
from openlandlord.agents.loop import answer, decisions, drive, scores_by_completion
from openlandlord.errors import UserError
from openlandlord.executor import run_tasks
from openlandlord.games import game_options, spec as game_spec, to_json

from . import dataset, shards
from .schema import CHOOSERS, MANIFEST, SPLITS
from .seeds import (_MASK64, DEAL_SEED_RULE, EVAL_DIR, EVAL_RESERVED, SPLIT_RULE, TRAIN_SEED_PRIME,  # noqa: F401
                    check_eval_overlap, deal_seed, deal_seeds, eval_seeds, split_of, splitmix64)

DEALS_PER_SHARD = 25
# The most deals one run generates: far above any dataset the docs train on (20,000), and
# low enough that the evaluation-overlap check over every deal seed takes seconds.
MAX_DEALS = 10_000_000
# Agents whose scores mean nothing, so they cannot be teachers.
NOT_TEACHERS = {"rlcard": "rlcard is the external yardstick, never a teacher (its scores are "
                          "one-hot on its own choice)",
                "human": "a person at the terminal cannot score every move of thousands of states"}
_SHARD_NAME = re.compile(r"^shard-(\d{5})\.safetensors$")
# Temporary files of a killed writer: `.NAME.tmp-PID` (openlandlord.artefacts) and the
# `NAME.tmp-PID` of earlier versions.
_TMP_NAME = re.compile(r"^\.?(shard-\d{5}\.safetensors|manifest\.json)\.tmp-\d+$")


def shard_name(index: int) -> str:
    return f"shard-{index:05d}.safetensors"


def parse_mix(text: str | None) -> tuple[str, float] | None:
    """`SPEC:FRACTION` -> (spec, fraction). The spec may hold colons itself (`student:runs/a`)."""
    if text is None:
        return None
    spec, _, fraction = text.rpartition(":")
    try:
        value = float(fraction)
    except ValueError:
        value = float("nan")
    if not spec or not 0.0 < value <= 1.0:
        raise UserError(f"bad --mix {text!r}: expected SPEC:FRACTION with FRACTION in (0, 1], "
                        "e.g. student:runs/a:0.5")
    agents.parse_spec(spec)
    return spec, value


def parse_phases(spec, phases: str | None, rest: str | None, teacher: str) -> dict | None:
    """`--phases KIND,...` and `--rest SPEC` -> RunConfig.phases (None: every decision)."""
    if phases is None:
        if rest is not None:
            raise UserError("--rest plays the decisions --phases leaves out; give --phases too")
        return None
    kinds = tuple(spec.bidding_kinds) + ("play",) + tuple(spec.play_kinds)
    chosen = [k.strip() for k in phases.split(",")]
    if not chosen or any(k not in kinds for k in chosen) or len(set(chosen)) != len(chosen):
        raise UserError(f"--phases {phases!r}: {spec.name}'s decision kinds are {', '.join(kinds)} "
                        "(comma-separated, each once)")
    if "play" in chosen and set(chosen) & set(spec.play_kinds):
        raise UserError(f"--phases {phases!r}: play already holds {' and '.join(spec.play_kinds)}; "
                        "name play, or the play kinds alone")
    if rest is not None and agents.parse_spec(rest).name == "human":
        raise UserError("--rest human: generation runs unattended; a person cannot choose moves here")
    return {"kinds": [k for k in kinds if k in chosen],
            "rest": teacher if rest is None else agents.parse_spec(rest).text}


def recorded_run(found: dict) -> dict:
    """A run's RunConfig fields as shards and the manifest record them, from any mapping that
    holds them (the config itself, a manifest): `phases` only where the run records some
    decision kinds alone, so datasets made before `--phases` match their manifests."""
    names = [f.name for f in fields(RunConfig)]
    return {k: found.get(k) for k in names if k != "phases" or found.get(k) is not None}


@dataclass(frozen=True)
class RunConfig:
    """Everything that decides a dataset's content: two runs with equal configs (and code)
    write the same bytes."""
    game: str
    rules: dict
    teacher: str
    mix: dict | None
    temperature: float
    seed: int
    deals: int
    deals_per_shard: int
    # `--phases`: {"kinds": the decision kinds recorded, "rest": the agent playing the others};
    # None records every decision (and is left out of info(), so older datasets match).
    phases: dict | None = None

    def info(self) -> dict:
        """The config as shards and the manifest record it."""
        return recorded_run(asdict(self))

    @property
    def num_shards(self) -> int:
        return -(-self.deals // self.deals_per_shard)

    def shard_deals(self, index: int) -> range:
        return range(index * self.deals_per_shard, min(self.deals, (index + 1) * self.deals_per_shard))


def decision_kinds(game, decision) -> tuple[str, ...]:
    """What `--phases` names a decision by: its bidding kind (the spec's `bidding_kinds`), else
    `play` and the play's own kind (the spec's `play_kinds`: `lead` or `follow`)."""
    bidding = game.bidding_kind(decision.obs, decision.legal)
    return (bidding,) if bidding else ("play", game.play_kind(decision.obs))


def play_deal(config: RunConfig, index: int, teacher, mixer=None, timing: dict | None = None,
              rest=None) -> dict:
    """Play deal `index` to the end and return its decisions (those with 2+ legal moves),
    each scored by the teacher, plus the deal's outcome. A play too large to list is chosen
    among the game's `play_candidates` where it has them (one decision), else built card by
    card, each step with two or more candidates a decision. With `config.phases`, only the
    decisions of its kinds are scored and recorded; `rest` answers the others."""
    game = game_spec(config.game)
    seed = deal_seed(config.seed, index)
    state = game.new_deal(seed, **config.rules)
    coin = np.random.default_rng([config.seed & _MASK64, index, 3])
    decisions_made: list = []

    def choose(decision):
        if config.phases is not None and not set(decision_kinds(game, decision)) & set(config.phases["kinds"]):
            return answer(rest, decision)
        if decision.legal is None:
            candidates = game.play_candidates(decision.obs, getattr(teacher, "burial", "cards"))
            if not candidates:
                return None                      # build it card by card
            if len(candidates) == 1:
                return candidates[0]
            # The game's own short list (a Shengji `classic` lead): one listed decision, the
            # form the network players are asked it in (`agents.ListedPlays`).
            listed = dataclasses.replace(decision, legal=candidates)
            scores = _teacher_scores(config, teacher, decision.obs, candidates, timing)
            return candidates[_record(config, game, state, listed, scores, mixer, coin,
                                      decisions_made)]
        if decision.prefix is None:
            scores = _teacher_scores(config, teacher, decision.obs, decision.legal, timing)
            return _record(config, game, state, decision, scores, mixer, coin, decisions_made)
        if len(decision.legal) < 2:
            return 0
        # A card-by-card step: the teacher scores each candidate by its completed play.
        plays = [game.complete(state, c, decision.obs) for c in decision.legal]
        scores = scores_by_completion(
            lambda distinct: _teacher_scores(config, teacher, decision.obs, distinct, timing), plays)
        return _record(config, game, state, decision, scores, mixer, coin, decisions_made)

    drive(decisions(state, game.legal_cap), choose)
    payoffs = [float(p) for p in state.payoffs()]
    for d in decisions_made:
        d["score"] = payoffs[d["seat"]]
    return {"deal_id": index, "deal_seed": seed, "split": split_of(seed), "payoffs": payoffs,
            "result": to_json(state.result()), "decisions": decisions_made}


def _teacher_scores(config: RunConfig, teacher, obs, legal, timing: dict | None) -> np.ndarray:
    started = time.perf_counter()
    scores = np.asarray(teacher.scores(obs, legal), np.float64)
    if timing is not None:
        timing["teacher"] += time.perf_counter() - started
    if scores.shape != (len(legal),) or not np.all(np.isfinite(scores)):
        raise ValueError(f"teacher {config.teacher!r} returned scores of shape {scores.shape} "
                         f"(finite: {bool(np.all(np.isfinite(scores)))}) for {len(legal)} legal moves")
    return scores


def _record(config: RunConfig, game, state, decision, scores, mixer, coin, decisions: list) -> int:
    """Record one decision (the teacher's scores of its legal moves) and return the index
    played: the teacher's argmax, or the mix agent's choice where the coin says so."""
    obs, legal = decision.obs, decision.legal
    best = agents.choose(scores)
    by_mix = mixer is not None and coin.random() < config.mix["fraction"]
    chosen = agents.choose(mixer.scores(obs, legal)) if by_mix else best
    decisions.append({
        "seat": obs.seat, "role": game.role_index(obs), "step": decision.step,
        "factored": -1 if decision.prefix is None else len(decision.prefix),
        "obs": game.observation_to_json(obs),
        "hands": to_json(list(state.hands())),
        "legal": [game.move_text(m) for m in legal], "scores": scores,
        "policy": agents.softmax(scores, config.temperature),
        "teacher_choice": best, "played": chosen, "chooser": int(by_mix)})
    return chosen


def pack(config: RunConfig, deals: list[dict]) -> tuple[dict[str, np.ndarray], dict]:
    """The tensors of one shard (docs/dataset-format.md) and its counts."""
    recs = [d for deal in deals for d in deal["decisions"]]
    split_index = {name: i for i, name in enumerate(SPLITS)}
    t: dict[str, np.ndarray] = {
        "deal_id": np.array([d["deal_id"] for d in deals], np.int64),
        "deal_seed": np.array([d["deal_seed"] for d in deals], np.int64),
        "deal_split": np.array([split_index[d["split"]] for d in deals], np.int8),
        "deal_payoffs": np.array([d["payoffs"] for d in deals], np.float32).reshape(len(deals), game_spec(config.game).num_seats),
        "deal_first_record": np.cumsum([0] + [len(d["decisions"]) for d in deals], dtype=np.int64),
        "rec_deal_id": np.array([deal["deal_id"] for deal in deals for _ in deal["decisions"]], np.int64),
        "rec_split": np.array([split_index[deal["split"]] for deal in deals for _ in deal["decisions"]], np.int8),
        "rec_seat": np.array([r["seat"] for r in recs], np.int8),
        "rec_role": np.array([r["role"] for r in recs], np.int8),
        "rec_step": np.array([r["step"] for r in recs], np.int32),
        "rec_factored": np.array([r["factored"] for r in recs], np.int32),
        "rec_chooser": np.array([r["chooser"] for r in recs], np.int8),
        "rec_teacher_choice": np.array([r["teacher_choice"] for r in recs], np.int32),
        "rec_played": np.array([r["played"] for r in recs], np.int32),
        "rec_temperature": np.full(len(recs), config.temperature, np.float32),
        "rec_score": np.array([r["score"] for r in recs], np.float32),
        "rec_legal_offsets": np.cumsum([0] + [len(r["legal"]) for r in recs], dtype=np.int64),
        "move_teacher_score": np.concatenate([r["scores"] for r in recs] or [np.zeros(0)]).astype(np.float32),
        "move_teacher_policy": np.concatenate([r["policy"] for r in recs] or [np.zeros(0)]).astype(np.float32),
    }
    t["deal_result_text"], t["deal_result_offsets"] = shards.pack_texts([d["result"] for d in deals])
    t["rec_obs_text"], t["rec_obs_offsets"] = shards.pack_texts([r["obs"] for r in recs])
    t["rec_hands_text"], t["rec_hands_offsets"] = shards.pack_texts([r["hands"] for r in recs])
    t["move_text"], t["move_offsets"] = shards.pack_texts([m for r in recs for m in r["legal"]])
    counts = {
        "deals": len(deals), "decisions": len(recs), "moves": int(t["rec_legal_offsets"][-1]),
        "mix_moves": int(t["rec_chooser"].sum()),
        "split_deals": {s: sum(d["split"] == s for d in deals) for s in SPLITS},
        "split_decisions": {s: sum(len(d["decisions"]) for d in deals if d["split"] == s) for s in SPLITS},
    }
    return t, counts


@dataclass(frozen=True)
class _ShardTask:
    config: RunConfig
    index: int
    git_sha: str
    stamp: dict


def _agent_seed(config: RunConfig, index: int, who: int) -> int:
    return splitmix64(splitmix64(config.seed & _MASK64) ^ (index << 2 | who)) >> 1


def make_shard(task: _ShardTask, on_deal=None) -> tuple[dict, bytes]:
    """Play one shard's deals; returns its manifest entry and the shard file's bytes, which
    the driver writes (so a Ray worker on another machine needs no shared --out). Agents are
    built per shard from seeds derived from (seed, shard), which is what makes the bytes
    independent of which worker plays the shard. An executor task
    (`openlandlord.executor.run_tasks`): `on_deal(1)` counts finished deals."""
    config = task.config
    game = game_spec(config.game)
    teacher = agents.make(config.teacher, _agent_seed(config, task.index, 1))
    mixer = agents.make(config.mix["spec"], _agent_seed(config, task.index, 2)) if config.mix else None
    rest = (agents.make(config.phases["rest"], _agent_seed(config, task.index, 3))
            if config.phases is not None else None)
    deals = []
    for i in config.shard_deals(task.index):
        deals.append(play_deal(config, i, teacher, mixer, rest=rest))
        if on_deal is not None:
            on_deal(1)
    tensors, counts = pack(config, deals)
    span = config.shard_deals(task.index)
    info = {"run": config.info(), "index": task.index, "deals": [span.start, span.stop],
            "counts": counts, "git_sha": task.git_sha, "provenance": task.stamp,
            "num_seats": game.num_seats, "roles": list(game.roles),
            "splits": list(SPLITS), "choosers": list(CHOOSERS),
            "move_encoding": game.move_encoding}
    blob = shards.shard_bytes(tensors, info)
    return _entry(task.index, blob, info), blob


def _entry(index: int, blob: bytes, info: dict) -> dict:
    return {"file": shard_name(index), "index": index, "deals": info["deals"], "bytes": len(blob),
            "sha256": shards.sha256(blob), "counts": info["counts"]}


def _stamp(seed: int) -> dict:
    # stamp() also records the creation time; a manifest with a clock in it could not be
    # byte-identical between a clean and a resumed run, so the time is left out.
    stamp = provenance.stamp(seed=seed)
    stamp.pop("created_utc", None)
    return stamp


def _manifest(config: RunConfig, entries: list[dict], git_sha: str, stamp: dict, eval_check: dict) -> dict:
    def total(key):
        return sum(e["counts"][key] for e in entries)

    return {
        "format": shards.FORMAT, "format_version": shards.FORMAT_VERSION,
        **config.info(),
        "seeds": {"seed": config.seed, "deal_seed_rule": DEAL_SEED_RULE,
                  "agent_seed_rule": "teacher/mix agents built per shard, seeded from (seed, shard)"},
        "splits": {"rule": SPLIT_RULE,
                   "deals": {s: sum(e["counts"]["split_deals"][s] for e in entries) for s in SPLITS},
                   "decisions": {s: sum(e["counts"]["split_decisions"][s] for e in entries) for s in SPLITS}},
        "counts": {"deals": total("deals"), "decisions": total("decisions"), "moves": total("moves"),
                   "mix_moves": total("mix_moves")},
        "eval_check": eval_check,
        "git_sha": git_sha, "provenance": stamp,
        "shards": entries,
    }


def manifest_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8")


def _different_run(out: Path, theirs: dict, ours: dict) -> UserError:
    diff = ", ".join(f"{k}={theirs.get(k)!r} (now {v!r})" for k, v in ours.items() if theirs.get(k) != v)
    return UserError(f"--out {out} holds a different run ({diff}); choose another --out, "
                     "rerun with the same arguments, or pass --force to replace it")


def _finished_shards(out: Path, config: RunConfig, git_sha: str) -> dict[int, dict]:
    """The shards of an unfinished run that can be kept, each proved intact. A shard made by
    other code (another git SHA) is made again, so a dataset never mixes code versions."""
    done = {}
    for path in sorted(out.iterdir()):
        if _TMP_NAME.match(path.name):
            path.unlink()  # a temporary file left by a killed writer: never a finished shard
            continue
        match = _SHARD_NAME.match(path.name)
        if not match:
            continue
        try:
            _, info = shards.read_shard(path)
        except shards.ShardError as exc:
            raise shards.ShardError(f"{exc}; delete it and rerun the same command to make it "
                                    "again") from None
        if info.get("run") != config.info():
            raise _different_run(out, info.get("run") or {}, config.info())
        if info.get("git_sha") == git_sha:
            done[int(match.group(1))] = _entry(int(match.group(1)), path.read_bytes(), info)
    return done


def generate(out, game: str, teacher: str, deals: int, seed: int = 0, mix: str | None = None,
             workers: int | None = None, temperature: float | None = None,
             deals_per_shard: int = DEALS_PER_SHARD, eval_dir=None, progress: bool = True,
             options: dict | None = None, backend: str = "local", address: str | None = None,
             force: bool = False, phases: str | None = None, rest: str | None = None) -> dict:
    """Generate (or finish) the dataset in `out`; returns its manifest. `options` are the
    game's deal options (defaults: the spec's, the flow the evaluation deal sets use);
    `temperature` None is the spec's teacher temperature. The shards are made over `workers`
    local processes, or Ray tasks with `backend="ray"` (`openlandlord.executor`): the same
    bytes either way. `out` is locked for the whole run (a second writer is refused); what
    it holds that is not this run is replaced only with `force`. `phases` ("bury", "bid,double",
    ...) records only those decisions, `rest` (default: the teacher) playing the others."""
    spec = game_spec(game)
    rules = spec.deal_options(options)
    if temperature is None:
        temperature = spec.teacher_temperature
    if isinstance(deals, bool) or not isinstance(deals, int) or deals <= 0:
        raise UserError(f"--deals must be a positive number of deals, got {deals}")
    if deals > MAX_DEALS:
        raise UserError(f"--deals {deals} is more than one run generates (at most {MAX_DEALS:,}); "
                        "split it into several runs with different --seed")
    if workers is not None and workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    if not 0.0 <= temperature < math.inf:
        raise UserError(f"--temperature must be a finite number >= 0, got {temperature}")
    mixed = parse_mix(mix)
    teacher_name = agents.parse_spec(teacher).name
    if teacher_name in NOT_TEACHERS:
        raise UserError(f"--teacher {teacher!r}: {NOT_TEACHERS[teacher_name]}")
    if mixed and agents.parse_spec(mixed[0]).name == "human":
        raise UserError("--mix human: generation runs unattended; a person cannot choose moves here")
    recorded = parse_phases(spec, phases, rest, agents.parse_spec(teacher).text)
    config = RunConfig(game, rules, agents.parse_spec(teacher).text,
                       {"spec": mixed[0], "fraction": mixed[1]} if mixed else None,
                       float(temperature), int(seed), deals, deals_per_shard, recorded)
    eval_check = check_eval_overlap(deal_seeds(seed, deals), EVAL_DIR if eval_dir is None else eval_dir)
    agents.make(config.teacher, 0)  # a bad or unavailable spec fails here, once, not in every worker
    if mixed:
        agents.make(mixed[0], 0)
    if recorded is not None:
        agents.make(recorded["rest"], 0)

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a directory")
    with artefacts.exclusive(out, "--out"):
        if force and out.exists():
            artefacts.remove(out)
        out.mkdir(parents=True, exist_ok=True)
        return _write_run(out, config, eval_check, workers, backend, address, progress)


def _write_run(out: Path, config: RunConfig, eval_check: dict, workers, backend: str, address,
               progress: bool) -> dict:
    """The locked part of `generate`: finish the run in `out`, or prove it finished."""
    seed, deals = config.seed, config.deals
    git_sha = provenance.git_sha()
    if (out / MANIFEST).exists():
        try:
            manifest = json.loads((out / MANIFEST).read_text())
        except (OSError, ValueError) as exc:
            raise UserError(f"{out / MANIFEST} is unreadable ({exc})") from None
        if not isinstance(manifest, dict):
            raise UserError(f"{out / MANIFEST} is unreadable (not a JSON object)")
        if recorded_run(manifest) != config.info():
            raise _different_run(out, manifest, config.info())
        dataset.open(out)  # finished already: prove it intact rather than silently trust it
        if progress:
            print(f"{out}: complete already ({manifest['counts']['decisions']} decisions)")
        return manifest
    done = _finished_shards(out, config, git_sha)
    names = [p.name for p in out.iterdir()]
    if names and not any(_SHARD_NAME.match(n) for n in names):
        raise UserError(f"--out {out} is not empty and holds no dataset; choose an empty or new "
                        "directory, or pass --force to replace what it holds")

    stamp = _stamp(seed)
    tasks = [_ShardTask(config, i, git_sha, stamp) for i in range(config.num_shards) if i not in done]
    if backend == "local":
        workers = min(workers or os.cpu_count() or 1, max(1, len(tasks)))
    # (Ray: --workers as given caps the tasks in flight; none given, the cluster decides.)
    from tqdm import tqdm
    with tqdm(total=deals, initial=sum(e["counts"]["deals"] for e in done.values()), unit="deal",
              desc="generate", disable=not progress) as bar, \
            contextlib.closing(run_tasks(make_shard, tasks, workers=workers, backend=backend,
                                         address=address, on_progress=bar.update)) as finished:
        # Closed at once on any exception (an interrupt, a failed write): the workers stop now,
        # not when the interpreter gets round to it (at exit it waits for their tasks instead).
        for _, (entry, blob) in finished:
            artefacts.write_bytes(out / shard_name(entry["index"]), blob)
            done[entry["index"]] = entry
    manifest = _manifest(config, [done[i] for i in range(config.num_shards)], git_sha, stamp, eval_check)
    artefacts.write_bytes(out / MANIFEST, manifest_bytes(manifest))
    return manifest


def run(args) -> int:
    """`openlandlord generate`."""
    manifest = generate(args.out, args.game, args.teacher, args.deals, seed=args.seed, mix=args.mix,
                        workers=args.workers, temperature=getattr(args, "temperature", None),
                        options=game_options(args.game, args), backend=args.backend,
                        address=args.address, force=getattr(args, "force", False),
                        phases=getattr(args, "phases", None), rest=getattr(args, "rest", None))
    counts, splits = manifest["counts"], manifest["splits"]["decisions"]
    print(f"{args.out}: {counts['deals']} deals, {counts['decisions']} decisions "
          f"(train {splits['train']}, val {splits['val']}, test {splits['test']}), "
          f"{len(manifest['shards'])} shards")
    return 0


BENCH_DECISIONS = 35_000
BENCH_TARGET_S = 15 * 60
# The bench measures the strongest teacher this install can build: the target is set for
# `pimc`; until it exists, `rule` (then `random`) shows what everything around it costs.
BENCH_TEACHERS = ("pimc", "rule", "random")


def measure(game: str, teacher: str, mix: dict | None = None, seconds: float = 20.0,
            options: dict | None = None) -> dict:
    """Generate deals in this process for about `seconds`, recording and packing them as a
    run does (nothing is written), and time it."""
    import platform

    spec = game_spec(game)
    config = RunConfig(game, spec.deal_options(options), teacher, mix, spec.teacher_temperature, 0,
                       TRAIN_SEED_PRIME, DEALS_PER_SHARD)
    teacher_agent = agents.make(teacher, 1)
    mixer = agents.make(mix["spec"], 2) if mix else None
    timing = {"teacher": 0.0}
    deals, decisions, packed = [], 0, 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        deals.append(play_deal(config, len(deals) + packed, teacher_agent, mixer, timing))
        decisions += len(deals[-1]["decisions"])
        if len(deals) == DEALS_PER_SHARD:
            shards.shard_bytes(*pack(config, deals))
            packed += len(deals)
            deals = []
    elapsed = time.perf_counter() - started
    rate = decisions / elapsed
    cores = os.cpu_count() or 1
    overhead_ms = 1000 * (elapsed - timing["teacher"]) / max(1, decisions)
    return {
        "game": game, "options": config.rules, "teacher": teacher, "mix": mix, "deals": packed + len(deals),
        "decisions": decisions, "seconds": round(elapsed, 3), "decisions_per_s": round(rate, 1),
        "teacher_share": round(timing["teacher"] / elapsed, 3),
        "decisions_per_deal": round(decisions / max(1, packed + len(deals)), 2),
        "cores": cores, "projected_s_35k": round(BENCH_DECISIONS / (rate * cores), 1),
        "target_s_35k": BENCH_TARGET_S,
        # What the rest of generation (referee, recording, packing) costs per decision, and
        # so what a teacher may spend per decision for 35,000 decisions in the target time.
        "non_teacher_ms_per_decision": round(overhead_ms, 4),
        "teacher_budget_ms_per_decision": round(1000 * BENCH_TARGET_S * cores / BENCH_DECISIONS - overhead_ms, 2),
        "machine": platform.machine(), "git_sha": provenance.git_sha(),
    }


def bench(args) -> int:
    """`openlandlord bench generate`: teacher-scored decisions per second on one core, the
    teacher's share of that time, and the projected wall time of a 35,000-decision dataset
    on all cores (ideal scaling: shards are independent). The teacher is the first of
    BENCH_TEACHERS this install can build; `--checkpoint` adds the student as a 50% `--mix`
    agent; `--seconds` is the time budget (default 20)."""
    for teacher in BENCH_TEACHERS:
        try:
            agents.make(teacher, 0)
            break
        except UserError:
            continue
    mix = {"spec": f"student:{args.checkpoint}", "fraction": 0.5} if args.checkpoint else None
    result = measure(args.game, teacher, mix, args.seconds or 20.0, game_options(args.game, args))
    print(f"generate bench ({args.game}, teacher {teacher}{', mix ' + mix['spec'] if mix else ''}): "
          f"{result['decisions']} decisions in {result['seconds']:.1f} s on one core = "
          f"{result['decisions_per_s']:.0f} decisions/s (teacher {100 * result['teacher_share']:.0f}% of the time)")
    print(f"35,000 decisions on {result['cores']} cores: ~{result['projected_s_35k']:.0f} s "
          f"(target <= {BENCH_TARGET_S} s with the PIMC teacher); everything but the teacher costs "
          f"{result['non_teacher_ms_per_decision']:.3f} ms per decision, leaving a teacher "
          f"{result['teacher_budget_ms_per_decision']:.1f} ms per decision per core")
    if args.json:
        artefacts.write_json(args.json, result, indent=1, sort_keys=True)
    return 0

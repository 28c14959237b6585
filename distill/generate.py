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

A Shengji follow too large to list (more than FACTOR_CAP legal plays) is recorded as the
card-by-card steps the arena builds it with, each scored through full-play completions
(`_factored_play`, docs/dataset-format.md).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from openlandlord import agents, provenance
from openlandlord.errors import UserError
from openlandlord.games import GAMES, NUM_SEATS, new_deal

from . import dataset, shards

DEALS_PER_SHARD = 25
# The teacher's softmax target is softmax(scores / temperature), scores in the teacher's own
# units (expected signed score for `pimc`). PIMC's moves mostly differ by tenths of a point,
# so a temperature of 1.0 gives near-uniform targets. Dou Dizhu, measured twice: on 400 pimc
# deals x 8 epochs, 0.2 against 1.0 raised val top-1 agreement 0.364 -> 0.398 and the mean
# score against `rule` -0.96 -> -0.57 (150 deals); on another 500 deals x 6 epochs (dev-300)
# it was even against `rule` (-0.95 both) and worse against `rlcard` (-0.58 vs -0.43). The
# evidence leans to 0.2; it is a generate option. A Shengji score is in levels (at most 3 a
# deal): at 1.0 the median target gives its best move 0.20, at 0.1 it gives 0.40.
DEFAULT_TEMPERATURE = 0.2
GAME_TEMPERATURE = {"doudizhu": DEFAULT_TEMPERATURE, "shengji": 0.1}
# A Shengji decision with more legal plays than this (the referee's listing cap) is recorded
# as a card-by-card build (see `_factored_play`).
FACTOR_CAP = 256
# Agents whose scores mean nothing, so they cannot be teachers.
NOT_TEACHERS = {"rlcard": "rlcard is the external yardstick, never a teacher (its scores are "
                          "one-hot on its own choice)",
                "human": "a person at the terminal cannot score every move of thousands of states"}
# The same flow the evaluation deal sets use (data/eval/*.json `options`): a student is
# trained on the game it is measured on. tests/test_generate.py checks they agree.
DEFAULT_RULES = {"doudizhu": {"bidding": "none"}, "shengji": {"rules": "tractor"}}

# Evaluation owns [2,000,000,000, 2,100,000,000) (documented in eval/dealsets.py, which this
# stage reads but never imports). Training deal seeds are drawn below it, from [0, P), P the
# largest prime under 2e9, so the affine map in `deal_seed` is a bijection: the deals of one
# run are all distinct and every seed fits a signed 32-bit int.
EVAL_RESERVED = range(2_000_000_000, 2_100_000_000)
TRAIN_SEED_PRIME = 1_999_999_973
EVAL_DIR = Path(__file__).resolve().parent.parent / "data" / "eval"

SPLITS = ("train", "val", "test")
SPLIT_RULE = "splitmix64(deal_seed ^ 0x5EED5) % 10: 0-7 train, 8 val, 9 test"
DEAL_SEED_RULE = ("deal i of --seed S: (a * i + b) mod 1999999973, a = 1 + splitmix64(S) mod "
                  "1999999972, b = splitmix64(S ^ 0xD1B54A32D192ED03) mod 1999999973 (S taken mod 2^64)")
# Roles by index in the `rec_role` tensor (-1: not known yet, e.g. during bidding).
ROLES = {"doudizhu": ("landlord", "landlord_down", "landlord_up"),
         "shengji": ("declarers", "attackers")}
CHOOSERS = ("teacher", "mix")

_MASK64 = (1 << 64) - 1
_SHARD_NAME = re.compile(r"^shard-(\d{5})\.safetensors$")
_TMP_NAME = re.compile(r"^(shard-\d{5}\.safetensors|manifest\.json)\.tmp-\d+$")
MANIFEST = "manifest.json"


def splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def deal_seed(seed: int, index: int) -> int:
    """The seed of deal `index` of a run with `--seed seed` (DEAL_SEED_RULE)."""
    s = seed & _MASK64
    a = 1 + splitmix64(s) % (TRAIN_SEED_PRIME - 1)
    b = splitmix64(s ^ 0xD1B54A32D192ED03) % TRAIN_SEED_PRIME
    return (a * index + b) % TRAIN_SEED_PRIME


def split_of(seed: int) -> str:
    """The split of a deal, a function of its seed alone, so no deal is in two splits."""
    bucket = splitmix64(seed ^ 0x5EED5) % 10
    return "train" if bucket < 8 else ("val" if bucket == 8 else "test")


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


def eval_seeds(eval_dir: Path) -> dict[int, str]:
    """Every seed of every evaluation deal-set file (seed -> file name), whatever its game:
    refusing a few extra seeds costs nothing, training on an evaluation deal costs the result."""
    found: dict[int, str] = {}
    for path in sorted(Path(eval_dir).glob("*.json")) if Path(eval_dir).is_dir() else []:
        try:
            seeds = json.loads(path.read_text())["seeds"]
            found.update((int(s), path.name) for s in seeds)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UserError(f"evaluation deal-set file {path} is unreadable ({exc}); generation "
                            "checks every file there so that no evaluation deal is trained on") from None
    return found


def check_eval_overlap(seeds: list[int], eval_dir: Path) -> dict:
    """Refuse any deal seed in the evaluation's reserved range or in an evaluation deal set."""
    reserved = eval_seeds(eval_dir)
    for index, seed in enumerate(seeds):
        if seed in EVAL_RESERVED or seed in reserved:
            where = reserved.get(seed, f"the reserved range [{EVAL_RESERVED.start}, {EVAL_RESERVED.stop})")
            raise UserError(f"deal {index} would use seed {seed}, an evaluation deal ({where}); "
                            "choose another --seed")
    return {"reserved_range": [EVAL_RESERVED.start, EVAL_RESERVED.stop],
            "files": sorted(set(reserved.values())), "seeds": len(reserved)}


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

    @property
    def num_shards(self) -> int:
        return -(-self.deals // self.deals_per_shard)

    def shard_deals(self, index: int) -> range:
        return range(index * self.deals_per_shard, min(self.deals, (index + 1) * self.deals_per_shard))


def move_text(move) -> str:
    """A move as text: Dou Dizhu moves and bidding words are strings already; a Shengji play
    (a tuple of cards) is its cards joined by spaces."""
    return move if isinstance(move, str) else " ".join(move)


def _json(value) -> str:
    def plain(x):
        if isinstance(x, np.integer):
            return int(x)
        if isinstance(x, np.floating):
            return float(x)
        raise TypeError(f"cannot store {type(x).__name__} in a dataset")
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=plain)


def _role_index(game: str, obs) -> int:
    if game == "shengji":
        return -1 if obs.declarers is None else (0 if obs.seat % 2 == obs.declarers else 1)
    return -1 if obs.role is None else ROLES[game].index(obs.role)


def play_deal(config: RunConfig, index: int, teacher, mixer=None, timing: dict | None = None) -> dict:
    """Play deal `index` to the end and return its decisions (those with 2+ legal moves),
    each scored by the teacher, plus the deal's outcome. A Shengji follow with more than
    FACTOR_CAP legal plays is built card by card (`_factored_play`), each step a decision."""
    seed = deal_seed(config.seed, index)
    state = new_deal(config.game, seed, **config.rules)
    coin = np.random.default_rng([config.seed & _MASK64, index, 3])
    decisions, step = [], 0
    while not state.done:
        if hasattr(state, "factored_options") and state.count_legal() > FACTOR_CAP:
            state.play(_factored_play(config, state, teacher, mixer, coin, decisions, step, timing))
            step += 1
            continue
        legal = state.legal_moves()
        chosen = 0
        if len(legal) >= 2:
            seat = state.current_seat
            obs = state.observation(seat)
            scores = _teacher_scores(config, teacher, obs, legal, timing)
            chosen = _record(config, state, obs, legal, scores, mixer, coin, decisions, step, -1)
        state.play(legal[chosen])
        step += 1
    payoffs = [float(p) for p in state.payoffs()]
    for d in decisions:
        d["score"] = payoffs[d["seat"]]
    return {"deal_id": index, "deal_seed": seed, "split": split_of(seed), "payoffs": payoffs,
            "result": _json(state.result()), "decisions": decisions}


def _teacher_scores(config: RunConfig, teacher, obs, legal, timing: dict | None) -> np.ndarray:
    started = time.perf_counter()
    scores = np.asarray(teacher.scores(obs, legal), np.float64)
    if timing is not None:
        timing["teacher"] += time.perf_counter() - started
    if scores.shape != (len(legal),) or not np.all(np.isfinite(scores)):
        raise ValueError(f"teacher {config.teacher!r} returned scores of shape {scores.shape} "
                         f"(finite: {bool(np.all(np.isfinite(scores)))}) for {len(legal)} legal moves")
    return scores


def _record(config: RunConfig, state, obs, legal, scores, mixer, coin, decisions: list, step: int,
            factored: int) -> int:
    """Record one decision (the teacher's scores of `legal`) and return the index played."""
    best = agents.choose(scores)
    by_mix = mixer is not None and coin.random() < config.mix["fraction"]
    chosen = agents.choose(mixer.scores(obs, legal)) if by_mix else best
    decisions.append({
        "seat": obs.seat, "role": _role_index(config.game, obs), "step": step,
        "factored": factored, "obs": _json(asdict(obs)),
        "hands": _json(list(state.hands())),
        "legal": [move_text(m) for m in legal], "scores": scores,
        "policy": agents.softmax(scores, config.temperature),
        "teacher_choice": best, "played": chosen, "chooser": int(by_mix)})
    return chosen


def _factored_play(config: RunConfig, state, teacher, mixer, coin, decisions: list, step: int,
                   timing: dict | None) -> tuple:
    """A Shengji play too large to list, built card by card as the arena asks an agent to
    (eval/arena.py `_build_play`): the candidates are the prefix one card longer (and, when
    leading, the prefix itself for the referee's END). Each step with two or more candidates
    is recorded as a decision whose legal moves are those candidate prefixes. The teacher
    scores a candidate by scoring the full play `complete(...)` makes of it, so any teacher
    that scores full plays (rule, pimc, a student) scores prefixes."""
    from openlandlord.games.shengji import END

    obs = state.observation(state.current_seat)
    prefix: tuple = ()
    while options := state.factored_options(prefix):
        candidates = [prefix if card == END else prefix + (card,) for card in options]
        chosen = 0
        if len(candidates) >= 2:
            plays = [complete(state, c, obs) for c in candidates]
            distinct = sorted(set(plays))
            scored = _teacher_scores(config, teacher, obs, distinct, timing)
            scores = scored[[distinct.index(p) for p in plays]]
            chosen = _record(config, state, obs, candidates, scores, mixer, coin, decisions, step,
                             len(prefix))
        if options[chosen] == END:
            break
        prefix = candidates[chosen]
    return prefix


def complete(state, prefix: tuple, obs) -> tuple:
    """The full play the generation scores a Shengji candidate prefix by: the prefix grown
    card by card with the cheapest card the referee offers (by trump-order strength, trumps
    dearest; point cards go last, or first when the partner is winning the trick: the expert
    rule bot's discard order), sorted. END and an already complete prefix stay as they are."""
    from openlandlord.games.shengji import END, Rules, trick_winner
    from openlandlord.games.shengji.rules import CARD_IDS, card_table

    rules = (Rules.classic(obs.trump_rank, obs.trump_suit or "N") if obs.rules == "classic"
             else Rules.tractor(obs.trump_rank, obs.trump_suit))
    cats, strength, points = (np.asarray(a) for a in card_table(rules))
    feed = bool(obs.trick) and obs.trick[trick_winner(rules, [c for _, c in obs.trick])][0] == (obs.seat + 2) % 4
    play = tuple(prefix)
    while options := [o for o in state.factored_options(play) if o != END]:
        ids = np.array([CARD_IDS[o] for o in options])
        value = (strength[ids] + 14 * (cats[ids] == 4)).astype(np.float64)
        value += (-3.0 if feed else 3.0) * points[ids]
        play = play + (options[int(np.argmin(value))],)
    return tuple(sorted(play))


def pack(config: RunConfig, deals: list[dict]) -> tuple[dict[str, np.ndarray], dict]:
    """The tensors of one shard (docs/dataset-format.md) and its counts."""
    recs = [d for deal in deals for d in deal["decisions"]]
    split_index = {name: i for i, name in enumerate(SPLITS)}
    t: dict[str, np.ndarray] = {
        "deal_id": np.array([d["deal_id"] for d in deals], np.int64),
        "deal_seed": np.array([d["deal_seed"] for d in deals], np.int64),
        "deal_split": np.array([split_index[d["split"]] for d in deals], np.int8),
        "deal_payoffs": np.array([d["payoffs"] for d in deals], np.float32).reshape(len(deals), NUM_SEATS[config.game]),
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
    out: str
    git_sha: str
    stamp: dict


def _agent_seed(config: RunConfig, index: int, who: int) -> int:
    return splitmix64(splitmix64(config.seed & _MASK64) ^ (index << 2 | who)) >> 1


def make_shard(task: _ShardTask, on_deal=None) -> dict:
    """Play one shard's deals and write its file atomically; returns its manifest entry.
    Agents are built per shard from seeds derived from (seed, shard), which is what makes
    the bytes independent of which worker plays the shard."""
    config = task.config
    teacher = agents.make(config.teacher, _agent_seed(config, task.index, 1))
    mixer = agents.make(config.mix["spec"], _agent_seed(config, task.index, 2)) if config.mix else None
    deals = []
    for i in config.shard_deals(task.index):
        deals.append(play_deal(config, i, teacher, mixer))
        if on_deal is not None:
            on_deal(1)
    tensors, counts = pack(config, deals)
    span = config.shard_deals(task.index)
    info = {"run": asdict(config), "index": task.index, "deals": [span.start, span.stop],
            "counts": counts, "git_sha": task.git_sha, "provenance": task.stamp,
            "num_seats": NUM_SEATS[config.game], "roles": list(ROLES[config.game]),
            "splits": list(SPLITS), "choosers": list(CHOOSERS),
            "move_encoding": "text" if config.game == "doudizhu" else "cards"}
    blob = shards.shard_bytes(tensors, info)
    shards.write_atomic(Path(task.out) / shard_name(task.index), blob)
    return _entry(task.index, blob, info)


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
        **asdict(config),
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
    return UserError(f"--out {out} holds a different run ({diff}); choose another --out or "
                     "rerun with the same arguments")


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
        if info.get("run") != asdict(config):
            raise _different_run(out, info.get("run") or {}, asdict(config))
        if info.get("git_sha") == git_sha:
            done[int(match.group(1))] = _entry(int(match.group(1)), path.read_bytes(), info)
    return done


def generate(out, game: str, teacher: str, deals: int, seed: int = 0, mix: str | None = None,
             workers: int | None = None, temperature: float | None = None,
             deals_per_shard: int = DEALS_PER_SHARD, eval_dir=None, progress: bool = True) -> dict:
    """Generate (or finish) the dataset in `out`; returns its manifest. `temperature` None
    is the game's GAME_TEMPERATURE."""
    if game not in GAMES:
        raise UserError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    if temperature is None:
        temperature = GAME_TEMPERATURE[game]
    if not isinstance(deals, int) or not 0 < deals <= TRAIN_SEED_PRIME:
        raise UserError(f"--deals must be a positive number of deals, got {deals}")
    if workers is not None and workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    if not temperature >= 0.0:
        raise UserError(f"temperature must be >= 0, got {temperature}")
    mixed = parse_mix(mix)
    teacher_name = agents.parse_spec(teacher).name
    if teacher_name in NOT_TEACHERS:
        raise UserError(f"--teacher {teacher!r}: {NOT_TEACHERS[teacher_name]}")
    if mixed and agents.parse_spec(mixed[0]).name == "human":
        raise UserError("--mix human: generation runs unattended; a person cannot choose moves here")
    config = RunConfig(game, dict(DEFAULT_RULES[game]), agents.parse_spec(teacher).text,
                       {"spec": mixed[0], "fraction": mixed[1]} if mixed else None,
                       float(temperature), int(seed), deals, deals_per_shard)
    eval_check = check_eval_overlap([deal_seed(seed, i) for i in range(deals)],
                                    EVAL_DIR if eval_dir is None else eval_dir)
    agents.make(config.teacher, 0)  # a bad or unavailable spec fails here, once, not in every worker
    if mixed:
        agents.make(mixed[0], 0)

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file, not a directory")
    out.mkdir(parents=True, exist_ok=True)
    git_sha = provenance.git_sha()
    if (out / MANIFEST).exists():
        try:
            manifest = json.loads((out / MANIFEST).read_text())
        except (OSError, ValueError) as exc:
            raise UserError(f"{out / MANIFEST} is unreadable ({exc})") from None
        if not isinstance(manifest, dict):
            raise UserError(f"{out / MANIFEST} is unreadable (not a JSON object)")
        if {k: manifest.get(k) for k in asdict(config)} != asdict(config):
            raise _different_run(out, manifest, asdict(config))
        dataset.open(out)  # finished already: prove it intact rather than silently trust it
        if progress:
            print(f"{out}: complete already ({manifest['counts']['decisions']} decisions)")
        return manifest
    done = _finished_shards(out, config, git_sha)
    names = [p.name for p in out.iterdir()]
    if names and not any(_SHARD_NAME.match(n) for n in names):
        raise UserError(f"--out {out} is not empty and holds no dataset; choose an empty or new directory")

    stamp = _stamp(seed)
    tasks = [_ShardTask(config, i, str(out), git_sha, stamp) for i in range(config.num_shards) if i not in done]
    workers = min(workers or os.cpu_count() or 1, max(1, len(tasks)))
    from tqdm import tqdm
    with tqdm(total=deals, initial=sum(e["counts"]["deals"] for e in done.values()), unit="deal",
              desc="generate", disable=not progress) as bar:
        if workers == 1:
            for task in tasks:
                entry = make_shard(task, on_deal=bar.update)
                done[entry["index"]] = entry
        else:
            # spawn, not fork: a teacher may hold threads (torch, MLX) that fork would break.
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                for entry in pool.imap_unordered(make_shard, tasks):
                    done[entry["index"]] = entry
                    bar.update(entry["counts"]["deals"])
    manifest = _manifest(config, [done[i] for i in range(config.num_shards)], git_sha, stamp, eval_check)
    shards.write_atomic(out / MANIFEST, manifest_bytes(manifest))
    return manifest


def run(args) -> int:
    """`openlandlord generate`."""
    manifest = generate(args.out, args.game, args.teacher, args.deals, seed=args.seed, mix=args.mix,
                        workers=args.workers, temperature=getattr(args, "temperature", None))
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


def measure(game: str, teacher: str, mix: dict | None = None, seconds: float = 20.0) -> dict:
    """Generate deals in this process for about `seconds`, recording and packing them as a
    run does (nothing is written), and time it."""
    import platform

    config = RunConfig(game, dict(DEFAULT_RULES[game]), teacher, mix, GAME_TEMPERATURE[game], 0,
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
        "game": game, "teacher": teacher, "mix": mix, "deals": packed + len(deals),
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
    result = measure(args.game, teacher, mix, args.seconds or 20.0)
    print(f"generate bench ({args.game}, teacher {teacher}{', mix ' + mix['spec'] if mix else ''}): "
          f"{result['decisions']} decisions in {result['seconds']:.1f} s on one core = "
          f"{result['decisions_per_s']:.0f} decisions/s (teacher {100 * result['teacher_share']:.0f}% of the time)")
    print(f"35,000 decisions on {result['cores']} cores: ~{result['projected_s_35k']:.0f} s "
          f"(target <= {BENCH_TARGET_S} s with the PIMC teacher); everything but the teacher costs "
          f"{result['non_teacher_ms_per_decision']:.3f} ms per decision, leaving a teacher "
          f"{result['teacher_budget_ms_per_decision']:.1f} ms per decision per core")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return 0

"""The mirrored-seat arena behind `openlandlord eval`: one agent against another on a deal
set, with the luck of the deal taken out and a confidence interval on every figure.

Mirroring. Dou Dizhu: every deal is played three times, the agent under test in seat 0, 1
and 2 in turn and the opponent in the two other seats (the same bidding flow for both).
Shengji: every deal is played twice, the agent's partnership on seats (0, 2) and then on
(1, 3); the dealer is seat `deal_index % 4`, so it rotates over all four seats. A Shengji
deal set with `"mode": "match"` plays whole campaigns (levels 2 to past A) the same way.
The mirror is the game spec's (`seatings`, `outcome`: openlandlord/games/<game>/spec.py), and
every game is driven by the one decision loop (`openlandlord.agents.loop`). Statistics are
taken per original deal (`eval.stats`).

What a game counts for the agent: Dou Dizhu, a win for its side and its signed score
(payoff); Shengji, a win for its team, its score in levels (+ levels its team went up, -
levels the other team went up) and its points (attacker points its team captured when
attacking, minus those it conceded when declaring); a match, a win for the team that went
past A and the final level margin as its score; a void Dou Dizhu deal (nobody bid) has
role "void", score 0 and counts half a win. Tail losses: Dou Dizhu games lost with a
bomb or rocket played, or to a spring / anti-spring; Shengji deals where the agent declared
and the attackers reached 120 points; and the worst and 5th-percentile game scores.

Seeding, so that results are identical whatever the worker count and concurrency: the
games of a deal set are split over processes, deal by deal, and every game gets its own
agents built by `openlandlord.agents.make(spec, seed)` with a seed derived from
(run seed, deal seed, copy, side); nothing random is shared between games. The exception
is an agent with `scores_batch` (below): it is built once per worker process and shared by
all that worker's games, so it must score a position the same whatever else is in the
batch and whatever it scored before (a network at argmax does). An agent that is costly
to build (one that loads weights) should therefore offer `scores_batch`: without it, it is
built again for every game. `--seed` chooses the ad-hoc deals and seeds the agents'
randomness and the bootstrap.

Batching. An agent MAY offer

    def scores_batch(self, items: list[tuple[obs, legal]]) -> list[np.ndarray]

returning, for each (observation, legal move list) pair, exactly what `scores(obs, legal)`
would. The arena then advances many games at once in each worker (`LANES`) and, at every
step, hands all that agent's pending decisions across those games to one `scores_batch`
call: one forward pass for a neural student instead of one per move.

Decisions with a single legal move are played without asking the agent. A Shengji
follow with more legal plays than the referee lists (the spec's `legal_cap`, 256; a void
seat answering a tractor) is built card by card, as datasets record it, through the
referee's `factored_options(prefix)`: the agent's own `choose_play(obs)` builds it when the
agent has one, otherwise the agent scores the one-card-longer prefixes (and, for a lead that
could stop here, the prefix itself: the referee's END option) as if they were moves, until
the play is complete.
"""
from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections import defaultdict

import numpy as np
from tqdm import tqdm

from openlandlord import artefacts
from openlandlord.agents import answer, checked_choice, decisions, describe, make, parse_spec, prepare
from openlandlord.errors import UserError
from openlandlord.executor import run_tasks
from openlandlord.games import Seating, game_options, spec as game_spec
from openlandlord.provenance import git_sha

from . import dealsets, ledger, stats

POINTS_NOTE = ("score: levels the agent's team went up (+) or let the other team go up (-); "
               "points: attacker points it captured (+) or conceded (-)")
LANES = 256         # games advanced together per worker when an agent batches
SIDES = ("agent", "opponent")


# --- playing: one worker's share of the games ------------------------------------------------

_PROTOTYPES: dict[tuple[str, int], object] = {}


def _prototype(spec: str, seed: int):
    """The agent built once per run and worker process for `spec` (shared only if it
    batches)."""
    key = (spec, seed)
    if key not in _PROTOTYPES:
        _PROTOTYPES[key] = make(spec, seed)
    return _PROTOTYPES[key]


def agent_seed(run_seed: int, seating: Seating, side: int) -> int:
    """The seed of the agent playing `side` (0 agent, 1 opponent) in one game."""
    return int(np.random.SeedSequence([run_seed, seating.seed, seating.copy, side])
               .generate_state(1)[0])


class _Table:
    """One game in progress: its decision loop, the decision it waits on, and the agent
    object behind each seat."""

    def __init__(self, game, seating: Seating, specs: tuple[str, str], run_seed: int,
                 keep: bool = False):
        self.seating = seating
        self.state = game.new_game(seating.seed, **dict(seating.options))
        # keep: the game's record (every move and the mover's scores) for replays
        self.recorder = None
        if keep:
            from openlandlord.web.records import Recorder
            sides = [0 if s in seating.agent_seats else 1 for s in range(self.state.num_seats)]
            self.recorder = Recorder(game.name, dict(seating.options), seating.seed,
                                     [specs[side] for side in sides], "eval")
        self.loop = decisions(self.state, game.legal_cap,
                              self.recorder.on_move if self.recorder else None)
        self.moves = None          # set when the game is over
        agents = []
        for side, spec in enumerate(specs):
            proto = _prototype(spec, run_seed + side)
            agents.append(proto if hasattr(proto, "scores_batch")
                          else make(spec, agent_seed(run_seed, seating, side)))
        self.side_of_seat = [0 if s in seating.agent_seats else 1
                             for s in range(self.state.num_seats)]
        self.agent_of_seat = [agents[side] for side in self.side_of_seat]
        self.decision = self._advance(None, first=True)

    def _advance(self, answer, first: bool = False):
        try:
            return next(self.loop) if first else self.loop.send(answer)
        except StopIteration as stop:
            self.moves = stop.value
            return None

    def build(self):
        """Answer a decision whose legal set is too large to list, to the end of the play:
        the agent's own `choose_play`, or its scores card by card."""
        agent = self.agent_of_seat[self.decision.seat]
        self.decision = self._advance(answer(agent, self.decision))
        while self.decision is not None and self.decision.prefix is not None:
            self.decision = self._advance(answer(agent, self.decision))

    def play(self, pick: int, scores=None):
        if self.recorder is not None and self.decision.prefix is None:
            self.recorder.on_scores(self.decision.legal, scores)
        self.decision = self._advance(pick)


def play_games(game: str, seatings: list[Seating], specs: tuple[str, str], run_seed: int,
               on_game_over=None, keep: bool = False) -> tuple[list[dict], dict]:
    """Play `seatings` to the end; return one record per game (in the order given) and the
    time spent deciding, per side: {side: [seconds, decisions]}. `on_game_over()` is called
    as each game ends (the progress bar). With `keep`, each record also holds the game's
    replayable record (`game_record`: openlandlord.web.records' format)."""
    game = game_spec(game)
    batched = any(hasattr(_prototype(spec, run_seed + side), "scores_batch")
                  for side, spec in enumerate(specs))
    lanes = LANES if batched else 1
    timing = {side: [0.0, 0] for side in SIDES}
    records: dict[int, dict] = {}
    waiting = list(enumerate(seatings))[::-1]
    tables: list[tuple[int, _Table]] = []
    while tables or waiting:
        while waiting and len(tables) < lanes:
            index, seating = waiting.pop()
            tables.append((index, _Table(game, seating, specs, run_seed, keep)))
        pending = defaultdict(list)          # agent object -> [table]
        for index, table in tables:
            decision = table.decision
            if decision is None:
                continue
            side = SIDES[table.side_of_seat[decision.seat]]
            if decision.legal is None:
                started = time.perf_counter()
                table.build()
                timing[side][0] += time.perf_counter() - started
                timing[side][1] += 1
                continue
            pending[id(table.agent_of_seat[decision.seat])].append(table)
        for group in pending.values():
            agent = group[0].agent_of_seat[group[0].decision.seat]
            side = SIDES[group[0].side_of_seat[group[0].decision.seat]]
            items = [(t.decision.obs, t.decision.legal) for t in group]
            started = time.perf_counter()
            if hasattr(agent, "scores_batch"):
                all_scores = agent.scores_batch(items)
            else:
                all_scores = [agent.scores(obs, legal) for obs, legal in items]
            picks = [checked_choice(agent, s, legal) for s, (_, legal) in zip(all_scores, items)]
            timing[side][0] += time.perf_counter() - started
            timing[side][1] += len(group)
            for pick, table, scores in zip(picks, group, all_scores):
                table.play(pick, scores)
        still = []
        for index, table in tables:
            if table.decision is None:
                record = game.outcome(table.state, table.seating)
                record.update(deal=table.seating.deal, copy=table.seating.copy,
                              seed=table.seating.seed, agent_seats=list(table.seating.agent_seats),
                              moves=table.moves)
                if table.recorder is not None:
                    record["game_record"] = table.recorder.record(
                        table.state, deal=table.seating.deal, copy=table.seating.copy,
                        agent_seats=list(table.seating.agent_seats))
                records[index] = record
                if on_game_over is not None:
                    on_game_over()
            else:
                still.append((index, table))
        tables = still
    return [records[i] for i in range(len(seatings))], timing


def _play_chunk(job, report):
    """One executor task: a chunk of whole deals of one pair, played to the end."""
    key, game, seatings, specs, run_seed, keep = job
    records, timing = play_games(game, seatings, specs, run_seed, on_game_over=lambda: report(1),
                                 keep=keep)
    return key, records, timing


def _fresh_agents():
    # Agents live for one run: a checkpoint rewritten between two runs is read again.
    _PROTOTYPES.clear()


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def play_pairs(deal_set: dealsets.DealSet, pairs: list[tuple[str, str]], seed: int,
               workers: int | None = None, progress: bool = True, backend: str = "local",
               address: str | None = None, protocol: str = "mirror",
               keep: bool = False) -> list[tuple[list[dict], dict]]:
    """Play every (agent, opponent) pair of `pairs` on the whole deal set, over `workers`
    processes (local, or Ray tasks with `backend="ray"`: `openlandlord.executor`); per pair,
    the game records sorted by (deal, copy) and the timing per side.

    Each worker gets two chunks of whole deals per pair: big chunks keep many games in
    flight for a batching agent, two per worker even out the load."""
    game = game_spec(deal_set.game)
    cap = workers if backend == "ray" else None     # Ray: --workers as given, else the cluster's
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    for spec in dict.fromkeys(spec for pair in pairs for spec in pair):
        prepare(spec)     # once here: workers importing rlcard together raced to unpack its data
    by_deal = [game.protocol_seatings(protocol, d, s, deal_set.options)
               for d, s in enumerate(deal_set.seeds)]
    per_job = max(1, math.ceil(len(by_deal) / (2 * workers))) if workers > 1 else len(by_deal)
    jobs = []
    for p, specs in enumerate(pairs):
        for start in range(0, len(by_deal), per_job):
            chunk = [s for deal in by_deal[start:start + per_job] for s in deal]
            jobs.append(((p, start), deal_set.game, chunk, tuple(specs), seed, keep))
    results = {}
    total_games = sum(len(job[2]) for job in jobs)
    bar = tqdm(total=total_games, unit="game",
               disable=not progress or None, desc=f"eval {deal_set.game}", file=sys.stderr)
    try:
        # Closed at once on any exception (an interrupt): the workers stop now, not at exit.
        with contextlib.closing(run_tasks(_play_chunk, jobs, workers=cap if backend == "ray" else workers,
                                          backend=backend, address=address, on_progress=bar.update,
                                          initializer=_fresh_agents)) as finished:
            for _, (key, records, timing) in finished:
                results[key] = (records, timing)
    finally:
        _fresh_agents()
        bar.close()
    out = []
    for p in range(len(pairs)):
        records, timing = [], {side: [0.0, 0] for side in SIDES}
        for job in sorted(j for j in results if j[0] == p):
            chunk_records, chunk_timing = results[job]
            records.extend(chunk_records)
            for side in SIDES:
                timing[side][0] += chunk_timing[side][0]
                timing[side][1] += chunk_timing[side][1]
        out.append((records, timing))
    return out


# --- the figures -------------------------------------------------------------------------

def per_deal(records: list[dict], key: str) -> np.ndarray:
    """The agent's mean of `key` over its copies of each deal, in deal order."""
    sums: dict[int, list[float]] = defaultdict(list)
    for r in records:
        sums[r["deal"]].append(r[key])
    return np.array([np.mean(sums[d]) for d in sorted(sums)])


def per_deal_role(records: list[dict], keys: tuple) -> dict:
    """{role: {"deal": [deal indices], key: [the agent's mean of key in that role]}}: `per_deal`
    by role, over the deals where the agent played the role (a bidding flow decides who is
    landlord), so that `compare` can pair two evaluations role by role."""
    out = {}
    for role in sorted({r["role"] for r in records}):
        games = [r for r in records if r["role"] == role]
        out[role] = {"deal": sorted({r["deal"] for r in games}),
                     **{key: per_deal(games, key).tolist() for key in keys}}
    return out


SLICE_ORDER = "23456789TJQKA"


def _slice_order(value: str):
    return (SLICE_ORDER.index(value), value) if value in SLICE_ORDER else (len(SLICE_ORDER), value)


def bidding_summary(records: list[dict], seed: int) -> dict:
    """What the bidding made of the agent's games, from each record's `bidding` (a game with
    a bidding phase; Dou Dizhu `points` and `call-rob`, Shengji `classic`): every 0.0/1.0
    entry (a float) as a rate with its 95% CI over deals (`landlord_rate`, `void_rate`,
    `doubled_rate`, each over the games that record it), every integer entry as its
    distribution (`stake`: share of games per base stake; `buried_points`) and mean, even
    when every game's value happens to be 0 or 1."""
    bids = [r for r in records if "bidding" in r]
    if not bids:
        return {}
    out: dict = {"games": len(bids)}
    for key in sorted({k for r in bids for k in r["bidding"]}):
        games = [dict(r, value=float(r["bidding"][key])) for r in bids if key in r["bidding"]]
        values = [g["value"] for g in games]
        if set(values) <= {0.0, 1.0} and not any(isinstance(r["bidding"][key], int)
                                                  for r in bids if key in r["bidding"]):
            mean, ci = stats.paired_bootstrap(per_deal(games, "value"), seed=seed)
            out[f"{key}_rate"], out[f"{key}_rate_ci95"] = mean, ci
        else:
            counts = defaultdict(int)
            for v in values:
                counts[v] += 1
            out[key] = {f"{v:g}": counts[v] / len(values) for v in sorted(counts)}
            out[f"mean_{key}"] = float(np.mean(values))
    return out


def summarize(records: list[dict], timing: dict, seed: int) -> dict:
    """Every figure of one evaluation, from its game records."""
    def with_ci(prefix, values, s):
        mean, ci = stats.paired_bootstrap(values, seed=s)
        return {prefix: mean, f"{prefix}_ci95": ci}

    out = {"games": len(records), "deals": len({r["deal"] for r in records})}
    out.update(with_ci("win_rate", per_deal(records, "win"), seed))
    out.update(with_ci("mean_score", per_deal(records, "score"), seed + 1))
    if records and "points" in records[0]:
        out.update(with_ci("mean_points", per_deal(records, "points"), seed + 2))
    def sliced(key_of, order=sorted) -> dict:
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in records:
            groups[key_of(r)].append(r)
        table = {}
        for name in order(groups):
            games = groups[name]
            entry = {"games": len(games)}
            entry.update(with_ci("win_rate", per_deal(games, "win"), seed + 3))
            entry.update(with_ci("mean_score", per_deal(games, "score"), seed + 4))
            if "points" in games[0]:
                entry.update(with_ci("mean_points", per_deal(games, "points"), seed + 5))
            table[name] = entry
        return table

    out["per_role"] = sliced(lambda r: r["role"])
    # A game's own slices (Shengji: the trump rank), each a table `per_<slice>` beside
    # per_role, in the game's order (SLICE_ORDER), then by role within each value.
    for name in sorted({k for r in records for k in r.get("slices", {})}):
        out[f"per_{name}"] = sliced(lambda r: r["slices"][name], lambda g: sorted(g, key=_slice_order))
        out[f"per_{name}_role"] = sliced(lambda r: f"{r['slices'][name]} {r['role']}",
                                         lambda g: sorted(g, key=lambda k: (_slice_order(k.split()[0]), k)))
    bidding = bidding_summary(records, seed + 6)
    if bidding:
        out["bidding"] = bidding
    tails = sorted({k for r in records for k in r["tail"]})
    scores = np.array([r["score"] for r in records])
    out["tail"] = {k: float(np.mean([r["tail"].get(k, 0.0) for r in records])) for k in tails}
    out["tail"].update(worst_score=float(scores.min()), score_p05=float(np.quantile(scores, 0.05)))
    seats = defaultdict(int)
    for r in records:
        for s in r["agent_seats"]:
            seats[str(s)] += 1
    out["seat_games"] = dict(sorted(seats.items()))
    out["timing"] = {side: {"decisions": n, "ms_per_decision": 1000.0 * t / n if n else None}
                     for side, (t, n) in timing.items()}
    out["moves"] = int(sum(r["moves"] for r in records))
    return out


def engine_line(engine: dict) -> str:
    """One side's `engines` entry as text: its weights' SHA-256 cut to 12 digits, a student
    that a search consults (`leaf`, `belief`) after its key."""
    return ", ".join(f"{k} {engine_line(v)}" if isinstance(v, dict)
                     else f"{k} {v[:12] if k.endswith('sha256') else v}" for k, v in engine.items())


def evaluate(game: str, agent: str, opponent: str, deal_set: dealsets.DealSet, seed: int = 0,
             workers: int | None = None, progress: bool = True, backend: str = "local",
             address: str | None = None, protocol: str = "mirror",
             keep: bool = False) -> tuple[dict, list[dict]]:
    """One evaluation, seated by `protocol` (the kit's mirror, or a game's published one:
    Dou Dizhu `douzero`); returns (result, game records). With `keep`, every game record
    also holds its replayable record (`game_record`)."""
    for spec in (agent, opponent):
        parse_spec(spec)
    if deal_set.game != game:
        raise UserError(f"deal set {deal_set.name!r} is for {deal_set.game}, not {game}")
    if seed is None or seed < 0:
        raise UserError(f"--seed must be a non-negative integer, got {seed}")
    started = time.perf_counter()
    game_spec(game).protocol_seatings(protocol, 0, 0, deal_set.options)   # refused before any game
    # What each side plays with beyond its spec (a student's weights and engine), read before
    # the games, as this process resolves it.
    engines = {"agent": describe(agent), "opponent": describe(opponent)}
    (records, timing), = play_pairs(deal_set, [(agent, opponent)], seed, workers, progress,
                                    backend, address, protocol, keep)
    result = {"game": game, "agent": agent, "opponent": opponent, "deal_set": deal_set.describe(),
              "seed": seed, "mode": deal_set.options.get("mode", "deal"), "engines": engines}
    if protocol != "mirror":
        result["protocol"] = protocol
    result.update(summarize(records, timing, seed))
    if protocol == "douzero":
        # DouZero's table: WP, the share of games won, and ADP, the mean of the agent's points
        # (+-2 x 2^(bombs + rockets), no spring), both with paired bootstrap CIs over deals.
        wp, wp_ci = stats.paired_bootstrap(per_deal(records, "win"), seed=seed + 7)
        adp, adp_ci = stats.paired_bootstrap(per_deal(records, "douzero_points"), seed=seed + 8)
        result.update(wp=wp, wp_ci95=wp_ci, adp=adp, adp_ci95=adp_ci)
    keys = ("win", "score") + (("points",) if records and "points" in records[0] else ()) \
        + (("douzero_points",) if protocol == "douzero" else ())
    result.update(per_deal={key: per_deal(records, key).tolist() for key in keys},
                  per_deal_role=per_deal_role(records, keys),
                  workers=default_workers() if workers is None else workers,
                  seconds=time.perf_counter() - started, git_sha=git_sha())
    return result, records


def resolve_deal_set(game: str, deals: int | None, deal_set: str | None, seed: int,
                     options: dict | None = None) -> dealsets.DealSet:
    """The named deal set, or the ad-hoc one of `deals` deals with the game `options` (a
    named set carries its own options: given ones must agree with it)."""
    if deal_set is not None:
        found = dealsets.load(deal_set, game)
        wanted = game_spec(game).recorded_options(options or {})
        held = game_spec(game).recorded_options(found.options)
        clash = {k: v for k, v in (options or {}).items() if k in held and held[k] != wanted[k]}
        if clash:
            raise UserError(f"deal set {deal_set!r} plays {held}, not "
                            + ", ".join(f"{k}={v}" for k, v in clash.items()))
        return found
    return dealsets.adhoc(game, deals, seed, options)


def bidding_line(b: dict) -> str:
    parts = [f"{k[:-5]} {b[k]:.3f} [{b[k + '_ci95'][0]:.3f}, {b[k + '_ci95'][1]:.3f}]"
             for k in b if k.endswith("_rate")]
    for k, v in b.items():
        if isinstance(v, dict):
            parts.append(f"{k} " + " ".join(f"{x}: {share:.0%}" for x, share in v.items()))
    return ", ".join(parts)


def format_table(result: dict) -> str:
    """The readable summary printed on the terminal."""
    def ci(entry, key):
        lo, hi = entry[f"{key}_ci95"]
        return f"{entry[key]:+.3f} [{lo:+.3f}, {hi:+.3f}]"

    def rate(entry):
        lo, hi = entry["win_rate_ci95"]
        return f"{entry['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]"

    points = "mean_points" in result
    lines = [f"{result['agent']} vs {result['opponent']} ({result['game']}, "
             f"{result['deal_set']['name']}: {result['deals']} "
             f"{'matches' if result['mode'] == 'match' else 'deals'}, {result['games']} games)",
             f"{'':14}{'games':>7}  {'win rate [95% CI]':<24}{'mean score [95% CI]':<27}"
             + ("mean points [95% CI]" if points else "")]
    rows = [("all", result)] + list(result["per_role"].items())
    rows += [(f"trump {name}", entry) for name, entry in result.get("per_trump", {}).items()]
    for name, entry in rows:
        lines.append(f"{name:<14}{entry['games']:>7}  {rate(entry):<24}{ci(entry, 'mean_score'):<27}"
                     + (ci(entry, "mean_points") if points else ""))
    if points:
        lines.append(POINTS_NOTE)
    tail = ", ".join(f"{k} {v:.3g}" for k, v in result["tail"].items())
    lines.append(f"tail: {tail}")
    if "bidding" in result:
        lines.append("bidding: " + bidding_line(result["bidding"]))
    if "adp" in result:
        lines.append(f"DouZero's protocol: WP {result['wp']:.3f} [{result['wp_ci95'][0]:.3f}, "
                     f"{result['wp_ci95'][1]:.3f}], ADP {result['adp']:.3f} "
                     f"[{result['adp_ci95'][0]:.3f}, {result['adp_ci95'][1]:.3f}]")
    lines.append("time per decision: " + ", ".join(
        f"{side} {t['ms_per_decision']:.3f} ms ({t['decisions']})" if t["decisions"] else f"{side} -"
        for side, t in result["timing"].items()))
    for side, engine in result.get("engines", {}).items():
        if engine:
            lines.append(f"{side}: {engine_line(engine)}")
    lines.append(f"git {result['git_sha']}, {result['seconds']:.1f} s on {result['workers']} worker(s)")
    return "\n".join(lines)


def ledger_figures(result: dict) -> dict:
    """The result as the ledger keeps it: every figure, without the per-deal arrays."""
    return {k: v for k, v in result.items() if k not in ("per_deal", "per_deal_role")}


def explicit_options(args) -> dict:
    """The game options given on the command line (validated), without defaults for the
    ones not given: a named deal set keeps its own."""
    options = game_options(args.game, args)
    return {k: v for k, v in options.items() if getattr(args, k, None) is not None}


def write_outputs(args, result: dict, report_writer: str) -> None:
    """An evaluation's or a league's `--json` file and `--report` folder (`report_writer`: the
    name of its function in eval/report.py), each whole: the command holds their locks and
    has checked them already (artefacts.exclusive_outputs)."""
    if args.json:
        artefacts.write_json(args.json, result)
    if args.report:
        from . import report
        with artefacts.staged_folder(args.report, force=True, flag="--report") as staging:
            getattr(report, report_writer)(result, str(staging))
        print(f"report: {os.path.join(args.report, 'report.md')}")


def run(args) -> int:
    """`openlandlord eval`."""
    if args.deals is not None and args.deals <= 0:
        raise UserError(f"--deals must be a positive number of deals, got {args.deals}")
    outputs = [(args.json, "--json", False), (args.report, "--report", True)]
    with artefacts.exclusive_outputs(outputs, getattr(args, "force", False)):
        deal_set = resolve_deal_set(args.game, args.deals, args.deal_set, args.seed,
                                    explicit_options(args))
        result, games = evaluate(args.game, args.agent, args.opponent, deal_set, args.seed,
                             args.workers, progress=True, backend=getattr(args, "backend", "local"),
                             address=getattr(args, "address", None),
                             protocol=getattr(args, "protocol", None) or "mirror",
                             keep=not getattr(args, "no_records", False))
        print(format_table(result))
        write_outputs(args, result, "write_eval_report")
        if not getattr(args, "no_records", False):
            from . import records     # every game, kept for the web table's replays
            result["records"] = records.save_games(games, getattr(args, "ledger", None))
            print(f"records: {result['records']}")
        ledger.append("eval", game=args.game, agents=[args.agent, args.opponent],
                      deal_set=result["deal_set"], counts={"deals": result["deals"], "games": result["games"]},
                      result=ledger_figures(result), seeds={"seed": args.seed},
                      path=getattr(args, "ledger", None))
    return 0

"""`openlandlord league`: a round robin of mirrored evaluations and the Elo ladder it implies.

Every pair (A, B) plays the same deal set through the arena, A as the agent under test and
B in the other seats; in Dou Dizhu, where that is not the same as B under test (one seat
against two), also the other way round. A deal counts as won by A when A's total score over
its games of the deal is above zero (half a win each at exactly zero; the games are
zero-sum, so B's total is then below zero). Bradley-Terry strengths are fitted to those
deal wins (`eval.stats.bradley_terry`) and put on the Elo scale, zero at the anchor agent
(`args.anchor` when given) or at the mean; the CIs resample deals, the same deals for
every pair.
"""
from __future__ import annotations

import time

from openlandlord import artefacts
from openlandlord.agents import describe, parse_spec
from openlandlord.errors import UserError
from openlandlord.games import spec as game_spec
from openlandlord.provenance import git_sha

from . import arena, dealsets, ledger, stats


def play_league(game: str, agents: list[str], deal_set: dealsets.DealSet, seed: int = 0,
                workers: int | None = None, anchor: str | None = None,
                progress: bool = True, backend: str = "local", address: str | None = None) -> dict:
    if len(agents) < 2:
        raise UserError("a league needs at least two agents")
    for spec in agents:
        parse_spec(spec)
    if len(set(agents)) != len(agents):
        raise UserError(f"an agent is listed twice in the league: {' '.join(agents)}")
    if deal_set.game != game:
        raise UserError(f"deal set {deal_set.name!r} is for {deal_set.game}, not {game}")
    if anchor is not None and anchor not in agents:
        raise UserError(f"anchor {anchor!r} is not one of the league's agents")
    started = time.perf_counter()
    # What each agent plays with beyond its spec (a student's weights and engine), as in eval.
    engines = {spec: describe(spec) for spec in agents}
    pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    if not game_spec(game).symmetric:
        pairs += [(j, i) for i, j in pairs]
    played = arena.play_pairs(deal_set, [(agents[i], agents[j]) for i, j in pairs], seed,
                              workers, progress, backend, address)
    outcomes, pair_results = {}, []
    for (i, j), (records, timing) in zip(pairs, played):
        # Zero-sum games: what j won as the agent under test, i lost.
        sign = 1.0 if i < j else -1.0
        key = (min(i, j), max(i, j))
        outcomes[key] = outcomes.get(key, 0.0) + sign * arena.per_deal(records, "score")
        summary = arena.summarize(records, timing, seed)
        pair_results.append({"agent": agents[i], "opponent": agents[j],
                             **{k: summary[k] for k in ("games", "win_rate", "win_rate_ci95",
                                                         "mean_score", "mean_score_ci95")}})
    ratings = stats.league_ratings(outcomes, len(agents),
                                   anchor=agents.index(anchor) if anchor else None, seed=seed)
    ladder = [{"agent": a, "elo": e, "elo_ci95": ci}
              for a, e, ci in zip(agents, ratings["elo"], ratings["elo_ci95"])]
    return {"game": game, "agents": list(agents), "deals": len(deal_set.seeds),
            "deal_set": deal_set.describe(), "seed": seed, "anchor": anchor,
            "ladder": sorted(ladder, key=lambda row: -row["elo"]), "pairs": pair_results,
            "deal_wins": ratings["wins"], "engines": engines,
            "seconds": time.perf_counter() - started,
            "git_sha": git_sha()}


def format_table(result: dict) -> str:
    lines = [f"league ({result['game']}, {result['deals']} deals per pair, "
             f"Elo 0 = {result['anchor'] or 'mean'})",
             f"{'rank':>4}  {'Elo [95% CI]':<22}agent"]
    for rank, row in enumerate(result["ladder"], 1):
        lo, hi = row["elo_ci95"]
        lines.append(f"{rank:>4}  {row['elo']:+6.0f} [{lo:+.0f}, {hi:+.0f}]".ljust(28) + row["agent"])
    for pair in result["pairs"]:
        lo, hi = pair["mean_score_ci95"]
        lines.append(f"  {pair['agent']} vs {pair['opponent']}: win rate {pair['win_rate']:.3f}, "
                     f"mean score {pair['mean_score']:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    for agent, engine in result.get("engines", {}).items():
        if engine:
            lines.append(f"  {agent}: {arena.engine_line(engine)}")
    lines.append(f"git {result['git_sha']}, {result['seconds']:.1f} s")
    return "\n".join(lines)


def run(args) -> int:
    """`openlandlord league`."""
    deal_set_name = getattr(args, "deal_set", None)
    if deal_set_name is None and (args.deals is None or args.deals <= 0):
        raise UserError(f"--deals must be a positive number of deals, got {args.deals}")
    outputs = [(args.json, "--json", False), (args.report, "--report", True)]
    with artefacts.exclusive_outputs(outputs, getattr(args, "force", False)):
        deal_set = arena.resolve_deal_set(args.game, args.deals, deal_set_name, args.seed,
                                          arena.explicit_options(args))
        result = play_league(args.game, args.agents, deal_set, args.seed,
                             getattr(args, "workers", None), getattr(args, "anchor", None),
                             backend=getattr(args, "backend", "local"),
                             address=getattr(args, "address", None))
        print(format_table(result))
        arena.write_outputs(args, result, "write_league_report")
        ledger.append("league", game=args.game, agents=args.agents, deal_set=result["deal_set"],
                      counts={"deals": result["deals"], "pairs": len(result["pairs"]),
                              "games": sum(p["games"] for p in result["pairs"])},
                      result=result, seeds={"seed": args.seed}, path=getattr(args, "ledger", None))
    return 0

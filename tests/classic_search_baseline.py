"""Figures of the `classic` Shengji engine that a speed-up must not change: the PIMC teacher's
scores of seeded positions (play, throws and the burial), the exact solver's values and node
counts on seeded endgames, and the native rule rounds' scores.

`python tests/classic_search_baseline.py > tests/data/classic-search-baseline.json` recorded
them at git a6695db, before the trick-format fast paths (`_trick.pyx` scan_play, the
one-card-id formats and keys, the category-only reads of unit_beaten); the test
tests/test_classic_search_unchanged.py computes them again and compares, bit for bit.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

POSITION_DEALS = 3
SEARCH_WORLDS = 8
SOLVE_GAMES = 6
RULE_ROUNDS = 200


def search_scores() -> list:
    """The teacher's scores at every other play and burial decision of seeded rule:expert
    classic deals: `pimc.decision(...).search` over all moves, 8 worlds, rule rollouts."""
    from openlandlord.games.shengji import pimc
    from test_pimc_classic import _classic_positions
    out = []
    for obs, legal in _classic_positions(deals=POSITION_DEALS)[::2]:
        decision = pimc.decision(obs, legal, "points")
        scores = decision.search(list(range(len(legal))), 0, SEARCH_WORLDS, "rule", 11)
        out.append([float(s) for s in scores])
    return out


def solver_values() -> list:
    """(points, nodes) of the exact solver on the classic bench's cuts (4 tricks left)."""
    from openlandlord.games.shengji.solve import bench_positions, position_of, solve_position
    out = []
    for r in bench_positions(SOLVE_GAMES, "classic")[4]:
        points, _, nodes = solve_position(position_of(r))
        out.append([points, nodes])
    return out


def rule_rounds() -> list:
    """The attackers' scores of the native classic rule rounds (the rollout policy)."""
    from openlandlord.games.shengji import _pimc_classic
    return [int(s) for s in _pimc_classic.checked_rule_rounds(RULE_ROUNDS, 7, "rule")]


def baseline() -> dict:
    return {"search": search_scores(), "solve": solver_values(), "rule_rounds": rule_rounds()}


if __name__ == "__main__":
    json.dump(baseline(), sys.stdout)
    print()

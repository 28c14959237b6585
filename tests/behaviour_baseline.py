"""Figures that must not change when the code is reshaped: dataset bytes, evaluation figures,
latency positions and `play` transcripts for fixed seeds, in both games.

`python tests/behaviour_baseline.py > tests/data/behaviour-baseline.json` recorded them
before the game-interface redesign (issue 15); `tests/test_behaviour_unchanged.py` computes
them again and compares. The git SHA is pinned while computing, so a shard's bytes (which
record it) depend on the code's behaviour alone.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path

GENERATE_CASES = {
    "doudizhu-rule-mix": dict(game="doudizhu", teacher="rule", deals=6, seed=3, mix="random:0.5",
                              deals_per_shard=3),
    "doudizhu-pimc": dict(game="doudizhu", teacher="pimc:worlds=4", deals=2, seed=5),
    "shengji-rule-factored": dict(game="shengji", teacher="rule:expert", deals=3, seed=0,
                                  mix="rule:0.3", deals_per_shard=2),
    "shengji-pimc": dict(game="shengji", teacher="pimc:worlds=2,objective=points", deals=1, seed=2),
}

# (game, agent, opponent, deal-set source, seed): a source is ("adhoc", deals) or
# (committed name, how many of its first deals).
EVAL_CASES = {
    "doudizhu-rule-random": ("doudizhu", "rule", "random", ("adhoc", 20), 1),
    "doudizhu-callrob-expert-rule": ("doudizhu", "rule:expert", "rule", ("doudizhu-callrob-dev-300", 12), 0),
    "doudizhu-pimc-rule": ("doudizhu", "pimc:worlds=4", "rule", ("adhoc", 3), 2),
    "shengji-expert-rule": ("shengji", "rule:expert", "rule", ("adhoc", 8), 0),
    "shengji-random-easy": ("shengji", "random", "rule:easy", ("adhoc", 4), 3),
    "shengji-pimc-expert": ("shengji", "pimc:worlds=2", "rule:expert", ("adhoc", 2), 4),
    "shengji-match-rule-random": ("shengji", "rule", "random", ("shengji-match-dev-40", 1), 0),
}

# Figures that measure the machine, not the play.
_UNSTABLE = {"seconds", "timing", "git_sha", "workers"}


@contextlib.contextmanager
def pinned_git_sha():
    from openlandlord import provenance
    saved = provenance.git_sha
    provenance.git_sha = lambda: "baseline"
    try:
        yield
    finally:
        provenance.git_sha = saved


def _sha(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def generate_digests(name: str) -> dict:
    from openlandlord.distill import generate
    case = dict(GENERATE_CASES[name])
    with tempfile.TemporaryDirectory() as tmp, pinned_git_sha():
        out = Path(tmp) / "ds"
        generate.generate(out, case.pop("game"), case.pop("teacher"), case.pop("deals"),
                          workers=1, progress=False, **case)
        return {p.name: _sha(p.read_bytes()) for p in sorted(out.iterdir())}


def eval_figures(name: str) -> dict:
    from openlandlord.eval import arena, dealsets
    game, agent, opponent, (source, deals), seed = EVAL_CASES[name]
    if source == "adhoc":
        deal_set = dealsets.adhoc(game, deals, seed)
    else:
        full = dealsets.load(source, game)
        deal_set = dealsets.DealSet(full.name, game, full.seeds[:deals], full.options, full.purpose)
    result, records = arena.evaluate(game, agent, opponent, deal_set, seed, workers=1, progress=False)
    figures = {k: v for k, v in result.items() if k not in _UNSTABLE}
    figures["decisions"] = {side: t["decisions"] for side, t in result["timing"].items()}
    figures["records"] = _sha(json.dumps(records, sort_keys=True).encode())
    return json.loads(json.dumps(figures))


def latency_positions(game: str) -> dict:
    from openlandlord.export import latency
    states = latency.decision_states(game, deals=3, seed=1)
    blob = json.dumps([s.to_json() for s in states], sort_keys=True, default=str).encode()
    return {"states": len(states), "sha256": _sha(blob)}


def play_transcript(game: str, seats: str, seed: int) -> str:
    from openlandlord.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["play", "--game", game, "--seats", seats, "--seed", str(seed)]) == 0
    return _sha(out.getvalue().encode())


PLAY_CASES = {"doudizhu": ("rule,rule:expert,random", 3), "shengji": ("rule:expert,rule,rule:expert,rule", 1)}


def compute() -> dict:
    return {
        "generate": {name: generate_digests(name) for name in GENERATE_CASES},
        "eval": {name: eval_figures(name) for name in EVAL_CASES},
        "latency": {game: latency_positions(game) for game in ("doudizhu", "shengji")},
        "play": {game: play_transcript(game, *PLAY_CASES[game]) for game in PLAY_CASES},
    }


if __name__ == "__main__":
    json.dump(compute(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")

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

# Figures and game-record keys added after the baseline by later issues, on top of the
# unchanged ones: the trump-rank slices of a Shengji result (issue 18), DouZero's score
# of a Dou Dizhu game (issue 19), what the bidding made of a game (issue 16) and a Shengji
# deal's card points in `per_deal` (issue 19: two evaluations paired by deal), and what each
# side played with beyond its spec (`engines`: a student's weights and forward engine; the
# provenance of a result, not a figure of its play), and `per_deal` by role (`per_deal_role`,
# for `compare`'s per-role rows). Every figure the baseline holds is still compared.
ADDED_FIGURES = {"per_trump", "per_trump_role", "bidding", "engines", "per_deal_role"}
ADDED_PER_DEAL = {"points"}
ADDED_RECORD_KEYS = {"slices", "douzero_points", "bidding"}

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


# The committed deal sets when the baseline was recorded: a manifest lists the deal-set
# files its evaluation-overlap check read, so the check reads these (deal sets added since
# are new inputs, not changed behaviour).
BASELINE_DEAL_SETS = ("doudizhu-callrob-dev-300", "doudizhu-callrob-test-1000", "doudizhu-dev-300",
                      "doudizhu-test-1000", "shengji-dev-200", "shengji-match-dev-40",
                      "shengji-match-test-100", "shengji-test-500")


def generate_digests(name: str) -> dict:
    import shutil

    from openlandlord.distill import generate
    from openlandlord.eval import dealsets
    case = dict(GENERATE_CASES[name])
    with tempfile.TemporaryDirectory() as tmp, pinned_git_sha():
        out = Path(tmp) / "ds"
        eval_dir = Path(tmp) / "eval"
        eval_dir.mkdir()
        for deal_set in BASELINE_DEAL_SETS:
            shutil.copy(Path(dealsets.DATA_DIR) / f"{deal_set}.json", eval_dir)
        generate.generate(out, case.pop("game"), case.pop("teacher"), case.pop("deals"),
                          workers=1, progress=False, eval_dir=str(eval_dir), **case)
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
    figures = {k: v for k, v in result.items() if k not in _UNSTABLE | ADDED_FIGURES}
    figures["per_deal"] = {k: v for k, v in figures["per_deal"].items() if k not in ADDED_PER_DEAL}
    figures["decisions"] = {side: t["decisions"] for side, t in result["timing"].items()}
    records = [{k: v for k, v in r.items() if k not in ADDED_RECORD_KEYS} for r in records]
    figures["records"] = _sha(json.dumps(records, sort_keys=True).encode())
    return json.loads(json.dumps(figures))


def latency_positions(game: str) -> dict:
    from openlandlord.export import latency
    states = latency.decision_states(game, deals=3, seed=1)
    blob = json.dumps([s.to_json() for s in states], sort_keys=True, default=str).encode()
    return {"states": len(states), "sha256": _sha(blob)}


def moves_of(transcript: str) -> list:
    """The (seat, move text) lines of a `play` transcript, in order: what was played, whatever
    else the terminal table says around it (issue 17 added trick winners, round summaries and
    the reason of a forced move: `seat 1 (rule): pass (forced: the only legal move)`)."""
    import re
    line = re.compile(r"^seat (\d) \((.*?)\): (.*?)(?: \(forced: [^()]*\))?$")
    return [(int(m.group(1)), m.group(3)) for m in map(line.match, transcript.splitlines()) if m]


def play_transcript(game: str, seats: str, seed: int) -> str:
    """The digest of `play`'s transcript as the baseline's code printed it: its header, one
    `seat N (spec): move` line a move and the end line. Issue 17 made the terminal table say
    more (trick winners, round summaries, why a move was forced, the result for a person), so
    the transcript of today's `play` is read for its moves, the moves are replayed, and the
    baseline's own lines are rebuilt from them: the digest is equal exactly when the same
    moves were played."""
    from openlandlord.cli import main
    from openlandlord.games import spec as game_spec
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["play", "--game", game, "--seats", seats, "--seed", str(seed), "--no-record"]) == 0
    text = out.getvalue()
    specs = seats.split(",")
    g = game_spec(game)
    state = g.new_game(seed, **({"mode": "match"} if game == "shengji" else {}))
    lines = [text.splitlines()[0]]
    for seat, move in moves_of(text):
        lines.append(f"seat {seat} ({specs[seat]}): {move}")
        state.play("" if game == "doudizhu" and move == "pass" else g.move_from_text(move))
    if game == "doudizhu":
        lines.append(f"{state.result()['winner']} win; payoffs by seat: {state.payoffs()}")
    else:
        lines.append(f"match won by team {state.winner} (seats {state.winner} and {state.winner + 2})")
    return _sha(("\n".join(lines) + "\n").encode())


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

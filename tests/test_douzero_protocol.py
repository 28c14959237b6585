"""`eval --protocol douzero`: DouZero's paper's seating (the agent as the landlord, then as
both farmers; no bidding) and its scoring, checked against douzero's own scoring code
(`GameEnv.update_num_wins_scores`) on the same games replayed into its engine."""
import random

import pytest

from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.games import spec

DDZ = spec("doudizhu")
CODES = {**{r: 3 + i for i, r in enumerate("3456789TJQKA")}, "2": 17, "B": 20, "R": 30}
POSITIONS = ("landlord", "landlord_down", "landlord_up")   # seats 0, 1, 2


def _random_game(seed):
    rng = random.Random(seed)
    state = DDZ.new_deal(seed, bidding="none")
    start = [list(h) for h in state.hands()]
    while not state.done:
        moves = state.legal_moves()
        # bombs and the rocket whenever offered half the time, so the scoring meets them
        bombs = [m for m in moves if len(m) == 4 and len(set(m)) == 1 or m == "BR"]
        state.play(rng.choice(bombs) if bombs and rng.random() < 0.5 else rng.choice(moves))
    return state, start


class _Scripted:
    def __init__(self, moves):
        self.moves = list(moves)

    def act(self, infoset):
        return self.moves.pop(0)


def _douzero_scores(state, start):
    from douzero.env.game import GameEnv

    per_seat = {s: [] for s in range(3)}
    for seat, move in state.history:
        per_seat[seat].append(sorted(CODES[c] for c in move))
    env = GameEnv({POSITIONS[s]: _Scripted(per_seat[s]) for s in range(3)})
    kitty = sorted(CODES[c] for c in start[0])[:3]       # not used by the scoring
    env.card_play_init({POSITIONS[s]: sorted(CODES[c] for c in start[s]) for s in range(3)}
                       | {"three_landlord_cards": kitty})
    while not env.game_over:
        env.step()
    return env.num_wins, env.num_scores


def test_scoring_equals_douzeros_own_on_the_same_games():
    pytest.importorskip("douzero")
    with_bombs = 0
    for seed in range(300):
        state, start = _random_game(seed)
        wins, scores = _douzero_scores(state, start)
        landlord, farmers = DDZ.protocol_seatings("douzero", 0, seed, {"bidding": "none"})
        as_landlord, as_farmers = DDZ.outcome(state, landlord), DDZ.outcome(state, farmers)
        assert as_landlord["douzero_points"] == scores["landlord"]
        assert as_farmers["douzero_points"] == 2 * scores["farmer"]     # its farmers' ADP
        assert as_landlord["win"] == wins["landlord"] and as_farmers["win"] == wins["farmer"]
        with_bombs += state.result()["breakdown"]["bombs"] + state.result()["breakdown"]["rockets"] > 0
    assert with_bombs > 30


def test_the_protocol_seats_the_agent_as_landlord_then_both_farmers():
    seatings = DDZ.protocol_seatings("douzero", 4, 99, {"bidding": "none"})
    assert [s.agent_seats for s in seatings] == [(0,), (1, 2)]
    with pytest.raises(UserError, match="without bidding"):
        DDZ.protocol_seatings("douzero", 0, 0, {"bidding": "call-rob"})
    with pytest.raises(UserError, match="not a shengji protocol"):
        spec("shengji").protocol_seatings("douzero", 0, 0, {})


def test_eval_reports_wp_and_adp(tmp_path, capsys):
    import json
    out = tmp_path / "r.json"
    assert main(["eval", "--game", "doudizhu", "--protocol", "douzero", "--agent", "rule",
                 "--opponent", "random", "--deals", "20", "--workers", "1", "--json", str(out),
                 "--ledger", str(tmp_path / "l.jsonl"), "--no-records"]) == 0
    r = json.loads(out.read_text())
    assert r["protocol"] == "douzero" and r["games"] == 40
    assert 0.5 < r["wp"] <= 1 and r["wp_ci95"][0] <= r["wp"] <= r["wp_ci95"][1]
    assert r["adp_ci95"][0] <= r["adp"] <= r["adp_ci95"][1] and r["adp"] > 0
    assert "DouZero's protocol: WP" in capsys.readouterr().out
    assert main(["eval", "--game", "shengji", "--protocol", "douzero", "--agent", "rule",
                 "--opponent", "random", "--deals", "2", "--ledger", str(tmp_path / "l.jsonl")]) == 2

"""The exact Shengji `tractor` last-tricks solver (`_solve.pyx`) and `pimc:solve=K`.

The solver is checked against a plain minimax written here over the referee's Python
`Round` (no pruning, no table): seeded endgames dealt from a few suits and ranks so pairs,
tractors and trumps (jokers, trump-rank cards) are common, some started in mid-trick.
`tractor` has no kitty, so there is no last-trick bonus to check (`classic`:
tests/test_shengji_solve_classic.py).
"""
from __future__ import annotations

import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.errors import UserError
from openlandlord.games.shengji import _pimc, _referee, _solve
from openlandlord.games.shengji.pimc import Decision
from openlandlord.games.shengji.rules import END, RANKS, SUITS, Rules
from openlandlord.games.shengji.solve import main, position_of, solve_round
from openlandlord.games.shengji.state import Round


def captured(r: Round) -> int:
    return r.attacker_points


def minimax(r: Round, score=captured) -> int:
    """What `score` (the attacker points captured so far, by default) still gains under best
    play: every legal play of the referee, the attackers maximising, the declarers
    minimising."""
    if r.done:
        return 0
    values = []
    for play in r.legal_moves(limit=None):
        child = r.clone()
        child.play(play)
        values.append(score(child) - score(r) + minimax(child, score))
    return max(values) if r.current_seat % 2 != r.declarers else min(values)


def random_play(r: Round, rng) -> list:
    """A uniformly grown legal play (card by card through the referee's factored options)."""
    prefix: list = []
    while True:
        options = r.factored_options(tuple(prefix))
        if not options:
            return prefix
        card = options[rng.integers(len(options))]
        if card == END:
            return prefix
        prefix.append(card)


def endgame(seed: int, size: int, tractor: bool = False) -> Round | None:
    """Four hands of `size` cards dealt from a few suits and a run of consecutive ranks, each
    card twice, plus the jokers and a trump-rank card; then 0-3 random plays, so some
    positions start in mid-trick. With `tractor`, the leader leads a tractor instead (None
    when the deal gives it none)."""
    rng = np.random.default_rng(seed)
    rank, suit = RANKS[rng.integers(13)], SUITS[rng.integers(4)]
    suits = rng.choice(list(SUITS), size=2 if size <= 3 else 4, replace=False)
    low = int(rng.integers(13 - 5))
    pool = sorted({r + s for s in suits for r in RANKS[low:low + 6]} | {"SJ", "BJ", rank + "S"}) * 2
    rng.shuffle(pool)
    dealer = int(rng.integers(4))
    if tractor:
        # Two pairs of neighbouring ranks of a dealt suit first in the leader's hand.
        run = [RANKS[low + 2] + suits[0], RANKS[low + 3] + suits[0]] * 2
        for card in run:
            pool.remove(card)
        pool[dealer * size:dealer * size] = run
    r = Round.from_hands([pool[i * size:(i + 1) * size] for i in range(4)],
                         Rules.tractor(rank, suit), dealer=dealer)
    if tractor:
        runs = [p for p in r.legal_moves(limit=None) if len(p) >= 4]
        if not runs:
            return None     # the run is trumps or broken by the trump rank
        r.play(runs[0])
        return r
    for _ in range(int(rng.integers(0, 4))):
        r.play(random_play(r, rng))
    return r


def tractor_endgames(count: int) -> list[Round]:
    """The first `count` seeded 4- and 5-card endgames whose leader can lead a tractor, led."""
    out = []
    seed = 5000
    while len(out) < count:
        r = endgame(seed, 4 + seed % 2, tractor=True)
        if r is not None:
            out.append(r)
        seed += 1
    return out


def test_solver_equals_plain_minimax_and_its_best_play_reaches_the_value():
    # 1-3 tricks left (a pair or tractor lead takes two or more cards from each hand).
    rounds = [endgame(seed, 1 + seed % 3) for seed in range(190)] + tractor_endgames(10)
    kinds = set()
    for r in rounds:
        exact = solve_round(r)
        assert exact["points"] == minimax(r), r.hands()
        child = r.clone()
        child.play(exact["best"])
        assert child.attacker_points - r.attacker_points + minimax(child) == exact["points"]
        obs = r.observation(0)
        kinds.add("mid-trick" if obs.trick else "boundary")
        lead = obs.trick[0][1] if obs.trick else exact["best"]
        kinds.add({1: "single", 2: "pair"}.get(len(lead), "tractor"))
        kinds.update(["trump"] if any(c in ("SJ", "BJ") for h in r.hands() for c in h) else [])
    assert kinds == {"mid-trick", "boundary", "single", "pair", "tractor", "trump"}


def test_solver_lists_every_legal_play_exactly_once():
    for seed in range(150):
        r = endgame(seed, 3 + seed % 6)
        p = position_of(r)
        seat = r.current_seat
        lead = p["trick"][0] if p["trick"] else None
        ours = _solve.legal_plays(p["trump_rank"], p["trump_suit"], p["hands"][seat], lead)
        theirs = _referee.legal_play_ids(p["trump_rank"], p["trump_suit"], p["hands"][seat], lead)
        assert len(set(ours)) == len(ours)
        assert sorted(ours) == sorted(tuple(sorted(play)) for play in theirs)


def test_solver_gives_up_past_its_node_budget():
    r = endgame(12, 3)
    assert solve_round(r, max_nodes=1)["points"] is None
    assert solve_round(r)["points"] == minimax(r)


def test_solver_refuses_a_bad_position():
    r = endgame(7, 3)
    p = position_of(r)
    args = (p["trump_rank"], p["trump_suit"])
    with pytest.raises(ValueError, match="four hands"):
        _solve.solve(*args, p["hands"][:3], p["leader"], p["trick"], p["declarers"])
    with pytest.raises(ValueError, match="declarers"):
        _solve.solve(*args, p["hands"], p["leader"], p["trick"], 2)
    with pytest.raises(ValueError, match="sizes differ"):
        hands = [h.copy() for h in p["hands"]]
        hands[0][np.flatnonzero(hands[0])[0]] -= 1
        _solve.solve(*args, hands, p["leader"], p["trick"], p["declarers"])
    with pytest.raises(ValueError, match="more than twice"):
        hands = [h.copy() for h in p["hands"]]
        card = np.flatnonzero(hands[0])[0]
        for h in hands:
            h[card] = 2
        _solve.solve(*args, hands, p["leader"], p["trick"], p["declarers"])


def late_decision(seed: int, cards_left: int):
    """A searched decision (two or more legal plays) of a rule-bot round once at most
    `cards_left` cards are left in all hands."""
    from openlandlord.games.shengji.rule import ShengjiRuleBot
    bot = ShengjiRuleBot("expert", seed=seed)
    r = Round.new(seed)
    while True:
        obs = r.observation(r.current_seat)
        if sum(obs.cards_left) <= cards_left and r.count_legal() > 1:
            legal = r.legal_moves(limit=None)
            return Decision(obs, legal, "points"), len(legal)
        r.play(bot.choose_play(obs))


def test_pimc_solve_is_deterministic_and_solve_0_is_the_rollout():
    decision, n = late_decision(3, 30)
    which = list(range(n))
    plain = decision.search(which, 0, 8, "rule", 11)
    assert decision.search(which, 0, 8, "rule", 11, 0) == plain
    solved = decision.search(which, 0, 8, "rule", 11, 16)
    assert decision.search(which, 0, 8, "rule", 11, 16) == solved
    assert solved != plain


def test_pimc_solve_gives_up_to_the_rollout_and_counts_it():
    decision, n = late_decision(5, 20)
    o = decision.obs
    args = (decision.rules.rank_index, decision.rules.suit_index, decision.hand, o.seat,
            decision.leader, decision.trick, o.declarers, o.attacker_points, decision.unseen,
            decision.sizes, decision.masks, decision.plays, 0, 6, "rule", 9, "points")
    _pimc.solve_counts(reset=True)
    assert _pimc.search(*args, 108, 1) == _pimc.search(*args)
    assert _pimc.solve_counts(reset=True) == (0, 6 * n)
    _pimc.search(*args, 108)
    assert _pimc.solve_counts(reset=True) == (6 * n, 0)
    with pytest.raises(ValueError, match="solve"):
        _pimc.search(*args, -1)


def test_pimc_solve_as_an_agent_option():
    decision, n = late_decision(8, 24)
    agent = make("pimc:worlds=4,objective=points,solve=12", seed=0)
    scores = agent.scores(decision.obs, decision.legal)
    assert len(scores) == n
    np.testing.assert_array_equal(
        make("pimc:worlds=4,objective=points,solve=12", seed=0).scores(decision.obs, decision.legal),
        scores)
    with pytest.raises(UserError, match="solve"):
        make("pimc:solve=109", seed=0)


def test_bench_command_refuses_no_work(capsys):
    assert main([]) == 2
    assert "pass --bench" in capsys.readouterr().err

"""The exact last-tricks solver (`_solve.pyx`) on ruleset `classic`: throws, their failures,
no trump and the kitty multiplied on the last trick.

The solver is checked against a plain minimax written here over the referee's Python
`ClassicRound` (no pruning, no table, every legal play, failing throws included: the
referee cuts them and charges the penalty): seeded endgames dealt from a few suits and ranks
so pairs, tractors, throws and trumps are common, with a kitty holding points, some started
in mid-trick.
"""
from __future__ import annotations

import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.errors import UserError
from openlandlord.games.shengji import _pimc, _referee, _solve
from openlandlord.games.shengji.pimc import decision
from openlandlord.games.shengji.rules import NO_TRUMP, RANKS, SUITS, Rules
from openlandlord.games.shengji.solve import position_of, solve_position, solve_round
from openlandlord.games.shengji.state import Round

from test_shengji_solve import minimax as tractor_minimax, random_play


def total(r: Round) -> int:
    """The attackers' score so far, unclipped: captured points, the kitty bonus once the
    round is over, the failed throws' penalties."""
    return r.attacker_points + r.kitty_bonus + r.penalty


def minimax(r: Round) -> int:
    """The attacker score still to come (the trick in progress and the multiplied kitty
    included) under best play over every legal play of the referee, failing throws too."""
    return tractor_minimax(r, total)


def endgame(seed: int, size: int) -> Round:
    """Four `classic` hands of `size` cards from a few suits and a run of ranks (each card
    twice, the jokers, a trump-rank card), a kitty of 8 of the remaining cards (points
    first), a trump suit or none; then 0-3 random plays (failing throws among them)."""
    rng = np.random.default_rng(seed)
    rank = RANKS[rng.integers(13)]
    trump = NO_TRUMP if seed % 4 == 0 else SUITS[rng.integers(4)]
    suits = rng.choice(list(SUITS), size=2 if size <= 3 else 3, replace=False)
    low = int(rng.integers(13 - 5))
    pool = sorted({r + s for s in suits for r in RANKS[low:low + 5]} | {"SJ", "BJ", rank + "S"}) * 2
    rng.shuffle(pool)
    hands = [pool[i * size:(i + 1) * size] for i in range(4)]
    rest = pool[4 * size:]
    pointed = [c for c in rest if c[0] in "5TK"] + [c for c in rest if c[0] not in "5TK"]
    kitty = pointed[:min(8, len(pointed))] if seed % 5 else []
    r = Round.from_hands(hands, Rules.classic(rank, trump), dealer=int(rng.integers(4)), kitty=kitty)
    for _ in range(int(rng.integers(0, 4))):
        r.play(random_play(r, rng))
    return r


def failing_throws(r: Round) -> int:
    """How many of the seat's legal leads would fail (0 when it follows)."""
    if r.observation(0).trick:
        return 0
    out = 0
    for play in r.legal_moves(limit=None):
        child = r.clone()
        child.play(play)
        out += child.penalty != r.penalty
    return out


def test_solver_equals_plain_minimax_and_its_best_play_reaches_the_value():
    kinds = set()
    for seed in range(160):
        r = endgame(seed, 1 + seed % 3)
        exact = solve_round(r)
        assert exact["points"] == minimax(r), (seed, r.hands())
        child = r.clone()
        child.play(exact["best"])
        assert total(child) - total(r) + minimax(child) == exact["points"], seed
        assert exact["final"] == max(0, r.attacker_points + r.penalty + exact["points"])
        obs = r.observation(0)
        kinds.add("mid-trick" if obs.trick else "boundary")
        kinds.add("no trump" if r.rules.trump_suit == NO_TRUMP else "trump suit")
        if failing_throws(r):
            kinds.add("a failing throw on offer")
        if exact["best"] and not obs.trick and len(set(exact["best"])) > 1 \
                and len(exact["best"]) > 1 and len(set(exact["best"])) != len(exact["best"]) // 2:
            kinds.add("a throw searched")
        line = r.clone()
        while not line.done:
            line.play(solve_round(line)["best"])
        if line.kitty_bonus:
            kinds.add("kitty to the attackers")
    assert kinds == {"mid-trick", "boundary", "no trump", "trump suit", "a failing throw on offer",
                     "a throw searched", "kitty to the attackers"}, kinds


def test_solver_lists_the_legal_plays_whose_throw_stands():
    for seed in range(120):
        r = endgame(seed, 3 + seed % 4)
        p = position_of(r)
        seat = r.current_seat
        others = [p["hands"][(seat + k) % 4] for k in (1, 2, 3)]
        lead = p["trick"][0] if p["trick"] else None
        ours = _solve.legal_plays(p["trump_rank"], p["trump_suit"], p["hands"][seat], lead, others)
        theirs = _referee.classic_legal_play_ids(p["trump_rank"], p["trump_suit"], p["hands"][seat],
                                                 lead)
        if lead is not None:
            kept = [tuple(sorted(play)) for play in theirs]
        else:
            kept = []
            for play in theirs:
                vector = np.bincount(np.asarray(play, np.intp), minlength=54).astype(np.uint8)
                _, failing = _referee.classic_throw(p["trump_rank"], p["trump_suit"], vector, others)
                if not failing:
                    kept.append(tuple(sorted(play)))
        assert len(set(ours)) == len(ours)
        assert sorted(ours) == sorted(kept)


def test_the_kitty_is_in_the_value_and_the_key():
    # The same hands with two kitties: the values differ by the kitty's multiplied points
    # when the attackers take the last trick, and a search reusing no table gets each right.
    for seed in range(1, 40):
        r = endgame(seed, 2)
        if not r.kitty() or r.observation(0).trick:
            continue
        p = position_of(r)
        empty = dict(p, kitty=np.zeros(54, np.uint8))
        with_kitty, _, _ = solve_position(p)
        without, _, _ = solve_position(empty)
        assert with_kitty == minimax(r)
        assert without <= with_kitty
        if with_kitty != without:
            return
    pytest.fail("no endgame where the kitty changed the value")


def test_solver_refuses_a_bad_classic_position():
    r = endgame(3, 3)
    p = position_of(r)
    args = (p["trump_rank"], p["trump_suit"], p["hands"], p["leader"], p["trick"], p["declarers"])
    with pytest.raises(ValueError, match="54 entries"):
        _solve.solve(*args, 1000, np.zeros(53, np.uint8))
    kitty = p["kitty"].copy()
    card = int(np.flatnonzero(p["hands"][0])[0])
    kitty[card] = 2
    with pytest.raises(ValueError, match="more than twice"):
        _solve.solve(*args, 1000, kitty)


def test_tractor_rounds_solve_as_before():
    # The classic branch leaves `tractor` alone: position_of gives no kitty and the values
    # match the tractor test's minimax (tests/test_shengji_solve.py covers it in full).
    from test_shengji_solve import endgame as tractor_endgame
    for seed in range(20):
        r = tractor_endgame(seed, 2)
        assert position_of(r)["kitty"] is None
        assert solve_round(r)["points"] == tractor_minimax(r)


def late_decision(seed: int, cards_left: int):
    """A searched play decision (two or more legal plays) of a `classic` rule-bot round once at
    most `cards_left` cards are left in all hands, with its legal plays."""
    from openlandlord.games.shengji.rule import ShengjiRuleBot
    bot = ShengjiRuleBot("expert", seed=seed)
    r = Round.new(seed, "classic")
    while True:
        obs = r.observation(r.current_seat)
        if r.phase == "declare":
            legal = r.legal_moves()
            r.play(legal[int(np.argmax(bot.scores(obs, legal)))])
            continue
        if r.phase == "play" and sum(obs.cards_left) <= cards_left and r.count_legal() > 1:
            legal = r.legal_moves(limit=None)
            return decision(obs, legal, "points"), legal
        r.play(bot.choose_play(obs))


def test_pimc_solve_is_deterministic_counted_and_solve_0_is_the_rollout():
    d, legal = late_decision(3, 30)
    which = list(range(len(legal)))
    plain = d.search(which, 0, 8, "rule", 11)
    assert d.search(which, 0, 8, "rule", 11, 0) == plain
    _pimc.solve_counts(reset=True)
    solved = d.search(which, 0, 8, "rule", 11, 20)
    assert _pimc.solve_counts(reset=True) == (8 * len(legal), 0)
    assert d.search(which, 0, 8, "rule", 11, 20) == solved
    assert solved != plain


def test_pimc_solve_scores_each_world_by_the_solver():
    # A decision of a non-dealer seat with at most K cards left: every world of every
    # candidate is solved from the candidate on (a throw first checked against the world's
    # hands and cut, with its penalty). The search's means equal those recomputed here from
    # the same worlds (`sample_worlds` draws the search's sequence) with the Python solver.
    from openlandlord.games.shengji._pimc_classic import sample_worlds
    for seed in range(40):
        d, legal = late_decision(seed, 12)
        o = d.obs
        if o.seat != o.dealer and not any(k.any() for k in d.known):
            break
    else:
        pytest.fail("no non-dealer decision without known cards")
    rank, suit = d.rules.rank_index, d.rules.suit_index
    worlds = sample_worlds(rank, suit, d.unseen, d.sizes, d.masks, 8, 5, 17)
    team = o.seat % 2
    expected = []
    for k, play in enumerate(d.plays):
        total = 0.0
        for world, kitty in worlds:
            hands = [None] * 4
            hands[o.seat] = d.hand.copy()
            for j in range(3):
                hands[(o.seat + 1 + j) % 4] = np.frombuffer(world[54 * j:54 * (j + 1)], np.uint8).copy()
            trick = list(d.trick)
            pen = d.penalty
            played = play.copy()
            if not trick:
                others = [hands[(o.seat + j) % 4] for j in (1, 2, 3)]
                ids, failing = _referee.classic_throw(rank, suit, play, others)
                if failing:
                    played = np.bincount(np.asarray(ids, np.intp), minlength=54).astype(np.uint8)
                    sign = 1 if team == o.declarers else -1
                    pen += sign * 10 * int(play.sum() - played.sum())
            hands[o.seat] = hands[o.seat] - played
            trick = trick + [played]
            leader = d.leader
            if len(trick) == 4:
                winner = (leader + _referee.classic_winner(rank, suit, trick)) % 4
                gained = sum(int((t * np.asarray(_referee.classic_table(rank, suit)[2])).sum())
                             for t in trick)
                a = gained if winner % 2 != o.declarers else 0
                if not any(h.any() for h in hands):
                    pytest.skip("the candidate ends the round")
                value, _, _ = _solve.solve(rank, suit, hands, winner, [], o.declarers,
                                           kitty=np.frombuffer(kitty, np.uint8).copy())
                value += a
            else:
                value, _, _ = _solve.solve(rank, suit, hands, leader, trick, o.declarers,
                                           kitty=np.frombuffer(kitty, np.uint8).copy())
            points = max(0, o.attacker_points + pen + value)
            margin = 2.0 * points - 200.0
            total += (-margin if team == o.declarers else margin) / 80.0
        expected.append(total / len(worlds))
    _pimc.solve_counts(reset=True)
    got = d.search(list(range(len(legal))), 0, 5, "rule", 17, 12)
    assert _pimc.solve_counts(reset=True) == (5 * len(legal), 0)
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_pimc_solve_as_a_classic_agent_option():
    d, legal = late_decision(8, 24)
    scores = make("pimc:worlds=4,objective=points,solve=12", seed=0).scores(d.obs, legal)
    assert len(scores) == len(legal)
    np.testing.assert_array_equal(
        make("pimc:worlds=4,objective=points,solve=12", seed=0).scores(d.obs, legal), scores)
    with pytest.raises(UserError, match="solve"):
        make("pimc:solve=109", seed=0)


def test_bench_takes_classic_and_refuses_another_ruleset(capsys):
    from openlandlord.games.shengji.solve import bench, main
    assert main(["--bench", "--rules", "poker"]) == 2
    assert "tractor or classic" in capsys.readouterr().err
    out = bench(2, rules="classic")
    assert out["rules"] == "classic"
    assert all(v["positions"] == 2 and v["gave_up"] == 0 for v in out["tricks_left"].values())

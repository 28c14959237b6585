"""The exact Dou Dizhu endgame solver (`_solve.pyx`) against a plain minimax written here from
the rules page (no pruning, no table), and `pimc:solve=K` (the PIMC search solving its worlds).

A position is drawn as the three hands, the seat to move (*) and the standing move:

    landlord 0*: 3333      (leads)
    farmer   1 : 44
    farmer   2 : 55        plays (0, 0, 0): the bomb wins, spring, stake 2^2: +8 for seat 0
"""
import functools
import random

import pytest

from openlandlord.errors import UserError
from openlandlord.games.doudizhu import Game, classify, deal, legal_moves
from openlandlord.games.doudizhu import _pimc
from openlandlord.games.doudizhu.pimc import Decision
from openlandlord.games.doudizhu.solve import EndgameSolver, position
from openlandlord.games.doudizhu.solve import solve as _solve

# A fresh small table per call: the positions here are small.
solve = functools.partial(_solve, table_bits=12)


def _minus(hand: str, move: str) -> str:
    rest = list(hand)
    for ch in move:
        rest.remove(ch)
    return "".join(rest)


@functools.lru_cache(maxsize=None)
def _legal(hand: str, to_beat: str) -> tuple:
    return tuple(legal_moves(hand, to_beat))


def brute_force(hands, turn, lord, to_beat, to_beat_seat, plays, bombs, rockets, base, factor):
    """The landlord's payoff under perfect play, by plain minimax over `legal_moves` with the
    scoring of the rules page: S = base * 2^(bombs + rockets + spring + anti-spring); the
    landlord settles +-S * (factor of each farmer), summed."""
    best = None
    for move in _legal(hands[turn], to_beat):
        h, p = list(hands), list(plays)
        b, r, tb, tbs = bombs, rockets, move, turn
        if move:
            h[turn] = _minus(h[turn], move)
            p[turn] += 1
            kind = classify(move)[0]
            b += kind == "bomb"
            r += kind == "rocket"
        nxt = (turn + 1) % 3
        if not move and nxt == to_beat_seat:
            tb, tbs = "", -1
        elif not move:
            tb, tbs = to_beat, to_beat_seat
        if move and not h[turn]:
            farmers = [f for f in range(3) if f != lord]
            lord_won = turn == lord
            spring = lord_won and all(p[f] == 0 for f in farmers)
            anti = not lord_won and p[lord] == 1
            stake = base * 2 ** (b + r + spring + anti)
            v = (1 if lord_won else -1) * sum(stake * factor[f] for f in farmers)
        else:
            v = brute_force(h, nxt, lord, tb, tbs, p, b, r, base, factor)
        if best is None or (v > best if turn == lord else v < best):
            best = v
    return best


def random_endgame(rng: random.Random) -> dict:
    """A small random position: a deal's hands cut to 1-3 cards (sometimes with a bomb or the
    rocket put in), random plays so far (spring and anti-spring chances), sometimes a
    standing move to follow, random bombs already played, base stake and seat factors."""
    hands, kitty = deal(rng.randrange(10 ** 6))
    hands = [h for h in hands]
    hands[0] += kitty
    sizes = [rng.randint(1, 3) for _ in range(3)]
    cut = []
    for h, n in zip(hands, sizes):
        cards = list(h)
        rng.shuffle(cards)
        cut.append("".join(sorted(cards[:n], key="3456789TJQKA2BR".index)))
    used = "".join(cut)
    extra = rng.random()
    if extra < 0.15:
        rank = rng.choice([r for r in "3456789TJQKA2" if r not in used])
        cut[rng.randrange(3)] += rank * 4
    elif extra < 0.25 and "B" not in used and "R" not in used:
        cut[rng.randrange(3)] += "BR"
    lord = rng.randrange(3)
    turn = rng.randrange(3)
    plays = [rng.choice([0, 0, 1, 2, 3]) for _ in range(3)]
    to_beat, to_beat_seat = "", -1
    if rng.random() < 0.5:
        seat = rng.choice([s for s in range(3) if s != turn])
        pool = [m for m in legal_moves(cut[seat] + rng.choice(["", "3", "K", "A", "2"])) if m]
        if pool:
            to_beat, to_beat_seat = rng.choice(pool), seat
            plays[seat] = max(plays[seat], 1)
    return {"hands": cut, "turn": turn, "landlord": lord, "to_beat": to_beat,
            "to_beat_seat": to_beat_seat, "plays": tuple(plays),
            "bombs": rng.randrange(2), "rockets": 0, "base_stake": rng.choice([1, 2, 3]),
            "seat_factor": tuple(rng.choice([1, 2, 4]) for _ in range(3))}


def _apply(p: dict, move: str) -> dict:
    """The position after the seat to move plays `move` (not its last cards)."""
    q = dict(p, hands=list(p["hands"]), plays=list(p["plays"]))
    turn, nxt = p["turn"], (p["turn"] + 1) % 3
    if move:
        q["hands"][turn] = _minus(q["hands"][turn], move)
        q["plays"][turn] += 1
        kind = classify(move)[0]
        q["bombs"] += kind == "bomb"
        q["rockets"] += kind == "rocket"
        q["to_beat"], q["to_beat_seat"] = move, turn
    elif nxt == p["to_beat_seat"]:
        q["to_beat"], q["to_beat_seat"] = "", -1
    q["turn"] = nxt
    q["plays"] = tuple(q["plays"])
    return q


def test_bomb_spring_drawn_position():
    # landlord 0*: 3333 / farmer 1: 44 / farmer 2: 55, nobody has played: bomb out, spring.
    assert solve(["3333", "44", "55"], 0, 0, plays=(0, 0, 0))[:2] == (8.0, "3333")
    # The same with the landlord's first move made: no anti-spring (it won), spring stays.
    assert solve(["3333", "44", "55"], 0, 0, plays=(1, 0, 0))[0] == 8.0


def test_anti_spring_drawn_position():
    # landlord 0: 3 (played once) / farmer 1*: 4 leads out: anti-spring, -2 * 2 for seat 0.
    assert solve(["3", "4", "5"], 1, 0, plays=(1, 0, 0))[0] == -4.0
    assert solve(["3", "4", "5"], 1, 0, plays=(2, 0, 0))[0] == -2.0


def test_solver_equals_brute_force_on_random_endgames():
    rng = random.Random(2026)
    solver = EndgameSolver()                # one table for all: entries hold across positions
    checked = 0
    for _ in range(300):
        p = random_endgame(rng)
        want = brute_force(p["hands"], p["turn"], p["landlord"], p["to_beat"],
                           p["to_beat_seat"], p["plays"], p["bombs"], p["rockets"],
                           p["base_stake"], p["seat_factor"])
        fresh = solve(**p)
        value, best, _ = solver.solve(**p)
        assert (value, best) == fresh[:2], p
        assert value == want, p
        # The best move reaches the value.
        turn = p["turn"]
        if best and len(best) == len(p["hands"][turn]):
            continue
        assert solve(**_apply(p, best))[0] == value, (p, best)
        checked += 1
    assert checked > 200


def test_positions_from_real_games_are_consistent():
    # From a game's live position the solver's best line, played out, scores what it said.
    for seed in range(3):
        g = Game.new(seed)
        while sum(len(h) for h in g.hands()) > 12:
            g.play(g.legal_moves()[-1])
        if g.done:
            continue
        value = solve(**position(g))[0]
        while not g.done:
            g.play(solve(**position(g))[1])
        assert g.payoffs()[g.landlord] == value


def test_node_budget_falls_back():
    hands, kitty = deal(7)
    p = {"hands": [hands[0][:5] + kitty, hands[1][:5], hands[2][:5]], "turn": 0, "landlord": 0}
    value, best, nodes = solve(**p, budget=50)
    assert (value, best) == (None, None) and nodes == 51
    assert solve(**p)[0] is not None


def _decision(seed: int, moves: int):
    g = Game.new(seed)
    for _ in range(moves):
        g.play(g.legal_moves()[-1])
    return Decision(g.observation(g.current_seat), g.legal_moves())


def test_pimc_solve_is_deterministic_and_off_by_default():
    d = _decision(11, 25)
    which = list(range(min(6, len(d.moves))))
    plain = d.search(which, 0, 16, "rule", 5)
    assert d.search(which, 0, 16, "rule", 5, 0) == plain
    solved = d.search(which, 0, 16, "rule", 5, 20)
    assert d.search(which, 0, 16, "rule", 5, 20) == solved
    assert solved != plain


def test_pimc_solve_counts_budget_fallbacks():
    d = _decision(11, 10)
    args = (d.hand, d.obs.seat, d.obs.landlord, d.obs.cards_left, d.plays, d.to_beat,
            d.to_beat_seat, d.bombs, d.rockets, d.base, d.factor, d.unseen, d.lord_keeps,
            d.moves[:3], 0, 4, "rule", 3)
    stats = {}
    tight = _pimc.search(*args, 40, 10, stats)
    # No world's game ends before 40 cards are left: each of them is solved or counted over.
    assert stats["over_budget"] > 0 and stats["solved"] + stats["over_budget"] == 4 * len(tight)
    # Every world over budget is rolled out as the plain search does.
    stats = {}
    assert _pimc.search(*args, 108, 1, stats) == _pimc.search(*args) and stats["solved"] == 0


def test_pimc_agent_with_solve_plays_a_game():
    from openlandlord.agents import make
    from openlandlord.agents.loop import play_deal
    g = Game.new(4)
    play_deal(g, None, [make("pimc:worlds=8,solve=10", seed=s) for s in range(3)])
    assert g.done and sum(g.payoffs()) == 0


@pytest.mark.parametrize("kwargs, message", [
    ({"hands": ["3", "4"], "turn": 0, "landlord": 0}, "three card strings"),
    ({"hands": ["3", "", "5"], "turn": 0, "landlord": 0}, "empty"),
    ({"hands": ["33333", "4", "5"], "turn": 0, "landlord": 0}, "than the deck"),
    ({"hands": ["33", "33", "35"], "turn": 0, "landlord": 0}, "than the deck"),
    ({"hands": ["3", "4", "5"], "turn": 3, "landlord": 0}, "turn"),
    ({"hands": ["3", "4", "5"], "turn": 0, "landlord": -1}, "landlord"),
    ({"hands": ["3", "4", "5"], "turn": 0, "landlord": 0, "to_beat": "34"}, "not a Dou Dizhu move"),
    ({"hands": ["3", "4", "5"], "turn": 0, "landlord": 0, "to_beat": "K", "to_beat_seat": 0},
     "own move"),
    ({"hands": ["3", "4", "5"], "turn": 0, "landlord": 0, "to_beat_seat": 1}, "-1"),
    ({"hands": ["3", "4", "5"], "turn": 0, "landlord": 0, "budget": 0}, "budget"),
])
def test_bad_input_names_the_problem(kwargs, message):
    with pytest.raises(UserError, match=message):
        solve(**kwargs)

"""Exactness against real peers: our legal moves against rlcard's and douzero's generators,
our payoffs against OpenSpiel's `dou_dizhu` returns.

    python -m openlandlord.games.doudizhu.oracle_check --states 200000 --games 1000

prints the counts and exits 1 on any disagreement. The test suite runs the same functions
on fewer states. The peers are imported here only, never by the library.

Known, documented differences (the rules page wins):
- douzero's generator also offers moves outside the 27,472-action set: kickers holding the
  rocket, a bomb, or a trio next to the plane (that last is a longer plane for us). They
  are removed before comparing, and each removed move must be of one of those kinds.
- OpenSpiel's `dou_dizhu` has its own, smaller action set (26,057 ids, different kicker
  rules), so a compared game only plays moves both referees allow; how often the two
  legal sets differ is printed, not asserted.
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

from . import ACTIONS, RANKS, Game, canonical, legal_moves

DECK = "".join(r * 4 for r in RANKS[:13]) + "BR"


def sample_states(n: int, seed: int):
    """`n` (hand, to_beat) pairs: two thirds from random games of our referee (real
    positions: leads and follows), one third random hands against random standing moves."""
    rng = random.Random(seed)
    out = []
    game_seed = seed * 1_000_003
    while len(out) < (2 * n) // 3:
        g = Game.new(game_seed)
        game_seed += 1
        while not g.done and len(out) < (2 * n) // 3:
            obs = g.observation(g.current_seat)
            out.append((obs.hand, obs.to_beat))
            g.play(rng.choice(g.legal_moves()))
    while len(out) < n:
        hand = "".join(rng.sample(DECK, rng.randint(1, 20)))
        to_beat = "" if rng.random() < 0.3 else rng.choice(ACTIONS[1:])
        out.append((canonical(hand), to_beat))
    return out


class _Card:
    """Just enough of rlcard's Card for `cards2str`."""
    __slots__ = ("rank", "suit")

    def __init__(self, ch):
        self.rank, self.suit = ("", "BJ" if ch == "B" else "RJ") if ch in "BR" else (ch, "S")


class _Player:
    def __init__(self, hand="", played=""):
        self.current_hand = [_Card(c) for c in hand]
        self.played_cards = played


def rlcard_moves(hand: str, to_beat: str) -> set:
    """rlcard's legal moves: `playable_cards_from_hand` to lead, `get_gt_cards` to follow."""
    from rlcard.games.doudizhu.judger import DoudizhuJudger
    from rlcard.games.doudizhu.utils import get_gt_cards
    if not to_beat:
        return set(DoudizhuJudger.playable_cards_from_hand(hand))
    return {"" if m == "pass" else m for m in get_gt_cards(_Player(hand), _Player(played=to_beat))}


def compare_rlcard(states) -> dict:
    bad = []
    for hand, to_beat in states:
        ours = legal_moves(hand, to_beat)
        if len(set(ours)) != len(ours) or set(ours) != rlcard_moves(hand, to_beat):
            bad.append((hand, to_beat))
    return {"states": len(states), "leads": sum(1 for _, t in states if not t),
            "mismatches": len(bad), "examples": bad[:5]}


_DZ_CARD = {r: v for r, v in zip(RANKS, (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30))}
_DZ_RANK = {v: r for r, v in _DZ_CARD.items()}


def douzero_moves(hand: str, to_beat: str) -> list:
    """douzero's legal moves (duplicates and extras kept) for a hand against `to_beat`,
    through `GameEnv.get_legal_card_play_actions` itself."""
    from douzero.env.game import GameEnv

    class _Info:
        player_hand_cards = sorted(_DZ_CARD[c] for c in hand)

    env = GameEnv.__new__(GameEnv)
    env.acting_player_position = "landlord"
    env.info_sets = {"landlord": _Info()}
    env.card_play_action_seq = [[_DZ_CARD[c] for c in to_beat]] if to_beat else []
    return ["".join(_DZ_RANK[v] for v in sorted(m)) for m in env.get_legal_card_play_actions()]


def douzero_extra_kind(move: str) -> str | None:
    """Which documented douzero extra a move is, or None: kickers holding the rocket, a
    bomb, or a trio next to the plane."""
    counts = Counter(move)
    if "B" in counts and "R" in counts and len(move) > 2:
        return "rocket as kickers"
    if 4 in counts.values() and len(move) >= 12:
        return "bomb as plane kickers"
    run = best = 0
    for r in RANKS[:12]:
        run = run + 1 if counts.get(r, 0) >= 3 else 0
        best = max(best, run)
    if best >= 3 and len(move) % 4 == 0 and len(move) // 4 < best:
        return "trio next to the plane as kickers"
    return None


def compare_douzero(states) -> dict:
    bad, extras, duplicates = [], Counter(), 0
    for hand, to_beat in states:
        if to_beat == "BR" or (to_beat and douzero_extra_kind(to_beat)):
            continue
        theirs = douzero_moves(hand, to_beat)
        duplicates += len(theirs) - len(set(theirs))
        ours = set(legal_moves(hand, to_beat))
        extra = set(theirs) - ours
        kinds = [douzero_extra_kind(m) for m in extra]
        extras.update(k for k in kinds if k)
        if (ours - set(theirs)) or None in kinds:
            bad.append((hand, to_beat, sorted(ours - set(theirs))[:5],
                        sorted(m for m, k in zip(extra, kinds) if k is None)[:5]))
    return {"states": len(states), "mismatches": len(bad), "extras_removed": dict(extras),
            "duplicates": duplicates, "examples": bad[:5]}


def _os_cards(text: str) -> str:
    return canonical(text.replace("(BWJ)", "B").replace("(CJ)", "R").replace("-", ""))


def compare_openspiel(games: int, seed: int) -> dict:
    """Random games with `points` bidding played move for move in both referees; each
    game's payoffs must equal OpenSpiel's returns. A third of the games have the farmers
    pass whenever they may and a third the landlord, so that springs and anti-springs
    occur; moves are drawn from the moves both referees allow."""
    import pyspiel
    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(seed)
    tally = Counter()
    differences = {"ours only": [], "openspiel only": []}
    bad = []
    for gi in range(games):
        style = ("random", "farmers pass", "landlord passes")[gi % 3]
        st = game.new_initial_state()
        while st.is_chance_node():
            st.apply_action(rng.choice([o for o, _ in st.chance_outcomes()]))
        hands, start = [], None
        for p in range(3):
            text = st.observation_string(p)
            hands.append(_os_cards(text.split("My hand ", 1)[1].split("\n", 1)[0]))
            start = int(text.split("start player: ", 1)[1][0])
        kitty = canonical("".join((Counter(DECK) - Counter("".join(hands))).elements()))
        ours = Game.from_hands([hands[(k + start) % 3] for k in range(3)], kitty, bidding="points")
        while not ours.done:
            os_seat = (ours.current_seat + start) % 3
            if st.current_player() != os_seat:
                bad.append((gi, "turn differs"))
                break
            mapping = {}
            for a in st.legal_actions():
                s = st.action_to_string(a)
                key = ("pass" if ours.phase == "bidding" else "") if s == "Pass" else (
                    "bid" + s[4:] if s.startswith("Bid ") else _os_cards(s))
                mapping[key] = a
            legal = ours.legal_moves()
            if set(legal) != set(mapping):
                tally["states with different legal sets"] += 1
                for side, moves in (("ours only", set(legal) - set(mapping)),
                                    ("openspiel only", set(mapping) - set(legal))):
                    tally["moves " + side] += len(moves)
                    if moves and len(differences[side]) < 5:
                        differences[side].append(sorted(moves)[:3])
            both = [m for m in legal if m in mapping]
            lord = ours.landlord
            if ours.phase == "play" and "" in both and (
                    (style == "farmers pass" and ours.current_seat != lord)
                    or (style == "landlord passes" and ours.current_seat == lord)):
                move = ""
            else:
                move = rng.choice(both)
            ours.play(move)
            st.apply_action(mapping[move])
        if not st.is_terminal() or not ours.done:
            bad.append((gi, "one referee ended before the other"))
            continue
        os_returns = st.returns()
        pay = ours.payoffs()
        mine = [pay[(s - start) % 3] for s in range(3)]
        res = ours.result()
        if ours.is_void:
            tally["void"] += 1
        else:
            tally["bombs or rockets"] += bool(res["breakdown"]["bombs"] or res["breakdown"]["rockets"])
            tally["rockets"] += bool(res["breakdown"]["rockets"])
            tally["spring"] += res["breakdown"]["spring"]
            tally["anti_spring"] += res["breakdown"]["anti_spring"]
        if [float(x) for x in os_returns] != mine:
            bad.append((gi, style, os_returns, mine, res["breakdown"]))
    return {"games": games, "mismatches": len(bad), "counts": dict(tally), "examples": bad[:5],
            "legal_set_differences": differences}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m openlandlord.games.doudizhu.oracle_check",
                                description=__doc__.splitlines()[0])
    p.add_argument("--states", type=int, default=200_000, help="random states against rlcard")
    p.add_argument("--douzero-states", type=int, default=None,
                   help="states against douzero (default: states / 10; douzero is slow)")
    p.add_argument("--games", type=int, default=1000, help="random games against OpenSpiel")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    states = sample_states(args.states, args.seed)
    failed = False
    for name, result in (("rlcard", lambda: compare_rlcard(states)),
                         ("douzero", lambda: compare_douzero(states[: args.douzero_states or max(1, args.states // 10)])),
                         ("openspiel", lambda: compare_openspiel(args.games, args.seed))):
        try:
            r = result()
        except ImportError as exc:
            print(f"{name}: not installed ({exc})")
            continue
        failed |= r["mismatches"] > 0
        print(f"{name}: {r}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""What a person sees of a game, for the terminal table and the web table alike: the hand
grouped (Shengji: by suit, trumps apart), the current trick, who won the last one, the
round summary, and the end result told from one seat's side.

`view(state, seat, names)` is the picture as data (what the web table draws); a `Narrator`
turns each move into the lines announcing what it changed (a trick won, a landlord chosen,
a round over), which `openlandlord play` prints and the web table lists. Each game has its
own small view class here (`VIEWS`); every caller goes through `view`, `narrator` and
`end_result`.
"""
from __future__ import annotations

import numpy as np

SEAT_NAMES_SHENGJI = ("South", "East", "North", "West")


class DoudizhuView:
    game = "doudizhu"
    card_help = ("cards: 3-9, T = 10, J Q K A 2, B = black joker, R = red joker; type a move as "
                 "its cards in any order (e.g. 33, 345678, TTT9), or pass")

    def narrator(self, state, names):
        return DoudizhuNarrator(state, names)

    def role(self, obs, seat: int) -> str:
        if obs.landlord is None:
            return "bidding"
        return "landlord" if seat == obs.landlord else "farmer"

    def hand_groups(self, obs, hand=None) -> list[dict]:
        return [{"label": "hand", "cards": list(hand if hand is not None else obs.hand)}]

    def belief_by_rank(self, obs, expect):
        """(rank labels, [ranks, holders]) of the student's belief: its slots are the ranks."""
        return list("3456789TJQKA2BR"), expect

    def trick(self, obs) -> tuple[list, int | None]:
        """The plays of the round in progress ((seat, move) with "" a pass), and the seat that
        won the round before it (both others passed)."""
        current: list = []
        passes, last_player, winner = 0, None, None
        for seat, move in obs.plays:
            if passes == 2 and current:
                winner, current = last_player, []
            if move:
                passes, last_player = 0, seat
            else:
                passes += 1
            current.append((seat, move))
        if passes == 2 and current:
            winner, current = last_player, []
        return current, winner

    def summary(self, obs) -> list[str]:
        lines = [f"Dou Dizhu, {obs.bidding} bidding, {obs.phase}"]
        if obs.landlord is not None:
            lines.append(f"landlord: seat {obs.landlord}, kitty {obs.kitty}, stake {obs.stake}, "
                         f"bombs {obs.bombs_played}")
        elif obs.bids:
            lines.append("bids: " + ", ".join(f"seat {s} {a}" for s, a in obs.bids))
        return lines

    def data(self, obs) -> dict:
        trick, winner = self.trick(obs)
        return {"landlord": obs.landlord, "kitty": obs.kitty, "stake": obs.stake,
                "bombs": obs.bombs_played, "bids": [list(b) for b in obs.bids],
                "trick": [{"seat": s, "cards": m or "pass"} for s, m in trick],
                "last_winner": winner, "to_beat": obs.to_beat}

    def introduce(self, state, seat: int, names) -> list[str]:
        obs = state.observation(seat)
        if obs.landlord is None:
            return [f"seat {seat} ({names[seat]}): the bidding decides who is landlord"]
        return [f"seat {seat} ({names[seat]}) is {self.role(obs, seat)}; the landlord is seat "
                f"{obs.landlord} ({names[obs.landlord]}), with the kitty {obs.kitty}"]

    def opponents(self, state, seat: int) -> list[int]:
        landlord = state.result().get("landlord")
        return [s for s in range(3) if s != seat and (landlord is None or (s == landlord) != (seat == landlord))]

    def outcome_for(self, state, seat: int) -> tuple[bool | None, str]:
        result = state.result()
        pay = state.payoffs()[seat]
        if result.get("void") or result.get("landlord") is None:
            return None, "nobody bid: the deal is void, no score"
        side = "landlord" if seat == result["landlord"] else "farmers"
        won = result["winner"] == side
        return won, (f"{'won' if won else 'lost'} as {'landlord' if side == 'landlord' else 'a farmer'}: "
                     f"{pay:+g} points ({result['winner']} win)")


class ShengjiView:
    game = "shengji"
    card_help = ("cards: rank then suit, T = 10, suits S H D C; SJ = small joker, BJ = big joker; "
                 "type a play as cards separated by spaces (e.g. 7H 7H), or pass to decline")

    def narrator(self, state, names):
        return ShengjiNarrator(state, names)

    def _round(self, state):
        return getattr(state, "round", state)

    def _table(self, obs):
        from .. import games
        from ..games.shengji.rules import card_table
        return [np.asarray(a) for a in card_table(games.spec("shengji").rules_of(obs))]

    def role(self, obs, seat: int) -> str:
        return "declarer" if seat % 2 == obs.declarers else "attacker"

    def hand_groups(self, obs, hand=None) -> list[dict]:
        from ..games.shengji.rules import CARD_IDS
        cats = self._table(obs)[0]
        groups: dict[int, list[str]] = {}
        for card in (hand if hand is not None else obs.hand):
            groups.setdefault(int(cats[CARD_IDS[card]]), []).append(card)
        labels = {0: "spades", 1: "hearts", 2: "diamonds", 3: "clubs", 4: "trumps"}
        return [{"label": labels[c], "cards": groups[c]} for c in sorted(groups)]

    def belief_by_rank(self, obs, expect):
        """(rank labels, [ranks, holders]) of the student's belief, summed over the suits of
        its card slots (in the featurizer's slot order)."""
        from ..games.shengji.features import slot_order
        from ..games.shengji.rules import CARD_NAMES
        labels = list("23456789TJQKA") + ["SJ", "BJ"]
        per_rank = np.zeros((len(labels), expect.shape[1]))
        for slot, card_id in enumerate(slot_order(obs)):
            name = CARD_NAMES[card_id]
            per_rank[labels.index(name if name in ("SJ", "BJ") else name[0])] += expect[slot]
        return labels, per_rank

    def trick_points(self, obs, plays) -> int:
        from ..games.shengji.rules import CARD_IDS
        points = self._table(obs)[2]
        return int(sum(points[CARD_IDS[c]] for _, cards in plays for c in cards))

    def team_label(self, team: int) -> str:
        return f"{SEAT_NAMES_SHENGJI[team]}-{SEAT_NAMES_SHENGJI[team + 2]} (seats {team}, {team + 2})"

    def summary(self, obs) -> list[str]:
        from ..games.shengji.rules import RANKS
        level = [RANKS[min(v, 14) - 2] for v in obs.levels]
        return [f"Shengji ({obs.rules}), {obs.phase}: trump {obs.trump_rank}{obs.trump_suit or '?'}, "
                f"dealer seat {obs.dealer}, attackers {obs.attacker_points} points",
                f"levels: team {self.team_label(0)} {level[0]}, team {self.team_label(1)} {level[1]}; "
                f"declarers: team {obs.declarers}"]

    def data(self, obs) -> dict:
        last = None
        if obs.tricks:
            leader, plays, winner = obs.tricks[-1]
            last = {"plays": [{"seat": s, "cards": " ".join(c)} for s, c in plays], "winner": winner,
                    "points": self.trick_points(obs, plays)}
        return {"trump": f"{obs.trump_rank}{obs.trump_suit or '?'}", "levels": list(obs.levels),
                "declarers": obs.declarers, "dealer": obs.dealer,
                "attacker_points": obs.attacker_points,
                "trick": [{"seat": s, "cards": " ".join(c)} for s, c in obs.trick],
                "last_trick": last, "tricks_played": len(obs.tricks),
                "declaration": [obs.declaration[0], " ".join(obs.declaration[1])] if obs.declaration else None,
                "kitty": " ".join(obs.kitty)}

    def round_summary(self, finished, next_round=None) -> dict:
        """Points, who went up how many levels, the next trump and dealer, of a finished round
        (`next_round`: the match's next round, when there is one)."""
        from ..games.shengji.rules import RANKS
        result = finished.result()
        team, up = result["winning_team"], result["levels_up"]
        levels = list(finished.levels)
        levels[team] += up
        if next_round is not None:
            dealer, next_levels = next_round.dealer, list(next_round.levels)
            trump = f"{next_round.rules.trump_rank}{next_round.rules.trump_suit or ''}"
        else:
            dealer = (finished.dealer + 2) % 4 if result["winner"] == "declarers" else (finished.dealer + 1) % 4
            next_levels, trump = levels, None
        rank = RANKS[min(next_levels[dealer % 2], 14) - 2] if next_levels[dealer % 2] <= 14 else "past A"
        return {"attacker_points": result["attacker_points"], "winner": result["winner"],
                "winning_team": team, "levels_up": up, "levels": levels,
                "next_dealer": dealer, "next_trump_rank": rank, "next_trump": trump,
                "text": (f"round over: the attackers took {result['attacker_points']} points; "
                         f"the {result['winner']} (team {self.team_label(team)}) "
                         + (f"go up {up} level{'s' if up != 1 else ''}" if up else "take the deal, no level up")
                         + f"; next: seat {dealer} deals, trump rank {rank}"
                         + (f" ({trump})" if trump else ""))}

    def opponents(self, state, seat: int) -> list[int]:
        return [s for s in range(4) if s % 2 != seat % 2]

    def introduce(self, state, seat: int, names) -> list[str]:
        partner = (seat + 2) % 4
        return [f"seat {seat} ({names[seat]}) plays with seat {partner} ({names[partner]}) as team "
                f"{self.team_label(seat % 2)}, against team {self.team_label(1 - seat % 2)}"]

    def standing(self, state, rounds: int) -> str:
        """Where a match stopped after `rounds` rounds stands."""
        levels = state.levels
        return (f"after {rounds} round(s): team {self.team_label(0)} at level {levels[0]}, "
                f"team {self.team_label(1)} at level {levels[1]} (a match goes on past A)")

    def outcome_for(self, state, seat: int) -> tuple[bool | None, str]:
        result = state.result()
        team = seat % 2
        partner = (seat + 2) % 4
        if "rounds" in result:      # a match
            won = result["winner"] == team
            return won, (f"your team (you and seat {partner}) {'won' if won else 'lost'} the match; "
                         f"levels {result['levels'][0]}/{result['levels'][1]}")
        won = result["winning_team"] == team
        up = result["levels_up"]
        return won, (f"your team (you and seat {partner}) {'won' if won else 'lost'} the round "
                     f"as {'declarers' if team == result['declarers'] else 'attackers'}: "
                     f"{'+' if won else '-'}{up} level{'s' if up != 1 else ''}, "
                     f"attackers took {result['attacker_points']} points")


VIEWS = {"doudizhu": DoudizhuView(), "shengji": ShengjiView()}


def view_of(game: str):
    return VIEWS[game]


def view(state, seat: int, names: list[str], all_hands: bool = False) -> dict:
    """The table as `seat` sees it (every hand when `all_hands`: a replay), as JSON data."""
    obs = state.observation(seat)
    v = view_of(obs.game)
    hands = state.hands()
    seats = []
    for s in range(state.num_seats):
        entry = {"seat": s, "name": names[s], "role": v.role(obs, s), "cards_left": len(hands[s])}
        if all_hands or s == seat:
            entry["hand"] = v.hand_groups(obs, hands[s])
        seats.append(entry)
    return {"seat": seat, "phase": obs.phase, "summary": v.summary(obs), "seats": seats,
            "table": v.data(obs)}


class Narrator:
    """Announces what each move changed: a trick (or a Dou Dizhu round of plays) won, the
    landlord chosen, a Shengji round over with its summary. `update(state, seat, move)`
    after every move returns the lines to show. Each game's view makes its own
    (`narrator(state, names)`)."""

    def __init__(self, state, names: list[str]):
        self.names = names
        self.summaries: list[dict] = []   # round summaries, in order (Shengji)

    def who(self, seat: int) -> str:
        return f"seat {seat} ({self.names[seat]})"

    def update(self, state, seat: int, move) -> list[str]:
        raise NotImplementedError


class DoudizhuNarrator(Narrator):
    def __init__(self, state, names):
        super().__init__(state, names)
        self._landlord = state.observation(0).landlord

    def update(self, state, seat: int, move) -> list[str]:
        lines = []
        obs = state.observation(0)
        if obs.landlord is not None and self._landlord is None:
            self._landlord = obs.landlord
            lines.append(f"{self.who(obs.landlord)} is the landlord and takes the kitty {obs.kitty}")
        plays = obs.plays
        if len(plays) >= 3 and not plays[-1][1] and not plays[-2][1] and plays[-3][1] and not state.done:
            lines.append(f"{self.who(plays[-3][0])} wins the round with {plays[-3][1]} and leads")
        return lines


class ShengjiNarrator(Narrator):
    def __init__(self, state, names):
        super().__init__(state, names)
        self._round = getattr(state, "round", state)
        self._tricks = 0

    def update(self, state, seat: int, move) -> list[str]:
        view = VIEWS["shengji"]
        lines = []
        played_in = self._round      # a match replaces its round once the round is over
        obs = played_in.observation(0)
        if len(obs.tricks) > self._tricks:
            _, plays, winner = obs.tricks[-1]
            points = view.trick_points(obs, plays)
            lines.append(f"{self.who(winner)} wins the trick" + (f" ({points} points)" if points else ""))
        self._tricks = len(obs.tricks)
        if played_in.done:
            next_round = None if state.done or played_in is state else state.round
            summary = view.round_summary(played_in, next_round)
            self.summaries.append(summary)
            lines.append(summary["text"])
            self._round, self._tricks = getattr(state, "round", state), 0
        return lines


def narrator(state, names: list[str]) -> Narrator:
    return view_of(state.observation(0).game).narrator(state, names)


def end_result(state, seat: int) -> tuple[bool | None, str]:
    """(won: True/False, None for a void deal; a sentence) of a finished game for `seat`."""
    return view_of(state.observation(0).game).outcome_for(state, seat)


def opponents(state, seat: int) -> list[int]:
    """The seats playing against `seat` (Dou Dizhu: known once the landlord is)."""
    return view_of(state.observation(0).game).opponents(state, seat)


def introduce(state, seat: int, names: list[str]) -> list[str]:
    """What a person is told about its seat before the first move (Shengji: its partner)."""
    return view_of(state.observation(0).game).introduce(state, seat, names)


def standing(state, rounds: int) -> str:
    return view_of(state.observation(0).game).standing(state, rounds)


def card_help(game: str) -> str:
    """How cards are written and moves typed in `game` (shown once)."""
    return view_of(game).card_help

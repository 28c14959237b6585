"""Heuristic Shengji (tractor ruleset) players at three levels, behind the agent protocol.

- `easy`: loose but legal: mostly random, with a mild taste for cheap cards.
- `normal`: follows sensibly: wins point-rich tricks it can take as the last player, feeds
  points to a partner who is winning the trick, never puts points on a trick the opponents are
  winning, saves trumps and high cards, leads aces, pairs and tractors.
- `expert`: all of that, sharper: counts the cards played so far (a unit is a "master" when
  no unseen card can beat it), tracks public voids (a master may still be ruffed by an opponent
  void in the suit), feeds and takes points in the second and third seat when the win is
  certain, and spends trumps on point tricks.

`scores(obs, legal)` scores the referee's list; `choose_play(obs, level, rng)` picks a play
without the list when the legal set is too large to list (a void seat answering a long
tractor), building it card by card through the referee's factored options.

`python -m openlandlord.agents.shengji_rule --deals N` measures the levels against each other in
duplicate play: each deal twice with the teams swapped, the dealer rotating over the seats; the
figure per deal is the card points captured by the level under test minus those of its
opponent, averaged over the two plays, with a paired bootstrap CI.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from ..errors import UserError
from ..games.shengji import (Round, Rules, count_legal_plays, factored_options, legal_plays)
from ..games.shengji import _referee
from ..games.shengji.rules import CARD_IDS, CARD_NAMES, END, card_table, counts

LEVELS = ("easy", "normal", "expert")
CAP = 256
TRUMP = 4


class _Table:
    """A seat's view of one decision: card tables and what is still unseen."""

    def __init__(self, obs):
        self.obs = obs
        self.rules = Rules.tractor(obs.trump_rank, obs.trump_suit)
        cat, strength, points = card_table(self.rules)
        self.cat, self.strength, self.points = (np.asarray(a) for a in (cat, strength, points))
        self.hand = counts(list(obs.hand)).astype(np.int16)
        played = np.zeros(54, np.int16)
        for _, trick, _ in obs.tricks:
            for _, cards in trick:
                played += counts(cards)
        for _, cards in obs.trick:
            played += counts(cards)
        self.unseen = 2 - played - self.hand
        self.team = obs.seat % 2
        self.partner = (obs.seat + 2) % 4
        self.lead = list(obs.trick[0][1]) if obs.trick else None
        self.trick_vectors = [counts(cards) for _, cards in obs.trick]
        self.table_points = sum(int((v * self.points).sum()) for v in self.trick_vectors)
        if obs.trick:
            self.winning_seat = obs.trick[_referee.winner_of(
                self.rules.rank_index, self.rules.suit_index, self.trick_vectors)][0]
            self.led_cat = int(self.cat[CARD_IDS[obs.trick[0][1][0]]])
        else:
            self.winning_seat = None
            self.led_cat = None
        self.later = [(obs.seat + k) % 4 for k in range(1, 4 - len(obs.trick))]

    def wins_now(self, vector) -> bool:
        plays = self.trick_vectors + [vector]
        return _referee.winner_of(self.rules.rank_index, self.rules.suit_index,
                                  plays) == len(plays) - 1

    def master(self, vector) -> bool:
        """No unseen card (or pair) of the play's suit is higher, and no later opponent can
        ruff it as far as the public voids say."""
        ids = np.flatnonzero(vector)
        cat = int(self.cat[ids[0]])
        top = int(self.strength[ids].min()) if len(ids) > 1 else int(self.strength[ids[0]])
        if vector.sum() > 1:
            higher = (self.cat == cat) & (self.strength > top) & (self.unseen >= 2)
        else:
            higher = (self.cat == cat) & (self.strength > top) & (self.unseen >= 1)
        if higher.any():
            return False
        if cat != TRUMP:
            suit = "SHDC"[cat]
            for seat in self.later if self.obs.trick else [(self.obs.seat + k) % 4 for k in (1, 3)]:
                if seat % 2 != self.team and suit in self.obs.voids[seat] \
                        and "T" not in self.obs.voids[seat] and (self.unseen[self.cat == TRUMP] > 0).any():
                    return False
        return True

    def cost(self, vector) -> float:
        """How much strength a play spends: high cards and trumps are worth keeping."""
        ids = np.repeat(np.arange(54), vector)
        return float((self.strength[ids] + 14 * (self.cat[ids] == TRUMP)).sum())


def _score(t: _Table, play, level: str) -> float:
    vector = counts(play)
    pts = int((vector * t.points).sum())
    cost = t.cost(vector)
    n = int(vector.sum())
    trumps = int((vector * (t.cat == TRUMP)).sum())
    expert = level == "expert"
    if t.lead is None:
        kind = _referee.lead_kind(t.rules.rank_index, t.rules.suit_index, vector)
        score = 4.0 * kind[3] + (6.0 if kind[0] == 3 else 0.0)
        top = int(t.strength[np.flatnonzero(vector)].max())
        if expert:
            if t.master(vector):
                score += 12.0 + 0.5 * pts
            else:
                score -= 1.0 * pts + 2.0 * trumps
                # Lead into a suit where the partner is void and can ruff.
                if kind[1] != TRUMP and "SHDC"[kind[1]] in t.obs.voids[t.partner]:
                    score += 3.0
        else:
            if kind[1] != TRUMP and top == 12:
                score += 10.0
            score -= 0.6 * pts + 3.0 * trumps
        return score - 0.05 * cost / n
    last = not t.later
    total = t.table_points + pts
    wins = t.wins_now(vector)
    partner_winning = t.winning_seat == t.partner
    if expert:
        partner_safe = partner_winning and (last or t.master(t.trick_vectors[
            [s for s, _ in t.obs.trick].index(t.partner)]))
        sure_win = wins and (last or t.master(vector))
    else:
        # Without counting cards, a partner's ace or high trump is taken as safe.
        partner_safe = partner_winning and (last or _looks_high(t, t.trick_vectors[
            [s for s, _ in t.obs.trick].index(t.partner)]))
        sure_win = wins and last
    if partner_safe:
        return 3.0 * pts - 0.05 * cost - (6.0 * trumps if not expert or t.led_cat != TRUMP else 0)
    if partner_winning:
        # The partner leads the trick but may be beaten: play low, no points.
        return -1.0 * pts - 0.05 * cost
    if sure_win:
        gain = total if expert or t.table_points >= 10 else t.table_points
        return 5.0 + 2.0 * gain - 0.1 * cost
    if wins:
        # Winning for now, but a later seat may beat it: only worth it with points on the table.
        spend = 0.15 if expert and trumps and t.table_points >= 10 else 0.05
        return (1.0 * t.table_points if t.table_points >= 10 else 0.0) - 2.0 * pts - spend * cost
    return -3.0 * pts - 0.05 * cost


def _looks_high(t: _Table, vector) -> bool:
    ids = np.flatnonzero(vector)
    top = int(t.strength[ids].max())
    return top >= 20 if t.cat[ids[0]] == TRUMP else top == 12


class ShengjiRuleBot:
    """The Shengji rule bot at one level (see the module docstring)."""

    def __init__(self, level: str = "normal", seed=None):
        if level not in LEVELS:
            raise UserError(f"unknown rule level {level!r}; choose one of {', '.join(LEVELS)}")
        self.level = level
        self.name = "rule" if level == "normal" else f"rule:{level}"
        self.rng = np.random.default_rng(seed)

    def scores(self, obs, legal) -> np.ndarray:
        if self.level == "easy":
            return _easy_scores(obs, legal, self.rng)
        t = _Table(obs)
        return np.array([_score(t, play, self.level) for play in legal], dtype=np.float64)

    def choose_play(self, obs) -> tuple[str, ...]:
        return choose_play(obs, self.level, self.rng)


def _easy_scores(obs, legal, rng) -> np.ndarray:
    table = card_table(Rules.tractor(obs.trump_rank, obs.trump_suit))[1]
    cheap = np.array([-sum(table[CARD_IDS[c]] for c in play) / len(play) for play in legal])
    return rng.random(len(legal)) * 10.0 + 0.2 * cheap


def choose_play(obs, level: str, rng) -> tuple[str, ...]:
    """The play this level makes, without needing the full legal list when it is huge."""
    rules = Rules.tractor(obs.trump_rank, obs.trump_suit)
    hand = list(obs.hand)
    lead = list(obs.trick[0][1]) if obs.trick else None
    if count_legal_plays(rules, hand, lead) <= CAP:
        legal = legal_plays(rules, hand, lead)
        bot = ShengjiRuleBot(level)
        bot.rng = rng
        return legal[int(np.argmax(bot.scores(obs, legal)))]
    # Huge follow sets come from a void seat: the led-suit cards are forced, the rest is a
    # discard. Build it card by card, best card first.
    t = _Table(obs)
    feed = t.winning_seat == t.partner and level != "easy"
    prefix: list[str] = []
    while options := factored_options(rules, hand, lead, prefix):
        options = [o for o in options if o != END]
        if level == "easy":
            prefix.append(options[int(rng.integers(len(options)))])
            continue
        ids = np.array([CARD_IDS[o] for o in options])
        value = (t.strength[ids] + 14 * (t.cat[ids] == TRUMP)).astype(float)
        value += np.where(feed, -3.0, 3.0) * t.points[ids]
        prefix.append(options[int(np.argmin(value))])
    return tuple(sorted(prefix))


def _play(r: Round, bots) -> None:
    seat = r.current_seat
    bot = bots[seat]
    obs = r.observation(seat)
    if r.count_legal() > CAP:
        r.play(bot.choose_play(obs))
        return
    legal = r.legal_moves()
    r.play(legal[int(np.argmax(bot.scores(obs, legal)))])


def duplicate(level_a: str, level_b: str, deals: int, seed: int = 0) -> np.ndarray:
    """Per deal: card points captured by `level_a`'s team minus `level_b`'s, averaged over the
    two plays of the deal (teams swapped)."""
    out = np.zeros(deals)
    for d in range(deals):
        margin = 0.0
        for a_team in (0, 1):
            bots = [ShengjiRuleBot(level_a if s % 2 == a_team else level_b, seed * 1000003 + d * 4 + s)
                    for s in range(4)]
            r = Round.new(seed * 1000003 + d, dealer=d % 4)
            while not r.done:
                _play(r, bots)
            team_points = [0, 0]
            team_points[1 - r.declarers] = r.attacker_points
            team_points[r.declarers] = r.declarer_points
            margin += team_points[a_team] - team_points[1 - a_team]
        out[d] = margin / 2
    return out


def bootstrap_ci(values: np.ndarray, seed: int = 0, n: int = 4000) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = values[rng.integers(len(values), size=(n, len(values)))].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairs", default="expert-normal,normal-easy",
                        help="comma-separated A-B level pairs")
    args = parser.parse_args(argv)
    print(f"duplicate play, {args.deals} deals x 2 (teams swapped), seed {args.seed}")
    for pair in args.pairs.split(","):
        a, b = pair.split("-")
        margins = duplicate(a, b, args.deals, args.seed)
        lo, hi = bootstrap_ci(margins, args.seed)
        print(f"  {a} vs {b}: {margins.mean():+.1f} card points per deal, 95% CI [{lo:+.1f}, {hi:+.1f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

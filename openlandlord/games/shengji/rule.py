"""Heuristic Shengji players at three levels, behind the agent protocol (both rulesets; in
`classic` they also declare trumps, bury the kitty and, at the expert level, throw).

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

`complete(state, prefix, obs)` is the full play a candidate prefix of a card-by-card build is
scored by in datasets (the expert's discard order). The levels are measured against each other
by the ordinary arena: `openlandlord eval --game shengji --agent rule:expert --opponent rule
--deals 400 --seed 1` (`--rules classic` for the full game).
"""
from __future__ import annotations

import itertools

import numpy as np

from ...errors import UserError
from . import Rules, count_legal_plays, factored_options, legal_plays
from . import _referee, classic
from .rules import CARD_IDS, CARD_NAMES, END, card_table, counts
from .state import DEFAULT_CAP as CAP   # the referee's listing cap

LEVELS = ("easy", "normal", "expert")
TRUMP = 4


class _Table:
    """A seat's view of one decision: card tables and what is still unseen."""

    def __init__(self, obs):
        self.obs = obs
        self.rules = rules_of(obs)
        self._classic = self.rules.table() if self.rules.name == "classic" else None
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
            self.winning_seat = obs.trick[self.winner_index(self.trick_vectors)][0]
            self.led_cat = int(self.cat[CARD_IDS[obs.trick[0][1][0]]])
        else:
            self.winning_seat = None
            self.led_cat = None
        self.later = [(obs.seat + k) % 4 for k in range(1, 4 - len(obs.trick))]

    def winner_index(self, vectors) -> int:
        if self._classic is not None:
            return classic.trick_winner(self._classic, vectors)
        return _referee.winner_of(self.rules.rank_index, self.rules.suit_index, vectors)

    def lead_shape(self, vector) -> tuple[int, int, bool, list]:
        """(cat, pairs, has a tractor, units) of a lead; several units make a throw."""
        if self._classic is not None:
            fmt = classic.lead_format(self._classic, vector)
            return fmt.cat, fmt.pairs, bool(fmt.tractors), list(fmt.units)
        kind = _referee.lead_kind(self.rules.rank_index, self.rules.suit_index, vector)
        return kind[1], kind[3], kind[0] == 3, [None]

    def wins_now(self, vector) -> bool:
        plays = self.trick_vectors + [vector]
        return self.winner_index(plays) == len(plays) - 1

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
        cat, pairs, tractor, units = t.lead_shape(vector)
        if len(units) > 1:
            # A throw: worth it only when every unit is known to stand (expert counts cards).
            if expert and all(t.master(_vector_of(u.cards)) for u in units):
                return 20.0 + 2.0 * len(units) + 0.5 * pts
            return -50.0
        score = 4.0 * pairs + (6.0 if tractor else 0.0)
        top = int(t.strength[np.flatnonzero(vector)].max())
        if expert:
            if t.master(vector):
                score += 12.0 + 0.5 * pts
            else:
                score -= 1.0 * pts + 2.0 * trumps
                # Lead into a suit where the partner is void and can ruff.
                if cat != TRUMP and "SHDC"[cat] in t.obs.voids[t.partner]:
                    score += 3.0
        else:
            if cat != TRUMP and top == t.strength[t.cat == cat].max():
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


def rules_of(obs) -> Rules:
    if obs.rules == "classic":
        return Rules.classic(obs.trump_rank, obs.trump_suit or "N")
    return Rules.tractor(obs.trump_rank, obs.trump_suit)


def _vector_of(ids):
    vector = np.zeros(54, np.uint8)
    for c in ids:
        vector[c] += 1
    return vector


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
        if obs.phase == "declare":
            return _declare_scores(obs, legal, self.level, self.rng)
        if obs.phase == "bury":
            t = _Table(obs)
            return np.array([-sum(_keep_value(t, CARD_IDS[c]) for c in move) for move in legal])
        if self.level == "easy":
            return _easy_scores(obs, legal, self.rng)
        t = _Table(obs)
        return np.array([_score(t, play, self.level) for play in legal], dtype=np.float64)

    def choose_play(self, obs) -> tuple[str, ...]:
        return choose_play(obs, self.level, self.rng)


def _declare_scores(obs, legal, level, rng) -> np.ndarray:
    """Declare a suit when enough of the hand so far would be trump with it."""
    if level == "easy":
        return rng.random(len(legal))
    out = []
    for move in legal:
        if not move:
            out.append(0.0)
            continue
        suit = "N" if move[0] in ("SJ", "BJ") else move[0][1]
        trumps = sum(1 for c in obs.hand if c in ("SJ", "BJ") or c[0] == obs.trump_rank
                     or c[1] == suit)
        out.append(trumps / max(1, len(obs.hand)) - (0.3 if suit != "N" else 0.2))
    return np.array(out)


def _keep_value(t: "_Table", card: int) -> float:
    """How much a card is worth keeping rather than burying: trumps, high cards and points."""
    return float(t.strength[card] + 14 * (t.cat[card] == TRUMP) + 0.8 * t.points[card])


def _easy_scores(obs, legal, rng) -> np.ndarray:
    table = card_table(rules_of(obs))[1]
    cheap = np.array([-sum(table[CARD_IDS[c]] for c in play) / len(play) for play in legal])
    return rng.random(len(legal)) * 10.0 + 0.2 * cheap


def _lead_candidates(t: "_Table", expert: bool) -> list[tuple[str, ...]]:
    """The single units of the hand (and, for the expert, a throw of a suit's master units):
    a short list to choose a lead from when every set of one suit is a legal lead."""
    hand = t.hand
    out = {(CARD_NAMES[c],) for c in np.flatnonzero(hand)}
    out |= {(CARD_NAMES[c],) * 2 for c in np.flatnonzero(hand == 2)}
    for cat in range(5):
        held = hand * (t.cat == cat)
        for run in classic.pair_runs(t._classic, held):
            if len(run) >= 2:
                out.add(tuple(sorted(CARD_NAMES[c] for c in run for _ in (0, 1))))
        if expert and cat != TRUMP:
            masters = [u for u in classic.decompose(t._classic, held)
                       if t.master(_vector_of(u.cards))]
            if len(masters) >= 2:
                out.add(tuple(sorted(CARD_NAMES[c] for u in masters for c in u.cards)))
    return sorted(out)


# Point weights of the burial candidates' keeping orders (`burial_candidates`): the rule bot's
# (+0.8: points kept), indifferent, and two that bury points first.
_BURY_POINT_WEIGHTS = (0.8, 0.0, -0.6, -1.2)


def burial_candidates(obs) -> list[tuple[str, ...]]:
    """A short list of whole burials for the dealer's 33 cards (`burial=listed`: the form a
    network player and the search choose a burial in, one listed decision): the 8 cards
    cheapest to keep by the rule bot's keeping order and by orders that weigh the point cards
    less (down to burying them first), with and without keeping pairs whole, and each of those
    after burying every card of one or two short plain suits (a void to trump into later).
    The rule bot's own burial is the first candidate."""
    t = _Table(obs)
    hand = t.hand.astype(int)
    cards = np.repeat(np.arange(54), hand)
    plain = [cat for cat in range(4) if (hand * (t.cat == cat)).sum()]
    voids: list[tuple[int, ...]] = [()]
    for size in (1, 2):
        for group in itertools.combinations(plain, size):
            if sum(int((hand * (t.cat == cat)).sum()) for cat in group) <= 8:
                voids.append(group)
    out: dict[tuple[str, ...], None] = {}
    for weight in _BURY_POINT_WEIGHTS:
        keep = t.strength[cards] + 14.0 * (t.cat[cards] == TRUMP) + weight * t.points[cards]
        for whole_pairs in (False, True):
            value = keep + (4.0 * (hand[cards] == 2) if whole_pairs else 0.0)
            for group in voids:
                forced = np.isin(t.cat[cards], group) if group else np.zeros(len(cards), bool)
                # Stable: ties go in card order, so the rule bot's burial comes out first.
                order = np.lexsort((value, ~forced))
                out.setdefault(tuple(sorted(CARD_NAMES[c] for c in cards[order[:8]])), None)
    return list(out)


def choose_play(obs, level: str, rng) -> tuple[str, ...]:
    """The move this level makes, without needing the full legal list when it is huge (a
    void seat's follow, a `classic` lead or burial). Declarations are always listed: score
    them with `scores`."""
    rules = rules_of(obs)
    hand = list(obs.hand)
    t = _Table(obs)
    if obs.phase == "declare":
        raise UserError("declarations are few: score the referee's legal_moves() instead")
    if obs.phase == "bury":
        order = sorted(np.repeat(np.arange(54), t.hand.astype(int)),
                       key=lambda c: (_keep_value(t, c), rng.random() if level == "easy" else 0))
        return tuple(sorted(CARD_NAMES[c] for c in order[:8]))
    lead = list(obs.trick[0][1]) if obs.trick else None
    bot = ShengjiRuleBot(level)
    bot.rng = rng
    if count_legal_plays(rules, hand, lead) <= CAP:
        legal = legal_plays(rules, hand, lead)
        return legal[int(np.argmax(bot.scores(obs, legal)))]
    if lead is None:
        candidates = _lead_candidates(t, level == "expert")
        return candidates[int(np.argmax(bot.scores(obs, candidates)))]
    # Huge follow sets come from a void seat: the led-suit cards are forced, the rest is a
    # discard. Build it card by card, best card first.
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


def complete(state, prefix: tuple, obs) -> tuple:
    """The full play dataset generation scores a candidate prefix of a card-by-card build by:
    the prefix grown card by card with the cheapest card the referee offers (by trump-order strength, trumps
    dearest; point cards go last, or first when the partner is winning the trick: the expert
    rule bot's discard order), sorted, until it is a complete play. END and an already
    complete prefix stay as they are: so a `classic` lead is scored as the lead it already is
    (a single grows into a pair, a tractor or a throw only by later steps), never completed
    into a throw of its whole suit."""
    from . import trick_winner
    rules = rules_of(obs)
    cats, strength, points = (np.asarray(a) for a in card_table(rules))
    feed = bool(obs.trick) and obs.trick[trick_winner(rules, [c for _, c in obs.trick])][0] == (obs.seat + 2) % 4
    play = tuple(prefix)
    while (offered := state.factored_options(play)) and END not in offered:
        options = list(offered)
        ids = np.array([CARD_IDS[o] for o in options])
        value = (strength[ids] + 14 * (cats[ids] == 4)).astype(np.float64)
        value += (-3.0 if feed else 3.0) * points[ids]
        play = play + (options[int(np.argmin(value))],)
    return tuple(sorted(play))

"""Shengji's PIMC decision adapter: an observation turned into the arguments of the native
search (`_pimc.pyx`: world sampling consistent with hand sizes and shown voids, expert
rule-bot rollouts, the search loop). The generic search (`openlandlord.agents.pimc`) asks
the game's spec for one of these per decision. Ruleset `tractor` searches through `_pimc.pyx`;
ruleset `classic` through `_pimc_classic.pyx`: its play decisions (throws and their failure
included), the dealer's burial (each candidate is a whole burial: the decision loop builds
it card by card and scores each step by its completed burial) and the declarations (pass,
declare alone or with the pair, each rolled out over the rest of the deal, the burial and
the play: `search_declaration`) are all searched; the declarations only with
`pimc:declare=search` (measured weaker than the rule bot's on the dev set, docs/pimc.md), by
default they take the rule bot's scores. `pimc:solve=K` (worlds solved exactly once K or fewer
cards are left, `_solve.pyx`, docs/solve.md) serves both rulesets: in `classic` the play
decisions and the burial's rollouts hand over to the solver (the declarations' do not)."""
from __future__ import annotations

import numpy as np

from ...errors import UserError

OBJECTIVES = ("levels", "points")


def decision(obs, legal, objective: str):
    if obs.rules == "classic":
        return ClassicDecision(obs, legal, objective)
    return Decision(obs, legal, objective)


class Decision:
    """One Shengji play decision as the native search needs it."""
    searched = True
    bidding = False
    beliefs = True          # searches worlds weighted by a belief (pimc:belief=student:DIR)

    def __init__(self, obs, legal, objective: str = "levels"):
        from . import Rules, _referee
        from .rules import CATS, counts
        if obs.rules != "tractor":
            raise UserError(f"pimc searches the Shengji tractor ruleset only, not {obs.rules!r}")
        self.obs = obs
        self.legal = legal
        self.objective = objective
        self.rules = Rules.tractor(obs.trump_rank, obs.trump_suit)
        self.hand = counts(list(obs.hand)).astype(np.uint8)
        seen = self.hand.astype(np.int16)
        for _, trick, _ in obs.tricks:
            for _, cards in trick:
                seen += counts(cards)
        self.trick = [counts(cards).astype(np.uint8) for _, cards in obs.trick]
        for vector in self.trick:
            seen += vector
        self.unseen = (2 - seen).astype(np.uint8)
        others = [(obs.seat + k) % 4 for k in (1, 2, 3)]
        self.sizes = [obs.cards_left[o] for o in others]
        self.masks = [sum(1 << CATS.index(c) for c in obs.voids[o]) for o in others]
        self.leader = obs.trick[0][0] if obs.trick else obs.seat
        self.plays = [counts(play).astype(np.uint8) for play in legal]
        lead = self.trick[0] if self.trick else None
        for play, vector in zip(legal, self.plays):
            # The native search plays what it is given: only complete legal plays may go in.
            if _referee.play_error(self.rules.rank_index, self.rules.suit_index, self.hand,
                                   lead, vector):
                raise UserError(f"pimc: {tuple(play)!r} is not a complete legal play of seat "
                                f"{obs.seat} here")

    def rule_scores(self):
        from .rule import ShengjiRuleBot
        return ShengjiRuleBot("expert").scores(self.obs, self.legal)

    def search(self, which, skip: int, worlds: int, rollout: str, seed: int, solve: int = 0,
               belief: np.ndarray | None = None, draws: int = 1):
        """Each play's mean score over the worlds; with solve = K > 0 every world is solved
        exactly once K or fewer cards are left in all hands (`_solve.pyx`); with `belief`
        (`belief_weights`) each world is the one of `draws` drawn worlds kept in proportion
        to its weight under it."""
        from . import _pimc as native
        o = self.obs
        try:
            return native.search(self.rules.rank_index, self.rules.suit_index, self.hand, o.seat,
                                 self.leader, self.trick, o.declarers, o.attacker_points,
                                 self.unseen, self.sizes, self.masks,
                                 [self.plays[k] for k in which], skip, worlds, rollout,
                                 seed, self.objective, solve, belief=belief, draws=draws)
        except ValueError as exc:
            raise UserError(f"pimc: observation of seat {o.seat} is inconsistent: {exc}") from None

    def belief_weights(self, student) -> np.ndarray:
        """A student's belief head on this position as the search's world weights: float64
        [3, 54], the log of the expected count of each card (by card id) in the hidden hands
        of the seats after this one (floored at 1e-3), so that a world weighs the product of
        its cards' expected counts (their per-copy chances up to a factor per card, the same
        in every world)."""
        from ...features import featurize
        from .features import slot_order
        expect = np.asarray(student.forward(featurize(self.obs, self.legal))["belief_expect"],
                            np.float64)
        by_card = np.zeros((54, 3))
        by_card[slot_order(self.obs)] = expect
        return np.ascontiguousarray(np.log(np.maximum(by_card, 1e-3)).T)


class ClassicDecision(Decision):
    """One `classic` decision as the native search needs it (module docstring); its rule
    scores are the tractor decision's (the expert rule bot plays both rulesets)."""
    beliefs = False

    def __init__(self, obs, legal, objective: str = "levels"):
        from .rules import CATS, Rules, counts
        self.obs, self.legal, self.objective = obs, legal, objective
        self.searched = True
        self.bidding = obs.phase in ("declare", "bury")     # what pimc:bid=rule leaves to the rule bot
        self.declaring = obs.phase == "declare"             # searched with pimc:declare=search
        if obs.phase == "declare":
            self._declaring(obs, legal)
            return
        self.bury = obs.phase == "bury"
        self.rules = Rules.classic(obs.trump_rank, obs.trump_suit or "N")
        self.hand = counts(list(obs.hand)).astype(np.uint8)
        seen = self.hand.astype(np.int16)
        played = np.zeros((4, 54), np.int16)
        for _, trick, _ in obs.tricks:
            for who, cards in trick:
                played[who] += counts(cards)
        self.trick = [counts(cards).astype(np.uint8) for _, cards in obs.trick]
        for who, cards in obs.trick:
            played[who] += counts(cards)
        seen += played.sum(axis=0)
        # The dealer knows what it buried (in play); at the burial the kitty is in its hand.
        if self.bury:
            self.kitty = np.zeros(54, np.uint8)
        elif obs.kitty:
            self.kitty = counts(list(obs.kitty)).astype(np.uint8)
            seen += self.kitty
        else:
            self.kitty = None
        others = [(obs.seat + k) % 4 for k in (1, 2, 3)]
        # A standing declaration's cards are in the declarer's hand until it plays them,
        # unless the declarer is the dealer, who may have buried them in the kitty.
        self.known = [np.zeros(54, np.uint8) for _ in others]
        if obs.declaration and obs.declaration[0] not in (obs.seat, obs.dealer):
            who, cards = obs.declaration
            held = np.maximum(counts(list(cards)).astype(np.int16) - played[who], 0)
            self.known[others.index(who)] = held.astype(np.uint8)
            seen += held
        if (seen > 2).any():
            raise UserError(f"pimc: observation of seat {obs.seat} shows a card more than twice")
        self.unseen = (2 - seen).astype(np.uint8)
        self.sizes = [obs.cards_left[o] for o in others]
        self.masks = [sum(1 << CATS.index(c) for c in obs.voids[o]) for o in others]
        self.leader = obs.trick[0][0] if obs.trick else obs.seat
        self.penalty = sum((10 if who % 2 == obs.declarers else -10) * (len(tried) - len(done))
                           for who, tried, done in obs.failed_throws)
        self.plays = [counts(list(play)).astype(np.uint8) for play in legal]
        for play, vector in zip(legal, self.plays):
            if (vector > self.hand).any() or (self.bury and vector.sum() != 8):
                raise UserError(f"pimc: {tuple(play)!r} is not a complete legal "
                                f"{'burial' if self.bury else 'play'} of seat {obs.seat} here")

    def _declaring(self, obs, legal) -> None:
        """A declaration: the seat has seen its own cards so far and the standing declaration,
        whose cards its declarer holds; every other card is still to place."""
        from .classic_round import declaration_strength
        from .rules import RANKS, SUITS, counts
        self.rank = RANKS.index(obs.trump_rank)
        self.hand = counts(list(obs.hand)).astype(np.uint8)
        others = [(obs.seat + k) % 4 for k in (1, 2, 3)]
        self.known = [np.zeros(54, np.uint8) for _ in others]
        self.declared, self.suit = 0, -1
        if obs.declaration:
            who, cards = obs.declaration
            self.declared = declaration_strength(cards)
            self.suit = -1 if cards[0] in ("SJ", "BJ") else SUITS.index(cards[0][1])
            if who != obs.seat:
                self.known[others.index(who)] = counts(list(cards)).astype(np.uint8)
        seen = self.hand.astype(np.int16) + sum(k.astype(np.int16) for k in self.known)
        if (seen > 2).any():
            raise UserError(f"pimc: observation of seat {obs.seat} shows a card more than twice")
        self.unseen = (2 - seen).astype(np.uint8)
        self.dealt = sum(obs.cards_left)
        self.plays = [counts(list(move)).astype(np.uint8) for move in legal]

    def search(self, which, skip: int, worlds: int, rollout: str, seed: int, solve: int = 0):
        from . import _pimc_classic as native
        o = self.obs
        try:
            if o.phase == "declare":
                return native.search_declaration(
                    self.rank, self.hand, o.seat, o.dealer, self.dealt, self.declared,
                    self.suit, self.unseen, self.known, [self.plays[k] for k in which], skip,
                    worlds, rollout, seed, self.objective)
            return native.search(self.rules.rank_index, self.rules.suit_index, self.hand, o.seat,
                                 self.leader, self.trick, o.declarers, o.attacker_points,
                                 self.penalty, self.unseen, self.sizes, self.masks, self.known,
                                 self.kitty, [self.plays[k] for k in which], skip, worlds,
                                 rollout, seed, self.objective, self.bury, solve)
        except ValueError as exc:
            raise UserError(f"pimc: observation of seat {o.seat} is inconsistent: {exc}") from None

"""`pimc:worlds=N,rollout=rule`: the built-in search teacher (Perfect Information Monte Carlo).

At a decision with more than one legal move it samples N worlds consistent with everything
the seat knows, forces each legal move in each world, plays every world to the end natively
with a rollout policy and scores each move by its mean final signed score for the seat's
side. The worlds are the same for every move (common random numbers) and come from the
agent's own RNG (seeded by `make(spec, seed)`), so the same seed and position give the same
scores. Sampling, rollouts and the search loop run in Cython (`_pimc_doudizhu.pyx`,
`_pimc_shengji.pyx`); this module turns an observation into their arguments. docs/pimc.md
has the details and the measured strength and speed.

Options: `worlds` (default 96 in Dou Dizhu, 16 in Shengji, whose rollouts are several times
longer), `rollout` (`rule`, the default, or `random`), `cap` (default
24: at most this many moves are searched; beyond it the rule policy picks the candidates and
the other moves score below every searched one, in the rule policy's order).

Scores. Dou Dizhu: the seat's zero-sum payoff (base stake, bombs, rocket, spring and doubles
as settled by the referee). Shengji: the signed levels the seat's team goes up (what the
arena reports per deal), plus the signed card-point margin / 1000 to break ties between moves
of equal level outcome. Bidding decisions in Dou Dizhu are not searched: they take the rule
bot's bidding (`DouDizhuRuleBot.bid_scores`).
"""
from __future__ import annotations

import numpy as np

from . import Spec, check_options, option
from ..errors import UserError

ROLLOUTS = ("rule", "random")
OBJECTIVES = ("levels", "points")   # Shengji search objectives (docs/pimc.md)
DEFAULT_WORLDS = {"doudizhu": 96, "shengji": 16}
DEFAULT_CAP = 24


class PimcAgent:
    """The PIMC teacher for whichever game the observation comes from."""

    def __init__(self, worlds: int | None = None, rollout: str = "rule",
                 cap: int = DEFAULT_CAP, seed: int | None = None, name: str = "pimc",
                 objective: str = "levels"):
        if worlds is not None and worlds < 1:
            raise UserError(f"pimc needs worlds >= 1, got {worlds}")
        if rollout not in ROLLOUTS:
            raise UserError(f"unknown pimc rollout {rollout!r}; "
                            f"choose one of {', '.join(ROLLOUTS)}")
        if cap < 1:
            raise UserError(f"pimc needs cap >= 1, got {cap}")
        if objective not in OBJECTIVES:
            raise UserError(f"unknown pimc objective {objective!r}; "
                            f"choose one of {', '.join(OBJECTIVES)}")
        self.objective = objective
        self.name = name
        self.worlds = worlds
        self.rollout = rollout
        self.cap = cap
        self.rng = np.random.default_rng(seed)
        self._bidder = None

    def scores(self, obs, legal) -> np.ndarray:
        if len(legal) == 0:
            raise UserError("pimc was asked to score an empty legal move list")
        if len(legal) == 1:
            return np.zeros(1)          # a forced move: nothing to search
        if obs.game == "doudizhu":
            if self.objective != "levels":
                raise UserError(f"pimc objective {self.objective!r} is for Shengji; Dou Dizhu "
                                "searches the game's score")
            if obs.phase == "bidding":
                return self._bid_scores(obs, legal)
            return self._search(legal, _DoudizhuDecision(obs, legal), obs.game)
        if obs.game == "shengji":
            return self._search(legal, _ShengjiDecision(obs, legal, self.objective), obs.game)
        raise UserError(f"the pimc agent has no search for game {obs.game!r}")

    def choose_play(self, obs) -> tuple:
        """A Shengji follow too large to list (a void seat answering a long tractor): the
        expert rule bot builds it card by card; it is not searched."""
        from .shengji_rule import choose_play
        return choose_play(obs, "expert", self.rng)

    def _bid_scores(self, obs, legal) -> np.ndarray:
        if self._bidder is None:
            from .doudizhu_rule import DouDizhuRuleBot
            self._bidder = DouDizhuRuleBot("normal")
        return self._bidder.bid_scores(obs, legal)

    def _search(self, legal, decision, game: str) -> np.ndarray:
        """Search the candidates (all moves, or the rule policy's top `cap`) by successive
        halving over one sequence of worlds: every candidate is played in the first quarter
        of the worlds, the better half of them in the first half, the better half of those in
        all of them. A move's score is its mean over the worlds it was played in, capped
        just below every move that was searched further; moves outside the candidates score
        below every searched one, in the rule policy's order."""
        n = len(legal)
        if n <= self.cap:
            alive = np.arange(n)
        else:
            order = np.argsort(-np.asarray(decision.rule_scores(), dtype=np.float64), kind="stable")
            alive = np.sort(order[:self.cap])
        searched = alive
        seed = int(self.rng.integers(2**63))
        worlds = self.worlds or DEFAULT_WORLDS[game]
        stages = sorted({max(1, worlds // 4), max(1, worlds // 2), worlds})
        total = np.zeros(n)
        seen = np.zeros(n, dtype=np.int64)
        done = 0
        for i, end in enumerate(stages):
            means = np.asarray(decision.search(alive, done, end - done, self.rollout, seed))
            total[alive] += means * (end - done)
            seen[alive] = end
            done = end
            if i + 1 < len(stages) and len(alive) > 2:
                keep = max(2, (len(alive) + 1) // 2)
                mean = total[alive] / end
                alive = np.sort(alive[np.argsort(-mean, kind="stable")[:keep]])
        out = np.full(n, -np.inf)
        out[searched] = total[searched] / seen[searched]
        floor = np.inf
        for count in sorted(set(seen[searched].tolist()), reverse=True):
            group = searched[seen[searched] == count]
            out[group] = np.minimum(out[group], np.nextafter(floor, -np.inf))
            floor = min(floor, out[group].min())
        if len(searched) < n:
            rest = order[self.cap:]
            out[rest] = floor - 1.0 - np.arange(len(rest)) / len(rest)
        return out


class _DoudizhuDecision:
    """One Dou Dizhu play decision as the native search needs it."""

    def __init__(self, obs, legal):
        from ..games.doudizhu import ACTION_ID, classify, legal_moves
        if obs.landlord is None:
            raise UserError("pimc: a Dou Dizhu play decision without a landlord")
        allowed = set(legal_moves(obs.hand, obs.to_beat))
        wrong = [m for m in legal if m not in allowed]
        if wrong:
            raise UserError(f"pimc: {wrong[0]!r} is not a legal move of seat {obs.seat} here "
                            "(moves are canonical card strings)")
        self.obs = obs
        self.moves = [ACTION_ID[m] for m in legal]
        self.hand = _packed(obs.hand)
        played = [_packed(cards) for cards in obs.played]
        self.unseen = _FULL_DECK - self.hand - sum(played)
        self.plays = [0, 0, 0]
        self.bombs = self.rockets = 0
        for seat, move in obs.plays:
            if move:
                self.plays[seat] += 1
                kind = classify(move)[0]
                self.bombs += kind == "bomb"
                self.rockets += kind == "rocket"
        lord = obs.landlord
        self.lord_keeps = 0
        if obs.seat != lord:
            kitty, gone = _packed(obs.kitty), played[lord]
            for r in range(15):
                keep = ((kitty >> 4 * r) & 0xF) - ((gone >> 4 * r) & 0xF)
                if keep > 0:
                    self.lord_keeps += keep << 4 * r
        if obs.bidding == "points":
            self.base = max([int(a[3:]) for _, a in obs.bids if a.startswith("bid")], default=1)
        elif obs.bidding == "call-rob":
            self.base = 1 << obs.robs
        else:
            self.base = 1
        if obs.bidding == "call-rob":
            lord_double = 2 if obs.doubled[lord] else 1
            self.factor = [lord_double * (2 if obs.doubled[f] else 1) for f in range(3)]
        else:
            self.factor = [1, 1, 1]
        self.to_beat = ACTION_ID[obs.to_beat] if obs.to_beat else 0
        self.to_beat_seat = obs.to_beat_seat if obs.to_beat else -1

    def rule_scores(self):
        from . import _pimc_doudizhu as native
        o = self.obs
        return native.rule_scores(self.hand, o.seat, o.landlord, o.cards_left, self.to_beat,
                                  self.to_beat_seat, self.unseen, self.moves)

    def search(self, which, skip: int, worlds: int, rollout: str, seed: int):
        from . import _pimc_doudizhu as native
        o = self.obs
        try:
            return native.search(self.hand, o.seat, o.landlord, o.cards_left, self.plays,
                                 self.to_beat, self.to_beat_seat, self.bombs, self.rockets,
                                 self.base, self.factor, self.unseen, self.lord_keeps,
                                 [self.moves[k] for k in which], skip, worlds, rollout, seed)
        except ValueError as exc:
            raise UserError(f"pimc: observation of seat {o.seat} is inconsistent: {exc}") from None


class _ShengjiDecision:
    """One Shengji play decision as the native search needs it."""

    def __init__(self, obs, legal, objective: str = "levels"):
        from ..games.shengji import Rules, _referee
        from ..games.shengji.rules import CATS, counts
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
        from .shengji_rule import ShengjiRuleBot
        return ShengjiRuleBot("expert").scores(self.obs, self.legal)

    def search(self, which, skip: int, worlds: int, rollout: str, seed: int):
        from . import _pimc_shengji as native
        o = self.obs
        try:
            return native.search(self.rules.rank_index, self.rules.suit_index, self.hand, o.seat,
                                 self.leader, self.trick, o.declarers, o.attacker_points,
                                 self.unseen, self.sizes, self.masks,
                                 [self.plays[k] for k in which], skip, worlds, rollout,
                                 seed, self.objective)
        except ValueError as exc:
            raise UserError(f"pimc: observation of seat {o.seat} is inconsistent: {exc}") from None


_RANK = {ch: r for r, ch in enumerate("3456789TJQKA2BR")}
_FULL_DECK = sum(4 << 4 * r for r in range(13)) + (1 << 4 * 13) + (1 << 4 * 14)


def _packed(cards: str) -> int:
    """Dou Dizhu cards as the referee's packed rank counts (4 bits per rank)."""
    return sum(1 << 4 * _RANK[ch] for ch in cards)


def make_pimc(spec: Spec, seed: int | None) -> PimcAgent:
    check_options(spec, {"worlds", "rollout", "cap", "objective"})
    if spec.arg is not None:
        raise UserError(f"agent spec {spec.text!r}: pimc takes key=value options, e.g. "
                        "'pimc:worlds=32,rollout=rule'")
    return PimcAgent(worlds=option(spec, "worlds", None, int),
                     rollout=option(spec, "rollout", "rule", str).strip().lower(),
                     cap=option(spec, "cap", DEFAULT_CAP, int), seed=seed, name=spec.text,
                     objective=option(spec, "objective", "levels", str).strip().lower())


def bench(deals: int = 5, spec: str = "pimc") -> dict:
    """CPU milliseconds per searched decision, per game: `spec` plays seat 0 (Dou Dizhu)
    or seats 0 and 2 (Shengji) of `deals` deals against the rule bots; forced moves are not
    counted (they are not searched)."""
    import time

    from . import make
    from ..games import new_deal
    out = {}
    for game, opponent in (("doudizhu", "rule"), ("shengji", "rule:expert")):
        agent, other = make(spec, 1), make(opponent, 2)
        spent, decisions = 0.0, 0
        for deal in range(deals):
            state = new_deal(game, deal, **({"dealer": deal % 4} if game == "shengji" else {}))
            while not state.done:
                seat = state.current_seat
                obs = state.observation(seat)
                mine = seat in ((0,) if game == "doudizhu" else (0, 2))
                if game == "shengji" and state.count_legal() > 256:
                    state.play((agent if mine else other._bot("shengji")).choose_play(obs))
                    continue
                legal = state.legal_moves()
                if mine and len(legal) > 1:
                    started = time.process_time()
                    scores = agent.scores(obs, legal)
                    spent += time.process_time() - started
                    decisions += 1
                else:
                    scores = other.scores(obs, legal)
                state.play(legal[int(np.argmax(scores))])
        out[game] = {"decisions": decisions, "ms_per_decision": 1000 * spent / max(1, decisions)}
    return out


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description="CPU time per searched decision of the "
                                     "PIMC teacher, per game (one core)")
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--spec", default="pimc")
    args = parser.parse_args(argv)
    for game, r in bench(args.deals, args.spec).items():
        print(f"{args.spec} {game}: {r['ms_per_decision']:.2f} ms CPU per searched decision "
              f"({r['decisions']} decisions, {args.deals} deals)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

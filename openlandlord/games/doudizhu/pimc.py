"""Dou Dizhu's PIMC decision adapter: an observation turned into the arguments of the native
search (`_pimc.pyx`: world sampling, rule-policy rollouts, the search loop). The generic
search (`openlandlord.agents.pimc`) asks the game's spec for one of these per decision.

Bidding decisions (points, call, rob, double) are searched too (`BiddingDecision`): each world
deals the cards the seat has not seen, the rest of the bidding is made by the native rollout
bidder and the play by the rollout policy, and a word scores the seat's mean final payoff.
`pimc:bid=rule` takes the rule bot's bidding instead (`DouDizhuRuleBot.bid_scores`)."""
from __future__ import annotations

from functools import partial

import numpy as np

from ...errors import UserError

OBJECTIVES = ("levels",)


def decision(obs, legal, objective: str):
    if objective != "levels":
        raise UserError(f"pimc objective {objective!r} is for Shengji; Dou Dizhu "
                        "searches the game's score")
    if obs.phase == "bidding":
        return BiddingDecision(obs, legal)
    return Decision(obs, legal)


class BiddingDecision:
    """A bid, searched over whole rollouts (the rest of the bidding, then the play)."""
    searched = True
    bidding = True

    def __init__(self, obs, legal):
        from ._referee import BIDDING_FLOWS
        self.obs, self.legal = obs, list(legal)
        self.flow = BIDDING_FLOWS.index(obs.bidding)
        self.hand = _packed(obs.hand)
        self.landlord = -1 if obs.landlord is None else obs.landlord
        self.kitty = _packed(obs.kitty) if obs.landlord is not None else 0

    def rule_scores(self):
        return _bidder().bid_scores(self.obs, self.legal)

    def biases(self, rollout: str) -> tuple[float, float]:
        """(the landlord's, a farmer's) rollout bias per unit of stake taken off this
        decision's rollout payoffs: before a landlord is known, LANDLORD_BIAS moved from the
        landlord to the farmers; at call-rob's doubles, DOUBLE_BIASES."""
        if rollout != "rule":
            return 0.0, 0.0
        if self.landlord >= 0:
            return DOUBLE_BIASES
        return LANDLORD_BIAS, -LANDLORD_BIAS

    def search(self, which, skip: int, worlds: int, rollout: str, seed: int, solve: int = 0,
               biases: tuple[float, float] | None = None):
        from . import _pimc as native      # `solve` is for play decisions
        o = self.obs
        lord_bias, farmer_bias = self.biases(rollout) if biases is None else biases
        try:
            return native.search_bid(self.hand, o.seat, self.flow, list(o.bids), self.landlord,
                                     self.kitty, [self.legal[k] for k in which], skip, worlds,
                                     rollout, seed, lord_bias, farmer_bias)
        except ValueError as exc:
            raise UserError(f"pimc: bidding observation of seat {o.seat} is inconsistent: "
                            f"{exc}") from None


_BIDDER = []


def _bidder():
    if not _BIDDER:
        from .rule import DouDizhuRuleBot
        _BIDDER.append(DouDizhuRuleBot("normal"))
    return _BIDDER[0]


class Decision:
    """One Dou Dizhu play decision as the native search needs it."""
    searched = True
    bidding = False
    beliefs = True          # searches worlds weighted by a belief (pimc:belief=student:DIR)

    def __init__(self, obs, legal):
        from . import ACTION_ID, classify, legal_moves
        if obs.landlord is None:
            raise UserError("pimc: a Dou Dizhu play decision without a landlord")
        allowed = set(legal_moves(obs.hand, obs.to_beat))
        wrong = [m for m in legal if m not in allowed]
        if wrong:
            raise UserError(f"pimc: {wrong[0]!r} is not a legal move of seat {obs.seat} here "
                            "(moves are canonical card strings)")
        self.obs = obs
        self.legal = legal
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
        from . import _pimc as native
        o = self.obs
        return native.rule_scores(self.hand, o.seat, o.landlord, o.cards_left, self.to_beat,
                                  self.to_beat_seat, self.unseen, self.moves)

    def _run(self, native_call, which, skip: int, worlds: int, rollout: str, seed: int, *tail,
             head: tuple = ()):
        """A native search entry point on this position and the moves `which` (the argument
        order `search` and `leaf_inputs` share), an inconsistent observation a UserError."""
        o = self.obs
        try:
            return native_call(*head, self.hand, o.seat, o.landlord, o.cards_left, self.plays,
                               self.to_beat, self.to_beat_seat, self.bombs, self.rockets,
                               self.base, self.factor, self.unseen, self.lord_keeps,
                               [self.moves[k] for k in which], skip, worlds, rollout, seed, *tail)
        except ValueError as exc:
            raise UserError(f"pimc: observation of seat {o.seat} is inconsistent: {exc}") from None

    def search(self, which, skip: int, worlds: int, rollout: str, seed: int, solve: int = 0,
               belief=None, draws: int = 1):
        """Mean payoff per move of `which`; `solve` > 0 solves each world exactly once that
        many cards are left in all hands (`_solve.pyx`, docs/solve.md); `belief` (from
        `belief_weights`) with `draws` > 1 weights the worlds (`_pimc.search`)."""
        from . import _pimc as native
        return self._run(partial(native.search, belief=belief, draws=draws), which, skip, worlds,
                         rollout, seed, solve)

    def belief_weights(self, student) -> np.ndarray:
        """A student's belief head on this position as the search's world weights: float64
        [15, 25], per rank the log of the head's chance of each split (a, b) of the rank's
        unseen cards between the two hidden seats after this one (column a * 5 + b), less the
        log of C(unseen, a), the split's weight among uniform deals, so that the kept worlds
        follow the belief rather than the uniform prior times the belief. Splits the head
        rules out, or that do not share the unseen count, weigh -1e9."""
        from math import comb

        from ...features import featurize
        from ...model.student import compositions
        sample = featurize(self.obs, self.legal)
        logits = np.asarray(student.forward(sample)["belief_logits"], np.float64)
        comps = compositions(student.config.belief_holders, student.config.belief_max_count)
        out = np.full((15, 25), -1e9)
        for r, n in enumerate(np.asarray(sample["unseen"]).tolist()):
            ok = comps.sum(axis=1) == n
            x = logits[r, ok]
            logp = x - x.max() - np.log(np.exp(x - x.max()).sum())
            a, b = comps[ok, 0], comps[ok, 1]
            out[r, a * 5 + b] = np.maximum(logp, -1e9) - np.log([comb(n, int(k)) for k in a])
        return out

    def leaf(self, which, skip: int, worlds: int, rollout: str, seed: int, depth: int, student):
        """`search`'s worlds and rollouts, cut `depth` moves after the candidate: a world
        that has not ended there scores the value head of `student` (a NativeStudent) at the
        seat to move, as that seat's payoff (value x value_scale) turned into this seat's
        (`seat_share`: zero-sum, by the seats' stakes). Mean per move of `which`."""
        from . import _pimc as native
        out = self._run(native.leaf_inputs, which, skip, worlds, rollout, seed, depth,
                        head=(self.obs,))
        scores = out["payoff"]
        at = out["leaf"] >= 0
        if at.any():
            value = student.values(out["state_tokens"], out["token_offsets"], out["role"],
                                   out["unseen"], out["capacity"])
            payoff = value.astype(np.float64) * student.config.value_scale * out["share"]
            scores = scores.copy()
            scores[at] = payoff[out["leaf"][at]]
        return scores.mean(axis=0)


_RANK = {ch: r for r, ch in enumerate("3456789TJQKA2BR")}
_FULL_DECK = sum(4 << 4 * r for r in range(13)) + (1 << 4 * 13) + (1 << 4 * 14)


def _packed(cards: str) -> int:
    """Dou Dizhu cards as the referee's packed rank counts (4 bits per rank)."""
    return sum(1 << 4 * _RANK[ch] for ch in cards)




# The native rule rollouts overrate the landlord: from the same deals, a rollout gives the
# landlord a higher mean payoff than real play does (docs/pimc.md, "Bidding"). A bid is a choice
# between roles, so the bidding search takes this much (per unit of the farmers' stake) off the
# landlord's rollout payoff and gives it to the farmers, zero-sum. Measured by `calibrate`
# (python -m openlandlord.games.doudizhu.pimc --calibrate) on training seeds, never on
# evaluation deals; LANDLORD_BIAS records that run: `--calibrate --deals 1200` (seeds 0..1199,
# pimc:bid=rule on every seat): rollouts +0.527, real play -0.178 a deal for the landlord.
LANDLORD_BIAS = 0.353

# At call-rob's doubles the landlord is known, and LANDLORD_BIAS (measured at the start of the
# bidding) no longer describes the rollouts: there each seat's own rollouts overrate it, the
# landlord's and a farmer's alike (each plays its worlds knowing every hand). Moving
# LANDLORD_BIAS to the farmers made a farmer's double look 0.5 a unit of its stake better than
# real play bears out, and the searched farmers doubled in half their games. DOUBLE_BIASES =
# (the landlord's bias per unit of the farmers' stakes, a farmer's per unit of its own), each
# taken off its own rollouts at a double, recorded from
# `python -m openlandlord.games.doudizhu.pimc --calibrate-doubles --deals 1200` (training
# seeds 0..1,199, pimc's own calls and play, every seat saying nodouble): landlord rollouts
# +2.996 against real play +1.949 a double decision (4.17 units), bias 0.251 [0.070, 0.431];
# farmers -0.640 against -0.975 (2.08 units), bias 0.161 [0.022, 0.294].
DOUBLE_BIASES = (0.251, 0.161)


def calibrate(deals: int = 300, seed: int = 0, agent: str = "pimc:bid=rule",
              worlds: int = 32) -> dict:
    """The rollouts' landlord bias: on `deals` bidding-`none` deals seeded seed.., the
    landlord's mean payoff in native rule rollouts from its first decision (the rule policy's
    move, `worlds` worlds) against its mean payoff when `agent` plays every seat."""
    import numpy as np

    from ...agents import make
    from ...agents.loop import play_deal
    from . import Game
    rollout, real = [], []
    for k in range(deals):
        g = Game.new(seed + k)
        obs, legal = g.observation(0), g.legal_moves()
        d = Decision(obs, legal)
        best = int(np.argmax(d.rule_scores()))
        rollout.append(d.search([best], 0, worlds, "rule", seed + k)[0])
        agents = [make(agent, seed=(seed + k) * 3 + s) for s in range(3)]
        play_deal(g, None, agents)
        real.append(g.payoffs()[0])
    # The landlord's payoff is the farmers' two stakes: the bias per unit of a farmer's stake.
    return {"deals": deals, "seed": seed, "agent": agent, "worlds": worlds,
            "rollout_landlord_mean": float(np.mean(rollout)),
            "real_landlord_mean": float(np.mean(real)),
            "landlord_bias": float((np.mean(rollout) - np.mean(real)) / 2)}


def calibrate_doubles(deals: int = 300, seed: int = 0, agent: str = "pimc",
                      worlds: int = 32) -> dict:
    """The rollouts' bias at call-rob's doubles, by role: on `deals` call-rob deals seeded
    seed.. (the calls and robs by `agent`, so the landlord is the one its bids choose), at each seat's doubling decision the seat's mean rollout
    payoff of `nodouble` (`worlds` worlds, no bias taken off) against its payoff when every
    seat says `nodouble` and `agent` plays every seat. A bias is per unit of the role's stake
    (a farmer: the base stake; the landlord: both farmers' stakes). Void deals are skipped."""
    import numpy as np

    from ...agents import make
    from ...agents.loop import answer, decisions, drive
    from . import Game
    rows = {"landlord": [], "farmer": []}
    for k in range(deals):
        g = Game.new(seed + k, bidding="call-rob")
        agents = [make(agent, seed=(seed + k) * 3 + s) for s in range(3)]
        asked = []

        def choose(d):
            if d.obs.phase == "bidding" and "double" in d.legal:
                bd = BiddingDecision(d.obs, d.legal)
                nd = d.legal.index("nodouble")
                e = bd.search([nd], 0, worlds, "rule", seed + k, biases=(0.0, 0.0))[0]
                asked.append((d.seat, d.obs.landlord, e))
                return nd
            return answer(agents[d.seat], d)
        drive(decisions(g, None), choose)
        if not asked:
            continue
        base = 1 << g.observation(0).robs
        payoffs = g.payoffs()
        for seat, lord, e in asked:
            role = "landlord" if seat == lord else "farmer"
            rows[role].append((e, payoffs[seat], base * (2 if role == "landlord" else 1)))
    out = {"deals": deals, "seed": seed, "agent": agent, "worlds": worlds}
    for role, got in rows.items():
        e, real, units = (np.array(x, dtype=float) for x in zip(*got))
        # Bootstrap over decisions for the bias's 95% interval.
        rng = np.random.default_rng(0)
        boot = [(e[i] - real[i]).mean() / units[i].mean()
                for i in (rng.integers(0, len(e), len(e)) for _ in range(1000))]
        out[role] = {"decisions": len(e), "rollout_mean": float(e.mean()), "real_mean": float(real.mean()),
                     "mean_units": float(units.mean()),
                     "bias": float((e - real).mean() / units.mean()),
                     "bias_ci95": [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))]}
    return out


if __name__ == "__main__":
    import argparse
    import json
    parser = argparse.ArgumentParser(description="the native rollouts' landlord bias")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--calibrate", action="store_true", help="at the start of the bidding")
    which.add_argument("--calibrate-doubles", action="store_true", help="at call-rob's doubles")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--agent", default=None,
                        help="who plays (default: pimc:bid=rule; with --calibrate-doubles, pimc)")
    args = parser.parse_args()
    run = calibrate_doubles if args.calibrate_doubles else calibrate
    print(json.dumps(run(args.deals, args.seed, *([args.agent] if args.agent else []))))

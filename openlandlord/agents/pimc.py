"""`pimc:worlds=N,rollout=rule`: the built-in search teacher (Perfect Information Monte Carlo).

At a decision with more than one legal move it samples N worlds consistent with everything
the seat knows, forces each legal move in each world, plays every world to the end natively
with a rollout policy and scores each move by its mean final signed score for the seat's
side. The worlds are the same for every move (common random numbers) and come from the
agent's own RNG (seeded by `make(spec, seed)`), so the same seed and position give the same
scores. Sampling, rollouts and the search loop run in Cython, per game (`games/<game>/_pimc.pyx`);
the game's PIMC adapter (`games/<game>/pimc.py`, reached through its spec's `pimc_decision`)
turns an observation into their arguments, and this module is the search that both games
share (successive halving over common worlds). docs/pimc.md has the details and the
measured strength and speed.

Options: `worlds` (1 to MAX_WORLDS = 65536; default: the game spec's `pimc_worlds`, 96 in Dou Dizhu, 16 in Shengji,
whose rollouts are several times longer), `rollout` (`rule`, the default, or `random`), `cap` (default
24: at most this many moves are searched; beyond it the rule policy picks the candidates and
the other moves score below every searched one, in the rule policy's order).

Scores. Dou Dizhu: the seat's zero-sum payoff (base stake, bombs, rocket, spring and doubles
as settled by the referee). Shengji: the signed levels the seat's team goes up (what the
arena reports per deal), plus the signed card-point margin / 1000 to break ties between moves
of equal level outcome.

Bidding decisions in Dou Dizhu (points, call, rob, double) are searched like plays: in every
world the rest of the bidding is made by the native rollout bidder, then the play by the
rollout policy, and each word scores the seat's mean final payoff, doubles and robs included.
`bid=rule` (default `search`) takes the rule bot's bidding instead, the same play: what the
bidding search is measured against (docs/pimc.md); `bid_worlds` (default: `worlds`) sets the
worlds of a bidding decision apart (bids are few and decide the stake). Shengji `classic`
declarations are searched only with `declare=search` (default `rule`: the rule bot's scores;
searched, they measured weaker on the dev set, docs/pimc.md); its burial is always searched
unless `bid=rule` or `bid=rule-bury`, card by card, as in dataset generation (`choose_play`);
with `burial=listed` (default `cards`) it is searched as one listed decision among the game's
burial candidates (`rule.burial_candidates`: the rule bot's burial and its variants), and
dataset generation records it so (docs/pimc.md).

`solve=K` (default 0, off): once K or fewer cards are left in all hands together, each
sampled world of a play decision is solved exactly (perfect-information minimax of the
game's score, docs/solve.md) instead of rolled out; before that, rollouts run as usual and
switch to the solver when they reach K cards (Shengji: at the first trick boundary at or
under K). Dou Dizhu and both Shengji rulesets (`classic`: throws, no trump and the kitty's
multiplier in the solver too); bidding and declaration decisions ignore it (a `classic`
burial's rollouts use it once they reach K cards). Off by default: measured on the dev sets it pays only at a high cost
(Dou Dizhu `worlds=32,solve=16`), docs/solve.md.

`leaf=student:DIR,depth=D` (default D 2; Dou Dizhu play decisions): each world is played D
moves past the candidate by the rollout policy, and a world that has not ended there scores
the student's value head at the seat to move (its payoff, value x value_scale, turned into
the searching seat's by the seats' stakes) instead of a rollout to the end. The same worlds
and rollout moves as without it (`_pimc.leaf_inputs`); the leaves go through the native
forward pass in one batch per stage. Bidding decisions ignore it; not with `solve`.

`belief=student:DIR` (Dou Dizhu and Shengji `tractor` play decisions): worlds weighted by what
the student's belief head reads from the play so far, taken once per decision (Shengji: each
card's expected count in each hidden hand; Dou Dizhu: each rank's split between the hidden
seats, over the uniform prior); each world is the one of `belief_draws` (default 8) worlds
drawn as without it that the search keeps in proportion to its weight, so the worlds lean
towards the deals the play so far makes likely.
Off by default; docs/pimc.md measures it.
"""
from __future__ import annotations

import numpy as np

from . import Spec, bid_values, check_options, option, play_from_candidates
from .loop import scores_by_completion
from ..errors import UserError
from ..games import BURIALS
from ..games import spec as game_spec

ROLLOUTS = ("rule", "random")
DECLARES = ("rule", "search")
OBJECTIVES = ("levels", "points")   # Shengji search objectives (docs/pimc.md)
DEFAULT_CAP = 24
# The native search counts worlds in a C int; far below that, this many worlds per decision
# is already hours of search (docs/pimc.md measures 96).
MAX_WORLDS = 1 << 16
# `solve=K`: the most cards left (all hands together) at which worlds are solved exactly.
MAX_SOLVE = 108
# `leaf=student:DIR,depth=D`: rollout moves after the candidate before the value head.
DEFAULT_DEPTH = 2
MAX_DEPTH = 200
# `belief=student:DIR,belief_draws=K`: worlds drawn for each world the search keeps.
DEFAULT_BELIEF_DRAWS = 8
MAX_BELIEF_DRAWS = 1024


class PimcAgent:
    """The PIMC teacher for whichever game the observation comes from."""

    def __init__(self, worlds: int | None = None, rollout: str = "rule",
                 cap: int = DEFAULT_CAP, seed: int | None = None, name: str = "pimc",
                 objective: str = "levels", bid: str = "search", bid_worlds: int | None = None,
                 declare: str = "rule", solve: int = 0, leaf: str | None = None,
                 depth: int = DEFAULT_DEPTH, belief: str | None = None,
                 belief_draws: int = DEFAULT_BELIEF_DRAWS, burial: str = "cards"):
        if burial not in BURIALS:
            raise UserError(f"unknown pimc burial {burial!r}; choose one of {', '.join(BURIALS)}")
        self.burial = burial
        if not 0 <= solve <= MAX_SOLVE:
            raise UserError(f"pimc needs solve between 0 and {MAX_SOLVE} cards, got {solve}")
        self.solve = solve
        if worlds is not None and not 1 <= worlds <= MAX_WORLDS:
            raise UserError(f"pimc needs worlds between 1 and {MAX_WORLDS}, got {worlds}")
        if rollout not in ROLLOUTS:
            raise UserError(f"unknown pimc rollout {rollout!r}; "
                            f"choose one of {', '.join(ROLLOUTS)}")
        if cap < 1:
            raise UserError(f"pimc needs cap >= 1, got {cap}")
        if objective not in OBJECTIVES:
            raise UserError(f"unknown pimc objective {objective!r}; "
                            f"choose one of {', '.join(OBJECTIVES)}")
        # `bid=rule-KIND`: the rule bot's scores for that kind of bidding decision only (the
        # game spec's `bidding_kinds`: Dou Dizhu bid/double, Shengji declare/bury).
        if bid not in (choices := bid_values("search")):
            raise UserError(f"unknown pimc bid {bid!r}; choose one of {', '.join(choices)}")
        self.bid = bid
        if bid_worlds is not None and not 1 <= bid_worlds <= MAX_WORLDS:
            raise UserError(f"pimc needs bid_worlds between 1 and {MAX_WORLDS}, got {bid_worlds}")
        self.bid_worlds = bid_worlds
        if declare not in DECLARES:
            raise UserError(f"unknown pimc declare {declare!r}; choose one of {', '.join(DECLARES)}")
        self.declare = declare
        self.objective = objective
        self.name = name
        self.worlds = worlds
        self.rollout = rollout
        self.cap = cap
        self.rng = np.random.default_rng(seed)
        self.leaf, self.depth, self.leaf_student = leaf, depth, None
        if leaf is not None:
            if not leaf.startswith("student:") or not leaf[len("student:"):].strip():
                raise UserError(f"pimc leaf={leaf!r}: the leaf value is a student, "
                                "leaf=student:DIR")
            if solve:
                raise UserError("pimc takes solve= or leaf=, not both")
            if not 0 <= depth <= MAX_DEPTH:
                raise UserError(f"pimc needs depth between 0 and {MAX_DEPTH}, got {depth}")
            self.leaf_student = _leaf_student(leaf[len("student:"):].strip())
        self.belief, self.belief_draws, self.belief_student = belief, belief_draws, None
        if belief is not None:
            self.belief_student = _belief_student(belief)
            if not 1 <= belief_draws <= MAX_BELIEF_DRAWS:
                raise UserError(f"pimc needs belief_draws between 1 and {MAX_BELIEF_DRAWS}, "
                                f"got {belief_draws}")

    def scores(self, obs, legal) -> np.ndarray:
        if len(legal) == 0:
            raise UserError("pimc was asked to score an empty legal move list")
        if len(legal) == 1:
            return np.zeros(1)          # a forced move: nothing to search
        game = game_spec(obs.game)
        decision = game.pimc_decision(obs, legal, self.objective)
        bidding = getattr(decision, "bidding", False)
        rule_bid = bidding and self._rule_bids(game, obs, legal)
        if not decision.searched or rule_bid \
                or (self.declare == "rule" and getattr(decision, "declaring", False)):
            return decision.rule_scores()
        worlds = self.worlds or game.pimc_worlds
        if bidding and self.bid_worlds:
            worlds = self.bid_worlds
        return self._search(legal, decision, worlds)

    def choose_play(self, obs) -> tuple:
        """A play too large to list: searched among the game's own short list of candidates
        for it where it has one (a Shengji `classic` lead: every single, pair and tractor and
        the throw of a suit's master units); a Shengji `classic` burial built card by card,
        each step's candidates scored by their completed burials as dataset generation
        scores them (the rule bot's burial with `bid=rule` or `bid=rule-bury`); else (a
        Shengji void seat answering a long tractor) built card by card by the expert rule
        bot, not searched."""
        listed = play_from_candidates(self, obs)      # burial=listed: a burial too
        if listed is not None:
            return listed
        game = game_spec(obs.game)
        step = game.build_step(obs, ())
        if step is not None and not self._rule_bids(game, obs, [full for _, full in step]):
            prefix: tuple = ()
            while step:
                scores = scores_by_completion(lambda plays: self.scores(obs, plays),
                                              [full for _, full in step])
                prefix = step[int(np.argmax(scores))][0]
                step = game.build_step(obs, prefix)
            return tuple(sorted(prefix))
        bot = game.rule_bot("expert", None)
        bot.rng = self.rng
        return bot.choose_play(obs)

    def _rule_bids(self, game, obs, legal) -> bool:
        """Whether `bid=rule` (or `bid=rule-KIND` of this decision's kind) leaves this bidding
        decision to the rule bot."""
        return self.bid == "rule" or (self.bid.startswith("rule-")
                                      and game.bidding_kind(obs, legal) == self.bid[len("rule-"):])

    def _search(self, legal, decision, worlds: int) -> np.ndarray:
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
        weights = {}
        if self.belief_student is not None and not getattr(decision, "bidding", False):
            weights = {"belief": self._belief(decision), "draws": self.belief_draws}
        stages = sorted({max(1, worlds // 4), max(1, worlds // 2), worlds})
        total = np.zeros(n)
        seen = np.zeros(n, dtype=np.int64)
        done = 0
        for i, end in enumerate(stages):
            if self.leaf_student is not None and not getattr(decision, "bidding", False):
                means = np.asarray(self._leaf(decision, alive, done, end - done, seed))
            else:
                means = np.asarray(decision.search(alive, done, end - done, self.rollout, seed,
                                                   self.solve, **weights))
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

    def _leaf(self, decision, which, skip: int, worlds: int, seed: int):
        game = decision.obs.game
        if not hasattr(decision, "leaf"):
            raise UserError(f"pimc leaf= is built for Dou Dizhu play decisions, not {game}")
        if self.leaf_student.config.game != game:
            raise UserError(f"pimc leaf={self.leaf}: that student plays "
                            f"{self.leaf_student.config.game}, not {game}")
        return decision.leaf(which, skip, worlds, self.rollout, seed, self.depth,
                             self.leaf_student)


    def _belief(self, decision) -> np.ndarray:
        game = decision.obs.game
        if not getattr(decision, "beliefs", False):
            rules = getattr(decision.obs, "rules", "")
            raise UserError(f"pimc belief= is built for Dou Dizhu and Shengji tractor play decisions, not "
                            f"{game}{' ' + rules if rules else ''}")
        if self.belief_student.config.game != game:
            raise UserError(f"pimc belief={self.belief}: that student plays "
                            f"{self.belief_student.config.game}, not {game}")
        return decision.belief_weights(self.belief_student)


_STUDENTS: dict = {}


def _student(directory: str):
    """The native forward pass of a student the search consults, loaded once per directory."""
    if directory not in _STUDENTS:
        from ..model.native import NativeStudent
        _STUDENTS[directory] = NativeStudent(directory)
    return _STUDENTS[directory]


def _leaf_student(directory: str):
    student = _student(directory)
    if student.config.value_target != "score":
        raise UserError(f"pimc leaf=student:{directory}: its value head predicts "
                        f"{student.config.value_target!r}, not the score")
    return student


def _belief_student(spec: str):
    """The student of `belief=student:DIR`, refused without a belief head."""
    directory = spec[len("student:"):].strip() if spec.startswith("student:") else ""
    if not directory:
        raise UserError(f"pimc belief={spec!r}: the belief is a student's, belief=student:DIR")
    student = _student(directory)
    if student.config.belief_mode == "off":
        raise UserError(f"pimc belief={spec}: that student has no belief head")
    return student


def describe(spec: Spec) -> dict:
    """`agents.describe` of a search spec: for each student it consults (`leaf=student:DIR`,
    `belief=student:DIR`), that student's checkpoint, weights' SHA-256 and engine (always the
    native forward pass, `_student`); {} for a search that consults none."""
    from . import parse_spec
    from .student import describe as describe_student

    out = {}
    for key in ("leaf", "belief"):
        name, _, directory = str(spec.options.get(key) or "").partition(":")
        if name.strip() == "student" and directory.strip():
            out[key] = describe_student(parse_spec(f"student:{directory.strip()},backend=native"))
    return out


def make_pimc(spec: Spec, seed: int | None) -> PimcAgent:
    check_options(spec, {"worlds", "rollout", "cap", "objective", "bid", "bid_worlds", "declare",
                        "solve", "leaf", "depth", "belief", "belief_draws", "burial"},
                  positional=False)
    if "belief_draws" in spec.options and "belief" not in spec.options:
        raise UserError(f"agent spec {spec.text!r}: belief_draws= goes with belief=student:DIR")
    if "depth" in spec.options and "leaf" not in spec.options:
        raise UserError(f"agent spec {spec.text!r}: depth= is the leaf's depth; it goes with "
                        "leaf=student:DIR")
    return PimcAgent(worlds=option(spec, "worlds", None, int, low=1, high=MAX_WORLDS),
                     rollout=option(spec, "rollout", "rule", str).strip().lower(),
                     cap=option(spec, "cap", DEFAULT_CAP, int, low=1), seed=seed, name=spec.text,
                     objective=option(spec, "objective", "levels", str).strip().lower(),
                     bid=option(spec, "bid", "search", str).strip().lower(),
                     bid_worlds=option(spec, "bid_worlds", None, int, low=1, high=MAX_WORLDS),
                     declare=option(spec, "declare", "rule", str).strip().lower(),
                     solve=option(spec, "solve", 0, int, low=0, high=MAX_SOLVE),
                     leaf=spec.options.get("leaf"),
                     depth=option(spec, "depth", DEFAULT_DEPTH, int, low=0, high=MAX_DEPTH),
                     belief=spec.options.get("belief"),
                     belief_draws=option(spec, "belief_draws", DEFAULT_BELIEF_DRAWS, int, low=1,
                                         high=MAX_BELIEF_DRAWS),
                     burial=option(spec, "burial", "cards", str).strip().lower())


def bench(deals: int = 5, spec: str = "pimc", games: tuple | None = None) -> dict:
    """CPU milliseconds per searched decision, per game (`games`, default all): `spec` plays
    the agent's seats of the first mirrored seating (Dou Dizhu seat 0, Shengji seats 0 and 2)
    of `deals` deals against the expert rule bots; forced moves are not counted (they are not
    searched)."""
    import time

    from . import make
    from .loop import answer, decisions, drive
    from ..games import GAMES
    out = {}
    for game_name in games or GAMES:
        game = game_spec(game_name)
        agent, other = make(spec, 1), make("rule:expert", 2)
        spent, searched = 0.0, 0
        for deal in range(deals):
            seating = game.seatings(deal, deal, {})[0]
            state = game.new_game(deal, **dict(seating.options))

            def choose(decision):
                nonlocal spent, searched
                if decision.seat not in seating.agent_seats:
                    if decision.legal is None:     # the rule bot's own build, as in the arena
                        return other._bot(game_name).choose_play(decision.obs)
                    return answer(other, decision)
                started = time.process_time()
                move = answer(agent, decision)
                if decision.legal is not None:
                    spent += time.process_time() - started
                    searched += 1
                return move
            drive(decisions(state, game.legal_cap), choose)
        out[game_name] = {"decisions": searched, "ms_per_decision": 1000 * spent / max(1, searched)}
    return out


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description="CPU time per searched decision of the "
                                     "PIMC teacher, per game (one core)")
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--spec", default="pimc")
    parser.add_argument("--game", default=None, help="one game (default: every game)")
    args = parser.parse_args(argv)
    try:
        results = bench(args.deals, args.spec, (args.game,) if args.game else None)
    except UserError as exc:
        import sys
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for game, r in results.items():
        print(f"{args.spec} {game}: {r['ms_per_decision']:.2f} ms CPU per searched decision "
              f"({r['decisions']} decisions, {args.deals} deals)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Shengji's game spec: what every stage asks about the game (see `openlandlord.games`).

Options: `rules` (`tractor` or `classic`, variants of the one native engine) and `mode`
(`deal`: one round; `match`: the campaign from level 2 to past A). Deal options also take
`dealer` (a seat) and `levels` (team 0, team 1) for a single round.

The mirror: every deal is played twice, the agent's partnership on seats (0, 2) and then on
(1, 3); the dealer is seat `deal_index % 4`, so it rotates over all four seats. What a game
counts for the agent: a win for its team, its score in levels (+ levels its team went up,
- levels the other team went up) and its points (attacker points its team captured when
attacking, minus those it conceded when declaring); a match, a win for the team that went
past A and the final level margin as its score. Tail: deals where the agent declared and the
attackers reached 120 points.
"""
from __future__ import annotations

from collections import Counter

from .. import BURIALS, BaseSpec, Option, Seating
from ...errors import UserError
from .state import DEFAULT_CAP

# What a dataset's rec_role indexes: the acting seat's side.
ROLES = ("declarers", "attackers")
TRUMP_RANKS = "23456789TJQKA"


def deal_trump_rank(seed: int, trump_rank: str) -> int:
    """The level (2..14) a deal is played at: `trump_rank` as a level, or for "any" one
    drawn uniformly from the deal's seed (a stream of its own: the cards dealt do not change)."""
    import numpy as np
    from .state import seed_value
    if trump_rank == "any":
        draw = np.random.SeedSequence([seed_value(seed), 0x7472756D70]).generate_state(1)[0]
        return 2 + int(draw) % len(TRUMP_RANKS)
    if trump_rank not in TRUMP_RANKS:
        raise UserError(f"--trump-rank {trump_rank!r} is not a rank; choose one of "
                        f"{', '.join(TRUMP_RANKS)} or any")
    return 2 + TRUMP_RANKS.index(trump_rank)


class ShengjiSpec(BaseSpec):
    name = "shengji"
    num_seats = 4
    roles = ROLES
    options = (Option("rules", ("tractor", "classic"), "tractor",
                      "ruleset: tractor (27 cards each, no kitty) or classic (declarations, "
                      "8-card kitty, throws)"),
               Option("mode", ("deal", "match"), "deal",
                      "a single round or a whole match (levels 2 to past A)", deal=False),
               Option("trump_rank", tuple(TRUMP_RANKS) + ("any",), "2",
                      "a single deal's trump rank, the declarers' level (any: drawn uniformly "
                      "from the deal's seed)", record_default=False))
    deal_arguments = ("dealer", "levels")
    # The referee lists at most this many legal plays; above it a play is built card by card.
    legal_cap = DEFAULT_CAP
    # The value head regresses the team's points margin around the 80-point threshold. The
    # declarers' best round (the attackers take nothing: three levels up) is +80, so 80 gives
    # it exactly +1; the margin clips only where the attackers take 160 or more (two levels up
    # or beyond), 1.5% of 200 rule-teacher deals. 120 would waste range: in those deals the
    # median |margin| was 25 and 78% were within 40 of the threshold.
    value_scale = 80.0
    pimc_worlds = 16          # rollouts are several times longer than Dou Dizhu's
    # A score is in levels (at most 3 a deal): at 1.0 the median target gives its best move
    # 0.20, at 0.1 it gives 0.40.
    teacher_temperature = 0.1
    move_encoding = "cards"
    symmetric = True          # team against team: swapping agent and opponent plays the same games
    bench_options: dict = {}

    # -- recipes: what `openlandlord quickstart` and `openlandlord ship` run for this game ------
    # The points objective costs the same search and makes the stronger teacher (docs/pimc.md:
    # +7 points a deal against rule:expert at 16 worlds, against +3).
    quickstart = {"teacher": "pimc:objective=points", "deals": 150, "epochs": 8,
                  "eval_deals": 100, "opponents": ("rule:expert",)}
    # The points-objective teacher with 64 worlds (docs/pimc.md: +15 points a deal against
    # rule:expert, where the default levels teacher makes +3), two mix rounds; every round's
    # student trains 8 epochs at 2e-3 (dev +7.3 points against +6.2 for 4 at 1e-3, round 1);
    # round 2 (its mix moves chosen by round 1's student) took dev to +9.0 and test to +10.1
    # (docs/models.md).
    # Then the every-rank round (issue 18): 800 teacher deals at `--trump-rank any`, and the
    # round-2 student fine-tuned on them alone (4 epochs at 5e-4; 300 such deals took dev,
    # every rank, from +6.7 to +9.4 points a deal against rule:expert, docs/models.md). The
    # dev set is the every-rank one: the shipped student is the generalist.
    ship_recipe = dict(teacher="pimc:objective=points,worlds=64", deals=1200, mix_deals=(1500, 1500),
                       mix_fraction=0.5, epochs=(6, 8, 8), dev=["--deal-set", "shengji-allranks-dev-260"],
                       opponents=("rule:expert", "pimc:objective=points,worlds=64"), train_set=(),
                       round_set=("lr=0.002",), fine_option="trump_rank", fine_name="allranks",
                       fine_values=(("any", 800),), fine_epochs=4,
                       fine_set=("lr=0.0005", "warmup_steps=50"),
                       # Iterated distillation (issue 19, lever 3; off unless --generations N).
                       generation_values=(("any", 400),), generation_epochs=3,
                       generation_set=("lr=0.0005", "warmup_steps=50"),
                       generation_dev=("--deal-set", "shengji-allranks-dev-260"),
                       # The soup stage (`ship --soup`): a soup gains about a point over its
                       # start, which the 520 games of dev-260 cannot resolve (+-1.2); the
                       # 4,000 games of dev-2000 resolve about +-0.5 (docs/models.md).
                       soup_dev=("--deal-set", "shengji-allranks-dev-2000"))
    ship_quick_recipe = dict(teacher="pimc:objective=points,worlds=4", deals=2, mix_deals=(),
                             mix_fraction=0.5, epochs=(1,), dev=["--deals", "1"],
                             opponents=("rule:expert",),
                             train_set=("model.d_model=16", "model.ff=32", "model.layers=1",
                                        "batch_size=32"),
                             fine_option="trump_rank", fine_name="allranks",
                             fine_values=(("any", 2),), fine_epochs=1, fine_set=("lr=0.0005",),
                             generation_values=(("any", 1),), generation_epochs=1,
                             generation_set=("lr=0.0005",), generation_dev=("--deals", "1"),
                             soup_dev=("--deals", "1"))

    # The full game (`--rules classic`): a generalist over every trump rank (and no trump,
    # which declarations bring), its own dev set, shipped to data/models/shengji-classic.
    # The classic teacher against rule:expert (docs/pimc.md): 16 worlds -1.1 points a deal
    # [-3.0, +0.8], 64 worlds +9.9 [+6.9, +13.1]. The first classic student (32 worlds, 300
    # deals, 24,482 decisions, from scratch) made -6.9 on the test set: too weak a teacher and
    # too little data. So: the 64-world teacher, 1,500 deals (63 min on the 2 cores), and the
    # student starts from the shipped `tractor` generalist (the same architecture and
    # features; it has seen 357k decisions of trick play, which classic shares), 8 epochs at
    # the default schedule (30 min): dev +5.97 [+3.92, +8.01], test +5.35 [+4.08, +6.55]
    # points a deal against rule:expert (docs/models.md).
    # Then the stronger teacher's round: the teacher doubles its worlds (128 worlds: +12.0
    # [+10.0, +14.0] points a deal on the classic dev set, where 64 worlds make +6.9, docs/pimc.md)
    # for 800 more deals, and that student is fine-tuned on them alone (`--from
    # data/models/shengji-classic` runs this round only). The same round with the 256-world
    # teacher (+19.2 on dev, 3.4 over 128 worlds paired; 400 deals and 6,000 burials, 45 min)
    # was tried and not kept: head to head against the student it started from -0.43 [-1.18,
    # +0.32] points a deal (docs/models.md, "The 256-world round").
    ship_classic_recipe = dict(teacher="pimc:objective=points,worlds=64", deals=1500, mix_deals=(),
                               mix_fraction=0.5, epochs=(8,),
                               dev=["--deal-set", "shengji-classic-dev-260"],
                               opponents=("rule:expert",), train_set=("init=data/models/shengji",),
                               round_set=("lr=0.002",),
                               options=(("rules", "classic"), ("trump_rank", "any")),
                               models="shengji-classic",
                               fine_option="trump_rank", fine_name="w128",
                               fine_values=(("any", 800),), fine_epochs=4,
                               fine_set=("lr=0.0005", "warmup_steps=50", "burial=listed"),
                               fine_teacher="pimc:objective=points,worlds=128",
                               # and 12,000 burials of the same search as one listed decision
                               # (the student playing the rest, 25 min), learned with them: the
                               # student then buries from the list (docs/models.md).
                               # (The leads of 1,500 more deals, `("lead", 1500, same)`, were tried
                               # on top and not kept: no gain head to head, docs/models.md.)
                               fine_phases=(("bury", 12000,
                                             "pimc:objective=points,worlds=128,burial=listed"),),
                               # Its own declarations and burial against its `,bid=rule` twin
                               # (issue 16), and the DMC stage (off unless `ship --dmc N`): only
                               # the declarations and the burial learn from their returns, the
                               # play is kept the start's (docs/dmc.md).
                               bid_dev=(("", ("--deal-set", "shengji-classic-bids-dev-1500")),),
                               bid_final=(("", ("--deal-set", "shengji-classic-bids-test-6000")),),
                               dmc_dev=("--deals", "1500"), dmc_learn_phases="bury,declare",
                               dmc_flags=("--lr", "5e-5", "--epsilon", "0.03", "--chunk", "4096",
                                          "--anchor-share", "0.5", "--snapshot-every", "15"),
                               # The soup stage (`ship --soup`): the classic dev-260's 520 games
                               # resolve about +-1.8 points, more than a soup gains; the 3,000
                               # games of the classic bids dev set (every rank) about +-0.7.
                               soup_dev=("--deal-set", "shengji-classic-bids-dev-1500"))
    ship_classic_quick_recipe = dict(ship_quick_recipe, teacher="pimc:objective=points,worlds=2",
                                     fine_name="w128", fine_values=(("any", 1),),
                                     fine_teacher="pimc:objective=points,worlds=4",
                                     fine_phases=(("bury", 2, "pimc:objective=points,worlds=2,burial=listed"),),
                                     fine_set=("lr=0.0005", "burial=listed"),
                                     generation_values=(),
                                     options=(("rules", "classic"), ("trump_rank", "any")),
                                     models="shengji-classic",
                                     bid_dev=(("", ("--deals", "1")),),
                                     dmc_dev=("--deals", "1"), dmc_learn_phases="bury,declare",
                                     dmc_flags=("--chunk", "64", "--envs", "4"))

    def ship_recipe_for(self, options: dict, quick: bool = False):
        if options.get("rules") == "classic":
            return self.ship_classic_quick_recipe if quick else self.ship_classic_recipe
        return super().ship_recipe_for(options, quick)

    @property
    def observation_type(self):
        from .state import Observation
        return Observation

    def new_deal(self, seed: int, rules: str = "tractor", dealer: int = 0, levels=None,
                 trump_rank: str = "2"):
        from .state import Round
        if levels is None:
            rank = deal_trump_rank(seed, trump_rank)
            levels = (rank, rank)
        elif trump_rank != "2":
            raise UserError("a deal takes --trump-rank or levels, not both")
        return Round.new(seed, rules=rules, dealer=dealer, levels=levels)

    def new_game(self, seed: int, mode: str = "deal", **options):
        if mode == "match":
            if options.get("trump_rank", "2") != "2":
                raise UserError("--trump-rank sets a single deal's trump; a match starts at level 2")
            from .state import Match
            return Match.new(seed, rules=options.get("rules", "tractor"))
        return self.new_deal(seed, **options)

    # -- the fuzzer: one label per ruleset --------------------------------------------------
    fuzz_labels = ("shengji-tractor", "shengji-classic")

    @property
    def fuzz_cards(self):
        from .rules import CARD_NAMES
        return tuple(CARD_NAMES)

    def fuzz_game(self, label: str, seed: int):
        from .state import Round
        return Round.new(seed, label.split("-")[1])

    def fuzz_move_was_legal(self, state, move) -> bool:
        # `state` is the position before the move (a clone). A burial is any 8 of the
        # dealer's cards: too many to list.
        if state.phase == "bury":
            hand = state.hands()[state.current_seat]
            return isinstance(move, tuple) and len(move) == 8 and not Counter(move) - Counter(hand)
        return tuple(sorted(move)) in {tuple(sorted(m)) for m in state.legal_moves(limit=None)}

    def fuzz_legal_move(self, state):
        if state.phase == "bury":
            return tuple(state.hands()[state.current_seat][:8])
        return state.legal_moves(limit=None)[0]

    def move_text(self, move) -> str:
        return " ".join(move)

    def move_from_text(self, text: str):
        return tuple(text.split())

    def describe_move(self, move) -> str:
        return " ".join(move)

    def rules_of(self, obs):
        from .rules import Rules
        if obs.rules == "classic":
            return Rules.classic(obs.trump_rank, obs.trump_suit or "N")
        return Rules.tractor(obs.trump_rank, obs.trump_suit)

    def role_index(self, obs) -> int:
        return -1 if obs.declarers is None else (0 if obs.seat % 2 == obs.declarers else 1)

    # -- the mirror ---------------------------------------------------------------------------
    def seatings(self, deal: int, seed: int, options: dict) -> list[Seating]:
        options = dict(options)
        if options.get("mode") != "match":
            options.setdefault("dealer", deal % 4)
        if "levels" in options:
            options["levels"] = tuple(options["levels"])
        opts = tuple(sorted(options.items()))
        return [Seating(deal, c, seed, ((0, 2), (1, 3))[c], opts) for c in range(2)]

    def outcome(self, state, seating: Seating) -> dict:
        result = state.result()
        team = seating.agent_seats[0] % 2
        if dict(seating.options).get("mode") == "match":
            # A campaign: won by the team that went past A; its score is the final level margin.
            levels = result["levels"]
            return {"role": "match", "win": float(result["winner"] == team),
                    "score": float(levels[team] - levels[1 - team]), "rounds": len(result["rounds"]),
                    "tail": {}}
        role = "declarers" if team == result["declarers"] else "attackers"
        points = int(result["attacker_points"])
        trump = "NT" if state.rules.trump_suit == "N" else state.rules.trump_rank
        out = {"role": role, "win": float(result["winning_team"] == team),
               "score": float(state.payoffs()[seating.agent_seats[0]]),
               "points": float(points if role == "attackers" else -points),
               "tail": {"conceded_120": float(role == "declarers" and points >= 120)},
               # How evaluation reports slice a Shengji result beside the role: by trump
               # rank (2..A, NT for no trump), in rank order.
               "slices": {"trump": trump}}
        if state.rules.name == "classic":
            out["bidding"] = self._classic_bidding(state, result, team)
        return out

    @staticmethod
    def _classic_bidding(state, result: dict, team: int) -> dict:
        """What the declarations and the burial made of a `classic` deal for the agent's team
        (eval's `bidding` block): whether its team's declaration set the trump (`declared`),
        whether the deal went no trump, and, when its team buried (the declarers), the card
        points it buried (`buried_points`) and whether the attackers took them back with the
        last trick (`kitty_lost`: they scored it, times the kitty multiplier)."""
        declaration = state.declaration             # () when every seat passed
        out = {"declared": float(bool(declaration) and declaration[0] % 2 == team),
               "no_trump": float(state.rules.trump_suit == "N")}
        if result["declarers"] == team:
            out["buried_points"] = int(result["kitty_points"])
            out["kitty_lost"] = float(result["kitty_bonus"] > 0)
        return out

    def check_invariants(self, state) -> None:
        """Random-simulation invariants (the contract test): once play starts the 108 cards
        are all somewhere (hands, tricks, the buried kitty); at the end the hands are empty
        and captured points plus those in the kitty make 200. A match checks its round."""
        from .state import Match
        if isinstance(state, Match):
            if not state.done:
                self.check_invariants(state.round)
            return
        if state.phase not in ("play", "done"):
            return
        obs = state.observation(0)
        played = sum(len(c) for _, trick, _ in obs.tricks for _, c in trick)
        played += sum(len(c) for _, c in obs.trick)
        held = sum(len(h) for h in state.hands())
        kitty = len(state.kitty()) if obs.rules == "classic" else 0
        assert held + played + kitty == 108, f"cards not conserved: {held} + {played} + {kitty}"
        if state.done:
            result = state.result()
            assert state.hands() == [()] * 4, "a hand is not empty at the end"
            captured = result.get("captured", result["attacker_points"])
            assert captured + state.declarer_points + result.get("kitty_points", 0) == 200, \
                "points not conserved"

    def vec_return(self, seat: int, role: int, rewards, info: dict, env: int) -> float:
        """The seat's team points margin (`features.value_score`): role = position from the
        dealer, whose team (roles 0 and 2) declares; info["attacker_points"] the round's score."""
        margin = float(info["attacker_points"][env]) - 80.0
        return -margin if role % 2 == 0 else margin

    def role_team(self, role: int) -> int | None:
        """The dealer's team (roles 0 and 2) 0, the other 1."""
        return role % 2

    def vec_env(self, num_envs: int, seed: int, features: str, options: dict):
        """The batched native environment of either ruleset (`openlandlord.envs.VecEnv`,
        `envs._shengji_vec`); single deals only."""
        if options.get("mode", "deal") == "match":
            raise UserError("VecEnv plays single deals: drop --mode match (a match is a campaign "
                            "of deals; an RL episode here is one deal)")
        from ...envs._shengji_vec import ShengjiVecEnv
        return ShengjiVecEnv(num_envs, seed, features, options)

    def env_actions(self):
        """The fixed action space of the RL environments (openlandlord.envs.actions)."""
        from ...envs.actions import ShengjiActions
        return ShengjiActions()

    def bidding_phase(self, obs) -> bool:
        """A `classic` declaration or the burial (what `AGENT,bid=rule` leaves to the rule bot)."""
        return obs.phase in self.bidding_kinds

    bidding_kinds = ("declare", "bury")

    def bidding_kind(self, obs, legal) -> str | None:
        """`declare` or `bury` (`AGENT,bid=rule-KIND` leaves only that kind to the rule bot),
        None in the play."""
        return obs.phase if self.bidding_phase(obs) else None

    play_kinds = ("lead", "follow")

    def play_kind(self, obs) -> str:
        """`lead` (the trick's first play, its cards the seat's choice) or `follow`."""
        return "follow" if obs.trick else "lead"

    # -- its players and its student ----------------------------------------------------------
    def features(self):
        from . import features
        return features

    def rule_bot(self, level: str, seed: int | None):
        from .rule import ShengjiRuleBot
        return ShengjiRuleBot(level, seed)

    def pimc_decision(self, obs, legal, objective: str):
        from . import pimc
        return pimc.decision(obs, legal, objective)

    def complete(self, state, prefix: tuple, obs) -> tuple:
        """The full play a candidate prefix of a card-by-card build is scored by (datasets)."""
        from .rule import complete
        return complete(state, prefix, obs)

    def build_step(self, obs, prefix: tuple):
        """A `classic` burial built from the dealer's observation: each next card's candidate
        with its completion (`complete`, as dataset generation scores the step)."""
        if obs.rules != "classic" or obs.phase != "bury":
            return None
        from .classic_round import burial_options
        from .rule import complete
        from .rules import counts
        from types import SimpleNamespace
        hand = counts(list(obs.hand))
        # What `complete` asks of the referee (its burial options), from the hand alone.
        referee = SimpleNamespace(factored_options=lambda play: burial_options(hand, play))
        return [(prefix + (card,), complete(referee, prefix + (card,), obs))
                for card in burial_options(hand, prefix)]

    def play_candidates(self, obs, burial: str = "cards"):
        """A `classic` lead too large to list (any cards of one suit may be led): the expert
        rule bot's own lead candidates, every single, pair and tractor, and per plain suit
        the throw of its master units. A `classic` burial with `burial="listed"`: the rule
        bot's burial and its variants (`rule.burial_candidates`); with `cards` (the default)
        None, so the burial is built card by card."""
        if burial not in BURIALS:
            raise UserError(f"unknown burial form {burial!r}; choose one of {', '.join(BURIALS)}")
        if obs.rules != "classic":
            return None
        if obs.phase == "bury":
            if burial == "cards":
                return None
            from .rule import burial_candidates
            return burial_candidates(obs)
        if obs.phase != "play" or obs.trick:
            return None
        from .rule import _Table, _lead_candidates
        return _lead_candidates(_Table(obs), True)

    def student_preset(self) -> dict:
        return dict(num_roles=4,
                    role_names=("declarer", "attacker_next", "declarer_partner", "attacker_prev"),
                    # 120 (not 128): the featurizer's dims then give 152,308 parameters, inside
                    # the 125k-155k with room for a few more feature columns.
                    ff=120)

    # -- people ---------------------------------------------------------------------------------
    def render(self, obs) -> str:
        """The seat's view (`state.render`), with the teams' levels labelled, the partner
        named and the last trick's winner."""
        from .rules import RANKS
        from .state import render
        me, partner = obs.seat, (obs.seat + 2) % 4
        level = [RANKS[min(v, 14) - 2] for v in obs.levels]
        side = ["declarers" if t == obs.declarers else "attackers" for t in (0, 1)]
        picture = render(obs).replace("\n  T: ", "\n  trumps: ").split("\n")
        lines = [*picture[:2],
                 f"your team: seats {me % 2} and {me % 2 + 2} (you, seat {me}; your partner, seat "
                 f"{partner}): level {level[me % 2]}, {side[me % 2]}; the other team: seats "
                 f"{1 - me % 2} and {3 - me % 2}: level {level[1 - me % 2]}, {side[1 - me % 2]}"]
        if obs.tricks:
            _, plays, winner = obs.tricks[-1]
            lines.append("last trick: " + "  ".join(f"{s}:{' '.join(c)}" for s, c in plays)
                         + f"  -> won by seat {winner}")
        return "\n".join(lines + picture[2:])

    def parse_human_move(self, obs, text: str, legal):
        """Cards separated by spaces, e.g. `7H 7H`; ValueError with the rule a play breaks.
        `legal` is None for a set too large to list: the typed play is checked by the rules."""
        from collections import Counter

        from .rules import explain_illegal, is_legal
        cards = tuple(sorted(text.upper().split()))
        if cards in ((), ("PASS",)):
            cards = ()          # declining to declare (the only move that is no cards)
        if obs.phase == "bury":
            from .classic_round import KITTY
            missing = Counter(cards) - Counter(obs.hand)
            if missing:
                raise ValueError(f"you do not hold {' '.join(sorted(missing.elements()))}")
            if len(cards) != KITTY:
                raise ValueError(f"the dealer buries exactly {KITTY} cards of its hand, not {len(cards)}")
            return cards
        if legal is not None:
            for play in legal:
                if tuple(sorted(play)) == cards:
                    return play
        rules = self.rules_of(obs)
        lead = list(obs.trick[0][1]) if obs.trick else None
        try:
            if legal is None and is_legal(rules, list(obs.hand), lead, list(cards)):
                return cards
            reason = explain_illegal(rules, list(obs.hand), lead, list(cards))
        except ValueError as exc:
            reason = str(exc)
        raise ValueError(reason or f"{' '.join(cards)} is not a legal play here")

    def describe_end(self, state) -> str:
        from .state import Match
        if isinstance(state, Match):
            return f"match won by team {state.winner} (seats {state.winner} and {state.winner + 2})"
        result = state.result()
        return (f"{result['winner']} win (team {result['winning_team']}), "
                f"attackers took {result['attacker_points']} points")


SPEC = ShengjiSpec()

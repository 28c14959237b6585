"""Dou Dizhu's game spec: what every stage asks about the game (see `openlandlord.games`).

The mirror: every deal is played three times, the agent under test alone in seat c of copy
c and the opponent in the two other seats (the same bidding flow for both). A game counts
for the agent a win for its side and its signed score (payoff); a void deal (nobody bid)
has role "void", score 0 and counts half a win. Tail losses: games lost with a bomb or
rocket played, or to a spring / anti-spring.
"""
from __future__ import annotations

from .. import BaseSpec, Option, Seating
from ...errors import UserError

ROLES = ("landlord", "landlord_down", "landlord_up")


class DoudizhuSpec(BaseSpec):
    name = "doudizhu"
    num_seats = 3
    roles = ROLES
    options = (Option("bidding", ("none", "points", "call-rob"), "none",
                      "bidding flow: none (seat 0 is landlord), points (1/2/3), call-rob "
                      "(call, rob, double)"),)
    legal_cap = None          # every legal set is listed (a few hundred moves at most)
    # The value head's target divides the signed payoff by this (the scale it has always had).
    value_scale = 24.0
    pimc_worlds = 96
    # The teacher's softmax target is softmax(scores / temperature), scores in the teacher's
    # own units (expected signed score for `pimc`). PIMC's moves mostly differ by tenths of a
    # point, so a temperature of 1.0 gives near-uniform targets. Measured twice: on 400 pimc
    # deals x 8 epochs, 0.2 against 1.0 raised val top-1 agreement 0.364 -> 0.398 and the
    # mean score against `rule` -0.96 -> -0.57 (150 deals); on another 500 deals x 6 epochs
    # (dev-300) it was even against `rule` (-0.95 both) and worse against `rlcard` (-0.58 vs
    # -0.43). The evidence leans to 0.2; it is a generate option.
    teacher_temperature = 0.2
    move_encoding = "text"
    symmetric = False         # one seat against two: agent and opponent are not interchangeable
    bench_options = {"bidding": "call-rob"}   # the flow with every kind of bidding decision
    bidding_role = 3          # student_preset's role_names: "bidding"

    # -- recipes: what `openlandlord quickstart` and `openlandlord ship` run for this game ------
    # Quickstart, sized to finish in <= 15 minutes on a 2-core CPU (README: the stage times).
    quickstart = {"teacher": "pimc", "deals": 800, "epochs": 10, "eval_deals": 300,
                  "opponents": ("rule", "rlcard")}
    # The reference study's sizes are one mix round: --mix-deals 500 --epochs 6,12 (~25k
    # decisions here). The shipped student adds more rounds in which the previous student
    # chooses half of the moves (docs/models.md: why, and the timings). The last student
    # trains longer at a higher peak rate: 16 epochs at 2e-3 against 8 at 1e-3 took the test
    # win rate against pimc from 0.389 to 0.477 (docs/models.md).
    ship_recipe = dict(teacher="pimc", deals=500, mix_deals=(500, 1000, 6000), mix_fraction=0.5,
                       epochs=(6, 12, 6, 16), dev=["--deal-set", "doudizhu-dev-300"],
                       opponents=("rule", "rlcard", "pimc"), train_set=(), final_set=("lr=0.002",),
                       # The bidding round (issue 16, docs/models.md): the teacher's deals of
                       # every flow, the round-3 student fine-tuned on them.
                       fine_values=(("call-rob", 4000), ("points", 4000), ("none", 1000)),
                       fine_epochs=3, fine_set=("lr=0.0005", "warmup_steps=50"),
                       bid_dev=(("call-rob", ("--deal-set", "doudizhu-callrob-dev-3000")),
                                ("points", ("--deal-set", "doudizhu-points-dev-3000"))),
                       bid_final=(("call-rob", ("--deal-set", "doudizhu-callrob-test-20000")),
                                  ("points", ("--deal-set", "doudizhu-points-test-6000"))),
                       # Iterated distillation (issue 19, lever 3; off unless --generations N):
                       # each generation 4,000 teacher deals of the three flows, half the
                       # moves by the last generation, 2 epochs on the union at 5e-4. Each
                       # plays the last on 3,000 ad-hoc dev deals (bidding none; a student
                       # against a student costs little, and a round moves the score by about
                       # 0.1, the CI half-width of doudizhu-dev-300).
                       generation_values=(("call-rob", 1000), ("points", 1000), ("none", 2000)),
                       generation_epochs=2, generation_set=("lr=0.0005", "warmup_steps=50"),
                       generation_dev=("--deals", "3000"),
                       # DMC self-play (issue 19, lever 4; off unless `ship --dmc N`): the
                       # student it starts from is played on 3,000 ad-hoc dev deals as above.
                       # Self-play at bidding `none`, the bids anchored to the starting
                       # student's in call-rob and points: trained at `none` alone its bids
                       # drifted to always call, rob and double, and learning the bids by
                       # self-play in every flow in turn lost the play's gain (docs/dmc.md).
                       dmc_dev=("--deals", "3000"), dmc_anchor="bidding=call-rob,points",
                       # The soup stage (`ship --soup`): its head-to-head on the same 3,000
                       # ad-hoc dev deals (a soup moves the score by less than dev-300 resolves).
                       soup_dev=("--deals", "3000"),
                       protocol_opponents=("rlcard",))
    ship_quick_recipe = dict(teacher="pimc:worlds=4", deals=4, mix_deals=(4,), mix_fraction=0.5,
                             epochs=(1, 1), dev=["--deals", "1"],
                             opponents=("rule", "rlcard", "pimc:worlds=4"),
                             train_set=("model.d_model=16", "model.ff=32", "model.layers=1",
                                        "batch_size=32"),
                             fine_values=(("call-rob", 3), ("points", 2)), fine_epochs=1,
                             fine_set=("lr=0.0005",),
                             bid_dev=(("call-rob", ("--deals", "2")), ("points", ("--deals", "1"))),
                             bid_final=(("call-rob", ("--deals", "1")),),
                             generation_values=(("none", 2),), generation_epochs=1,
                             generation_set=("lr=0.0005",), generation_dev=("--deals", "1"),
                             dmc_dev=("--deals", "1"), dmc_anchor="bidding=call-rob,points",
                             protocol_opponents=("rlcard",))

    @property
    def observation_type(self):
        from .observation import Observation
        return Observation

    def new_deal(self, seed: int, bidding: str = "none"):
        from . import Game
        return Game.new(seed, bidding=bidding)

    def new_game(self, seed: int, **options):
        return self.new_deal(seed, **options)

    # -- the fuzzer: one label, the three bidding flows in turn by the deal's seed ------------
    fuzz_labels = ("doudizhu",)
    fuzz_cards = tuple("3456789TJQKA2BR")

    def fuzz_game(self, label: str, seed: int):
        return self.new_deal(seed, bidding=("none", "points", "call-rob")[seed % 3])

    def fuzz_move_was_legal(self, state, move) -> bool:
        # `state` is the position before the move (a clone); moves compare as sorted text.
        return "".join(sorted(move)) in {"".join(sorted(m)) for m in state.legal_moves()}

    def fuzz_legal_move(self, state):
        return state.legal_moves()[0]

    def describe_move(self, move) -> str:
        return move if move else "pass"

    def rules_of(self, obs):
        return obs.bidding

    def role_index(self, obs) -> int:
        return -1 if obs.role is None else ROLES.index(obs.role)

    # -- the mirror ---------------------------------------------------------------------------
    def seatings(self, deal: int, seed: int, options: dict) -> list[Seating]:
        opts = tuple(sorted(options.items()))
        return [Seating(deal, c, seed, (c,), opts) for c in range(3)]

    protocols = ("mirror", "douzero")

    def protocol_seatings(self, protocol: str, deal: int, seed: int, options: dict) -> list[Seating]:
        """`douzero`, the protocol of DouZero's paper: the agent plays the landlord against the
        opponent as both farmers, then both farmers against the opponent as the landlord;
        no bidding (the landlord is seat 0)."""
        if protocol != "douzero":
            return super().protocol_seatings(protocol, deal, seed, options)
        if options.get("bidding", "none") != "none":
            raise UserError("--protocol douzero plays without bidding (the paper's); "
                            f"not with --bidding {options['bidding']}")
        opts = tuple(sorted(options.items()))
        return [Seating(deal, 0, seed, (0,), opts), Seating(deal, 1, seed, (1, 2), opts)]

    def outcome(self, state, seating: Seating) -> dict:
        result = state.result()
        seat = seating.agent_seats[0]
        landlord = result.get("landlord")
        score = float(state.payoffs()[seat])
        flow = getattr(state, "bidding", "none")     # a match or a drawn test game may not say
        if result.get("void") or landlord is None:   # nobody bid: no winner, no score, half a win
            out = {"role": "void", "win": 0.5, "score": score, "tail": {}}
            if flow != "none":
                out["bidding"] = {"landlord": 0.0, "void": 1.0, "stake": 0}
            return out
        role = ROLES[(seat - landlord) % 3]
        side = "landlord" if role == "landlord" else "farmers"
        won = result["winner"] == side
        breakdown = result.get("breakdown", {})
        bombs = int(breakdown.get("bombs", 0)) + int(breakdown.get("rockets", 0))
        spring = bool(breakdown.get("spring")) or bool(breakdown.get("anti_spring"))
        bidding = {}
        if flow != "none":
            # What the bidding made of the deal for the agent's seat (eval's `bidding` block):
            # whether it became landlord, the base stake the flow set, and its double.
            bidding = {"landlord": float(role == "landlord"), "void": 0.0,
                       "stake": int(result["base_stake"])}
            if flow == "call-rob":
                bidding["doubled"] = float(state.observation(seat).doubled[seat])
        out = {"role": role, "win": float(won), "score": score,
                # DouZero's evaluation score: +-2 x 2^(bombs + rockets) for the agent's side,
                # no spring, no bidding stake (douzero/env/game.py update_num_wins_scores; its
                # farmers' ADP is twice a farmer's score).
                "douzero_points": float((2 if won else -2) * 2 ** bombs),
                "tail": {"lost_with_bombs": float(not won and bombs > 0),
                         "lost_to_spring": float(not won and spring)}}
        if bidding:
            out["bidding"] = bidding
        return out

    def check_invariants(self, state) -> None:
        """Random-simulation invariants (the contract test): the 54 cards are all somewhere
        (hands, played moves, the kitty until the landlord takes it); at the end a hand is
        empty unless nobody bid. AssertionError naming what broke."""
        ranks = "3456789TJQKA2BR"
        played = sum(len(m) for _, m in state.history if all(c in ranks for c in m))
        kitty = 3 if state.landlord is None else 0
        held = sum(len(h) for h in state.hands())
        assert held + played + kitty == 54, f"cards not conserved: {held} held + {played} played + {kitty}"
        if state.done and not state.is_void:
            assert min(len(h) for h in state.hands()) == 0, "the game ended with no empty hand"

    # -- its players and its student ----------------------------------------------------------
    def features(self):
        from . import features
        return features

    def vec_env(self, num_envs: int, seed: int, features: str, options: dict):
        """The batched native environment (openlandlord.envs.VecEnv)."""
        from ...envs._ddz_vec import DoudizhuVecEnv
        return DoudizhuVecEnv(num_envs, seed, features, **options)

    def vec_return(self, seat: int, role: int, rewards, info: dict, env: int) -> float:
        """The seat's payoff, as `features.value_score` reads a recorded score."""
        return float(rewards[seat])

    def role_team(self, role: int) -> int | None:
        """The landlord's side 0, the farmers' 1; the bidding role has none."""
        return None if role == self.bidding_role else int(role != 0)

    def env_actions(self):
        """The fixed action space of the RL environments (openlandlord.envs.actions)."""
        from ...envs.actions import DoudizhuActions
        return DoudizhuActions()

    def bidding_phase(self, obs) -> bool:
        """A bid or a double (what `AGENT,bid=rule` leaves to the rule bot)."""
        return obs.phase == "bidding"

    bidding_kinds = ("bid", "double")

    def bidding_kind(self, obs, legal) -> str | None:
        """Which bidding decision this is (`AGENT,bid=rule-KIND` leaves only that kind to the
        rule bot): `double` (call-rob's double or not), `bid` (a call, rob or points bid), or
        None outside the bidding."""
        if not self.bidding_phase(obs):
            return None
        return "double" if "double" in legal else "bid"

    play_kinds = ("lead", "follow")

    def play_kind(self, obs) -> str:
        """`lead` (nothing to beat: any move of the hand) or `follow` (beat `to_beat` or pass)."""
        return "follow" if obs.to_beat else "lead"

    def rule_bot(self, level: str, seed: int | None):
        from .rule import DouDizhuRuleBot
        return DouDizhuRuleBot(level, seed)

    def pimc_decision(self, obs, legal, objective: str):
        from . import pimc
        return pimc.decision(obs, legal, objective)

    def student_preset(self) -> dict:
        # The fourth role is a seat deciding during bidding.
        return dict(num_roles=4, role_names=("landlord", "landlord_down", "landlord_up", "bidding"))

    # -- people ---------------------------------------------------------------------------------
    def render(self, obs) -> str:
        from .text import render
        return render(obs)

    def parse_human_move(self, obs, text: str, legal):
        """Cards as rank characters in any order (`pass` or empty for a pass), or a bidding
        word during bidding; ValueError saying why a move is refused."""
        from .text import explain_move
        text = text.strip()
        if obs.phase == "bidding":
            word = text.lower() or "pass"
            if word in legal:
                return word
            raise ValueError(f"{word!r} is not a bid you can make now; choose one of: {', '.join(legal)}")
        typed = "".join(text.upper().split())
        move = "" if typed in ("", "PASS", "P") else "".join(sorted(typed, key="3456789TJQKA2BR".find))
        if move in legal:
            return move
        raise ValueError(explain_move(obs.hand, obs.to_beat, typed) or f"{typed!r} is not a legal move here")

    def describe_end(self, state) -> str:
        result = state.result()
        if result.get("void") or result.get("landlord") is None:
            return f"nobody bid: the deal is void; payoffs by seat: {state.payoffs()}"
        return f"{result['winner']} win; payoffs by seat: {state.payoffs()}"


SPEC = DoudizhuSpec()

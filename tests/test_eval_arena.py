"""The mirrored-seat arena (eval.arena) on a tiny stand-in game registered as a game spec of
its own, so that seating, seeding, batching and the figures are checked without the cost of
a real referee.

The stand-in plays like Dou Dizhu's scoring: seat 0 is landlord; each seat in turn picks one
of three numbers drawn from the deal's seed, four times; the landlord wins when its total
beats the mean of the farmers' totals (landlord +2 / farmers -1 each, or the opposite).
Taking the largest number is the best play, so `greedy` must beat `random` from every seat.
"""
import numpy as np
import pytest

from openlandlord import agents, games
from openlandlord.eval import arena, dealsets
from openlandlord.games.doudizhu.spec import DoudizhuSpec


class PickGame:
    num_seats = 3

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.totals = [0, 0, 0]
        self.turn = 0
        self.current_seat = 0
        self.done = False
        self._offer()

    def _offer(self):
        self.offer = [int(v) for v in self.rng.integers(0, 10, size=3)]

    def legal_moves(self):
        return list(self.offer)

    def observation(self, seat):
        return {"game": "pick", "seat": seat, "offer": tuple(self.offer)}

    def play(self, move):
        assert move in self.offer
        self.totals[self.current_seat] += move
        self.turn += 1
        self.current_seat = self.turn % 3
        self.done = self.turn == 12
        self._offer()

    def result(self):
        landlord_wins = self.totals[0] > (self.totals[1] + self.totals[2]) / 2
        return {"winner": "landlord" if landlord_wins else "farmers", "landlord": 0,
                "breakdown": {"bombs": 0, "rockets": 0, "spring": self.totals[1] == 0,
                              "anti_spring": False}}

    def payoffs(self):
        sign = 1.0 if self.result()["winner"] == "landlord" else -1.0
        return [2.0 * sign, -sign, -sign]


class Greedy:
    name = "greedy"

    def __init__(self, spec, seed):
        self.calls = 0

    def scores(self, obs, legal):
        self.calls += 1
        return np.asarray(legal, dtype=float)


class BatchedGreedy(Greedy):
    batch_sizes: list = []

    def scores_batch(self, items):
        BatchedGreedy.batch_sizes.append(len(items))
        return [np.asarray(legal, dtype=float) for _, legal in items]


class PickSpec(DoudizhuSpec):
    """The stand-in behind the game interface: Dou Dizhu's mirror and scoring, its own deal."""
    name = "pick"
    options = ()

    def new_game(self, seed, **options):
        return PickGame(seed)


@pytest.fixture
def pick_game(monkeypatch):
    monkeypatch.setitem(games._REGISTRY, "pick", f"{__name__}:PickSpec")
    monkeypatch.setitem(games._LOADED, "pick", PickSpec())
    monkeypatch.setitem(agents._FACTORIES, "greedy", f"{__name__}:Greedy")
    monkeypatch.setitem(agents._FACTORIES, "batched", f"{__name__}:BatchedGreedy")
    monkeypatch.setattr(arena, "_PROTOTYPES", {})
    return dealsets.adhoc("pick", 60, seed=3)


def test_every_seat_covered_equally_and_every_deal_three_times(pick_game):
    result, records = arena.evaluate("pick", "greedy", "random", pick_game, seed=0,
                                     workers=1, progress=False)
    assert result["games"] == 180 and result["deals"] == 60
    assert result["seat_games"] == {"0": 60, "1": 60, "2": 60}
    assert {r["role"] for r in records} == {"landlord", "landlord_down", "landlord_up"}
    assert all(result["per_role"][role]["games"] == 60 for role in result["per_role"])
    for deal in range(60):
        copies = [r for r in records if r["deal"] == deal]
        assert sorted(r["agent_seats"][0] for r in copies) == [0, 1, 2]
        assert len({r["seed"] for r in copies}) == 1


def test_better_agent_wins_from_every_role(pick_game):
    result, _ = arena.evaluate("pick", "greedy", "random", pick_game, seed=0,
                               workers=1, progress=False)
    assert result["mean_score_ci95"][0] > 0
    assert result["win_rate"] > 0.6
    for entry in result["per_role"].values():
        assert entry["win_rate"] > 0.5


def test_identical_seeds_identical_results_and_other_seeds_differ(pick_game):
    run = lambda seed: arena.evaluate("pick", "random", "random", pick_game, seed=seed,
                                      workers=1, progress=False)[1]
    first, again, other = run(5), run(5), run(6)
    assert first == again
    assert first != other


def test_batched_agent_sees_decisions_of_many_games_at_once(pick_game):
    BatchedGreedy.batch_sizes = []
    batched = arena.evaluate("pick", "batched", "random", pick_game, seed=1,
                             workers=1, progress=False)[1]
    plain = arena.evaluate("pick", "greedy", "random", pick_game, seed=1,
                           workers=1, progress=False)[1]
    assert batched == plain
    assert max(BatchedGreedy.batch_sizes) > 10


def test_figures_per_deal_are_means_over_copies(pick_game):
    result, records = arena.evaluate("pick", "random", "greedy", pick_game, seed=2,
                                     workers=1, progress=False)
    scores = np.array([[r["score"] for r in records if r["deal"] == d] for d in range(60)])
    assert result["mean_score"] == pytest.approx(scores.mean())
    assert result["per_deal"]["score"] == pytest.approx(scores.mean(axis=1).tolist())
    lo, hi = result["mean_score_ci95"]
    assert lo <= result["mean_score"] <= hi
    assert result["timing"]["agent"]["decisions"] > 0


def test_shengji_teams_swap_and_dealer_rotates_over_all_seats():
    deal_set = dealsets.adhoc("shengji", 8, seed=1)
    result, records = arena.evaluate("shengji", "random", "random", deal_set, seed=0,
                                     workers=1, progress=False)
    assert result["games"] == 16 and result["seat_games"] == {"0": 8, "1": 8, "2": 8, "3": 8}
    assert result["per_role"]["declarers"]["games"] == result["per_role"]["attackers"]["games"] == 8
    dealers = [dict(s.options)["dealer"] for d, seed in enumerate(deal_set.seeds)
               for s in games.spec("shengji").seatings(d, seed, deal_set.options)]
    assert {seat: dealers.count(seat) for seat in range(4)} == {0: 4, 1: 4, 2: 4, 3: 4}
    for deal in range(8):
        a, b = [r for r in records if r["deal"] == deal]
        assert {a["role"], b["role"]} == {"declarers", "attackers"}
        assert sorted(a["agent_seats"] + b["agent_seats"]) == [0, 1, 2, 3]


class BuildsItsOwnPlay:
    """A Shengji player with its own builder for plays too many to list."""
    name = "builder"
    built = 0

    def __init__(self, spec, seed):
        from openlandlord.games.shengji.rule import ShengjiRuleBot
        self.bot = ShengjiRuleBot("normal", seed)

    def scores(self, obs, legal):
        return self.bot.scores(obs, legal)

    def choose_play(self, obs):
        BuildsItsOwnPlay.built += 1
        return self.bot.choose_play(obs)


def test_shengji_plays_too_many_to_list_are_built(monkeypatch):
    """With the listing limits at zero every decision goes through the builders: the agent's
    own `choose_play`, else card by card over `factored_options`; the referee rejects any
    illegal play, so finishing the games is the check."""
    monkeypatch.setattr(games.spec("shengji"), "legal_cap", 0)
    monkeypatch.setitem(agents._FACTORIES, "builder", f"{__name__}:BuildsItsOwnPlay")
    BuildsItsOwnPlay.built = 0
    deal_set = dealsets.adhoc("shengji", 2, seed=5)
    result, records = arena.evaluate("shengji", "builder", "random", deal_set, seed=0,
                                     workers=1, progress=False)
    assert result["games"] == 4
    assert BuildsItsOwnPlay.built == result["timing"]["agent"]["decisions"] > 50
    assert result["timing"]["opponent"]["decisions"] > 50


def test_league_ranks_the_better_player_first_and_anchors_the_scale(pick_game):
    from openlandlord.eval.league import play_league
    result = play_league("pick", ["random", "greedy", "random:seed=9"], pick_game, seed=0,
                         workers=1, anchor="random", progress=False)
    ladder = {row["agent"]: row for row in result["ladder"]}
    assert result["ladder"][0]["agent"] == "greedy"
    assert ladder["random"]["elo"] == 0.0
    assert ladder["greedy"]["elo_ci95"][0] > max(ladder["random:seed=9"]["elo_ci95"][1], 0.0)
    # One seat against two is not symmetric: every pair plays both ways round.
    assert len(result["pairs"]) == 6 and result["deals"] == 60
    assert {(p["agent"], p["opponent"]) for p in result["pairs"]} == {
        (a, b) for a in ladder for b in ladder if a != b}


def test_league_ratings_do_not_depend_on_the_listing_order(pick_game):
    from openlandlord.eval.league import play_league
    elo = lambda agents: {row["agent"]: (round(row["elo"], 6), [round(x, 6) for x in row["elo_ci95"]])
                          for row in play_league("pick", agents, pick_game, seed=0, workers=1,
                                                 progress=False)["ladder"]}
    assert elo(["greedy", "random"]) == elo(["random", "greedy"])


def test_shengji_per_deal_points_pair_two_evaluations_by_deal():
    # Shengji's card points come per deal too, so two agents' evaluations against the same
    # opponent on the same deals compare deal by deal (docs/evaluation.md).
    deals = arena.resolve_deal_set("shengji", 4, None, 3, {"rules": "tractor"})
    result, _ = arena.evaluate("shengji", "rule", "random", deals, seed=0, workers=1,
                               progress=False)
    assert len(result["per_deal"]["points"]) == 4
    assert np.mean(result["per_deal"]["points"]) == pytest.approx(result["mean_points"])

"""The PIMC search teacher (openlandlord.agents.pimc and its native halves): determinism,
common random numbers, forced moves, worlds consistent with the observation, drawn endgames,
option errors, and random positions of both games."""
import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.games.doudizhu import _pimc as native_ddz
from openlandlord.games.shengji import _pimc as native_sj
from openlandlord.agents.pimc import PimcAgent
from openlandlord.games.doudizhu.pimc import Decision as _DoudizhuDecision, _packed
from openlandlord.games.shengji.pimc import Decision as _ShengjiDecision
from openlandlord.errors import UserError
from openlandlord.games.doudizhu import Game
from openlandlord.games.shengji import Observation, Round, Rules, is_legal


def ddz_position(seed, plies, bidding="none"):
    """A Dou Dizhu position after `plies` rule-bot decisions from deal `seed`."""
    game = Game.new(seed, bidding=bidding)
    rule = make("rule", 0)
    for _ in range(plies):
        if game.done:
            break
        legal = game.legal_moves()
        game.play(legal[int(np.argmax(rule.scores(game.observation(game.current_seat), legal)))])
    return game


def sj_position(seed, plays):
    r = Round.new(seed, dealer=seed % 4)
    rule = make("rule:expert", 0)
    for _ in range(plays):
        if r.done:
            break
        legal = r.legal_moves(limit=None)
        r.play(legal[int(np.argmax(rule.scores(r.observation(r.current_seat), legal)))])
    return r


def unpack(packed):
    return [(packed >> 4 * r) & 0xF for r in range(15)]


def test_same_seed_same_scores_in_both_games():
    game = ddz_position(3, 4)
    obs, legal = game.observation(game.current_seat), game.legal_moves()
    a = make("pimc:worlds=16", 7).scores(obs, legal)
    b = make("pimc:worlds=16", 7).scores(obs, legal)
    assert np.array_equal(a, b)
    r = sj_position(2, 5)
    obs, legal = r.observation(r.current_seat), r.legal_moves()
    a = make("pimc:worlds=8", 7).scores(obs, legal)
    b = make("pimc:worlds=8", 7).scores(obs, legal)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("rollout", ["rule", "random"])
def test_common_random_numbers_a_move_scores_the_same_whatever_else_is_searched(rollout):
    game = ddz_position(5, 3)
    d = _DoudizhuDecision(game.observation(game.current_seat), game.legal_moves())
    args = (d.hand, d.obs.seat, d.obs.landlord, d.obs.cards_left, d.plays, d.to_beat,
            d.to_beat_seat, d.bombs, d.rockets, d.base, d.factor, d.unseen, d.lord_keeps)
    a, b = d.moves[0], d.moves[-1]
    together = native_ddz.search(*args, [a, b, a], 0, 12, rollout, 99)
    alone = native_ddz.search(*args, [b], 0, 12, rollout, 99)
    assert together[0] == together[2]
    assert together[1] == alone[0]
    # worlds 4..11 alone give the same sum as the first twelve minus the first four
    first = native_ddz.search(*args, [b], 0, 4, rollout, 99)
    later = native_ddz.search(*args, [b], 4, 8, rollout, 99)
    assert first[0] * 4 + later[0] * 8 == pytest.approx(alone[0] * 12)


def test_forced_moves_are_not_searched(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("searched a forced move")
    monkeypatch.setattr(native_ddz, "search", boom)
    monkeypatch.setattr(native_sj, "search", boom)
    agent = make("pimc", 1)
    before = agent.rng.bit_generator.state
    game = ddz_position(1, 0)
    assert agent.scores(game.observation(0), [game.legal_moves()[0]]).shape == (1,)
    r = sj_position(1, 1)
    assert agent.scores(r.observation(r.current_seat), [r.legal_moves()[0]]).shape == (1,)
    assert agent.rng.bit_generator.state == before


@pytest.mark.parametrize("seed,plies", [(11, 7), (12, 14), (13, 20), (14, 2)])
def test_doudizhu_worlds_fit_the_observation(seed, plies):
    game = ddz_position(seed, plies)
    if game.done:
        pytest.skip("the deal ended early")
    seat = game.current_seat
    obs = game.observation(seat)
    d = _DoudizhuDecision(obs, game.legal_moves())
    mine = unpack(_packed(obs.hand))
    played = [unpack(_packed(p)) for p in obs.played]
    unseen = unpack(d.unseen)
    keeps = unpack(d.lord_keeps)
    if seat != obs.landlord:
        kitty = unpack(_packed(obs.kitty))
        assert keeps == [max(0, kitty[r] - played[obs.landlord][r]) for r in range(15)]
    for world in native_ddz.sample_worlds(d.unseen, d.lord_keeps, seat, obs.landlord,
                                          obs.cards_left, 50, seed):
        assert world[seat] == 0
        hidden = [unpack(world[s]) for s in range(3)]
        for s in range(3):
            if s != seat:
                assert sum(hidden[s]) == obs.cards_left[s]
        for r in range(15):
            deck = 1 if r >= 13 else 4
            assert hidden[0][r] + hidden[1][r] + hidden[2][r] == unseen[r]
            assert unseen[r] + mine[r] + sum(p[r] for p in played) == deck
            if seat != obs.landlord:
                assert hidden[obs.landlord][r] >= keeps[r]
    # the real hands are one of the possible worlds
    for s in range(3):
        if s != seat:
            real = unpack(_packed(game.hands()[s]))
            assert all(real[r] <= unseen[r] for r in range(15))


def test_doudizhu_player_who_can_play_out_its_hand_does():
    # Landlord (seat 0) leads 34567; the farmers hold one and two cards. The straight ends the
    # deal at once with a spring: +2 x 2 = +4 in every world. A single lets a one-card farmer
    # go out in most worlds.
    game = Game.from_hands(["34567", "A", "2A"], kitty="", bidding="none", landlord=0)
    obs, legal = game.observation(0), game.legal_moves()
    scores = make("pimc:worlds=16", 0).scores(obs, legal)
    assert legal[int(np.argmax(scores))] == "34567"
    assert scores[legal.index("34567")] == pytest.approx(4.0)
    assert all(s < 4.0 for m, s in zip(legal, scores) if m != "34567")


def test_shengji_last_seat_takes_the_point_trick():
    # Seat 3 (attackers) plays last: KH (seat 0, declarers) leads, 3H, TH: 20 points.
    obs = Observation(game="shengji", seat=3, phase="play", rules="tractor", trump_rank="2",
                      trump_suit="S", hand=("AH", "4H", "6D"), declarers=0, dealer=0,
                      levels=(2, 2), current_seat=3, leader=0,
                      trick=((0, ("KH",)), (1, ("3H",)), (2, ("TH",))), tricks=(),
                      attacker_points=0, cards_left=(2, 2, 2, 3), voids=((),) * 4)
    legal = [("4H",), ("AH",)]
    scores = make("pimc:worlds=32", 0).scores(obs, legal)
    assert legal[int(np.argmax(scores))] == ("AH",)


def test_shengji_worlds_respect_voids_and_sizes():
    r = sj_position(4, 0)
    # play until some seat shows a void
    rule = make("rule:expert", 0)
    while not any(r.observation(0).voids) and r.observation(0).cards_left[0] > 3:
        legal = r.legal_moves(limit=None)
        r.play(legal[int(np.argmax(rule.scores(r.observation(r.current_seat), legal)))])
    seat = r.current_seat
    obs = r.observation(seat)
    d = _ShengjiDecision(obs, r.legal_moves(limit=None))
    others = [(seat + k) % 4 for k in (1, 2, 3)]
    assert d.sizes == [obs.cards_left[o] for o in others]
    assert d.masks == [sum(1 << "SHDCT".index(c) for c in obs.voids[o]) for o in others]
    assert int(d.unseen.sum()) == sum(d.sizes)
    real = r.hands()
    from openlandlord.games.shengji.rules import counts
    for o in others:       # the true hidden hands are made of unseen cards
        assert (counts(list(real[o])) <= d.unseen).all()
    # a size that cannot be met is a clear error, not a crash
    d.sizes = [d.sizes[0] + 1] + d.sizes[1:]
    with pytest.raises(UserError, match="inconsistent"):
        d.search(np.arange(2), 0, 2, "rule", 0)


@pytest.mark.parametrize("spec,problem", [
    ("pimc:worlds=0", "worlds"), ("pimc:worlds=abc", "worlds"), ("pimc:rollout=greedy", "rollout"),
    ("pimc:depth=3", "depth"), ("pimc:32", "key=value"), ("pimc:cap=0", "cap"),
    ("pimc:objective=money", "objective")])
def test_bad_options_are_user_errors(spec, problem):
    with pytest.raises(UserError, match=problem):
        make(spec, 0)


def test_cap_searches_the_rule_policys_candidates_and_scores_every_move():
    game = Game.from_hands(["33445566778899TT", "JJQQKK", "AA22"], kitty="", bidding="none",
                           landlord=0)
    obs, legal = game.observation(0), game.legal_moves()
    assert len(legal) > 8
    scores = PimcAgent(worlds=8, cap=4, seed=0).scores(obs, legal)
    assert scores.shape == (len(legal),) and np.isfinite(scores).all()
    top = np.argsort(-scores)[:4]
    assert (np.sort(scores)[::-1][4:] < scores[top].min()).all()


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_random_positions_of_both_games(seed):
    agent = make("pimc:worlds=8", seed)
    rng = np.random.default_rng(seed)
    game = ddz_position(seed, int(rng.integers(0, 25)), bidding="points")
    if not game.done:
        legal = game.legal_moves()
        scores = agent.scores(game.observation(game.current_seat), legal)
        assert scores.shape == (len(legal),) and np.isfinite(scores).all()
        if game.phase == "play" and len(legal) > 1:
            # payoffs of a points-bid deal: at most 3 x 2^(bombs + spring) per farmer
            assert np.abs(scores).max() <= 2 * 3 * 2 ** 7
    r = sj_position(seed, int(rng.integers(0, 100)))
    legal = r.legal_moves(limit=None)
    scores = agent.scores(r.observation(r.current_seat), legal)
    assert scores.shape == (len(legal),) and np.isfinite(scores).all()
    if len(legal) > 1:
        assert np.abs(scores).max() <= 3.3      # levels up, plus the margin tie-break


def test_shengji_follow_too_large_to_list_is_built_by_the_rule_bot():
    # Seat 3, void in hearts, answers a 6-pair heart tractor: millions of legal follows.
    hand = ("3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD", "3C", "4C",
            "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC", "3S", "4S", "BJ")
    lead = ("8H", "8H", "9H", "9H", "TH", "TH", "JH", "JH", "QH", "QH", "KH", "KH")
    obs = Observation(game="shengji", seat=3, phase="play", rules="tractor", trump_rank="2",
                      trump_suit="S", hand=hand, declarers=0, dealer=0, levels=(2, 2),
                      current_seat=3, leader=1, trick=((1, lead),), tricks=(),
                      attacker_points=0, cards_left=(27, 15, 27, 27), voids=((),) * 4)
    play = make("pimc", 0).choose_play(obs)
    assert len(play) == 12 and is_legal(Rules.tractor("2", "S"), list(hand), list(lead), list(play))


def test_shengji_rule_rollouts_play_only_legal_plays():
    points = native_sj.checked_rule_rounds(200, 5)
    assert len(points) == 200
    assert all(0 <= p <= 200 and p % 5 == 0 for p in points)
    assert 0 < np.mean(points) < 200


def test_bench_reports_cpu_time_per_searched_decision_for_both_games():
    from openlandlord.agents.pimc import bench
    result = bench(deals=1, spec="pimc:worlds=4")
    for game in ("doudizhu", "shengji"):
        assert result[game]["decisions"] > 0 and result[game]["ms_per_decision"] > 0


def test_moves_that_are_not_legal_plays_are_user_errors():
    game = ddz_position(2, 3)
    obs = game.observation(game.current_seat)
    with pytest.raises(UserError, match="not a legal move"):
        make("pimc", 0).scores(obs, game.legal_moves() + ["BR" if "BR" not in obs.hand else "3333"])
    r = sj_position(3, 1)
    obs = r.observation(r.current_seat)
    legal = r.legal_moves()
    with pytest.raises(UserError, match="not a complete legal play"):
        make("pimc", 0).scores(obs, legal + [legal[0] + legal[0]])


def test_shengji_objectives_score_levels_or_the_point_margin():
    # Objective `levels`: signed levels (integers) plus the margin / 1000 (at most 0.2);
    # objective `points`: the team's card-point margin / 80, so a world's score times 80 is a
    # multiple of 10 (attacker points come in fives; margin = 2 * points - 200).
    r = sj_position(4, 0)
    seat = r.current_seat
    d = _ShengjiDecision(r.observation(seat), r.legal_moves(limit=None), "points")
    worlds = 8
    points = np.asarray(d.search(np.arange(len(d.plays)), 0, worlds, "rule", 3))
    total = points * 80 * worlds
    assert np.allclose(total, np.round(total / 10) * 10, atol=1e-6)
    assert (np.abs(points) <= 2.5).all()
    d.objective = "levels"
    levels = np.asarray(d.search(np.arange(len(d.plays)), 0, 1, "rule", 3))
    assert (np.abs(levels - np.round(levels)) <= 0.2 + 1e-9).all()
    assert not np.allclose(levels, points[:len(levels)])


def test_points_objective_is_for_shengji_only():
    agent = make("pimc:objective=points", 0)
    assert agent.objective == "points"
    g = ddz_position(0, 0)
    obs = g.observation(g.current_seat)
    with pytest.raises(UserError, match="Shengji"):
        agent.scores(obs, g.legal_moves())

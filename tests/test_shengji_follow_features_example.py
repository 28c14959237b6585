"""docs/examples/shengji_follow_features.py: the follow-safety columns are zero for leads and
for follows that leave the trick to the other team, a last-seat win always holds, a win
with beaters left never does; the stand-in featurizer is the shipped one plus three columns;
`compare` pairs two evaluations by deal."""
import json

import numpy as np
import pytest

from openlandlord import features
from openlandlord.agents import make
from openlandlord.games.shengji import Round
from openlandlord.games.shengji import features as base


@pytest.fixture(scope="module")
def ff(load_example):
    return load_example("shengji_follow_features")


def _positions(count=400):
    """(obs, legal) of the decisions of a few rule-bot rounds, every rank."""
    out = []
    rule = make("rule:expert", 0)
    for seed in range(6):
        r = Round.new(seed, dealer=seed % 4, levels=(2 + seed * 5 % 13,) * 2)
        while not r.done and len(out) < count * (seed + 1) // 6:
            legal = r.legal_moves(limit=None)
            obs = r.observation(r.current_seat)
            if len(legal) > 1:
                out.append((obs, legal))
            r.play(legal[int(np.argmax(rule.scores(obs, legal)))])
    return out


def test_columns_follow_the_trick(ff):
    seen_hold = seen_beaten = 0
    for obs, legal in _positions():
        x = ff.follow_safety(obs, legal)
        assert x.shape == (len(legal), 3) and ((x >= 0) & (x <= 1)).all()
        if not obs.trick:
            assert not x.any()
            continue
        v = base._View(obs)
        for i, play in enumerate(legal):
            by_card = np.zeros(54, np.int16)
            by_card[v.order] = base._counts([play], v)[0]
            team_wins = base._winner_seat(obs, v, by_card) % 2 == obs.seat % 2
            if not team_wins or len(play) != v.lead_size:
                assert not x[i].any()
            elif len(obs.trick) == 3:         # the last seat: nobody can take it back
                assert x[i].tolist() == [0.0, 1.0, 0.0]
                seen_hold += 1
            if x[i, 0] > 0:
                assert x[i, 1] == 0.0
                seen_beaten += 1
    assert seen_hold and seen_beaten


def test_the_stand_in_featurizer_is_the_shipped_one_plus_three_columns(ff):
    obs, legal = next(p for p in _positions(60) if p[0].trick)
    shipped = features.featurize(obs, legal)
    shim = ff.install()
    try:
        assert features.dims("shengji")["action_feat_dim"] == base.FA + 3
        assert features.dims("shengji")["feature_version"] == ff.VERSION
        ours = features.featurize(obs, legal)
    finally:
        features._MODULES.pop("shengji")
    assert shim.FEATURE_VERSION == ff.VERSION
    assert np.array_equal(ours["actions"][:, :base.FA], shipped["actions"])
    assert np.array_equal(ours["state_tokens"], shipped["state_tokens"])
    assert features.dims("shengji")["action_feat_dim"] == base.FA


def test_compare_pairs_two_evaluations_by_deal(ff, tmp_path):
    def run(name, points):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"agent": name, "opponent": "rule:expert",
                                    "deal_set": {"name": "d"}, "per_deal": {"points": points}}))
        return str(path)
    got = ff.compare(run("a", [10.0, -5.0, 3.0]), run("b", [8.0, -6.0, 1.0]))
    assert got["points_a_minus_b"] == pytest.approx(5 / 3)
    lo, hi = got["points_a_minus_b_ci95"]
    assert lo <= got["points_a_minus_b"] <= hi and lo >= 1.0


def test_a_widened_student_plays_as_before(ff, tmp_path):
    pairs = [p for p in _positions(60) if p[0].trick][:5]
    before = make("student:data/models/shengji", 0)
    scores = [before.scores(obs, legal) for obs, legal in pairs]
    ff.widen("data/models/shengji", str(tmp_path / "wide"))
    ff.install()
    try:
        after = make(f"student:{tmp_path / 'wide'}", 0)
        for (obs, legal), want in zip(pairs, scores):
            assert np.allclose(after.scores(obs, legal), want, atol=1e-5)
    finally:
        features._MODULES.pop("shengji")

"""The evaluation statistics (eval.stats) on synthetic data with known answers."""
import numpy as np
import pytest

from openlandlord.eval import stats


def _mirrored_scores(rng, deals, edge, luck=5.0, noise=0.5):
    """Per-deal scores of two agents on the same deals: a shared deal luck much larger than
    the true edge of `a` over `b`."""
    deal_luck = rng.normal(0.0, luck, size=deals)
    a = deal_luck + edge + rng.normal(0.0, noise, size=deals)
    b = deal_luck + rng.normal(0.0, noise, size=deals)
    return a, b


def test_paired_bootstrap_covers_the_true_edge_and_beats_unpaired():
    rng = np.random.default_rng(1)
    a, b = _mirrored_scores(rng, deals=400, edge=0.3)
    mean, (lo, hi) = stats.paired_bootstrap(a, b, seed=3)
    assert lo < 0.3 < hi and lo > 0.0            # covers the truth and sees the edge
    _, (ulo, uhi) = stats.unpaired_bootstrap(a, b, seed=3)
    assert ulo < 0.0 < uhi                       # unpaired cannot even tell the sign
    assert (uhi - ulo) > 5 * (hi - lo)


def test_paired_bootstrap_coverage_is_near_95_percent():
    rng = np.random.default_rng(7)
    covered = 0
    trials = 200
    for t in range(trials):
        a, b = _mirrored_scores(rng, deals=100, edge=-0.2)
        _, (lo, hi) = stats.paired_bootstrap(a, b, seed=t, resamples=400)
        covered += lo < -0.2 < hi
    assert 0.88 <= covered / trials <= 0.99


def test_paired_bootstrap_averages_copies_of_a_deal():
    per_copy = np.array([[1.0, 3.0, 2.0], [0.0, 0.0, 3.0]])
    mean, (lo, hi) = stats.paired_bootstrap(per_copy, seed=0)
    assert mean == pytest.approx(1.5)
    assert 1.0 <= lo <= hi <= 2.0


def test_bootstrap_is_a_function_of_its_seed():
    x = np.arange(50.0)
    assert stats.paired_bootstrap(x, seed=4) == stats.paired_bootstrap(x, seed=4)
    assert stats.paired_bootstrap(x, seed=4) != stats.paired_bootstrap(x, seed=5)


def test_paired_bootstrap_rejects_mismatched_deals():
    with pytest.raises(ValueError):
        stats.paired_bootstrap([1.0, 2.0], [1.0])


def _synthetic_league(strength, deals, rng):
    outcomes = {}
    k = len(strength)
    for i in range(k):
        for j in range(i + 1, k):
            p = 1.0 / (1.0 + np.exp(strength[j] - strength[i]))
            outcomes[(i, j)] = np.where(rng.random(deals) < p, 1.0, -1.0)
    return outcomes


def test_bradley_terry_recovers_known_strengths():
    truth = np.array([-1.0, -0.2, 0.4, 0.8])
    outcomes = _synthetic_league(truth, deals=4000, rng=np.random.default_rng(0))
    fitted = stats.bradley_terry(stats.pairwise_wins(outcomes, 4), prior=0.0)
    assert np.allclose(fitted, truth - truth.mean(), atol=0.1)


def test_elo_scale_anchor_and_bootstrap_intervals():
    truth = np.array([0.0, 0.5, 1.5])
    outcomes = _synthetic_league(truth, deals=600, rng=np.random.default_rng(2))
    league = stats.league_ratings(outcomes, 3, anchor=0, resamples=200, seed=1)
    elo = np.array(league["elo"])
    assert elo[0] == 0.0
    expected = stats.ELO_SCALE * (truth - truth[0])
    for e, (lo, hi), want in zip(elo, league["elo_ci95"], expected):
        assert lo <= e <= hi
        if want:
            assert lo < want < hi
    assert elo[1] < elo[2]


def test_bradley_terry_undefeated_agent_is_finite_and_first():
    outcomes = {(0, 1): np.ones(20), (0, 2): np.ones(20), (1, 2): np.array([1.0, -1.0] * 10)}
    fitted = stats.bradley_terry(stats.pairwise_wins(outcomes, 3))
    assert np.all(np.isfinite(fitted)) and fitted.argmax() == 0


def test_pairwise_wins_counts_draws_half():
    wins = stats.pairwise_wins({(0, 1): np.array([1.0, 0.0, -2.0, 3.0])}, 2)
    assert wins.tolist() == [[0.0, 2.5], [1.5, 0.0]]

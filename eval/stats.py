"""The statistics of an evaluation: bootstrap confidence intervals taken over original deals,
and Bradley-Terry strengths on the Elo scale for a round robin.

Why per deal: a card deal can decide a game on its own, so the arena plays every deal once
per seat (Dou Dizhu) or once per team (Shengji) and the unit of evidence is the deal, not
the game. The agent's mean over its copies of one deal cancels most of the deal's luck;
resampling whole deals (the paired bootstrap) keeps that cancellation inside every
bootstrap sample. Resampling the games one by one (`unpaired_bootstrap`) throws it away,
and its intervals are much wider whenever deal luck dominates.

Every function here takes a seed and is a pure function of its inputs.
"""
from __future__ import annotations

import math

import numpy as np

ELO_SCALE = 400.0 / math.log(10.0)
DEFAULT_RESAMPLES = 2000


def _interval(samples: np.ndarray, level: float) -> list[float]:
    lo, hi = np.quantile(samples, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return [float(lo), float(hi)]


def paired_bootstrap(x, y=None, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                     level: float = 0.95) -> tuple[float, list[float]]:
    """Mean of per-deal values `x` (or of the per-deal differences x - y, when `y` holds the
    same deals' values for a rival) and its percentile CI from resampling deals.

    `x` is one number per deal (e.g. the agent's mean score over its seat copies) or a
    (deals, copies) array, averaged over copies first."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 2:
        x = x.mean(axis=1)
    if y is not None:
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 2:
            y = y.mean(axis=1)
        if y.shape != x.shape:
            raise ValueError(f"paired samples differ in shape: {x.shape} vs {y.shape}")
        x = x - y
    if x.ndim != 1 or x.size == 0:
        raise ValueError("paired_bootstrap needs at least one deal")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, x.size, size=(resamples, x.size))
    return float(x.mean()), _interval(x[picks].mean(axis=1), level)


def unpaired_bootstrap(x, y=None, *, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                       level: float = 0.95) -> tuple[float, list[float]]:
    """The same estimate as `paired_bootstrap`, with the games resampled independently (and
    `x` and `y` independently of each other): what the interval would be had the deals not
    been mirrored. Kept as the yardstick that shows what pairing buys."""
    x = np.asarray(x, dtype=np.float64).ravel()
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    estimate = x.mean()
    if y is not None:
        y = np.asarray(y, dtype=np.float64).ravel()
        means = means - y[rng.integers(0, y.size, size=(resamples, y.size))].mean(axis=1)
        estimate = estimate - y.mean()
    return float(estimate), _interval(means, level)


def pairwise_wins(outcomes: dict[tuple[int, int], np.ndarray], num_agents: int,
                  picks: np.ndarray | None = None) -> np.ndarray:
    """Win matrix W[i, j] = deals that i won against j (a drawn deal counts half to each).

    `outcomes[(i, j)]` holds one number per deal, > 0 when i beat j on that deal; `picks`
    (deal indices, possibly repeated) selects a bootstrap resample of the deals."""
    wins = np.zeros((num_agents, num_agents))
    for (i, j), per_deal in outcomes.items():
        per_deal = np.asarray(per_deal, dtype=np.float64)
        if picks is not None:
            per_deal = per_deal[picks]
        won = np.count_nonzero(per_deal > 0) + 0.5 * np.count_nonzero(per_deal == 0)
        wins[i, j] += won
        wins[j, i] += per_deal.size - won
    return wins


def bradley_terry(wins: np.ndarray, *, prior: float = 0.5, iterations: int = 10_000,
                  tolerance: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths (log scale, mean zero) fitted by Hunter's MM algorithm, where
    P(i beats j) = p_i / (p_i + p_j) and p = exp(strength).

    `prior` adds that many virtual wins each way between every compared pair, so that an
    agent that won (or lost) every deal still gets a finite strength."""
    wins = np.asarray(wins, dtype=np.float64)
    k = wins.shape[0]
    games = wins + wins.T
    compared = games > 0
    wins = wins + prior * compared
    games = wins + wins.T
    total_wins = wins.sum(axis=1)
    p = np.ones(k)
    for _ in range(iterations):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1.0), 1.0)
        new /= math.exp(np.log(new).mean())
        step = np.max(np.abs(np.log(new) - np.log(p)))
        p = new
        if step < tolerance:
            break
    strength = np.log(p)
    return strength - strength.mean()


def elo(strength: np.ndarray, anchor: int | None = None) -> np.ndarray:
    """Bradley-Terry strengths on the Elo scale (400 / ln 10 per unit), zero at the agent
    `anchor` (an index) or, without one, at the mean."""
    ratings = ELO_SCALE * np.asarray(strength, dtype=np.float64)
    return ratings - (ratings[anchor] if anchor is not None else ratings.mean())


def league_ratings(outcomes: dict[tuple[int, int], np.ndarray], num_agents: int, *,
                   anchor: int | None = None, resamples: int = 500, seed: int = 0,
                   level: float = 0.95) -> dict:
    """Elo ratings of a round robin with bootstrap CIs over deals: every resample draws the
    same deal indices for every pair, as all pairs played the same deal set."""
    num_deals = {len(v) for v in outcomes.values()}
    if len(num_deals) != 1:
        raise ValueError("every pair of a league must have played the same deals")
    n = num_deals.pop()
    ratings = elo(bradley_terry(pairwise_wins(outcomes, num_agents)), anchor)
    rng = np.random.default_rng(seed)
    samples = np.empty((resamples, num_agents))
    for r in range(resamples):
        picks = rng.integers(0, n, size=n)
        samples[r] = elo(bradley_terry(pairwise_wins(outcomes, num_agents, picks)), anchor)
    lo, hi = np.quantile(samples, [(1.0 - level) / 2.0, (1.0 + level) / 2.0], axis=0)
    return {"elo": ratings.tolist(), "elo_ci95": [[float(a), float(b)] for a, b in zip(lo, hi)],
            "wins": pairwise_wins(outcomes, num_agents).tolist()}

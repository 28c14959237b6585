"""The native featurizers (`games/*/_features.pyx`) against their Python definitions
(`featurize_python`): on a seeded random-game corpus of every Dou Dizhu bidding flow and both
Shengji rulesets (every dealer seat, uneven levels, declarations, burials, no-trump rounds,
card-by-card follows), every array has the same dtype, shape and values, element for element.
The timings are not tested here (they are measured by `python -m openlandlord.features.bench`)."""
import numpy as np
import pytest

from openlandlord import features
from openlandlord.features.bench import corpus, variants
from openlandlord.games import spec
from openlandlord.games.doudizhu import _features as doudizhu_native
from openlandlord.games.doudizhu import features as doudizhu_features
from openlandlord.games.shengji import _features as shengji_native
from openlandlord.games.shengji import features as shengji_features

POSITIONS = 600


def assert_same(python: dict, native: dict, where: str) -> None:
    assert python.keys() == native.keys(), where
    for key, want in python.items():
        got = native[key]
        if isinstance(want, np.ndarray):
            assert isinstance(got, np.ndarray), (where, key)
            assert (got.dtype, got.shape) == (want.dtype, want.shape), (where, key)
            assert np.array_equal(got, want), (where, key, np.argwhere(got != want)[:5])
        else:
            assert type(got) is type(want) and got == want, (where, key, want, got)


def check_corpus(module, items) -> None:
    for i, (obs, legal) in enumerate(items):
        assert_same(module.featurize_python(obs, legal), module.featurize(obs, legal),
                    f"position {i}: {obs.phase}, seat {obs.seat}, {len(legal)} moves")


def test_every_game_featurizes_natively():
    assert features.for_game("doudizhu")._native is doudizhu_native
    assert features.for_game("shengji")._native is shengji_native


@pytest.mark.parametrize("bidding", ["none", "points", "call-rob"])
def test_doudizhu_native_equals_python(bidding):
    items = corpus("doudizhu", {"bidding": bidding}, POSITIONS, seed=21)
    if bidding != "none":
        assert sum(obs.phase == "bidding" for obs, _ in items) >= 20
    check_corpus(doudizhu_features, items)


def shengji_corpus(rules: str) -> list:
    """Every dealer seat, each with its own levels, so that roles and level columns vary."""
    items = []
    for dealer in range(4):
        options = {"rules": rules, "dealer": dealer, "levels": (2 + 3 * dealer, 14 - 2 * dealer)}
        items += corpus("shengji", options, POSITIONS // 4, seed=21 + dealer)
    return items


@pytest.mark.parametrize("rules", ["tractor", "classic"])
def test_shengji_native_equals_python(rules):
    items = shengji_corpus(rules)
    phases = {obs.phase for obs, _ in items}
    partial = sum(bool(obs.trick) and any(len(m) < len(obs.trick[0][1]) for m in legal)
                  for obs, legal in items)
    assert partial >= 3          # card-by-card follows of a pair or tractor lead
    if rules == "classic":
        assert {"declare", "bury", "play"} <= phases
        assert any(obs.trump_suit in ("", "N") for obs, _ in items)
    check_corpus(shengji_features, items)


def test_the_corpus_covers_every_variant():
    assert variants("doudizhu") == [{"bidding": b} for b in ("none", "points", "call-rob")]
    assert variants("shengji") == [{"rules": "tractor"}, {"rules": "classic"}]


@pytest.mark.parametrize("game", ["doudizhu", "shengji"])
def test_stored_positions_featurize_alike(game):
    """A dataset's positions come back from JSON and move text (tuples rebuilt, moves re-read):
    the native featurizer gives them the arrays it gives the live positions."""
    g = spec(game)
    module = features.for_game(game)
    for obs, legal in corpus(game, variants(game)[-1], 120, seed=8):
        stored = g.observation_from_json(g.observation_to_json(obs))
        moves = [g.move_from_text(g.move_text(m)) for m in legal]
        assert_same(module.featurize(obs, legal), module.featurize(stored, moves), game)
        assert_same(module.featurize_python(stored, moves), module.featurize(stored, moves), game)


def test_empty_legal_lists_agree():
    for game in ("doudizhu", "shengji"):
        module = features.for_game(game)
        for obs, _ in corpus(game, variants(game)[-1], 40, seed=3):
            assert_same(module.featurize_python(obs, []), module.featurize(obs, []), game)


def error_of(featurize, obs, legal):
    try:
        featurize(obs, legal)
    except Exception as error:  # noqa: BLE001 (the type is what is compared)
        return type(error)
    return None


@pytest.mark.parametrize("game, bad", [("doudizhu", ["34"]), ("doudizhu", ["3X"]),
                                       ("shengji", [("ZZ",)]), ("shengji", [("AS", "1H")])])
def test_bad_moves_raise_as_the_python_featurizer_does(game, bad):
    module = features.for_game(game)
    obs, _ = corpus(game, variants(game)[0], 30, seed=5)[-1]
    want = error_of(module.featurize_python, obs, bad)
    assert want is not None
    assert error_of(module.featurize, obs, bad) is want

"""Behaviour unchanged by the game-interface redesign (issue 15): for the same seeds,
`generate` writes the same bytes (every shard, its content_sha256 included, and the
manifest), `eval` gives the same figures, the latency bench the same positions and `play`
the same transcript as before the change, in both games. The figures were recorded before
the redesign by `python tests/behaviour_baseline.py` (tests/data/behaviour-baseline.json)."""
import json
from pathlib import Path

import pytest

import behaviour_baseline as baseline

RECORDED = json.loads((Path(__file__).parent / "data" / "behaviour-baseline.json").read_text())


@pytest.mark.parametrize("name", sorted(baseline.GENERATE_CASES))
def test_generate_writes_the_same_bytes(name):
    assert baseline.generate_digests(name) == RECORDED["generate"][name]


@pytest.mark.parametrize("name", sorted(baseline.EVAL_CASES))
def test_eval_gives_the_same_figures(name):
    assert baseline.eval_figures(name) == RECORDED["eval"][name]


@pytest.mark.parametrize("game", ["doudizhu", "shengji"])
def test_latency_positions_are_the_same(game):
    assert baseline.latency_positions(game) == RECORDED["latency"][game]


@pytest.mark.parametrize("game", sorted(baseline.PLAY_CASES))
def test_play_prints_the_same_transcript(game):
    assert baseline.play_transcript(game, *baseline.PLAY_CASES[game]) == RECORDED["play"][game]

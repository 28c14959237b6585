"""Regression: the trick-format fast paths (`_trick.pyx`: scan_play, the one-card-id
formats and keys, unit_beaten reading the suit's cards only; `_pimc_classic.pyx` vec_sums
and held_in) made the classic teacher about 3x faster without changing a result. The
teacher's scores of seeded positions, the solver's values and node counts and the native
rule rounds' scores equal the ones recorded before them at git a6695db
(tests/classic_search_baseline.py, tests/data/classic-search-baseline.json)."""
import json
from pathlib import Path

import pytest

import classic_search_baseline as baseline

RECORDED = json.loads((Path(__file__).parent / "data" / "classic-search-baseline.json").read_text())


@pytest.mark.parametrize("part", ["search", "solve", "rule_rounds"])
def test_classic_search_figures_are_unchanged_by_the_speed_up(part):
    got = {"search": baseline.search_scores, "solve": baseline.solver_values,
           "rule_rounds": baseline.rule_rounds}[part]()
    assert got == RECORDED[part]

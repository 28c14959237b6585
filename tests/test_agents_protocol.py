"""The agent factory and spec grammar (openlandlord.agents)."""
import numpy as np
import pytest

from openlandlord.agents import choose, make, parse_spec, softmax
from openlandlord.errors import UserError


def test_spec_grammar():
    s = parse_spec("pimc:worlds=32,rollout=rule")
    assert (s.name, s.arg, s.options) == ("pimc", None, {"worlds": "32", "rollout": "rule"})
    s = parse_spec("student:runs/a b")
    assert (s.name, s.arg) == ("student", "runs/a b")
    assert parse_spec("rule:expert").arg == "expert"
    assert parse_spec("random").arg is None


@pytest.mark.parametrize("bad", ["", "nosuchagent", "pimc:worlds=3,oops"])
def test_bad_specs_are_user_errors(bad):
    with pytest.raises(UserError):
        parse_spec(bad)


def test_random_agent_is_seeded_and_scores_every_move():
    a, b = make("random", seed=5), make("random", seed=5)
    legal = ["3", "4", "5"]
    sa, sb = a.scores(None, legal), b.scores(None, legal)
    assert sa.shape == (3,) and np.array_equal(sa, sb)


def test_choose_argmax_and_temperature():
    assert choose(np.array([0.1, 3.0, 2.0])) == 1
    rng = np.random.default_rng(0)
    picks = [choose(np.array([0.0, 0.0]), rng, temperature=1.0) for _ in range(400)]
    assert 120 < sum(picks) < 280
    p = softmax(np.array([1.0, 1.0, 1.0]), 0.5)
    assert np.allclose(p, 1 / 3)
    assert softmax(np.array([1.0, 5.0]), 0.0).tolist() == [0.0, 1.0]

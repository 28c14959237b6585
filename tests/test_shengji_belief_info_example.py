"""docs/examples/shengji_belief_info.py: the log-likelihood of the true hands is 0 when the
shares are the truth itself, the sampler's shares never give a true holder zero, and the
shipped student's head knows more of the hidden hands than sizes and voids alone."""
import numpy as np
import pytest

from openlandlord.cli import main


@pytest.fixture(scope="module")
def info(load_example):
    return load_example("shengji_belief_info")


def test_log_likelihood_of_the_truth_itself_is_zero(info):
    truth = np.zeros((54, 3))
    truth[0, 1] = 2
    truth[5, 0] = 1
    truth[5, 2] = 1
    assert info.log_likelihood(truth, truth) == pytest.approx(np.log(0.5) * 2)
    one_holder = np.zeros((54, 3))
    one_holder[7, 2] = 1
    assert info.log_likelihood(one_holder, one_holder) == pytest.approx(0.0, abs=1e-9)
    assert info.log_likelihood(one_holder, np.ones((54, 3))) == pytest.approx(np.log(1 / 3))


def test_the_shipped_head_knows_more_than_sizes_and_voids(info, tmp_path):
    data = tmp_path / "data"
    assert main(["generate", "--game", "shengji", "--teacher", "pimc:objective=points,worlds=4",
                 "--deals", "6", "--out", str(data), "--workers", "1", "--seed", "5"]) == 0
    got = info.measure("data/models/shengji", str(data), 60)
    assert 0 < got["positions"] <= 60
    assert np.isfinite(got["nats_per_position"])
    assert got["nats_per_position"] > 0.0

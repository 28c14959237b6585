"""docs/examples/soup.py: the soup's weights are the mean of its parts', a soup of one student
is that student, and parts of different model configs are refused."""
import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten

from openlandlord.errors import UserError
from openlandlord.model import LandlordFormerLite, ModelConfig, load_checkpoint, save_checkpoint


@pytest.fixture(scope="module")
def soup(load_example):
    return load_example("soup").soup


def student(directory, seed, **fields):
    mx.random.seed(seed)
    config = ModelConfig.for_features("shengji", **{"d_model": 16, "heads": 2, "ff": 32, "layers": 1,
                                                    "adapter_rank": 2, **fields})
    model = LandlordFormerLite(config)
    mx.eval(model.parameters())
    save_checkpoint(str(directory), model, config)
    return dict(tree_flatten(model.parameters()))


def test_soup_is_the_mean_of_its_parts(soup, tmp_path):
    a = student(tmp_path / "a", 1)
    b = student(tmp_path / "b", 2)
    soup(str(tmp_path / "ab"), [str(tmp_path / "a"), str(tmp_path / "b")])
    model, _, meta = load_checkpoint(str(tmp_path / "ab"))
    got = dict(tree_flatten(model.parameters()))
    assert set(got) == set(a)
    assert any(not np.allclose(a[k], b[k]) for k in a)
    for k in a:
        np.testing.assert_allclose(np.array(got[k]), (np.array(a[k]) + np.array(b[k])) / 2, rtol=1e-5, atol=1e-7)
    soup(str(tmp_path / "aa"), [str(tmp_path / "a")])
    one = dict(tree_flatten(load_checkpoint(str(tmp_path / "aa"))[0].parameters()))
    for k in a:
        np.testing.assert_array_equal(np.array(one[k]), np.array(a[k]))


def test_soup_refuses_parts_of_other_configs(soup, tmp_path):
    student(tmp_path / "a", 1)
    student(tmp_path / "c", 1, ff=64)
    with pytest.raises(UserError, match="model config differs"):
        soup(str(tmp_path / "ac"), [str(tmp_path / "a"), str(tmp_path / "c")])

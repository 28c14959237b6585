"""The `coreml:PATH` agent: clear errors where Core ML cannot predict or the package is
missing, and on macOS the same scores as the torch mirror of the exported checkpoint."""
import sys

import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.agents.coreml_agent import prediction_unavailable
from openlandlord.errors import NotAvailable, UserError


@pytest.mark.parametrize("spec, message", [
    ("coreml", "needs a package"),
    ("coreml:/no/such/student.mlpackage", "does not exist"),
    ("coreml:path=/no/such/student.mlpackage,compute=all", "does not exist"),
    ("coreml:path=x.mlpackage,units=all", "unknown option"),
])
def test_bad_specs_name_the_problem(spec, message):
    with pytest.raises(UserError, match=message) as info:
        make(spec)
    assert not isinstance(info.value, NotAvailable)


def test_bad_compute_units(tmp_path):
    package = tmp_path / "student.mlpackage"
    package.mkdir()
    with pytest.raises(UserError, match="compute='gpu_only'"):
        make(f"coreml:path={package},compute=gpu_only")


@pytest.mark.skipif(sys.platform == "darwin", reason="Core ML predicts on macOS")
def test_off_macos_it_says_core_ml_needs_macos(tmp_path):
    package = tmp_path / "student.mlpackage"
    package.mkdir()
    assert "macOS" in prediction_unavailable()
    with pytest.raises(NotAvailable, match="Core ML prediction needs macOS"):
        make(f"coreml:{package}")


@pytest.mark.skipif(prediction_unavailable() is not None, reason="Core ML cannot predict here")
def test_scores_equal_the_torch_mirror(tmp_path):
    import torch

    from openlandlord.export.coreml import convert
    from openlandlord.export.latency import decision_states, default_checkpoint
    from openlandlord.export.torch_mirror import load_torch_student
    from openlandlord import features

    checkpoint = default_checkpoint("doudizhu", str(tmp_path / "student"))
    slots = 8
    package = convert(checkpoint, str(tmp_path / "student.mlpackage"), "fp32", slots)
    mirror = load_torch_student(checkpoint)
    agent = make(f"coreml:path={package},compute=cpu_only")
    states = decision_states("doudizhu", deals=2)
    lengths = set()
    for state in states:
        obs, legal = state.observation(state.current_seat), state.legal_moves()
        batch = features.collate([features.featurize(obs, legal)])
        with torch.no_grad():
            want = mirror({k: torch.from_numpy(v) for k, v in batch.items()})["logits"][0].numpy()
        got = agent.scores(obs, legal)
        lengths.add(len(legal) > slots)
        np.testing.assert_allclose(got, want, atol=1e-3)
    assert lengths == {False, True}, "both one-call and chunked states should be checked"

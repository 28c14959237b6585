"""`douzero:DIR` (openlandlord.agents.douzero_agent): DouZero checkpoints scoring our positions.

The oracle is DouZero itself: checkpoints saved from `douzero.dmc.models` with random weights,
DouZero's `GameEnv` replaying the same deal and moves in lockstep with our referee, and
DouZero's `DeepAgent` network on DouZero's own `get_obs` of its own infoset.
"""
import os
import shutil

import numpy as np
import pytest

pytest.importorskip("douzero.dmc.models")
torch = pytest.importorskip("torch")

from openlandlord.agents import make
from openlandlord.games.doudizhu.douzero_agent import (POSITIONS, compare_with_douzero,
                                               save_random_checkpoints)
from openlandlord.errors import UserError
from openlandlord.games.doudizhu import Game


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    # batches of a few dozen rows: extra threads only fight the rest of the suite for cores
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    directory = tmp_path_factory.mktemp("douzero")
    save_random_checkpoints(str(directory), seed=7)
    return directory


def test_scores_equal_deepagent_on_2000_states_of_all_seats(checkpoints):
    report = compare_with_douzero(str(checkpoints), states=2000, seed=3)
    assert sum(report["states"].values()) == 2000
    assert min(report["states"].values()) >= 600
    assert report["max_abs_diff"] <= 1e-5
    # the scores are of order one and differ between moves: the check has teeth
    assert report["mean_abs_score"] > 0.3 and report["mean_score_spread"] > 0.01
    assert report["deepagent_picks"] > 500
    assert report["argmax_agrees"] == report["deepagent_picks"]


def test_agent_from_spec_plays_legal_moves_and_bids(checkpoints):
    agent = make(f"douzero:{checkpoints}", seed=0)
    game = Game.new(11, bidding="points")
    while not game.done:
        legal = game.legal_moves()
        scores = agent.scores(game.observation(game.current_seat), legal)
        assert scores.shape == (len(legal),) and np.all(np.isfinite(scores))
        game.play(legal[int(np.argmax(scores))])


def test_missing_directory_or_file_is_a_clear_error(checkpoints, tmp_path):
    with pytest.raises(UserError, match="not a directory"):
        make(f"douzero:{tmp_path / 'nowhere'}")
    with pytest.raises(UserError, match="needs a directory"):
        make("douzero")
    partial = tmp_path / "partial"
    partial.mkdir()
    for position in ("landlord", "landlord_down"):
        shutil.copy(checkpoints / f"{position}.ckpt", partial)
    with pytest.raises(UserError, match="landlord_up.ckpt"):
        make(f"douzero:{partial}")


def test_mismatched_or_unreadable_checkpoint_is_a_clear_error(checkpoints, tmp_path):
    swapped = tmp_path / "swapped"
    swapped.mkdir()
    for position in POSITIONS:
        shutil.copy(checkpoints / f"{position}.ckpt", swapped)
    # a farmer network where the landlord's belongs: dense1 takes 484 + 128 inputs, not 373 + 128
    shutil.copy(checkpoints / "landlord_up.ckpt", swapped / "landlord.ckpt")
    with pytest.raises(UserError, match=r"landlord\.ckpt.*dense1\.weight"):
        make(f"douzero:{swapped}")
    state = torch.load(checkpoints / "landlord_down.ckpt", weights_only=True)
    del state["dense6.bias"]
    shutil.copy(checkpoints / "landlord.ckpt", swapped / "landlord.ckpt")
    torch.save(state, swapped / "landlord_down.ckpt")
    with pytest.raises(UserError, match=r"landlord_down\.ckpt.*missing.*dense6\.bias"):
        make(f"douzero:{swapped}")
    (swapped / "landlord_down.ckpt").write_bytes(b"not a checkpoint")
    with pytest.raises(UserError, match=r"cannot read .*landlord_down\.ckpt"):
        make(f"douzero:{swapped}")


def test_douzero_folder_of_non_checkpoints_regression(checkpoints, tmp_path):
    # torch's multi-line error advised weights_only=False (unsafe); one line naming the file.
    import argparse

    folder = tmp_path / "other"
    folder.mkdir()
    for position in POSITIONS:
        shutil.copy(checkpoints / f"{position}.ckpt", folder)
    torch.save({"options": argparse.Namespace(lr=0.1)}, folder / "landlord_up.ckpt")
    with pytest.raises(UserError) as caught:
        make(f"douzero:{folder}")
    message = str(caught.value)
    assert "landlord_up.ckpt" in message and "argparse.Namespace" in message
    assert "weights_only" not in message and "\n" not in message
    (folder / "landlord_up.ckpt").write_text("hello\nworld\n")
    with pytest.raises(UserError, match=r"landlord_up\.ckpt.*not a torch checkpoint") as caught:
        make(f"douzero:{folder}")
    assert "\n" not in str(caught.value)

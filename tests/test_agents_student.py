"""The `student:PATH` agent: scores over the legal moves through the one featurizer, the same
whatever else is in the batch, and a clear error for a missing or mismatched checkpoint."""
import json
import shutil

import mlx.core as mx
import numpy as np
import pytest

from openlandlord.distill import dataset
from openlandlord.distill.train import TrainConfig, model_config
from openlandlord.agents import Agent, choose, make
from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.model import LandlordFormerLite, save_checkpoint
TINY = dict(d_model=16, ff=32, layers=1, heads=2, adapter_rank=2)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("student") / "data"
    assert main(["generate", "--game", "doudizhu", "--teacher", "random", "--deals", "4",
                 "--out", str(out), "--workers", "1", "--seed", "5"]) == 0
    return list(dataset.open(out).records())


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    mx.random.seed(1)
    cfg = model_config(TrainConfig(model=TINY), "doudizhu")
    path = tmp_path_factory.mktemp("student") / "ckpt"
    save_checkpoint(str(path), LandlordFormerLite(cfg), cfg)
    return path


def test_scores_follow_the_legal_list(checkpoint, records):
    agent = make(f"student:{checkpoint}")
    assert isinstance(agent, Agent)
    for rec in records[:20]:
        scores = agent.scores(rec.obs, rec.legal)
        assert scores.shape == (len(rec.legal),) and np.all(np.isfinite(scores))
        assert 0 <= choose(scores) < len(rec.legal)


def test_batch_equals_single_whatever_the_composition(checkpoint, records):
    agent = make(f"student:{checkpoint}")
    items = [(r.obs, r.legal) for r in records[:80]]
    assert len({len(legal) for _, legal in items}) > 3        # several legal-list buckets
    single = [agent.scores(obs, legal) for obs, legal in items]
    together = agent.scores_batch(items)
    reversed_ = agent.scores_batch(items[::-1])[::-1]
    rng = np.random.default_rng(0)
    pick = rng.choice(len(items), size=37, replace=False)
    subset = agent.scores_batch([items[i] for i in pick])
    for i, (a, b, c) in enumerate(zip(single, together, reversed_)):
        np.testing.assert_array_equal(a, b, err_msg=str(i))
        np.testing.assert_array_equal(a, c, err_msg=str(i))
    for k, i in enumerate(pick):
        np.testing.assert_array_equal(single[i], subset[k])


def test_matches_the_model_on_a_collated_batch(checkpoint, records):
    """The agent's logits are the model's, through the featurizer (tolerance: other shapes)."""
    from openlandlord import features
    from openlandlord.model import load_checkpoint

    agent = make(f"student:{checkpoint}")
    model, _, _ = load_checkpoint(str(checkpoint))
    rec = records[3]
    batch = features.collate([features.featurize(rec.obs, rec.legal)])
    direct = np.array(model({k: mx.array(v) for k, v in batch.items()})["logits"])[0]
    np.testing.assert_allclose(agent.scores(rec.obs, rec.legal), direct, atol=1e-5)


def test_a_run_directory_resolves_to_its_last_epoch(checkpoint, tmp_path, records):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copytree(checkpoint, run / "epoch-0001")
    (run / "last").symlink_to("epoch-0001")
    rec = records[0]
    np.testing.assert_array_equal(make(f"student:{run}").scores(rec.obs, rec.legal),
                                  make(f"student:{checkpoint}").scores(rec.obs, rec.legal))


def test_missing_and_mismatched_checkpoints(checkpoint, tmp_path, records):
    with pytest.raises(UserError, match="does not exist"):
        make(f"student:{tmp_path / 'nowhere'}")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="neither a student checkpoint"):
        make(f"student:{tmp_path / 'empty'}")
    with pytest.raises(UserError, match="needs a checkpoint"):
        make("student")

    def edited(name, edit):
        path = tmp_path / name
        shutil.copytree(checkpoint, path)
        meta = json.loads((path / "config.json").read_text())
        edit(meta)
        (path / "config.json").write_text(json.dumps(meta))
        return path

    stale = edited("stale", lambda m: m.update(feature_version="0"))
    with pytest.raises(UserError, match="feature version"):
        make(f"student:{stale}")
    wrong_shape = edited("shape", lambda m: m["config"].update(d_model=32, heads=2))
    with pytest.raises(UserError, match="does not match its config.json"):
        make(f"student:{wrong_shape}")

    def other_game(meta):
        meta["game"] = meta["config"]["game"] = "shengji"
    with pytest.raises(UserError):
        # Either the Shengji featurizer is absent or its sizes differ from this checkpoint's.
        make(f"student:{edited('shengji', other_game)}")


def test_refuses_another_games_position(checkpoint, records):
    agent = make(f"student:{checkpoint}")
    agent.game = "shengji"          # as if the checkpoint were a Shengji student
    rec = records[0]
    with pytest.raises(UserError, match="plays shengji, not doudizhu"):
        agent.scores(rec.obs, rec.legal)


def _classic_positions_too_large_to_list(deals: int = 3):
    """(state, decision) at every classic decision whose legal set is too large to list, the
    deals played by the expert rule bot."""
    from openlandlord.agents.loop import answer, decisions
    from openlandlord.games import spec
    game = spec("shengji")
    bot = make("rule:expert", 0)
    found = []
    for seed in range(deals):
        state = game.new_deal(seed, rules="classic", trump_rank="any")
        loop = decisions(state, game.legal_cap)
        try:
            decision = next(loop)
            while True:
                if decision.legal is None:
                    found.append(decision)
                decision = loop.send(answer(bot, decision))
        except StopIteration:
            pass
    return game, found


def test_a_classic_lead_too_large_to_list_is_one_listed_decision_over_the_candidates():
    """The student leads in `classic` (any cards of one suit may be led: too many to list) by
    scoring the game's lead candidates as one listed decision, as its search teacher does; card
    by card it was 3 points a deal weaker (docs/models.md). A void seat's long follow stays card
    by card (choose_play answers None); the burial too, unless the student buries from the list."""
    game, found = _classic_positions_too_large_to_list()
    student = make("student:data/models/shengji-classic")
    leads = [d for d in found if d.obs.phase == "play" and not d.obs.trick]
    others = [d for d in found if d not in leads]
    assert leads and any(d.obs.phase == "bury" for d in others)
    for decision in leads:
        candidates = game.play_candidates(decision.obs)
        move = student.choose_play(decision.obs)
        assert move == candidates[choose(student.scores(decision.obs, candidates))]
    # The shipped classic student buries from the game's burial candidates (its config.json
    # records `burial: listed`); with `burial=cards` it builds the burial card by card.
    for d in others:
        if d.obs.phase == "bury":
            burials = game.play_candidates(d.obs, "listed")
            assert student.choose_play(d.obs) == burials[choose(student.scores(d.obs, burials))]
        else:
            assert student.choose_play(d.obs) is None
    by_cards = make("student:data/models/shengji-classic,burial=cards")
    assert all(by_cards.choose_play(d.obs) is None for d in others)
    # Its twin with the rule bot's bids leads the same way (the lead is not a bid).
    twin = make("student:data/models/shengji-classic,bid=rule")
    assert [twin.choose_play(d.obs) for d in leads] == [student.choose_play(d.obs) for d in leads]

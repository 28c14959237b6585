"""`openlandlord dmc` (Deep Monte-Carlo self-play fine-tuning, distill/dmc.py) and `bench dmc`."""
import json

import mlx.core as mx
import numpy as np
import pytest

from openlandlord import features
from openlandlord.cli import main
from openlandlord.distill import dmc
from openlandlord.errors import UserError
from openlandlord.model import load_checkpoint
from openlandlord.model.native import NativeStudent

SHIPPED = "data/models/doudizhu"


def tiny(**kw):
    return dmc.DmcConfig(**{"decisions": 300, "chunk": 150, "envs": 8, "batch_size": 64,
                            "snapshot_every": 1, "seed": 3, **kw})


def test_native_student_from_weights_matches_the_checkpoint():
    from mlx.utils import tree_flatten
    model, config, _ = load_checkpoint(SHIPPED)
    ours = NativeStudent.from_weights(config, {k: np.array(v) for k, v in tree_flatten(model.parameters())})
    theirs = NativeStudent(SHIPPED)
    samples, _ = dmc.collect(theirs, tiny(), 1, 40, config.value_scale)
    for a, b in zip(ours.forward_batch(samples[:20]), theirs.forward_batch(samples[:20])):
        np.testing.assert_array_equal(a["logits"], b["logits"])


def test_collected_targets_are_each_seats_final_payoff():
    """Bidding none: seat 0 is landlord, the farmers get half its payoff each, negated; every
    decision of a game carries its own seat's payoff / value_scale, and its choice is legal."""
    student = NativeStudent(SHIPPED)
    samples, stats = dmc.collect(student, tiny(epsilon=0.2), 1, 400, student.config.value_scale)
    assert stats["games"] >= 10 and stats["explored"] > 0
    by_game = {}
    for s in samples:
        assert 0 <= s["choice"] < len(s["actions"]) and len(s["actions"]) >= 2
        by_game.setdefault(s["game"], {}).setdefault(s["role"], set()).add(s["target"])
    for roles in by_game.values():
        assert all(len(t) == 1 for t in roles.values())     # one payoff per seat per game
        if 0 in roles and 1 in roles:
            (lord,), (farmer,) = roles[0], roles[1]
            assert lord == pytest.approx(-2 * farmer) and lord != 0


def test_dmc_loss_is_soft_q_and_value_error():
    model, config, _ = load_checkpoint(SHIPPED)
    student = NativeStudent(SHIPPED)
    samples, _ = dmc.collect(student, tiny(), 1, 30, config.value_scale)
    batch = features.collate(samples[:8])
    batch["choice"] = np.array([s["choice"] for s in samples[:8]], np.int32)
    batch["target"] = np.array([s["target"] for s in samples[:8]], np.float32)
    batch = {k: mx.array(v) for k, v in batch.items()}
    coef = dmc.q_coefficient("doudizhu", config.value_scale)
    assert coef == pytest.approx(0.2 / 24.0)
    total, parts = dmc.dmc_loss(model, batch, coef, 0.5)
    out = model(batch)
    logits, value = np.array(out["logits"]), np.array(out["value"])
    q = []
    for b, s in enumerate(samples[:8]):
        row = logits[b, :len(s["actions"])]
        logp = row - np.log(np.exp(row - row.max()).sum()) - row.max()
        q.append(value[b] + coef * logp[s["choice"]])
    target = np.array([s["target"] for s in samples[:8]])
    assert float(parts["q"]) == pytest.approx(np.mean((np.array(q) - target) ** 2), rel=1e-4)
    assert float(parts["value"]) == pytest.approx(np.mean((value - target) ** 2), rel=1e-4)
    assert float(total) == pytest.approx(float(parts["q"]) + 0.5 * float(parts["value"]), rel=1e-5)


def test_dmc_run_resumes_where_it_stopped_and_records_its_making(tmp_path):
    out = tmp_path / "dmc"
    first = dmc.run_dmc(SHIPPED, str(out), tiny(), stop_after=1, progress=False)
    assert first["chunk"] == 1 and not (out / "config.json").exists()
    dmc.run_dmc(SHIPPED, str(out), tiny(), progress=False)
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["chunk"] for r in rows] == [1, 2]
    assert rows[-1]["decisions_learned"] >= 300
    meta = json.loads((out / "config.json").read_text())
    assert meta["training"] == "dmc" and meta["init"] == SHIPPED and meta["git_sha"]
    assert meta["dmc"]["seed"] == 3 and meta["decisions_learned"] == rows[-1]["decisions_learned"]
    assert sorted(p.name for p in (out / "snapshots").iterdir()) == ["chunk-0001", "chunk-0002"]
    # The weights moved, and the result loads as a student.
    from mlx.utils import tree_flatten
    a = dict(tree_flatten(load_checkpoint(SHIPPED)[0].parameters()))
    b = dict(tree_flatten(load_checkpoint(str(out))[0].parameters()))
    assert a.keys() == b.keys()
    assert any(not np.array_equal(np.array(a[k]), np.array(b[k])) for k in a)
    NativeStudent(str(out))
    # Other settings on the same folder: refused, one line; --force starts over.
    with pytest.raises(UserError, match="other settings"):
        dmc.run_dmc(SHIPPED, str(out), tiny(decisions=600, lr=3e-4), progress=False)


def test_dmc_chunks_do_not_depend_on_interruptions(tmp_path):
    """Chunk k is the same played in one run or after a resume."""
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    dmc.run_dmc(SHIPPED, str(whole), tiny(), progress=False)
    dmc.run_dmc(SHIPPED, str(parts), tiny(), stop_after=1, progress=False)
    dmc.run_dmc(SHIPPED, str(parts), tiny(), progress=False)
    w = [json.loads(x) for x in (whole / "metrics.jsonl").read_text().splitlines()]
    p = [json.loads(x) for x in (parts / "metrics.jsonl").read_text().splitlines()]
    for a, b in zip(w, p):
        assert (a["games"], a["decisions"], a["seat0_mean_payoff"]) == (b["games"], b["decisions"], b["seat0_mean_payoff"])
        assert a["q"] == pytest.approx(b["q"], rel=1e-4)


def test_dmc_command_refuses_bad_input_with_one_line(capsys, tmp_path):
    assert main(["dmc", "--game", "shengji", "--init", SHIPPED, "--out", str(tmp_path / "x"),
                 "--decisions", "10"]) == 2
    assert "is a doudizhu student, not shengji" in capsys.readouterr().err
    assert main(["dmc", "--init", SHIPPED, "--out", str(tmp_path / "x"), "--decisions", "10",
                 "--epsilon", "2"]) == 2
    assert main(["dmc", "--init", str(tmp_path / "nothing"), "--out", str(tmp_path / "y"),
                 "--decisions", "10"]) == 2
    assert not (tmp_path / "y" / "config.json").exists()


def test_bench_dmc_measures_actor_learner_and_douzero(tmp_path):
    out = tmp_path / "bench.json"
    assert main(["bench", "dmc", "--checkpoint", SHIPPED, "--seconds", "0.5", "--envs", "8",
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["actor_moves_per_s"] > 0 and result["learner_samples_per_s"] > 0
    try:
        import douzero  # noqa: F401
    except ImportError:
        assert result["douzero_actor"] is None
    else:
        assert result["douzero_actor"]["moves_per_s"] > 0 and result["actor_vs_douzero_moves"] > 0


@pytest.mark.parametrize("rules,init", [("tractor", "data/models/shengji"), ("classic", "data/models/shengji-classic")])
def test_shengji_targets_are_each_teams_points_margin(rules, init):
    """Shengji: a decision's G is its team's card-points margin around 80 (the value head's
    target), so in every game the declaring team's (roles 0, 2) is minus the attackers'."""
    student = NativeStudent(init)
    cfg = tiny(game="shengji", options={"rules": rules, "trump_rank": "any"}, envs=4)
    samples, stats = dmc.collect(student, cfg, 1, 300, student.config.value_scale)
    assert stats["games"] >= 2
    by_game = {}
    for s in samples:
        assert s["void"].shape == (3, 54) and 0 <= s["choice"] < len(s["actions"])
        by_game.setdefault(s["game"], {}).setdefault(s["role"] % 2, set()).add(s["target"])
    for teams in by_game.values():
        assert all(len(t) == 1 for t in teams.values())
        if len(teams) == 2:
            (declarers,), (attackers,) = teams[0], teams[1]
            assert declarers == pytest.approx(-attackers)


def test_cycle_plays_each_value_of_one_option_in_turn(capsys, tmp_path):
    """`--cycle bidding=call-rob,points,none`: chunk k plays the k-th flow (cyclically), and the
    bids of those games are learned like plays (their legal lists are the bid words)."""
    cfg = tiny(cycle=dmc.parse_cycle("bidding=call-rob,points,none"))
    assert [cfg.options_of(k)["bidding"] for k in (1, 2, 3, 4)] == ["call-rob", "points", "none", "call-rob"]
    student = NativeStudent(SHIPPED)
    samples, _ = dmc.collect(student, cfg, 1, 200, student.config.value_scale)
    assert any(s["role"] == 3 for s in samples)        # role 3: still bidding
    for bad in ("bidding=foo", "rules=classic", "bidding"):
        assert main(["dmc", "--init", SHIPPED, "--out", str(tmp_path / "z"), "--decisions", "10",
                     "--cycle", bad]) == 2
        assert capsys.readouterr().err.count("\n") == 1

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


def test_anchored_bids_carry_the_anchor_students_softmax_and_value():
    """`--anchor`: the extra decisions are bids only (the spec's bidding role), from the chunk's
    anchor flow, each labelled with the anchor's softmax over its legal bids and its value."""
    cfg = tiny(anchor=SHIPPED, anchor_flows=dmc.parse_cycle("bidding=call-rob,points"))
    assert [cfg.anchor_options_of(k)["bidding"] for k in (1, 2, 3)] == ["call-rob", "points", "call-rob"]
    student = NativeStudent(SHIPPED)
    anchor = NativeStudent(SHIPPED)
    rows, stats = dmc.collect_anchored(student, anchor, cfg, 1, 60)
    assert len(rows) == stats["anchored"] == 60
    for row, out in zip(rows, anchor.forward_batch(rows)):
        assert row["role"] == 3 and row["anchored"] == 1.0 and 2 <= len(row["actions"]) <= 5
        logits = np.asarray(out["logits"], np.float64)
        soft = np.exp(logits - logits.max())
        np.testing.assert_allclose(row["soft"], soft / soft.sum(), rtol=1e-5, atol=1e-7)
        assert row["target"] == pytest.approx(float(out["value"]))


def test_dmc_loss_learns_anchored_rows_by_cross_entropy_not_returns():
    model, config, _ = load_checkpoint(SHIPPED)
    student = NativeStudent(SHIPPED)
    played, _ = dmc.collect(student, tiny(), 1, 30, config.value_scale)
    cfg = tiny(anchor=SHIPPED, anchor_flows=dmc.parse_cycle("bidding=call-rob"))
    bids, _ = dmc.collect_anchored(student, student, cfg, 1, 4)
    rows = played[:4] + bids
    for r in bids:
        r["choice"] = 0
    batch = features.collate(rows)
    batch["choice"] = np.array([r["choice"] for r in rows], np.int32)
    batch["target"] = np.array([r["target"] for r in rows], np.float32)
    batch["anchored"] = np.array([r["anchored"] for r in rows], np.float32)
    batch["soft"] = np.zeros(batch["action_mask"].shape, np.float32)
    for k, r in enumerate(bids, 4):
        batch["soft"][k, :len(r["soft"])] = r["soft"]
    coef = dmc.q_coefficient("doudizhu", config.value_scale)
    total, parts = dmc.dmc_loss(model, {k: mx.array(v) for k, v in batch.items()}, coef, 0.5, 2.0)
    out = model({k: mx.array(v) for k, v in batch.items()})
    logits, value = np.array(out["logits"]), np.array(out["value"])
    q_err, cross = [], []
    for b, r in enumerate(rows):
        row = logits[b, :len(r["actions"])].astype(np.float64)
        logp = row - row.max() - np.log(np.exp(row - row.max()).sum())
        if b < 4:
            q_err.append((value[b] + coef * logp[r["choice"]] - r["target"]) ** 2)
        else:
            cross.append(-(r["soft"] * logp).sum())
    target = batch["target"]
    assert float(parts["q"]) == pytest.approx(np.sum(q_err) / 8, rel=1e-4)
    assert float(parts["anchor"]) == pytest.approx(np.sum(cross) / 8, rel=1e-4)
    assert float(parts["value"]) == pytest.approx(np.mean((value - target) ** 2), rel=1e-4)
    assert float(total) == pytest.approx(float(parts["q"]) + 0.5 * float(parts["value"])
                                         + 2.0 * float(parts["anchor"]), rel=1e-5)


def test_anchor_pulls_the_bids_towards_the_anchor(tmp_path):
    """A run anchored to another student moves its bids towards that student's: from the
    shipped student, anchored to a random-weight one, the cross-entropy to it falls."""
    from openlandlord.model import save_checkpoint
    from openlandlord.model.student import LandlordFormerLite
    _, config, _ = load_checkpoint(SHIPPED)
    mx.random.seed(11)
    other = LandlordFormerLite(config)
    mx.eval(other.parameters())
    save_checkpoint(str(tmp_path / "other"), other, config, {})
    cfg = tiny(decisions=600, chunk=150, anchor=str(tmp_path / "other"), anchor_share=0.5,
               anchor_weight=5.0, lr=1e-3, warmup_steps=1,
               anchor_flows=dmc.parse_cycle("bidding=call-rob,points"))
    dmc.run_dmc(SHIPPED, str(tmp_path / "run"), cfg, progress=False)
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert rows[0]["anchored"] == 75 and all(r["anchored"] > 0 for r in rows)
    assert rows[-1]["decisions_learned"] >= 600

    def cross_entropy(student):      # to the anchor, on the same 200 bids (seed 9)
        bids, _ = dmc.collect_anchored(NativeStudent(SHIPPED), NativeStudent(str(tmp_path / "other")),
                                       tiny(seed=9, anchor="x", anchor_flows=cfg.anchor_flows), 1, 200)
        total = 0.0
        for row, out in zip(bids, NativeStudent(student).forward_batch(bids)):
            logits = np.asarray(out["logits"], np.float64)
            total -= (row["soft"] * (logits - logits.max() - np.log(np.exp(logits - logits.max()).sum()))).sum()
        return total / len(bids)
    assert cross_entropy(str(tmp_path / "run")) < cross_entropy(SHIPPED) - 0.05
    config_json = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config_json["dmc"]["anchor"] == str(tmp_path / "other") and config_json["anchor_weights_sha256"]


def test_anchor_is_refused_where_it_cannot_apply(capsys, tmp_path):
    with pytest.raises(UserError, match="no bidding decisions"):
        tiny(game="shengji", anchor="x", anchor_flows={"rules": ["tractor"]})
    with pytest.raises(UserError, match="--anchor-flows"):
        tiny(anchor=SHIPPED)
    assert main(["dmc", "--init", SHIPPED, "--out", str(tmp_path / "z"), "--decisions", "10",
                 "--anchor", SHIPPED, "--anchor-flows", "bidding=nope"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_runs_made_before_later_settings_still_resume():
    """Regression: a run begun before `--cycle` and `--anchor` existed recorded settings without
    them; its rerun must compare equal, so later fields at their defaults are left out."""
    settings = tiny().settings()
    assert not {"cycle", "anchor", "anchor_flows", "anchor_share", "anchor_weight"} & set(settings)
    assert tiny(cycle={"bidding": ["none"]}).settings()["cycle"] == {"bidding": ["none"]}


def test_win_bonus_adds_the_sign_of_the_return_to_the_target():
    """`--win-bonus B`: G + B * sign(G), before the clip (the same games as without it)."""
    student = NativeStudent(SHIPPED)
    plain, _ = dmc.collect(student, tiny(), 1, 200, student.config.value_scale)
    bonus, _ = dmc.collect(student, tiny(win_bonus=0.05), 1, 200, student.config.value_scale)
    assert len(plain) == len(bonus)
    for a, b in zip(plain, bonus):
        assert b["target"] == pytest.approx(np.clip(a["target"] + 0.05 * np.sign(a["target"]), -1, 1), abs=1e-6)
    with pytest.raises(UserError, match="--win-bonus"):
        tiny(win_bonus=-1.0)


CLASSIC = "data/models/shengji-classic"


def test_learn_phases_learns_bids_by_returns_and_anchors_the_play():
    """`--learn-phases bury,declare --anchor DIR` (Shengji `classic`): only the burial and the
    declarations take their returns (and the exploration); a uniform draw of the play's
    decisions, `anchor_share` of the chunk, is labelled with the anchor's softmax and value,
    and the play is greedy on the student's logits even at epsilon 1."""
    student = NativeStudent(CLASSIC)
    cfg = tiny(game="shengji", options={"rules": "classic", "trump_rank": "any"}, envs=4, epsilon=1.0,
               anchor=CLASSIC, learn_phases=["bury", "declare"], anchor_share=0.5)
    samples, stats = dmc.collect(student, cfg, 1, 120, student.config.value_scale, NativeStudent(CLASSIC))
    learned = [s for s in samples if not s["anchored"]]
    played = [s for s in samples if s["anchored"]]
    assert len(learned) == stats["decisions"] >= 120 and stats["games"] >= 2
    assert {s["phase"] for s in learned} == {"bury", "declare"}
    assert sum(stats["by_phase"].values()) == len(learned) and stats["by_phase"]["bury"] % 8 == 0
    assert len(played) == stats["anchored"] == 60 and {s["phase"] for s in played} == {"play"}
    assert stats["explored"] >= len(learned) // 2         # epsilon 1 in the learned phases only
    for row, out in zip(played, student.forward_batch(played)):
        logits = np.asarray(out["logits"], np.float64)
        soft = np.exp(logits - logits.max())
        np.testing.assert_allclose(row["soft"], soft / soft.sum(), atol=1e-5)
        assert row["target"] == pytest.approx(float(out["value"]), abs=1e-5)
        assert row["choice"] == int(np.argmax(logits))   # the play: greedy
    for s in learned:
        assert -1.0 <= s["target"] <= 1.0 and 0 <= s["choice"] < len(s["actions"])


def test_learn_phases_run_records_its_phases_and_resumes(tmp_path):
    cfg = tiny(game="shengji", options={"rules": "classic", "trump_rank": "any"}, envs=4,
               decisions=120, chunk=60, anchor=CLASSIC, learn_phases=["bury"], anchor_share=0.25)
    dmc.run_dmc(CLASSIC, str(tmp_path / "run"), cfg, stop_after=1, progress=False)
    dmc.run_dmc(CLASSIC, str(tmp_path / "run"), cfg, progress=False)
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [r["chunk"] for r in rows] == [1, 2]
    assert all(set(r["by_phase"]) == {"bury"} and r["anchored"] > 0 for r in rows)
    assert rows[0]["anchored"] == 15                       # anchor_share of the chunk
    config_json = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config_json["dmc"]["learn_phases"] == ["bury"] and config_json["anchor_weights_sha256"]
    with pytest.raises(UserError, match="other settings"):
        dmc.run_dmc(CLASSIC, str(tmp_path / "run"), dmc.DmcConfig(**{**cfg.__dict__, "learn_phases": ["declare"]}),
                    progress=False)


def test_learn_phases_refuses_what_cannot_apply(capsys, tmp_path):
    classic = {"game": "shengji", "options": {"rules": "classic"}}
    with pytest.raises(UserError, match="bidding phases are declare, bury"):
        tiny(**classic, anchor=CLASSIC, learn_phases=["play"])
    with pytest.raises(UserError, match="needs --anchor"):
        tiny(**classic, learn_phases=["bury"])
    with pytest.raises(UserError, match="needs --anchor"):
        tiny(anchor=SHIPPED, anchor_flows={"bidding": ["points"]}, learn_phases=["bid"])
    assert main(["dmc", "--game", "shengji", "--rules", "classic", "--init", CLASSIC, "--out",
                 str(tmp_path / "z"), "--decisions", "10", "--anchor", CLASSIC, "--learn-phases", "bid"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_learn_roles_learns_the_landlord_by_returns_and_anchors_the_farmers():
    """`--learn-roles landlord --anchor DIR` (Dou Dizhu): only the landlord's decisions take
    their returns (and the exploration); a uniform draw of the farmers' decisions,
    `anchor_share` of the chunk, is labelled with the anchor's softmax and value, and the
    farmers play greedily on the student's logits even at epsilon 1."""
    student = NativeStudent(SHIPPED)
    cfg = tiny(envs=8, epsilon=1.0, anchor=SHIPPED, anchor_flows={"bidding": ["call-rob"]},
               learn_roles=["landlord"], anchor_share=0.5)
    samples, stats = dmc.collect(student, cfg, 1, 120, student.config.value_scale, NativeStudent(SHIPPED))
    learned = [s for s in samples if not s["anchored"]]
    kept = [s for s in samples if s["anchored"]]
    assert len(learned) == stats["decisions"] >= 120 and stats["by_role"] == {"landlord": len(learned)}
    assert {s["role"] for s in learned} == {0}
    assert len(kept) == stats["anchored"] == 60 and {s["role"] for s in kept} == {1, 2}
    assert stats["explored"] >= len(learned) // 2          # epsilon 1 in the learned role only
    for row, out in zip(kept, student.forward_batch(kept)):
        logits = np.asarray(out["logits"], np.float64)
        soft = np.exp(logits - logits.max())
        np.testing.assert_allclose(row["soft"], soft / soft.sum(), atol=1e-5)
        assert row["choice"] == int(np.argmax(logits))    # the farmers: greedy
    for s in learned:
        assert -1.0 <= s["target"] <= 1.0 and 0 <= s["choice"] < len(s["actions"])


def test_learn_roles_run_records_its_roles_resumes_and_refuses_what_cannot_apply(capsys, tmp_path):
    cfg = tiny(envs=8, decisions=120, chunk=60, anchor=SHIPPED, anchor_flows={"bidding": ["points"]},
               learn_roles=["landlord"], anchor_share=0.25)
    dmc.run_dmc(SHIPPED, str(tmp_path / "run"), cfg, stop_after=1, progress=False)
    dmc.run_dmc(SHIPPED, str(tmp_path / "run"), cfg, progress=False)
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [r["chunk"] for r in rows] == [1, 2]
    assert all(set(r["by_role"]) == {"landlord"} and r["anchored"] > 15 for r in rows)  # farmers + bids
    assert json.loads((tmp_path / "run" / "config.json").read_text())["dmc"]["learn_roles"] == ["landlord"]
    with pytest.raises(UserError, match="other settings"):
        dmc.run_dmc(SHIPPED, str(tmp_path / "run"), dmc.DmcConfig(**{**cfg.__dict__, "learn_roles": ["landlord_up"]}),
                    progress=False)
    flows = {"anchor": SHIPPED, "anchor_flows": {"bidding": ["points"]}}
    names = NativeStudent(SHIPPED).config.role_names
    with pytest.raises(UserError, match="some, not all"):
        tiny(**flows, learn_roles=["farmer"]).learned_role_ids(names)
    with pytest.raises(UserError, match="some, not all"):
        tiny(**flows, learn_roles=list(names)).learned_role_ids(names)
    with pytest.raises(UserError, match="some, not all"):          # refused before any play
        dmc.run_dmc(SHIPPED, str(tmp_path / "w"), tiny(**flows, learn_roles=["declarer"]), progress=False)
    assert not (tmp_path / "w" / "metrics.jsonl").exists()
    with pytest.raises(UserError, match="needs --anchor"):
        tiny(learn_roles=["landlord"])
    with pytest.raises(UserError, match="no --learn-phases"):
        tiny(game="shengji", options={"rules": "classic"}, anchor=CLASSIC, learn_phases=["bury"],
             learn_roles=["declarer"])
    assert main(["dmc", "--game", "doudizhu", "--init", SHIPPED, "--out", str(tmp_path / "z"), "--decisions", "10",
                 "--anchor", SHIPPED, "--anchor-flows", "bidding=points", "--learn-roles", "farmers"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_train_only_adapters_with_learn_roles_keeps_every_other_weight_exactly(tmp_path):
    """`--train-only adapters --learn-roles landlord`: only the landlord's slices of the role
    adapters move; every other weight, the farmers' and the bids' slices included, stays the
    start's bit for bit, so the farmers' and the bids' scores are exactly the start's."""
    from mlx.utils import tree_flatten

    from openlandlord.model import load_checkpoint
    cfg = tiny(envs=8, decisions=120, chunk=60, learn_roles=["landlord"], train_only="adapters", lr=1e-3)
    dmc.run_dmc(SHIPPED, str(tmp_path / "run"), cfg, progress=False)
    before = dict(tree_flatten(load_checkpoint(SHIPPED)[0].parameters()))
    after = dict(tree_flatten(load_checkpoint(str(tmp_path / "run"))[0].parameters()))
    moved = []
    for name, value in before.items():
        a, b = np.array(value), np.array(after[name])
        if "adapter" in name:
            np.testing.assert_array_equal(a[1:], b[1:], err_msg=name)   # the farmers' and the bids' slices
            moved.append(not np.array_equal(a[0], b[0]))
        else:
            np.testing.assert_array_equal(a, b, err_msg=name)
    assert moved == [True] * 4                                          # down and up of both adapters
    assert json.loads((tmp_path / "run" / "config.json").read_text())["dmc"]["train_only"] == "adapters"
    rows = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert all("anchored" not in r for r in rows)                      # nothing anchored: nothing to hold
    with pytest.raises(UserError, match="--train-only takes 'adapters' or 'value'"):
        tiny(train_only="encoder")
    with pytest.raises(UserError, match="needs --learn-roles and no --anchor"):
        tiny(train_only="adapters")
    with pytest.raises(UserError, match="needs --learn-roles and no --anchor"):
        tiny(train_only="adapters", learn_roles=["landlord"], anchor=SHIPPED, anchor_flows={"bidding": ["points"]})


def test_train_only_value_moves_the_value_head_alone(tmp_path):
    """`--train-only value`: the value head (`value_hidden`, `value_out`) learns the returns of
    the student's own games and every other weight stays the start's bit for bit, so the play is
    exactly the start's; it takes no --anchor, --learn-roles or --learn-phases."""
    from mlx.utils import tree_flatten

    from openlandlord.model import load_checkpoint
    cfg = tiny(envs=8, decisions=120, chunk=60, train_only="value", lr=1e-3)
    dmc.run_dmc(SHIPPED, str(tmp_path / "run"), cfg, progress=False)
    before = dict(tree_flatten(load_checkpoint(SHIPPED)[0].parameters()))
    after = dict(tree_flatten(load_checkpoint(str(tmp_path / "run"))[0].parameters()))
    moved = {}
    for name, value in before.items():
        a, b = np.array(value), np.array(after[name])
        if name.startswith(("value_hidden.", "value_out.")):
            moved[name] = not np.array_equal(a, b)
        else:
            np.testing.assert_array_equal(a, b, err_msg=name)
    assert sorted(moved) == ["value_hidden.bias", "value_hidden.weight", "value_out.bias", "value_out.weight"]
    assert all(moved.values())
    assert json.loads((tmp_path / "run" / "config.json").read_text())["dmc"]["train_only"] == "value"
    with pytest.raises(UserError, match="--train-only value takes no"):
        tiny(train_only="value", learn_roles=["landlord"])
    with pytest.raises(UserError, match="--train-only value takes no"):
        tiny(train_only="value", anchor=SHIPPED, anchor_flows={"bidding": ["points"]})


def test_learn_roles_names_the_students_own_roles_in_shengji_too():
    """Roles are the student's (its config's `role_names`), so Shengji's seats from the dealer
    work as Dou Dizhu's roles do: only the declarer's decisions learn, with the adapters alone."""
    student = NativeStudent("data/models/shengji")
    cfg = tiny(game="shengji", options={"trump_rank": "any"}, envs=4, learn_roles=["declarer"],
               train_only="adapters")
    samples, stats = dmc.collect(student, cfg, 1, 60, student.config.value_scale)
    assert stats["by_role"] == {"declarer": len(samples)} and {s["role"] for s in samples} == {0}
    assert "anchored" not in stats


def test_regression_resume_refuses_an_init_or_anchor_replaced_under_the_same_path(tmp_path):
    """Regression: a resumed run compared its --init and --anchor by path only, so a student
    reshipped into the same folder was taken for the one the run began with (the anchor then
    silently changed). The weights' SHA-256 is now part of the run's state."""
    from openlandlord.model.checkpoint import copy_checkpoint
    anchor, init = tmp_path / "anchor", tmp_path / "init"
    copy_checkpoint(CLASSIC, anchor)
    copy_checkpoint(CLASSIC, init)
    cfg = tiny(game="shengji", options={"rules": "classic", "trump_rank": "any"}, envs=4,
               decisions=120, chunk=60, anchor=str(anchor), learn_phases=["bury"], anchor_share=0.25)
    dmc.run_dmc(str(init), str(tmp_path / "run"), cfg, stop_after=1, progress=False)
    state = json.loads((tmp_path / "run" / "last" / "trainer.json").read_text())
    assert state["anchor_weights_sha256"] == json.loads((anchor / "config.json").read_text())["weights_sha256"]
    import shutil
    shutil.rmtree(anchor)
    copy_checkpoint("data/models/shengji", anchor)           # another student, the same path
    with pytest.raises(UserError, match="--anchor student's weights changed"):
        dmc.run_dmc(str(init), str(tmp_path / "run"), cfg, progress=False)
    shutil.rmtree(anchor)
    copy_checkpoint(CLASSIC, anchor)                         # put back: it resumes
    dmc.run_dmc(str(init), str(tmp_path / "run"), cfg, progress=False)
    assert (tmp_path / "run" / "config.json").exists()


def test_noise_plays_one_side_per_game_at_random_and_learns_only_the_other():
    """`--noise P --noise-games F` (Dou Dizhu): with F = 1 every game has one noisy side, drawn
    per game (`spec.role_team`: the landlord 0, the farmers 1); its decisions are played at
    random with probability P and never learned, so a game's learned decisions are the
    landlord's alone or the farmers' alone, and both sides are learned over the chunk."""
    from openlandlord.games import spec
    assert [spec("doudizhu").role_team(r) for r in range(4)] == [0, 1, 1, None]
    assert [spec("shengji").role_team(r) for r in range(4)] == [0, 1, 0, 1]
    student = NativeStudent(SHIPPED)
    samples, stats = dmc.collect(student, tiny(noise=1.0, noise_games=1.0), 1, 300,
                                 student.config.value_scale)
    assert stats["noisy_games"] == stats["games"] >= 10 and stats["noisy_decisions"] > 0
    sides = {}
    for s in samples:
        sides.setdefault(s["game"], set()).add(int(s["role"] != 0))
    assert all(len(v) == 1 for v in sides.values())
    assert {next(iter(v)) for v in sides.values()} == {0, 1}
    # F = 0.5: some games are played cleanly by both sides, and learned on both
    samples, stats = dmc.collect(student, tiny(noise=1.0), 1, 300, student.config.value_scale)
    assert 0 < stats["noisy_games"] < stats["games"]
    both = {}
    for s in samples:
        both.setdefault(s["game"], set()).add(int(s["role"] != 0))
    assert any(len(v) == 2 for v in both.values())


def test_noise_refuses_bad_values_and_role_learning_with_one_line(capsys, tmp_path):
    for extra in (["--noise", "1.5"], ["--noise", "0.2", "--noise-games", "0"],
                  ["--noise", "0.2", "--learn-roles", "landlord", "--anchor", SHIPPED]):
        assert main(["dmc", "--init", SHIPPED, "--out", str(tmp_path / "x"), "--decisions", "10", *extra]) == 2
        line = capsys.readouterr().err.strip()
        assert "--noise" in line and "\n" not in line

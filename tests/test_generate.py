"""Dataset generation: deal seeds and splits, eval-seed refusal, determinism across worker
counts, kill-and-resume to the same bytes, and bad input as one clear error (exit 2)."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from openlandlord.distill import generate as gen
from openlandlord import agents, provenance
from openlandlord.cli import main
from openlandlord.errors import UserError

ROOT = Path(__file__).resolve().parent.parent
@pytest.fixture(autouse=True)
def fixed_git_sha(monkeypatch):
    # Other work in the same checkout can flip git's "-dirty" flag between two runs of a
    # test; shards record the SHA, so the runs compared here must agree on it.
    monkeypatch.setattr(provenance, "git_sha", lambda: "test-sha")


def files(directory):
    return {p.name: p.read_bytes() for p in sorted(Path(directory).iterdir())}


def test_deal_seeds_are_distinct_and_below_the_eval_range():
    for seed in (0, 1, -5, 2**70 + 3):
        seeds = [gen.deal_seed(seed, i) for i in range(20000)]
        assert len(set(seeds)) == len(seeds)
        assert all(0 <= s < gen.EVAL_RESERVED.start for s in seeds)
    assert gen.deal_seed(0, 0) != gen.deal_seed(1, 0)


def test_splits_are_roughly_8_1_1():
    splits = [gen.split_of(gen.deal_seed(7, i)) for i in range(20000)]
    share = {s: splits.count(s) / len(splits) for s in gen.SPLITS}
    assert abs(share["train"] - 0.8) < 0.02 and abs(share["val"] - 0.1) < 0.015
    assert abs(share["test"] - 0.1) < 0.015


def test_default_rules_are_the_evaluation_rules():
    from openlandlord.games import GAMES, spec
    # The main deal sets ({game}-dev-N, {game}-test-N and Shengji's match sets) define the
    # game a student is measured on; named variants (doudizhu-callrob-*) are extra flows.
    main_set = re.compile(r"^[a-z]+-(match-)?(dev|test)-\d+\.json$")
    sets = [p for p in sorted((ROOT / "data" / "eval").glob("*.json")) if main_set.match(p.name)]
    if not sets:
        pytest.skip("no evaluation deal sets committed yet")
    for path in sets:
        raw = json.loads(path.read_text())
        options = {k: v for k, v in raw.get("options", {}).items() if k != "mode"}
        assert options == spec(raw["game"]).deal_options(), path.name
    assert {json.loads(p.read_text())["game"] for p in sets} == set(GAMES)


def test_eval_seeds_are_refused(tmp_path, monkeypatch, capsys):
    eval_dir = tmp_path / "eval"
    eval_dir.mkdir()
    (eval_dir / "doudizhu-x.json").write_text(json.dumps({"seeds": [5, gen.deal_seed(3, 4)]}))
    with pytest.raises(UserError, match=r"deal 4 would use seed \d+, an evaluation deal \(doudizhu-x.json\)"):
        gen.generate(tmp_path / "out", "doudizhu", "random", 6, seed=3, eval_dir=eval_dir, progress=False)
    assert not (tmp_path / "out").exists()
    monkeypatch.setattr(gen, "EVAL_DIR", eval_dir)
    assert main(["generate", "--teacher", "random", "--deals", "6", "--seed", "3",
                 "--out", str(tmp_path / "out")]) == 2
    assert "evaluation deal" in capsys.readouterr().err


def test_the_reserved_range_is_refused_even_without_files(tmp_path):
    with pytest.raises(UserError, match="reserved range"):
        gen.check_eval_overlap([12, gen.EVAL_RESERVED.start + 7], tmp_path)


@pytest.mark.parametrize("mix", ["random", "random:0", "random:1.5", "random:x", ":0.5", "nosuch:0.5"])
def test_bad_mix_exits_2(tmp_path, capsys, mix):
    assert main(["generate", "--teacher", "random", "--deals", "2", "--out", str(tmp_path / "o"),
                 "--mix", mix]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("openlandlord: error:")


def test_mix_spec_may_hold_colons():
    assert gen.parse_mix("student:runs/a:0.25") == ("student:runs/a", 0.25)


def test_workers_do_not_change_a_byte(tmp_path):
    one = gen.generate(tmp_path / "w1", "doudizhu", "random", 11, seed=5, mix="random:0.5",
                       workers=1, deals_per_shard=3, progress=False)
    gen.generate(tmp_path / "w2", "doudizhu", "random", 11, seed=5, mix="random:0.5",
                 workers=2, deals_per_shard=3, progress=False)
    assert files(tmp_path / "w1") == files(tmp_path / "w2")
    assert len(one["shards"]) == 4 and one["counts"]["deals"] == 11
    other = gen.generate(tmp_path / "s6", "doudizhu", "random", 11, seed=6, mix="random:0.5",
                         workers=1, deals_per_shard=3, progress=False)
    assert [s["sha256"] for s in other["shards"]] != [s["sha256"] for s in one["shards"]]


def test_kill_and_resume_gives_the_clean_bytes(tmp_path):
    deals, per_shard = 200, 2
    killed = tmp_path / "killed"
    script = (
        "import openlandlord.provenance as p; p.git_sha = lambda: 'test-sha'\n"
        "from openlandlord.distill.generate import generate\n"
        f"generate({str(killed)!r}, 'doudizhu', 'random', {deals}, seed=11, workers=1, "
        f"deals_per_shard={per_shard}, progress=False)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    first = killed / gen.shard_name(0)
    deadline = time.monotonic() + 60
    while not first.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert first.exists(), "the generating process never finished a shard"
    assert not (killed / gen.MANIFEST).exists(), "the run finished before it could be killed"
    kept = {p.name: p.stat().st_mtime_ns for p in killed.glob("shard-*.safetensors")}
    assert len(kept) < deals // per_shard
    (killed / (gen.shard_name(90) + ".tmp-123")).write_bytes(b"half a shard")  # a kill mid-write

    gen.generate(killed, "doudizhu", "random", deals, seed=11, workers=2, deals_per_shard=per_shard,
                 progress=False)
    gen.generate(tmp_path / "clean", "doudizhu", "random", deals, seed=11, workers=1,
                 deals_per_shard=per_shard, progress=False)
    assert files(killed) == files(tmp_path / "clean")
    for name, mtime in kept.items():  # finished shards were kept, not made again
        assert (killed / name).stat().st_mtime_ns == mtime


def test_rerun_of_a_finished_run_changes_nothing(tmp_path, capsys):
    out = tmp_path / "d"
    args = ["generate", "--teacher", "random", "--deals", "3", "--seed", "2", "--out", str(out)]
    assert main(args) == 0
    first = capsys.readouterr()
    assert "3 deals" in first.out and "3/3" in first.err  # the summary line and the progress bar
    before = files(out)
    assert main(args) == 0
    assert files(out) == before
    assert "complete already" in capsys.readouterr().out


def test_another_run_in_the_same_out_is_refused(tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["generate", "--teacher", "random", "--deals", "3", "--out", str(out)]) == 0
    assert main(["generate", "--teacher", "random", "--deals", "3", "--seed", "9", "--out", str(out)]) == 2
    assert "holds a different run (seed=0 (now 9))" in capsys.readouterr().err
    (out / gen.MANIFEST).unlink()  # an unfinished run: its shards still say which run they are
    with pytest.raises(UserError, match="different run"):
        gen.generate(out, "doudizhu", "random", 3, seed=9, progress=False)


def test_a_non_dataset_directory_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty and holds no dataset"):
        gen.generate(tmp_path, "doudizhu", "random", 3, progress=False)
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_a_shard_made_by_other_code_is_made_again(tmp_path, monkeypatch):
    out = tmp_path / "d"
    gen.generate(out, "doudizhu", "random", 6, workers=1, deals_per_shard=3, progress=False)
    clean = files(out)
    (out / gen.MANIFEST).unlink()
    monkeypatch.setattr(provenance, "git_sha", lambda: "older-sha")
    gen.generate(out, "doudizhu", "random", 6, workers=1, deals_per_shard=3, progress=False)
    (out / gen.MANIFEST).unlink()
    monkeypatch.setattr(provenance, "git_sha", lambda: "test-sha")
    gen.generate(out, "doudizhu", "random", 6, workers=1, deals_per_shard=3, progress=False)
    assert files(out) == clean


def test_bench_reports_decisions_per_second(tmp_path, capsys):
    report = tmp_path / "bench.json"
    assert main(["bench", "generate", "--seconds", "1", "--json", str(report)]) == 0
    result = json.loads(report.read_text())
    assert result["decisions"] > 0 and result["decisions_per_s"] > 0
    assert result["teacher"] in gen.BENCH_TEACHERS and 0 < result["teacher_share"] < 1
    assert "decisions/s" in capsys.readouterr().out


def test_shengji_factored_candidates_score_as_their_completions(monkeypatch):
    from openlandlord.games import spec
    from openlandlord.games.shengji import END, is_legal

    game = spec("shengji")
    config = gen.RunConfig("shengji", game.deal_options(), "rule:expert", None, 1.0, 0, 1, 25)
    teacher = agents.make("rule:expert", 0)
    seen = []
    complete = game.complete

    def spy(state, prefix, obs):
        full = complete(state, prefix, obs)
        seen.append((state.rules, obs, prefix, full))
        return full
    monkeypatch.setattr(game, "complete", spy)
    deal = gen.play_deal(config, 0, teacher)      # deal 0 of seed 0 has a follow too large to list
    factored = [d for d in deal["decisions"] if d["factored"] >= 0]
    assert factored and seen
    for rules, obs, prefix, full in seen:
        assert Counter(prefix) <= Counter(full)       # the completion extends the candidate
        assert END not in full and is_legal(rules, list(obs.hand), list(obs.trick[0][1]), list(full))
    for d in factored:
        obs = game.observation_from_json(d["obs"])
        candidates = [tuple(m.split()) for m in d["legal"]]
        completions = [full for _, o, prefix, full in seen if o == obs and prefix in candidates][:len(candidates)]
        np.testing.assert_array_equal(d["scores"], teacher.scores(obs, completions))


def test_shengji_workers_do_not_change_a_byte(tmp_path):
    gen.generate(tmp_path / "w1", "shengji", "rule:expert", 2, seed=0, workers=1, deals_per_shard=1,
                 progress=False)
    gen.generate(tmp_path / "w2", "shengji", "rule:expert", 2, seed=0, workers=2, deals_per_shard=1,
                 progress=False)
    assert files(tmp_path / "w1") == files(tmp_path / "w2")


@pytest.mark.parametrize("teacher", ["rlcard", "human"])
def test_yardstick_and_human_are_never_teachers_regression(tmp_path, teacher, capsys):
    # Regression: `generate --teacher rlcard` was accepted (issue 4: rlcard is never a teacher)
    # and `--teacher human` blocked waiting for a terminal.
    from openlandlord.cli import main
    assert main(["generate", "--teacher", teacher, "--deals", "1", "--out", str(tmp_path / "d")]) == 2
    assert "teacher" in capsys.readouterr().err


def test_a_shard_holds_every_tensor_of_the_schema():
    from openlandlord.distill import schema
    config = gen.RunConfig("doudizhu", {"bidding": "none"}, "random", None, 0.2, 0, 2, 2)
    teacher = agents.make("random", 0)
    tensors, _ = gen.pack(config, [gen.play_deal(config, i, teacher) for i in range(2)])
    assert set(schema.DEAL_TENSORS + schema.RECORD_TENSORS + schema.MOVE_TENSORS) <= set(tensors)


def _recorded_kinds(directory):
    """The kind (`--phases`' names) of every decision the dataset records, and its records."""
    from openlandlord.distill import dataset
    from openlandlord.games import spec
    records = list(dataset.open(directory).records())
    game = spec(dataset.open(directory).game)
    return [game.bidding_kind(r.obs, r.legal) or "play" for r in records], records


def test_phases_record_only_those_decisions_and_the_rest_plays_the_others(tmp_path):
    """`--phases bury --rest SPEC` (Shengji classic): every recorded decision is a step of the
    dealer's burial, each deal has one, the deals are played to the end (their payoffs and
    results are there), and the manifest says what was recorded and who played the rest."""
    out = tmp_path / "bury"
    manifest = gen.generate(out, "shengji", "rule:expert", 3, seed=4, workers=1, progress=False,
                            options={"rules": "classic", "trump_rank": "any"}, phases="bury",
                            rest="random")
    assert manifest["phases"] == {"kinds": ["bury"], "rest": "random"}
    kinds, records = _recorded_kinds(out)
    assert kinds and set(kinds) == {"bury"}
    assert {r.deal_id for r in records} == {0, 1, 2}
    assert all(r.result.get("winner") in ("attackers", "declarers") for r in records)   # played out
    # The same command again: complete, and the same bytes from scratch.
    again = gen.generate(tmp_path / "again", "shengji", "rule:expert", 3, seed=4, workers=1,
                         progress=False, options={"rules": "classic", "trump_rank": "any"},
                         phases="bury", rest="random")
    assert files(out) == files(tmp_path / "again") and again == manifest
    # Recorded whole, the same deals hold play decisions too.
    gen.generate(tmp_path / "all", "shengji", "rule:expert", 3, seed=4, workers=1, progress=False,
                 options={"rules": "classic", "trump_rank": "any"})
    assert {"bury", "play"} <= set(_recorded_kinds(tmp_path / "all")[0])


def test_phases_in_dou_dizhu_bidding(tmp_path):
    gen.generate(tmp_path / "bids", "doudizhu", "rule", 4, seed=2, workers=1, progress=False,
                 options={"bidding": "call-rob"}, phases="bid,double", rest="rule")
    kinds, _ = _recorded_kinds(tmp_path / "bids")
    assert kinds and set(kinds) <= {"bid", "double"}


@pytest.mark.parametrize("game, options", [
    ("shengji", {"rules": "classic", "trump_rank": "any"}),
    ("shengji", {"rules": "tractor"}),
    ("doudizhu", {}),
])
def test_phases_lead_and_follow_split_the_play(tmp_path, game, options):
    """`--phases lead` records only the plays nobody must follow (a Shengji trick's first play,
    a Dou Dizhu move with nothing to beat), `--phases follow` only the others; the rest plays
    everything else, and both are plays of the one `play` kind."""
    from openlandlord.games import spec
    game_spec = spec(game)
    teacher = "rule:expert" if game == "shengji" else "rule"
    for kind in ("lead", "follow"):
        manifest = gen.generate(tmp_path / kind, game, teacher, 3, seed=5, workers=1,
                                progress=False, options=options, phases=kind, rest="random")
        assert manifest["phases"] == {"kinds": [kind], "rest": "random"}
        kinds, records = _recorded_kinds(tmp_path / kind)
        assert records and set(kinds) == {"play"}
        assert {game_spec.play_kind(r.obs) for r in records} == {kind}
        if game == "shengji":
            assert all(bool(r.obs.trick) == (kind == "follow") for r in records)
        else:
            assert all((r.obs.to_beat != "") == (kind == "follow") for r in records)


@pytest.mark.parametrize("extra, message", [
    (["--phases", "play,lead"], "play already holds lead and follow"),
    (["--phases", "lead,lead"], "each once"),
    (["--phases", "burry"], "--phases 'burry': shengji's decision kinds are declare, bury, play"),
    (["--phases", "bury,bury"], "each once"),
    (["--rest", "random"], "--rest plays the decisions --phases leaves out; give --phases too"),
    (["--phases", "bury", "--rest", "human"], "--rest human"),
    (["--phases", "bury", "--rest", "nosuch"], "nosuch"),
])
def test_bad_phases_exit_2(tmp_path, capsys, extra, message):
    assert main(["generate", "--game", "shengji", "--rules", "classic", "--teacher", "rule:expert",
                 "--deals", "1", "--out", str(tmp_path / "o"), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("openlandlord: error:") and message in err[0]
    assert not (tmp_path / "o").exists()

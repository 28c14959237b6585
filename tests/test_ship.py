"""`python -m distill.ship`: the shipping pipeline end to end at tiny sizes (into a tmp dir,
never data/models), a rerun that skips every finished step, and the shipped students under
data/models/<game> loading and scoring a real position."""
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from openlandlord.distill import ship
from openlandlord.agents import choose, listed_legal, make
from openlandlord.errors import UserError
from openlandlord.model.checkpoint import file_sha256
from openlandlord.games import new_deal, spec
ROOT = Path(__file__).resolve().parent.parent


def _patch_quick(monkeypatch, recipe):
    """Replace Dou Dizhu's quick recipe where `ship` reads it (the game spec's
    `ship_quick_recipe`, through `ship.recipe_for`)."""
    monkeypatch.setattr(type(spec("doudizhu")), "ship_quick_recipe", dataclasses.asdict(recipe))


def _run(*args):
    return subprocess.run([sys.executable, "-m", "openlandlord.distill.ship", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("ship") / "run"
    proc = _run("--game", "doudizhu", "--out", str(out), "--quick")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out, proc.stdout


def test_quick_pipeline_ships_a_student_with_its_results(quick):
    out, stdout = quick
    shipped = out / "shipped"
    assert (shipped / "config.json").is_file() and (shipped / "weights.safetensors").is_file()
    results = json.loads((shipped / "results.json").read_text())
    assert results["quick"] is True and results["game"] == "doudizhu"
    recipe = ship.recipe_for("doudizhu", quick=True)
    assert set(results["eval"]["dev"]) == (set(recipe.opponents) | {f"bids-{f}" for f, _ in recipe.bid_dev}
                                           | {f"douzero-{o}" for o in recipe.protocol_opponents})
    protocol = results["eval"]["dev"].pop("douzero-rlcard")
    assert protocol["protocol"] == "douzero" and 0 <= protocol["wp"] <= 1 and "adp_ci95" in protocol
    for figures in results["eval"]["dev"].values():
        assert figures["games"] == 3 * figures["deals"]  # every deal played from all 3 seats
        lo, hi = figures["mean_score_ci95"]
        assert lo <= figures["mean_score"] <= hi
        # what the evaluated student ran with: its weights (the shipped ones) and engine
        assert figures["engines"]["agent"]["weights_sha256"] == file_sha256(shipped / "weights.safetensors")
        assert figures["engines"]["agent"]["backend"] in ("native", "mlx")
    assert results["datasets"]["mix"]["counts"]["deals"] == ship.recipe_for("doudizhu", quick=True).mix_deals[0]
    assert results["rounds"][0]["student"] == str(out / "student")
    # Every step was printed as the CLI command it ran, and the mix step used the first student.
    commands = [line[2:] for line in stdout.splitlines() if line.startswith("$ ")]
    assert commands == results["commands"]
    assert [c.split()[1] for c in commands] == ["generate", "train", "generate", "train",
                                                "generate", "generate", "train"] + ["eval"] * 6
    assert f"student:{out / 'student-1'}:0.5" in commands[2]
    # The bidding round: teacher deals of each flow, the last round's student fine-tuned on
    # them (the shipped one), and its own bids played against its rule-bidding twin.
    assert [c.split()[c.split().index("--bidding") + 1] for c in commands[4:6]] == ["call-rob", "points"]
    assert f"init={out / 'student'}" in commands[6] and "--data " + str(out / "data-bids") in commands[6]
    bids = results["bids"]
    assert bids["from"] == str(out / "student") and bids["student"] == str(out / "student-bids")
    assert {flow: d["counts"]["deals"] for flow, d in bids["datasets"].items()} == dict(recipe.fine_values)
    assert json.loads((shipped / "config.json").read_text()) == json.loads((out / "student-bids" / "config.json").read_text())
    for flow, _ in recipe.bid_dev:
        figures = results["eval"]["dev"][f"bids-{flow}"]
        assert figures["opponent"].endswith(",bid=rule") and "landlord_rate" in figures["bidding"]
        assert f"--bidding {flow}" in " ".join(c for c in commands if figures["opponent"] in c)
    # The quick run's evals went to its own ledger, not the project's.
    assert len((out / "ledger.jsonl").read_text().splitlines()) == 6


def test_rerun_skips_every_finished_step(quick):
    out, _ = quick
    proc = _run("--game", "doudizhu", "--out", str(out), "--quick")
    assert proc.returncode == 0, proc.stderr
    assert not [line for line in proc.stdout.splitlines() if line.startswith("$ ")]
    assert proc.stdout.count("done already, skipped") == 13


def test_from_a_shipped_student_runs_only_the_bidding_round(quick, tmp_path, capsys, monkeypatch):
    """`--from DIR` starts the bidding round from a shipped student: no teacher or mix rounds,
    the fine-tune's init is DIR, and what it started from is recorded in OUT before training."""
    out, _ = quick
    shipped = out / "shipped"
    assert ship.ship("doudizhu", str(tmp_path / "b"), None, quick=True, dry_run=True,
                     from_dir=str(shipped)) is None
    commands = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("$ ")]
    assert [c.split()[1] for c in commands] == ["generate", "generate", "train"] + ["eval"] * 6
    assert f"init={shipped}" in commands[2] and not (tmp_path / "b").exists()
    with pytest.raises(UserError, match="no student there"):
        ship.ship("doudizhu", str(tmp_path / "c"), None, quick=True, from_dir=str(tmp_path))
    no_round = dataclasses.replace(ship.recipe_for("doudizhu", quick=True), fine_values=())
    _patch_quick(monkeypatch, no_round)
    with pytest.raises(UserError, match="no fine-tuning round"):
        ship.ship("doudizhu", str(tmp_path / "d"), None, quick=True, from_dir=str(shipped))


def test_shengji_from_a_shipped_student_runs_the_every_rank_round(tmp_path, capsys):
    """Shengji `tractor`'s round is over trump ranks: the teacher's deals at `--trump-rank
    any`, then the fine-tune from DIR (issue 18's generalist)."""
    shipped = ship.ROOT / "data" / "models" / "shengji"
    assert ship.ship("shengji", str(tmp_path / "a"), None, quick=True, dry_run=True,
                     from_dir=str(shipped)) is None
    commands = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("$ ")]
    assert [c.split()[1] for c in commands] == ["generate", "train", "eval"]
    assert "--trump-rank any" in commands[0] and f"--out {tmp_path / 'a' / 'data-allranks' / 'any'}" in commands[0]
    assert f"init={ship._arg(shipped)}" in commands[1] and commands[1].endswith("--set lr=0.0005")
    assert f"--agent student:{tmp_path / 'a' / 'student-allranks'}" in commands[2]
    assert "--trump-rank" not in commands[2]


def test_classic_from_a_shipped_student_runs_the_stronger_teacher_round(tmp_path, capsys):
    """Shengji `classic`'s round is its stronger teacher's (`fine_teacher`: more worlds) deals
    at every trump rank, then the fine-tune from DIR, whose init replaces the recipe's own
    (the first classic student starts from the `tractor` one)."""
    shipped = ship.ROOT / "data" / "models" / "shengji-classic"
    for quick in (True, False):
        recipe = ship.recipe_for("shengji", {"rules": "classic"}, quick)
        assert recipe.fine_teacher and recipe.fine_teacher != recipe.teacher
        assert ship.ship("shengji", str(tmp_path / "a"), None, quick=quick, dry_run=True,
                         from_dir=str(shipped), options={"rules": "classic"}) is None
        commands = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("$ ")]
        assert [c.split()[1] for c in commands] == \
            ["generate"] * (1 + len(recipe.fine_phases)) + ["train"] + ["eval"] * (len(recipe.opponents) + 1)
        # The round's burials: the listed search buries, the start plays the rest (since git
        # 48c565b), and the fine-tune learns the listed form.
        burials = commands[1]
        kind, _, burial_teacher = recipe.fine_phases[0]
        assert kind == "bury" and f"--teacher {burial_teacher} " in burials
        assert "burial=listed" in burial_teacher
        assert f"--phases bury --rest student:{ship._arg(shipped)} " in burials
        assert f"--out {tmp_path / 'a' / 'data-w128' / 'bury'}" in burials
        assert "--trump-rank any" in burials
        assert f"--opponent student:{tmp_path / 'a' / 'student-w128'},bid=rule" in commands[-1]
        assert "--bidding" not in commands[-1] and "--rules classic" in commands[-1]
        assert f"--teacher {recipe.fine_teacher} " in commands[0]
        assert "--rules classic" in commands[0] and "--trump-rank any" in commands[0]
        assert f"--out {tmp_path / 'a' / 'data-w128' / 'any'}" in commands[0]
        train = commands[len(recipe.fine_phases) + 1]
        assert "burial=listed" in train
        inits = [item for item in train.split() if item.startswith("init=")]
        assert inits == [f"init={ship._arg(shipped)}"]
    assert "worlds=128" in recipe.fine_teacher and not (tmp_path / "a").exists()


def test_a_round_of_two_phases_generates_each_with_its_own_seed_and_folder(tmp_path, capsys,
                                                                           monkeypatch):
    """`fine_phases` of two kinds (the leads' round tried on top of the burials): one generate
    step a kind, seeds counted on from the round's deals in order, each into data-w128/KIND,
    and the fine-tune reads the round's folder holding them all."""
    shipped = ship.ROOT / "data" / "models" / "shengji-classic"
    base = ship.recipe_for("shengji", {"rules": "classic"}, False)
    teacher = base.fine_phases[0][2]
    two = dataclasses.replace(base, fine_phases=(("bury", 30, teacher), ("lead", 20, teacher)))
    monkeypatch.setattr(ship, "recipe_for", lambda *a, **k: two)
    assert ship.ship("shengji", str(tmp_path / "a"), None, dry_run=True, seed=70,
                     from_dir=str(shipped), options={"rules": "classic"}) is None
    commands = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("$ ")]
    assert [c.split()[1] for c in commands[:4]] == ["generate", "generate", "generate", "train"]
    for command, kind, deals, seed in ((commands[1], "bury", 30, 72), (commands[2], "lead", 20, 73)):
        assert f"--phases {kind} --rest student:{ship._arg(shipped)} " in command
        assert f"--deals {deals} " in command and command.endswith(f"--seed {seed}")
        assert f"--out {tmp_path / 'a' / 'data-w128' / kind} " in command
    assert f"--data {tmp_path / 'a' / 'data-w128'} " in commands[3]
    assert not (tmp_path / "a").exists()


def test_an_interrupted_training_is_resumed(quick, tmp_path):
    out, _ = quick
    final = out / "student"
    assert (final / "last").exists()                  # the epoch checkpoint --resume needs
    cmd, done = ship._train_command(out / "data", final, 1, 1, ())
    assert done and "--resume" not in cmd
    moved = tmp_path / "config.json"
    (final / "config.json").rename(moved)       # as if killed before the final write (config.json is last)
    try:
        cmd, done = ship._train_command(out / "data", final, 1, 1, ())
        assert not done and cmd[-1] == "--resume"
    finally:
        moved.rename(final / "config.json")


def test_unknown_game_and_ship_inside_out_are_refused(tmp_path):
    with pytest.raises(UserError, match="no shipping recipe"):
        ship.ship("chess", str(tmp_path / "a"), None)
    with pytest.raises(UserError, match="step directories"):
        ship.ship("doudizhu", str(tmp_path / "a"), str(tmp_path / "a" / "data" / "models"), quick=True)
    with pytest.raises(UserError, match="--epochs needs 3 positive counts"):
        ship.ship("doudizhu", str(tmp_path / "a"), None, quick=True, mix_deals=(4, 4), epochs=(1, 1))
    assert not (tmp_path / "a").exists()


def test_dry_run_prints_every_round_and_writes_nothing(tmp_path, capsys):
    assert ship.main(["--out", str(tmp_path / "a"), "--dry-run", "--mix-deals", "500,1000",
                      "--epochs", "6,12,6"]) == 0
    commands = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("$ ")]
    flows = ship.recipe_for("doudizhu").fine_values
    assert [c.split()[1] for c in commands] == ["generate", "train"] + ["generate", "train"] * 2 + \
        ["generate"] * len(flows) + ["train"] + ["eval"] * 6
    assert "--protocol douzero" in commands[-3] and "--opponent rlcard" in commands[-3]
    assert f"--mix student:{tmp_path / 'a' / 'student'}:0.5" in commands[4]
    assert "--deals 1000" in commands[4] and "--seed 3" in commands[4]
    # The bidding round's flows take the seeds after the rounds', and start from round 2.
    assert [f"--seed {4 + k}" in commands[6 + k] for k in range(len(flows))] == [True] * len(flows)
    assert f"init={tmp_path / 'a' / 'student-round-2'}" in commands[6 + len(flows)]
    assert f"--agent student:{tmp_path / 'a' / 'student-bids'}" in commands[-1]
    assert not (tmp_path / "a").exists()


def test_shengji_quick_pipeline_without_mix_rounds_ships_the_first_student(tmp_path):
    out = tmp_path / "run"
    proc = _run("--game", "shengji", "--out", str(out), "--quick", "--mix-deals", "none")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    results = json.loads((out / "shipped" / "results.json").read_text())
    assert results["game"] == "shengji" and results["rounds"] == []
    commands = [line[2:] for line in proc.stdout.splitlines() if line.startswith("$ ")]
    assert [c.split()[1] for c in commands] == ["generate", "train", "generate", "train", "eval"]
    assert "objective=points" in commands[0] and "--trump-rank" not in commands[0]
    assert "--trump-rank any" in commands[2] and f"init={out / 'student-1'}" in commands[3]
    assert f"--agent student:{out / 'student-allranks'}" in commands[-1]
    assert results["eval"]["dev"]["rule:expert"]["games"] == 2     # 1 deal, teams swapped
    assert results["allranks"]["option"] == "trump_rank" and results["allranks"]["values"] == [["any", 2]]
    assert results["allranks"]["datasets"]["any"]["counts"]["deals"] == 2


@pytest.mark.parametrize("game", ["doudizhu", "shengji"])
def test_shipped_student_scores_a_real_position(game):
    shipped = ROOT / "data" / "models" / game
    if not (shipped / "weights.safetensors").exists():
        pytest.skip(f"no shipped {game} student")
    results = json.loads((shipped / "results.json").read_text())
    assert results["game"] == game and not results["quick"]
    assert (shipped / "weights.safetensors").stat().st_size + (shipped / "config.json").stat().st_size < 2_000_000
    agent = make(f"student:{shipped}")
    state = new_deal(game, 7)
    legal = listed_legal(state, spec(game).legal_cap)
    obs = state.observation(state.current_seat)
    scores = agent.scores(obs, legal)
    assert scores.shape == (len(legal),) and np.all(np.isfinite(scores))
    assert np.ptp(scores) > 0                            # a trained net tells its moves apart
    assert 0 <= choose(scores) < len(legal)


def test_final_set_reaches_only_the_shipped_students_training(tmp_path, monkeypatch, capsys):
    """A recipe's final_set (the last round student's own training settings) is passed to the
    last mix round's training only; with no mix round, the first student is the last. A
    bidding round after it (the fine-tune) takes its own fine_set, not final_set."""
    recipe = dataclasses.replace(ship.recipe_for("doudizhu", quick=True), final_set=("lr=0.002",))
    _patch_quick(monkeypatch, recipe)
    assert ship.ship("doudizhu", str(tmp_path / "a"), None, quick=True, dry_run=True) is None
    trains = [line for line in capsys.readouterr().out.splitlines() if line.startswith("$ openlandlord train")]
    assert len(trains) == 3
    assert "lr=0.002" not in trains[0] and trains[1].endswith("--set lr=0.002")
    assert "lr=0.002" not in trains[2] and trains[2].endswith("--set lr=0.0005")
    assert ship.ship("doudizhu", str(tmp_path / "b"), None, quick=True, dry_run=True, mix_deals=(),
                     epochs=(1,)) is None
    trains = [line for line in capsys.readouterr().out.splitlines() if line.startswith("$ openlandlord train")]
    assert len(trains) == 2 and trains[0].endswith("--set lr=0.002") and "lr=0.002" not in trains[1]
    _patch_quick(monkeypatch, dataclasses.replace(recipe, fine_values=()))
    assert ship.ship("doudizhu", str(tmp_path / "c"), None, quick=True, dry_run=True) is None
    trains = [line for line in capsys.readouterr().out.splitlines() if line.startswith("$ openlandlord train")]
    assert len(trains) == 2 and trains[1].endswith("--set lr=0.002")


def test_round_set_reaches_every_round_student_but_not_the_first(tmp_path, monkeypatch, capsys):
    """A recipe's round_set (Shengji's lr=0.002) is passed to each mix round's training, and
    final_set only to the last one's."""
    recipe = dataclasses.replace(ship.recipe_for("doudizhu", quick=True), round_set=("lr=0.002",), final_set=("wd=0.1",))
    _patch_quick(monkeypatch, recipe)
    assert ship.ship("doudizhu", str(tmp_path / "a"), None, quick=True, dry_run=True,
                     mix_deals=(2, 2), epochs=(1, 1, 1)) is None
    trains = [line for line in capsys.readouterr().out.splitlines() if line.startswith("$ openlandlord train")]
    assert len(trains) == 4                        # the first, two rounds, the bidding round
    assert "lr=0.002" not in trains[0] and "wd=0.1" not in trains[0]
    assert trains[1].endswith("--set lr=0.002")
    assert trains[2].endswith("--set lr=0.002 --set wd=0.1")


def test_generations_loop_keeps_each_generation_only_while_it_beats_the_last(quick, tmp_path):
    """Iterated distillation (issue 19, lever 3) from the quick run's student: each
    generation's deals are half chosen by the last one, its student is fine-tuned from the
    last on the union (links to every dataset so far), and it plays the last on the dev
    deals; the loop ships the last generation that beat its predecessor."""
    out, _ = quick
    work = tmp_path / "g"
    results = ship.ship("doudizhu", str(work), str(tmp_path / "shipped"), quick=True,
                        from_dir=str(out / "shipped"), generations=2)
    loop = results["generations"]
    assert loop["max"] == 2 and 1 <= len(loop["generations"]) <= 2
    previous = str(work / "student-bids")
    for entry in loop["generations"]:
        k = entry["generation"]
        assert entry["from"] == previous and entry["mix"] == f"student:{previous}:0.5"
        assert entry["datasets"]["none"]["counts"]["deals"] == 2
        assert entry["vs_previous"]["opponent"] == f"student:{previous}"
        assert entry["beats_previous"] == (entry["vs_previous"]["mean_score_ci95"][0] > 0)
        union = sorted(p.name for p in (work / f"union-gen-{k}").iterdir())
        assert union == sorted(["bids-call-rob", "bids-points"] + [f"gen-{j}-none" for j in range(1, k + 1)])
        if entry["beats_previous"]:
            previous = entry["student"]
    assert loop["shipped"] == previous
    assert (work / "generations.png").is_file() and loop["plot"] == str(work / "generations.png")
    shipped = json.loads((tmp_path / "shipped" / "config.json").read_text())
    assert shipped == json.loads((Path(previous) / "config.json").read_text())
    assert all(f"student:{previous}" in c for c in results["commands"][-5:])
    with pytest.raises(UserError, match="no iterated-distillation loop"):
        ship.ship("shengji", str(tmp_path / "x"), None, quick=True, generations=1,
                  options={"rules": "classic"})


def test_dmc_stage_from_a_shipped_student_runs_alone_and_ships_its_student(quick, tmp_path):
    """`ship --from DIR --dmc N` (issue 19, lever 4): only `openlandlord dmc` from DIR, its
    student against DIR on the dev deals, then the usual evals; the DMC student ships."""
    out, _ = quick
    shipped, work = out / "shipped", tmp_path / "d"
    results = ship.ship("doudizhu", str(work), str(tmp_path / "shipped"), quick=True,
                        from_dir=str(shipped), dmc=200)
    kinds = [c.split()[1] for c in results["commands"]]
    assert kinds == ["dmc", "eval"] + ["eval"] * 6
    assert f"--init {shipped}" in results["commands"][0] and "--decisions 200" in results["commands"][0]
    record = results["dmc"]
    assert record["from"] == str(shipped) and record["student"] == str(work / "student-dmc")
    assert record["vs_start"]["opponent"] == f"student:{shipped}"
    config = json.loads((tmp_path / "shipped" / "config.json").read_text())
    assert config == json.loads((work / "student-dmc" / "config.json").read_text())
    assert config["training"] == "dmc" and config["decisions_learned"] >= 200
    assert "bids" not in results and results["seeds"]["dmc"] == 1
    # The recipe anchors the bids to the student it started from, through a copy in OUT
    # (the ship may replace the folder it started from).
    anchor = work / "dmc-anchor"
    assert f"--anchor {anchor} --anchor-flows bidding=call-rob,points" in results["commands"][0]
    assert (anchor / "weights.safetensors").read_bytes() == (shipped / "weights.safetensors").read_bytes()
    assert config["anchor_weights_sha256"] == json.loads((shipped / "config.json").read_text())["weights_sha256"]
    with pytest.raises(UserError, match="--dmc needs 0 or more"):
        ship.ship("doudizhu", str(tmp_path / "e"), None, quick=True, dry_run=True, dmc=-1)


def test_beats_reads_points_in_shengji_and_the_score_elsewhere():
    assert ship._beats({"mean_score_ci95": [0.1, 0.5]})
    assert not ship._beats({"mean_score_ci95": [-0.1, 0.5]})
    assert not ship._beats({"mean_score_ci95": [0.1, 0.5], "mean_points_ci95": [-2.0, 3.0]})


def test_classic_dmc_stage_learns_declarations_and_burial_with_the_play_kept(tmp_path):
    """Shengji `classic`'s DMC stage (issue 16): `dmc --learn-phases bury,declare` anchored to a
    copy of the start, its student against the start, and its own declarations and burial
    against its `,bid=rule` twin (the classic game flags, no --bidding)."""
    start, work = ship.ROOT / "data" / "models" / "shengji-classic", tmp_path / "d"
    results = ship.ship("shengji", str(work), str(tmp_path / "shipped"), quick=True,
                        from_dir=str(start), dmc=60, options={"rules": "classic"})
    commands = results["commands"]
    assert [c.split()[1] for c in commands] == ["dmc", "eval", "eval", "eval"]
    assert f"--anchor {work / 'dmc-anchor'} --learn-phases bury,declare" in commands[0]
    assert "--rules classic" in commands[0] and "--chunk 64" in commands[0]
    bids = commands[-1]
    assert f"--opponent student:{work / 'student-dmc'},bid=rule" in bids
    assert "--rules classic" in bids and "--bidding" not in bids
    assert set(results["eval"]["dev"]) == {"rule:expert", "bids"}
    config = json.loads((tmp_path / "shipped" / "config.json").read_text())
    assert config["dmc"]["learn_phases"] == ["bury", "declare"] and config["decisions_learned"] >= 60


def _fine_tunes(out, start, tmp_path, seeds):
    """Tiny fine-tunes of `start` on the quick run's teacher data, one per seed."""
    from openlandlord.cli import main
    parts = []
    for seed in seeds:
        part = tmp_path / f"ft-{seed}"
        args = ["train", "--data", str(out / "data" / "teacher"), "--out", str(part), "--epochs", "1",
                "--set", f"seed={seed}", "--set", f"init={start}", "--set", "lr=0.001"]
        for item in ship.recipe_for("doudizhu", quick=True).train_set:
            args += ["--set", item]
        assert main(args) == 0
        parts.append(part)
    return parts


def test_soup_stage_from_a_shipped_student_ships_the_soup_only_if_it_beats_it(quick, tmp_path, monkeypatch):
    """`ship --from DIR --soup A,B` (issue 19): only `openlandlord soup` of the fine-tunes and
    the soup against DIR on the dev deals run, then the usual evals; the soup ships if its CI
    lies above zero, else DIR's copy; fine-tunes of another student are refused."""
    out, _ = quick
    shipped, work = out / "shipped", tmp_path / "s"
    parts = _fine_tunes(out, shipped, tmp_path, (2, 3))
    results = ship.ship("doudizhu", str(work), str(tmp_path / "shipped"), quick=True,
                        from_dir=str(shipped), soup=[str(p) for p in parts])
    kinds = [c.split()[1] for c in results["commands"]]
    assert kinds == ["soup", "eval"] + (["eval"] * 6 if record_beats(work) else [])
    assert results["commands"][0].endswith(" ".join(str(p) for p in parts))
    # measured on the first part's dataset, as train measures a student
    assert f"--data {out / 'data' / 'teacher'}" in results["commands"][0]
    soup_config = json.loads((work / "student-soup" / "config.json").read_text())
    assert soup_config["dataset"] == str(out / "data" / "teacher") and "val_decisions" in soup_config["metrics"]
    record = results["soup"]
    assert [p["student"] for p in record["parts"]] == [str(p) for p in parts]
    assert record["vs_start"]["opponent"] == f"student:{work / 'soup-start'}"
    assert record["start_weights_sha256"] == json.loads((shipped / "config.json").read_text())["weights_sha256"]
    assert "bids" not in results
    if record["beats_start"]:
        config = json.loads((tmp_path / "shipped" / "config.json").read_text())
        assert config == json.loads((work / "student-soup" / "config.json").read_text())
    else:   # DIR stays as it is: no evals of it again, nothing copied
        assert not (tmp_path / "shipped").exists() and results["eval"] == {} and not results["shipped"]
    # The same run, its head-to-head now read as a gain: every step is done already, the soup ships.
    monkeypatch.setattr(ship, "_beats", lambda figures: True)
    again = ship.ship("doudizhu", str(work), str(tmp_path / "shipped"), quick=True,
                      from_dir=str(shipped), soup=[str(p) for p in parts])
    # (soup and head-to-head done already; only the soup's own evals, if the start was kept first)
    ran = set(again["timings_s"]) - set(results["timings_s"])
    assert len(ran) == (0 if record["beats_start"] else 6)
    assert all(name.startswith("eval-student-soup-") for name in ran)
    assert again["soup"]["shipped"] == "the soup"
    config = json.loads((tmp_path / "shipped" / "config.json").read_text())
    assert config == json.loads((work / "student-soup" / "config.json").read_text())
    assert len(config["soup"]) == 2
    with pytest.raises(UserError, match="not from"):
        ship.ship("doudizhu", str(tmp_path / "t"), str(tmp_path / "shipped-t"), quick=True,
                  from_dir=str(out / "student-1"), soup=[str(p) for p in parts])
    with pytest.raises(UserError, match="two or more"):
        ship.ship("doudizhu", str(tmp_path / "u"), None, quick=True, dry_run=True,
                  from_dir=str(shipped), soup=[str(parts[0])])
    with pytest.raises(UserError, match="choose one stage"):
        ship.ship("doudizhu", str(tmp_path / "u"), None, quick=True, dry_run=True,
                  from_dir=str(shipped), soup=[str(p) for p in parts], dmc=10)


def record_beats(work) -> bool:
    """Whether the soup of the ship run in `work` beat its start (tiny students: either)."""
    return json.loads((work / "results.json").read_text())["soup"]["beats_start"]


def test_soup_parts_fine_tunes_n_parts_in_the_fine_round_and_ships_their_soup_only_if_it_beats_the_start(
        quick, tmp_path, monkeypatch, capsys):
    """`ship --from DIR --soup-parts 2`: the fine-tuning round trains two students from DIR on
    its deals (seeds SEED and SEED + 1), their soup (measured on that data) plays DIR's copy on
    the soup's dev deals and ships only if it beats it, else DIR's copy ships: one command
    makes a soup that `--soup` needed hand-made parts for."""
    out, _ = quick
    shipped, work = out / "shipped", tmp_path / "p"
    results = ship.ship("doudizhu", str(work), str(tmp_path / "shipped"), quick=True, seed=7,
                        from_dir=str(shipped), soup_parts=2)
    commands = results["commands"]
    assert [c.split()[1] for c in commands] == ["generate", "generate", "train", "train", "soup",
                                                "eval"] + (["eval"] * 6 if record_beats(work) else [])
    first, second = work / "student-bids", work / "student-bids-2"
    assert f"--out {first} " in commands[2] and "seed=7" in commands[2]
    assert f"--out {second} " in commands[3] and "seed=8" in commands[3]
    assert all(f"init={shipped}" in c for c in commands[2:4])
    assert commands[4] == (f"openlandlord soup --out {work / 'student-soup'} --data {work / 'data-bids'} "
                           f"{first} {second}")
    assert results["seeds"]["soup_parts"] == [7, 8]
    assert results["bids"]["parts"] == [str(first), str(second)]
    record = results["soup"]
    assert record["parts_made_here"] and [p["student"] for p in record["parts"]] == [str(first), str(second)]
    assert record["vs_start"]["opponent"] == f"student:{work / 'soup-start'}"
    assert record["start_weights_sha256"] == json.loads((shipped / "config.json").read_text())["weights_sha256"]
    assert results["final_val_metrics"]["val_decisions"] > 0
    if record["beats_start"]:
        config = json.loads((tmp_path / "shipped" / "config.json").read_text())
        assert config == json.loads((work / "student-soup" / "config.json").read_text())
    else:   # the --from student stays as it is: no evals of it again, nothing copied
        assert not (tmp_path / "shipped").exists() and results["eval"] == {} and not results["shipped"]
        assert "[ship] the soup did not beat" in capsys.readouterr().out
    # Read as a gain, the rerun ships the soup with every training step skipped.
    monkeypatch.setattr(ship, "_beats", lambda figures: True)
    again = ship.ship("doudizhu", str(work), str(tmp_path / "shipped"), quick=True, seed=7,
                      from_dir=str(shipped), soup_parts=2)
    assert not {"train-bids", "train-bids-2", "soup"} & (set(again["timings_s"]) - set(results["timings_s"]))
    assert again["soup"]["shipped"] == "the soup"
    config = json.loads((tmp_path / "shipped" / "config.json").read_text())
    assert config == json.loads((work / "student-soup" / "config.json").read_text())


def test_soup_parts_in_the_dmc_stage_are_dmc_runs_of_successive_seeds(quick, tmp_path, monkeypatch, capsys):
    """`ship --from DIR --dmc N --soup-parts 2`: two DMC runs from DIR (seeds SEED, SEED + 1,
    one anchor), no head-to-head of the first alone, then the soup (no dataset: DMC parts
    train on none) against DIR's copy. A soup that does not beat DIR leaves DIR as it is:
    no evals of it again and nothing copied to SHIP, where the copy would replace DIR's own
    results.json with this run's."""
    out, _ = quick
    shipped, work = out / "shipped", tmp_path / "m"
    monkeypatch.setattr(ship, "_beats", lambda figures: False)
    results = ship.ship("doudizhu", str(work), str(tmp_path / "ship"), quick=True, seed=3,
                        from_dir=str(shipped), dmc=120, soup_parts=2, dry_run=False)
    commands = results["commands"]
    assert [c.split()[1] for c in commands] == ["dmc", "dmc", "soup", "eval"]
    assert results["eval"] == {} and results["shipped"] is False and not (tmp_path / "ship").exists()
    assert results["soup"]["shipped"] == "nothing: the start stays as it is"
    assert (work / "results.json").is_file() and "nothing shipped" in capsys.readouterr().out
    assert f"--out {work / 'student-dmc'} " in commands[0] and "--seed 3 " in commands[0]
    assert f"--out {work / 'student-dmc-2'} " in commands[1] and "--seed 4 " in commands[1]
    assert all(f"--anchor {work / 'dmc-anchor'} " in c for c in commands[:2])
    assert "--data" not in commands[2] and results["soup"]["parts_made_here"]
    assert results["dmc"]["parts"] == [str(work / "student-dmc"), str(work / "student-dmc-2")]
    assert "vs_start" not in results["dmc"] and "vs_start" in results["soup"]


def test_soup_parts_refuses_what_it_cannot_make(quick, tmp_path, monkeypatch):
    out, _ = quick
    shipped = str(out / "shipped")
    with pytest.raises(UserError, match="2 or more parts"):
        ship.ship("doudizhu", str(tmp_path / "a"), None, quick=True, dry_run=True, soup_parts=1)
    with pytest.raises(UserError, match="choose one"):
        ship.ship("doudizhu", str(tmp_path / "a"), None, quick=True, dry_run=True, from_dir=shipped,
                  soup=[shipped, shipped], soup_parts=2)
    with pytest.raises(UserError, match="--generations"):
        ship.ship("doudizhu", str(tmp_path / "a"), None, quick=True, dry_run=True, generations=1,
                  soup_parts=2)
    _patch_quick(monkeypatch, dataclasses.replace(ship.recipe_for("doudizhu", quick=True), fine_values=()))
    with pytest.raises(UserError, match="no fine-tuning round or DMC stage"):
        ship.ship("doudizhu", str(tmp_path / "a"), None, quick=True, dry_run=True, soup_parts=2)
    # the CLI: a clear one-line error and exit status 2
    proc = _run("--game", "doudizhu", "--out", str(tmp_path / "b"), "--quick", "--dry-run",
                "--soup-parts", "1")
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [
        "error: --soup-parts needs 2 or more parts, got 1"]


@pytest.mark.parametrize("game,options", [("doudizhu", {}), ("shengji", {}),
                                          ("shengji", {"rules": "classic", "trump_rank": "any"})])
def test_every_recipe_dev_deal_set_is_a_dev_set_of_its_game_and_rules(game, options):
    """A recipe chooses on dev deals only: every committed deal set its dev, generation, soup,
    DMC and bids stages name is a `dev` set of the recipe's game with the recipe's rules (the
    classic recipe's soup stage once fell back to the coarse dev-260; now the bids dev set)."""
    from openlandlord.eval import dealsets
    recipe = ship.recipe_for(game, options)
    flags = [tuple(recipe.dev), recipe.generation_dev, recipe.soup_dev, recipe.dmc_dev,
             *(f for _, f in recipe.bid_dev)]
    named = [f[i + 1] for f in flags for i, a in enumerate(f) if a == "--deal-set"]
    assert named
    rules = dict(recipe.options).get("rules", "tractor") if game == "shengji" else None
    for name in named:
        _, set_game, purpose, _, set_options = dealsets.COMMITTED[name]
        assert (set_game, purpose) == (game, "dev"), name
        if rules:
            assert set_options.get("rules", "tractor") == rules, name
    if options.get("rules") == "classic":
        assert recipe.soup_dev == ("--deal-set", "shengji-classic-bids-dev-1500")

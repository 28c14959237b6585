"""Reading datasets back: the round trip against a replay of every deal, the teacher fields,
split disjointness, featurized batches, and damage (a flipped byte, a truncated or missing
shard, another format version) as one clear error, also through the command line."""
import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from openlandlord.distill import dataset, generate as gen, shards
from openlandlord import agents, provenance
from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.games import new_deal, spec
CLI_ARGS = ["generate", "--teacher", "random", "--deals", "30", "--seed", "4", "--workers", "1"]


@pytest.fixture(scope="module", autouse=True)
def fixed_git_sha():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(provenance, "git_sha", lambda: "test-sha")
        yield


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    out = tmp_path_factory.mktemp("mixed")
    gen.generate(out, "doudizhu", "random", 40, seed=3, mix="random:0.5", workers=1,
                 deals_per_shard=8, progress=False)
    return dataset.open(out)


@pytest.fixture(scope="module")
def cli_dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "d"
    assert main(CLI_ARGS + ["--out", str(out)]) == 0
    return out


def by_deal(records):
    deals = {}
    for r in records:
        deals.setdefault(r.deal_id, []).append(r)
    return deals


def replay(game, recs):
    """Play the deal again from its seed with the recorded moves, checking every record
    against the referee's own state at that moment (a Shengji follow too large to list is
    replayed card by card through its factored steps)."""
    state = new_deal(game, recs[0].deal_seed, **spec(game).deal_options())
    pending, step = list(recs), 0
    while not state.done:
        if spec(game).legal_cap is not None and state.count_legal() > spec(game).legal_cap:
            state.play(replay_factored(state, pending, step))
            step += 1
            continue
        legal = state.legal_moves()
        if len(legal) < 2:
            state.play(legal[0])
            step += 1
            continue
        r = pending.pop(0)
        assert r.step == step and r.seat == state.current_seat and r.factored == -1
        check_record(r, state, legal)
        state.play(legal[r.played])
        step += 1
    assert not pending
    assert recs[0].payoffs == [float(p) for p in state.payoffs()]
    assert recs[0].result == json.loads(json.dumps(state.result()))
    assert all(r.score == r.payoffs[r.seat] for r in recs)


def check_record(r, state, legal):
    assert r.obs == state.observation(r.seat)
    assert r.legal == list(legal)
    assert r.hands == json.loads(json.dumps(state.hands()))


def replay_factored(state, pending, step):
    """The recorded card-by-card build of one play: each step's candidates are the prefix
    one card longer, as the referee offers them; steps with one option are not recorded."""
    from openlandlord.games.shengji import END

    prefix: tuple = ()
    while options := state.factored_options(prefix):
        candidates = [prefix if card == END else prefix + (card,) for card in options]
        pick = 0
        if len(candidates) >= 2:
            r = pending.pop(0)
            assert r.step == step and r.seat == state.current_seat and r.factored == len(prefix)
            check_record(r, state, candidates)
            pick = r.played
        if options[pick] == END:
            break
        prefix = candidates[pick]
    return prefix


def test_round_trip_replays_every_deal(mixed):
    deals = by_deal(mixed.records())
    assert sorted(deals) == list(range(40))
    for deal_id, recs in deals.items():
        assert recs[0].deal_seed == gen.deal_seed(3, deal_id)
        replay("doudizhu", recs)
        assert all(r.hands[r.seat] == r.obs.hand and r.role == r.obs.role for r in recs)


def test_shengji_plays_are_card_tuples(tmp_path):
    gen.generate(tmp_path, "shengji", "random", 2, seed=1, workers=1, progress=False)
    deals = by_deal(dataset.open(tmp_path).records())
    assert sorted(deals) == [0, 1]
    for recs in deals.values():
        assert all(isinstance(m, tuple) for r in recs for m in r.legal)
        replay("shengji", recs)


def test_shengji_factored_steps_round_trip(tmp_path):
    # Deal 0 of seed 0 has a void seat answering a tractor with more than 256 legal plays.
    gen.generate(tmp_path, "shengji", "rule:expert", 1, seed=0, workers=1, progress=False)
    recs = list(dataset.open(tmp_path).records())
    steps = [r for r in recs if r.factored >= 0]
    assert len(steps) >= 2 and [r.factored for r in steps] == list(range(len(steps)))
    assert len({r.step for r in steps}) == 1
    assert all(r.temperature == pytest.approx(spec("shengji").teacher_temperature) for r in recs)
    for r in steps:
        assert all(len(m) == r.factored + 1 and m[:-1] == r.legal[0][:-1] for m in r.legal)
        assert r.teacher_scores[r.teacher_choice] == r.teacher_scores.max()
    for before, after in zip(steps, steps[1:]):
        assert after.legal[0][:-1] == before.legal[before.played]
    replay("shengji", recs)


def test_teacher_fields(mixed):
    recs = list(mixed.records())
    for r in recs:
        assert len(r.legal) >= 2 and len(r.teacher_scores) == len(r.teacher_policy) == len(r.legal)
        assert r.teacher_scores[r.teacher_choice] == r.teacher_scores.max()
        assert r.temperature == pytest.approx(spec("doudizhu").teacher_temperature)
        expected = agents.softmax(r.teacher_scores, r.temperature)
        np.testing.assert_allclose(r.teacher_policy, expected, atol=1e-6)
        if r.chooser == "teacher":
            assert r.played == r.teacher_choice
    mix_share = np.mean([r.chooser == "mix" for r in recs])
    assert 0.4 < mix_share < 0.6
    assert any(r.played != r.teacher_choice for r in recs if r.chooser == "mix")
    assert mixed.manifest["counts"]["mix_moves"] == sum(r.chooser == "mix" for r in recs)
    assert mixed.manifest["mix"] == {"spec": "random", "fraction": 0.5}


def test_splits_are_disjoint_by_deal(mixed):
    seen = {}
    for r in mixed.records():
        assert r.split == gen.split_of(r.deal_seed)
        assert seen.setdefault(r.deal_id, r.split) == r.split
    by_split = {s: {d for d, split in seen.items() if split == s} for s in dataset.SPLITS}
    assert not (by_split["train"] & by_split["val"]) and not (by_split["train"] & by_split["test"])
    assert not (by_split["val"] & by_split["test"])
    for s in dataset.SPLITS:
        assert len(by_split[s]) == mixed.manifest["splits"]["deals"][s]
        assert mixed.count(s) == mixed.manifest["splits"]["decisions"][s]
        assert {r.deal_id for r in mixed.records(s)} == by_split[s]
    with pytest.raises(UserError, match="unknown split"):
        mixed.count("training")


def test_batches_are_featurized_with_targets(mixed):
    import openlandlord.games.doudizhu.features as features
    batches = list(mixed.batches("train", 64, seed=1))
    assert sum(len(b["role"]) for b in batches) == mixed.count("train")
    b = batches[0]
    assert b["state_tokens"].shape[2] == features.FS and b["actions"].shape[2] == features.FA
    assert b["policy"].shape == b["action_mask"].shape
    np.testing.assert_allclose(b["policy"].sum(axis=1), 1.0, atol=1e-5)
    assert np.all(b["policy"][b["action_mask"] == 0] == 0)
    assert b["belief"].shape == (64, features.NUM_RANKS, 2)
    assert np.all(np.abs(b["value"]) <= 1) and b["teacher_choice"].dtype == np.int32
    again = next(mixed.batches("train", 64, seed=1))
    assert all(np.array_equal(b[k], again[k]) for k in b)
    assert not np.array_equal(next(mixed.batches("train", 64, seed=2))["score"], b["score"])


def test_shards_load_in_mlx_without_torch(mixed):
    mx = pytest.importorskip("mlx.core")
    loaded = mx.load(str(mixed.directory / mixed.manifest["shards"][0]["file"]))
    assert int(loaded["rec_legal_offsets"][-1].item()) == loaded["move_teacher_score"].shape[0]


def damage_flip(d):
    path = d / gen.shard_name(0)
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    path.write_bytes(bytes(blob))


def damage_truncate(d):
    path = d / gen.shard_name(1)
    path.write_bytes(path.read_bytes()[:-100])


def damage_delete(d):
    (d / gen.shard_name(1)).unlink()


def damage_version(d):
    manifest = json.loads((d / gen.MANIFEST).read_text())
    manifest["format_version"] = shards.FORMAT_VERSION + 1
    (d / gen.MANIFEST).write_text(json.dumps(manifest))


def damage_manifest(d):
    (d / gen.MANIFEST).write_text('{"format": "openlandlord-decisions", "shards": [')


@pytest.mark.parametrize("damage, message", [
    (damage_flip, "shard-00000.safetensors is corrupt: its SHA-256 does not match the manifest"),
    (damage_truncate, "shard-00001.safetensors is truncated or altered"),
    (damage_delete, "shard-00001.safetensors is missing"),
    (damage_version, f"format version {shards.FORMAT_VERSION + 1}, this openlandlord reads version"),
    (damage_manifest, "manifest.json is unreadable"),
])
def test_damage_is_one_clear_error(cli_dataset, tmp_path, capsys, damage, message):
    d = tmp_path / "d"
    shutil.copytree(cli_dataset, d)
    dataset.open(d)
    damage(d)
    with pytest.raises(UserError, match=message.replace("(", r"\(")):
        dataset.open(d)
    assert main(CLI_ARGS + ["--out", str(d)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_a_damaged_shard_of_an_unfinished_run_is_not_trusted(cli_dataset, tmp_path):
    d = tmp_path / "d"
    shutil.copytree(cli_dataset, d)
    (d / gen.MANIFEST).unlink()
    damage_flip(d)
    with pytest.raises(UserError, match="does not match its own checksum; delete it and rerun"):
        gen.generate(d, "doudizhu", "random", 30, seed=4, workers=1, progress=False)


def test_an_unfinished_run_is_not_a_dataset(cli_dataset, tmp_path):
    d = tmp_path / "d"
    shutil.copytree(cli_dataset, d)
    (d / gen.MANIFEST).unlink()
    with pytest.raises(UserError, match="has no manifest.json.*rerun the same generate command"):
        dataset.open(d)
    with pytest.raises(UserError, match="does not exist"):
        dataset.open(tmp_path / "nowhere")


def test_an_inconsistent_shard_is_caught_even_with_good_checksums(cli_dataset, tmp_path):
    d = tmp_path / "d"
    shutil.copytree(cli_dataset, d)
    path = d / gen.shard_name(0)
    tensors, info = shards.read_shard(path)
    tensors["rec_played"] = tensors["rec_played"] + 1000
    blob = shards.shard_bytes(tensors, info)
    path.write_bytes(blob)
    manifest = json.loads((d / gen.MANIFEST).read_text())
    manifest["shards"][0].update(bytes=len(blob), sha256=shards.sha256(blob))
    (d / gen.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(UserError, match="inconsistent .*rec_played points outside the legal list"):
        dataset.open(d)


def test_shard_files_are_plain_safetensors(cli_dataset):
    from safetensors.numpy import load_file

    path = Path(cli_dataset) / gen.shard_name(1)
    theirs = load_file(str(path))
    ours, info = shards.read_shard(path)
    assert sorted(theirs) == sorted(ours)
    assert all(np.array_equal(theirs[k], ours[k]) for k in ours)
    assert info["deals"] == [25, 30] and info["git_sha"] == "test-sha"


def test_a_directory_of_datasets_opens_as_their_union(mixed, cli_dataset, tmp_path):
    both = tmp_path / "both"
    shutil.copytree(mixed.directory, both / "mix")
    shutil.copytree(cli_dataset, both / "teacher")
    union = dataset.open(both)
    assert union.game == "doudizhu" and sorted(union.manifest["parts"]) == ["mix", "teacher"]
    assert len(union) == len(mixed) + len(dataset.open(cli_dataset))
    assert union.count("train") == mixed.count("train") + dataset.open(cli_dataset).count("train")
    single = dataset.open(cli_dataset)
    assert single.manifest_sha256 == hashlib.sha256((cli_dataset / gen.MANIFEST).read_bytes()).hexdigest()
    assert union.manifest_sha256 != single.manifest_sha256 == dataset.open(both / "teacher").manifest_sha256
    (both / "teacher" / gen.MANIFEST).unlink()
    with pytest.raises(UserError, match="teacher has no manifest.json"):
        dataset.open(both)


def test_any_flipped_header_byte_or_data_byte_is_caught(tmp_path):
    gen.generate(tmp_path / "d", "doudizhu", "random", 1, seed=8, workers=1, progress=False)
    blob = (tmp_path / "d" / gen.shard_name(0)).read_bytes()
    shards.verify(blob, "s")
    header_end = 8 + int.from_bytes(blob[:8], "little")
    for pos in list(range(header_end)) + list(range(header_end, len(blob), 97)):
        damaged = bytearray(blob)
        damaged[pos] ^= 0x01
        with pytest.raises(shards.ShardError):
            shards.verify(bytes(damaged), "s")


def test_a_dataset_knows_the_game_options_of_its_deals(tmp_path):
    # Every artefact records the game options that made it: the manifest, and from it the
    # dataset (a union lists each distinct set) and the checkpoints trained on it.
    gen.generate(tmp_path / "u" / "none", "doudizhu", "random", 1, seed=1, workers=1, progress=False)
    gen.generate(tmp_path / "u" / "points", "doudizhu", "random", 1, seed=2, workers=1,
                 progress=False, options={"bidding": "points"})
    assert dataset.open(tmp_path / "u" / "points").game_options == [{"bidding": "points"}]
    assert dataset.open(tmp_path / "u").game_options == [{"bidding": "none"}, {"bidding": "points"}]

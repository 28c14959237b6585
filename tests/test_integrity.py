"""Integrity of what the kit reads back (issue 20): checkpoints whose weights or config.json
were damaged, dataset manifests that do not describe their shards, and evaluation deal-set
files that could score on training deals or count a deal twice. Each is one UserError
naming the file and what is wrong, never a traceback or a silent wrong answer."""
import json
import os
import shutil

import pytest

from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.export.latency import default_checkpoint
from openlandlord.model import checkpoint as ckpt
from openlandlord.model import load_checkpoint, save_checkpoint

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def small_checkpoint(tmp_path_factory):
    return default_checkpoint("doudizhu", str(tmp_path_factory.mktemp("ckpt")))


def copy_of(checkpoint, tmp_path, name="copy"):
    path = tmp_path / name
    shutil.copytree(checkpoint, path)
    return path


def edit_config(path, edit):
    meta = json.loads((path / ckpt.CONFIG).read_text())
    meta = edit(meta)
    (path / ckpt.CONFIG).write_text(json.dumps(meta))


# -- checkpoints: the weights ----------------------------------------------------------

def test_flipped_weight_bit_is_refused_regression(small_checkpoint, tmp_path):
    path = copy_of(small_checkpoint, tmp_path)
    blob = bytearray((path / ckpt.WEIGHTS).read_bytes())
    blob[-5] ^= 0x01                        # inside a tensor: the file still parses
    (path / ckpt.WEIGHTS).write_bytes(bytes(blob))
    with pytest.raises(UserError, match=r"weights\.safetensors.*weights_sha256.*restore") as err:
        load_checkpoint(str(path))
    assert str(path / ckpt.CONFIG) in str(err.value)
    from openlandlord.export.torch_mirror import load_torch_student
    with pytest.raises(UserError, match="weights_sha256"):
        load_torch_student(str(path))


def test_save_checkpoint_records_weights_sha256(small_checkpoint):
    meta = json.loads(open(os.path.join(small_checkpoint, ckpt.CONFIG)).read())
    assert meta["weights_sha256"] == ckpt.file_sha256(os.path.join(small_checkpoint, ckpt.WEIGHTS))
    assert sorted(os.listdir(small_checkpoint)) == [ckpt.CONFIG, ckpt.WEIGHTS]    # no temporaries


def test_checkpoint_saved_before_weights_sha256_still_loads(small_checkpoint, tmp_path):
    path = copy_of(small_checkpoint, tmp_path)
    edit_config(path, lambda m: {k: v for k, v in m.items() if k != "weights_sha256"})
    load_checkpoint(str(path))


@pytest.mark.parametrize("game", ["doudizhu", "shengji"])
def test_shipped_checkpoints_record_their_weights_sha256_regression(game):
    directory = os.path.join(REPO, "data", "models", game)
    meta = ckpt.read_meta(directory)
    assert meta["weights_sha256"] == ckpt.file_sha256(os.path.join(directory, ckpt.WEIGHTS))


def test_interrupted_save_never_leaves_a_loadable_mixed_pair_regression(small_checkpoint, tmp_path, monkeypatch):
    model, config, _ = load_checkpoint(small_checkpoint)
    path = str(tmp_path / "ckpt")
    save_checkpoint(path, model, config)
    first = ckpt.file_sha256(os.path.join(path, ckpt.WEIGHTS))

    # Killed while writing the weights: the finished pair is untouched.
    def dies(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(type(model), "save_weights", dies)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(path, model, config, {"epoch": 2})
    monkeypatch.undo()
    assert "epoch" not in load_checkpoint(path)[2]
    for name in os.listdir(path):
        if ".tmp-" in name:
            os.remove(os.path.join(path, name))

    # Killed between the two renames: new weights beside the old config.json are refused.
    from mlx.utils import tree_map
    model.update(tree_map(lambda p: p + 1, model.parameters()))
    real = os.replace

    def replace(src, dst):
        if dst.endswith(ckpt.CONFIG):
            raise KeyboardInterrupt
        real(src, dst)
    monkeypatch.setattr(ckpt.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint(path, model, config, {"epoch": 3})
    monkeypatch.undo()
    assert ckpt.file_sha256(os.path.join(path, ckpt.WEIGHTS)) != first
    with pytest.raises(UserError, match="weights_sha256"):
        load_checkpoint(path)


# -- checkpoints: config.json ----------------------------------------------------------

@pytest.mark.parametrize("edit, field", [
    (lambda m: [m], "JSON list"),
    (lambda m: {k: v for k, v in m.items() if k != "config"}, "config"),
    (lambda m: {**m, "config": {k: v for k, v in m["config"].items() if k != "state_feat_dim"}}, "state_feat_dim"),
    (lambda m: {**m, "config": {**m["config"], "d_model": "abc"}}, "d_model"),
    (lambda m: {**m, "config": {**m["config"], "role_names": 5}}, "role_names"),
    (lambda m: {**m, "config": {**m["config"], "use_adapters": "yes"}}, "use_adapters"),
    (lambda m: {**m, "config": 7}, "config"),
    (lambda m: {**m, "weights_sha256": 12}, "weights_sha256"),
])
def test_malformed_checkpoint_config_is_one_error_regression(small_checkpoint, tmp_path, edit, field):
    path = copy_of(small_checkpoint, tmp_path)
    edit_config(path, edit)
    with pytest.raises(UserError, match=field) as err:
        load_checkpoint(str(path))
    assert str(path / ckpt.CONFIG) in str(err.value)


def test_malformed_checkpoint_config_is_exit_2_in_play_regression(small_checkpoint, tmp_path, capsys):
    path = copy_of(small_checkpoint, tmp_path)
    edit_config(path, lambda m: {**m, "config": {**m["config"], "d_model": "abc"}})
    status = main(["play", "--game", "doudizhu", "--seats", f"student:{path},random,random", "--seed", "1"])
    err = capsys.readouterr().err
    assert status == 2 and "d_model" in err and "Traceback" not in err


# -- dataset manifests -----------------------------------------------------------------

from openlandlord.distill import dataset, generate as gen, shards  # noqa: E402


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two tiny runs of one game that differ only in their seed, two shards each."""
    root = tmp_path_factory.mktemp("runs")
    for seed in (1, 2):
        gen.generate(root / f"seed{seed}", "doudizhu", "random", 4, seed=seed, workers=1,
                     progress=False, deals_per_shard=2)
    return root


def edited_dataset(two_runs, tmp_path, edit):
    d = tmp_path / "d"
    shutil.copytree(two_runs / "seed1", d)
    manifest = json.loads((d / gen.MANIFEST).read_text())
    edit(d, manifest)
    (d / gen.MANIFEST).write_text(json.dumps(manifest))
    return d


def drop_last(d, m):
    m["shards"].pop()


def drop_first(d, m):
    m["shards"].pop(0)


def duplicate(d, m):
    m["shards"].append(dict(m["shards"][0]))


def swap(d, m):
    m["shards"].reverse()


def edit_counts(d, m):
    m["counts"]["decisions"] += 1


def edit_split_counts(d, m):
    m["splits"]["decisions"]["train"] += 1


def edit_entry_counts(d, m):
    m["shards"][1]["counts"]["decisions"] += 1


def edit_deals(d, m):
    m["deals"] = 6


def edit_entry_deals(d, m):
    m["shards"][0]["deals"], m["shards"][1]["deals"] = [0, 1], [1, 4]


def edit_run(d, m):
    m["temperature"] = 1.0


@pytest.mark.parametrize("edit, message", [
    (drop_last, "lists 1 shard(s), but its run of 4 deals at 2 per shard has 2"),
    (drop_first, "shard entries must be indices 0..0 in order, once each; found [1] (index 0 missing)"),
    (duplicate, "lists shard index 0 more than once"),
    (swap, "shard entries must be indices 0..1 in order, once each; found [1, 0]"),
    (edit_counts, "counts {'deals': 4, 'decisions': 155"),
    (edit_split_counts, "splits.decisions"),
    (edit_entry_counts, "the entry of shard-00001.safetensors does not say what the shard holds"),
    (edit_deals, "lists 2 shard(s), but its run of 6 deals at 2 per shard has 3"),
    (edit_entry_deals, "shard 0 lists deals [0, 1], but its run puts deals [0, 2]"),
    (edit_run, "shard-00000.safetensors belongs to another run than"),
])
def test_manifest_that_misdescribes_its_shards_is_refused_regression(two_runs, tmp_path, edit, message):
    d = edited_dataset(two_runs, tmp_path, edit)
    with pytest.raises(UserError) as err:
        dataset.open(d)
    assert message in str(err.value) and str(d / gen.MANIFEST) in str(err.value)


def test_shard_of_another_run_is_refused_even_with_its_hash_in_the_manifest_regression(two_runs, tmp_path):
    def transplant(d, m):
        blob = (two_runs / "seed2" / gen.shard_name(1)).read_bytes()
        (d / gen.shard_name(1)).write_bytes(blob)
        m["shards"][1].update(bytes=len(blob), sha256=shards.sha256(blob))
    d = edited_dataset(two_runs, tmp_path, transplant)
    with pytest.raises(UserError, match=r"shard-00001.safetensors belongs to another run than .*seed=2 \(manifest: 1\)"):
        dataset.open(d)


def test_each_part_of_a_union_is_checked_regression(two_runs, tmp_path):
    union = tmp_path / "union"
    shutil.copytree(two_runs, union)
    assert len(dataset.open(union)) > 0
    path = union / "seed2" / gen.MANIFEST
    manifest = json.loads(path.read_text())
    manifest["shards"].pop()
    path.write_text(json.dumps(manifest))
    with pytest.raises(UserError, match=f"{path} lists 1 shard"):
        dataset.open(union)


def test_intact_dataset_still_opens(two_runs):
    ds = dataset.open(two_runs / "seed1")
    assert len(ds) == ds.manifest["counts"]["decisions"]


# -- evaluation deal sets --------------------------------------------------------------

from openlandlord.eval import dealsets  # noqa: E402


def deal_set_file(tmp_path, **changes):
    raw = {**dealsets.build_committed("doudizhu-dev-300"), "name": "edited", **changes}
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(raw))
    return str(path)


FIRST = dealsets.EVAL_SEEDS.start


@pytest.mark.parametrize("changes, message", [
    ({"seeds": [FIRST, 12345]}, "seed 12345 lies outside the reserved evaluation range"),
    ({"seeds": [FIRST, dealsets.EVAL_SEEDS.stop]}, "outside the reserved evaluation range"),
    ({"seeds": [FIRST, FIRST + 1, FIRST]}, f"seed {FIRST} appears more than once"),
    ({"seeds": [FIRST, float(FIRST + 1)]}, "is not a non-negative integer"),
    ({"seeds": [FIRST, True]}, "seed True is not a non-negative integer"),
    ({"seeds": [FIRST, -3]}, "seed -3 is not a non-negative integer"),
    ({"seeds": []}, "holds no deals"),
    ({"seeds": "2000000000"}, "holds no deals"),
    ({"options": {"bidding": "auction"}}, "'auction' is not a doudizhu bidding"),
    ({"options": {"bidding": "none", "colour": "red"}}, "doudizhu has no option 'colour'"),
    ({"options": {"bidding": "none", "mode": "match"}}, "doudizhu has no option 'mode'"),
    ({"game": "shengji", "options": {"rules": "tractor", "dealer": 2}}, "shengji has no option 'dealer'"),
    ({"game": "chess"}, "chess"),
    ({"options": ["bidding"]}, "options must be an object"),
])
def test_unsafe_deal_set_file_is_refused_regression(tmp_path, changes, message):
    path = deal_set_file(tmp_path, **changes)
    with pytest.raises(UserError) as err:
        dealsets.load(path)
    text = str(err.value)
    assert message in text and path in text and "\n" not in text


def test_deal_set_file_that_is_a_list_is_refused_regression(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[2000000000]")
    with pytest.raises(UserError, match="holds a JSON list"):
        dealsets.load(str(path))


@pytest.mark.parametrize("name", sorted(dealsets.COMMITTED))
def test_committed_deal_sets_still_load_unchanged(name):
    raw = dealsets.build_committed(name)
    deal_set = dealsets.load(name)
    assert (deal_set.seeds, deal_set.options, deal_set.purpose) == (tuple(raw["seeds"]), raw["options"], raw["purpose"])

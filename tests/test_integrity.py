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

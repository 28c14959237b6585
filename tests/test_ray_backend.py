"""`--backend ray` for generate and eval (league shares eval's play_pairs), against a local Ray
head that the test session starts on 127.0.0.1 (the `ray_head` fixture, tests/conftest.py):
the same dataset bytes and the same evaluation figures as local processes for the same seeds."""
import json

from openlandlord.distill import generate as gen
from openlandlord.eval import arena, dealsets


def test_generate_on_ray_writes_the_same_bytes_as_local_processes(ray_head, tmp_path):
    local, remote = tmp_path / "local", tmp_path / "ray"
    gen.generate(local, "shengji", "rule:expert", 4, seed=2, workers=2, deals_per_shard=1,
                 progress=False)
    gen.generate(remote, "shengji", "rule:expert", 4, seed=2, workers=2, deals_per_shard=1,
                 progress=False, backend="ray", address=ray_head)
    assert sorted(p.name for p in local.iterdir()) == sorted(p.name for p in remote.iterdir())
    for path in local.iterdir():
        assert path.read_bytes() == (remote / path.name).read_bytes(), path.name


def test_eval_on_ray_gives_the_same_figures_as_local_processes(ray_head):
    deal_set = dealsets.adhoc("doudizhu", 12, 4)
    figures = []
    for backend, address in (("local", None), ("ray", ray_head)):
        result, records = arena.evaluate("doudizhu", "rule", "random", deal_set, seed=4, workers=2,
                                         progress=False, backend=backend, address=address)
        figures.append((json.dumps(records, sort_keys=True),
                        {k: result[k] for k in ("win_rate", "win_rate_ci95", "mean_score",
                                                "mean_score_ci95", "per_role", "games")}))
    assert figures[0] == figures[1]

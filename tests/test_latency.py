"""`openlandlord bench latency`: percentiles, the JSON it writes, and that every backend it
times computes the torch mirror's numbers."""
import json

import numpy as np
import pytest

from openlandlord.export import latency
from openlandlord.cli import main
from openlandlord.errors import UserError
def test_percentiles_of_a_known_sample():
    # 1..100 ms, shuffled: numpy's linear interpolation puts p95 at 95 + 0.05 * (96 - 95).
    times_ns = np.random.default_rng(0).permutation(np.arange(1, 101)) * 1_000_000
    got = latency.percentiles(times_ns)
    assert got == pytest.approx({"p50_ms": 50.5, "p95_ms": 95.05, "p99_ms": 99.01, "mean_ms": 50.5})
    assert latency.percentiles([2_500_000])["p99_ms"] == pytest.approx(2.5)
    with pytest.raises(ValueError):
        latency.percentiles([])


@pytest.mark.parametrize("bad", [dict(seconds=0.0), dict(backends=("tensorflow",))])
def test_bad_settings_are_user_errors(bad):
    with pytest.raises(UserError):
        latency.measure("doudizhu", **bad)


def test_checkpoint_of_another_game_or_missing_is_a_user_error(tmp_path):
    shengji = latency.default_checkpoint("shengji", str(tmp_path / "shengji"))
    with pytest.raises(UserError, match="is a shengji student, not doudizhu"):
        latency.measure("doudizhu", checkpoint=shengji, backends=("torch",))
    with pytest.raises(UserError, match="does not exist"):
        latency.measure("doudizhu", checkpoint=str(tmp_path / "nothing"), backends=("torch",))


def test_decision_states_are_real_choices():
    states = latency.decision_states("doudizhu", deals=2)
    assert states and all(len(s.legal_moves()) >= 2 and not s.done for s in states)
    assert {s.phase for s in states} == {"bidding", "play"}


def test_shengji_states_skip_follows_too_large_to_list(monkeypatch):
    # Deal 16 reaches a follow with more legal plays than the referee lists: it is built card
    # by card through the decision loop, and never collected as a position.
    seen = []
    loop = latency.decisions

    def watched(state, cap):
        answer = None
        gen = loop(state, cap)
        try:
            decision = next(gen)
            while True:
                seen.append(decision)
                answer = yield decision
                decision = gen.send(answer)
        except StopIteration as stop:
            return stop.value
    monkeypatch.setattr(latency, "decisions", watched)
    states = latency.decision_states("shengji", deals=1, seed=16)
    assert states and all(len(s.legal_moves()) >= 2 for s in states)
    assert any(d.legal is None for d in seen)
    assert len(states) == sum(d.legal is not None and d.prefix is None for d in seen)


@pytest.fixture(scope="module")
def bench_json(tmp_path_factory, monkeypatch_module):
    # The command with its real code path, on a small run: two deals, four backends, and
    # 8 action slots so that some positions are scored in chunks.
    monkeypatch_module.setattr(latency, "DEALS", 2)
    monkeypatch_module.setattr(latency, "SLOTS", 8)
    monkeypatch_module.setattr(latency, "BACKENDS", ("torch", "onnx", "onnx_dynamic", "coreml_all"))
    monkeypatch_module.setattr(latency, "BATCH_SIZES", (4,))
    path = tmp_path_factory.mktemp("latency") / "latency.json"
    assert main(["bench", "latency", "--seconds", "0.05", "--json", str(path)]) == 0
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def test_bench_writes_the_documented_keys(bench_json):
    result = bench_json
    for key in ("game", "git_sha", "machine", "model", "states", "backends", "skipped", "throughput",
                "fastest", "target_p50_ms"):
        assert key in result, key
    assert result["model"]["random_init"] and result["model"]["num_parameters"] > 100_000
    assert result["states"]["decisions"] > 0 and result["states"]["legal_max"] >= result["states"]["legal_mean"] >= 2
    assert result["model"]["slots"] == 8 and result["states"]["chunked"] > 0
    assert set(result["backends"]) == {"torch", "onnx", "onnx_dynamic"}
    for name, entry in result["backends"].items():
        for part in (entry, entry["forward"]):
            assert 0 < part["p50_ms"] <= part["p95_ms"] <= part["p99_ms"], name
        assert entry["forward"]["p50_ms"] <= entry["p50_ms"]
        assert entry["decisions"] >= 20
        assert set(entry["stages_ms"]) == set(latency.STAGES)
        assert entry["max_abs_diff_vs_torch"] < 1e-4, name
    assert result["fastest"] in result["backends"]
    assert set(result["throughput"]) == {"torch"} and result["throughput"]["torch"]["4"] > 0


def test_table_says_what_was_measured(bench_json):
    table = latency.format_table(bench_json)
    assert "randomly initialised" in table and "latency does not depend on the weights" in table
    for name in bench_json["backends"]:
        assert name in table
    assert f"fastest: {bench_json['fastest']}" in table


def test_core_ml_is_skipped_with_its_reason_off_macos(bench_json):
    import sys
    if sys.platform == "darwin":
        pytest.skip("Core ML predicts here")
    assert "macOS" in bench_json["skipped"]["coreml_all"]


@pytest.mark.parametrize("switches", [dict(belief_mode="off"), dict(use_deep_sets=False, use_adapters=False)],
                         ids=["belief_off", "no_deep_sets_no_adapters"])
def test_bench_latency_without_belief_head_regression(tmp_path, monkeypatch, switches):
    # ONNX drops inputs the graph never reads (no belief head: unseen, capacity, void);
    # feeding them anyway was an "Invalid input name" crash. Every backend that runs here
    # must time an ablated student and agree with the torch mirror.
    from openlandlord.model import LandlordFormerLite, ModelConfig, save_checkpoint

    import mlx.core as mx

    cfg = ModelConfig.for_features("doudizhu", d_model=16, ff=32, heads=2, layers=1, **switches)
    mx.random.seed(0)
    save_checkpoint(str(tmp_path), LandlordFormerLite(cfg), cfg)
    backends = ("mlx", "mlx_compiled", "torch", "torch_traced", "onnx", "onnx_dynamic")
    monkeypatch.setattr(latency, "BACKENDS", backends)  # bench_json's module-wide patch may be active
    result = latency.measure("doudizhu", checkpoint=str(tmp_path), seconds=0.01, backends=backends,
                             deals=1, slots=8, batch_sizes=(2,))
    assert set(result["backends"]) == set(backends)
    assert all(entry["max_abs_diff_vs_torch"] < 1e-4 for entry in result["backends"].values())

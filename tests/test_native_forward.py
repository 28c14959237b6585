"""The native forward pass (openlandlord.model.native) against the MLX student it mirrors:
the same logits, value and belief on real positions of both games (bidding, long legal lists
that the fixed-shape exports score in chunks, Shengji plays built card by card), on every
architecture switch, one position or many in one call, the GIL released, and the
`student:` agent on it by default with `backend=mlx` keeping MLX.

Tolerance: value and belief to 1e-5 absolute; logits to 1e-5 absolute plus 1e-6 of their
size. The shipped students' logits reach about 90, where one float32 step is 7.6e-6: MLX
itself differs from a float64 evaluation of the same weights by up to 3.4e-5 there (measured
with the torch mirror in float64), so no float32 pass can promise 1e-5 absolute against it."""
import threading

import mlx.core as mx
import numpy as np
import pytest

from openlandlord import features
from openlandlord.agents import decisions, drive, make, parse_spec
from openlandlord.errors import UserError
from openlandlord.games import spec as game_spec
from openlandlord.model import LandlordFormerLite, ModelConfig, load_checkpoint, native, save_checkpoint
from openlandlord.model.synthetic import decision, random_batch

SHIPPED = {"doudizhu": "data/models/doudizhu", "shengji": "data/models/shengji"}


def positions(game: str, deals: int, cap: int | None = None, seed: int = 0) -> list:
    """(obs, legal) of every decision of `deals` deals played with the first legal move,
    card-by-card build steps included (a listing `cap` below the game's makes more of them)."""
    spec = game_spec(game)
    found = []

    def choose(d):
        if d.legal is None:
            return None                     # build it card by card: the steps are decisions
        found.append((d.obs, d.legal, d.prefix is not None))
        return len(d.legal) // 2

    for deal in range(deals):
        state = spec.new_game(seed + deal, **spec.check_options(spec.bench_options))
        drive(decisions(state, spec.legal_cap if cap is None else cap), choose)
    return found


def mlx_outputs(model, sample: dict) -> dict:
    """The MLX student on one position alone (batch of one, no padding)."""
    batch = features.collate([sample])
    batch.pop("belief_mask")
    out = model({k: mx.array(v) for k, v in batch.items()})
    return {k: np.array(v)[0] for k, v in out.items()}


def assert_matches(got: dict, want: dict, where: str = ""):
    assert set(got) == set(want), where
    np.testing.assert_allclose(got["logits"], want["logits"], rtol=1e-6, atol=1e-5, err_msg=where)
    for key in set(want) - {"logits"}:
        np.testing.assert_allclose(got[key], want[key], rtol=0, atol=1e-5, err_msg=f"{where} {key}")
    assert np.argmax(got["logits"]) == np.argmax(want["logits"]), where


@pytest.fixture(scope="module", params=sorted(SHIPPED))
def shipped(request):
    game = request.param
    model = load_checkpoint(SHIPPED[game])[0]
    cap = 4 if game == "shengji" else None      # Shengji: many plays built card by card
    samples = [features.featurize(obs, legal) for obs, legal, _ in positions(game, 2, cap)]
    return game, model, native.NativeStudent(SHIPPED[game]), samples, positions(game, 2, cap)


def test_the_extension_is_built():
    assert native.available(), "build it: python setup.py build_ext --inplace"


def test_shipped_students_match_mlx_on_real_positions(shipped):
    game, model, student, samples, found = shipped
    assert len(samples) > 50
    if game == "shengji":
        assert sum(step for _, _, step in found) > 10          # card-by-card build steps
    other = native.NativeStudent(SHIPPED[game], vector_width=24 - student.model.vector_width)
    for i, sample in enumerate(samples):
        want = mlx_outputs(model, sample)
        assert_matches(student.forward(sample), want, f"{game} position {i}")
        if i % 4 == 0:
            assert_matches(other.forward(sample), want, f"{game} position {i}, the other width")


def test_long_legal_lists_in_one_pass_equal_the_chunked_export(shipped):
    # A fixed-shape export scores a long legal list in chunks of its slots; the native pass
    # scores it whole. Both must give the unchunked model's logits.
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from export.coreml import function_signatures
    from export.latency import mlx_call
    from openlandlord.model.chunked import score_in_chunks

    game, model, student, samples, _ = shipped
    slots = 8
    long_ones = [s for s in samples if s["actions"].shape[0] > slots][:6]
    assert long_ones
    config = student.config
    call = mlx_call(SHIPPED[game], function_signatures(config, slots, config.max_state_tokens), compiled=False)
    for sample in long_ones:
        chunked = score_in_chunks(call, sample, slots, config.max_state_tokens)
        np.testing.assert_allclose(student.forward(sample)["logits"], chunked["logits"], rtol=1e-6, atol=1e-5)


def test_batched_equals_single_bit_for_bit(shipped):
    _, _, student, samples, _ = shipped
    single = [student.forward(s) for s in samples]
    for order in (list(range(len(samples))), list(range(len(samples)))[::-1]):
        together = student.forward_batch([samples[i] for i in order])
        for i, out in zip(order, together):
            for key in out:
                np.testing.assert_array_equal(out[key], single[i][key])
    assert student.forward_batch([]) == []


@pytest.mark.parametrize("switches", [
    dict(),
    dict(belief_mode="off"),
    dict(belief_mode="full"),
    dict(use_deep_sets=False, use_adapters=False),
    dict(d_model=24, heads=3, ff=40, layers=3, adapter_rank=3),   # widths off the vector size
    dict(d_model=16, heads=4, ff=16, layers=1),                   # head size 4: the scalar path
], ids=["default", "belief_off", "belief_full", "plain", "odd_widths", "small_heads"])
@pytest.mark.parametrize("game", sorted(SHIPPED))
def test_every_architecture_switch_matches_mlx(game, switches, tmp_path):
    mx.random.seed(3)
    cfg = ModelConfig.for_features(game, **switches)
    model = LandlordFormerLite(cfg)
    # Random weights everywhere (the role adapters' up-projections start at zero).
    model.update({"state_adapter": {"up": mx.random.normal(model.state_adapter.up.shape) * 0.3},
                  "action_adapter": {"up": mx.random.normal(model.action_adapter.up.shape) * 0.3}}
                 if cfg.use_adapters else {})
    save_checkpoint(str(tmp_path), model, cfg)
    model = load_checkpoint(str(tmp_path))[0]
    rng = np.random.default_rng(0)
    batch = random_batch(cfg, 12, cfg.max_state_tokens, 80, rng)
    samples = [decision(batch, row) for row in range(12)]
    want = [mlx_outputs(model, sample) for sample in samples]
    for width in (8, 16):       # both kernel widths run on any x86-64 CPU (16 slowly without AVX-512)
        outs = native.NativeStudent(str(tmp_path), vector_width=width).forward_batch(samples)
        for row in range(12):
            assert_matches(outs[row], want[row], f"width {width} row {row}")


def test_softmax_rows_padded_past_one_vector_regression(tmp_path):
    # Attention rows are padded to 16 lanes; with 8-float vectors a row of 17 keys leaves
    # 15 padding lanes in two vectors, and only the last one was masked: wrong logits on
    # the AVX2 path, right ones on the AVX-512 path.
    mx.random.seed(5)
    cfg = ModelConfig.for_features("doudizhu", d_model=16, heads=1, ff=16, layers=1)
    save_checkpoint(str(tmp_path), LandlordFormerLite(cfg), cfg)
    model = load_checkpoint(str(tmp_path))[0]
    batch = random_batch(cfg, 3, 17, 20, np.random.default_rng(1), padded=False)
    for width in (8, 16):
        student = native.NativeStudent(str(tmp_path), vector_width=width)
        for row in range(3):
            sample = decision(batch, row)
            assert_matches(student.forward(sample), mlx_outputs(model, sample), f"width {width}")


def test_the_gil_is_released_and_threads_agree(shipped):
    import sys

    _, _, student, samples, _ = shipped
    many = samples * max(1, 3000 // len(samples))
    expected = student.forward_batch(many)
    # With a long switch interval the batch thread keeps the GIL unless the C loop lets it
    # go: the main thread then counts only while the batch runs without the GIL. The inputs
    # are built first: numpy's copies drop and retake the GIL per array, and against a
    # spinning main thread each retake waits out the whole interval (regression: this test
    # hung for over ten minutes in np.concatenate of the batch's 3,000 arrays).
    started, done, counted = threading.Event(), threading.Event(), []
    results = {}
    inputs = student.ragged_inputs(many)

    def run(name):
        started.set()
        results[name] = student.forward_batch(many)
        done.set()

    def run_c():
        started.set()
        results["a"] = student.model.forward_ragged(*inputs)[0]
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        worker = threading.Thread(target=run_c)
        worker.start()
        started.wait()
        count = 0
        while not done.is_set():
            count += 1
        counted.append(count)
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert counted[0] > 100, "the main thread never ran while forward_batch did: the GIL was held"
    threads = [threading.Thread(target=run, args=(name,)) for name in ("b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(results["a"], np.concatenate([w["logits"] for w in expected]))
    for name in ("b", "c"):
        for got, want in zip(results[name], expected):
            np.testing.assert_array_equal(got["logits"], want["logits"])


def test_bad_inputs_are_errors_not_reads_past_a_buffer(shipped):
    _, _, student, samples, _ = shipped
    sample = samples[0]
    for bad in (dict(role=student.config.num_roles), dict(role=-1),
                dict(actions=sample["actions"][:0]), dict(state_tokens=sample["state_tokens"][:, :-1]),
                dict(unseen=sample["unseen"][:-1]), dict(void=sample["void"][:, :-1])):
        with pytest.raises(ValueError):
            student.forward({**sample, **bad})
        with pytest.raises(ValueError):
            student.forward_batch([sample, {**sample, **bad}])


def test_damaged_weights_are_refused(tmp_path):
    import shutil

    shutil.copytree(SHIPPED["doudizhu"], tmp_path / "ckpt")
    weights = tmp_path / "ckpt" / "weights.safetensors"
    data = bytearray(weights.read_bytes())
    data[-5] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(UserError, match="SHA-256"):
        native.NativeStudent(str(tmp_path / "ckpt"))


# --- the agent and its spec ---------------------------------------------------------------------

def test_student_agent_is_native_by_default_and_mlx_on_request(shipped):
    game, _, _, _, found = shipped
    agent = make(f"student:{SHIPPED[game]}")
    fallback = make(f"student:{SHIPPED[game]},backend=mlx")
    assert agent.backend == "native" and fallback.backend == "mlx"
    assert make(f"student:{SHIPPED[game]},backend=native").backend == "native"
    items = [(obs, legal) for obs, legal, _ in found[:40]]
    for (obs, legal), ours, theirs in zip(items, agent.scores_batch(items), fallback.scores_batch(items)):
        assert ours.shape == (len(legal),) and ours.dtype == np.float64
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-5)
        assert np.argmax(ours) == np.argmax(theirs)
    np.testing.assert_array_equal(agent.scores(*items[0]), agent.scores_batch(items[:3])[0])


def test_student_backend_option_errors(monkeypatch):
    with pytest.raises(UserError, match="backend='tpu'"):
        make(f"student:{SHIPPED['doudizhu']},backend=tpu")
    with pytest.raises(UserError, match="unknown option"):
        make(f"student:{SHIPPED['doudizhu']},speed=fast")
    monkeypatch.setattr(native, "_native", None)
    with pytest.raises(UserError, match="not built here") as err:
        make(f"student:{SHIPPED['doudizhu']},backend=native")
    assert "\n" not in str(err.value)
    assert make(f"student:{SHIPPED['doudizhu']}").backend == "mlx"     # the fallback


@pytest.mark.parametrize("text,arg,options", [
    ("student:data/models/doudizhu,backend=mlx", "data/models/doudizhu", {"backend": "mlx"}),
    ("onnx:m.onnx,chunk=16", "m.onnx", {"chunk": "16"}),
    ("coreml:a.mlpackage, units=all", "a.mlpackage", {"units": "all"}),
    ("student:runs/a", "runs/a", {}),
    ("student:runs/a,b", "runs/a,b", {}),                 # no `=` at all: one positional value
    ("pimc:worlds=4,rollout=student:DIR", None, {"worlds": "4", "rollout": "student:DIR"}),
    ("student:path=runs/a", None, {"path": "runs/a"}),
])
def test_parse_spec_positional_then_options(text, arg, options):
    parsed = parse_spec(text)
    assert (parsed.arg, parsed.options) == (arg, options)


@pytest.mark.parametrize("text", ["student:,backend=mlx", "student:a,backend", "student:a,=mlx",
                                  "rule:expert,x=1", "random:x,seed=1", "pimc:32,worlds=4"])
def test_bad_positional_then_options_specs(text):
    with pytest.raises(UserError):
        make(text, 0)


# --- the latency bench --------------------------------------------------------------------------

def test_bench_latency_reports_native_beside_onnx_dynamic():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from export import latency

    result = latency.measure("doudizhu", checkpoint=SHIPPED["doudizhu"], seconds=0.05,
                             backends=("native", "onnx_dynamic"), deals=1, batch_sizes=(4,))
    entry = result["backends"]["native"]
    assert 0 < entry["p50_ms"] <= entry["p95_ms"] <= entry["p99_ms"]
    assert entry["forward"]["p50_ms"] <= entry["p50_ms"]
    assert entry["max_abs_diff"] < 1e-4 and entry["max_abs_diff_vs_torch"] < 1e-4
    # against the same weights in float64: float32's own resolution, a few units in 1e-7
    assert entry["vs_float64"]["max_rel_diff"] < 2e-6 and entry["vs_float64"]["max_abs_diff"] < 1e-4
    assert result["throughput"]["native"]["4"] > 0
    assert result["native_speedup_vs_onnx_dynamic"] > 0
    table = latency.format_table(result)
    assert "native" in table and "batched native" in table and "faster than onnx_dynamic" in table
    # The roofline: the products' count is the model's (about 6 MFLOP a Dou Dizhu decision),
    # and nothing measured runs faster than the products alone allow (with a margin: the
    # kernel and the forward pass are timed at different moments on a shared machine).
    roof = result["roofline"]
    assert 3 < roof["mflop_p50"] < 12 and roof["kernel_gflops"] > 1
    assert roof["forward_floor_ms"] < 1.5 * entry["forward"]["p50_ms"]
    assert roof["forward_gflops"] < 1.5 * roof["kernel_gflops"]
    assert result["throughput"]["native"]["4"] < 1.5 * roof["batched_ceiling_per_s"]
    assert "native roofline" in table


def test_gemm_rate_measures_the_product_kernel():
    from openlandlord.model import _native

    for width in (8, 16):
        assert _native.gemm_rate(8, 64, 64, seconds=0.01, vector_width=width) > 0
    for bad in ((0, 64, 64), (8, -1, 64), (8, 64, 0)):
        with pytest.raises(ValueError):
            _native.gemm_rate(*bad, seconds=0.01)
    with pytest.raises(ValueError):
        _native.gemm_rate(8, 64, 64, seconds=0.01, vector_width=4)

"""`openlandlord bench latency [--game G] [--checkpoint DIR] [--json FILE] [--seconds S]`:
how long the student takes to decide one move, on every backend this machine can run.

Positions are real decisions (every decision with two or more legal moves) of seeded
deals played by the rule bot. A decision is timed from the referee's state to the chosen
move: legal moves, observation, featurize, forward, choose. "Forward" is one of those
stages, scoring the featurized decision; the fixed-shape backends do it as the Core ML
package does (batch 1, `SLOTS` action slots, the featurizer's maximum state length,
longer legal lists in chunks through `openlandlord.model.chunked.score_in_chunks`).
torch and onnxruntime run on one thread (MLX's CPU backend runs as it is built). Each
backend first decides the first 100 positions and a few chunked ones as a warm-up, then
decides positions in turn until the time budget is spent; times are wall-clock.

Backends: `native` (openlandlord.model.native: the student's forward pass in C, each
position on its own, unpadded, any legal count in one pass; the default engine of the
`student:` agent), `mlx` and `mlx_compiled` (the MLX student, eager and `mx.compile`d), `torch`
and `torch_traced` (the torch mirror, eager and traced + frozen), `onnx` (the torch
mirror exported to ONNX at the same fixed shapes, run by onnxruntime), `onnx_dynamic`
(the file `openlandlord export --out FILE.onnx` writes, export/onnx.py: one graph with
the state length and legal count as dynamic axes, so no padding, no chunks), and on macOS the exported Core ML package (fp16) under `coreml_cpu_only`,
`coreml_cpu_and_gpu`, `coreml_all`. Every backend's logits are checked against the torch
mirror's on a spread of the positions, the chunked ones included, and `native`'s also
against the MLX student's on each of those positions unpadded (`max_abs_diff`). Batched
throughput (decisions/s of the forward pass alone, batches of positions with similar legal
counts) is measured for `native` (`forward_batch`: one call, ragged, no padding) and for the
eager models that take a batch axis (`mlx`, `torch`, padded batches).

JSON: `backends: {NAME: {p50_ms, p95_ms, p99_ms, mean_ms, decisions, forward: {p50_ms,
p95_ms, p99_ms, mean_ms}, stages_ms: {stage: median}, max_abs_diff_vs_torch}}` (`native`
also `max_abs_diff`, against MLX), where the top-level percentiles are the full decision
and `forward` the forward stage alone; `vs_float64: {max_abs_diff, max_rel_diff}` of the native logits against the same weights in
float64, the torch mirror, relative to max(1, |logit|)); `native_speedup_vs_onnx_dynamic` (the ratio of their
decision p50s, where both ran); `roofline` (where `native` ran: `mflop_p50` of matrix
products a decision, `kernel_gflops` of the native product kernel at `kernel_shape`,
`forward_gflops` the native forward reaches, `forward_floor_ms` and `batched_ceiling_per_s`
the products alone allow on this CPU; see `roofline`);
`skipped: {NAME: reason}`, `throughput: {NAME: {BATCH: decisions_per_s}}`, `states`
(how many, legal-count mean and max, how many need chunks), `model`, `machine`,
`fastest`, `target_p50_ms`, `git_sha`. Without --checkpoint the student is a randomly
initialised default-config model: latency does not depend on the weights.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import sys
import tempfile
import time

import numpy as np

from openlandlord import features
from openlandlord.agents import choose as choose_index, decisions, drive, make
from openlandlord.errors import NotAvailable, UserError
from openlandlord.games import game_options, spec as game_spec
from openlandlord.model.chunked import score_in_chunks
from openlandlord.provenance import git_sha

SLOTS = 64
DEFAULT_SECONDS = 2.0
DEALS = 24
BATCH_SIZES = (16, 64, 256)
TARGET_P50_MS = 0.5
STAGES = ("legal_moves", "observation", "featurize", "forward", "choose")
COREML_UNITS = {"coreml_cpu_only": "CPU_ONLY", "coreml_cpu_and_gpu": "CPU_AND_GPU", "coreml_all": "ALL"}
BACKENDS = ("native", "mlx", "mlx_compiled", "torch", "torch_traced", "onnx", "onnx_dynamic") + tuple(COREML_UNITS)


def percentiles(times_ns) -> dict:
    """{p50_ms, p95_ms, p99_ms, mean_ms} of durations in nanoseconds (linear interpolation
    between order statistics, numpy's default)."""
    ms = np.asarray(times_ns, dtype=np.float64) / 1e6
    if ms.size == 0:
        raise ValueError("no timings to summarise")
    p50, p95, p99 = np.percentile(ms, [50, 95, 99])
    return {"p50_ms": float(p50), "p95_ms": float(p95), "p99_ms": float(p99), "mean_ms": float(ms.mean())}


# --- positions -------------------------------------------------------------------------------

def decision_states(game: str, deals: int = DEALS, seed: int = 0, options: dict | None = None) -> list:
    """Every state with 2+ legal moves of the deals seeded seed .. seed + deals - 1, played
    by the rule bot through the decision loop, with the game `options` (default: the spec's
    `bench_options`, in Dou Dizhu call-rob bidding, so bidding decisions are among them). A
    play too large to list is not one decision (it is built card by card): it is played
    with the first card offered at each step, untimed."""
    spec = game_spec(game)
    bot = make("rule", seed)
    options = spec.check_options(spec.bench_options if options is None else options)
    states = []

    def choose(decision):
        if decision.legal is None:
            return None                       # build it card by card ...
        if decision.prefix is not None:
            return 0                          # ... with the first card offered
        states.append(state.clone())
        return choose_index(bot.scores(decision.obs, decision.legal))

    for deal in range(deals):
        state = spec.new_game(seed + deal, **options)
        drive(decisions(state, spec.legal_cap), choose)
    if not states:
        raise UserError(f"no {game} decisions with two or more legal moves in {deals} deals")
    return states


# --- the student -------------------------------------------------------------------------------

def default_checkpoint(game: str, directory: str) -> str:
    """Save a randomly initialised default-config student for `game` into `directory`."""
    import mlx.core as mx

    from openlandlord.model import LandlordFormerLite, ModelConfig, save_checkpoint

    config = ModelConfig.for_features(game)
    mx.random.seed(0)
    return save_checkpoint(directory, LandlordFormerLite(config), config)


def _mlx_functions(model):
    """The four export functions over the MLX student, taking mx arrays positionally."""
    def main(state_tokens, state_mask, role, unseen, capacity, void, actions, action_mask):
        out = model({"state_tokens": state_tokens, "state_mask": state_mask, "role": role,
                     "unseen": unseen, "capacity": capacity, "void": void,
                     "actions": actions, "action_mask": action_mask})
        return (out["logits"], out["value"]) + ((out["belief_expect"],) if "belief_expect" in out else ())

    def encode(state_tokens, state_mask, role, unseen, capacity, void):
        memory, memory_mask, belief, value = model.encode_state(state_tokens, state_mask, role, unseen, capacity, void)
        return (memory, memory_mask, value) + ((belief["belief_expect"],) if belief else ())

    def embed_pool(memory, memory_mask, actions, action_mask, role):
        embeddings = model.embed_actions(memory, memory_mask, actions, role)
        return (embeddings,) + tuple(model.pool(embeddings, action_mask))

    def score(embeddings, pool_sum, pool_count, pool_max, role, action_mask):
        return (model.score(embeddings, (pool_sum, pool_count, pool_max), role, action_mask),)

    return {"main": main, "encode": encode, "embed_pool": embed_pool, "score": score}


def mlx_call(checkpoint: str, signatures: dict, compiled: bool):
    import mlx.core as mx

    from openlandlord.model import load_checkpoint

    model = load_checkpoint(checkpoint)[0]
    functions = _mlx_functions(model)
    if compiled:
        functions = {name: mx.compile(f) for name, f in functions.items()}

    def call(function, inputs):
        _, spec, outputs = signatures[function]
        result = functions[function](*(mx.array(inputs[n]) for n, _, _ in spec))
        mx.eval(result)
        return {n: np.array(r) for n, r in zip(outputs, result)}
    return call


def _torch_modules(mirror, signatures: dict, traced: bool) -> dict:
    import torch

    from .coreml import example_inputs

    modules = {}
    for name, (wrapper, spec, _) in signatures.items():
        module = wrapper(mirror).eval()
        if traced:
            with torch.no_grad():
                module = torch.jit.freeze(torch.jit.trace(module, example_inputs(spec, mirror.config)))
        modules[name] = module
    return modules


def torch_call(checkpoint: str, signatures: dict, traced: bool):
    import torch

    from .torch_mirror import load_torch_student

    modules = _torch_modules(load_torch_student(checkpoint), signatures, traced)

    def call(function, inputs):
        _, spec, outputs = signatures[function]
        with torch.inference_mode():
            result = modules[function](*(torch.from_numpy(inputs[n]) for n, _, _ in spec))
        result = result if isinstance(result, tuple) else (result,)
        return {n: r.numpy() for n, r in zip(outputs, result)}
    return call


def onnx_call(checkpoint: str, signatures: dict, directory: str):
    """`call` over the fixed-shape functions exported to ONNX, run by onnxruntime."""
    from openlandlord.agents.onnx_agent import run_session, session

    from .onnx import export_functions

    sessions = {name: session(path) for name, path in export_functions(checkpoint, signatures, directory).items()}
    return lambda function, inputs: run_session(sessions[function], inputs)


def onnx_dynamic_forward(checkpoint: str, directory: str):
    """`forward(sample) -> logits` through the file `openlandlord export --out FILE.onnx`
    writes: the state length and the legal count are dynamic axes, so no padding and no
    chunks, whatever the legal count."""
    from openlandlord.agents.onnx_agent import no_others, read_meta, session

    from .onnx import export

    path = export(checkpoint, os.path.join(directory, "dynamic.onnx"))
    sess = session(path)
    empty = no_others(1, read_meta(path, sess)["config"]["d_model"])
    wanted = {i.name for i in sess.get_inputs()}

    def forward(sample):
        tokens, legal = sample["state_tokens"].shape[0], sample["actions"].shape[0]
        inputs = {
            "state_tokens": sample["state_tokens"][None], "state_mask": np.ones((1, tokens), np.float32),
            "role": np.array([sample["role"]], np.int32), "unseen": sample["unseen"][None],
            "capacity": sample["capacity"][None], "void": sample["void"][None],
            "actions": sample["actions"][None], "action_mask": np.ones((1, legal), np.float32), **empty}
        return sess.run(["logits"], {n: inputs[n] for n in wanted})[0][0]
    return forward


def native_forward(checkpoint: str):
    """`forward(sample) -> logits` of the native forward pass (NotAvailable where the
    extension is not built)."""
    from openlandlord.model import native

    if not native.available():
        raise NotAvailable("the native forward pass is not built here (python setup.py build_ext --inplace)")
    student = native.NativeStudent(checkpoint)
    return lambda sample: student.forward(sample)["logits"]


def mlx_unpadded(checkpoint: str):
    """`forward(sample) -> logits` of the MLX student on the position alone (batch of one,
    no padding): what the native forward pass must match."""
    import mlx.core as mx

    from openlandlord.model import load_checkpoint

    model = load_checkpoint(checkpoint)[0]

    def forward(sample):
        batch = features.collate([sample])
        batch.pop("belief_mask")
        return np.array(model({k: mx.array(v) for k, v in batch.items()})["logits"])[0]
    return forward


def coreml_call(package: str, units: str):
    from openlandlord.agents.coreml_agent import CoreMLAgent

    return CoreMLAgent(package, compute_units=units).call


# --- measuring -----------------------------------------------------------------------------

def time_decisions(forward, states, seconds: float, warmup) -> dict:
    """Full-decision and per-stage timings (ns) over `states`, in turn, for about `seconds`
    (and at least 20 decisions) after a warm-up pass over `warmup`."""
    clock = time.perf_counter_ns
    for state in warmup:
        forward(features.featurize(state.observation(state.current_seat), state.legal_moves()))
    totals, stages = [], {s: [] for s in STAGES}
    deadline = clock() + int(seconds * 1e9)
    i = 0
    while True:
        state = states[i % len(states)]
        t0 = clock()
        legal = state.legal_moves()
        t1 = clock()
        obs = state.observation(state.current_seat)
        t2 = clock()
        sample = features.featurize(obs, legal)
        t3 = clock()
        logits = forward(sample)
        t4 = clock()
        legal[choose_index(logits)]  # the move played
        t5 = clock()
        totals.append(t5 - t0)
        for stage, ns in zip(STAGES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
            stages[stage].append(ns)
        i += 1
        if t5 >= deadline and i >= 20:
            return {"total": totals, "stages": stages}


def throughput(backend: str, checkpoint: str, samples: list, seconds: float,
               batch_sizes=BATCH_SIZES) -> dict:
    """Decisions per second of the model alone (eager, unexported) on padded batches, or for
    `native` on ragged ones in one `forward_batch` call, per batch size."""
    rates = {}
    if backend == "native":
        from openlandlord.model.native import NativeStudent

        forward = NativeStudent(checkpoint).forward_batch
    elif backend == "mlx":
        import mlx.core as mx

        from openlandlord.model import load_checkpoint

        model = load_checkpoint(checkpoint)[0]

        def forward(batch):
            mx.eval(model({k: mx.array(v) for k, v in batch.items()})["logits"])
    else:
        import torch

        from .torch_mirror import load_torch_student

        mirror = load_torch_student(checkpoint)

        def forward(batch):
            with torch.inference_mode():
                mirror({k: torch.from_numpy(v) for k, v in batch.items()})
    # Batches of neighbours in legal count, as a server grouping requests would pad them.
    ordered = sorted(samples, key=lambda s: s["actions"].shape[0])
    batch = (lambda group: group) if backend == "native" else features.collate
    for size in batch_sizes:
        batches = [batch([ordered[(start + j) % len(ordered)] for j in range(size)])
                   for start in range(0, max(len(ordered), size), size)]
        forward(batches[0])
        done, start = 0, time.perf_counter()
        while True:
            forward(batches[done // size % len(batches)])
            done += size
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        rates[str(size)] = done / elapsed
    return rates


def single_thread():
    """One thread for torch (onnxruntime is set per session; MLX has no such setting)."""
    import torch

    torch.set_num_threads(1)


def machine() -> dict:
    import torch

    info = {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(), "cpu_count": os.cpu_count(), "threads": 1,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "numpy": np.__version__, "torch": torch.__version__}
    for name in ("mlx", "onnxruntime", "coremltools"):
        try:
            info[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            info[name] = None
    return info


def _fixed_shape(call, slots: int, tokens: int):
    """`forward(sample) -> logits` through the fixed-shape functions, chunked past `slots`."""
    return lambda sample: score_in_chunks(call, sample, slots, tokens)["logits"]


def backend(name: str, checkpoint: str, signatures: dict, slots: int, tokens: int, scratch: str):
    """`forward(sample) -> logits` of one backend; NotAvailable or ImportError where it
    cannot run here."""
    if name in COREML_UNITS:
        from openlandlord.agents.coreml_agent import prediction_unavailable

        from .coreml import convert

        reason = prediction_unavailable()
        if reason:
            raise NotAvailable(reason)

        package = os.path.join(scratch, "student.mlpackage")
        if not os.path.isdir(package):
            convert(checkpoint, package, "fp16", slots, tokens)
        return _fixed_shape(coreml_call(package, COREML_UNITS[name]), slots, tokens)
    if name == "native":
        return native_forward(checkpoint)
    if name == "onnx_dynamic":
        return onnx_dynamic_forward(checkpoint, scratch)
    if name == "onnx":
        call = onnx_call(checkpoint, signatures, scratch)
    elif name.startswith("mlx"):
        call = mlx_call(checkpoint, signatures, compiled=name == "mlx_compiled")
    else:
        call = torch_call(checkpoint, signatures, traced=name == "torch_traced")
    return _fixed_shape(call, slots, tokens)


def _agreement(forward, reference, samples) -> float:
    return max(float(np.abs(forward(s) - reference(s)).max()) for s in samples)


def _float64_agreement(forward, checkpoint: str, samples) -> dict:
    """How far `forward`'s logits are from the same weights evaluated in float64 (the torch
    mirror, each position alone): the largest absolute difference, and the largest relative
    to max(1, |logit|)."""
    import torch

    from .torch_mirror import load_torch_student

    mirror = load_torch_student(checkpoint).double()
    worst_abs = worst_rel = 0.0
    for sample in samples:
        batch = features.collate([sample])
        batch.pop("belief_mask", None)
        with torch.inference_mode():
            exact = mirror({k: torch.from_numpy(v.astype(np.float64) if v.dtype.kind == "f" else v)
                            for k, v in batch.items()})["logits"].numpy()[0]
        diff = np.abs(np.asarray(forward(sample), np.float64) - exact)
        worst_abs = max(worst_abs, float(diff.max()))
        worst_rel = max(worst_rel, float((diff / np.maximum(1.0, np.abs(exact))).max()))
    return {"max_abs_diff": worst_abs, "max_rel_diff": worst_rel}


def roofline(checkpoint: str, samples: list, config, native_forward_ms: float,
             seconds: float = 0.3) -> dict:
    """What bounds the native forward pass: its matrix-product MFLOP per decision (counted
    by torch's FlopCounterMode on the mirror, each position alone, over a spread of the
    positions), the native product kernel's own GFLOP/s at the encoder's largest product
    (median state tokens x d x 3d, in cache, one thread, the best of five runs), and so the least forward time and
    the most decisions/s the products alone allow on this CPU."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from openlandlord.model import _native

    from .torch_mirror import load_torch_student

    mirror = load_torch_student(checkpoint)
    spread = samples[::max(1, len(samples) // 200)]
    flops = []
    for sample in spread:
        batch = features.collate([sample])
        batch.pop("belief_mask", None)
        with torch.inference_mode(), FlopCounterMode(display=False) as counter:
            mirror({k: torch.from_numpy(v) for k, v in batch.items()})
        flops.append(counter.get_total_flops())
    mflop = float(np.median(flops)) / 1e6
    tokens = int(np.median([s["state_tokens"].shape[0] for s in spread]))
    shape = (tokens, config.d_model, 3 * config.d_model)
    # The best of a few short runs: a ceiling, so other jobs on the machine should not lower it.
    peak = max(_native.gemm_rate(*shape, seconds=seconds / 5) for _ in range(5))
    return {"mflop_p50": mflop, "positions": len(spread), "kernel_shape": list(shape),
            "kernel_gflops": peak, "forward_gflops": mflop / native_forward_ms,
            "forward_floor_ms": mflop / peak, "batched_ceiling_per_s": peak * 1e3 / mflop}


def measure(game: str = "doudizhu", checkpoint: str | None = None, seconds: float = DEFAULT_SECONDS,
            backends=BACKENDS, deals: int = DEALS, slots: int = SLOTS, batch_sizes=BATCH_SIZES,
            progress=None, options: dict | None = None) -> dict:
    """The whole benchmark as a dict (keys in the module docstring). `options`: the game
    options of the positions' deals (default: the spec's `bench_options`)."""
    from .coreml import function_signatures
    from .torch_mirror import load_torch_student

    if seconds <= 0:
        raise UserError(f"--seconds must be positive, got {seconds}")
    unknown = sorted(set(backends) - set(BACKENDS))
    if unknown:
        raise UserError(f"unknown latency backend(s) {', '.join(unknown)}; known: {', '.join(BACKENDS)}")
    single_thread()
    scratch = tempfile.TemporaryDirectory(prefix="openlandlord-latency-")
    try:
        random_init = checkpoint is None
        if random_init:
            checkpoint = default_checkpoint(game, os.path.join(scratch.name, "student"))
        else:
            from openlandlord.agents.student import resolve_checkpoint
            checkpoint = resolve_checkpoint(checkpoint)
        mirror = load_torch_student(checkpoint)
        config, meta = mirror.config, mirror.meta
        if config.game != game:
            raise UserError(f"checkpoint {checkpoint} is a {config.game} student, not {game}")
        dims = features.dims(game)
        for key in ("state_feat_dim", "action_feat_dim", "num_roles", "belief_slots"):
            if dims[key] != getattr(config, key):
                raise UserError(f"checkpoint {checkpoint} has {key} {getattr(config, key)}, the {game} "
                                f"featurizer gives {dims[key]}: retrain it")
        tokens = config.max_state_tokens
        signatures = function_signatures(config, slots, tokens)
        states = decision_states(game, deals, options=options)
        samples = [features.featurize(s.observation(s.current_seat), s.legal_moves()) for s in states]
        counts = np.array([s["actions"].shape[0] for s in samples])
        spec = game_spec(game)
        result = {"game": game, "options": spec.check_options(spec.bench_options if options is None else options),
                  "git_sha": git_sha(), "machine": machine(), "seconds": seconds,
                  "target_p50_ms": TARGET_P50_MS,
                  "model": {"checkpoint": None if random_init else checkpoint, "random_init": random_init,
                            "num_parameters": int(meta["num_parameters"]), "slots": slots, "state_tokens": tokens},
                  "states": {"decisions": len(states), "deals": deals, "players": "rule",
                             "legal_mean": float(counts.mean()), "legal_max": int(counts.max()),
                             "chunked": int((counts > slots).sum())},
                  "backends": {}, "skipped": {}, "throughput": {}}
        reference = _fixed_shape(torch_call(checkpoint, signatures, traced=False), slots, tokens)
        chunked = [i for i, n in enumerate(counts) if n > slots]
        warmup = states[:100] + [states[i] for i in chunked[:3]]
        # Every backend is checked on the chunked states and on a spread of the others.
        checked = [samples[i] for i in sorted(set(chunked[:4]) | set(range(0, len(samples), max(1, len(samples) // 16))))]
        for name in backends:
            if progress:
                progress(f"{name} ...")
            try:
                forward = backend(name, checkpoint, signatures, slots, tokens, scratch.name)
            except (ImportError, NotAvailable) as e:
                result["skipped"][name] = str(e)
                continue
            timings = time_decisions(forward, states, seconds, warmup)
            entry = percentiles(timings["total"])
            entry["decisions"] = len(timings["total"])
            entry["forward"] = percentiles(timings["stages"]["forward"])
            entry["stages_ms"] = {s: float(np.median(v)) / 1e6 for s, v in timings["stages"].items()}
            entry["max_abs_diff_vs_torch"] = _agreement(forward, reference, checked)
            if name == "native":
                entry["max_abs_diff"] = _agreement(forward, mlx_unpadded(checkpoint), checked)
                entry["vs_float64"] = _float64_agreement(forward, checkpoint, checked)
            result["backends"][name] = entry
        if "native" in result["backends"]:
            if progress:
                progress("native roofline ...")
            result["roofline"] = roofline(checkpoint, samples, config,
                                          result["backends"]["native"]["forward"]["p50_ms"])
        for name in ("native", "mlx", "torch"):
            if name in result["backends"] and batch_sizes:
                if progress:
                    progress(f"{name} batched ...")
                result["throughput"][name] = throughput(name, checkpoint, samples, seconds, batch_sizes)
    finally:
        scratch.cleanup()
    if result["backends"]:
        result["fastest"] = min(result["backends"], key=lambda n: result["backends"][n]["p50_ms"])
    if "native" in result["backends"] and "onnx_dynamic" in result["backends"]:
        result["native_speedup_vs_onnx_dynamic"] = (result["backends"]["onnx_dynamic"]["p50_ms"]
                                                    / result["backends"]["native"]["p50_ms"])
    return result


def format_table(result: dict) -> str:
    states, model = result["states"], result["model"]
    weights = ("a randomly initialised default-config student (latency does not depend on the weights)"
               if model["random_init"] else f"checkpoint {model['checkpoint']}")
    lines = [f"bench latency, {result['game']}: {weights}, {model['num_parameters']:,} parameters, "
             f"{model['slots']} action slots x {model['state_tokens']} state tokens, one thread",
             f"{states['decisions']} decisions from {states['deals']} rule-bot deals: legal moves mean "
             f"{states['legal_mean']:.1f}, max {states['legal_max']}, {states['chunked']} need chunks",
             "",
             f"{'backend':<20}{'decision p50':>13}{'p95':>8}{'p99':>8}{'forward p50':>13}{'p95':>8}{'p99':>8}"
             f"{'max|diff|':>11}"]
    for name, e in result["backends"].items():
        f = e["forward"]
        lines.append(f"{name:<20}{e['p50_ms']:>13.3f}{e['p95_ms']:>8.3f}{e['p99_ms']:>8.3f}"
                     f"{f['p50_ms']:>13.3f}{f['p95_ms']:>8.3f}{f['p99_ms']:>8.3f}{e['max_abs_diff_vs_torch']:>11.1e}")
    lines.append("(milliseconds; max|diff|: largest logit difference from the torch mirror)")
    if "native" in result["backends"]:
        native = result["backends"]["native"]
        line = (f"native: decision p50 {native['p50_ms']:.3f} ms (legal moves, observation, featurize, "
                f"forward, choose), max|diff| from MLX {native['max_abs_diff']:.1e}")
        if "vs_float64" in native:
            line += (f", from float64 {native['vs_float64']['max_abs_diff']:.1e} "
                     f"({native['vs_float64']['max_rel_diff']:.1e} relative)")
        if "native_speedup_vs_onnx_dynamic" in result:
            line += f", {result['native_speedup_vs_onnx_dynamic']:.2f}x faster than onnx_dynamic"
        lines.append(line)
    for name, reason in result["skipped"].items():
        lines.append(f"{name:<20}skipped: {reason}")
    if "fastest" in result:
        best = result["backends"][result["fastest"]]
        verdict = "meets" if best["p50_ms"] <= result["target_p50_ms"] else "misses"
        lines.append(f"fastest: {result['fastest']}, decision p50 {best['p50_ms']:.3f} ms ({verdict} the "
                     f"{result['target_p50_ms']} ms target); median per stage: "
                     + ", ".join(f"{s} {v * 1000:.0f} us" for s, v in best["stages_ms"].items()))
    if "roofline" in result:
        r = result["roofline"]
        lines.append(f"native roofline: {r['mflop_p50']:.2f} MFLOP of products a decision (median), the "
                     f"product kernel {r['kernel_gflops']:.0f} GFLOP/s at {'x'.join(map(str, r['kernel_shape']))}: "
                     f"forward at least {r['forward_floor_ms']:.3f} ms, at most "
                     f"{r['batched_ceiling_per_s']:,.0f} decisions/s; the forward runs at "
                     f"{r['forward_gflops']:.0f} GFLOP/s")
    for name, rates in result["throughput"].items():
        lines.append(f"batched {name}: " + ", ".join(f"batch {b} {r:,.0f} decisions/s" for b, r in rates.items()))
    return "\n".join(lines)


def run(args) -> int:
    seconds = args.seconds if args.seconds is not None else DEFAULT_SECONDS
    given = {k: v for k, v in game_options(args.game, args).items() if getattr(args, k, None) is not None}
    result = measure(args.game, args.checkpoint, seconds, BACKENDS, DEALS, SLOTS, BATCH_SIZES,
                     progress=lambda m: print(m, file=sys.stderr), options=given or None)
    print(format_table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0

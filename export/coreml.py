"""`openlandlord export`: a student checkpoint -> a fixed-shape Core ML ML Program.

The package (.mlpackage, fp16 with the score path in fp32, or fp32) is multifunction; its
functions, inputs and outputs are listed in openlandlord/model/chunked.py, which also scores
legal lists longer than the slot count in chunks with exactly the unchunked result. `main` is
the default function: one call for states with at most `slots` legal actions. On macOS load a
function with `coremltools.models.MLModel(path, function_name="encode")`.

Metadata (user_defined_metadata): architecture, game, feature_version, slots, state_tokens,
precision, fp32_parts, num_parameters, functions, git_sha (of the checkpoint and of the
exporter).

Core ML predicts only on macOS. On Linux the package is checked by spec inspection
(`describe`) and by `evaluate_mil`, which runs the converted program op by op with
coremltools' own MIL value inference.
"""
import contextlib
import io
import logging
import os
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np
import torch

from openlandlord import artefacts
from openlandlord.errors import UserError
from openlandlord.model.chunked import FUNCTIONS, STATE_INPUTS
from openlandlord.provenance import git_sha

from .torch_mirror import load_torch_student

PRECISIONS = ("fp16", "fp32")

# Under `--precision fp16` these modules, and the student's own operations between them (the
# Deep Sets pooling, the mean, the masking of the logits), compute in fp32: a student whose
# scores have drifted (the shipped classic one's median |logit| is about 195,000, its Deep Sets
# term past fp16's 65,504) overflows there, and a score common to every move of a decision
# leaves fp16 no bits for the differences between moves. They are a d x d layer or two per
# action; the transformer body (the encoder, the action layer, the belief and value heads) stays
# in fp16.
FP32_MODULES = frozenset({"set_phi", "set_rho", "action_adapter", "score_hidden", "score_out"})
FP32_PARTS = "Deep Sets pooling, score head"

# What coremltools logs on import that says nothing about this export: the torch version it
# was not tested with, and the macOS-only prediction bindings missing elsewhere.
_IMPORT_NOISE = ("has not been tested with coremltools", "Failed to load _ML")


def _not_import_noise(record: logging.LogRecord) -> bool:
    return not any(text in record.getMessage() for text in _IMPORT_NOISE)


def import_coremltools():
    """coremltools, imported without its known import-time warnings (others still show)."""
    logger = logging.getLogger("coremltools")
    if _not_import_noise not in logger.filters:
        logger.addFilter(_not_import_noise)
    import coremltools

    return coremltools


class _Converter:
    """What coremltools says while converting: each function's progress bars, "Tuple detected
    at graph output", an fp16 overflow in a constant-folding pass. Unless `verbose`, all of
    it is held back and counted (and shown whole if the conversion fails), and one bar over
    the functions stands in for the bars."""

    def __init__(self, verbose: bool):
        self.verbose, self.held, self.warnings = verbose, io.StringIO(), 0
        self.checked = {}  # the last package's `verify` figures, taken before it was swapped in

    def filter(self, record: logging.LogRecord) -> bool:
        self.warnings += record.levelno >= logging.WARNING
        return False

    @contextlib.contextmanager
    def quiet(self):
        """Around the conversion: tqdm and Python warnings write to sys.stderr when they
        print, so a redirect holds them; coremltools' logger has its own handler, so a filter."""
        if self.verbose:
            yield
            return
        logger = logging.getLogger("coremltools")
        logger.addFilter(self.filter)
        try:
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(self.held):
                yield
        except BaseException:
            sys.stderr.write(self.held.getvalue())
            raise
        finally:
            logger.removeFilter(self.filter)
        self.warnings += len(caught)

    def bar(self, items):
        """The one progress bar (to the real stderr), over `items`."""
        from tqdm import tqdm

        return tqdm(items, desc="converting to Core ML", unit=" functions", file=sys.stderr,
                    disable=self.verbose, leave=False)

    def summary(self) -> str:
        if self.verbose or not self.warnings:
            return ""
        return f" ({self.warnings} converter warnings hidden: -v shows them)"


class _Main(torch.nn.Module):
    def __init__(self, student):
        super().__init__()
        self.student = student

    def forward(self, state_tokens, state_mask, role, unseen, capacity, void, actions, action_mask):
        out = self.student({"state_tokens": state_tokens, "state_mask": state_mask, "role": role,
                            "unseen": unseen, "capacity": capacity, "void": void,
                            "actions": actions, "action_mask": action_mask})
        return (out["logits"], out["value"]) + ((out["belief_expect"],) if "belief_expect" in out else ())


class _Encode(_Main):
    def forward(self, state_tokens, state_mask, role, unseen, capacity, void):
        memory, memory_mask, belief, value = self.student.encode_state(
            state_tokens, state_mask, role, unseen, capacity, void)
        if memory_mask is state_mask:
            # Without a belief head the memory mask is the state mask; an input passed straight
            # through to an output cannot carry the output's name in Core ML, so compute it
            # (masks are 0/1: the same values, and a cast no optimisation pass removes).
            memory_mask = (state_mask > 0.5).to(state_mask.dtype)
        return (memory, memory_mask, value) + ((belief["belief_expect"],) if belief else ())


class _EmbedPool(_Main):
    def forward(self, memory, memory_mask, actions, action_mask, role):
        embeddings = self.student.embed_actions(memory, memory_mask, actions, role)
        return (embeddings,) + self.student.pool(embeddings, action_mask)


class _Score(_Main):
    def forward(self, embeddings, pool_sum, pool_count, pool_max, role, action_mask):
        return self.student.score(embeddings, (pool_sum, pool_count, pool_max), role, action_mask)


def function_signatures(config, slots: int, tokens: int) -> dict:
    """{function: (module class, [(input, shape, dtype)], [outputs])} at fixed shapes."""
    d, R, H = config.d_model, config.belief_slots, config.belief_holders
    memory_len = tokens + (config.belief_mode != "off")
    belief = ["belief_expect"] if config.belief_mode != "off" else []
    state = [("state_tokens", (1, tokens, config.state_feat_dim), np.float32),
             ("state_mask", (1, tokens), np.float32), ("role", (1,), np.int32),
             ("unseen", (1, R), np.int32), ("capacity", (1, H), np.int32),
             ("void", (1, H, R), np.float32)]
    actions = [("actions", (1, slots, config.action_feat_dim), np.float32),
               ("action_mask", (1, slots), np.float32)]
    memory = [("memory", (1, memory_len, d), np.float32), ("memory_mask", (1, memory_len), np.float32)]
    return {
        "main": (_Main, state + actions, ["logits", "value"] + belief),
        "encode": (_Encode, state, ["memory", "memory_mask", "value"] + belief),
        "embed_pool": (_EmbedPool, memory + actions + [("role", (1,), np.int32)],
                       ["embeddings", "pool_sum", "pool_count", "pool_max"]),
        "score": (_Score, [("embeddings", (1, slots, d), np.float32), ("pool_sum", (1, d), np.float32),
                           ("pool_count", (1, 1), np.float32), ("pool_max", (1, d), np.float32),
                           ("role", (1,), np.int32), ("action_mask", (1, slots), np.float32)],
                  ["logits"]),
    }


def example_inputs(inputs, config):
    """Valid tensors of the traced shapes (all tokens and actions real, a dealable belief)."""
    out = []
    for name, shape, dtype in inputs:
        if name == "unseen":
            out.append(torch.full(shape, min(1, config.belief_max_count), dtype=torch.int32))
        elif name == "capacity":
            out.append(torch.full(shape, config.belief_slots * config.belief_max_count, dtype=torch.int32))
        elif dtype == np.int32:
            out.append(torch.zeros(shape, dtype=torch.int32))
        elif name.endswith("mask") or name == "pool_count":
            out.append(torch.ones(shape))
        elif name == "void":
            out.append(torch.zeros(shape))
        else:
            out.append(torch.randn(shape, generator=torch.Generator().manual_seed(0)))
    return tuple(out)


def convert(checkpoint_dir: str, out_path: str, precision: str = "fp16", slots: int = 64,
            tokens: int | None = None, converter: _Converter | None = None, force: bool = False) -> str:
    """Export a checkpoint as a multifunction ML Program at batch 1, `tokens` state tokens
    (default: the config's max_state_tokens) and `slots` action slots. coremltools' own
    output shows only with a verbose `converter` (the default). `out_path` is locked while
    it is made, built under a temporary name and swapped in whole; an existing one is
    replaced only with `force`."""
    with artefacts.exclusive(out_path, "--out"):
        return _convert(checkpoint_dir, out_path, precision, slots, tokens, converter, force)


def in_fp16(op) -> bool:
    """The op selector of `--precision fp16`: False (fp32) for an op traced from the score path,
    True for the rest. By the op's TORCHSCRIPT_MODULE_NAME scope, the torch modules it was traced
    from and then its own name: where every module on it is the student itself (its top-level
    operations; the wrapper names it `student`) or one of FP32_MODULES, the op is on the score
    path. The wrappers of `encode`, `embed_pool` and `score` call the student's methods, so their
    scopes start at the submodule ("0", "attn", ... for an encoder layer)."""
    from coremltools.converters.mil.mil.scope import ScopeSource

    modules = list(op.scopes.get(ScopeSource.TORCHSCRIPT_MODULE_NAME, ()))[:-1]
    return not all(name == "student" or name in FP32_MODULES for name in modules)


def _convert(checkpoint_dir, out_path, precision, slots, tokens, converter, force) -> str:
    converter = converter or _Converter(verbose=True)
    if precision not in PRECISIONS:
        raise UserError(f"precision {precision!r} is not one of {PRECISIONS}")
    if slots < 1:
        raise UserError(f"slots must be at least 1, got {slots}")
    if not out_path.endswith(".mlpackage"):
        raise UserError(f"--out {out_path} must end in .mlpackage")
    if os.path.exists(out_path) and not os.path.isdir(out_path):
        raise UserError(f"--out {out_path} is a file, not a package directory")
    artefacts.refuse_existing(out_path, force)
    parent = os.path.dirname(os.path.abspath(out_path))
    if os.path.exists(parent) and not os.path.isdir(parent):
        raise UserError(f"--out {out_path}: {parent} is not a directory")
    # Bad input is reported before coremltools' import (seconds, and log lines of its own).
    student = load_torch_student(checkpoint_dir)
    ct = import_coremltools()
    config, meta = student.config, student.meta
    tokens = tokens or config.max_state_tokens
    compute = (ct.transform.FP16ComputePrecision(op_selector=in_fp16) if precision == "fp16"
               else ct.precision.FLOAT32)
    staging = tempfile.mkdtemp(prefix="openlandlord-export-")
    try:
        descriptor = ct.utils.MultiFunctionDescriptor()
        signatures = function_signatures(config, slots, tokens)
        for name in converter.bar(signatures):
            wrapper, inputs, outputs = signatures[name]
            with torch.no_grad():
                traced = torch.jit.trace(wrapper(student).eval(), example_inputs(inputs, config))
            with converter.quiet():
                program = ct.convert(
                    traced, convert_to="mlprogram", compute_precision=compute,
                    minimum_deployment_target=ct.target.macOS15,  # multifunction packages need it
                    inputs=[ct.TensorType(name=n, shape=s, dtype=t) for n, s, t in inputs],
                    outputs=[ct.TensorType(name=n, dtype=np.float32) for n in outputs])
            path = os.path.join(staging, f"{name}.mlpackage")
            program.save(path)
            descriptor.add_function(path, src_function_name="main", target_function_name=name)
        descriptor.default_function_name = "main"
        merged = os.path.join(staging, "merged.mlpackage")
        with converter.quiet():
            ct.utils.save_multifunction(descriptor, merged)
        package = ct.models.MLModel(merged, skip_model_load=True)
        package.short_description = (f"LandlordFormer-Lite student for {config.game}: scores up to {slots} "
                                     f"legal actions per call; more in chunks (encode, embed_pool, score)")
        package.user_defined_metadata.update({
            "architecture": meta["architecture"], "game": config.game,
            "feature_version": str(config.feature_version), "slots": str(slots),
            "state_tokens": str(tokens), "precision": precision,
            "fp32_parts": FP32_PARTS if precision == "fp16" else "all",
            "num_parameters": str(meta["num_parameters"]), "functions": ",".join(FUNCTIONS),
            "git_sha": str(meta.get("git_sha", "unknown")), "exporter_git_sha": git_sha()})
        with artefacts.staged_folder(out_path, force=True) as package_path:
            package.save(str(package_path))
            # Checked before it is swapped in: a package that computes NaN or infinity is refused
            # and whatever stood at `out_path` stays.
            converter.checked = verify(str(package_path), checkpoint_dir)
            if not all(np.isfinite(v) for v in converter.checked.values()):
                fix = "; export it with --precision fp32" if precision == "fp16" else ""
                raise UserError(f"{checkpoint_dir} at {precision} computes non-finite numbers "
                                f"(max |difference| from the torch mirror: {converter.checked}){fix}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out_path


def describe(package_path: str) -> dict:
    """Spec inspection: {"metadata": {...}, "functions": {name: {"inputs": {name: (shape,
    dtype)}, "outputs": [names]}}, "default_function": name, "program": "mlProgram"}."""
    ct = import_coremltools()

    spec = ct.models.MLModel(package_path, skip_model_load=True).get_spec()
    dtypes = {65568: "float32", 65552: "float16", 131104: "int32"}
    functions = {
        f.name: {"inputs": {i.name: (tuple(i.type.multiArrayType.shape), dtypes.get(i.type.multiArrayType.dataType))
                            for i in f.input},
                 "outputs": [o.name for o in f.output]}
        for f in spec.description.functions}
    return {"metadata": dict(spec.description.metadata.userDefined), "functions": functions,
            "default_function": spec.description.defaultFunctionName, "program": spec.WhichOneof("Type")}


def load_program(package_path: str):
    """The MIL program stored in a package, as coremltools reads it back."""
    ct = import_coremltools()
    from coremltools.converters.mil.frontend.milproto.load import load

    package = ct.models.MLModel(package_path, skip_model_load=True)
    spec = package.get_spec()
    return load(spec, spec.specificationVersion, file_weights_dir=package.weights_dir)


def evaluate_mil(program, function: str, inputs: dict) -> dict:
    """Run one function of a MIL program on numpy inputs with coremltools' per-op value
    inference (the Linux stand-in for a Core ML prediction; fp16 programs compute in fp16)."""
    from coremltools.converters.mil.mil import types

    func = program.functions[function]
    computed = []

    def assign(var, value):
        # Each op's result is stored at the program's own precision, as Core ML would.
        holder = var.sym_type()
        holder.val = np.asarray(value).astype(types.nptype_from_builtin(var.dtype))
        var._sym_val = holder
        computed.append(var)

    try:
        for name, var in func.inputs.items():
            if name not in inputs:
                raise UserError(f"function {function} needs input {name!r}")
            assign(var, inputs[name])
        for op in func.operations:
            if op.op_type == "const":
                # numpy >= 2.4 rejects a numpy bool as `keepdims`; give reductions a Python bool.
                if isinstance(op.outputs[0].val, np.bool_):
                    op.outputs[0]._sym_val.val = bool(op.outputs[0].val)
                continue
            values = op.value_inference()
            for var, value in zip(op.outputs, values if isinstance(values, (tuple, list)) else (values,)):
                assign(var, value)
        return {var.name: np.asarray(var.val) for var in func.outputs}
    finally:
        for var in computed:
            var._sym_val = None


def verify(package_path: str, checkpoint_dir: str, seed: int = 0) -> dict:
    """Largest |difference| between the package (run by `evaluate_mil`) and the torch mirror
    on random states: {"one_call": ..., "chunked": ...}, over logits, value and beliefs;
    one state fits the slots, the other needs three chunks."""
    from openlandlord.model.chunked import score_in_chunks
    from openlandlord.model.synthetic import decision, random_batch

    mirror = load_torch_student(checkpoint_dir)
    meta = describe(package_path)["metadata"]
    slots, tokens = int(meta["slots"]), int(meta["state_tokens"])
    program = load_program(package_path)
    rng = np.random.default_rng(seed)
    result = {}
    for name, actions in (("one_call", max(1, slots // 2)), ("chunked", 2 * slots + 3)):
        batch = random_batch(mirror.config, 1, tokens, actions, rng, padded=False)
        got = score_in_chunks(lambda function, inputs: evaluate_mil(program, function, inputs),
                              decision(batch), slots, tokens)
        with torch.no_grad():
            want = mirror({k: torch.from_numpy(v) for k, v in batch.items()})
        result[name] = max(float(np.abs(np.asarray(got[k]) - want[k][0].numpy()).max())
                           for k in got if k in want)
    return result


def run(args):
    """`openlandlord export --checkpoint DIR --out FILE.mlpackage [--precision fp16|fp32] [-v]`:
    one progress bar and a summary line; coremltools' own bars and warnings with -v."""
    converter = _Converter(verbose=getattr(args, "verbose", False))
    started = time.perf_counter()
    path = convert(args.checkpoint, args.out, precision=args.precision, converter=converter,
                   force=getattr(args, "force", False))
    info = describe(path)
    meta = info["metadata"]
    print(f"wrote {path}: {meta['game']} student, {meta['num_parameters']} parameters, {meta['precision']}, "
          f"{meta['slots']} action slots x {meta['state_tokens']} state tokens, "
          f"functions {', '.join(info['functions'])}, in {time.perf_counter() - started:.1f} s"
          f"{converter.summary()}")
    check = converter.checked
    print(f"MIL evaluation vs the torch mirror, max |difference|: {check['one_call']:.2e} in one call, "
          f"{check['chunked']:.2e} chunked ({2 * int(meta['slots']) + 3} legal actions)")
    return 0

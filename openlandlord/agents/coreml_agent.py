"""`coreml:PATH.mlpackage`: an exported student (from `openlandlord export`) as a player,
predicting with Core ML.

The package is multifunction (main, encode, embed_pool, score; see
openlandlord/model/chunked.py): legal lists up to the package's slot count take one call of
`main`, longer ones are scored in chunks with exactly the unchunked result. Slots, state
length, game and feature version come from the package's metadata.

Options: `coreml:path=P,compute=all|cpu_only|cpu_and_gpu|cpu_and_ne` chooses Core ML's
compute units (default all). Core ML predicts only on macOS: anywhere else, or where
coremltools was built without its prediction library, building the agent raises
NotAvailable.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from ..errors import NotAvailable, UserError
from . import ListedPlays, Spec, check_options

COMPUTE_UNITS = ("all", "cpu_only", "cpu_and_gpu", "cpu_and_ne")
REQUIRED_METADATA = ("game", "feature_version", "slots", "state_tokens", "functions")


def prediction_unavailable() -> str | None:
    """Why Core ML cannot predict on this machine, or None when it can."""
    if sys.platform != "darwin":
        return f"Core ML prediction needs macOS (this machine runs {sys.platform})"
    try:
        from coremltools.models import model
    except ImportError:
        return "Core ML prediction needs the coremltools package, which is not installed"
    if getattr(model, "_MLModelProxy", None) is None:
        return "Core ML prediction needs macOS with coremltools' prediction library (libcoremlpython), not found"
    return None


class CoreMLAgent(ListedPlays):
    """Scores = the exported student's logits over the legal moves."""

    def __init__(self, package: str, compute_units: str = "all"):
        from openlandlord import features

        if not os.path.isdir(package):
            raise UserError(f"Core ML package {package} does not exist")
        if compute_units.lower() not in COMPUTE_UNITS:
            raise UserError(f"compute={compute_units!r} is not one of {', '.join(COMPUTE_UNITS)}")
        reason = prediction_unavailable()
        if reason:
            raise NotAvailable(f"{reason}; the package {package} can still be checked on Linux "
                               "with export.coreml.verify")
        import coremltools as ct

        units = ct.ComputeUnit[compute_units.upper()]
        try:
            default = ct.models.MLModel(package, compute_units=units)
        except Exception as e:  # coremltools raises bare Exceptions for unreadable packages
            raise UserError(f"cannot load Core ML package {package}: {e}") from None
        meta = dict(default.user_defined_metadata)
        missing = [k for k in REQUIRED_METADATA if k not in meta]
        if missing:
            raise UserError(f"{package} lacks metadata {', '.join(missing)}: it was not made by openlandlord export")
        self.game = meta["game"]
        features.check_model(self.game, meta["feature_version"], {}, package, "export it again")
        self.slots, self.tokens = int(meta["slots"]), int(meta["state_tokens"])
        self.models = {name: ct.models.MLModel(package, compute_units=units, function_name=name)
                       for name in meta["functions"].split(",")}
        self.package = package
        self.name = f"coreml:{package}"

    def call(self, function: str, inputs: dict) -> dict:
        """Run one function of the package (the `call` of `score_in_chunks`)."""
        return self.models[function].predict(inputs)

    def scores(self, obs, legal) -> np.ndarray:
        from openlandlord import features
        from openlandlord.model.chunked import score_in_chunks

        sample, = features.featurize_all([(obs, legal)], self.game, self.tokens, self.package)
        out = score_in_chunks(self.call, sample, self.slots, self.tokens)
        return out["logits"].astype(np.float64)


def make_coreml(spec: Spec, seed: int | None = None) -> CoreMLAgent:
    check_options(spec, {"path", "compute"})
    path = spec.arg or spec.options.get("path")
    if not path:
        raise UserError(f"agent spec {spec.text!r} needs a package: coreml:PATH.mlpackage")
    return CoreMLAgent(path, spec.options.get("compute", "all"))

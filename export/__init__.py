"""Export of a student checkpoint: the torch mirror (torch_mirror.py), Core ML (coreml.py),
ONNX (onnx.py), and the latency bench over them (latency.py).

`run` is `openlandlord export`: the format is chosen by the suffix of --out.
"""
from __future__ import annotations

import importlib

from openlandlord.errors import UserError

# --out suffix -> the module whose `run(args)` writes that format.
FORMATS = {".mlpackage": "coreml", ".onnx": "onnx"}


def run(args) -> int:
    """`openlandlord export --checkpoint DIR --out FILE.mlpackage|FILE.onnx`."""
    suffix = next((s for s in FORMATS if args.out.rstrip("/").endswith(s)), None)
    if suffix is None:
        raise UserError(f"--out {args.out}: name a .mlpackage (Core ML) or an .onnx (ONNX) file; "
                        "the suffix chooses the format")
    return importlib.import_module(f"{__name__}.{FORMATS[suffix]}").run(args) or 0

"""Which BLAS MLX runs on. MLX on Linux ships a slow reference BLAS; Debian's OpenBLAS
(package libopenblas0-pthread), preloaded, makes the student's matmuls several times faster.
A preload only works from process start, so the commands that run the student (train, eval's
workers, quickstart's stages) start their processes with it. OPENLANDLORD_BLAS=bundled opts
out; on macOS there is nothing to do (MLX uses Accelerate and the GPU).
"""
from __future__ import annotations

import os
import platform
import sys

OPENBLAS = f"/usr/lib/{platform.machine()}-linux-gnu/openblas-pthread/libopenblas.so.0"


def wanted() -> bool:
    """Whether processes started from here should preload OpenBLAS."""
    return (sys.platform == "linux" and os.path.exists(OPENBLAS)
            and os.environ.get("OPENLANDLORD_BLAS", "auto") != "bundled")


def loaded() -> bool:
    """Whether OpenBLAS is mapped into this process."""
    try:
        with open("/proc/self/maps") as f:
            return "libopenblas" in f.read()
    except OSError:
        return False


def preloaded(env: dict) -> dict:
    """A copy of `env` with OpenBLAS first in LD_PRELOAD (unchanged when not `wanted`)."""
    env = dict(env)
    current = env.get("LD_PRELOAD", "")
    if wanted() and OPENBLAS not in current:
        env["LD_PRELOAD"] = ":".join(p for p in (OPENBLAS, current) if p)
    return env

"""Which BLAS MLX runs on. MLX on Linux ships a slow reference BLAS; Debian's OpenBLAS
(package libopenblas0-pthread), preloaded, makes the student's matmuls several times faster.
A preload only works from process start, so the commands that run the student start their
processes with it (eval's workers, quickstart's stages) or re-execute themselves once with it
(train). OPENLANDLORD_BLAS=bundled opts out; on macOS there is nothing to do (MLX uses
Accelerate and the GPU).
"""
from __future__ import annotations

import os
import platform
import sys

OPENBLAS = f"/usr/lib/{platform.machine()}-linux-gnu/openblas-pthread/libopenblas.so.0"
# Set in a process re-executed with the preload, so that it never re-executes again.
REEXEC_GUARD = "OPENLANDLORD_BLAS_REEXEC"


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


def reexec_with_openblas(command: str) -> None:
    """Re-run this process, with its own command line as given, once with OpenBLAS
    preloaded: only when this process was started as `openlandlord COMMAND ...` (the
    script or `python -m openlandlord.cli`; not, e.g., a test calling the CLI's `main`
    in-process), when OpenBLAS is `wanted` and not loaded yet, and never twice."""
    if os.environ.get(REEXEC_GUARD) or not wanted() or loaded() or not _started_as(command):
        return
    env = preloaded(dict(os.environ, **{REEXEC_GUARD: "1"}))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable] + sys.orig_argv[1:], env)


def _started_as(command: str) -> bool:
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    cli = (spec is not None and spec.name == "openlandlord.cli") or os.path.basename(sys.argv[0]) == "openlandlord"
    return cli and sys.argv[1:2] == [command]

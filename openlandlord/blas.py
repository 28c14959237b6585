"""Which BLAS MLX runs on. MLX on Linux (`mlx[cpu]`) ships a slow reference BLAS; a fast one,
preloaded, makes the student's matmuls several times faster. Two are looked for, in order:

- Debian's OpenBLAS (package libopenblas0-pthread; `apt-get install`, needs root);
- Intel's MKL from the `mkl` wheel (a dependency of this package on x86-64 Linux, so
  `pip install` brings it, no root): `libmkl_rt` exports the plain `cblas_sgemm`/`sgeev_`
  symbols with 32-bit integers that libmlx.so binds to, and picks its kernels for the CPU
  it runs on.

What cannot serve, checked with `nm -D` against libmlx.so's undefined symbols: the
scipy-openblas32/64 wheels and numpy's bundled copy prefix every symbol with `scipy_` (and
numpy's adds a `64_` suffix), so MLX never binds to them; cmeel-openblas is built for
AVX-512 CPUs only and dies of an illegal instruction elsewhere.

A preload only works from process start, so the commands that run the student start their
processes with it (eval's workers, quickstart's stages) or re-execute themselves once with it
(train). OPENLANDLORD_BLAS=bundled opts out; =debian or =mkl picks one of the two, and an
absolute path another library; on macOS there is nothing to do (MLX uses Accelerate and the
GPU).
"""
from __future__ import annotations

import os
import platform
import sys

DEBIAN_OPENBLAS = f"/usr/lib/{platform.machine()}-linux-gnu/openblas-pthread/libopenblas.so.0"
# Set in a process re-executed with the preload, so that it never re-executes again.
REEXEC_GUARD = "OPENLANDLORD_BLAS_REEXEC"
FIX = "pip install mkl, or apt-get install libopenblas0-pthread"


def _mkl() -> str | None:
    """The `mkl` wheel's library: pip puts it in the environment's lib/ (or the user base's)."""
    import site

    for root in (sys.prefix, site.getuserbase()):
        for name in ("libmkl_rt.so.3", "libmkl_rt.so.2"):
            if os.path.exists(os.path.join(root, "lib", name)):
                return os.path.join(root, "lib", name)
    return None


def find(choice: str | None = None) -> str | None:
    """The BLAS library to preload for OPENLANDLORD_BLAS=`choice` (default: the environment's,
    else auto): None for bundled, on macOS, or when none is found."""
    choice = choice or os.environ.get("OPENLANDLORD_BLAS", "auto")
    if sys.platform != "linux" or choice == "bundled":
        return None
    debian = DEBIAN_OPENBLAS if os.path.exists(DEBIAN_OPENBLAS) else None
    if choice == "debian":
        return debian
    if choice == "mkl":
        return _mkl()
    if os.path.isabs(choice):
        return choice if os.path.exists(choice) else None
    return debian or _mkl()


OPENBLAS = find() or ""  # "" when none is found


def wanted() -> bool:
    """Whether processes started from here should preload a fast BLAS."""
    return bool(OPENBLAS)


def note() -> str | None:
    """One line for a user left on the slow bundled BLAS (Linux, no fast BLAS found, not opted
    out), saying how to fix it; None otherwise."""
    if sys.platform != "linux" or wanted() or os.environ.get("OPENLANDLORD_BLAS") == "bundled":
        return None
    return f"note: no fast BLAS found, MLX trains on its bundled one (about 5x slower): {FIX}"


def loaded() -> bool:
    """Whether a fast BLAS (OpenBLAS or MKL) is mapped into this process."""
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
            return "libopenblas" in maps or "libmkl_rt" in maps
    except OSError:
        return False


def preloaded(env: dict) -> dict:
    """A copy of `env` with the fast BLAS first in LD_PRELOAD (unchanged when not `wanted`).
    MKL runs sequential: with its default OpenMP layer, a process that also loads torch (the
    rlcard and douzero agents) made the student's every forward pass about 20x slower
    (OpenMP threads of two runtimes spinning on 2 cores: 103 ms a decision against 3.6 ms)."""
    env = dict(env)
    current = env.get("LD_PRELOAD", "")
    if wanted() and OPENBLAS not in current:
        env["LD_PRELOAD"] = ":".join(p for p in (OPENBLAS, current) if p)
    if wanted() and "libmkl_rt" in OPENBLAS:
        env.setdefault("MKL_THREADING_LAYER", "SEQUENTIAL")
    return env


def reexec_with_openblas(command: str) -> None:
    """Re-run this process, with its own command line as given, once with OpenBLAS
    preloaded: only when this process was started as `openlandlord COMMAND ...` (the
    script or `python -m openlandlord.cli`; not, e.g., a test calling the CLI's `main`
    in-process), when OpenBLAS is `wanted` and not loaded yet, and never twice."""
    if _started_as(command):
        reexec_preloaded()


def reexec_preloaded() -> None:
    """Re-run this process (a script that trains or plays the student in-process) once with
    OpenBLAS preloaded, when it is `wanted` and not loaded yet; never twice."""
    if os.environ.get(REEXEC_GUARD) or not wanted() or loaded():
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

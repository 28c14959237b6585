"""What every artefact records about how it was made: git SHA, package version, time."""
import datetime
import functools
import os
import subprocess

from . import __version__


@functools.lru_cache(maxsize=None)
def git_sha() -> str:
    """The commit of the source tree this package was run from, or 'unknown' (with '-dirty'
    when tracked files differ from it)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        if not sha:
            return os.environ.get("OPENLANDLORD_GIT_SHA", "unknown")
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return os.environ.get("OPENLANDLORD_GIT_SHA", "unknown")


def stamp(**seeds) -> dict:
    """The provenance block written into every artefact."""
    return {"git_sha": git_sha(), "openlandlord_version": __version__,
            "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "seeds": seeds}

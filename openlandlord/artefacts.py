"""Writing artefacts safely: one writer per output, whole files or none, nothing replaced
without `--force`.

Every command that writes an output (generate, train, eval/league `--json`/`--report`,
export, quickstart, ship, the benches' `--json`) goes through this module:

- `exclusive(path, what)` holds an exclusive lock on the output from before the command
  reads or writes anything there until it ends. The lock is `flock` on a small file beside
  the output, `.NAME.lock` in its parent folder, holding the holder's PID, command line and
  start time; a second writer is refused at once (a UserError: one line, exit 2) naming
  them. The kernel drops the lock when the holder dies, however it dies, so a killed run
  never leaves a stale lock behind (the file may stay; it is not a lock by itself).
- `write_bytes` / `write_text` / `write_json` write to a temporary name in the same folder,
  fsync it, rename it into place and fsync the folder: a reader, or the next run, sees the
  old file or the new one, never half of one. `append_line` (the ledger) rewrites the file
  the same way under a short blocking lock, so concurrent evaluations never lose a line, and
  drops a torn last line (a pre-atomic writer killed mid-line) instead of keeping it.
- `staged_folder(path, force)` builds a folder output (an .mlpackage) under a temporary name
  and swaps it into place at the end.
- `refuse_existing(path, force, flag)` is the one rule: a finished output, or a folder the
  command did not make, is replaced only with `--force`.

Fault injection for the kill-mid-write tests: with `OPENLANDLORD_CRASH_AT=NAME` in the
environment, the process kills itself with SIGKILL halfway through writing the temporary
file of the artefact named NAME (its file name, or a tail of its path such as
`model/weights.safetensors`), before the rename: what a power cut or `kill -9` at that
instant leaves.
"""
from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import re
import shutil
import signal
import sys
from pathlib import Path

from .errors import UserError

CRASH_ENV = "OPENLANDLORD_CRASH_AT"


def lock_path(path) -> Path:
    """The lock file of an output: `.NAME.lock` beside it."""
    path = Path(os.path.abspath(path))
    return path.parent / f".{path.name}.lock"


def _holder(lock: Path) -> str:
    try:
        info = json.loads(lock.read_text())
        return f"PID {info['pid']}: {info['command']} (since {info['started_utc']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


class Lock:
    """An exclusive hold on one output (see the module docstring); `release()` or leave the
    `with` block to drop it."""

    def __init__(self, path, what: str):
        self.path = Path(path)
        self.file = lock_path(path)
        self.file.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise UserError(f"{what} {self.path} is being written by {_holder(self.file)}; "
                                "wait for it to finish or choose another path") from None
            # The file may have been unlinked by a holder releasing it between our open and
            # our flock: then the lock we hold is on a file nobody else can see; take it again.
            try:
                same = os.stat(self.file).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self.fd = fd
        info = {"pid": os.getpid(), "command": " ".join(["openlandlord", *sys.argv[1:]]),
                "started_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps(info) + "\n").encode())

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.file)
        os.close(self.fd)
        self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def exclusive(path, what: str = "output") -> Lock:
    """Hold the lock of output `path` (`with exclusive(out, "--out"):`)."""
    return Lock(path, what)


def exclusive_all(paths: list) -> contextlib.ExitStack:
    """Locks on several outputs [(path or None, what)], all or none."""
    stack = contextlib.ExitStack()
    try:
        for path, label in paths:
            if path:
                stack.enter_context(Lock(path, label))
    except BaseException:
        stack.close()
        raise
    return stack


def exclusive_outputs(outputs: list, force: bool = False) -> contextlib.ExitStack:
    """For a command with several optional outputs [(path or None, flag, is_folder)]: each
    path checked (`check_output`), then locked, then checked again under its lock (another
    writer may have finished in between); all held until the `with` block ends."""
    for path, flag, folder in outputs:
        check_output(path, flag, directory=folder, force=force)
    stack = exclusive_all([(path, flag) for path, flag, _ in outputs])
    try:
        for path, flag, folder in outputs:
            check_output(path, flag, directory=folder, force=force)
    except BaseException:
        stack.close()
        raise
    return stack


def _crash_here(path) -> bool:
    """Whether the fault injection names `path`: its file name, or a tail of its path
    (`model/weights.safetensors` is the top-level student, not an epoch's)."""
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return False
    path = os.path.abspath(path)
    return os.path.basename(path) == wanted or path.endswith(os.sep + wanted)


def _crash_point(path: Path, handle, data: bytes) -> bool:
    """Fault injection (module docstring): write half, flush, SIGKILL ourselves."""
    if not _crash_here(path):
        return False
    handle.write(data[: len(data) // 2])
    handle.flush()
    os.fsync(handle.fileno())
    os.kill(os.getpid(), signal.SIGKILL)
    return True  # not reached


def crash_before_rename(path) -> None:
    """Fault injection for artefacts written by another library (mlx, coremltools) to a
    temporary name of ours: killed after that write, before the rename."""
    if _crash_here(path):
        os.kill(os.getpid(), signal.SIGKILL)


def fsync_folder(folder) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(folder) -> None:
    """Flush every file and folder under `folder` to disk (a folder made by another library)."""
    for root, _, files in os.walk(folder):
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_folder(root)


def temporary_name(path) -> Path:
    path = Path(path)
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def write_bytes(path, data: bytes) -> None:
    """Write `data` to `path` atomically (module docstring)."""
    path = Path(path)
    tmp = temporary_name(path)
    try:
        with open(tmp, "wb") as f:
            if not _crash_point(path, f, data):
                f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_folder(path.parent if str(path.parent) else ".")


def write_text(path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path, obj, **dump_options) -> None:
    options = {"indent": 2, **dump_options}
    write_text(path, json.dumps(obj, **options) + "\n")


def move_into_place(tmp, path) -> None:
    """Rename a finished temporary file (written and fsynced by its maker) over `path`."""
    crash_before_rename(path)
    os.replace(tmp, path)
    fsync_folder(Path(path).parent)


def append_line(path, line: str) -> None:
    """Append one line to a shared log (the ledger) atomically: under a short blocking lock,
    the whole file is rewritten to a temporary name and renamed into place. A last line
    without its newline (torn by a writer killed before this module) is dropped."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.append-lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        old = path.read_bytes() if path.exists() else b""
        if old and not old.endswith(b"\n"):
            old = old[: old.rfind(b"\n") + 1]
        write_bytes(path, old + line.rstrip("\n").encode("utf-8") + b"\n")
    finally:
        os.close(fd)


_TEMPORARY = re.compile(r"^\..+\.tmp-\d+(\.[A-Za-z0-9]+)?$")


def remove_stale_temporaries(folder) -> list[str]:
    """Remove the temporary files (`.NAME.tmp-PID...`) that killed writers left in `folder`.
    Only for a folder whose lock the caller holds: then no live writer owns them."""
    removed = []
    folder = Path(folder)
    if folder.is_dir():
        for path in folder.iterdir():
            if _TEMPORARY.match(path.name):
                remove(path)
                removed.append(path.name)
    return removed


def refuse_existing(path, force: bool, flag: str = "--out", what: str = "") -> bool:
    """The one rule for outputs: if `path` exists, refuse (UserError) unless `force`.
    Returns whether something exists there (to be replaced, since force was given)."""
    path = Path(path)
    if not (path.exists() or path.is_symlink()):
        return False
    if not force:
        kind = "folder" if path.is_dir() else "file"
        raise UserError(f"{flag} {path} exists already ({what or kind}); pass --force to replace it, "
                        "or choose another path")
    return True


def remove(path) -> None:
    """Remove a file, link or folder (what `--force` replaces)."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _recover_folder(path: Path) -> None:
    """What a swap killed halfway left beside `path` (the caller holds its lock): the old
    folder moved aside with the new one not in yet is moved back; staging folders go."""
    stale = re.compile(rf"^\.{re.escape(path.name)}\.(tmp|old)-\d+({re.escape(path.suffix)})?$")
    for sibling in sorted(path.parent.iterdir()) if path.parent.is_dir() else []:
        match = stale.match(sibling.name)
        if not match:
            continue
        if match.group(1) == "old" and not (path.exists() or path.is_symlink()):
            os.replace(sibling, path)
        else:
            remove(sibling)


@contextlib.contextmanager
def staged_folder(path, force: bool = False, flag: str = "--out"):
    """Build a folder output under a temporary name (yielded), then swap it into `path`:
    the old folder (replaced only with `force`) is moved aside first and removed after. The
    caller holds the lock of `path`; what an earlier swap killed halfway left is repaired
    first (`_recover_folder`)."""
    path = Path(os.path.abspath(path))
    _recover_folder(path)
    refuse_existing(path, force, flag)
    staging = temporary_name(path)
    staging = staging.with_name(staging.name + path.suffix)   # coremltools wants its suffix
    remove(staging)
    try:
        yield staging
        fsync_tree(staging)
        crash_before_rename(path)
        aside = path.with_name(f".{path.name}.old-{os.getpid()}")
        if path.exists() or path.is_symlink():
            os.replace(path, aside)
        os.replace(staging, path)
        fsync_folder(path.parent)
        remove(aside)
    finally:
        remove(staging)


def check_output(path, flag: str, directory: bool = False, force: bool = False) -> None:
    """Refuse, before a long command does any work, an output path it could not write when it
    ends: a folder where a file is wanted (or a file where a folder is), a parent that cannot
    be created, no permission; and one that holds a finished output already, unless `force`
    (an empty folder is no output)."""
    if path is None:
        return
    target = os.path.abspath(path)
    if os.path.isdir(target) != directory and os.path.exists(target):
        raise UserError(f"{flag} {path} is {'a file' if directory else 'a directory'}; "
                        f"give a {'folder' if directory else 'file'} path")
    if os.path.exists(target):
        if not os.access(target, os.W_OK | (os.X_OK if directory else 0)):
            raise UserError(f"{flag} {path}: no permission to write it")
        if not (directory and not os.listdir(target)):
            refuse_existing(path, force, flag)
        return
    parent = os.path.dirname(target)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise UserError(f"{flag} {path}: cannot create it, {parent} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"{flag} {path}: no permission to create it in {parent}")

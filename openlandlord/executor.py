"""Where a stage's independent tasks run: in this process, over local worker processes, or on
a Ray cluster. `openlandlord generate` (one task a shard), `eval` and `league` (one task a
chunk of games) hand their tasks here and read the results back as they finish; nothing in
this module knows what a task is.

    run_tasks(fn, tasks, *, workers=None, backend="local", address=None,
              on_progress=None, initializer=None) -> Iterator[tuple[int, result]]

`fn(task, report)` runs one task and returns its result; it must be a top-level function
(workers import it by name, so its module must be importable there), and `task` and the
result must pickle. `report(n=1)` counts `n` finished units of work (games, deals) for the
progress bar: the parent calls `on_progress(n)` for them. The iterator yields
`(index into tasks, result)` in the order tasks finish; the caller puts them in order. The
results are the same whatever the backend and worker count, provided `fn` derives all its
randomness from its task (seeds in the task, nothing shared between tasks).

Backends (`BACKENDS`):
- "local": `workers` processes (default: one per CPU; never more than tasks). One worker,
  or a single task, runs in this process without a pool. More use a spawn-context process
  pool (spawn, not fork: a task may hold threads, torch's or MLX's, that fork would
  break), its workers started with OpenBLAS preloaded (`_fast_blas_for_workers`).
- "ray": Ray tasks of one CPU each, at most `workers` in flight when given (otherwise as
  many as the cluster schedules). `address` None starts a private local Ray instance for
  the call (with `workers` CPUs, OpenBLAS preloaded like the local pool) and stops it
  after; "auto" or "HOST:PORT" joins a running cluster (`ray start --head` on one machine,
  `ray start --address HOST:PORT` on the others), which every node must have openlandlord
  installed for: workers import `fn` from the installed package and nothing is uploaded.
  A process already connected to Ray (`ray.init` called before) keeps its connection. Ray
  is an optional extra (`pip install 'openlandlord[ray]'`), imported only by this backend.
  Ray's own settings apply as Ray documents them: joining a cluster that uses token
  authentication needs RAY_AUTH_MODE=token and its token (RAY_AUTH_TOKEN or
  ~/.ray/auth_token); on macOS Ray keeps to one machine unless
  RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=1.

Progress. In this process `report` calls `on_progress` at once. In a worker, each task
counts its units and sends them on at most every `REPORT_EVERY` seconds, tagged with its
index: through a multiprocessing queue that the parent polls
(local pool), or a `ray.util.queue.Queue` actor (Ray). A finished task also returns its
total with its result, and the parent credits whatever of it has not arrived yet and drops
that task's later messages, so the counts add up exactly even though messages and results
travel by different channels.

A pool worker whose parent dies (even by SIGKILL, where no cleanup runs in the parent)
exits at once instead of finishing its task (`_exit_with_parent`).

Failure. The first task that raises stops the call: the tasks not started are cancelled,
the running ones are killed, and the task's own exception is raised in the parent (under
Ray, chained to Ray's error, which carries the worker's traceback; a worker that cannot
import `fn` is a UserError saying every node needs openlandlord). Closing the iterator
early (`break`, Ctrl-C) stops the remaining tasks the same way; a caller closes it on its own
exceptions too (`contextlib.closing`): an iterator left to the garbage collector may not be
closed before the interpreter's exit, which then waits for the running tasks. `initializer()`, when
given, runs once in every worker process before its first task of the call (in this
process when there is no pool): the place to clear a per-process cache.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import socket
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, Callable, Iterable, Iterator

from openlandlord import blas
from openlandlord.errors import UserError

BACKENDS = ("local", "ray")
REPORT_EVERY = 0.25     # seconds between a task's progress messages
_POLL = 0.25            # seconds the parent waits for a result before reading progress
RAY_INSTALL = "pip install 'openlandlord[ray]'"


def run_tasks(fn: Callable[[Any, Callable[..., None]], Any], tasks: Iterable, *,
              workers: int | None = None, backend: str = "local", address: str | None = None,
              on_progress: Callable[[int], None] | None = None,
              initializer: Callable[[], None] | None = None) -> Iterator[tuple[int, Any]]:
    """Run `fn(task, report)` on every task over `backend`; yield (index, result) as each
    task finishes (the module docstring says the rest). Bad settings raise UserError here,
    before anything starts."""
    if backend not in BACKENDS:
        raise UserError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if workers is not None and workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    if address is not None and backend != "ray":
        raise UserError(f"--address {address} needs --backend ray")
    tasks = list(tasks)
    if backend == "ray":
        ray = _import_ray()
        if address is not None:
            _check_answers(address)
        return _run_ray(ray, fn, tasks, workers, address, on_progress, initializer)
    workers = min(workers or os.cpu_count() or 1, len(tasks))
    if workers <= 1:
        return _run_here(fn, tasks, on_progress, initializer)
    return _run_pool(fn, tasks, workers, on_progress, initializer)


# --- inside a worker ---------------------------------------------------------------------

class _Reporter:
    """The `report` a task is given: counts its units, sends them on now and then."""

    def __init__(self, index: int, send: Callable[[tuple[int, int]], None] | None):
        self.index, self.send = index, send
        self.total = self.unsent = 0
        self.sent_at = time.monotonic()

    def __call__(self, n: int = 1) -> None:
        self.total += n
        self.unsent += n
        if self.send is not None and time.monotonic() - self.sent_at >= REPORT_EVERY:
            self.send((self.index, self.unsent))
            self.unsent, self.sent_at = 0, time.monotonic()


def _run_task(fn, index: int, task, send) -> tuple[Any, int]:
    report = _Reporter(index, send)
    return fn(task, report), report.total


_SINK = None        # in a pool worker: the queue its progress goes to
_RUN = None         # in a Ray worker: the call whose initializer this process has run


def _start_pool_worker(sink, initializer) -> None:
    global _SINK
    _SINK = sink
    _exit_with_parent()
    if initializer is not None:
        initializer()


def _exit_with_parent() -> None:
    """A pool worker ends as soon as its parent does, killed or not. Otherwise a worker
    whose parent got SIGKILL (no cleanup can run there) searched on to the end of its task,
    minutes of a core. The parent's sentinel (spawn context) becomes ready when the parent
    process exits, on Linux and macOS alike; a daemon thread waits on it."""
    from multiprocessing.connection import wait as wait_ready
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        wait_ready([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _pool_task(fn, index: int, task) -> tuple[Any, int]:
    return _run_task(fn, index, task, None if _SINK is None else _SINK.put)


def _ray_task(run: str, initializer, sink, fn, index: int, task) -> tuple[Any, int]:
    # Ray reuses its worker processes across tasks and calls; the initializer runs once
    # per process and call.
    global _RUN
    if _RUN != run:
        if initializer is not None:
            initializer()
        _RUN = run
    return _run_task(fn, index, task, None if sink is None else sink.put_nowait)


# --- in the parent -----------------------------------------------------------------------

class _Progress:
    """The parent's tally: forwards counts to `on_progress`, tops a task up to its total
    when it finishes and ignores what still arrives for it after that. The top-up is
    negative when Ray ran a task again after its worker died and both runs counted."""

    def __init__(self, on_progress: Callable[[int], None] | None):
        self.on_progress = on_progress
        self.shown: dict[int, int] = {}
        self.finished: set[int] = set()

    def counted(self, index: int, n: int) -> None:
        if index not in self.finished:
            self.shown[index] = self.shown.get(index, 0) + n
            self.on_progress(n)

    def task_done(self, index: int, total: int) -> None:
        self.finished.add(index)
        rest = total - self.shown.pop(index, 0)
        if rest and self.on_progress is not None:
            self.on_progress(rest)


def _run_here(fn, tasks: list, on_progress, initializer) -> Iterator[tuple[int, Any]]:
    if initializer is not None:
        initializer()
    report = (lambda n=1: on_progress(n)) if on_progress is not None else (lambda n=1: None)
    for index, task in enumerate(tasks):
        yield index, fn(task, report)


@contextlib.contextmanager
def _fast_blas_for_workers():
    """Start worker processes with the fast BLAS preloaded on Linux (`blas.preloaded`: Debian's
    OpenBLAS or MKL, and MKL's sequential layer): MLX ships a slow reference BLAS there, and
    the student decides about 10x faster on a fast one. A preload only works from process
    start, and spawned workers start here, so the parent sets the variables while they start
    and restores them after. The same switch as training's: OPENLANDLORD_BLAS=bundled opts out."""
    changed = {k: v for k, v in blas.preloaded(os.environ).items() if os.environ.get(k) != v}
    saved = {k: os.environ.get(k) for k in changed}
    os.environ.update(changed)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _run_pool(fn, tasks: list, workers: int, on_progress, initializer) -> Iterator[tuple[int, Any]]:
    context = multiprocessing.get_context("spawn")
    sink = context.Queue() if on_progress is not None else None
    progress = _Progress(on_progress)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_start_pool_worker, initargs=(sink, initializer))
    running: set = set()
    finished = False
    try:
        with _fast_blas_for_workers():      # the workers start as the tasks are submitted
            index_of = {pool.submit(_pool_task, fn, i, task): i for i, task in enumerate(tasks)}
        running = set(index_of)
        while running:
            done, running = wait(running, timeout=_POLL, return_when=FIRST_COMPLETED)
            while sink is not None:
                try:
                    progress.counted(*sink.get_nowait())
                except queue.Empty:
                    break
            for future in done:
                if future.exception() is not None:
                    raise future.exception()
                result, total = future.result()
                progress.task_done(index_of[future], total)
                yield index_of[future], result
        finished = True
    finally:
        # Stopped early (a task failed, the caller closed the iterator, an interrupt, even one
        # that came while the tasks were being submitted): stop the workers, don't wait.
        if not finished:
            # ProcessPoolExecutor has no public way to stop running tasks before Python
            # 3.14 (terminate_workers); a failed call must not wait for them. The processes
            # are read first: shutdown() drops the executor's list of them.
            processes = list((pool._processes or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
        pool.shutdown(wait=True)
        if sink is not None:
            sink.close()
            sink.cancel_join_thread()


PARENT_FD = "OPENLANDLORD_PARENT_FD"


def stop_with_parent() -> None:
    """Called by the CLI as a command starts: a command run by another (a `ship` step) stops
    when that one is gone, killed or not. The parent passes the read end of a pipe whose write
    end only it holds, named by OPENLANDLORD_PARENT_FD; the pipe reads end-of-file once the
    parent exits, and this process then sends itself SIGTERM, which the CLI turns into its
    cleanup (workers stopped, locks released) as for a SIGTERM from outside. A `ship` that got
    SIGKILL left its running step computing to the end, holding its outputs' locks against
    the rerun."""
    fd = os.environ.pop(PARENT_FD, None)
    if fd is None or threading.current_thread() is not threading.main_thread():
        return
    try:
        fd = int(fd)
        os.fstat(fd)
    except (ValueError, OSError):
        return

    def watch() -> None:
        try:
            while os.read(fd, 1):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="stop-with-parent", daemon=True).start()


def _import_ray():
    try:
        import ray
    except ImportError:
        raise UserError(f"--backend ray needs Ray, which is not installed: {RAY_INSTALL}") from None
    return ray


def _connect(ray, address: str | None, workers: int | None) -> bool:
    """Connect this process to Ray; True when this call connected it (and must disconnect:
    `ray.shutdown` stops a local instance it started, and only leaves a cluster)."""
    if ray.is_initialized():
        return False
    if address is None:
        with _fast_blas_for_workers():      # the local instance's workers inherit it
            ray.init(address="local", num_cpus=workers, include_dashboard=False,
                     logging_level="WARNING")
        return True
    try:
        ray.init(address=address, logging_level="WARNING")
    except (ConnectionError, RuntimeError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        hint = ("" if os.environ.get("RAY_AUTH_MODE") == "token" else
                "; if it uses token authentication (Ray's default for new clusters), set "
                "RAY_AUTH_MODE=token and its token in RAY_AUTH_TOKEN or ~/.ray/auth_token")
        raise UserError(f"--address {address}: cannot join the Ray cluster ({reason}){hint}") from None
    return True


def _check_answers(address: str) -> None:
    """UserError unless something listens where `address` points. ray.init retries an
    address where nothing answers for minutes (for "auto" too, when it points at a cluster
    that died without `ray stop`)."""
    host, _, port = _where(address).rpartition(":")
    if "://" in address or not (host and port.isdigit()):
        return      # a Ray Client address, or one ray.init will reject itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as exc:
        raise UserError(f"--address {address}: no Ray cluster answers at {host}:{port} "
                        f"({exc.strerror or exc}); start one with `ray start --head` "
                        "or fix the address") from None


def _where(address: str) -> str:
    """HOST:PORT of the cluster `address` names ("auto": the one Ray would join, found
    from RAY_ADDRESS or the last `ray start` on this machine); unchanged if Ray cannot say."""
    if address != "auto":
        return address
    try:
        # Private: Ray has no public call that says where "auto" points.
        from ray._private.services import canonicalize_bootstrap_address
        return canonicalize_bootstrap_address(address) or address
    except ImportError:
        return address
    except ConnectionError:
        raise UserError("--address auto: no running Ray cluster found on this machine; "
                        "start one with `ray start --head` or give HOST:PORT") from None


def _run_ray(ray, fn, tasks: list, workers: int | None, address: str | None, on_progress,
             initializer) -> Iterator[tuple[int, Any]]:
    from ray.exceptions import RaySystemError, RayTaskError
    from ray.util.queue import Queue

    connected = _connect(ray, address, workers)
    sink = None
    running: dict = {}
    try:
        if on_progress is not None:
            sink = Queue(actor_options={"num_cpus": 0})
        progress = _Progress(on_progress)
        remote = ray.remote(num_cpus=1)(_ray_task)
        run = uuid.uuid4().hex
        waiting = list(enumerate(tasks))[::-1]
        limit = workers or len(tasks)
        while waiting or running:
            while waiting and len(running) < limit:
                index, task = waiting.pop()
                running[remote.remote(run, initializer, sink, fn, index, task)] = index
            done, _ = ray.wait(list(running), num_returns=1, timeout=_POLL)
            if sink is not None and (ready := sink.size()):
                for message in sink.get_nowait_batch(ready):
                    progress.counted(*message)
            for ref in done:
                index = running.pop(ref)
                try:
                    result, total = ray.get(ref)
                except RayTaskError as error:
                    cause = error.cause
                    if isinstance(cause, RaySystemError) and "No module named" in str(cause):
                        # The worker could not unpickle fn or the task.
                        missing = str(cause).splitlines()[0].removeprefix("System error: ")
                        raise UserError(
                            f"a Ray worker cannot run {fn.__module__}.{fn.__qualname__} "
                            f"({missing}); every node of the cluster needs openlandlord "
                            "installed, the same version as here") from None
                    raise cause from error
                progress.task_done(index, total)
                yield index, result
    finally:
        for ref in running:
            ray.cancel(ref, force=True)
        if sink is not None:
            sink.shutdown(force=True)
        if connected:
            ray.shutdown()

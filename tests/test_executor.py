"""openlandlord.executor: the same tasks give the same results in this process, over a local
process pool and on Ray; progress counts add up; a failing task fails the call with its own
exception; bad settings are one UserError.

The Ray tests run against the real head node on 127.0.0.1 that the session's `ray_head`
fixture starts (tests/conftest.py says how it starts and stops it). They are skipped only
when Ray is not installed and CI is unset; on CI a missing Ray fails them.
"""
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from openlandlord.errors import UserError
from openlandlord.executor import BACKENDS, run_tasks
from openlandlord.games.doudizhu import Game

from conftest import _free_ports


# --- the workloads (top level: worker processes import them) ----------------------------------

def play_random_games(seeds, report):
    """Seeded Dou Dizhu deals played out with seeded random moves; the payoffs of each."""
    payoffs = []
    for seed in seeds:
        game, rng = Game.new(seed), np.random.default_rng(seed)
        while not game.done:
            legal = game.legal_moves()
            game.play(legal[int(rng.integers(len(legal)))])
        payoffs.append([float(p) for p in game.payoffs()])
        report(1)
    return payoffs


def count_slowly(units, report):
    """`units` units a tenth of a second apart: long enough to send progress mid-task."""
    for _ in range(units):
        time.sleep(0.1)
        report(1)
    return units


def fail_on_three(task, report):
    if task == 3:
        raise ValueError(f"task {task} is bad")
    report(1)
    return task


GAME_TASKS = [list(range(start, start + 3)) for start in range(0, 24, 3)]  # 8 tasks, 24 games


def collect(**kwargs):
    """Results in task order and the progress total of one call."""
    counted = []
    results = dict(run_tasks(kwargs.pop("fn", play_random_games), kwargs.pop("tasks", GAME_TASKS),
                             on_progress=counted.append, **kwargs))
    return [results[i] for i in sorted(results)], sum(counted)


@pytest.fixture(scope="module")
def here():
    return collect(workers=1)


# --- local -----------------------------------------------------------------------------------

def test_local_pool_plays_the_same_games_as_one_process(here):
    results, games = here
    assert games == 24 and len(results) == len(GAME_TASKS)
    assert all(sum(p) == 0 for task in results for p in task)   # zero-sum: real games were played
    assert collect(workers=2) == here


def test_progress_adds_up_with_messages_sent_mid_task():
    counted = []
    results = dict(run_tasks(count_slowly, [6, 1, 5, 0], workers=2, on_progress=counted.append))
    assert results == {0: 6, 1: 1, 2: 5, 3: 0}
    assert sum(counted) == 12
    assert len(counted) > 4      # some counts arrived while their task was still running


def test_results_come_with_their_task_index_as_they_finish():
    finished = [i for i, _ in run_tasks(count_slowly, [8, 0], workers=2)]
    assert finished == [1, 0]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_task_fails_the_call_with_its_exception(workers):
    with pytest.raises(ValueError, match="task 3 is bad"):
        list(run_tasks(fail_on_three, range(6), workers=workers))


def sleep_or_fail(seconds, report):
    if seconds == 0:
        time.sleep(1.0)     # the sleeper starts first
        raise ValueError("this task is bad")
    time.sleep(seconds)
    return seconds


def test_a_failure_stops_the_running_tasks_rather_than_wait_for_them():
    started = time.monotonic()
    with pytest.raises(ValueError, match="this task is bad"):
        list(run_tasks(sleep_or_fail, [30, 0], workers=2))
    assert time.monotonic() - started < 15


def sleep_long_or_fail(task, report):
    kind, path = task
    if kind == "fail":
        time.sleep(1.0)     # the sleeper starts first
        raise ValueError("this task is bad")
    Path(path).write_text(str(os.getpid()))
    time.sleep(60)


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (not gone, not a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads process states from /proc")
def test_a_failure_stops_the_running_worker_processes_regression(tmp_path):
    """A failed call returned at once, but its running tasks' workers were never stopped: the
    pool's shutdown dropped its list of processes before the loop that terminates them read
    it, so they ran their tasks to the end (an interrupted `generate` left two searching)."""
    pid_file = tmp_path / "pid"
    with pytest.raises(ValueError, match="this task is bad"):
        list(run_tasks(sleep_long_or_fail, [("sleep", str(pid_file)), ("fail", "")], workers=2))
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid), "the sleeping task's worker outlived the failed call"


def write_pid_and_sleep(path, report):
    Path(path).write_text(str(os.getpid()))
    time.sleep(60)


_KILLED_PARENT = """
import sys
sys.path.insert(0, sys.argv[1])
from test_executor import write_pid_and_sleep
from openlandlord.executor import run_tasks
list(run_tasks(write_pid_and_sleep, sys.argv[2:], workers=2))
"""


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads process states from /proc")
def test_a_killed_parent_takes_its_worker_processes_with_it_regression(tmp_path):
    """SIGKILL on a command (nothing can clean up in it) left its pool's workers running their
    tasks to the end: a killed `generate` kept two cores searching for minutes. Each worker
    now exits once its parent is gone."""
    pid_files = [tmp_path / "a", tmp_path / "b"]
    parent = subprocess.Popen([sys.executable, "-c", _KILLED_PARENT, str(Path(__file__).parent),
                               *map(str, pid_files)])
    try:
        deadline = time.monotonic() + 60
        while not all(f.is_file() and f.read_text() for f in pid_files):
            assert time.monotonic() < deadline and parent.poll() is None, "the workers never started"
            time.sleep(0.05)
        pids = [int(f.read_text()) for f in pid_files]
        assert all(_running(pid) for pid in pids)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 10
        while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_running(pid) for pid in pids), "a worker outlived its killed parent"
    finally:
        parent.kill()


_STARTED_BY = None     # in each process: the pid that ran `note_start` there


def note_start():
    global _STARTED_BY
    _STARTED_BY = os.getpid()


def started_here(task, report):
    return _STARTED_BY == os.getpid()


@pytest.mark.parametrize("workers", [1, 2])
def test_the_initializer_runs_in_every_process_that_runs_tasks(workers, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "_STARTED_BY", None)
    ran = dict(run_tasks(started_here, range(4), workers=workers, initializer=note_start))
    assert ran == {i: True for i in range(4)}


@pytest.mark.parametrize("settings, message", [
    ({"backend": "dask"}, "unknown backend 'dask'; choose one of local, ray"),
    ({"workers": 0}, "--workers must be at least 1, got 0"),
    ({"address": "auto"}, "--address auto needs --backend ray"),
])
def test_bad_settings_are_one_user_error(settings, message):
    with pytest.raises(UserError) as error:
        run_tasks(fail_on_three, [1], **settings)
    assert str(error.value) == message
    assert BACKENDS == ("local", "ray")


def test_ray_missing_is_a_user_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)    # `import ray` now raises ImportError
    with pytest.raises(UserError, match=r"pip install 'openlandlord\[ray\]'"):
        run_tasks(fail_on_three, [1], backend="ray")


def test_the_local_backend_never_imports_ray():
    code = ("import sys; from openlandlord.executor import run_tasks; "
            "assert dict(run_tasks(lambda t, report: t * 2, [1, 2], workers=1)) == {0: 2, 1: 4}; "
            "assert 'ray' not in sys.modules, 'ray imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --- Ray -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ray_address(ray_head):
    """The session's Ray head (tests/conftest.py), with this module's functions shipped to its
    workers by value: they cannot import a test module by name (tests/ is not on their path);
    openlandlord they import from the install."""
    import ray.cloudpickle
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield ray_head
    ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_ray_plays_the_same_games_as_local_processes(ray_address, here):
    assert collect(backend="ray", address=ray_address, workers=2) == here
    assert collect(backend="ray", address=ray_address) == here      # no cap: all tasks in flight


def test_ray_counts_progress_sent_mid_task(ray_address):
    counted = []
    results = dict(run_tasks(count_slowly, [6, 1, 5, 0], backend="ray", address=ray_address,
                             on_progress=counted.append))
    assert results == {0: 6, 1: 1, 2: 5, 3: 0}
    assert sum(counted) == 12
    assert len(counted) > 4


def test_ray_a_failing_task_fails_the_call_with_its_exception(ray_address):
    with pytest.raises(ValueError, match="task 3 is bad"):
        list(run_tasks(fail_on_three, range(6), backend="ray", address=ray_address, workers=2))


def test_ray_an_unreachable_address_is_a_user_error_before_anything_runs(ray_installed):
    port = _free_ports(1)[0]
    with pytest.raises(UserError, match=f"--address 127.0.0.1:{port}: no Ray cluster answers"):
        run_tasks(fail_on_three, [1], backend="ray", address=f"127.0.0.1:{port}")


def test_ray_workers_that_cannot_import_the_task_are_a_user_error(ray_address, tmp_path, monkeypatch):
    (tmp_path / "only_on_the_driver.py").write_text("def double(task, report):\n    return 2 * task\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from only_on_the_driver import double
    assert dict(run_tasks(double, [4])) == {0: 8}
    with pytest.raises(UserError, match="cannot run only_on_the_driver.double .*every node"):
        list(run_tasks(double, [4], backend="ray", address=ray_address))

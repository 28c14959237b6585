"""openlandlord.executor: the same tasks give the same results in this process, over a local
process pool and on Ray; progress counts add up; a failing task fails the call with its own
exception; bad settings are one UserError.

The Ray tests run against a real head node that the `ray_head` fixture starts on 127.0.0.1
with `ray start --head` (free ports, its own temp dir, two CPUs, loopback only, a token of
its own) in a new session: every Ray process it spawns is in that session's process group
(GCS, raylet, agents) or descends from one that is (the workers our tasks run in, which
start in sessions of their own as children of the raylet). The fixture tears the head
down by signalling those processes, each by its pid, and fails if any survives: `ray stop
--force` would kill every Ray process of this user on the machine by name, other people's
included. The Ray tests are skipped only when Ray is not installed and CI is unset; on CI
(`pip install -e '.[test]'` brings Ray) a missing Ray fails them.
"""
import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from openlandlord.errors import UserError
from openlandlord.executor import BACKENDS, run_tasks
from openlandlord.games.doudizhu import Game


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

def _free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _processes() -> dict[int, tuple[int, int, str, str]]:
    """Every running process (zombies excluded): pid -> (ppid, pgid, start time, name)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name, fields = stat[:stat.rindex(")") + 1], stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":        # fields after "pid (comm)": state, ppid, pgrp, ... start
            table[int(entry.name)] = (int(fields[1]), int(fields[2]), fields[19], name)
    return table


def _family(pgid: int) -> dict[int, tuple]:
    """The processes of group `pgid` and all their descendants (Ray's workers start in
    sessions of their own, children of the raylet)."""
    table = _processes()
    family = {pid: row for pid, row in table.items() if row[1] == pgid}
    grown = True
    while grown:
        children = {pid: row for pid, row in table.items() if row[0] in family and pid not in family}
        family.update(children)
        grown = bool(children)
    return family


def _stop_family(pgid: int) -> None:
    """SIGTERM, then SIGKILL, to the group `pgid` started and everything it spawned, each
    by its pid; fails if any of them survives."""
    family = _family(pgid)

    def alive():
        now = _processes()
        return [row[3] for pid, row in family.items() if now.get(pid, (0, 0, None))[2] == row[2]]

    # GCS, raylet and two agents sit out SIGTERM for well over 8 s: a second is grace enough
    # for the rest (the workers) before SIGKILL.
    for sig, grace in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 5.0)):
        for pid, row in family.items():
            if _processes().get(pid, (0, 0, None))[2] == row[2]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while alive() and time.monotonic() < deadline:
            time.sleep(0.1)
    assert not alive(), f"Ray processes left running: {alive()}"


@pytest.fixture(scope="module")
def ray_installed():
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI"):
            pytest.fail("Ray is not installed on CI: the test extra must bring it")
        pytest.skip("Ray is not installed (pip install 'openlandlord[ray]')")


@pytest.fixture(scope="module")
def ray_head(ray_installed, tmp_path_factory):
    """The address of a Ray head on 127.0.0.1, two CPUs, torn down after the module."""
    # Ray's settings for the head and for this process, its driver: loopback only (Ray's
    # single-machine mode, the default on macOS; on Linux it would swap 127.0.0.1 for the
    # machine's network address; read when ray is first imported, below) and a token of
    # the test's own (new clusters require one; this keeps ~/.ray/auth_token out of it).
    settings = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token",
                "RAY_AUTH_TOKEN": os.urandom(16).hex(), "RAY_USAGE_STATS_ENABLED": "0"}
    names = ["--port", "--dashboard-agent-listen-port", "--dashboard-agent-grpc-port",
             "--runtime-env-agent-port", "--metrics-export-port", "--object-manager-port",
             "--node-manager-port", "--dashboard-port"]
    ports = dict(zip(names, _free_ports(len(names))))
    ray_cli = Path(sys.executable).with_name("ray")
    command = [str(ray_cli if ray_cli.exists() else "ray"), "start", "--head",
               "--node-ip-address", "127.0.0.1", "--num-cpus", "2", "--disable-usage-stats",
               "--include-dashboard=false", "--temp-dir", str(tmp_path_factory.mktemp("ray")),
               *[str(x) for pair in ports.items() for x in pair]]
    with pytest.MonkeyPatch.context() as env:
        for name, value in settings.items():
            env.setenv(name, value)
        import ray.cloudpickle
        # Ray workers cannot import this test module by name (tests/ is not on their
        # path): ship its functions by value. openlandlord they import from the install.
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
        starter = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        pgid = starter.pid      # the new session's group: every Ray process started from it
        try:
            output, _ = starter.communicate(timeout=60)
            assert starter.returncode == 0, f"ray start failed:\n{output}"
            yield f"127.0.0.1:{ports['--port']}"
        finally:
            ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
            _stop_family(pgid)


def test_ray_plays_the_same_games_as_local_processes(ray_head, here):
    assert collect(backend="ray", address=ray_head, workers=2) == here
    assert collect(backend="ray", address=ray_head) == here      # no cap: all tasks in flight


def test_ray_counts_progress_sent_mid_task(ray_head):
    counted = []
    results = dict(run_tasks(count_slowly, [6, 1, 5, 0], backend="ray", address=ray_head,
                             on_progress=counted.append))
    assert results == {0: 6, 1: 1, 2: 5, 3: 0}
    assert sum(counted) == 12
    assert len(counted) > 4


def test_ray_a_failing_task_fails_the_call_with_its_exception(ray_head):
    with pytest.raises(ValueError, match="task 3 is bad"):
        list(run_tasks(fail_on_three, range(6), backend="ray", address=ray_head, workers=2))


def test_ray_an_unreachable_address_is_a_user_error_before_anything_runs(ray_installed):
    port = _free_ports(1)[0]
    with pytest.raises(UserError, match=f"--address 127.0.0.1:{port}: no Ray cluster answers"):
        run_tasks(fail_on_three, [1], backend="ray", address=f"127.0.0.1:{port}")


def test_ray_workers_that_cannot_import_the_task_are_a_user_error(ray_head, tmp_path, monkeypatch):
    (tmp_path / "only_on_the_driver.py").write_text("def double(task, report):\n    return 2 * task\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from only_on_the_driver import double
    assert dict(run_tasks(double, [4])) == {0: 8}
    with pytest.raises(UserError, match="cannot run only_on_the_driver.double .*every node"):
        list(run_tasks(double, [4], backend="ray", address=ray_head))

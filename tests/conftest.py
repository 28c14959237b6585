"""Shared test fixtures: a real Ray head on 127.0.0.1 for the `--backend ray` tests.

`ray_head` starts it with `ray start --head` (free ports, its own temp dir, two CPUs, loopback
only, a token of its own) in a new session: every Ray process it spawns is in that session's
process group (GCS, raylet, agents) or descends from one that is (the workers our tasks run
in, which start in sessions of their own as children of the raylet). It is torn down at the
end of the test session by signalling those processes, each by its pid, and fails if any
survives: `ray stop --force` would kill every Ray process of this user on the machine by
name, other people's included. One head serves the whole session: Ray's client keeps the
first head's token for the process, so a second head would be unreachable. The Ray tests
are skipped only when Ray is not installed and CI is unset; on CI a missing Ray fails them.
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

import pytest


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


@pytest.fixture(scope="session")
def ray_installed():
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI"):
            pytest.fail("Ray is not installed on CI: the test extra must bring it")
        pytest.skip("Ray is not installed (pip install 'openlandlord[ray]')")


@pytest.fixture(scope="session")
def ray_head(ray_installed, tmp_path_factory):
    """The address of a Ray head on 127.0.0.1, two CPUs, shared by every Ray test of the
    session (one head, one token) and torn down at its end."""
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
        import ray  # noqa: F401  (first imported here, after the settings above)
        starter = subprocess.Popen(command, start_new_session=True, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        pgid = starter.pid      # the new session's group: every Ray process started from it
        try:
            output, _ = starter.communicate(timeout=60)
            assert starter.returncode == 0, f"ray start failed:\n{output}"
            yield f"127.0.0.1:{ports['--port']}"
        finally:
            _stop_family(pgid)


@pytest.fixture(autouse=True, scope="session")
def _records_and_ranking_in_a_temporary_folder(tmp_path_factory):
    """Game records (`play`, `eval`, `serve`) and ranking points written by tests go to a
    temporary folder, never into the checkout's data/runs/."""
    folder = tmp_path_factory.mktemp("runs")
    saved = {k: os.environ.get(k) for k in ("OPENLANDLORD_RECORDS", "OPENLANDLORD_RANKING")}
    os.environ.setdefault("OPENLANDLORD_RECORDS", str(folder / "records"))
    os.environ.setdefault("OPENLANDLORD_RANKING", str(folder / "ranking.json"))
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def load_example():
    """`load_example(NAME)`: docs/examples/NAME.py imported as a module (a fresh one each call),
    the loader every example's test shares; `register=True` also puts it in sys.modules under
    NAME (for an example whose agent factory is looked up by module name)."""
    def load(name: str, register: bool = False):
        path = Path(__file__).resolve().parent.parent / "docs" / "examples" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        if register:
            sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return load


@pytest.fixture(scope="session")
def shengji_random_data(tmp_path_factory):
    """A small Shengji dataset (20 `tractor` deals of the random teacher, seed 5): the decisions
    the docs/examples measuring scripts are tested on."""
    from openlandlord.cli import main

    out = tmp_path_factory.mktemp("shengji-random") / "data"
    assert main(["generate", "--game", "shengji", "--teacher", "random", "--deals", "20",
                 "--out", str(out), "--workers", "1", "--seed", "5"]) == 0
    return str(out)

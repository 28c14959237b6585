"""Outputs are written by one process at a time, whole or not at all, and nothing finished is
replaced without --force (openlandlord.artefacts): a named `*_regression` test for each way
data was once lost, and kill-mid-write tests that SIGKILL a real writer while it writes
(the OPENLANDLORD_CRASH_AT fault injection) and check what the next run does."""
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from openlandlord import artefacts
from openlandlord.cli import main
from openlandlord.errors import UserError

ROOT = Path(__file__).resolve().parent.parent
TINY = ["batch_size=32", "lr=0.005", "warmup_steps=5", "log_every=2", "eval_batch_size=64",
        "model.d_model=16", "model.ff=32", "model.layers=1", "model.heads=2", "model.adapter_rank=2"]


def cli(*args, crash_at=None, env=None, check=None):
    """Run `openlandlord ARGS` as its own process (a real writer that can be killed)."""
    env = {**os.environ, **(env or {})}
    env.pop(artefacts.CRASH_ENV, None)
    if crash_at:
        env[artefacts.CRASH_ENV] = crash_at
    proc = subprocess.run([sys.executable, "-m", "openlandlord.cli", *map(str, args)], env=env,
                          capture_output=True, text=True, cwd=ROOT)
    if check is not None:
        assert proc.returncode == check, (proc.returncode, proc.stderr[-2000:])
    return proc


def train_args(data, out, epochs, *extra):
    args = ["train", "--data", data, "--out", out, "--epochs", epochs]
    for item in TINY:
        args += ["--set", item]
    return [*args, *extra]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    out = tmp_path_factory.mktemp("rel") / "data"
    assert main(["generate", "--game", "doudizhu", "--teacher", "random", "--deals", "8",
                 "--out", str(out), "--workers", "1", "--seed", "5"]) == 0
    return str(out)


# --- one writer per output -------------------------------------------------------------------

def _hold(path) -> subprocess.Popen:
    """Another process holding the lock of `path` until killed."""
    code = ("import sys, time; from openlandlord import artefacts; "
            f"lock = artefacts.exclusive({str(path)!r}, 'x'); print('held', flush=True); time.sleep(600)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_second_generate_into_one_out_is_refused_at_once_regression(tmp_path, capsys):
    # Regression: a second `generate` into the same --out (other arguments, 1 s later)
    # silently replaced the first one's data; with the same arguments it deleted the first
    # one's in-flight shard. Now the second is refused at once, naming the first.
    out = tmp_path / "data"
    first = subprocess.Popen([sys.executable, "-m", "openlandlord.cli", "generate", "--teacher",
                              "pimc:worlds=2", "--deals", "12", "--workers", "1", "--seed", "1",
                              "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    lock = artefacts.lock_path(out)
    deadline = time.time() + 60
    while not lock.exists() and first.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert first.poll() is None, "the first run ended before it could be raced"
    for teacher, seed in (("pimc:worlds=2", "1"), ("random", "2")):   # the same arguments, then others
        started = time.perf_counter()
        status = main(["generate", "--teacher", teacher, "--deals", "12", "--workers", "1",
                       "--seed", seed, "--out", str(out)])
        err = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and len(err) == 1, err
        assert f"PID {first.pid}" in err[0] and "openlandlord generate" in err[0], err
        assert time.perf_counter() - started < 5
    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr[-2000:]
    from openlandlord.distill import dataset
    assert dataset.open(str(out)).manifest["teacher"].startswith("pimc")
    assert not lock.exists()


@pytest.mark.parametrize("argv,flag", [
    (["train", "--data", "{data}", "--out", "{out}"], "--out"),
    (["export", "--checkpoint", "data/models/doudizhu", "--out", "{out}.onnx"], "--out"),
    (["eval", "--agent", "random", "--opponent", "random", "--deals", "1", "--json", "{out}.json"], "--json"),
    (["eval", "--agent", "random", "--opponent", "random", "--deals", "1", "--report", "{out}"], "--report"),
    (["league", "--agents", "random", "rule", "--deals", "1", "--json", "{out}.json"], "--json"),
    (["bench", "fuzz", "--seconds", "1", "--json", "{out}.json"], "--json"),
    (["quickstart", "--out", "{out}"], "--out"),
])
def test_every_writer_refuses_a_second_writer_regression(argv, flag, data, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(tmp_path / "ledger.jsonl"))
    out = tmp_path / "busy"
    argv = [a.format(data=data, out=out) for a in argv]
    target = argv[argv.index(flag) + 1]
    holder = _hold(target)
    try:
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"PID {holder.pid}" in err[0] and "is being written by" in err[0], err
    finally:
        holder.kill()
        holder.wait()
    assert not Path(target).exists() and not (tmp_path / "ledger.jsonl").exists()


def test_ship_refuses_a_second_writer(tmp_path, capsys):
    from openlandlord.distill import ship

    holder = _hold(tmp_path / "work")
    try:
        assert ship.main(["--out", str(tmp_path / "work"), "--quick"]) == 2
        assert f"PID {holder.pid}" in capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_leaves_no_lock(tmp_path):
    # The kernel drops a flock when its holder dies: the lock file may stay, the lock does not.
    path = tmp_path / "never-written"
    holder = _hold(path)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    with artefacts.exclusive(path, "--out"):
        pass
    assert not artefacts.lock_path(path).exists()


# --- nothing finished replaced without --force ------------------------------------------------

def test_train_onto_a_finished_student_is_refused_regression(data, tmp_path, capsys):
    # Regression: `train --out` onto a copy of data/models/doudizhu overwrote it silently and
    # left its results.json describing the old model.
    copy = tmp_path / "shipped"
    shutil.copytree(ROOT / "data" / "models" / "doudizhu", copy)
    before = {p.name: p.read_bytes() for p in copy.iterdir()}
    assert main(train_args(data, str(copy), "1")) == 2
    assert "already holds a finished student" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    assert main(train_args(data, str(tmp_path / "other"), "1")) == 2
    assert "files this command did not make (notes.txt)" in capsys.readouterr().err
    assert main(train_args(data, str(copy), "1", "--force")) == 0
    assert not (copy / "results.json").exists()
    assert json.loads((copy / "config.json").read_text())["dataset"] == data


def test_export_never_deletes_an_existing_folder_regression(tmp_path, capsys):
    # Regression: `export --out X.mlpackage` deleted any folder of that name, whatever it held.
    package = tmp_path / "X.mlpackage"
    package.mkdir()
    (package / "precious.txt").write_text("keep me")
    assert main(["export", "--checkpoint", "data/models/doudizhu", "--out", str(package)]) == 2
    assert "pass --force" in capsys.readouterr().err
    assert (package / "precious.txt").read_text() == "keep me"
    onnx = tmp_path / "s.onnx"
    onnx.write_bytes(b"old")
    assert main(["export", "--checkpoint", "data/models/doudizhu", "--out", str(onnx)]) == 2
    assert onnx.read_bytes() == b"old"
    assert main(["export", "--checkpoint", "data/models/doudizhu", "--out", str(onnx), "--force"]) == 0
    assert onnx.stat().st_size > 10_000


def test_eval_outputs_are_not_replaced_without_force(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(tmp_path / "ledger.jsonl"))
    result = tmp_path / "r.json"
    result.write_text("{}")
    argv = ["eval", "--agent", "random", "--opponent", "random", "--deals", "1", "--json", str(result)]
    assert main(argv) == 2 and "pass --force" in capsys.readouterr().err
    assert result.read_text() == "{}" and not (tmp_path / "ledger.jsonl").exists()
    assert main(argv + ["--force"]) == 0
    assert json.loads(result.read_text())["deals"] == 1


def test_generate_force_replaces_another_run(tmp_path, capsys):
    out = str(tmp_path / "d")
    base = ["generate", "--teacher", "random", "--deals", "2", "--workers", "1", "--out", out]
    assert main(base + ["--seed", "1"]) == 0
    assert main(base + ["--seed", "2"]) == 2 and "pass --force" in capsys.readouterr().err
    assert main(base + ["--seed", "2", "--force"]) == 0
    assert json.loads((tmp_path / "d" / "manifest.json").read_text())["seed"] == 2


def test_quickstart_refuses_a_folder_it_did_not_make(tmp_path, capsys):
    (tmp_path / "mine.txt").write_text("x")
    assert main(["quickstart", "--out", str(tmp_path)]) == 2
    assert "not a quickstart's" in capsys.readouterr().err and (tmp_path / "mine.txt").exists()


def test_ship_refuses_to_replace_a_student_it_did_not_ship(tmp_path, capsys):
    from openlandlord.distill import ship

    target = tmp_path / "models"
    shutil.copytree(ROOT / "data" / "models" / "doudizhu", target)
    assert ship.main(["--out", str(tmp_path / "work"), "--quick", "--ship", str(target)]) == 2
    assert "holds a student this run did not ship" in capsys.readouterr().err
    assert not (tmp_path / "work").exists()


# --- whole files: the ledger -----------------------------------------------------------------

def test_ledger_drops_a_torn_last_line_regression(tmp_path):
    from openlandlord.eval import ledger

    path = tmp_path / "ledger.jsonl"
    path.write_text('{"kind": "eval", "n": 1}\n{"kind": "ev')      # a writer killed mid-line
    assert [e["n"] for e in ledger.read(str(path))] == [1]
    artefacts.append_line(path, json.dumps({"kind": "eval", "n": 2}))
    assert path.read_text() == '{"kind": "eval", "n": 1}\n{"kind": "eval", "n": 2}\n'


def test_concurrent_ledger_appends_lose_no_line(tmp_path):
    path = tmp_path / "ledger.jsonl"

    def writer(k):
        for i in range(25):
            artefacts.append_line(path, json.dumps({"writer": k, "i": i}))
    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted((e["writer"], e["i"]) for e in lines) == [(k, i) for k in range(4) for i in range(25)]


# --- kill mid-write, then the next run --------------------------------------------------------

def test_killed_while_writing_the_final_student_the_rerun_repairs_it_regression(data, tmp_path):
    # Regression: killing `train --resume --epochs N` while it wrote the final top-level
    # weights left them truncated and config.json stale; the rerun said "nothing to do" and
    # play/export then failed on the broken file.
    from openlandlord.model import load_checkpoint

    out = tmp_path / "model"
    cli(*train_args(data, out, "1"), check=0)
    for crash, epochs in (("model/weights.safetensors", "2"), ("model/config.json", "3")):
        proc = cli(*train_args(data, out, epochs, "--resume"), crash_at=crash)
        assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
        if crash.endswith("config.json"):
            # new weights, old config.json: the pair is refused, never loaded as a mixed model
            with pytest.raises(UserError, match="SHA-256 differs"):
                load_checkpoint(str(out))
        proc = cli(*train_args(data, out, epochs, "--resume"), check=0)
        assert "restored it from epoch-000" + epochs in proc.stderr
        _, _, meta = load_checkpoint(str(out))
        assert meta["epoch"] == int(epochs)
        assert meta["weights_sha256"] == json.loads((out / "last" / "config.json").read_text())["weights_sha256"]
        assert not [p.name for p in out.iterdir() if ".tmp-" in p.name]    # the killed run's half files


def test_killed_while_writing_the_manifest_the_rerun_finishes(tmp_path):
    from openlandlord.distill import dataset

    out = tmp_path / "data"
    args = ["generate", "--teacher", "random", "--deals", "3", "--workers", "1", "--out", out]
    proc = cli(*args, crash_at="manifest.json")
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "manifest.json").exists()
    assert any(p.name.startswith(".manifest.json.tmp-") for p in out.iterdir())   # the half file
    cli(*args, check=0)
    assert dataset.open(str(out)).manifest["counts"]["deals"] == 3
    assert not [p.name for p in out.iterdir() if ".tmp" in p.name]


def test_killed_while_writing_eval_outputs_leaves_no_half_file(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    result = tmp_path / "r.json"
    args = ["eval", "--agent", "random", "--opponent", "random", "--deals", "2", "--json", result,
            "--report", tmp_path / "report", "--ledger", ledger]
    cli(*args, "--force", check=0)
    good = ledger.read_text()
    result.unlink()
    for crash in ("r.json", "ledger.jsonl"):
        proc = cli(*args, "--force", crash_at=crash)
        assert proc.returncode == -signal.SIGKILL
        assert ledger.read_text() == good                       # never half a line
        assert (tmp_path / "report" / "report.md").exists()     # the report swapped in whole
        if crash == "r.json":
            assert not result.exists()
        else:
            assert json.loads(result.read_text())["deals"] == 2
    from openlandlord.eval import ledger as ledger_module
    assert len(ledger_module.read(str(ledger))) == 1


def test_killed_while_exporting_leaves_no_package(tmp_path):
    out = tmp_path / "s.onnx"
    proc = cli("export", "--checkpoint", "data/models/doudizhu", "--out", out, crash_at="s.onnx")
    assert proc.returncode == -signal.SIGKILL and not out.exists()
    cli("export", "--checkpoint", "data/models/doudizhu", "--out", out, check=0)   # no --force needed
    assert out.stat().st_size > 10_000


def test_killed_while_swapping_a_folder_in_keeps_the_old_one(tmp_path):
    target = tmp_path / "pkg.mlpackage"
    target.mkdir()
    (target / "old").write_text("old")
    code = ("from openlandlord import artefacts\n"
            f"with artefacts.staged_folder({str(target)!r}, force=True) as s:\n"
            "    s.mkdir(); (s / 'new').write_text('new')\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                          env={**os.environ, artefacts.CRASH_ENV: "pkg.mlpackage"})
    assert proc.returncode == -signal.SIGKILL
    assert [p.name for p in target.iterdir()] == ["old"]
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True,
                   env={k: v for k, v in os.environ.items() if k != artefacts.CRASH_ENV})
    assert [p.name for p in target.iterdir()] == ["new"]
    assert [p.name for p in tmp_path.iterdir()] == ["pkg.mlpackage"]


def test_a_swap_killed_between_its_renames_is_repaired(tmp_path):
    # Killed after the old folder was moved aside, before the new one was moved in: the next
    # writer puts the old one back (and then needs --force to replace it, as always).
    target = tmp_path / "pkg.mlpackage"
    aside = tmp_path / ".pkg.mlpackage.old-4242"
    aside.mkdir()
    (aside / "old").write_text("old")
    with pytest.raises(UserError, match="pass --force"):
        with artefacts.staged_folder(target):
            pass
    assert (target / "old").read_text() == "old" and not aside.exists()


def test_resume_drops_a_metrics_line_torn_by_a_kill(tmp_path):
    from openlandlord.distill import metrics

    path = tmp_path / "metrics.jsonl"
    path.write_text('{"kind": "model"}\n{"kind": "epoch", "epoch": 1}\n{"kind": "step", "st')
    metrics.trim_metrics(path, epoch=1, step=10)
    assert path.read_text() == '{"kind": "model"}\n{"kind": "epoch", "epoch": 1}\n'


def _children(pid: int) -> set[int]:
    """The PIDs of the child processes of `pid` (Linux: /proc/PID/task/*/children)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found |= {int(x) for x in (task / "children").read_text().split()}
    return found


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (not gone, not a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


LINUX_PROC = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads child processes from /proc")


@LINUX_PROC
def test_sigterm_stops_generate_and_its_worker_processes_regression(tmp_path):
    """SIGTERM to `generate --workers 2` (a `kill`, a scheduler's stop) once ended the parent at
    once and left its two pool workers searching on without it, each until its shard was done
    (seen for 12 minutes, beside the rerun's own workers). Now the command stops its workers,
    says so and exits 143; what it finished stays for the rerun."""
    out = tmp_path / "g"
    proc = subprocess.Popen([sys.executable, "-m", "openlandlord.cli", "generate", "--game", "shengji",
                             "--teacher", "pimc:worlds=64", "--deals", "40", "--out", str(out),
                             "--workers", "2", "--seed", "3"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(2.0)                                  # the workers are inside their first tasks
    children = _children(proc.pid)
    assert proc.poll() is None and len(children) >= 2, "generate finished or never started its pool"
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143 and stderr.strip().splitlines()[-1] == "openlandlord: terminated"
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in children if _running(pid)], "worker processes outlived generate"
    assert not (out / "manifest.json").exists()


@LINUX_PROC
def test_an_interrupted_ship_step_terminates_its_command_regression(tmp_path, monkeypatch):
    """A ship step runs as a child command; interrupted, the ship once killed it (SIGKILL),
    which left that command's own worker processes running. Now the step gets SIGTERM, stops
    its workers and exits 143 (its own cleanup ran) before the ship stops."""
    from openlandlord.distill import ship
    spawned = []
    real = subprocess.Popen

    def popen(*args, **kwargs):
        spawned.append(real(*args, **kwargs))
        return spawned[-1]
    monkeypatch.setattr(ship.subprocess, "Popen", popen)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    def interrupt_once_the_step_has_workers(main_thread: int):
        deadline = time.monotonic() + 60
        while (not spawned or len(_children(spawned[0].pid)) < 2) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        signal.pthread_kill(main_thread, signal.SIGALRM)   # as Ctrl-C would, in the ship's thread
    previous = signal.signal(signal.SIGALRM, interrupt)
    threading.Thread(target=interrupt_once_the_step_has_workers, args=(threading.get_ident(),),
                     daemon=True).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ship.Driver(tmp_path).step("generate", [
                "openlandlord", "generate", "--game", "shengji", "--teacher", "pimc:worlds=64",
                "--deals", "40", "--out", str(tmp_path / "g"), "--workers", "2", "--seed", "3"], False)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert len(spawned) == 1 and spawned[0].returncode == 143


_KILLED_SHIP = """
import sys
from pathlib import Path
from openlandlord.distill import ship
out = Path(sys.argv[1])
ship.Driver(out).step("generate", ["openlandlord", "generate", "--game", "shengji", "--teacher",
                                   "pimc:worlds=64", "--deals", "40", "--out", str(out / "g"),
                                   "--workers", "2", "--seed", "3"], False)
"""


@LINUX_PROC
def test_a_killed_ship_stops_its_running_step_regression(tmp_path):
    """SIGKILL on `ship` (no cleanup can run in it) left its running step, a whole command
    such as `generate --workers 2`, computing to its end with its workers, and holding its
    outputs' locks against the rerun. Now the step sees its parent gone, stops its workers and
    exits as on SIGTERM."""
    parent = subprocess.Popen([sys.executable, "-c", _KILLED_SHIP, str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        steps: set = set()
        while time.monotonic() < deadline and parent.poll() is None:
            steps = _children(parent.pid)
            if steps and len(_children(next(iter(steps)))) >= 2:
                break
            time.sleep(0.05)
        time.sleep(1.0)                              # the workers are inside their first tasks
        assert parent.poll() is None and len(steps) == 1, "the step finished or never started"
        step = next(iter(steps))
        workers = _children(step)
        assert len(workers) >= 2
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 30
        while any(_running(pid) for pid in {step, *workers}) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(step), "the step outlived the killed ship"
        assert not [pid for pid in workers if _running(pid)], "the step's workers outlived it"
        assert not (tmp_path / "g" / "manifest.json").exists()
    finally:
        parent.kill()

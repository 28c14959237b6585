"""A new user's first run: the fast BLAS is found without root (or one line says how to get
it), a rerun quickstart keeps what its stages cost, and every command's help explains itself."""
import argparse
import json
import sys
from types import SimpleNamespace

from openlandlord import blas, quickstart
from openlandlord.agents import _FACTORIES
from openlandlord.cli import build_parser
from openlandlord.eval.dealsets import committed_names


def _fake_stages(monkeypatch, skipped: bool):
    def stage(name, args, done, log, env):
        log.append({"stage": name, "command": " ".join(args), "seconds": 0.0 if skipped else 5.0,
                    "skipped": skipped})
    monkeypatch.setattr(quickstart, "_stage", stage)


def test_blas_finds_the_pip_installed_mkl_regression(monkeypatch, tmp_path):
    # Regression: only Debian's OpenBLAS (root to install) was looked for, so the README's
    # pip-only first command trained on MLX's bundled BLAS, 2.4x slower end to end.
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libmkl_rt.so.3").write_bytes(b"")
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setattr(blas, "DEBIAN_OPENBLAS", str(tmp_path / "absent.so"))
    assert blas.find("auto") == str(tmp_path / "lib" / "libmkl_rt.so.3")
    assert blas.find("mkl") == blas.find("auto")
    assert blas.find("debian") is None and blas.find("bundled") is None


def test_quickstart_says_once_how_to_leave_the_slow_blas_regression(monkeypatch, tmp_path, capsys):
    # Regression: with only the bundled BLAS the quickstart took 1,169 s instead of 490 s, silently.
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(blas, "OPENBLAS", "")
    monkeypatch.delenv("OPENLANDLORD_BLAS", raising=False)
    _fake_stages(monkeypatch, skipped=False)
    assert quickstart.run(SimpleNamespace(game="doudizhu", out=str(tmp_path))) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if "BLAS" in line]
    assert len(notes) == 1
    assert "pip install mkl" in notes[0] and "apt-get install libopenblas0-pthread" in notes[0]


def test_no_blas_note_with_a_fast_blas_or_when_opted_out(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(blas, "OPENBLAS", "/some/libopenblas.so.0")
    assert blas.note() is None
    monkeypatch.setattr(blas, "OPENBLAS", "")
    monkeypatch.setenv("OPENLANDLORD_BLAS", "bundled")
    assert blas.note() is None


def test_a_rerun_keeps_the_first_runs_stage_timings_regression(monkeypatch, tmp_path):
    # Regression: rerunning a finished quickstart rewrote every stage's time as "skipped".
    _fake_stages(monkeypatch, skipped=False)
    quickstart.run(SimpleNamespace(game="doudizhu", out=str(tmp_path)))
    _fake_stages(monkeypatch, skipped=True)
    quickstart.run(SimpleNamespace(game="doudizhu", out=str(tmp_path)))
    stages = json.loads((tmp_path / "stages.json").read_text())["stages"]
    assert all(s["skipped"] and s["seconds"] == 5.0 for s in stages)
    assert "| train | 5.0 (an earlier run) |" in (tmp_path / "REPORT.md").read_text()
    quickstart.run(SimpleNamespace(game="doudizhu", out=str(tmp_path)))  # and a third run
    assert json.loads((tmp_path / "stages.json").read_text())["stages"][0]["seconds"] == 5.0


def test_report_links_the_eval_reports_and_pictures_regression(monkeypatch, tmp_path):
    # Regression: REPORT.md never pointed at the eval stages' own reports.
    (tmp_path / "stages.json").write_text('{"game": "doudizhu", "stages": []}')  # a quickstart's folder
    folder = tmp_path / "report-rule"
    folder.mkdir()
    for name in ("report.md", "scores.png", "roles.png"):
        (folder / name).write_bytes(b"")
    _fake_stages(monkeypatch, skipped=False)
    quickstart.run(SimpleNamespace(game="doudizhu", out=str(tmp_path)))
    report = (tmp_path / "REPORT.md").read_text()
    assert "[the full report](report-rule/report.md)" in report
    assert "(report-rule/scores.png)" in report and "(report-rule/roles.png)" in report
    assert "(report-rlcard/report.md)" not in report  # no folder, no link


def _subcommands():
    sub = next(a for a in build_parser()._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    return {name: parser for name, parser in sub.choices.items() if name != "ship"}


def test_every_subcommand_help_explains_itself_regression():
    # Regression: `--help` listed bare flags: no meanings, defaults, agents or deal sets.
    for name, parser in _subcommands().items():
        text = parser.format_help()
        assert "example:\n  openlandlord " + name in text, name
        for action in parser._actions:
            assert action.help, (name, action.dest)
            if action.option_strings and isinstance(action.default, (int, float, str)) \
                    and not isinstance(action.default, bool) and action.default != argparse.SUPPRESS:
                assert "default" in action.help or f"(default: {action.default})" in text, (name, action.dest)
    for name in ("eval", "league"):
        text = _subcommands()[name].format_help()
        assert "NAME[:ARGS]" in text
        assert all(agent in text for agent in _FACTORIES)
        assert all(deal_set in text for deal_set in committed_names())
    assert "'.[test]'" in _subcommands()["bench"].format_help()


def test_help_lists_are_built_only_when_help_is_shown():
    # The CLI stays thin: building the parser imports neither the agents nor the deal sets.
    import subprocess

    code = ("import sys; from openlandlord.cli import build_parser; build_parser(); "
            "print('openlandlord.agents' in sys.modules, 'openlandlord.eval.dealsets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_mkl_is_preloaded_sequential_regression(monkeypatch):
    # Regression: with MKL's default OpenMP layer, an evaluation against rlcard (whose process
    # also loads torch) ran the student at 103 ms a decision instead of 3.6 ms.
    from openlandlord import blas
    monkeypatch.setattr(blas, "OPENBLAS", "/env/lib/libmkl_rt.so.2")
    monkeypatch.setattr(blas, "wanted", lambda: True)
    env = blas.preloaded({})
    assert env["LD_PRELOAD"].startswith("/env/lib/libmkl_rt.so.2")
    assert env["MKL_THREADING_LAYER"] == "SEQUENTIAL"
    assert blas.preloaded({"MKL_THREADING_LAYER": "GNU"})["MKL_THREADING_LAYER"] == "GNU"

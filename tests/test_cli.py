"""The command line's contract: bad input is one line on stderr and exit status 2."""
import subprocess
import sys

from openlandlord.cli import main


def test_unknown_subcommand_exits_2(capsys):
    assert main(["nosuchcommand"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("openlandlord: error:")


def test_bad_number_exits_2(capsys):
    assert main(["eval", "--agent", "rule", "--opponent", "rule", "--deals", "many"]) == 2
    assert "invalid int value" in capsys.readouterr().err


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "openlandlord.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "quickstart" in out.stdout


def test_output_path_that_is_a_folder_is_one_line_not_a_traceback(tmp_path, capsys):
    # Regression: `eval --json DIR` used to end in an IsADirectoryError traceback.
    status = main(["eval", "--game", "doudizhu", "--agent", "random", "--opponent", "random",
                   "--deals", "1", "--workers", "1", "--json", str(tmp_path),
                   "--ledger", str(tmp_path / "ledger.jsonl")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and str(tmp_path) in err[0]


def test_counts_and_seconds_must_be_positive(capsys):
    # Regression: `bench referee --seconds -2` ran with a negative budget.
    assert main(["bench", "referee", "--seconds", "-2"]) == 2
    assert "must be above zero" in capsys.readouterr().err
    assert main(["generate", "--teacher", "rule", "--deals", "0", "--out", "x"]) == 2


def test_absurd_deal_counts_are_refused(capsys):
    # Regression: `eval --deals 1000000000000` ran out of memory with a traceback.
    assert main(["eval", "--agent", "random", "--opponent", "random", "--deals", "1000000000000"]) == 2
    assert "at most" in capsys.readouterr().err

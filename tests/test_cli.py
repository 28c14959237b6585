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

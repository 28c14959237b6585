"""Bad input is one line on stderr and exit status 2 (the CLI), or a UserError naming the
problem (the API), never a traceback and never silently accepted: a named `*_regression`
test for each input that once slipped through, and fuzz tests over random bad inputs."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from openlandlord.agents import make
from openlandlord.errors import UserError


# --- agent specs -----------------------------------------------------------------------------

@pytest.mark.parametrize("spec,problem", [
    ("random:seed=-1", "at least 0"),                               # numpy's ValueError before
    ("pimc:worlds=99999999999999999999", "between 1 and 65536"),    # overflowed the C int
    ("pimc:worlds=2147483648", "between 1 and 65536"),
    ("random:foo", "'foo'"),                                        # silently ignored before
    ("human:foo", "takes no argument"),
])
def test_agent_spec_regression(spec, problem):
    with pytest.raises(UserError, match=problem):
        make(spec, 0)


# --- the command line: one line on stderr, exit status 2 -------------------------------------

def _exits_2(capsys, argv, problem=None) -> str:
    """Run the CLI on `argv`; assert exit 2 and one stderr line (containing `problem`)."""
    from openlandlord.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert problem is None or problem in err[0], err
    return err[0]


@pytest.mark.parametrize("content", ['{"lr": NaN}', '{"lr": Infinity}', '{"lr": -0.1}',
                                     '{"grad_clip": -Infinity}', '{"target_temperature": NaN}'])
def test_train_config_nan_inf_negative_regression(content, tmp_path, capsys):
    # NaN compared false to every bound and trained to NaN weights before.
    path = tmp_path / "bad.json"
    path.write_text(content)
    out = tmp_path / "o"
    _exits_2(capsys, ["train", "--data", str(tmp_path / "none"), "--out", str(out),
                      "--config", str(path)], "training config")
    _exits_2(capsys, ["train", "--data", str(tmp_path / "none"), "--out", str(out),
                      "--set", content.strip("{}").replace('"', "").replace(": ", "=")],
             "training config")
    assert not out.exists()


# --- generate ----------------------------------------------------------------------------------

def test_generate_huge_deals_regression(tmp_path, capsys):
    # Built a list of every deal seed first: minutes of silence, then MemoryError.
    from distill.generate import MAX_DEALS

    for deals in ("1999999973", str(MAX_DEALS + 1)):
        _exits_2(capsys, ["generate", "--teacher", "random", "--deals", deals,
                          "--out", str(tmp_path / "o")], f"at most {MAX_DEALS:,}")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("temperature", ["inf", "nan", "-inf", "-1"])
def test_generate_temperature_inf_nan_regression(temperature, tmp_path, capsys):
    _exits_2(capsys, ["generate", "--teacher", "random", "--deals", "2", "--out", str(tmp_path / "o"),
                      f"--temperature={temperature}"], "--temperature must be a finite number")
    assert not (tmp_path / "o").exists()


def test_eval_overlap_reads_seeds_one_at_a_time_regression(tmp_path):
    from distill import seeds

    def run_seeds():
        yield from (1, 2, 3, seeds.EVAL_RESERVED.start + 1)
        raise AssertionError("read past the first evaluation seed: the seeds were listed")

    with pytest.raises(UserError, match="deal 3 would use seed 2000000001"):
        seeds.check_eval_overlap(run_seeds(), tmp_path)
    assert list(seeds.deal_seeds(7, 50)) == [seeds.deal_seed(7, i) for i in range(50)]


# --- eval and league outputs: checked before any game is played ------------------------------

def _bad_outputs(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    return [("--json", str(tmp_path), "is a directory"),
            ("--json", str(a_file / "sub" / "r.json"), "is a file"),
            ("--report", str(a_file), "is a file"),
            ("--report", str(a_file / "sub"), "is a file")]


@pytest.mark.parametrize("command", ["eval", "league"])
def test_eval_bad_output_path_before_playing_regression(command, tmp_path, capsys, monkeypatch):
    # Found only after the whole evaluation before.
    from openlandlord.eval import arena

    def no_games(*args, **kwargs):
        raise AssertionError("games were played before the output path was checked")

    monkeypatch.setattr(arena, "play_pairs", no_games)
    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(tmp_path / "ledger.jsonl"))
    agents = (["--agent", "random", "--opponent", "rule"] if command == "eval"
              else ["--agents", "random", "rule"])
    for flag, path, problem in _bad_outputs(tmp_path):
        _exits_2(capsys, [command, *agents, "--deals", "2", "--workers", "1", flag, path], problem)
    assert not (tmp_path / "ledger.jsonl").exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root may write anywhere: no permission to refuse")
def test_eval_output_without_permission_regression(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    _exits_2(capsys, ["eval", "--agent", "random", "--opponent", "rule", "--deals", "2",
                      "--json", str(locked / "r.json")], "no permission")


# --- the rlcard import race --------------------------------------------------------------------

def test_rlcard_first_import_with_two_workers_regression(tmp_path):
    # On a fresh install rlcard unpacks games/doudizhu/jsondata.zip on its first import; two
    # evaluation workers did so at once and one failed with `File exists: .../jsondata`.
    # The copy below widens that window (2 s between rlcard's check and its unpacking) and
    # logs each process that unpacks: exactly one may, the parent, before the workers start.
    rlcard = pytest.importorskip("rlcard")     # a third-party package, not the project's own
    fresh = tmp_path / "site"
    unpacked = os.path.join("games", "doudizhu")

    def without_unpacked(folder, names):
        return ["jsondata", "__pycache__"] if folder.endswith(unpacked) else ["__pycache__"]

    shutil.copytree(os.path.dirname(rlcard.__file__), fresh / "rlcard", ignore=without_unpacked)
    utils = fresh / "rlcard" / "games" / "doudizhu" / "utils.py"
    log = tmp_path / "unpacked-by.log"
    source = utils.read_text()
    assert "    import zipfile\n" in source
    utils.write_text(source.replace("    import zipfile\n", "    import time, zipfile\n"
                                    f"    open({str(log)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
                                    "    time.sleep(2)\n"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fresh), os.environ.get("PYTHONPATH", "")]),
           "OPENLANDLORD_LEDGER": str(tmp_path / "ledger.jsonl")}
    done = subprocess.run([sys.executable, "-m", "openlandlord.cli", "eval", "--game", "doudizhu",
                           "--agent", "rule", "--opponent", "rlcard", "--deals", "4", "--workers", "2",
                           "--json", str(tmp_path / "r.json")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["games"] == 12
    assert len(log.read_text().split()) == 1


# --- the referees' Python API ----------------------------------------------------------------

def test_doudizhu_from_hands_that_make_no_game_regression():
    from openlandlord.games.doudizhu import Game

    with pytest.raises(UserError, match="hand of seat 0 is empty"):
        Game.from_hands(["", "3", "4"], "")            # a live game with no legal move before
    with pytest.raises(UserError, match="hand of seat 1 is empty"):
        Game.from_hands(["3", "", "4"], "5", bidding="call-rob")
    with pytest.raises(UserError, match="must be a card string"):
        Game.from_hands([None, "3", "4"])              # TypeError before
    with pytest.raises(UserError, match="landlord"):
        Game.from_hands(["3", "4", "5"], landlord=1.0)
    assert Game.from_hands(["", "3", "4"], "5").hands() == ["5", "3", "4"]   # the kitty is its card


@pytest.mark.parametrize("seat", ["0", True, 0.0, None.__class__])
def test_doudizhu_play_seat_must_be_an_int_regression(seat):
    # "seat 0 moved out of turn: it is seat 0's turn" before.
    from openlandlord.games.doudizhu import Game

    game = Game.from_hands(["3", "4", "5"])
    before = game.to_json()
    with pytest.raises(UserError, match="seat must be 0, 1 or 2"):
        game.play("3", seat=seat)
    assert game.to_json() == before


@pytest.mark.parametrize("text,problem", [
    ("[]", "a JSON object is wanted"),                  # AttributeError before
    ('{"game": "shengji", "kind": "round"}', "it has no"),   # KeyError before
    ("null", "a JSON object is wanted")])
def test_shengji_record_not_an_object_regression(text, problem):
    from openlandlord.games.shengji.state import Match, Round

    with pytest.raises(UserError, match=problem):
        Round.from_json(text)
    with pytest.raises(UserError, match="not a Shengji match record"):
        Match.from_json(text.replace("round", "match"))


def test_shengji_record_bogus_rules_regression():
    # Became a tractor round before.
    from openlandlord.games.shengji.state import Round

    record = json.loads(Round.new(5).to_json())
    with pytest.raises(UserError, match="unknown ruleset 'bogus'"):
        Round.from_json(json.dumps({**record, "rules": "bogus"}))
    with pytest.raises(UserError, match="moves must be a list"):
        Round.from_json(json.dumps({**record, "moves": 5}))


@pytest.mark.parametrize("rules", ["tractor", "classic"])
@pytest.mark.parametrize("dealer", [1.0, True, "1", None, 4, -1])
def test_shengji_dealer_and_seat_must_be_seats_regression(rules, dealer):
    from openlandlord.games.shengji.state import Round

    with pytest.raises(UserError, match="dealer must be a seat 0..3"):
        Round.new(1, rules, dealer=dealer)
    game = Round.new(1, rules)
    before, move = game.to_json(), game.legal_moves(limit=None)[0]
    with pytest.raises(UserError, match="must be a seat 0..3"):
        game.play(move, seat=str(game.current_seat))
    assert game.to_json() == before


# --- fuzz: random bad input (openlandlord.fuzz; `openlandlord bench fuzz` runs it longer) ----

def test_fuzz_bad_command_lines_exit_2_with_one_line(tmp_path):
    from openlandlord import fuzz

    result = fuzz.fuzz_command_lines(probes=60, seed=20, folder=str(tmp_path))
    assert result["probes"] == 60 and set(result["by_kind"]) == {"spec", "value", "flag", "path"}
    assert result["refused_cleanly"] == 60, result["failures"]


@pytest.mark.parametrize("game_name", ["doudizhu", "shengji-tractor", "shengji-classic"])
def test_fuzz_illegal_api_moves_leave_the_state_unchanged(game_name):
    from openlandlord import fuzz

    result = fuzz.fuzz_moves(game_name, moves=600, seed=1)
    assert result["failures"] == []
    assert result["refused"] > 0 and result["legal_played"] > 0 and result["moves_tried"] == 600


def test_fuzz_catches_a_refusal_that_changes_the_state(monkeypatch):
    # The fuzzer itself can fail: a referee that moves its state on before refusing is caught.
    from openlandlord import fuzz

    class Leaky:
        def __init__(self, game):
            self.game = game
        def __getattr__(self, name):
            return getattr(self.game, name)
        def play(self, move, seat=None):
            try:
                return self.game.play(move, seat=seat)
            except UserError:
                if not self.game.done:
                    self.game.play(self.game.legal_moves()[0])
                raise

    from openlandlord.games import spec

    real = spec("doudizhu").fuzz_game
    monkeypatch.setattr(spec("doudizhu"), "fuzz_game", lambda label, seed: Leaky(real(label, seed)))
    result = fuzz.fuzz_moves("doudizhu", moves=50, seed=1)
    assert any(f["problem"] == "state changed on a refused move" for f in result["failures"])

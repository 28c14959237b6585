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


# --- fuzz: random bad input ------------------------------------------------------------------

BAD_SPECS = ["", " ", "nosuch", "random:foo", "random:seed=-1", "random:seed=x", "random:seed",
             "pimc:worlds=0", "pimc:worlds=99999999999999999999", "pimc:worlds=2147483648",
             "pimc:cap=abc", "pimc:=3", "pimc:32", "human:foo", "rlcard:x", "rule:expert,x=1",
             "rule:nosuchlevel", "student:/no/such/run", "onnx:/no/such.onnx", ":", "pimc:worlds=1e3"]


def _bad_argvs(tmp_path, rng):
    """(argv, what is bad) for one random bad piece in an otherwise good command line."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    out = str(tmp_path / "out")
    good = {
        "eval": ["eval", "--agent", "random", "--opponent", "rule", "--deals", "2", "--workers", "1"],
        "league": ["league", "--agents", "random", "rule", "--deals", "2", "--workers", "1"],
        "generate": ["generate", "--teacher", "random", "--deals", "2", "--workers", "1", "--out", out],
    }
    bad_values = {"--deals": ["0", "abc", "1e3", "", "1999999973"], "--workers": ["0", "x", "1.5"],
                  "--seed": ["abc", "1.5", ""], "--game": ["chess", ""],
                  "--temperature=": ["nan", "inf", "-1", "x"]}
    command = rng.choice(sorted(good))
    argv = list(good[command])
    kind = rng.choice(["spec", "value", "flag", "path"])
    if kind == "spec":
        flag = {"eval": "--agent", "league": "--agents", "generate": "--teacher"}[command]
        argv[argv.index(flag) + 1] = rng.choice(BAD_SPECS)
    elif kind == "value":
        flag = rng.choice([f for f in sorted(bad_values)
                           if command == "generate" or f != "--temperature="])
        value = rng.choice(bad_values[flag])
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        elif flag.endswith("="):
            argv.append(flag + value)
        else:
            argv += [flag, value]
        if flag == "--deals" and value == "1999999973" and command != "generate":
            argv[argv.index(flag) + 1] = "0"
    elif kind == "flag":
        argv.insert(rng.randrange(1, len(argv) + 1), rng.choice(["--nosuch", "--json", "-x"]))
    else:
        if command == "generate":
            argv[argv.index("--out") + 1] = str(a_file)
        else:
            flag, path = rng.choice([("--json", str(tmp_path)), ("--json", str(a_file / "r.json")),
                                     ("--report", str(a_file))])
            argv += [flag, path]
    return argv, kind


def test_fuzz_bad_command_lines_exit_2_with_one_line(tmp_path, capsys, monkeypatch):
    import random

    from openlandlord.cli import main

    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(tmp_path / "ledger.jsonl"))
    rng = random.Random(20)
    for _ in range(60):
        argv, kind = _bad_argvs(tmp_path, rng)
        try:
            status = main(argv)
        except SystemExit as exc:          # argparse's own exit, e.g. on `-h`
            status = exc.code
        err = capsys.readouterr().err.strip().splitlines()
        assert status == 2, (argv, err)
        assert len(err) == 1 and "Traceback" not in err[0], (argv, err)
    assert not (tmp_path / "out").exists() and not (tmp_path / "ledger.jsonl").exists()


def _random_move(rng, names):
    pick = rng.randrange(7)
    if pick == 0:
        return "".join(rng.choice("3456789TJQKA2BRxX 10,-") for _ in range(rng.randrange(7)))
    if pick == 1:
        return tuple(rng.choice(names) for _ in range(rng.randrange(1, 5)))
    if pick == 2:
        return rng.choice([None, 3, 3.5, b"33", ["3"], ("3", 4), {"3": 1}, (), [None]])
    if pick == 3:
        return tuple(rng.choice(["7H", "TS", "BJ", "SJ", "1H", "7Z", "", "7H7H", 7]) for _ in range(2))
    if pick == 4:
        return " ".join(rng.choice(names) for _ in range(rng.randrange(1, 4)))
    if pick == 5:
        return rng.choice(names) * rng.randrange(1, 6)
    return rng.choice(["pass", "PASS", "bid 3", "call", "rob", "double", "3" * 5, "BR3", "A2"])


@pytest.mark.parametrize("game_name", ["doudizhu", "shengji-tractor", "shengji-classic"])
def test_fuzz_illegal_api_moves_leave_the_state_unchanged(game_name):
    import random

    from openlandlord.errors import IllegalMove

    rng = random.Random(game_name)
    if game_name == "doudizhu":
        from openlandlord.games.doudizhu import Game

        game, names = Game.new(7), list("3456789TJQKA2BR")
        def canonical(move):
            return "".join(sorted(move))
        def legal(state):
            return {canonical(m) for m in state.legal_moves()}
    else:
        from collections import Counter

        from openlandlord.games.shengji.rules import CARD_NAMES
        from openlandlord.games.shengji.state import Round

        game, names = Round.new(7, game_name.split("-")[1]), list(CARD_NAMES)
        def canonical(move):
            return tuple(sorted(move))
        def legal(state):
            if state.phase == "bury":     # any 8 of the dealer's cards: too many to list
                hand = state.hands()[state.current_seat]
                held = len(move) == 8 and not Counter(move) - Counter(hand)
                return {canonical(hand[:8]), *([canonical(move)] if held else [])}
            return {canonical(m) for m in state.legal_moves(limit=None)}
    plays = 0
    for _ in range(400):
        if game.done:
            break
        move = _random_move(rng, names)
        before, spare = game.to_json(), game.clone()
        try:
            game.play(move, seat=rng.choice([None, game.current_seat, (game.current_seat + 1) % game.num_seats]))
        except (IllegalMove, UserError):
            assert game.to_json() == before, move
        else:
            assert canonical(move) in legal(spare), f"illegal {move!r} was played"
            plays += 1
        if rng.random() < 0.2 and not game.done:    # move the game on, to fuzz other positions
            game.play(sorted(legal(game))[0])
    assert plays > 0

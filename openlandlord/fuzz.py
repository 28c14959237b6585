"""Fuzzing the kit with bad input: `openlandlord bench fuzz [--seconds S] [--json FILE]`.

Two probes, both seeded and so repeatable:

- **command lines**: a good `eval`, `league` or `generate` command line with one random bad
  piece (an agent spec, a value, an unknown flag, an output path that cannot be written).
  Refused cleanly means exit status 2 with exactly one line on stderr and no traceback, and
  nothing written (no dataset folder, no ledger line).
- **API moves**: random strings, tuples, wrong types and card names played into a live game
  of every game and ruleset, by the seat to move or another one. Refused cleanly means an
  `IllegalMove`/`UserError` with the state unchanged; a move that is accepted must be one
  of the referee's own legal moves. The game is moved on by a legal move now and then, so
  the probes reach every phase.

The test suite runs a few seconds of both (tests/test_bad_input.py); the command runs them
for longer, and its figures are the README's reliability table.
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from .errors import IllegalMove, UserError

BAD_SPECS = ["", " ", "nosuch", "random:foo", "random:seed=-1", "random:seed=x", "random:seed",
             "pimc:worlds=0", "pimc:worlds=99999999999999999999", "pimc:worlds=2147483648",
             "pimc:cap=abc", "pimc:=3", "pimc:32", "human:foo", "rlcard:x", "rule:expert,x=1",
             "rule:nosuchlevel", "student:/no/such/run", "onnx:/no/such.onnx", ":", "pimc:worlds=1e3"]
BAD_VALUES = {"--deals": ["0", "abc", "1e3", "", "1999999973"], "--workers": ["0", "x", "1.5"],
              "--seed": ["abc", "1.5", ""], "--game": ["chess", ""],
              "--temperature=": ["nan", "inf", "-1", "x"]}
def _labels() -> tuple[str, ...]:
    from .games import GAMES as NAMES, spec
    return tuple(label for name in NAMES for label in spec(name).fuzz_labels)


GAMES = _labels()        # "doudizhu", "shengji-tractor", "shengji-classic"


def bad_argv(folder: Path, rng: random.Random) -> tuple[list[str], str]:
    """(argv, what kind of piece is bad) for one random bad piece in a good command line."""
    a_file = folder / "a_file"
    a_file.write_text("x")
    out = str(folder / "out")
    good = {
        "eval": ["eval", "--agent", "random", "--opponent", "rule", "--deals", "2", "--workers", "1"],
        "league": ["league", "--agents", "random", "rule", "--deals", "2", "--workers", "1"],
        "generate": ["generate", "--teacher", "random", "--deals", "2", "--workers", "1", "--out", out],
    }
    command = rng.choice(sorted(good))
    argv = list(good[command])
    kind = rng.choice(["spec", "value", "flag", "path"])
    if kind == "spec":
        flag = {"eval": "--agent", "league": "--agents", "generate": "--teacher"}[command]
        argv[argv.index(flag) + 1] = rng.choice(BAD_SPECS)
    elif kind == "value":
        flag = rng.choice([f for f in sorted(BAD_VALUES) if command == "generate" or f != "--temperature="])
        value = rng.choice(BAD_VALUES[flag])
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
            flag, path = rng.choice([("--json", str(folder)), ("--json", str(a_file / "r.json")),
                                     ("--report", str(a_file))])
            argv += [flag, path]
    return argv, kind


def fuzz_command_lines(probes: int | None = None, seconds: float | None = None, seed: int = 20,
                       folder: str | None = None) -> dict:
    """Run bad command lines in this process (module docstring); stops after `probes` or
    `seconds`. Returns counts and the first failures (argv and what came out)."""
    from .cli import main

    rng = random.Random(seed)
    tried, clean, failures, kinds = 0, 0, [], Counter()
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        tmp = Path(tmp)
        ledger = tmp / "ledger.jsonl"
        old = os.environ.get("OPENLANDLORD_LEDGER")
        os.environ["OPENLANDLORD_LEDGER"] = str(ledger)
        deadline = time.perf_counter() + (seconds if seconds is not None else float("inf"))
        try:
            while (probes is None or tried < probes) and time.perf_counter() < deadline:
                argv, kind = bad_argv(tmp, rng)
                err = io.StringIO()
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    try:
                        status = main(argv)
                    except SystemExit as exc:    # argparse's own exit
                        status = exc.code
                    except Exception as exc:     # a traceback a user would see  # noqa: BLE001
                        status, err = "raised", io.StringIO(f"Traceback: {exc!r}")
                lines = err.getvalue().strip().splitlines()
                wrote = (tmp / "out").exists() or ledger.exists()
                ok = status == 2 and len(lines) == 1 and "Traceback" not in lines[0] and not wrote
                tried += 1
                kinds[kind] += 1
                clean += ok
                if not ok and len(failures) < 10:
                    failures.append({"argv": argv, "status": status, "stderr": lines[:5], "wrote": wrote})
                if wrote:
                    with contextlib.suppress(OSError):
                        ledger.unlink()
                    if (tmp / "out").exists():
                        import shutil
                        shutil.rmtree(tmp / "out", ignore_errors=True)
        finally:
            if old is None:
                os.environ.pop("OPENLANDLORD_LEDGER", None)
            else:
                os.environ["OPENLANDLORD_LEDGER"] = old
    return {"probes": tried, "refused_cleanly": clean, "by_kind": dict(kinds), "failures": failures}


def random_move(rng: random.Random, names: list[str]):
    """A random, usually illegal, move: text, tuples of card names, wrong types."""
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


def _spec_of(label: str):
    """The game spec whose `fuzz_labels` hold `label`."""
    from .games import GAMES as NAMES, spec
    for name in NAMES:
        if label in spec(name).fuzz_labels:
            return spec(name)
    raise UserError(f"no game fuzzes {label!r}; known: {', '.join(GAMES)}")


def fuzz_moves(game_name: str, moves: int | None = None, seconds: float | None = None,
               seed: int = 0) -> dict:
    """Play random moves into live games of `game_name` (module docstring); new games are
    dealt as games end. Returns counts and the first failures."""
    spec = _spec_of(game_name)
    names = list(spec.fuzz_cards)
    rng = random.Random(f"{game_name}-{seed}")
    tried = refused = played = deals = 0
    failures: list[dict] = []
    deadline = time.perf_counter() + (seconds if seconds is not None else float("inf"))
    game = None
    while (moves is None or tried < moves) and time.perf_counter() < deadline:
        if game is None or game.done:
            game = spec.fuzz_game(game_name, seed * 100_003 + deals)
            deals += 1
        move = random_move(rng, names)
        before, spare = game.to_json(), game.clone()
        tried += 1
        try:
            game.play(move, seat=rng.choice([None, game.current_seat, (game.current_seat + 1) % game.num_seats]))
        except (IllegalMove, UserError):
            refused += 1
            if game.to_json() != before and len(failures) < 10:
                failures.append({"move": repr(move), "problem": "state changed on a refused move"})
        except Exception as exc:    # noqa: BLE001 - what a user would see as a traceback
            if len(failures) < 10:
                failures.append({"move": repr(move), "problem": f"raised {exc!r}"})
            game = None
            continue
        else:
            played += 1
            if not spec.fuzz_move_was_legal(spare, move) and len(failures) < 10:
                failures.append({"move": repr(move), "problem": "an illegal move was played"})
        if rng.random() < 0.2 and not game.done:    # move the game on, to fuzz other positions
            game.play(spec.fuzz_legal_move(game))
    return {"moves_tried": tried, "refused": refused, "legal_played": played, "deals": deals,
            "failures": failures}


def run_fuzz(seconds: float = 60.0, seed: int = 0) -> dict:
    """Both probes, `seconds` split between the command lines and each game's moves."""
    share = seconds / (1 + len(GAMES))
    started = time.perf_counter()
    result = {"seconds_budget": seconds, "seed": seed,
              "command_lines": fuzz_command_lines(seconds=share, seed=seed),
              "moves": {g: fuzz_moves(g, seconds=share, seed=seed) for g in GAMES}}
    result["seconds"] = round(time.perf_counter() - started, 1)
    failures = len(result["command_lines"]["failures"]) + sum(len(m["failures"]) for m in result["moves"].values())
    result["clean"] = failures == 0
    return result


def format_table(result: dict) -> str:
    cl = result["command_lines"]
    lines = [f"fuzz ({result['seconds']} s, seed {result['seed']})",
             f"  bad command lines: {cl['probes']} tried, {cl['refused_cleanly']} refused cleanly "
             "(exit 2, one line, nothing written)"]
    for game, m in result["moves"].items():
        lines.append(f"  {game}: {m['moves_tried']} random moves in {m['deals']} deals, "
                     f"{m['refused']} refused with the state unchanged, {m['legal_played']} legal ones "
                     f"played, {len(m['failures'])} failures")
    for failure in cl["failures"] + [f for m in result["moves"].values() for f in m["failures"]]:
        lines.append(f"  FAILURE {failure}")
    return "\n".join(lines)


def run(args) -> int:
    """`openlandlord bench fuzz`."""
    from . import artefacts
    from .provenance import git_sha

    result = run_fuzz(seconds=args.seconds or 60.0, seed=0)
    result["git_sha"] = git_sha()
    print(format_table(result))
    if args.json:
        artefacts.write_json(args.json, result)
    return 0 if result["clean"] else 1

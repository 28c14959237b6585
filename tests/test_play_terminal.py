"""`openlandlord play` as a person sees it, through a pseudo-terminal: the card letters
explained once, `help` and `hint`, forced moves shown with their reason, trick winners, the
Shengji round summary, labelled team levels and the partner named, `--rounds 1`, and a clear
end result for the person."""
import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

PROMPT = "your move> "


class Terminal:
    """`openlandlord ARGS` on a pseudo-terminal: read up to a prompt, type a line."""

    def __init__(self, args, env):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "openlandlord.cli", *args], stdin=slave,
                                     stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.text = ""

    def read_until(self, *marks, timeout=60.0) -> str | None:
        """Read until one of `marks` appears after what was read before (None: the program ended)."""
        start = len(self.text)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for mark in marks:
                if mark in self.text[start:]:
                    return mark
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    chunk = ""
                if not chunk:
                    return None
                self.text += chunk.replace("\r\n", "\n")
            elif self.proc.poll() is not None:
                return None
        raise AssertionError(f"no {marks} within {timeout} s; the screen ends:\n{self.text[-2000:]}")

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=60)
        finally:
            os.close(self.master)


@pytest.fixture()
def env(tmp_path):
    return {**os.environ, "OPENLANDLORD_RECORDS": str(tmp_path / "records"),
            "OPENLANDLORD_RANKING": str(tmp_path / "ranking.json"), "COLUMNS": "200"}


def play_with_hints(term: Terminal, first_commands=("help",), first_move=None) -> None:
    """Answer every prompt with the hint's move (after `first_commands` at the first one,
    whose move is `first_move` when given)."""
    pending = list(first_commands)
    while term.read_until(PROMPT) is not None:
        for command in pending:
            term.type(command)
            assert term.read_until(PROMPT) == PROMPT
        pending = []
        term.type("hint")
        assert term.read_until(PROMPT) == PROMPT
        hint = re.findall(r"hint from \S+: (.+?)   \(best", term.text)[-1]
        term.type(first_move or hint)
        first_move = None


def test_doudizhu_in_a_terminal(env, tmp_path):
    term = Terminal(["play", "--game", "doudizhu", "--bidding", "call-rob", "--seats",
                     "human,rule,rule:expert", "--seed", "11"], env)
    play_with_hints(term, first_commands=("help", "99999"), first_move="call")
    assert term.close() == 0
    out = term.text
    # The letters, explained once before the first move, and again only when `help` asks.
    assert out.index("B = black joker, R = red joker") < out.index(PROMPT)
    assert out.count("B = black joker, R = red joker") == 2
    assert "legal moves: pass, call" in out or "legal moves: call, pass" in out
    assert "refused:" in out                                         # 99999 is not a bid
    assert "is the landlord and takes the kitty" in out
    assert "wins the round with" in out
    assert re.search(r"result for you: (WIN|LOSS): (won|lost) as (landlord|a farmer): [+-]\d+ points", out)
    assert "payoffs by seat" in out
    assert "record: " in out and os.listdir(tmp_path / "records")


def test_shengji_single_round_in_a_terminal(env):
    term = Terminal(["play", "--game", "shengji", "--rounds", "1", "--seats",
                     "human,rule:easy,rule,rule:easy", "--seed", "5", "--no-record"], env)
    play_with_hints(term)
    assert term.close() == 0
    out = term.text
    assert "SJ = small joker" in out
    assert "plays with seat 2 (rule) as team South-North (seats 0, 2)" in out
    assert "your team: seats 0 and 2 (you, seat 0; your partner, seat 2): level 2" in out
    assert "wins the trick" in out
    assert "(forced: the only legal move)" in out
    assert re.search(r"round over: the attackers took \d+ points; the (declarers|attackers)", out)
    assert "next: seat" in out and "trump rank" in out
    assert re.search(r"result for you: (WIN|LOSS): your team \(you and seat 2\) (won|lost) the round", out)
    assert out.count("round over") == 1 and "record: " not in out


def test_rounds_and_mode_that_disagree_are_refused(env):
    proc = subprocess.run([sys.executable, "-m", "openlandlord.cli", "play", "--game", "shengji",
                           "--rounds", "1", "--mode", "match", "--seats", "rule,rule,rule,rule"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--rounds 1" in proc.stderr

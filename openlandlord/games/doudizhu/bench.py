"""`openlandlord bench referee --game doudizhu [--json F] [--seconds S]`: our referee beside
OpenSpiel's `dou_dizhu` and douzero's `GameEnv`, measured in one process, one run, one core.

Measured: random games/s driven from Python one call per move (ours with `points` bidding,
as OpenSpiel plays it, and with `none`; pyspiel with its chance-node deal; douzero's
GameEnv, which starts at play), native rollouts/s (the whole game loop in C), and legal
move calls/s on the same positions (ours `legal_moves(hand, to_beat)` against douzero's
`get_legal_card_play_actions`, i.e. MovesGener plus its filters). A peer that is not
installed is reported as missing. Each figure is the best of ROUNDS interleaved slices,
timed in CPU seconds of this (single-threaded) process.
"""
from __future__ import annotations

import os
import platform
import random
import sys
import time

from ... import artefacts
from . import Game, deal, legal_moves, random_rollouts
from .oracle_check import _DZ_CARD, sample_states

TARGETS = {"python_games_vs_pyspiel": 2.0, "python_games_vs_douzero": 50.0,
           "native_rollouts_per_s": 50_000.0, "legal_moves_vs_douzero": 30.0}


def _rate(step, seconds: float) -> float:
    """Items per second of `step` (each call returns how many it did) over about `seconds`,
    after one warm-up call. Time is this process's CPU time: everything measured runs on
    one thread, so on an idle core it equals wall time, and on a shared machine other
    processes' load does not leak into one side of a ratio."""
    step()
    done, start = 0, time.process_time()
    while True:
        done += step()
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return done / elapsed


def _ours_python(bidding: str, seconds: float) -> float:
    rng = random.Random(0)
    seed = [0]

    def one_game():
        g = Game.new(seed[0], bidding=bidding)
        seed[0] += 1
        while not g.done:
            moves = g.legal_moves()
            g.play(moves[rng.randrange(len(moves))])
        return 1
    return _rate(one_game, seconds)


def _ours_native(seconds: float) -> float:
    seed = [0]

    def batch():
        random_rollouts(2000, seed[0])
        seed[0] += 2000
        return 2000
    return _rate(batch, seconds)


def _ours_legal(states, seconds: float) -> float:
    def all_states():
        for hand, to_beat in states:
            legal_moves(hand, to_beat)
        return len(states)
    return _rate(all_states, seconds)


def _pyspiel_python(seconds: float) -> float:
    import pyspiel
    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(0)

    def one_game():
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                st.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                actions = st.legal_actions()
                st.apply_action(actions[rng.randrange(len(actions))])
        return 1
    return _rate(one_game, seconds)


def _douzero_env():
    from douzero.env.game import GameEnv

    class RandomPlayer:
        def __init__(self, rng):
            self.rng = rng

        def act(self, infoset):
            return infoset.legal_actions[self.rng.randrange(len(infoset.legal_actions))]

    player = RandomPlayer(random.Random(0))
    return GameEnv({"landlord": player, "landlord_down": player, "landlord_up": player})


def _douzero_python(seconds: float) -> float:
    env = _douzero_env()
    deals = []
    for seed in range(200):
        hands, kitty = deal(seed)
        cards = [sorted(_DZ_CARD[c] for c in h) for h in hands]
        three = sorted(_DZ_CARD[c] for c in kitty)
        deals.append({"landlord": sorted(cards[0] + three), "landlord_down": cards[1],
                      "landlord_up": cards[2], "three_landlord_cards": three})
    index = [0]

    def one_game():
        d = deals[index[0] % len(deals)]
        index[0] += 1
        env.card_play_init({k: list(v) for k, v in d.items()})
        while not env.game_over:
            env.step()
        env.reset()
        return 1
    return _rate(one_game, seconds)


def _douzero_legal(states, seconds: float) -> float:
    from douzero.env.game import GameEnv

    class Info:
        player_hand_cards: list

    env = GameEnv.__new__(GameEnv)
    env.acting_player_position = "landlord"
    info = Info()
    env.info_sets = {"landlord": info}
    prepared = [(sorted(_DZ_CARD[c] for c in hand), [[_DZ_CARD[c] for c in to_beat]] if to_beat else [])
                for hand, to_beat in states]

    def all_states():
        for cards, seq in prepared:
            info.player_hand_cards = cards
            env.card_play_action_seq = seq
            env.get_legal_card_play_actions()
        return len(prepared)
    return _rate(all_states, seconds)


def _machine() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "platform": platform.platform(), "python": platform.python_version(),
            "cores_used": 1}


class _OneCore:
    """Pins this process to one core (and torch, which douzero imports, to one thread) for
    the measurements, and restores both afterwards."""

    def __enter__(self):
        self.affinity = os.sched_getaffinity(0) if hasattr(os, "sched_setaffinity") else None
        if self.affinity:
            os.sched_setaffinity(0, {min(self.affinity)})
        return self

    def pin_torch(self):
        torch = sys.modules.get("torch")
        if torch is not None and not hasattr(self, "torch_threads"):
            self.torch_threads = torch.get_num_threads()
            torch.set_num_threads(1)

    def __exit__(self, *exc):
        if self.affinity:
            os.sched_setaffinity(0, self.affinity)
        if hasattr(self, "torch_threads"):
            sys.modules["torch"].set_num_threads(self.torch_threads)


ROUNDS = 3


def measure(seconds: float = 2.0) -> dict:
    """Every measurement runs in ROUNDS interleaved slices of seconds / ROUNDS and keeps
    its best slice, so that load from other processes hits ours and the peers alike
    instead of whichever ran during a burst."""
    states = sample_states(3000, seed=11)
    ours_m = {"python_games_per_s_points": lambda t: _ours_python("points", t),
              "python_games_per_s_none": lambda t: _ours_python("none", t),
              "native_rollouts_per_s": _ours_native,
              "legal_moves_calls_per_s": lambda t: _ours_legal(states, t)}
    peer_m = {"pyspiel": {"python_games_per_s": _pyspiel_python},
              "douzero": {"python_games_per_s": _douzero_python,
                          "legal_moves_calls_per_s": lambda t: _douzero_legal(states, t)}}
    peers = {}
    for name, module in (("pyspiel", "pyspiel"), ("douzero", "douzero.env.game")):
        try:
            __import__(module)
            peers[name] = {}
        except ImportError as exc:
            peers[name] = {"missing": f"{name} is not installed ({exc}): the test peers come with "
                                      "pip install -e '.[test]'"}
    ours = {}
    with _OneCore() as core:
        core.pin_torch()
        for _ in range(ROUNDS):
            for key, fn in ours_m.items():
                ours[key] = max(ours.get(key, 0.0), fn(seconds / ROUNDS))
            for name, table in peer_m.items():
                if "missing" in peers[name]:
                    continue
                for key, fn in table.items():
                    peers[name][key] = max(peers[name].get(key, 0.0), fn(seconds / ROUNDS))
    ratios = {}
    if "python_games_per_s" in peers["pyspiel"]:
        ratios["python_games_vs_pyspiel"] = ours["python_games_per_s_points"] / peers["pyspiel"]["python_games_per_s"]
    if "python_games_per_s" in peers["douzero"]:
        ratios["python_games_vs_douzero"] = ours["python_games_per_s_none"] / peers["douzero"]["python_games_per_s"]
        ratios["legal_moves_vs_douzero"] = ours["legal_moves_calls_per_s"] / peers["douzero"]["legal_moves_calls_per_s"]
    return {"ours": ours, "peers": peers, "ratios": ratios}


def run(args) -> int:
    from ...provenance import git_sha
    seconds = args.seconds if getattr(args, "seconds", None) else 2.0
    result = {"game": "doudizhu", "seconds_per_measurement": seconds, "rounds": ROUNDS,
              "clock": "process CPU time", **measure(seconds),
              "targets": TARGETS, "git_sha": git_sha(), "machine": _machine()}
    print(f"Dou Dizhu referee, one core, {seconds:g} CPU s per measurement "
          f"(best of {ROUNDS} interleaved slices)")
    print(f"  {'measurement':44s} {'ours':>12s} {'pyspiel':>12s} {'douzero':>12s}")
    ours, peers = result["ours"], result["peers"]

    def peer(name, key):
        value = peers[name].get(key)
        return f"{value:12,.0f}" if value is not None else f"{'-' if 'missing' not in peers[name] else 'missing':>12s}"
    print(f"  {'python-driven games/s (points; pyspiel)':44s} {ours['python_games_per_s_points']:12,.0f} "
          f"{peer('pyspiel', 'python_games_per_s')} {'':>12s}")
    print(f"  {'python-driven games/s (none; douzero)':44s} {ours['python_games_per_s_none']:12,.0f} "
          f"{'':>12s} {peer('douzero', 'python_games_per_s')}")
    print(f"  {'native rollouts/s':44s} {ours['native_rollouts_per_s']:12,.0f}")
    print(f"  {'legal-move calls/s':44s} {ours['legal_moves_calls_per_s']:12,.0f} {'':>12s} "
          f"{peer('douzero', 'legal_moves_calls_per_s')}")
    for missing in (p["missing"] for p in peers.values() if "missing" in p):
        print(f"  {missing}")
    for key, target in TARGETS.items():
        value = result["ratios"].get(key, ours.get(key))
        if value is not None:
            unit = "" if key.endswith("per_s") else "x"
            print(f"  {key:44s} {value:12,.1f}{unit}  (target {target:,.0f}{unit}: "
                  f"{'met' if value >= target else 'NOT met'})")
    if args.json:
        artefacts.write_json(args.json, result)
    return 0

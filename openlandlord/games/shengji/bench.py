"""`openlandlord bench referee --game shengji`: how fast the Shengji referee runs, one core
(single-threaded, timed in process CPU seconds).

Measures: native random rounds per second (the C round loop with the random policy; target
20,000), native random `classic` rounds per second (`classic_native_rounds_per_s`: the C loop of
`_referee.classic_simulate`: deal with an 8-card kitty, random trump with no trump one round in
five, declarations skipped, a random burial, random leads including throws that may fail and
pay the penalty, random legal follows, the kitty multiplied on the last trick), world-sampler
deals per second (the unseen cards dealt to the three hidden seats, consistent with hand sizes
and known voids, over a fixed set of positions from the start of a round to late rounds with
voids; target 730,000), Python-driven random rounds per second (the `Round` interface an arena
uses, on the native rules; `tractor` and `classic`, declarations and burial included) and
`legal_plays` calls per second. No peer Shengji referee exists to compare with, so `peers` is
empty.
"""
from __future__ import annotations

import time

import numpy as np

from ... import artefacts
from ...provenance import git_sha
from . import _referee
from .rules import END, counts, legal_plays
from .state import Round
from .state import DEFAULT_CAP

TARGETS = {"rounds_per_s": 20_000, "worlds_per_s": 730_000}


def _timed(step, seconds: float) -> float:
    """Calls `step()` (which returns the work it did) until `seconds` of this process's CPU time
    pass; work per CPU second, so that other programs sharing the machine do not count."""
    step()  # warm up
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        done += step()
    return done / (time.process_time() - start)


def _positions(n: int = 12):
    """Round positions seen by seat 0 after k tricks of random play, k spread over the round:
    (rules, unseen counts, sizes, void masks) of the three hidden seats."""
    out = []
    for seed in range(n):
        r = Round.new(seed)
        rng = np.random.default_rng(seed)
        tricks = (seed * 25) // n
        while len(r._tricks) < tricks or r._trick:
            moves = r.legal_moves(limit=None)
            r.play(moves[rng.integers(len(moves))])
        obs = r.observation(0)
        others = (1, 2, 3)
        hidden = counts([c for s in others for c in r.hands()[s]])
        masks = [sum(1 << "SHDCT".index(v) for v in obs.voids[s]) for s in others]
        out.append((r.rules, hidden, [obs.cards_left[s] for s in others], masks))
    return out


def _python_round(seed: int, rules: str = "tractor") -> int:
    """One random round through the `Round` interface; huge move sets are built card by card
    (a `classic` lead stops at one card, so that random leads are not mostly failed throws)."""
    r = Round.new(seed, rules)
    rng = np.random.default_rng(seed)
    while not r.done:
        if r.count_legal() > DEFAULT_CAP:
            prefix = []
            while options := r.factored_options(prefix):
                prefix.append(options[rng.integers(len(options))])
                if r.phase == "play" and not r._trick and rules == "classic":
                    break
            r.play([c for c in prefix if c != END])
        else:
            moves = r.legal_moves()
            r.play(moves[rng.integers(len(moves))])
    return 1


def measure(seconds: float = 2.0) -> dict:
    batch = 2000
    seed = iter(range(1, 1 << 30))
    rounds_per_s = _timed(lambda: len(_referee.simulate(batch, next(seed))), seconds)
    classic_native_rounds_per_s = _timed(
        lambda: len(_referee.classic_simulate(batch, next(seed))), seconds)

    positions = _positions()
    rates = []
    for rules, hidden, sizes, masks in positions:
        rates.append(_timed(lambda: _referee.bench_worlds(rules.rank_index, rules.suit_index,
                                                          hidden, sizes, masks, 20_000, next(seed)),
                            seconds / len(positions)))
    worlds_per_s = len(rates) / sum(1.0 / r for r in rates)  # time-weighted over the positions

    py_rounds_per_s = _timed(lambda: _python_round(next(seed)), seconds)
    classic_rounds_per_s = _timed(lambda: _python_round(next(seed), "classic"), seconds)

    r = Round.new(0)
    rng = np.random.default_rng(0)
    cases = []
    while not r.done:
        hand = r.hands()[r.current_seat]
        lead = r._trick[0][1] if r._trick else None
        if r.count_legal() <= DEFAULT_CAP:
            cases.append((r.rules, list(hand), lead))
        moves = r.legal_moves(limit=None)
        r.play(moves[rng.integers(len(moves))])

    def calls():
        for rules, hand, lead in cases:
            legal_plays(rules, hand, lead)
        return len(cases)
    legal_calls_per_s = _timed(calls, seconds)
    return {"rounds_per_s": rounds_per_s,
            "classic_native_rounds_per_s": classic_native_rounds_per_s,
            "worlds_per_s": worlds_per_s,
            "worlds_per_s_min_position": min(rates),
            "python_rounds_per_s": py_rounds_per_s, "classic_python_rounds_per_s": classic_rounds_per_s,
            "legal_plays_calls_per_s": legal_calls_per_s}


def run(args) -> int:
    seconds = args.seconds if getattr(args, "seconds", None) else 2.0
    ours = measure(seconds)
    ratios = {f"{k}_vs_target": ours[k] / v for k, v in TARGETS.items()}
    print(f"Shengji referee, one core, {seconds:g} s per measurement")
    print(f"  {'measurement':36s} {'per second':>14s} {'target':>10s} {'ratio':>7s}")
    for key, value in ours.items():
        target = TARGETS.get(key)
        print(f"  {key:36s} {value:14,.0f} {target or '':>10} "
              f"{(f'{value / target:.2f}' if target else ''):>7s}")
    print("  peers: none (no other Shengji referee to compare with)")
    report = {"game": "shengji", "ours": ours, "targets": TARGETS,
              "peers": {}, "peers_note": "no peer Shengji (Tractor) referee exists to compare with",
              "ratios": ratios, "seconds_per_measurement": seconds, "git_sha": git_sha()}
    if getattr(args, "json", None):
        artefacts.write_json(args.json, report)
    return 0

"""The featurizer's speed, native against Python, on a seeded random-game corpus:
`python -m openlandlord.features.bench --game doudizhu` prints one JSON object per variant
(every combination of the game's deal options: Dou Dizhu's three bidding flows, Shengji's
two rulesets; `--option rules=classic` picks one).

Measured: the microseconds one `featurize(obs, legal)` call takes, per decision, for the
game's Python featurizer (`featurize_python`, the oracle) and for the one everyone calls
(`openlandlord.features.featurize`, native): P50, P95 and mean over the corpus positions of
each position's median call, and the ratio of the P50s. Each side is timed call by call
(`perf_counter_ns`) in whole passes over the corpus for about `seconds` (one pass at least),
garbage collection paused; one thread, wall time, so a loaded machine still reads slower. `corpus` is also the equality test's (tests/test_native_features.py).
"""
from __future__ import annotations

import argparse
import gc
import itertools
import json
import random
import sys
import time

import numpy as np

from ..games import END, spec

TARGET_US = 20.0   # the per-decision budget of the native featurizer (issue 21)


def variants(game: str) -> list[dict]:
    """Every combination of the game's deal options that change the rules, in the spec's
    order (Shengji's `trump_rank` only changes the levels, which the corpus varies itself)."""
    options = [o for o in spec(game).options if o.deal and o.record_default]
    return [dict(zip((o.name for o in options), values))
            for values in itertools.product(*(o.choices for o in options))]


def corpus(game: str, options: dict, positions: int, seed: int = 0) -> list[tuple]:
    """`positions` (obs, legal) pairs from random deals of `game` (seeded): every decision the
    decision loop asks for, random moves answering them. Where the game builds large plays card
    by card (`factored_options`), one listed play decision in four is also built card by card
    without playing it, so partial follows and END candidates are in the corpus as often as
    whole plays."""
    from ..agents.loop import decisions
    g = spec(game)
    rng = random.Random(seed)
    out: list[tuple] = []
    deal = 0
    while len(out) < positions:
        state = g.new_game(seed * 1_000_003 + deal, **options)
        deal += 1
        loop = decisions(state, g.legal_cap)
        try:
            decision = next(loop)
            while len(out) < positions:
                if decision.legal is None:
                    decision = loop.send(None)
                    continue
                out.append((decision.obs, decision.legal))
                if (g.legal_cap is not None and state.phase == "play"
                        and decision.prefix is None and rng.random() < 0.25):
                    out += _card_by_card(state, decision.obs, rng)
                decision = loop.send(rng.randrange(len(decision.legal)))
        except StopIteration:
            pass
    return out[:positions]


def _card_by_card(state, obs, rng) -> list[tuple]:
    """The candidate lists of one random play of `state` built card by card (not played)."""
    out, prefix = [], ()
    while options := state.factored_options(prefix):
        candidates = [prefix if card == END else prefix + (card,) for card in options]
        out.append((obs, candidates))
        pick = rng.randrange(len(options))
        if options[pick] == END:
            break
        prefix = candidates[pick]
    return out


def _times_us(featurize, items, seconds: float) -> tuple[np.ndarray, int]:
    """Each position's median call time over whole passes of the corpus, made for about
    `seconds` (one pass at least): the median drops what another process's load adds to
    single calls, leaving what each position costs."""
    featurize(*items[0])
    passes = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        while not passes or time.perf_counter() - start < seconds:
            times = np.empty(len(items), np.float64)
            for i, (obs, legal) in enumerate(items):
                t0 = time.perf_counter_ns()
                featurize(obs, legal)
                times[i] = time.perf_counter_ns() - t0
            passes.append(times)
    finally:
        if enabled:
            gc.enable()
    return np.median(np.array(passes), axis=0) / 1000.0, len(passes)


def bench(game: str, options: dict | None = None, positions: int = 2000,
          seconds: float = 2.0, seed: int = 0) -> dict:
    """P50 and P95 microseconds per decision of the Python and the native featurizer of
    `game` on `positions` corpus positions, about `seconds` each, and the P50 ratio."""
    options = spec(game).deal_options(options)
    module = spec(game).features()
    items = corpus(game, options, positions, seed)
    result = {"game": game, "options": options, "positions": len(items), "seed": seed,
              "target_us": TARGET_US}
    from . import featurize
    for side, featurize in (("python", module.featurize_python), ("native", featurize)):
        us = _times_us(featurize, items, seconds)
        result[side] = {"p50_us": round(float(np.percentile(us[0], 50)), 2),
                        "p95_us": round(float(np.percentile(us[0], 95)), 2),
                        "mean_us": round(float(us[0].mean()), 2), "passes": us[1]}
    result["ratio_p50"] = round(result["python"]["p50_us"] / result["native"]["p50_us"], 1)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m openlandlord.features.bench",
                                     description="featurize: native against Python, us per decision")
    parser.add_argument("--game", required=True)
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="one deal option (default: every combination of them)")
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=2.0, help="per featurizer and variant")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.option:
        try:
            chosen = [dict(o.split("=", 1) for o in args.option)]
        except ValueError:
            parser.error("--option takes NAME=VALUE")
    else:
        chosen = variants(args.game)
    for options in chosen:
        print(json.dumps(bench(args.game, options, args.positions, args.seconds, args.seed)))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

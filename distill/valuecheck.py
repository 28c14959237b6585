"""How much a student's value head knows: at every decision of seeded Dou Dizhu deals played
out by one student on every seat (argmax moves, bidding none), each value head's estimate of
the seat's payoff (value x value_scale) against the payoff the seat got.

    python -m distill.valuecheck STUDENT_DIR ... [--players DIR] [--deals N] [--seed S] [--rollouts W]

Prints one JSON line: the decisions, the variance of the payoffs and, per value head, its
correlation with them, its mean squared error, its mean, and the least-squares slope of the
payoffs on it (1 for a calibrated head, below 1 for an overconfident one); and, per head, how
its policy stands at the decisions with more than one legal move (`policy`): the mean
probability of its top move, the median gap between its top two moves in points (T x the
logit gap, T the teacher temperature: the margin DMC's Q = value + T log pi reads), the share
of gaps under 0.05 points, and how often its top move is the mover's. `--rollouts W`
adds the same figures for the PIMC teacher's estimate of the move played (W worlds of native
rule rollouts from the seat's view, "rollouts"), where the seat had more than one move. The check behind
`pimc:leaf=student:DIR` (docs/pimc.md, "Leaf values"). Deal seeds S.. are training seeds."""
from __future__ import annotations

import argparse
import json

import numpy as np


def _figures(v: np.ndarray, real: np.ndarray) -> dict:
    return {"decisions": len(v), "corr": float(np.corrcoef(v, real)[0, 1]),
            "mse": float(np.mean((v - real) ** 2)), "mean": float(v.mean()),
            "slope": float(np.cov(v, real)[0, 1] / v.var())}


def _policy(logits: list, chosen: list, temperature: float) -> dict:
    top, gaps, agree = [], [], []
    for z, move in zip(logits, chosen):
        z = np.asarray(z, np.float64)
        order = np.argsort(z)[::-1]
        p = np.exp(z - z.max())
        top.append(float(p[order[0]] / p.sum()))
        gaps.append(float(temperature * (z[order[0]] - z[order[1]])))
        agree.append(int(order[0]) == move)
    gaps = np.array(gaps)
    return {"decisions": len(top), "top_prob": float(np.mean(top)), "gap_points_median": float(np.median(gaps)),
            "small_gap_share": float(np.mean(gaps < 0.05)), "agree_with_mover": float(np.mean(agree))}


def value_check(heads: list[str], players: str, deals: int = 300, seed: int = 20000,
                rollouts: int = 0) -> dict:
    from openlandlord.features import featurize
    from openlandlord.games.doudizhu import Game
    from openlandlord.games.doudizhu.pimc import Decision
    from openlandlord.model.native import NativeStudent

    nets = {d: NativeStudent(d) for d in heads}
    mover = nets.get(players) or NativeStudent(players)
    estimates: dict = {d: [] for d in heads}
    logits: dict = {d: [] for d in heads}
    chosen: list = []         # the mover's index, where the seat had more than one move
    payoffs: list = []
    searched: list = []       # (rollout estimate, index into payoffs)
    for k in range(deals):
        g = Game.new(seed + k)
        seats = []
        while not g.done:
            obs, legal = g.observation(g.current_seat), g.legal_moves()
            sample = featurize(obs, legal)
            outs = {d: net.forward(sample) for d, net in nets.items()}
            for d, o in outs.items():
                estimates[d].append(float(o["value"]) * nets[d].config.value_scale)
            played = outs[players] if players in outs else mover.forward(sample)   # one forward a net
            move = int(np.argmax(played["logits"]))
            if len(legal) > 1:
                chosen.append(move)
                for d, o in outs.items():
                    logits[d].append(np.asarray(o["logits"])[:len(legal)])
            if rollouts and len(legal) > 1:
                searched.append((Decision(obs, legal).search([move], 0, rollouts, "rule",
                                                             seed + k)[0], len(payoffs) + len(seats)))
            seats.append(obs.seat)
            g.play(legal[move])
        got = g.payoffs()
        payoffs += [got[s] for s in seats]
    real = np.array(payoffs, float)
    out = {"deals": deals, "seed": seed, "players": players, "decisions": len(real),
           "payoff_var": float(real.var()), "heads": {}}
    from openlandlord.games import spec
    temperature = spec("doudizhu").teacher_temperature
    for d, values in estimates.items():
        out["heads"][d] = _figures(np.array(values), real)
        out["heads"][d]["policy"] = _policy(logits[d], chosen, temperature)
    if searched:
        at = np.array([i for _, i in searched])
        out["rollouts"] = {"worlds": rollouts, **_figures(np.array([e for e, _ in searched]), real[at])}
        out["heads_where_searched"] = {d: _figures(np.array(values)[at], real[at])
                                       for d, values in estimates.items()}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("heads", nargs="+", help="student directories whose value heads are checked")
    p.add_argument("--players", default=None, help="the student that plays (default: the first)")
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--seed", type=int, default=20000)
    p.add_argument("--rollouts", type=int, default=0, help="worlds of the teacher's estimate (0: none)")
    args = p.parse_args(argv)
    from openlandlord.errors import UserError
    try:
        print(json.dumps(value_check(args.heads, args.players or args.heads[0], args.deals, args.seed,
                                     args.rollouts)))
    except UserError as exc:
        import sys
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

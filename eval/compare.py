"""`openlandlord compare A.json B.json`: two evaluations of the same deals against the same
opponent, compared deal by deal.

`eval --json` keeps `per_deal`: the agent's mean of each figure over its seatings of every
deal, in the deal set's order. Two agents evaluated against one opponent on one deal set (or
the same fresh deals: same game options, seed and count) differ deal by deal by what the
agents do, with the deal's luck cancelled; the paired bootstrap over deals
(`stats.paired_bootstrap`) gives the CI of the mean difference. This is what an ablation
wants (a player with and without one change, each against `rule:expert`), where a head to
head would pit the two against each other instead.

Where both results keep `per_deal_role`, the same is done role by role, over the deals where
both agents played the role (`roles`). A head to head's per-role figures are the roles'
payoffs, not gains (docs/evaluation.md); set beside the opponent against itself on the same
deals (`eval --agent B --opponent B`), they become gains: `compare AvsB.json BvsB.json`.
"""
from __future__ import annotations

import json

from openlandlord import artefacts
from openlandlord.errors import UserError

from . import stats

FIGURES = {"win": "win rate", "score": "mean score", "points": "mean points",
           "douzero_points": "ADP (douzero)"}
SAME = ("game", "opponent", "deal_set", "mode", "protocol")


def load(path: str) -> dict:
    """An `eval --json` result with its per-deal figures."""
    try:
        with open(path) as f:
            result = json.load(f)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: not a readable JSON file ({exc})") from None
    if not isinstance(result, dict) or not isinstance(result.get("per_deal"), dict):
        raise UserError(f"{path}: not an `openlandlord eval --json` result (it has no per_deal)")
    return result


def _flatten(engine: dict, prefix: tuple = ()) -> dict:
    """{(key, ...): value} of an `engines` entry, nested entries (a search's students) under
    their key."""
    out = {}
    for key, value in engine.items():
        if isinstance(value, dict):
            out.update(_flatten(value, prefix + (key,)))
        else:
            out[prefix + (key,)] = value
    return out


def compare(a: dict, b: dict, *, seed: int = 0, names: tuple[str, str] = ("A", "B")) -> dict:
    """The per-deal differences a - b of every figure both results hold, with paired bootstrap
    CIs over deals. Raises UserError unless both played the same deals against the same
    opponent in the same way."""
    for key in SAME:
        if a.get(key) != b.get(key):
            raise UserError(f"{names[0]} and {names[1]} differ in {key} ({_short(a.get(key))} vs "
                            f"{_short(b.get(key))}): compare needs the same deals against the same opponent")
    # The same opponent spec can name other weights (a checkpoint reshipped in between) or
    # another engine: where both results record it, that is another opponent too.
    # A search's nested students (`leaf`, `belief`) count alike.
    held = [r.get("engines", {}).get("opponent") for r in (a, b)]
    if all(h is not None for h in held):
        flat = [_flatten(h) for h in held]
        for path in sorted(set(flat[0]) | set(flat[1])):
            if path[-1] in ("weights_sha256", "backend") and flat[0].get(path) != flat[1].get(path):
                raise UserError(f"{names[0]} and {names[1]} played an opponent of another "
                                f"{' '.join(path)} ({_short(flat[0].get(path))} vs "
                                f"{_short(flat[1].get(path))}): compare needs the same deals "
                                "against the same opponent")
    figures = [k for k in a["per_deal"] if k in b["per_deal"]]
    out = {"agent": a["agent"], "baseline": b["agent"], "opponent": a["opponent"],
           "game": a["game"], "deal_set": a["deal_set"], "deals": None, "figures": {}}
    for i, key in enumerate(figures):
        x, y = a["per_deal"][key], b["per_deal"][key]
        if len(x) != len(y) or not x:
            raise UserError(f"{names[0]} and {names[1]} hold {len(x)} and {len(y)} deals of {key}")
        diff, ci = stats.paired_bootstrap(x, y, seed=seed + i)
        out["deals"] = len(x)
        out["figures"][key] = {"agent": sum(x) / len(x), "baseline": sum(y) / len(y),
                               "difference": diff, "difference_ci95": ci,
                               "deals_that_differ": sum(1 for p, q in zip(x, y) if p != q)}
    if not figures:
        raise UserError(f"{names[0]} and {names[1]} share no per-deal figure")
    roles_a, roles_b = a.get("per_deal_role") or {}, b.get("per_deal_role") or {}
    for r, role in enumerate(sorted(set(roles_a) & set(roles_b))):
        ra, rb = roles_a[role], roles_b[role]
        at = {d: i for i, d in enumerate(rb["deal"])}
        both = [(i, at[d]) for i, d in enumerate(ra["deal"]) if d in at]
        if not both:
            continue
        entry = {"deals": len(both)}
        for i, key in enumerate(k for k in figures if k in ra and k in rb):
            x = [ra[key][p] for p, _ in both]
            y = [rb[key][q] for _, q in both]
            diff, ci = stats.paired_bootstrap(x, y, seed=seed + 100 * (r + 1) + i)
            entry[key] = {"agent": sum(x) / len(x), "baseline": sum(y) / len(y),
                          "difference": diff, "difference_ci95": ci}
        out.setdefault("roles", {})[role] = entry
    out["git_shas"] = [a.get("git_sha"), b.get("git_sha")]
    return out


def _short(value) -> str:
    if isinstance(value, dict) and "name" in value:
        return repr(value["name"])
    return repr(value)


def format_table(c: dict) -> str:
    name = c["deal_set"]["name"] if isinstance(c["deal_set"], dict) else c["deal_set"]
    lines = [f"{c['agent']} minus {c['baseline']}, each against {c['opponent']} "
             f"({c['game']}, {name}: {c['deals']} deals, paired by deal)",
             f"{'':16}{'agent':>10}{'baseline':>10}  {'difference [95% CI]':<28}deals that differ"]
    for key, f in c["figures"].items():
        lo, hi = f["difference_ci95"]
        diff = f"{f['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        lines.append(f"{FIGURES.get(key, key):<16}{f['agent']:>+10.3f}{f['baseline']:>+10.3f}  "
                     f"{diff:<28}{f['deals_that_differ']}")
    key = "points" if "points" in c["figures"] else "score"
    roles = [(role, entry) for role, entry in c.get("roles", {}).items() if key in entry]
    if roles:
        lines.append(f"{FIGURES[key]} by role (the deals where both played it)")
    for role, entry in roles:
        f = entry[key]
        lo, hi = f["difference_ci95"]
        lines.append(f"  {role:<14}{f['agent']:>+10.3f}{f['baseline']:>+10.3f}  "
                     f"{f['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}]".ljust(66) + f"{entry['deals']} deals")
    return "\n".join(lines)


def run(args) -> int:
    artefacts.check_output(args.json, "--json", force=args.force)
    result = compare(load(args.agent), load(args.baseline), seed=args.seed,
                     names=(args.agent, args.baseline))
    print(format_table(result))
    if args.json:
        artefacts.write_json(args.json, result, indent=1)
    return 0

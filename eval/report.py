"""Reports of an evaluation or a league: one markdown page with PNG plots beside it
(score distribution over deals, per-role bars with their CIs, the league ladder).

matplotlib is imported only here, and only when a report is asked for.
"""
from __future__ import annotations

import os


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _ci_text(entry: dict, key: str, fmt: str = "+.3f") -> str:
    lo, hi = entry[f"{key}_ci95"]
    return f"{entry[key]:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"


def _error_bars(entries: list[dict], key: str):
    means = [e[key] for e in entries]
    lows = [e[key] - e[f"{key}_ci95"][0] for e in entries]
    highs = [e[f"{key}_ci95"][1] - e[key] for e in entries]
    return means, [lows, highs]


def write_eval_report(result: dict, directory: str) -> str:
    """Write `report.md`, `scores.png` and `roles.png` for one evaluation; return the page."""
    plt = _pyplot()
    os.makedirs(directory, exist_ok=True)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(result["per_deal"]["score"], bins=40, color="#4477aa")
    ax.axvline(result["mean_score"], color="black", linestyle="--", label="mean")
    ax.set_xlabel("agent's mean score over its seats, per deal")
    ax.set_ylabel("deals")
    ax.set_title(f"{result['agent']} vs {result['opponent']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "scores.png"), dpi=120)
    plt.close(fig)

    roles = list(result["per_role"])
    entries = [result["per_role"][r] for r in roles]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.5))
    for ax, key, label in ((axes[0], "win_rate", "win rate"), (axes[1], "mean_score", "mean score")):
        means, err = _error_bars(entries, key)
        ax.bar(roles, means, yerr=err, capsize=4, color="#66ccee")
        ax.set_title(f"{label} by role (95% CI)")
        ax.tick_params(axis="x", labelrotation=20)
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "roles.png"), dpi=120)
    plt.close(fig)

    slices = _slice_pictures(plt, result, directory)
    bidding = _bidding_picture(plt, result, directory)
    points = "mean_points" in result
    rows = [("all", result)] + list(result["per_role"].items())
    lines = [f"# {result['agent']} vs {result['opponent']} ({result['game']})", "",
             f"Deal set `{result['deal_set']['name']}`: {result['deals']} deals, "
             f"{result['games']} games (mirrored seats), seed {result['seed']}, "
             f"git `{result['git_sha']}`.", "",
             "| slice | games | win rate [95% CI] | mean score [95% CI] |"
             + (" mean points [95% CI] |" if points else ""),
             "|---|---:|---|---|" + ("---|" if points else "")]
    for name, entry in rows:
        lines.append(f"| {name} | {entry['games']} | {_ci_text(entry, 'win_rate', '.3f')} | "
                     f"{_ci_text(entry, 'mean_score')} |"
                     + (f" {_ci_text(entry, 'mean_points')} |" if points else ""))
    if points:
        from .arena import POINTS_NOTE
        lines += ["", POINTS_NOTE[0].upper() + POINTS_NOTE[1:] + "."]
    lines += ["", "Tail (fraction of games unless named):", ""]
    lines += [f"- {k}: {v:.4g}" for k, v in result["tail"].items()]
    lines += ["", "Time per decision:", ""]
    lines += [f"- {side}: {t['ms_per_decision']:.3f} ms over {t['decisions']} decisions"
              for side, t in result["timing"].items() if t["decisions"]]
    lines += ["", "CIs: paired bootstrap over original deals (each deal's mean over its seat "
              "copies).", "", "![score distribution](scores.png)", "", "![per role](roles.png)", ""]
    for name, picture in slices:
        key = "mean_points" if points else "mean_score"
        lines += [f"## By {name}{' and role' if result.get(f'per_{name}_role') else ''}", "",
                  f"| {name} | games | win rate [95% CI] | {key.replace('_', ' ')} [95% CI] |",
                  "|---|---:|---|---|"]
        for value, entry in list(result[f"per_{name}"].items()) + list(result.get(f"per_{name}_role", {}).items()):
            lines.append(f"| {value} | {entry['games']} | {_ci_text(entry, 'win_rate', '.3f')} | "
                         f"{_ci_text(entry, key)} |")
        lines += ["", f"![by {name}]({picture})", ""]
    if bidding:
        b = result["bidding"]
        what = (f"What the declarations and the burial made of the agent's {b['games']} games: "
                "how often its team's declaration set the trump, how often the deal went no "
                "trump, and, when its team buried the kitty, how often the attackers took it back "
                "with the last trick, each with its 95% CI over deals; and the card points it "
                "buried. Its score as declarers and as attackers is the per-role table above."
                if result.get("game") == "shengji" else
                f"What the bidding made of the agent's {b['games']} games: how often it became "
                "landlord, how often the deal was void (nobody bid), how often it doubled "
                "(call-rob), each with its 95% CI over deals; and the base stake the bidding "
                "set. Its score as landlord and as a farmer is the per-role table above.")
        lines += ["## Bidding", "", what, "", "| figure | value |", "|---|---|"]
        for key in b:
            if key.endswith("_rate"):
                lines.append(f"| {key.replace('_', ' ')} | {_ci_text(b, key, '.3f')} |")
            elif isinstance(b[key], dict):
                lines.append(f"| {key} distribution | " + ", ".join(
                    f"{v}: {share:.1%}" for v, share in b[key].items()) + " |")
            elif key.startswith("mean_"):
                lines.append(f"| {key.replace('_', ' ')} | {b[key]:.3f} |")
        lines += ["", f"![bidding]({bidding})", ""]
    page = os.path.join(directory, "report.md")
    with open(page, "w") as f:
        f.write("\n".join(lines))
    return page


def _bidding_picture(plt, result: dict, directory: str) -> str | None:
    """The bidding block as a picture: its rates with CIs, and the base-stake distribution."""
    b = result.get("bidding")
    if not b:
        return None
    rates = [k for k in b if k.endswith("_rate")]
    dists = [k for k in b if isinstance(b[k], dict)]
    fig, axes = plt.subplots(1, 1 + len(dists), figsize=(4 + 3.5 * len(dists), 3.5), squeeze=False)
    means, err = _error_bars([{"v": b[k], "v_ci95": b[k + "_ci95"]} for k in rates], "v")
    axes[0][0].bar([k[:-5] for k in rates], means, yerr=err, capsize=4, color="#ccbb44")
    axes[0][0].set_ylim(0, 1)
    axes[0][0].set_title("bidding rates (95% CI)")
    for ax, key in zip(axes[0][1:], dists):
        ax.bar(list(b[key]), list(b[key].values()), color="#ee6677")
        ax.set_xlabel(key)
        ax.set_ylabel("share of games")
        ax.set_title("base stake the bidding set" if key == "stake" else key)
    fig.suptitle(f"{result['agent']} vs {result['opponent']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "bidding.png"), dpi=120)
    plt.close(fig)
    return "bidding.png"


def _slice_pictures(plt, result: dict, directory: str) -> list[tuple[str, str]]:
    """A bar picture per slice of the result (Shengji: `per_trump`), split by role, with CIs
    of the points when the game has them (else the score); returns (slice, file) pairs."""
    out = []
    key = "mean_points" if "mean_points" in result else "mean_score"
    for name in sorted(k[4:] for k in result if k.startswith("per_") and k != "per_role"
                       and k != "per_deal" and not k.endswith("_role")):
        table, by_role = result[f"per_{name}"], result.get(f"per_{name}_role", {})
        values = list(table)
        fig, ax = plt.subplots(figsize=(max(5, 0.6 * len(values) + 2), 3.5))
        width = 0.8 / (1 + len(result["per_role"]))
        series = [("all", [table[v] for v in values])]
        series += [(role, [by_role.get(f"{v} {role}") for v in values]) for role in result["per_role"]]
        for i, (label, entries) in enumerate(series):
            xs = [j + (i - len(series) / 2 + 0.5) * width for j, e in enumerate(entries) if e]
            kept = [e for e in entries if e]
            means, err = _error_bars(kept, key)
            ax.bar(xs, means, width=width, yerr=err, capsize=2, label=label)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(values)), values)
        ax.set_xlabel(name)
        ax.set_ylabel(key.replace("_", " ") + " (95% CI)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        picture = f"{name}.png"
        fig.savefig(os.path.join(directory, picture), dpi=120)
        plt.close(fig)
        out.append((name, picture))
    return out


def write_league_report(result: dict, directory: str) -> str:
    """Write `report.md` and `ladder.png` for a league; return the page."""
    plt = _pyplot()
    os.makedirs(directory, exist_ok=True)
    ladder = sorted(result["ladder"], key=lambda row: row["elo"])

    fig, ax = plt.subplots(figsize=(6, 0.6 * len(ladder) + 1.5))
    names = [row["agent"] for row in ladder]
    elo = [row["elo"] for row in ladder]
    err = [[row["elo"] - row["elo_ci95"][0] for row in ladder],
           [row["elo_ci95"][1] - row["elo"] for row in ladder]]
    ax.errorbar(elo, names, xerr=err, fmt="o", capsize=4, color="#228833")
    ax.set_xlabel(f"Elo (0 = {result['anchor'] or 'mean'}; 95% CI)")
    ax.set_title(f"league, {result['game']}, {result['deals']} deals per pair")
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "ladder.png"), dpi=120)
    plt.close(fig)

    lines = [f"# League ({result['game']})", "",
             f"Deal set `{result['deal_set']['name']}`: {result['deals']} deals per pair, "
             f"seed {result['seed']}, git `{result['git_sha']}`.", "",
             "| rank | agent | Elo [95% CI] |", "|---:|---|---|"]
    for rank, row in enumerate(sorted(result["ladder"], key=lambda r: -r["elo"]), 1):
        lo, hi = row["elo_ci95"]
        lines.append(f"| {rank} | `{row['agent']}` | {row['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}] |")
    lines += ["", "| agent | opponent | win rate [95% CI] | mean score [95% CI] |", "|---|---|---|---|"]
    for pair in result["pairs"]:
        lines.append(f"| `{pair['agent']}` | `{pair['opponent']}` | {_ci_text(pair, 'win_rate', '.3f')} | "
                     f"{_ci_text(pair, 'mean_score')} |")
    lines += ["", "Bradley-Terry on deals won (an agent's total score over its games of a deal "
              "against the other agent above zero), fitted by MM; CIs from resampling deals.", "",
              "![ladder](ladder.png)", ""]
    page = os.path.join(directory, "report.md")
    with open(page, "w") as f:
        f.write("\n".join(lines))
    return page

"""Dou Dizhu for people: a seat's view drawn as text, and why a typed move is refused."""
from __future__ import annotations

from collections import Counter

from ...errors import IllegalMove
from ._referee import canonical, classify, legal_moves


def render(obs) -> str:
    """The view of `obs.seat` as a few lines of text (what the terminal player sees)."""
    who = f"seat {obs.seat}" + (f" ({obs.role})" if obs.role else "")
    lines = [f"Dou Dizhu, {obs.phase}, {obs.bidding} bidding - you are {who}"]
    if obs.landlord is not None:
        lines.append(f"landlord: seat {obs.landlord}   kitty: {obs.kitty}   stake: {obs.stake}"
                     f"   bombs: {obs.bombs_played}")
    lines.append("cards left: " + "  ".join(f"seat {s}: {n}" for s, n in enumerate(obs.cards_left)))
    if obs.phase == "bidding":
        lines.append("bids: " + (", ".join(f"seat {s} {a}" for s, a in obs.bids) or "none yet"))
    else:
        recent = obs.plays[-6:]
        lines.append("last plays: " + (", ".join(f"seat {s} {m or 'pass'}" for s, m in recent) or "none yet"))
        lines.append(f"to beat: {obs.to_beat} (seat {obs.to_beat_seat})" if obs.to_beat else "you lead")
    lines.append(f"your hand: {obs.hand}")
    return "\n".join(lines)


def explain_move(hand: str, to_beat: str, move: str) -> str:
    """Why `move` cannot be played from `hand` against the standing `to_beat` ("" when it
    can). A pass is "" or the word "pass" in any case."""
    try:
        if not move or move.strip().lower() == "pass":  # "pass" as a person types it
            return "" if to_beat else "you lead: you must play cards, not pass"
        kind = classify(move)[0]
        if Counter(canonical(move)) - Counter(hand):
            return f"you do not hold {canonical(move)} (your hand: {canonical(hand)})"
        if canonical(move) in legal_moves(hand, to_beat):
            return ""
        return f"{canonical(move)} ({kind}) does not beat {to_beat} ({classify(to_beat)[0]})"
    except IllegalMove as exc:
        return str(exc)

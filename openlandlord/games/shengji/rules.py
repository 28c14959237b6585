"""Cards, the `Rules` value and the stateless rule functions (legal plays, trick winner, round
result) of the Shengji referee, over card strings; the work is done by the native `_referee`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ...errors import IllegalMove, NotAvailable, UserError
from . import _referee, classic

RANKS = "23456789TJQKA"
SUITS = "SHDC"
CATS = "SHDCT"  # the four plain suits, then "T" for the trump suit
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs", "T": "trumps"}
CARD_NAMES = tuple(r + s for s in SUITS for r in RANKS) + ("SJ", "BJ")
CARD_IDS = {name: i for i, name in enumerate(CARD_NAMES)}
END = "END"  # the factored-decision option "this lead is complete" (see the package docstring)

# Error codes of `_referee.play_error` and `_referee.classic_play_error`.
OK, WRONG_COUNT, NOT_IN_HAND, MUST_FOLLOW_SUIT, MUST_PLAY_PAIRS, NOT_A_UNIT = range(6)
MUST_PLAY_TRACTORS, MIXED_SUITS = classic.MUST_PLAY_TRACTORS, classic.MIXED_SUITS
NO_TRUMP = "N"


@dataclass(frozen=True)
class Rules:
    """A ruleset and the trump of one round: `Rules.tractor("7", "H")`,
    `Rules.classic("7", "H")` or `Rules.classic("7", "N")` (no trump suit)."""
    name: str
    trump_rank: str
    trump_suit: str

    @classmethod
    def tractor(cls, trump_rank, trump_suit: str) -> "Rules":
        return cls("tractor", _rank_of(trump_rank), _suit_of(trump_suit))

    @classmethod
    def classic(cls, trump_rank, trump_suit) -> "Rules":
        if trump_suit is None or (isinstance(trump_suit, str)
                                  and trump_suit.strip().upper() in ("N", "NONE", "NT")):
            return cls("classic", _rank_of(trump_rank), NO_TRUMP)
        return cls("classic", _rank_of(trump_rank), _suit_of(trump_suit))

    @property
    def rank_index(self) -> int:
        return RANKS.index(self.trump_rank)

    @property
    def suit_index(self) -> int:
        """0..3, or -1 for no trump suit."""
        return -1 if self.trump_suit == NO_TRUMP else SUITS.index(self.trump_suit)

    def table(self) -> "classic.ClassicTable":
        """The `classic` card order of this trump (the native table's arrays, read once per
        trump)."""
        return _classic_table(self.rank_index, self.suit_index)


@functools.lru_cache(maxsize=None)
def _classic_table(rank: int, suit: int) -> "classic.ClassicTable":
    return classic.ClassicTable(rank, suit)


def _rank_of(rank) -> str:
    if isinstance(rank, (int, np.integer)) and 2 <= rank <= 14:
        return RANKS[int(rank) - 2]
    if isinstance(rank, str) and len(rank) == 1 and rank.upper() in RANKS:
        return rank.upper()
    raise UserError(f"unknown trump rank {rank!r}; expected one of {' '.join(RANKS)} or 2..14")


def _suit_of(suit) -> str:
    if isinstance(suit, str) and len(suit) == 1 and suit.upper() in SUITS:
        return suit.upper()
    raise UserError(f"unknown trump suit {suit!r}; expected one of S H D C")


def counts(cards, what: str = "cards") -> np.ndarray:
    """The count vector of a list of card strings (each card exists twice)."""
    if isinstance(cards, str):
        raise IllegalMove(f"{what} must be a list of cards like ['7H', '7H'], not the string "
                          f"{cards!r}")
    try:
        cards = list(cards)
    except TypeError:
        raise IllegalMove(f"{what} must be a list of cards like ['7H', '7H'], got {cards!r}") from None
    out = bytearray(54)
    try:
        for card in cards:
            out[CARD_IDS[card]] += 1
    except (KeyError, TypeError):
        raise IllegalMove(f"unknown card {card!r} in {what}; cards are like 7H, TS, BJ, SJ") from None
    except ValueError:
        pass  # a count past 255: reported below as too many copies
    if max(out) > 2:
        over = [CARD_NAMES[i] for i in range(54) if out[i] > 2]
        raise IllegalMove(f"{what}: each card exists only twice, got more of {', '.join(over)}")
    return np.frombuffer(out, np.uint8)


def play_of(ids) -> tuple[str, ...]:
    return tuple(sorted(CARD_NAMES[i] for i in ids))


def names_of(vector: np.ndarray) -> list[str]:
    return [CARD_NAMES[i] for i in np.flatnonzero(vector) for _ in range(int(vector[i]))]


def card_table(rules: Rules):
    """(cat, strength, points) per card id under this trump; in `classic` the strength is the
    card's level (see classic.py)."""
    if rules.name == "classic":
        return _referee.classic_table(rules.rank_index, rules.suit_index)
    return _referee.card_order(rules.rank_index, rules.suit_index)


def _rules(rules) -> Rules:
    if not isinstance(rules, Rules):
        raise UserError(f"expected a Rules value such as Rules.tractor('2', 'H'), got {rules!r}")
    if rules.name not in ("tractor", "classic"):
        raise NotAvailable(f"ruleset {rules.name!r} is not implemented")
    return rules


def _lead_vector(rules: Rules, lead) -> np.ndarray | None:
    if lead is None:
        return None
    vector = counts(lead, "lead")
    if rules.name == "classic":
        if _referee.classic_play_error(rules.rank_index, rules.suit_index, vector, None,
                                       vector) != OK:
            raise IllegalMove(f"the lead {list(lead)} is not one or more cards of one suit")
    elif _referee.lead_kind(rules.rank_index, rules.suit_index, vector)[0] == 0:
        raise IllegalMove(f"the lead {list(lead)} is not a single, a pair or a tractor")
    return vector


def legal_plays(rules: Rules, hand, lead) -> list[tuple[str, ...]]:
    """Every distinct legal play from `hand` (sorted tuples, in sorted order); lead=None means
    the seat leads. In `classic` a lead may be any cards of one suit (a throw; whether it
    stands is judged against the other hands when it is played)."""
    rules = _rules(rules)
    hand_vector, lead_vector = counts(hand, "hand"), _lead_vector(rules, lead)
    if rules.name == "classic":
        _classic_hand(hand_vector)
        ids = _referee.classic_legal_play_ids(rules.rank_index, rules.suit_index, hand_vector,
                                              lead_vector)
    else:
        ids = _referee.legal_play_ids(rules.rank_index, rules.suit_index, hand_vector, lead_vector)
    return sorted(play_of(p) for p in ids)


def count_legal_plays(rules: Rules, hand, lead) -> int:
    """The exact number of distinct legal plays, counted without listing them."""
    rules = _rules(rules)
    hand_vector, lead_vector = counts(hand, "hand"), _lead_vector(rules, lead)
    if rules.name == "classic":
        _classic_hand(hand_vector)
        return int(_referee.classic_count_legal(rules.rank_index, rules.suit_index, hand_vector,
                                                lead_vector))
    return int(_referee.count_legal_ids(rules.rank_index, rules.suit_index, hand_vector,
                                        lead_vector))


def factored_options(rules: Rules, hand, lead, prefix=()) -> list[str]:
    """The distinct cards that can be added to the partial play `prefix` with a legal play still
    reachable (sorted); [] when `prefix` is complete. When leading, END closes a prefix that is
    already a legal lead but could still grow. Raises IllegalMove when no legal play contains
    `prefix`."""
    rules = _rules(rules)
    hand_vector, prefix_vector = counts(hand, "hand"), counts(prefix, "prefix")
    lead_vector = _lead_vector(rules, lead)
    if rules.name == "classic":
        return _classic_options(rules, hand_vector, lead_vector, prefix_vector, prefix)
    if lead_vector is None:
        # Leads are few (at most one per card, pair and tractor): list them and look.
        leads = _referee.legal_play_ids(rules.rank_index, rules.suit_index, hand_vector, None)
        options, complete = set(), False
        for ids in leads:
            rest = counts([CARD_NAMES[i] for i in ids]).astype(np.int16) - prefix_vector
            if (rest >= 0).all():
                complete = complete or not rest.any()
                options.update(CARD_NAMES[i] for i in np.flatnonzero(rest))
        if not options and not complete:
            raise IllegalMove(f"no legal lead contains {list(prefix)}")
        return sorted(options) + ([END] if complete and options else [])
    options = _referee.follow_options(rules.rank_index, rules.suit_index, hand_vector,
                                      lead_vector, prefix_vector)
    if options is None:
        raise IllegalMove(f"no legal play contains {list(prefix)}")
    return sorted(CARD_NAMES[i] for i in options)


def _classic_hand(hand_vector) -> None:
    if int(hand_vector.sum()) > 60:
        raise UserError("a hand of more than 60 cards is not a Shengji hand (33 at most: the "
                        "dealer before the burial)")


def _classic_options(rules, hand_vector, lead_vector, prefix_vector, prefix) -> list[str]:
    _classic_hand(hand_vector)
    if lead_vector is None:
        # A lead is any non-empty set of cards of one suit: stay in the prefix's suit.
        found = _referee.classic_lead_options(rules.rank_index, rules.suit_index, hand_vector,
                                              prefix_vector)
        if found is None:
            raise IllegalMove(f"no legal lead contains {list(prefix)}")
        options = sorted(CARD_NAMES[i] for i in found[0])
        return options + ([END] if found[1] else [])
    options = _referee.classic_follow_options(rules.rank_index, rules.suit_index, hand_vector,
                                              lead_vector, prefix_vector)
    if options is None:
        raise IllegalMove(f"no legal play contains {list(prefix)}")
    return sorted(CARD_NAMES[i] for i in options)


def _error(rules: Rules, hand, lead, play) -> tuple[int, np.ndarray, np.ndarray, np.ndarray | None]:
    rules = _rules(rules)
    hand_vector, play_vector = counts(hand, "hand"), counts(play, "play")
    lead_vector = _lead_vector(rules, lead)
    if rules.name == "classic":
        code = _referee.classic_play_error(rules.rank_index, rules.suit_index, hand_vector,
                                           lead_vector, play_vector)
    else:
        code = _referee.play_error(rules.rank_index, rules.suit_index, hand_vector, lead_vector,
                                   play_vector)
    return code, hand_vector, play_vector, lead_vector


def is_legal(rules: Rules, hand, lead, play) -> bool:
    return _error(rules, hand, lead, play)[0] == OK


def explain_illegal(rules: Rules, hand, lead, play) -> str:
    """The rule a play breaks, in words; "" when the play is legal."""
    code, hand_vector, play_vector, lead_vector = _error(rules, hand, lead, play)
    if code == OK:
        return ""
    if code == NOT_IN_HAND:
        missing = [CARD_NAMES[i] for i in np.flatnonzero(play_vector > hand_vector)]
        return f"cards not in hand: {', '.join(missing)}"
    if code == NOT_A_UNIT:
        return ("a lead must be one unit (a single, a pair or a tractor): there are no throws "
                "in the tractor ruleset")
    if code == MIXED_SUITS:
        return "a lead (a unit or a throw) must be cards of one suit"
    n = int(play_vector.sum())
    if lead_vector is None:
        return "a lead needs at least one card"
    if rules.name == "classic":
        fmt = classic.lead_format(rules.table(), lead_vector)
        led_cat, led_n, led_pairs = fmt.cat, fmt.n, fmt.pairs
    else:
        kind = _referee.lead_kind(rules.rank_index, rules.suit_index, lead_vector)
        led_cat, led_n, led_pairs = kind[1], kind[2], kind[3]
    if code == WRONG_COUNT:
        return f"wrong number of cards: the lead has {led_n}, the play has {n}"
    cats = np.asarray(card_table(rules)[0])
    in_suit = cats == led_cat
    suit = SUIT_NAMES[CATS[led_cat]]
    if code == MUST_FOLLOW_SUIT:
        return (f"must follow suit: you hold {int(hand_vector[in_suit].sum())} {suit} and played "
                f"{int(play_vector[in_suit].sum())} of them, but the lead asks for {led_n}")
    if code == MUST_PLAY_TRACTORS:
        return (f"must play tractors of the led suit: the lead has tractor(s) of "
                f"{', '.join(str(k) for k in fmt.tractors)} pairs and your {suit} can answer "
                "more of them than this play does")
    held = int(((hand_vector == 2) & in_suit).sum())
    played = int(((play_vector == 2) & in_suit).sum())
    return (f"must play pairs of the led suit: the lead has {led_pairs} pair(s), you hold "
            f"{held} pair(s) of {suit} and played {played} (a pair may not be broken to hide it)")


def trick_winner(rules: Rules, plays) -> int:
    """Index of the winning play, 0 = the leader."""
    rules = _rules(rules)
    if isinstance(plays, str) or not isinstance(plays, (list, tuple)):
        raise IllegalMove(f"a trick must be a list of plays, each a list of cards, got {plays!r}")
    vectors = [counts(p, "play") for p in plays]
    if not vectors:
        raise IllegalMove("a trick needs at least the lead")
    _lead_vector(rules, plays[0])
    if len(vectors) > 4 or any(int(v.sum()) != int(vectors[0].sum()) for v in vectors):
        raise IllegalMove("a trick has at most four plays, each as many cards as the lead")
    if rules.name == "classic":
        return int(_referee.classic_winner(rules.rank_index, rules.suit_index, vectors))
    return int(_referee.winner_of(rules.rank_index, rules.suit_index, vectors))


def round_result(attacker_points: int) -> tuple[str, int]:
    """("declarers" | "attackers", levels up) for the points the attackers captured. Above
    200 (possible in `classic`, with the kitty multiplied) each further 40 is one more level."""
    if (isinstance(attacker_points, bool) or not isinstance(attacker_points, (int, np.integer))
            or attacker_points < 0 or attacker_points % 5):
        raise UserError(f"attacker points must be a multiple of 5, at least 0, got {attacker_points!r}")
    if attacker_points == 0:
        return "declarers", 3
    if attacker_points < 40:
        return "declarers", 2
    if attacker_points < 80:
        return "declarers", 1
    return "attackers", (int(attacker_points) - 80) // 40

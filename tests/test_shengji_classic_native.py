"""The native `classic` rules (`_referee.pyx`) against the former pure-Python rules kept as the
test oracle (tests/shengji_classic_reference.py), on thousands of random positions: card tables,
unit decomposition and lead formats (throws, trump tractors, no-trump rounds), follow and lead
legality, listed and counted plays, factored options on prefixes, trick winners, beaten units of
throws, the kitty multiplier; plus exhaustive factored-option properties on small hands and the
native random round loop's invariants."""
import itertools

import numpy as np
import pytest

import shengji_classic_reference as ref
from openlandlord.games.shengji import (END, Rules, count_legal_plays, factored_options,
                                        legal_plays)
from openlandlord.games.shengji import _referee, classic
from openlandlord.games.shengji.rules import CARD_NAMES

TRUMPS = [(rank, suit) for rank in range(13) for suit in (-1, 0, 1, 2, 3)]


def vec(v):
    return np.ascontiguousarray(v, dtype=np.uint8)


def ids(v):
    return tuple(int(c) for c in np.repeat(np.arange(54), np.asarray(v, int)))


def random_trump(rng):
    return TRUMPS[rng.integers(len(TRUMPS))]


def random_lead(rng, t, cat=None, max_units=4):
    """A lead of one category built from its levels: tractors (trump tractors included),
    pairs and singles, often several units (a throw)."""
    cats = [c for c in range(5) if (t.cat == c).any()]
    cat = cats[rng.integers(len(cats))] if cat is None else cat
    levels = sorted(set(int(t.level[c]) for c in np.flatnonzero(t.cat == cat)))
    lead = np.zeros(54, np.int16)
    for _ in range(1 + int(rng.integers(max_units))):
        kind = rng.integers(3)
        lvl = levels[rng.integers(len(levels))]
        at = [int(c) for c in np.flatnonzero((t.cat == cat) & (t.level == lvl))]
        if kind == 0:
            c = at[rng.integers(len(at))]
            lead[c] = min(2, lead[c] + 1)
        else:
            length = 1 if kind == 1 else int(rng.integers(2, 4))
            for k in range(length):
                at = [int(c) for c in np.flatnonzero((t.cat == cat) & (t.level == lvl + k))]
                if not at:
                    break
                lead[at[rng.integers(len(at))]] = 2
    return lead, cat


def random_hand(rng, t, cat, size, exclude=None):
    """`size` cards, about half of them from `cat`, with pairs likely."""
    avail = np.full(54, 2, np.int16) - (0 if exclude is None else exclude)
    hand = np.zeros(54, np.int16)
    want_in = int(rng.integers(0, size + 1))
    while hand.sum() < size:
        pool = np.flatnonzero((avail - hand > 0) & ((t.cat == cat) if hand.sum() < want_in
                                                    else True))
        if not len(pool):
            pool = np.flatnonzero(avail - hand > 0)
        c = pool[rng.integers(len(pool))]
        take = 2 if (avail[c] - hand[c] >= 2 and rng.random() < 0.4
                     and hand.sum() + 2 <= size) else 1
        hand[c] += take
    return hand


def same_units(units, native):
    return [(u.pairs, u.top, tuple(u.cards)) for u in units] == \
        [(p, top, tuple(cards)) for p, top, cards in native]


def test_tables_match_the_reference():
    for rank, suit in TRUMPS:
        t = ref.ClassicTable(rank, suit)
        cat, level, points = _referee.classic_table(rank, suit)
        assert list(t.cat) == cat and list(t.level) == level and list(t.points) == points


def test_formats_units_and_pair_runs_match_the_reference():
    rng = np.random.default_rng(11)
    for _ in range(3000):
        rank, suit = random_trump(rng)
        t = ref.ClassicTable(rank, suit)
        lead, cat = random_lead(rng, t)
        fmt = ref.lead_format(t, lead)
        ncat, n, tractors, pairs, units = _referee.classic_format(rank, suit, vec(lead))
        assert (ncat, n, tractors, pairs) == (fmt.cat, fmt.n, fmt.tractors, fmt.pairs)
        assert same_units(fmt.units, units), (rank, suit, ids(lead))
        assert _referee.classic_pair_runs(rank, suit, vec(lead)) == ref.pair_runs(t, lead)
        assert _referee.classic_kitty_multiplier(rank, suit, vec(lead)) == ref.kitty_multiplier(fmt)


def test_follows_errors_counts_and_listings_match_the_reference():
    rng = np.random.default_rng(12)
    listed = tractors = 0
    for i in range(3000):
        rank, suit = random_trump(rng)
        t = ref.ClassicTable(rank, suit)
        lead, cat = random_lead(rng, t)
        n = int(lead.sum())
        hand = random_hand(rng, t, cat, int(rng.integers(n, min(n + 12, 26) + 1)), exclude=lead)
        fmt = ref.lead_format(t, lead)
        count = _referee.classic_count_legal(rank, suit, vec(hand), vec(lead))
        expected = ref.count_follows(t, hand, fmt)
        assert count == expected, (rank, suit, ids(hand), ids(lead))
        if count <= 3000:
            native = sorted(tuple(sorted(p)) for p in
                            _referee.classic_legal_play_ids(rank, suit, vec(hand), vec(lead)))
            assert native == sorted(tuple(sorted(p)) for p in ref.follows(t, hand, fmt))
            listed += 1
            legal = set(native)
        else:
            native = _referee.classic_legal_play_ids(rank, suit, vec(hand), vec(lead), 50)
            assert len(native) == 51
            legal = set(tuple(sorted(p)) for p in native)
        tractors += bool(fmt.tractors)
        # Error codes of random plays of the right size (and a few of legal ones).
        for _ in range(4):
            play = np.zeros(54, np.int16)
            pool = np.repeat(np.arange(54), hand)
            if rng.random() < 0.8 and len(pool) >= n:
                for c in rng.choice(pool, n, replace=False):
                    play[c] += 1
            else:
                for c in rng.choice(54, int(rng.integers(1, n + 2))):
                    play[c] = min(2, play[c] + 1)
            code = _referee.classic_play_error(rank, suit, vec(hand), vec(lead), vec(play))
            assert code == ref.follow_error(t, hand, fmt, play), \
                (rank, suit, ids(hand), ids(lead), ids(play))
            if code == 0:
                assert tuple(sorted(ids(play))) in legal or count > 3000
    assert listed > 2000 and tractors > 500


def test_follow_options_match_the_reference_on_prefixes():
    rng = np.random.default_rng(13)
    for _ in range(1500):
        rank, suit = random_trump(rng)
        t = ref.ClassicTable(rank, suit)
        lead, cat = random_lead(rng, t)
        n = int(lead.sum())
        hand = random_hand(rng, t, cat, int(rng.integers(n, min(n + 10, 25) + 1)), exclude=lead)
        fmt = ref.lead_format(t, lead)
        plays = _referee.classic_legal_play_ids(rank, suit, vec(hand), vec(lead), 200)
        base = plays[rng.integers(len(plays))]
        for _ in range(3):
            prefix = np.zeros(54, np.int16)
            if rng.random() < 0.7:
                for c in rng.choice(base, int(rng.integers(0, len(base) + 1)), replace=False):
                    prefix[c] += 1
            else:
                pool = np.repeat(np.arange(54), hand)
                size = int(rng.integers(0, min(n, len(pool)) + 1))
                for c in rng.choice(pool, size, replace=False):
                    prefix[c] += 1
            got = _referee.classic_follow_options(rank, suit, vec(hand), vec(lead), vec(prefix))
            assert got == ref.follow_options(t, hand, fmt, prefix), \
                (rank, suit, ids(hand), ids(lead), ids(prefix))


def test_leads_and_lead_options_match_the_reference():
    rng = np.random.default_rng(14)
    for _ in range(400):
        rank, suit = random_trump(rng)
        t = ref.ClassicTable(rank, suit)
        hand = random_hand(rng, t, int(rng.integers(5)), int(rng.integers(1, 10)))
        got = sorted(_referee.classic_legal_play_ids(rank, suit, vec(hand), None))
        assert got == sorted(ref.leads(t, hand))
        assert _referee.classic_count_legal(rank, suit, vec(hand), None) == ref.count_leads(t, hand)
        for play in got[:20]:
            assert _referee.classic_play_error(rank, suit, vec(hand), None, vec(np.bincount(
                play, minlength=54))) == 0
    for _ in range(300):
        rank, suit = random_trump(rng)
        t = ref.ClassicTable(rank, suit)
        hand = random_hand(rng, t, int(rng.integers(5)), 25)
        assert _referee.classic_count_legal(rank, suit, vec(hand), None) == ref.count_leads(t, hand)
        play = np.zeros(54, np.int16)
        for c in rng.choice(54, int(rng.integers(1, 5))):
            play[c] = min(2, play[c] + 1)
        assert _referee.classic_play_error(rank, suit, vec(hand), None, vec(play)) == \
            ref.lead_error(t, hand, play)


def test_trick_winners_match_the_reference():
    rng = np.random.default_rng(15)
    ruffs = 0
    for _ in range(3000):
        rank, suit = random_trump(rng)
        t = ref.ClassicTable(rank, suit)
        lead, cat = random_lead(rng, t, cat=4 if rng.random() < 0.2 else None)
        n = int(lead.sum())
        plays = [lead]
        used = lead.copy()
        for _ in range(3):
            # A follower's play: a legal follow from a random hand, or any n cards of one
            # category (trumps often, to exercise the ruff rules).
            if rng.random() < 0.5:
                hand = random_hand(rng, t, 4 if rng.random() < 0.5 else cat, min(25, n + 6),
                                   exclude=used)
                options = _referee.classic_legal_play_ids(rank, suit, vec(hand), vec(lead), 30)
                play = np.bincount(options[rng.integers(len(options))], minlength=54)
            else:
                plain = [c for c in range(4) if (t.cat == c).any()]
                other = 4 if rng.random() < 0.7 else plain[rng.integers(len(plain))]
                rows, _ = random_lead(rng, t, cat=other, max_units=3)
                play = np.zeros(54, np.int16)
                for c in np.repeat(np.arange(54), rows)[:n]:
                    play[c] += 1
                while play.sum() < n:
                    pool = np.flatnonzero((t.cat == other) & (play < 2))
                    if not len(pool):
                        pool = np.flatnonzero(play < 2)
                    play[pool[rng.integers(len(pool))]] += 1
            plays.append(np.asarray(play, np.int16))
            used = np.minimum(2, used + play)
        k = int(rng.integers(1, 5))
        got = _referee.classic_winner(rank, suit, [vec(p) for p in plays[:k]])
        want = ref.trick_winner(t, plays[:k])
        assert got == want, (rank, suit, [ids(p) for p in plays[:k]])
        ruffs += want > 0
    assert ruffs > 300


def test_throw_checks_match_the_reference():
    rng = np.random.default_rng(16)
    failed = 0
    for _ in range(3000):
        rank, suit = random_trump(rng)
        t = ref.ClassicTable(rank, suit)
        lead, cat = random_lead(rng, t, max_units=5)
        fmt = ref.lead_format(t, lead)
        used = lead.copy()
        others = []
        for _ in range(3):
            hand = random_hand(rng, t, cat, int(rng.integers(0, 12)), exclude=used)
            used = used + hand
            others.append(hand)
        beaten = ref.beaten_units(t, fmt, others)
        got = _referee.classic_beaten_units(rank, suit, vec(lead), [vec(h) for h in others])
        assert [fmt.units[i] for i in got] == beaten
        played, failing = _referee.classic_throw(rank, suit, vec(lead), [vec(h) for h in others])
        if fmt.is_throw and beaten:
            unit = min(beaten, key=lambda u: (u.size, u.top))
            assert tuple(sorted(played)) == tuple(sorted(unit.cards))
            failed += 1
        else:
            assert played == ids(lead)
    assert failed > 300


def test_library_wrappers_use_the_engine():
    t = Rules.classic("2", "S").table()
    assert isinstance(t, classic.ClassicTable)
    fmt = classic.lead_format(t, np.bincount([14, 14, 15, 15, 18], minlength=54))  # 3H3H4H4H 7H
    assert fmt.tractors == (2,) and fmt.is_throw and fmt.units[0].cards == (14, 14, 15, 15)
    trump_tractor = np.bincount([1, 1, 2, 2], minlength=54)  # 3S3S4S4S, trump 2S
    assert classic.lead_format(t, trump_tractor).tractors == (2,)
    assert not hasattr(classic, "follows")  # the rule work is native


# --- exhaustive factored options on small hands ---------------------------------------------
def reached(rules, hand, lead):
    out, seen = set(), set()

    def walk(prefix):
        options = factored_options(rules, hand, lead, list(prefix))
        assert options or prefix, "a prefix without a completion was offered"
        if not options:
            out.add(tuple(sorted(prefix)))
        for card in options:
            if card == END:
                out.add(tuple(sorted(prefix)))
                continue
            key = tuple(sorted(prefix + (card,)))
            if key not in seen:
                seen.add(key)
                walk(key)
    walk(())
    return out


def test_factored_options_reach_exactly_the_legal_plays_on_small_hands():
    rng = np.random.default_rng(17)
    checked = 0
    while checked < 150:
        rank, suit = random_trump(rng)
        rules = Rules.classic("23456789TJQKA"[rank], "SHDC"[suit] if suit >= 0 else "N")
        t = ref.ClassicTable(rank, suit)
        lead, cat = random_lead(rng, t, max_units=3)
        n = int(lead.sum())
        if n > 6:
            continue
        hand = random_hand(rng, t, cat, int(rng.integers(n, 9)), exclude=lead)
        hand_cards = [CARD_NAMES[c] for c in ids(hand)]
        lead_cards = [CARD_NAMES[c] for c in ids(lead)]
        leading = checked % 5 == 0 and len(hand_cards) <= 7
        lead_arg = None if leading else lead_cards
        legal = set(legal_plays(rules, hand_cards, lead_arg))
        brute = {p for k in ({n} if lead_arg else range(1, len(hand_cards) + 1))
                 for p in {tuple(sorted(c)) for c in itertools.combinations(hand_cards, k)}
                 if (ref.lead_error(t, hand, _counts(p)) if leading else
                     ref.follow_error(t, hand, ref.lead_format(t, lead), _counts(p))) == 0}
        assert legal == brute
        assert count_legal_plays(rules, hand_cards, lead_arg) == len(legal)
        assert reached(rules, hand_cards, lead_arg) == legal
        checked += 1


def _counts(cards):
    v = np.zeros(54, np.int16)
    for c in cards:
        v[CARD_NAMES.index(c)] += 1
    return v


# --- the native random round loop -------------------------------------------------------------
def test_native_classic_rounds_keep_every_invariant():
    scores, stats = _referee.classic_simulate(500, 7, check=True, stats=True)
    assert len(scores) == 500 and min(scores) >= 0
    assert stats["throws"] > 100 and 0 < stats["failed_throws"] <= stats["throws"]
    assert stats["kitty_bonus"] > 0
    assert all(s % 5 == 0 for s in scores)


def test_native_classic_loop_is_deterministic():
    assert _referee.classic_simulate(50, 3) == _referee.classic_simulate(50, 3)
    assert _referee.classic_simulate(50, 3) != _referee.classic_simulate(50, 4)


@pytest.mark.parametrize("bad", [(13, 0), (0, -2), (0, 4)])
def test_native_classic_rejects_bad_trumps(bad):
    with pytest.raises(ValueError):
        _referee.classic_table(*bad)


def test_selfcheck_runs_the_native_classic_loop(capsys):
    from openlandlord.games.shengji.selfcheck import main
    assert main(["--rules", "classic", "--rounds", "300", "--python-rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "native classic loop: 300 rounds, every play checked: ok" in out
    assert "classic: 2 random rounds through Round: invariants ok" in out


def test_native_rounds_replay_through_the_python_round():
    # The native loop and the `Round` interface agree on whole rounds: the same moves (throws as
    # attempted) give the same failed throws, penalty, kitty bonus and attackers' score.
    from openlandlord.games.shengji import Round
    failed = 0
    for seed in range(60):
        rank, suit, dealer, hands, kitty, moves, score, penalty = \
            _referee.classic_recorded_round(seed)
        rules = Rules.classic("23456789TJQKA"[rank], "SHDC"[suit] if suit >= 0 else "N")
        names = [[CARD_NAMES[c] for c in ids(np.frombuffer(h, np.uint8))] for h in hands]
        r = Round.from_hands(names, rules, dealer=dealer,
                             kitty=[CARD_NAMES[c] for c in ids(np.frombuffer(kitty, np.uint8))])
        for move in moves:
            r.play([CARD_NAMES[c] for c in move])
        assert r.done and r.score() == score and r.penalty == penalty, seed
        failed += len(r.observation(0).failed_throws)
    assert failed > 20

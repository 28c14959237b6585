"""The Shengji featurizer: trump-relative invariance (relabelling the suits permutes nothing
the model sees), belief-target conservation and void masks, the action multi-hot round
trip, partial prefixes of factored follows, and the shapes the model is built from."""
import numpy as np
import pytest
from openlandlord import agents, features  # noqa: E402
from openlandlord.games.shengji import features as fs  # noqa: E402
from openlandlord.games.shengji import END, Round, Rules  # noqa: E402
from openlandlord.games.shengji.rules import CARD_NAMES  # noqa: E402


def relabel(card: str, suits: dict) -> str:
    return card if card in ("SJ", "BJ") else card[0] + suits[card[1]]


def relabel_play(play, suits) -> tuple:
    return tuple(sorted(relabel(c, suits) for c in play))


def twin_rounds(seed: int, suits: dict):
    """A tractor round and the same round with every suit renamed by `suits` (trump too)."""
    a = Round.new(seed)
    rules_b = Rules.tractor(a.rules.trump_rank, suits[a.rules.trump_suit])
    hands = [[relabel(c, suits) for c in h] for h in a.hands()]
    b = Round.from_hands(hands, rules_b, dealer=a.dealer, levels=a.levels)
    return a, b


def listable(r) -> bool:
    return r.count_legal() <= 256


def built_play(r, rng) -> tuple:
    """A random play of a follow too large to list, built card by card."""
    prefix: tuple = ()
    while options := r.factored_options(prefix):
        card = options[int(rng.integers(len(options)))]
        if card == END:
            break
        prefix += (card,)
    return prefix


def decisions(a, b, suits, moves: int, policy):
    """Play both rounds in step (b mirrors a's moves), yielding (obs_a, legal_a, obs_b, legal_b)."""
    rng = np.random.default_rng(0)
    for _ in range(moves):
        if a.done:
            return
        if not listable(a):
            move = built_play(a, rng)
        else:
            legal_a, legal_b = a.legal_moves(), b.legal_moves()
            assert sorted(relabel_play(m, suits) for m in legal_a) == sorted(legal_b)
            yield a.observation(a.current_seat), legal_a, b.observation(b.current_seat), legal_b
            move = legal_a[agents.choose(policy.scores(a.observation(a.current_seat), legal_a))]
        a.play(move)
        b.play(relabel_play(move, suits))


@pytest.mark.parametrize("suits", [
    {"S": "H", "H": "S", "D": "D", "C": "C"},     # seed 3: two plain suits; seed 11: the trump suit
    {"S": "D", "H": "C", "D": "H", "C": "S"},     # a 4-cycle: every suit renamed
])
def test_renaming_suits_changes_no_feature(suits):
    policy = agents.make("rule:expert", 0)
    checked = 0
    for seed in (3, 11):   # trumps: clubs, spades
        a, b = twin_rounds(seed, suits)
        for obs_a, legal_a, obs_b, legal_b in decisions(a, b, suits, 70, policy):
            fa, fb = fs.featurize(obs_a, legal_a), fs.featurize(obs_b, legal_b)
            np.testing.assert_array_equal(fa["state_tokens"], fb["state_tokens"])
            for key in ("unseen", "capacity", "void", "role"):
                np.testing.assert_array_equal(fa[key], fb[key])
            row_b = {m: i for i, m in enumerate(legal_b)}
            order = [row_b[relabel_play(m, suits)] for m in legal_a]
            np.testing.assert_array_equal(fa["actions"], fb["actions"][order])
            hands_a = a.hands()
            hands_b = [tuple(relabel(c, suits) for c in h) for h in hands_a]
            np.testing.assert_array_equal(fs.belief_target(obs_a, hands_a),
                                          fs.belief_target(obs_b, hands_b))
            # The card in a slot is the renamed card of the same slot.
            names_a = [CARD_NAMES[c] for c in fs.slot_order(obs_a)]
            names_b = [CARD_NAMES[c] for c in fs.slot_order(obs_b)]
            assert [relabel(c, suits) for c in names_a] == names_b
            checked += 1
    assert checked >= 100


def test_a_suit_change_is_seen():
    # The same hands with another trump suit are a different position: the features differ.
    a = Round.new(5)
    other = next(s for s in "SHDC" if s != a.rules.trump_suit)
    b = Round.from_hands(a.hands(), Rules.tractor(a.rules.trump_rank, other), dealer=a.dealer)
    fa = fs.featurize(a.observation(a.current_seat), a.legal_moves())
    fb = fs.featurize(b.observation(b.current_seat), b.legal_moves())
    assert not np.array_equal(fa["state_tokens"], fb["state_tokens"])


def random_states(count: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    policy = agents.make("random", seed)
    for i in range(count):
        r = Round.new(int(rng.integers(1 << 30)), dealer=i % 4, levels=(2 + i % 5, 2 + i % 3))
        for _ in range(int(rng.integers(0, 100))):
            if r.done:
                break
            if not listable(r):
                r.play(built_play(r, rng))
                continue
            legal = r.legal_moves()
            r.play(legal[agents.choose(policy.scores(r.observation(r.current_seat), legal))])
        if not r.done and listable(r):
            yield r


def test_belief_target_conserves_cards_and_respects_voids():
    voids = 0
    for r in random_states(120):
        obs = r.observation(r.current_seat)
        f = fs.featurize(obs, r.legal_moves())
        target = fs.belief_target(obs, r.hands())
        assert target.shape == (54, 3) and target.dtype == np.int32
        np.testing.assert_array_equal(target.sum(axis=1), f["unseen"])
        np.testing.assert_array_equal(target.sum(axis=0), f["capacity"])
        assert np.all(target.T[f["void"] == 1] == 0)
        assert f["unseen"].sum() == f["capacity"].sum()
        assert 0 <= target.max() <= 2
        voids += int(f["void"].sum() > 0)
    assert voids > 20  # the void masks were really exercised


def test_action_multi_hot_round_trips_to_the_play():
    for r in random_states(40, seed=1):
        obs = r.observation(r.current_seat)
        legal = r.legal_moves()
        f = fs.featurize(obs, legal)
        order = fs.slot_order(obs)
        assert sorted(order.tolist()) == list(range(54))
        counts = np.rint(f["actions"][:, :54] * 2).astype(int)
        for row, play in zip(counts, legal):
            back = tuple(sorted(CARD_NAMES[order[s]] for s in np.flatnonzero(row) for _ in range(row[s])))
            assert back == play


def test_kinds_and_winning_flags():
    r = Round.new(11)
    obs = r.observation(r.current_seat)
    legal = r.legal_moves()
    f = fs.featurize(obs, legal)
    kind = f["actions"][:, fs._A_KIND:fs._A_KIND + 4].argmax(axis=1)
    for k, play in zip(kind, legal):
        expected = 0 if len(play) == 1 else (1 if len(play) == 2 else 2)
        assert k == expected, play
    assert not f["actions"][:, fs._A_WINS].any()          # a lead wins nothing yet
    r.play(max(legal, key=len))
    obs = r.observation(r.current_seat)
    legal = r.legal_moves()
    f = fs.featurize(obs, legal)
    from openlandlord.games.shengji import trick_winner
    for play, wins in zip(legal, f["actions"][:, fs._A_WINS]):
        plays = [c for _, c in obs.trick] + [play]
        assert bool(wins) == (trick_winner(r.rules, plays) == 1)


def void_follow():
    """A seat void in hearts facing a three-pair heart tractor: a huge follow set."""
    rules = Rules.tractor("2", "S")
    lead = ["3H", "3H", "4H", "4H", "5H", "5H"]
    deck = [c for c in CARD_NAMES for _ in range(2) if c not in ("3H", "4H", "5H")]
    hearts = [c for c in deck if c[1] == "H" and c[0] != "2"]
    rest = [c for c in deck if c not in hearts]
    others = hearts + rest[48:]
    hands = [lead + rest[27:48], rest[:27], others[:27], others[27:]]
    r = Round.from_hands(hands, rules, dealer=0)
    r.play(lead)
    return r


def test_factored_prefixes_are_flagged_partial():
    r = void_follow()
    assert r.count_legal() > 256
    obs = r.observation(r.current_seat)
    prefix = ()
    for step in range(6):
        options = r.factored_options(prefix)
        assert options and END not in options
        candidates = [prefix + (card,) for card in options]
        f = fs.featurize(obs, candidates)
        a = f["actions"]
        assert np.all(a[:, fs._A_PARTIAL] == (step < 5))
        np.testing.assert_allclose(a[:, fs._A_NEED], (5 - step) / 6 if step < 5 else 0.0)
        prefix = candidates[0]
    assert r.factored_options(prefix) == []
    r.play(prefix)


def test_dims_match_the_arrays():
    dims = features.dims("shengji")
    r = Round.new(2)
    f = features.featurize(r.observation(r.current_seat), r.legal_moves())
    assert f["state_tokens"].shape == (dims["max_tokens"], dims["state_feat_dim"])
    assert f["actions"].shape[1] == dims["action_feat_dim"]
    assert f["unseen"].shape == (dims["belief_slots"],)
    assert f["void"].shape == (dims["belief_holders"], dims["belief_slots"])
    assert 0 <= f["role"] < dims["num_roles"] and dims["max_tokens"] <= 64
    assert f["role"] == (r.current_seat - r.dealer) % 4
    batch = features.collate([f, f])
    assert batch["state_tokens"].shape == (2, dims["max_tokens"], dims["state_feat_dim"])


def test_lead_safety_features_match_a_card_count():
    """Feature version 2: for every lead, the unseen cards (pairs, for a pair or tractor) of
    its category that could beat it, counted here from the card table in card-id space,
    and the void flags of its suit read straight from the observation."""
    from openlandlord.games.shengji.rules import CARD_IDS, card_table

    leads = safe = voided = 0
    for r in random_states(150, seed=2):
        obs = r.observation(r.current_seat)
        if obs.trick:
            continue
        legal = r.legal_moves()
        actions = fs.featurize(obs, legal)["actions"]
        cat, strength, _ = (np.asarray(a) for a in card_table(r.rules))
        unseen = np.full(54, 2)
        for card in obs.hand:
            unseen[CARD_IDS[card]] -= 1
        for _, trick, _ in obs.tricks:
            for _, cards in trick:
                for card in cards:
                    unseen[CARD_IDS[card]] -= 1
        rel = [(obs.seat + k) % 4 for k in range(4)]
        for play, row in zip(legal, actions):
            ids = np.array([CARD_IDS[c] for c in play])
            same = cat == cat[ids[0]]
            if len(play) == 1:
                beaters = int(unseen[same & (strength > strength[ids].min())].sum())
            else:
                top = strength[ids].max() if len(play) >= 4 else strength[ids].min()
                beaters = int((same & (strength > top) & (unseen == 2)).sum())
            assert row[fs._A_BEATERS] == pytest.approx(min(beaters, 8) / 8), play
            assert row[fs._A_SAFE] == (beaters == 0), play
            suit = "SHDCT"[int(cat[ids[0]])]
            plain = suit != "T"
            assert row[fs._A_OPP_VOID] == (plain and (suit in obs.voids[rel[1]] or suit in obs.voids[rel[3]]))
            assert row[fs._A_PARTNER_VOID] == (plain and suit in obs.voids[rel[2]])
            leads += 1
            safe += beaters == 0
            voided += bool(row[fs._A_OPP_VOID])
    assert leads > 300 and 0 < safe < leads and voided > 0


def test_follows_carry_no_lead_safety():
    r = Round.new(5)
    r.play(r.legal_moves()[0])
    f = fs.featurize(r.observation(r.current_seat), r.legal_moves())
    assert not f["actions"][:, fs._A_BEATERS:fs._A_PARTNER_VOID + 1].any()

"""The `classic` PIMC teacher (games/shengji/_pimc_classic.pyx): its rollout policies play
only legal classic moves, its worlds are consistent with what the seat knows, it scores play
decisions (throws included) and the burial, and generation records the classic decisions
(declarations, the burial card by card, play) for the student."""
import json

import numpy as np
import pytest

from openlandlord.agents import make
from openlandlord.agents.loop import answer, decisions, drive
from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.games import spec
from openlandlord.games.shengji import _pimc_classic as native
from openlandlord.games.shengji import pimc
from openlandlord.games.shengji.classic import ClassicTable
from openlandlord.games.shengji.rules import Rules

SHENGJI = spec("shengji")


@pytest.mark.parametrize("policy", ["rule", "random"])
def test_rollout_policies_play_legal_classic_rounds(policy):
    scores = native.checked_rule_rounds(300, 5, policy)    # raises on any illegal lead or follow
    assert len(scores) == 300 and min(scores) >= 0 and all(s % 5 == 0 for s in scores)


def test_the_rule_rollout_beats_the_random_one_as_attackers():
    # Not a proof of strength, a sanity check of the direction: in self-play the two sides
    # play alike, but a rule policy must not give away its points as random play does.
    rule = np.mean(native.checked_rule_rounds(400, 9, "rule"))
    rand = np.mean(native.checked_rule_rounds(400, 9, "random"))
    assert 20 < rule < 200 and 20 < rand < 200


def test_worlds_with_a_hidden_kitty_respect_sizes_voids_and_cards():
    rules = Rules.classic("7", "H")
    rng = np.random.default_rng(3)
    deck = np.repeat(np.arange(54), 2)
    for trial in range(30):
        unseen_ids = rng.choice(deck, size=8 + 3 * 6, replace=False)
        unseen = np.bincount(unseen_ids, minlength=54).astype(np.uint8)
        masks = [int(rng.integers(0, 32)) & 0b01111 for _ in range(3)]
        try:
            worlds = native.sample_worlds(rules.rank_index, rules.suit_index, unseen, [6, 6, 6], masks, 8, 5, trial)
        except ValueError:
            continue                      # the voids leave no room: refused, never a bad world
        cat = ClassicTable(rules.rank_index, rules.suit_index).cat
        for hands, kitty in worlds:
            hands = np.frombuffer(hands, np.uint8).reshape(3, 54)
            kitty = np.frombuffer(kitty, np.uint8)
            assert (hands.sum(axis=0) + kitty == unseen).all()
            assert list(hands.sum(axis=1)) == [6, 6, 6] and kitty.sum() == 8
            for s in range(3):
                for k in range(5):
                    if masks[s] >> k & 1:
                        assert hands[s][cat == k].sum() == 0


def _classic_positions(deals=2, seed=2_000_000_000):
    """(state copy, decision with its complete legal moves) along rule:expert classic deals."""
    bot = make("rule:expert", 1)
    out = []
    for d in range(deals):
        state = SHENGJI.new_deal(seed + d, rules="classic", dealer=d % 4, trump_rank="any")

        def choose(dec):
            if dec.legal is not None and len(dec.legal) > 1 and dec.obs.phase in ("play", "bury"):
                legal = dec.legal if dec.prefix is None else sorted(
                    {SHENGJI.complete(state, c, dec.obs) for c in dec.legal})
                out.append((dec.obs, legal))
            return answer(bot, dec) if dec.legal is not None else None
        drive(decisions(state, SHENGJI.legal_cap), choose)
    return out


def test_search_scores_every_classic_decision_and_is_deterministic():
    positions = _classic_positions()
    phases = {obs.phase for obs, _ in positions}
    assert phases == {"bury", "play"}
    throws = 0
    for obs, legal in positions[::3]:
        decision = pimc.decision(obs, legal, "points")
        assert decision.searched
        which = list(range(len(legal)))
        a = decision.search(which, 0, 3, "rule", 11)
        assert a == decision.search(which, 0, 3, "rule", 11)          # same seed, same scores
        assert len(a) == len(legal) and all(np.isfinite(a))
        throws += any(len(set(m)) > 2 and not obs.trick for m in legal)
    assert throws > 0                                                   # throws were searched


def test_declarations_are_searched_with_declare_search_only():
    state = SHENGJI.new_deal(5, rules="classic")
    while state.phase == "declare" and len(state.legal_moves()) < 2:
        state.play(state.legal_moves()[0])
    if state.phase != "declare":
        pytest.skip("no declaration choice in this deal")
    obs, legal = state.observation(state.current_seat), state.legal_moves()
    decision = pimc.decision(obs, legal, "levels")
    assert decision.searched and decision.bidding        # tests/test_pimc_classic_declare.py
    assert decision.declaring
    for spec in ("pimc:worlds=4,bid=rule", "pimc:worlds=4", "pimc:worlds=4,declare=rule"):
        assert np.allclose(make(spec, 1).scores(obs, legal), decision.rule_scores()), spec
    searched = make("pimc:worlds=4,declare=search", 1).scores(obs, legal)
    assert searched.shape == (len(legal),) and np.isfinite(searched).all()
    with pytest.raises(UserError):
        make("pimc:declare=maybe")


def test_generate_records_classic_burial_declarations_and_play(tmp_path):
    from openlandlord.distill import dataset

    out = tmp_path / "data"
    assert main(["generate", "--game", "shengji", "--rules", "classic", "--trump-rank", "any",
                 "--teacher", "pimc:worlds=2,objective=points", "--deals", "2", "--workers", "1",
                 "--out", str(out)]) == 0
    ds = dataset.open(str(out))
    phases = {}
    for record in ds.records():
        key = (record.obs.phase, record.factored >= 0)
        phases[key] = phases.get(key, 0) + 1
    # The burial built card by card (8 steps a deal), declarations and play, all recorded.
    assert phases.get(("bury", True), 0) >= 8 * 2 - 4
    assert phases.get(("play", False), 0) > 20
    assert any(phase == "declare" for phase, _ in phases), phases
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rules"] == {"rules": "classic", "trump_rank": "any"}


def test_generation_records_a_classic_lead_too_large_to_list_as_one_decision_over_the_candidates(tmp_path):
    # The network players choose such a lead among the game's `play_candidates`
    # (agents.ListedPlays); generation records it in that form, not card by card.
    from openlandlord.distill import dataset

    out = tmp_path / "data"
    assert main(["generate", "--game", "shengji", "--rules", "classic", "--trump-rank", "any",
                 "--teacher", "rule:expert", "--deals", "4", "--workers", "1", "--seed", "5",
                 "--out", str(out)]) == 0
    listed_leads = 0
    for record in dataset.open(str(out)).records():
        if record.obs.phase != "play" or record.obs.trick:
            continue
        assert record.factored == -1, "a classic lead was recorded card by card"
        candidates = [SHENGJI.move_text(c) for c in SHENGJI.play_candidates(record.obs)]
        listed_leads += [SHENGJI.move_text(m) for m in record.legal] == candidates
    assert listed_leads > 0


def test_the_classic_ship_recipe(tmp_path, capsys):
    from openlandlord.distill import ship

    assert ship.main(["--game", "shengji", "--rules", "classic", "--out", str(tmp_path / "w"),
                      "--dry-run"]) == 0
    commands = [line[2:] for line in capsys.readouterr().out.splitlines() if line.startswith("$ ")]
    generate = [c for c in commands if c.startswith("openlandlord generate")]
    assert generate and all("--rules classic --trump-rank any" in c for c in generate)
    assert any("--deal-set shengji-classic-dev-260" in c for c in commands)
    assert ship.recipe_for("shengji", {"rules": "classic"}).models == "shengji-classic"
    assert ship.recipe_for("shengji", {}).teacher == spec("shengji").ship_recipe["teacher"]


def test_a_dealer_who_declared_may_have_buried_its_declaration_regression():
    # Regression: generation died ("a seat is known to hold more cards than it has") when the
    # dealer had declared with cards it then buried: they were taken as known in its hand.
    import dataclasses
    positions = _classic_positions(deals=1)
    obs, legal = next((o, l) for o, l in positions if o.phase == "play" and o.seat != o.dealer)
    rank = obs.trump_rank
    declared = dataclasses.replace(obs, declaration=(obs.dealer, (f"{rank}H", f"{rank}H")),
                                   cards_left=tuple(0 if s == obs.dealer else n
                                                    for s, n in enumerate(obs.cards_left)))
    decision = pimc.decision(declared, legal, "points")
    assert all(k.sum() == 0 for k in decision.known)


def test_bid_rule_declare_and_bury_split_the_rule_bots_part():
    """`bid=rule-declare` leaves only the declarations to the rule bot, `bid=rule-bury` only
    the burial (built card by card): the two halves of `bid=rule`, to split what a learned
    bidder's own declarations and burial gain or lose."""
    own = make("student:data/models/shengji-classic", 1)
    rule = SHENGJI.rule_bot("normal", 1)
    split = {kind: make(f"student:data/models/shengji-classic,bid=rule-{kind}", 1)
             for kind in ("declare", "bury")}
    seen = set()
    for d in range(3):
        state = SHENGJI.new_deal(2_000_000_000 + d, rules="classic", dealer=d % 4, trump_rank="any")

        def choose(dec):
            if dec.legal is not None and len(dec.legal) > 1 and dec.obs.phase in split:
                seen.add(dec.obs.phase)
                for kind, agent in split.items():
                    want = (rule if kind == dec.obs.phase else own).scores(dec.obs, dec.legal)
                    assert np.allclose(agent.scores(dec.obs, dec.legal), want), (kind, dec.obs.phase)
            return answer(rule, dec) if dec.legal is not None else None
        drive(decisions(state, SHENGJI.legal_cap), choose)
    assert seen == {"declare", "bury"}


def test_pimc_bid_rule_bury_takes_the_rule_burial_and_searches_the_rest():
    positions = [(obs, legal) for obs, legal in _classic_positions(1) if obs.phase == "bury"]
    assert positions
    obs, legal = positions[0]
    rule = pimc.decision(obs, legal, "points").rule_scores()
    assert np.allclose(make("pimc:worlds=4,bid=rule-bury", 1).scores(obs, legal), rule)
    searched = make("pimc:worlds=4,bid=rule-declare", 1).scores(obs, legal)
    assert searched.shape == rule.shape and not np.allclose(searched, rule)
    with pytest.raises(UserError):
        make("pimc:bid=rule-maybe")


def _bury_state(seed=2_000_000_003):
    """A classic deal played by rule:expert up to the dealer's burial."""
    bot = make("rule:expert", 1)
    state = SHENGJI.new_deal(seed, rules="classic", trump_rank="any")
    while state.phase != "bury":
        legal = state.legal_moves()
        state.play(legal[int(np.argmax(bot.scores(state.observation(state.current_seat), legal)))])
    return state


def test_pimc_as_a_player_searches_its_burial_as_generation_does_regression():
    """The docs said `pimc` searches the classic burial, but as a player (eval, play) its
    `choose_play` took the rule bot's: only dataset generation searched it. Now the player
    builds it card by card as generation does: each step's candidates (the referee's burial
    options, from the observation alone) scored by their completed burials."""
    from collections import Counter

    from openlandlord.games.shengji.rule import ShengjiRuleBot
    state = _bury_state()
    obs = state.observation(state.current_seat)
    prefix: tuple = ()
    twin = make("pimc:objective=points,worlds=4", 7)
    while options := state.factored_options(prefix):
        step = SHENGJI.build_step(obs, prefix)
        assert step == [(prefix + (c,), SHENGJI.complete(state, prefix + (c,), obs)) for c in options]
        plays = [full for _, full in step]
        distinct = sorted(set(plays))
        scored = twin.scores(obs, distinct)
        prefix = step[int(np.argmax([scored[distinct.index(p)] for p in plays]))][0]
    assert SHENGJI.build_step(obs, prefix) == []
    burial = make("pimc:objective=points,worlds=4", 7).choose_play(obs)
    assert burial == tuple(sorted(prefix)) and len(burial) == 8
    assert not Counter(burial) - Counter(obs.hand)
    rule = ShengjiRuleBot("expert").choose_play(obs)
    for text in ("pimc:worlds=4,bid=rule-bury", "pimc:worlds=4,bid=rule"):
        assert make(text, 7).choose_play(obs) == rule
    state.play(burial)                                    # the referee takes it
    assert SHENGJI.build_step(state.observation(state.current_seat), ()) is None
    assert spec("doudizhu").build_step(None, ()) is None


def test_classic_eval_reports_what_declarations_and_burial_made():
    """A `classic` evaluation's bidding block: the agent's team's declarations setting the
    trump, no trump, and for the games its team buried the kitty, the buried points and
    whether the attackers took them back."""
    from eval import dealsets
    from eval.arena import evaluate
    result, records = evaluate("shengji", "rule:expert", "random",
                               dealsets.adhoc("shengji", 4, 3, {"rules": "classic", "trump_rank": "any"}),
                               workers=1, progress=False)
    b = result["bidding"]
    assert b["games"] == result["games"] == 8
    for key in ("declared_rate", "no_trump_rate", "kitty_lost_rate"):
        assert 0.0 <= b[key] <= 1.0 and b[f"{key}_ci95"][0] <= b[key] <= b[f"{key}_ci95"][1]
    assert abs(sum(b["buried_points"].values()) - 1.0) < 1e-9
    declarers = [r for r in records if r["role"] == "declarers"]
    assert declarers and all("buried_points" in r["bidding"] for r in declarers)
    assert not any("buried_points" in r["bidding"] for r in records if r["role"] == "attackers")
    tractor, _ = evaluate("shengji", "rule:expert", "random", dealsets.adhoc("shengji", 2, 3),
                          workers=1, progress=False)
    assert "bidding" not in tractor


def test_the_classic_recipe_starts_from_a_student_whose_model_fits_classic_training():
    # The classic student is fine-tuned from the shipped tractor generalist (`init=` in the
    # recipe's train_set): `train` accepts it only when its model config is the one a
    # classic run builds, which the shipped classic student's config records.
    from openlandlord.distill import ship
    from openlandlord.model import load_checkpoint

    recipe = ship.recipe_for("shengji", {"rules": "classic"})
    inits = [item.split("=", 1)[1] for item in recipe.train_set if item.startswith("init=")]
    assert len(inits) == 1
    _, start, _ = load_checkpoint(str(ship.ROOT / inits[0]))
    _, classic, _ = load_checkpoint(str(ship.ROOT / "data" / "models" / recipe.models))
    assert start.to_dict() == classic.to_dict()


def test_regression_eval_outcome_of_a_classic_deal_nobody_declared():
    """Regression: eval's `bidding` block read `state.declaration[0]` whenever it was not None,
    but a deal in which every seat passed has the declaration `()`: the 6,000-deal classic bids
    set stopped on such a deal with an IndexError. Every seat passes here; the outcome says
    nobody declared."""
    from openlandlord.agents.loop import play_deal
    from openlandlord.games import Seating

    class PassingRule:
        """rule:expert that passes every declaration."""
        def __init__(self):
            self.bot = make("rule:expert", 0)

        def __getattr__(self, name):
            return getattr(self.bot, name)

        def scores(self, obs, legal):
            return np.array([1.0 if tuple(m) == () else 0.0 for m in legal]) if obs.phase == "declare" \
                else self.bot.scores(obs, legal)

    shengji = spec("shengji")
    state = shengji.new_game(2_050_000_123, rules="classic")
    play_deal(state, shengji.legal_cap, [PassingRule() for _ in range(4)])
    assert state.done and state.declaration == ()
    out = shengji.outcome(state, Seating(0, 0, 2_050_000_123, (0, 2), (("rules", "classic"),)))
    assert out["bidding"]["declared"] == 0.0

"""The PettingZoo AEC environments (`openlandlord.envs.doudizhu_v0`, `shengji_v0`): PettingZoo's
own api, seed and render tests for every option combination, random play to the end with
the game's invariants, and the action <-> move mapping of every legal move met."""
import itertools

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from openlandlord.envs import doudizhu_v0, shengji_v0
from openlandlord.envs.actions import DoudizhuActions, ShengjiActions
from openlandlord.errors import IllegalMove, UserError
from openlandlord.games import END, spec

MODULES = {"doudizhu": doudizhu_v0, "shengji": shengji_v0}



def _combinations():
    """Every combination of the game's option choices, split into those `new_game` takes
    (Shengji: both rulesets at every trump rank, and both as a match) and those it refuses (a
    match at a trump rank other than 2)."""
    taken, refused = [], []
    for game in MODULES:
        g = spec(game)
        for values in itertools.product(*(o.choices for o in g.options)):
            options = dict(zip((o.name for o in g.options), values))
            try:
                g.new_game(0, **options)
            except UserError:
                refused.append((game, options))
            else:
                taken.append((game, options))
    return taken, refused


COMBINATIONS, REFUSED = _combinations()


def _id(case):
    game, options = case
    return game + "-" + "-".join(options.values())


def test_the_combinations():
    assert len([c for c in COMBINATIONS if c[0] == "doudizhu"]) == 3
    assert len([c for c in COMBINATIONS if c[0] == "shengji"]) == 2 * 14 + 2
    assert all(c[0] == "shengji" and c[1]["mode"] == "match" for c in REFUSED)


@pytest.mark.parametrize("case", COMBINATIONS, ids=_id)
def test_pettingzoo_api_and_seed_tests(case):
    game, options = case
    module = MODULES[game]
    api_test(module.env(**options), num_cycles=8)
    seed_test(lambda: module.env(**options), num_cycles=8)


@pytest.mark.parametrize("game", MODULES)
def test_api_test_through_a_whole_game(game):
    # Enough cycles to finish a deal, so api_test checks how every agent terminates.
    options = {"rules": "classic"} if game == "shengji" else {"bidding": "call-rob"}
    api_test(MODULES[game].env(**options), num_cycles=400)


@pytest.mark.parametrize("game", MODULES)
def test_render_test_and_metadata(game):
    options = {"rules": "classic"} if game == "shengji" else {"bidding": "call-rob"}
    render_test(lambda **kw: MODULES[game].env(**options, **kw))
    env = MODULES[game].env(render_mode="ansi", **options)
    assert env.metadata["name"] == f"{game}_v0"
    env.reset(seed=1)
    assert isinstance(env.render(), str) and env.render()


def test_refused_combinations_are_refused_when_made():
    for game, options in REFUSED:
        with pytest.raises(UserError, match="match starts at level 2"):
            MODULES[game].env(**options)
    with pytest.raises(UserError, match="bidding"):
        doudizhu_v0.env(bidding="auction")
    with pytest.raises(UserError, match="no option"):
        doudizhu_v0.env(rules="classic")


def test_same_seed_same_deal_and_observations():
    env_a, env_b = shengji_v0.env(rules="classic"), shengji_v0.env(rules="classic")
    env_a.reset(seed=11)
    env_b.reset(seed=11)
    assert env_a.unwrapped.state.hands() == spec("shengji").new_game(11, rules="classic").hands()
    for agent in env_a.possible_agents:
        a, b = env_a.observe(agent), env_b.observe(agent)
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    env_b.reset(seed=12)
    assert env_a.unwrapped.state.hands() != env_b.unwrapped.state.hands()
    # Unseeded resets follow the last seed given: the same sequence of deals.
    env_a.reset()
    env_b.reset(seed=11)
    env_b.reset()
    assert env_a.unwrapped.state.hands() == env_b.unwrapped.state.hands()


def _check_mask(env, obs):
    """Every masked action is legal and every legal move is masked: the mask is the legal set."""
    raw, codec = env.unwrapped, env.unwrapped.codec
    state, mask = raw.state, obs["action_mask"]
    marked = set(np.flatnonzero(mask).tolist())
    assert marked and marked == set(raw.legal_actions())
    phase = state.observation(state.current_seat).phase
    if isinstance(codec, DoudizhuActions):
        legal = state.legal_moves()
        assert len(marked) == state.count_legal() == len(legal)
        assert {codec.index(m, state.phase == "bidding") for m in legal} == marked
        for move in legal:                       # the round trip, move -> action -> move
            assert codec.move(codec.index(move, state.phase == "bidding")) == move
        assert all(codec.is_bid(a) == (state.phase == "bidding") for a in marked)
    elif phase == "declare":
        legal = [tuple(m) for m in state.legal_moves()]
        assert len(marked) == len(legal)
        for move in legal:
            assert codec.declaration(codec.declaration_index(move), legal) == move
    else:
        options = state.factored_options(raw._prefix)
        assert {codec.option_index(o) for o in options} == marked
        for option in options:
            assert codec.option(codec.option_index(option)) == option
        assert (ShengjiActions.END in marked) == (END in options)


def _random_games(game, options, games, seed, check_illegal=True):
    env = MODULES[game].env(**options)
    g = spec(game)
    rng = np.random.default_rng(seed)
    steps = 0
    for k in range(games):
        env.reset(seed=seed + k)
        while env.agents:
            obs, reward, terminated, truncated, _ = env.last()
            assert not truncated
            if terminated:
                env.step(None)
                continue
            assert reward == 0 and env.agent_selection == f"player_{env.unwrapped.state.current_seat}"
            _check_mask(env, obs)
            if check_illegal and steps % 7 == 0:
                illegal = np.flatnonzero(obs["action_mask"] == 0)
                before = env.unwrapped.state.to_json()
                with pytest.raises(IllegalMove):
                    env.step(int(rng.choice(illegal)))
                with pytest.raises(IllegalMove):
                    env.step(env.unwrapped.codec.n)
                assert env.unwrapped.state.to_json() == before
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
            g.check_invariants(env.unwrapped.state)
            if env.unwrapped.state.done:
                payoffs = env.unwrapped.state.payoffs()
                assert env.rewards == {f"player_{s}": p for s, p in enumerate(payoffs)}
                assert sum(payoffs) == 0
                assert all(env.terminations.values())
    return steps


@pytest.mark.parametrize("bidding", ["none", "points", "call-rob"])
def test_random_doudizhu_games_to_the_end(bidding):
    assert _random_games("doudizhu", {"bidding": bidding}, games=20, seed=100) > 0


@pytest.mark.parametrize("rules", ["tractor", "classic"])
def test_random_shengji_rounds_to_the_end(rules):
    assert _random_games("shengji", {"rules": rules, "trump_rank": "any"}, games=6, seed=200) > 0


@pytest.mark.parametrize("rules", ["tractor", "classic"])
def test_a_random_shengji_match_to_the_end(rules):
    # A whole match (many rounds): the env plays every one and pays +1 / -1 at the end.
    steps = _random_games("shengji", {"rules": rules, "mode": "match"}, games=1, seed=7,
                          check_illegal=False)
    assert steps > 1000


def test_a_shengji_play_is_built_card_by_card():
    # Seat to move keeps the turn while its play is half built; the others see no prefix.
    env = shengji_v0.env()
    env.reset(seed=3)
    codec = env.unwrapped.codec
    for _ in range(200):
        agent = env.agent_selection
        obs = env.observe(agent)
        legal = np.flatnonzero(obs["action_mask"])
        cards = [a for a in legal if a < 54]
        if not cards:
            env.step(int(legal[0]))
            continue
        env.step(int(cards[0]))
        if env.unwrapped._prefix:
            assert env.agent_selection == agent
            mine = env.observe(agent)["prefix"]
            assert mine[cards[0]] == 1 and mine.sum() == 1
            other = env.possible_agents[(env.possible_agents.index(agent) + 1) % 4]
            assert env.observe(other)["prefix"].sum() == 0
            assert not env.observe(other)["action_mask"].any()
            assert "play so far" in env.unwrapped.render_seat(env.unwrapped.state.current_seat)
            assert codec.option(cards[0]) in env.unwrapped._prefix
            return
    pytest.fail("no play of two or more cards in 200 steps")


def test_observation_holds_the_featurizer_state_tokens():
    from openlandlord.features import featurize
    env = doudizhu_v0.env(bidding="points")
    env.reset(seed=5)
    state = env.unwrapped.state
    obs = env.observe(env.agent_selection)
    f = featurize(state.observation(state.current_seat), state.legal_moves())
    n = f["state_tokens"].shape[0]
    assert obs["n_tokens"] == n and obs["role"] == f["role"]
    assert np.array_equal(obs["observation"][:n], f["state_tokens"])
    assert not obs["observation"][n:].any()
    # Shengji: the slot order ties the canonical slot tokens to the card actions.
    from openlandlord.games.shengji.features import slot_order
    env = shengji_v0.env(rules="classic")
    env.reset(seed=5)
    state = env.unwrapped.state
    obs = env.observe(env.agent_selection)
    assert np.array_equal(obs["slot_order"], slot_order(state.observation(state.current_seat)))


def test_step_before_reset_and_a_non_integer_action():
    env = doudizhu_v0.env()
    with pytest.raises(Exception, match="reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(IllegalMove, match="not an integer"):
        env.step(1.5)


def test_without_the_rl_extra_the_import_names_it():
    import subprocess
    import sys
    code = ("import sys; sys.modules['pettingzoo'] = None\n"
            "from openlandlord.errors import NotAvailable\n"
            "try:\n    from openlandlord.envs import doudizhu_v0\n"
            "except NotAvailable as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "openlandlord[rl]" in out.stdout

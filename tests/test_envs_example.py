"""The VecEnv example (docs/examples/vecenv_reinforce.py) runs end to end at a tiny size and its
policy learns: the landlord's mean reward against random farmers rises from the first block of
games to the last (seeded, so the run is the same every time; the rise holds across seeds, see
the docstring's full-size run)."""


def test_vecenv_example_reward_rises(capsys, load_example):
    example = load_example("vecenv_reinforce")
    curve = example.train(games=600, num_envs=64, seed=0, block=200)
    assert len(curve) == 3
    assert curve[-1] > curve[0] + 0.25 and curve[-1] > 0.3, curve
    example.main(["--games", "60", "--envs", "8"])
    assert "landlord's mean reward" in capsys.readouterr().out

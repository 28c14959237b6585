"""Shengji as a PettingZoo AEC environment (docs/envs.md; the class is `aec.CardGameEnv`).

    from openlandlord.envs import shengji_v0
    env = shengji_v0.env(rules="classic")    # rules: tractor (default), classic;
    env.reset(seed=0)                        # mode: deal, match; trump_rank: 2..A, any

Agents "player_0".."player_3" are the seats (partners 0 and 2, 1 and 3); 57 actions
(`actions.ShengjiActions`): a play or burial is built one card (or END) a step, a
declaration is one step. `mode="match"` is a whole match, rewarded +1 / -1 at its end.
"""
from .aec import CardGameEnv, wrapped


def raw_env(render_mode: str | None = None, **options) -> CardGameEnv:
    return CardGameEnv("shengji", render_mode=render_mode, **options)


def env(render_mode: str | None = None, **options):
    return wrapped(raw_env(render_mode, **options))

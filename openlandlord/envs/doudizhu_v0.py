"""Dou Dizhu as a PettingZoo AEC environment (docs/envs.md; the class is `aec.CardGameEnv`).

    from openlandlord.envs import doudizhu_v0
    env = doudizhu_v0.env(bidding="call-rob")    # bidding: none (default), points, call-rob
    env.reset(seed=0)

Agents "player_0".."player_2" are the seats; 27,480 actions (`actions.DoudizhuActions`: the
canonical plays, then the bid words).
"""
from .aec import CardGameEnv, wrapped


def raw_env(render_mode: str | None = None, **options) -> CardGameEnv:
    return CardGameEnv("doudizhu", render_mode=render_mode, **options)


def env(render_mode: str | None = None, **options):
    return wrapped(raw_env(render_mode, **options))

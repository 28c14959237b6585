"""The web table (`openlandlord serve`): play either game in the browser against any agents,
watch replays of recorded games, and keep ranking points.

`server` is the ASGI app (starlette, the optional `[web]` extra); `session` one game at a
table, driven by the one decision loop; `views` what a person sees of a game (shared with
the terminal table); `records` game records and their replay; `ranking` the points file.
Only `server` needs the extra: `play` and `eval` use the others without it.
"""

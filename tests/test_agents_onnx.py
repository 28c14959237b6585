"""The `onnx:FILE` agent: the MLX student's scores (to 1e-4) on real positions of both games,
legal lists scored in chunks and Shengji plays built card by card included; a position's
scores the same whatever else is in the batch; clear errors for bad files and specs."""
import numpy as np
import pytest

from openlandlord.agents import choose, make, parse_spec
from openlandlord.agents.onnx_agent import make_onnx
from openlandlord.errors import UserError
from openlandlord.export import latency
from openlandlord.export import onnx as onnx_export
from openlandlord.games import new_deal
from openlandlord.games.shengji import END


@pytest.fixture(scope="module", params=["doudizhu", "shengji"])
def exported(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    checkpoint = latency.default_checkpoint(request.param, str(tmp / "student"))
    return request.param, checkpoint, onnx_export.export(checkpoint, str(tmp / "student.onnx"))


@pytest.mark.parametrize("chunk", [8, 64])
def test_scores_equal_the_mlx_student(exported, chunk):
    game, checkpoint, path = exported
    student, agent = make(f"student:{checkpoint}"), make(f"onnx:path={path},chunk={chunk}")
    items = [(s.observation(s.current_seat), s.legal_moves()) for s in latency.decision_states(game, deals=2)]
    assert any(len(legal) > 8 for _, legal in items)       # some positions are chunked at chunk=8
    got, want = agent.scores_batch(items), student.scores_batch(items)
    for (_, legal), g, w in zip(items, got, want):
        assert g.shape == (len(legal),)
        np.testing.assert_allclose(g, w, atol=1e-4)


def test_batch_equals_single(exported):
    game, _, path = exported
    agent = make(f"onnx:path={path},chunk=16")
    items = [(s.observation(s.current_seat), s.legal_moves()) for s in latency.decision_states(game, deals=1)][:40]
    together = agent.scores_batch(items)
    for (obs, legal), batched in zip(items, together):
        np.testing.assert_array_equal(agent.scores(obs, legal), batched)


def test_shengji_play_built_card_by_card(tmp_path):
    # Deal 16 reaches a follow with more legal plays than the referee lists: it is built
    # card by card from the referee's factored candidates (one-card-longer prefixes, and
    # END: "this play is complete"), each candidate list scored by both agents.
    checkpoint = latency.default_checkpoint("shengji", str(tmp_path / "student"))
    path = onnx_export.export(checkpoint, str(tmp_path / "student.onnx"))
    student, agent, bot = make(f"student:{checkpoint}"), make(f"onnx:{path}"), make("rule", 0)
    state = new_deal("shengji", 16)
    while True:
        try:
            legal = state.legal_moves()
        except UserError:
            break
        state.play(legal[choose(bot.scores(state.observation(state.current_seat), legal))])
        assert not state.done
    obs = state.observation(state.current_seat)
    prefix, lists = (), 0
    while options := state.factored_options(prefix):
        candidates = [prefix if card == END else prefix + (card,) for card in options]
        want = student.scores(obs, candidates)
        np.testing.assert_allclose(agent.scores(obs, candidates), want, atol=1e-4)
        lists += 1
        pick = choose(want)
        if options[pick] == END:
            break
        prefix = candidates[pick]
    assert lists >= 2 and len(prefix) >= 2


def test_bad_files_and_specs(tmp_path, exported):
    game, checkpoint, path = exported
    with pytest.raises(UserError, match="does not exist"):
        make(f"onnx:{tmp_path / 'none.onnx'}")
    with pytest.raises(UserError, match="needs a model"):
        make_onnx(parse_spec("onnx:chunk=4"))
    with pytest.raises(UserError, match="unknown option"):
        make(f"onnx:path={path},slots=3")
    from openlandlord.export.coreml import function_signatures
    from openlandlord.export.torch_mirror import load_torch_student
    plain = onnx_export.export_functions(checkpoint, {"main": function_signatures(
        load_torch_student(checkpoint).config, 8, 34)["main"]}, str(tmp_path))["main"]
    with pytest.raises(UserError, match="not made by openlandlord export"):
        make(f"onnx:{plain}")
    other = "shengji" if game == "doudizhu" else "doudizhu"
    state = latency.decision_states(other, deals=1)[0]
    with pytest.raises(UserError, match=f"plays {game}, not {other}"):
        make(f"onnx:{path}").scores(state.observation(state.current_seat), state.legal_moves())


def test_the_exported_file_plays_as_the_student_from_the_command_line(tmp_path, capsys):
    """`openlandlord export --out FILE.onnx`, then `eval --agent onnx:FILE`: the same games as
    `student:DIR` (the scores agree to ~1e-7, so every argmax does)."""
    import json

    from openlandlord.cli import main
    checkpoint = latency.default_checkpoint("doudizhu", str(tmp_path / "student"))
    assert main(["export", "--checkpoint", checkpoint, "--out", str(tmp_path / "s.onnx")]) == 0
    figures = []
    for agent in (f"onnx:{tmp_path / 's.onnx'}", f"student:{checkpoint}"):
        out = tmp_path / f"{agent[:4]}.json"
        assert main(["eval", "--game", "doudizhu", "--agent", agent, "--opponent", "rule",
                     "--deals", "6", "--workers", "1", "--json", str(out),
                     "--ledger", str(tmp_path / "ledger.jsonl")]) == 0
        result = json.loads(out.read_text())
        figures.append({k: result[k] for k in ("win_rate", "mean_score", "per_deal", "moves")})
    assert figures[0] == figures[1]

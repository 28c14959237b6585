"""What an evaluation records beyond the agent specs (`engines`: a student's weights and the
engine of its forward pass), and `compare` refusing two results whose opponent differs there."""
import json
import shutil

import pytest

from openlandlord.agents import describe
from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.eval import compare
from openlandlord.model.checkpoint import file_sha256

SHIPPED = "data/models/doudizhu"


@pytest.fixture
def ledger_file(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(tmp_path / "ledger.jsonl"))


def evaluate(tmp_path, name, agent, opponent, deals=2):
    out = tmp_path / f"{name}.json"
    assert main(["eval", "--game", "doudizhu", "--agent", agent, "--opponent", opponent,
                 "--deals", str(deals), "--seed", "5", "--workers", "1", "--no-records",
                 "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_describe_names_a_students_weights_and_engine_and_nothing_for_other_agents():
    found = describe(f"student:{SHIPPED},backend=mlx")
    assert found == {"checkpoint": SHIPPED, "backend": "mlx",
                     "weights_sha256": file_sha256(f"{SHIPPED}/weights.safetensors")}
    assert describe(f"student:{SHIPPED}")["backend"] == "native"      # built for the tests
    assert describe("rule") == {} and describe("pimc:worlds=4") == {}
    with pytest.raises(UserError, match="does not exist"):
        describe("student:no/such/dir")


def test_an_evaluation_records_both_sides_engines(tmp_path, ledger_file, capsys):
    result = evaluate(tmp_path, "a", f"student:{SHIPPED},backend=mlx", "rule")
    assert result["engines"] == {"agent": describe(f"student:{SHIPPED},backend=mlx"),
                                 "opponent": {}}
    assert "agent: checkpoint data/models/doudizhu" in capsys.readouterr().out


def test_compare_refuses_an_opponent_of_other_weights_under_the_same_spec(tmp_path, ledger_file):
    """The same `student:DIR` after a reship is another opponent: compare says so (exit 2)
    instead of pairing games against two different players."""
    opponent = tmp_path / "opponent"
    shutil.copytree(SHIPPED, opponent)
    a = evaluate(tmp_path, "a", "rule", f"student:{opponent}")
    b = evaluate(tmp_path, "b", "random", f"student:{opponent}")
    assert compare.compare(a, b)["deals"] == 2
    b["engines"]["opponent"]["weights_sha256"] = "0" * 64
    with pytest.raises(UserError, match="opponent of another weights_sha256"):
        compare.compare(a, b)
    b["engines"]["opponent"] = dict(a["engines"]["opponent"], backend="mlx")
    with pytest.raises(UserError, match="opponent of another backend"):
        compare.compare(a, b)
    del b["engines"]                       # results written before engines were recorded
    assert compare.compare(a, b)["deals"] == 2
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b2.json").write_text(json.dumps(dict(a, engines={"agent": {}, "opponent": {
        **a["engines"]["opponent"], "weights_sha256": "1" * 64}})))
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b2.json")]) == 2


def test_a_searchs_nested_students_are_described_and_compared():
    """`pimc:leaf=student:DIR` / `belief=student:DIR` consult a student through the native
    forward pass: describe names it under its key, and compare refuses an opponent whose
    nested student changed weights."""
    found = describe(f"pimc:leaf=student:{SHIPPED},depth=2")
    assert found == {"leaf": {"checkpoint": SHIPPED, "backend": "native",
                              "weights_sha256": file_sha256(f"{SHIPPED}/weights.safetensors")}}
    assert set(describe("pimc:belief=student:data/models/shengji")) == {"belief"}
    a = {"deal_set": "x", "opponent": "o", "game": "doudizhu", "seed": 0, "mode": "deal",
         "agent": "a", "per_deal": {"score": [1.0, 0.0]}, "engines": {"opponent": found}}
    b = json.loads(json.dumps(a))
    compare.compare(a, b)
    b["engines"]["opponent"]["leaf"]["weights_sha256"] = "0" * 64
    with pytest.raises(UserError, match="opponent of another leaf weights_sha256"):
        compare.compare(a, b)


def test_a_league_records_each_agents_engines(tmp_path, ledger_file, capsys):
    out = tmp_path / "league.json"
    agents = [f"student:{SHIPPED},backend=mlx", "rule", "random"]
    assert main(["league", "--game", "doudizhu", "--agents", *agents, "--deals", "2", "--seed", "5",
                 "--workers", "1", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["engines"] == {agents[0]: describe(agents[0]), "rule": {}, "random": {}}
    assert f"{agents[0]}: checkpoint {SHIPPED}, weights_sha256 " in capsys.readouterr().out

"""The web table's JSON API (`openlandlord serve`): every endpoint, and bad input refused with
a 400 and a message while the server keeps serving."""
import os

import pytest

starlette = pytest.importorskip("starlette", reason="the [web] extra (starlette) is not installed")
pytest.importorskip("httpx", reason="starlette's test client needs httpx (the [test] extra)")

from starlette.testclient import TestClient  # noqa: E402

from openlandlord.web import records  # noqa: E402
from openlandlord.web.server import create_app  # noqa: E402


@pytest.fixture()
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENLANDLORD_RECORDS", str(tmp_path / "records"))
    monkeypatch.setenv("OPENLANDLORD_RANKING", str(tmp_path / "ranking.json"))
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


def play_out(client, state, limit=2000):
    """Play the human's seat with the hint until the game ends; returns the final state."""
    for _ in range(limit):
        if state["done"]:
            return state
        assert state["human_to_move"]
        r = client.post(f"/api/games/{state['id']}/move", json={"move": state["hint"]})
        assert r.status_code == 200, r.json()
        state = r.json()
    raise AssertionError("the game did not end")


def test_doudizhu_game_played_through_the_api(client):
    r = client.post("/api/games", json={"game": "doudizhu", "bidding": "call-rob",
                                        "seats": ["human", "rule", "rule:expert"], "seed": 7})
    assert r.status_code == 200
    state = r.json()
    assert state["id"] and state["human_to_move"] and state["to_move"] == 0
    assert state["hint"] in state["legal"]
    again = client.get(f"/api/games/{state['id']}").json()
    assert again["id"] == state["id"] and again["legal"] == state["legal"]
    final = play_out(client, state)
    assert final["done"] and final["result"] and final["legal"] is None
    assert final["outcome"] and final["record"]
    # Ranking: Normal is the weakest opponent; a win earns 30, a loss 0.
    board = client.get("/api/leaderboard").json()
    assert board["players"][0]["player"] == "you" and board["players"][0]["games"] == 1
    assert board["players"][0]["points"] == (30 if final["payoffs"][0] > 0 else 0) == final["points"]


@pytest.mark.parametrize("rules", ["tractor", "classic"])
def test_shengji_round_with_advice_and_trick_winners(client, rules):
    r = client.post("/api/games?advice=1", json={"game": "shengji", "rules": rules,
                                                 "seats": ["human", "rule:easy", "rule", "rule:easy"],
                                                 "seed": 3})
    state = r.json()
    assert r.status_code == 200 and not state["done"]
    advice = state["advice"]
    assert advice["move"] == state["hint"]
    if state["legal"] is not None and len(state["legal"]) > 1:
        assert sorted(m for m, _ in advice["scores"]) == sorted(state["legal"])
    final = play_out(client, state)
    assert final["rounds"] and "round over" in final["rounds"][-1]["text"]
    assert any("wins the trick" in line["text"] for line in final["log"])
    assert "your team" in final["outcome"]


def test_bots_only_game_runs_to_the_end_at_once(client):
    state = client.post("/api/games", json={"game": "doudizhu", "seats": ["rule", "rule", "random"],
                                            "seed": 1}).json()
    assert state["done"] and state["to_move"] is None and not state["human_to_move"]


def test_illegal_move_gets_the_referees_message_and_changes_nothing(client):
    state = client.post("/api/games", json={"game": "doudizhu", "seats": ["human", "rule", "rule"],
                                            "seed": 2}).json()
    r = client.post(f"/api/games/{state['id']}/move", json={"move": "3456"})
    assert r.status_code == 400 and r.json()["error"]
    r = client.post(f"/api/games/{state['id']}/move", json={"move": "pass"})
    assert r.status_code == 400 and "lead" in r.json()["error"]
    assert client.get(f"/api/games/{state['id']}").json()["legal"] == state["legal"]


@pytest.mark.parametrize("body, words", [
    ({"game": "chess", "seats": ["human"]}, "unknown game"),
    ({"game": "doudizhu", "seats": ["human", "rule"]}, "3 agent specs"),
    ({"game": "doudizhu", "seats": ["human", "rule", "nobody"]}, "unknown agent"),
    ({"game": "doudizhu", "bidding": "auction", "seats": ["human", "rule", "rule"]}, "bidding"),
    ({"game": "doudizhu", "rules": "classic", "seats": ["human", "rule", "rule"]}, "rules"),
    ({"game": "doudizhu", "seats": ["human", "rule", "rule"], "seed": "x"}, "seed"),
    ({"game": "doudizhu", "seats": ["human", "rule", "rule"], "colour": 1}, "unknown field"),
    ([1, 2], "JSON object"),
])
def test_bad_new_game_requests_are_400(client, body, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400
    assert words in r.json()["error"]


def test_bad_moves_and_ids(client):
    r = client.post("/api/games", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games/nope/move", json={"move": "3"}).status_code == 404
    state = client.post("/api/games", json={"game": "doudizhu", "seats": ["human", "rule", "rule"],
                                            "seed": 2}).json()
    for body in ({}, {"move": 3}, {"move": None}, "33"):
        r = client.post(f"/api/games/{state['id']}/move", json=body)
        assert r.status_code == 400 and r.json()["error"], body
    done = client.post("/api/games", json={"game": "doudizhu", "seats": ["rule", "rule", "rule"],
                                           "seed": 2}).json()
    r = client.post(f"/api/games/{done['id']}/move", json={"move": "pass"})
    assert r.status_code == 400 and "over" in r.json()["error"]
    # Still serving.
    assert client.get("/api/agents").status_code == 200


def test_records_listed_and_replayed(client):
    done = client.post("/api/games", json={"game": "shengji", "seats": ["rule"] * 4, "seed": 4}).json()
    listed = client.get("/api/records").json()["records"]
    assert [r["name"] for r in listed] == [done["record"]]
    replay = client.get(f"/api/records/{done['record']}").json()
    frames = replay["frames"]
    assert len(frames) == listed[0]["moves"] + 1
    assert all(len(f["seats"]) == 4 and all("hand" in s for s in f["seats"]) for f in frames)
    assert sum(len(s["hand"]) for s in frames[0]["seats"]) >= 4
    assert any(f["scores"] for f in frames[:-1])
    assert frames[-1]["result"]
    assert client.get("/api/records/../../etc/passwd").status_code in (400, 404)
    assert client.get("/api/records/missing-record").status_code == 404


def test_pages_and_assets_are_served_locally(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "http" not in page.text.replace("http://www.w3.org", "")     # no CDN
    for path in ("/replays", "/leaderboard", "/static/app.js", "/static/style.css"):
        assert client.get(path).status_code == 200, path
    agents = client.get("/api/agents").json()
    assert set(agents["games"]) == {"doudizhu", "shengji"} and "human" in agents["agents"]


def test_record_frames_rebuild_every_hand(tmp_path):
    from openlandlord.games import spec
    recorder = records.Recorder("doudizhu", {"bidding": "none"}, 5, ["rule"] * 3, "test")
    state = spec("doudizhu").new_game(5)
    from openlandlord.agents import make, play_deal
    play_deal(state, None, [make("rule", i) for i in range(3)], on_move=recorder.on_move)
    frames = records.frames(recorder.record(state))
    assert frames[0]["seats"][0]["hand"][0]["cards"] == list(spec("doudizhu").new_game(5).hands()[0])
    assert frames[-1]["result"] == spec("doudizhu").describe_end(state)


def test_eval_keeps_replayable_records_beside_its_ledger(tmp_path, capsys):
    import json

    from openlandlord.cli import main
    ledger = tmp_path / "ledger.jsonl"
    args = ["eval", "--agent", "rule", "--opponent", "random", "--deals", "2", "--workers", "1",
            "--ledger", str(ledger)]
    assert main(args) == 0
    entry = json.loads(ledger.read_text().splitlines()[-1])
    folder = entry["result"]["records"]
    assert folder.startswith(str(tmp_path / "records"))
    files = sorted(os.listdir(folder))
    assert len(files) == 6                      # 2 deals x 3 mirrored seatings: every game
    record = records.load(os.path.join(folder, files[0]))
    assert record["source"] == "eval" and record["deal"] == 0 and record["copy"] == 0
    assert any(score is not None for score in record["scores"])        # the movers' scores
    assert record["seats"] == ["rule", "random", "random"]
    frames = records.frames(record)
    assert len(frames) == len(record["moves"]) + 1 and frames[-1]["result"]
    assert main(args + ["--no-records"]) == 0
    assert "records" not in json.loads(ledger.read_text().splitlines()[-1])["result"]
    assert len(os.listdir(tmp_path / "records")) == 1


def test_play_records_its_game(tmp_path, monkeypatch, capsys):
    from openlandlord.cli import main
    monkeypatch.setenv("OPENLANDLORD_RECORDS", str(tmp_path))
    assert main(["play", "--game", "shengji", "--rounds", "1", "--seats", "rule,rule,rule,rule",
                 "--seed", "3"]) == 0
    listed = records.listing(str(tmp_path))
    assert len(listed) == 1 and listed[0]["source"] == "play" and listed[0]["payoffs"]
    assert main(["play", "--seats", "rule,rule,rule", "--seed", "3", "--no-record"]) == 0
    assert len(records.listing(str(tmp_path))) == 1


def test_garbage_never_breaks_the_server(client):
    import random
    rng = random.Random(5)
    junk = [None, 0, -1, 2**80, 1.5, True, "", " ", "\u00e9\u4e2d", "x" * 5000, [], {}, ["human"] * 9,
            {"a": [1, {"b": None}]}, "pass", "33 44", "7H 7H", "JOKER", "bid9"]
    state = client.post("/api/games", json={"game": "shengji", "rules": "classic",
                                            "seats": ["human", "rule", "rule", "rule"], "seed": 8}).json()
    for _ in range(150):
        body = {k: rng.choice(junk) for k in rng.sample(["game", "seats", "seed", "rules", "bidding",
                                                          "mode", "player", "move"], rng.randint(0, 4))}
        r = client.post("/api/games", json=body)
        assert r.status_code in (200, 400), (body, r.text)
        r = client.post(f"/api/games/{state['id']}/move", json={"move": rng.choice(junk)})
        assert r.status_code in (200, 400), r.text
        assert "error" in r.json() or r.json()["id"] == state["id"]
    assert client.get(f"/api/games/{state['id']}").status_code == 200


def test_serve_bad_input_is_one_line_and_exit_2(capsys):
    import socket

    from openlandlord.cli import main
    assert main(["serve", "--port", "0"]) == 2
    assert "a port is 1..65535" in capsys.readouterr().err
    with socket.create_server(("127.0.0.1", 0)) as busy:
        assert main(["serve", "--port", str(busy.getsockname()[1])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot listen on 127.0.0.1" in err

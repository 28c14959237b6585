"""The results ledger (eval.ledger): one JSON line per result, every key present."""
import json

from openlandlord.eval import ledger


def test_lines_parse_and_hold_every_key(tmp_path, monkeypatch):
    path = tmp_path / "runs" / "ledger.jsonl"
    monkeypatch.setenv("OPENLANDLORD_LEDGER", str(path))
    for n in (1, 2):
        ledger.append("eval", game="doudizhu", agents=["rule", "random"],
                      deal_set={"name": "adhoc", "deals": n}, counts={"deals": n, "games": 3 * n},
                      result={"win_rate": 0.5 + n / 10}, seeds={"seed": n})
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    for n, line in enumerate(lines, 1):
        entry = json.loads(line)
        assert set(ledger.LEDGER_KEYS) <= set(entry)
        assert entry["seeds"] == {"seed": n} and entry["counts"]["games"] == 3 * n
        assert entry["git_sha"]
    assert [e["result"]["win_rate"] for e in ledger.read()] == [0.6, 0.7]


def test_missing_ledger_reads_empty(tmp_path):
    assert ledger.read(str(tmp_path / "none.jsonl")) == []

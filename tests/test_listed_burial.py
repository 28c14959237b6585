"""`burial=listed`: a Shengji `classic` burial chosen as one listed decision among the game's
burial candidates (`rule.burial_candidates`) by the search and the student, and recorded so
by generation with such a teacher."""
import numpy as np
import pytest

from openlandlord.agents import make, play_from_candidates
from openlandlord.agents.loop import answer, decisions, drive
from openlandlord.cli import main
from openlandlord.errors import UserError
from openlandlord.games import spec
from openlandlord.games.shengji.rule import burial_candidates, choose_play
from openlandlord.games.shengji.rules import counts

SHENGJI = spec("shengji")
STUDENT = "data/models/shengji-classic"


def _burials(deals, seed=41):
    """The dealer's burial observations of rule:expert classic deals of every trump rank."""
    bot = make("rule:expert", 1)
    out = []
    for d in range(deals):
        state = SHENGJI.new_deal(seed + d, rules="classic", dealer=d % 4, trump_rank="any")

        def choose(dec):
            if dec.obs.phase == "bury" and dec.legal is None:
                out.append(dec.obs)
            return answer(bot, dec) if dec.legal is not None else None
        drive(decisions(state, SHENGJI.legal_cap), choose)
    return out


def test_burial_candidates_are_distinct_whole_burials_from_the_hand_the_rule_bots_first():
    voided = 0
    for obs in _burials(40):
        hand = counts(list(obs.hand))
        candidates = burial_candidates(obs)
        assert 2 <= len(candidates) <= 64
        assert len(set(candidates)) == len(candidates)
        for burial in candidates:
            assert len(burial) == 8 and not (counts(list(burial)) > hand).any()
        assert candidates[0] == choose_play(obs, "expert", np.random.default_rng(0))
        # Some candidate buries a whole plain suit where one is short enough.
        from openlandlord.games.shengji.rule import _Table
        t = _Table(obs)
        short = [cat for cat in range(4) if 0 < int((t.hand * (t.cat == cat)).sum()) <= 8]
        if short:
            cat = short[0]
            held = t.hand * (t.cat == cat)
            assert any((counts(list(b)) * (t.cat == cat)).sum() == held.sum() for b in candidates)
            voided += 1
    assert voided > 0


def test_play_candidates_lists_a_burial_only_when_asked():
    obs = _burials(1)[0]
    assert SHENGJI.play_candidates(obs) is None                   # card by card, as before
    assert SHENGJI.play_candidates(obs, "listed") == burial_candidates(obs)
    with pytest.raises(UserError, match="burial form"):
        SHENGJI.play_candidates(obs, "whole")


def test_the_search_and_the_student_bury_among_the_candidates_with_burial_listed():
    obs = _burials(1, seed=7)[0]
    candidates = burial_candidates(obs)
    teacher = make("pimc:objective=points,worlds=4,burial=listed", 3)
    assert teacher.choose_play(obs) in candidates
    student = make(f"student:{STUDENT},burial=listed", 0)
    chosen = student.choose_play(obs)
    scores = student.scores(obs, candidates)
    assert chosen == candidates[int(np.argmax(scores))]
    # Card by card the student is not asked the list.
    assert play_from_candidates(make(f"student:{STUDENT},burial=cards", 0), obs) is None
    with pytest.raises(UserError, match="burial"):
        make(f"student:{STUDENT},burial=whole", 0)
    with pytest.raises(UserError, match="burial"):
        make("pimc:burial=whole", 0)


@pytest.fixture(scope="module")
def listed_data(tmp_path_factory):
    out = tmp_path_factory.mktemp("listed") / "data"
    assert main(["generate", "--game", "shengji", "--rules", "classic", "--trump-rank", "any",
                 "--teacher", "pimc:objective=points,worlds=2,burial=listed", "--phases", "bury",
                 "--rest", "rule:expert", "--deals", "6", "--workers", "1", "--seed", "5",
                 "--out", str(out)]) == 0
    return out


def test_generation_with_a_listed_teacher_records_the_burial_as_one_decision(listed_data):
    from openlandlord.distill import dataset

    burials = [r for r in dataset.open(str(listed_data)).records() if r.obs.phase == "bury"]
    assert burials, "no burial recorded"
    for record in burials:
        assert record.factored == -1, "a listed burial was recorded card by card"
        assert [SHENGJI.move_text(m) for m in record.legal] == \
            [SHENGJI.move_text(c) for c in burial_candidates(record.obs)]


def test_a_student_trained_with_burial_listed_buries_so_by_default(listed_data, tmp_path):
    from openlandlord.model.checkpoint import read_meta

    def fine_tune(start, out, *extra):
        assert main(["train", "--data", str(listed_data), "--out", str(out), "--epochs", "1",
                     "--set", f"init={start}", "--set", "lr=0.0001", *extra]) == 0
        return out

    listed = fine_tune(STUDENT, tmp_path / "listed", "--set", "burial=listed")
    assert read_meta(str(listed))["burial"] == "listed"
    assert make(f"student:{listed}", 0).burial == "listed"
    assert make(f"student:{listed},burial=cards", 0).burial == "cards"
    # The shipped classic student was trained so (its config.json records it); the tractor
    # one records nothing: card by card.
    assert make(f"student:{STUDENT}", 0).burial == "listed"
    assert make("student:data/models/shengji", 0).burial == "cards"
    # A fine-tune of it keeps its form unless told otherwise.
    again = fine_tune(listed, tmp_path / "again")
    assert make(f"student:{again}", 0).burial == "listed"
    assert main(["train", "--data", str(listed_data), "--out", str(tmp_path / "bad"),
                 "--set", "burial=whole"]) == 2

"""usage: python docs/examples/shengji_gap.py KIND [STUDENT] [TEACHER] [DEAL_SET] [NAME]: where does a
Shengji student lose its teacher's edge? (issue 19; docs/models.md, "Where the student loses
its teacher's edge"). A player that asks TEACHER (default pimc:objective=points,worlds=64, the
shipped `tractor` student's) for one kind of decision and STUDENT (default data/models/shengji)
for every other, against `rule:expert` on the committed dev set DEAL_SET (default
shengji-allranks-dev-260, 520 games; a `classic` set such as shengji-classic-dev-260 plays that
ruleset), seats mirrored, one worker. The play kinds take play decisions only; in `classic`
the declarations and the burial stay with the student unless KIND names them. KIND:
  lead    the teacher leads every trick, the student follows;
  follow  the student leads, the teacher follows (second, third and fourth seat);
  early   the teacher plays tricks 1-12, the student the rest (a hand holds 27 cards);
  late    the student plays tricks 1-12, the teacher the rest;
  last8   the teacher plays once its seat holds 8 cards or fewer, the student before;
  bury    (`classic`) the teacher buries the kitty, the student decides everything else;
  declare (`classic`) the teacher takes the declarations during the deal;
  none    the student alone (the same games as `eval --agent student:STUDENT`);
  all     the teacher alone (the same games as `eval --agent TEACHER`).
A follow too large to list goes to the chosen side's own way of building it (the teacher: the
rule bot's constructive choice, as in its data; the student: card by card). Prints one line
and writes data/runs/gap/KIND.json (data/runs/gap/DEAL_SET-KIND.json for another deal set,
data/runs/gap/NAME.json where NAME is given; the eval's JSON)."""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from eval import dealsets  # noqa: E402
from eval.arena import evaluate  # noqa: E402
from openlandlord import agents  # noqa: E402

KINDS = {
    "lead": lambda obs: obs.phase == "play" and not obs.trick,
    "follow": lambda obs: obs.phase == "play" and bool(obs.trick),
    "early": lambda obs: obs.phase == "play" and len(obs.tricks) < 12,
    "late": lambda obs: obs.phase == "play" and len(obs.tricks) >= 12,
    "last8": lambda obs: obs.phase == "play" and len(obs.hand) <= 8,
    "bury": lambda obs: obs.phase == "bury",
    "declare": lambda obs: obs.phase == "declare",
    "none": lambda obs: False,
    "all": lambda obs: True,
}
STUDENT, TEACHER, DEAL_SET = "data/models/shengji", "pimc:objective=points,worlds=64", "shengji-allranks-dev-260"
_students: dict = {}


class Split(agents.Routed):
    """TEACHER where KINDS[kind](obs), STUDENT elsewhere (a play too large to list: the
    teacher's own build where it takes the decision, else card by card)."""

    def __init__(self, kind: str, seed):
        if STUDENT not in _students:       # deterministic: one instance serves every game
            _students[STUDENT] = agents.make(f"student:{STUDENT}", 0)
        super().__init__(_students[STUDENT], f"split:{kind}")
        self.teacher, self.takes = agents.make(TEACHER, seed), KINDS[kind]

    batched = False            # built per game, as the teacher is
    builds_plays = True

    def route(self, obs, legal):
        return self.teacher if self.takes(obs) else None


def make_split(spec, seed):
    return Split(spec.arg, seed)


def play(kind: str, deal_set, student: str = STUDENT, teacher: str = TEACHER, workers: int = 1) -> dict:
    """The split player of `kind` against `rule:expert` on `deal_set`: the eval's result."""
    global STUDENT, TEACHER
    STUDENT, TEACHER = student, teacher
    sys.modules.setdefault("shengji_gap", sys.modules[__name__])
    agents._FACTORIES["split"] = "shengji_gap:make_split"
    result, _ = evaluate("shengji", f"split:{kind}", "rule:expert", deal_set, workers=workers,
                         progress=False)
    return result


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else ""
    if kind not in KINDS:
        print(f"usage: {sys.argv[0]} {'|'.join(KINDS)} [STUDENT] [TEACHER] [DEAL_SET] [NAME]", file=sys.stderr)
        sys.exit(2)
    student = sys.argv[2] if len(sys.argv) > 2 else STUDENT
    teacher = sys.argv[3] if len(sys.argv) > 3 else TEACHER
    deal_set = sys.argv[4] if len(sys.argv) > 4 else DEAL_SET
    started = time.time()
    result = play(kind, dealsets.load(deal_set), student, teacher)
    out = Path("data/runs/gap")
    out.mkdir(parents=True, exist_ok=True)
    name = kind if deal_set == DEAL_SET else f"{deal_set}-{kind}"
    name = sys.argv[5] if len(sys.argv) > 5 else name
    (out / f"{name}.json").write_text(json.dumps(result, indent=1, default=str))
    low, high = result["mean_points_ci95"]
    print(f"{kind:6s} student {student}, teacher {teacher}: {result['mean_points']:+.2f} [{low:+.2f}, "
          f"{high:+.2f}] points a deal against rule:expert, levels {result['mean_score']:+.3f} "
          f"({time.time() - started:.0f} s)")

"""usage: python docs/examples/shengji_burial_agreement.py DATASET PLAYER...: how close each
PLAYER's listed burials come to the teacher's on the val split of DATASET, a Shengji `classic`
dataset whose burials were recorded as one listed decision (`generate` with a
`pimc:objective=points,...,burial=listed` teacher, docs/pimc.md). For each player: the share
of burials where it picks the teacher's best candidate, and its regret, the teacher's score it
gives up, in card points of its side (the points objective's margin / 80, times 40); and the
same for the rule bot's burial (the first candidate). PLAYER is an agent spec, e.g.
student:DIR,burial=listed."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from openlandlord import agents  # noqa: E402
from openlandlord.distill import dataset  # noqa: E402

POINTS = 40.0   # card points of one side per unit of the points objective (margin / 80)


def main(argv) -> int:
    if len(argv) < 1:
        print(__doc__.split(":", 1)[0], file=sys.stderr)
        return 2
    records = [r for r in dataset.open(argv[0]).records()
               if r.split == "val" and r.obs.phase == "bury" and r.factored == -1]
    if not records:
        print(f"{argv[0]}: no listed burials in its val split", file=sys.stderr)
        return 2
    scores = [np.asarray(r.teacher_scores, np.float64) for r in records]
    print(f"{len(records)} val burials, {np.mean([len(r.legal) for r in records]):.1f} candidates each")
    rows = [("the rule bot's burial (first candidate)", [0] * len(records))]
    for spec in argv[1:]:
        player = agents.make(spec, 0)
        rows.append((spec, [int(np.argmax(player.scores(r.obs, list(r.legal)))) for r in records]))
    for name, picks in rows:
        top1 = np.mean([p == int(np.argmax(s)) for p, s in zip(picks, scores)])
        regret = POINTS * np.mean([s.max() - s[p] for p, s in zip(picks, scores)])
        print(f"{name}: top-1 {top1:.3f}, regret {regret:.2f} card points a burial")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

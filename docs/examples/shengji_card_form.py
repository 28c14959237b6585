"""usage: python docs/examples/shengji_card_form.py STUDENT CAP [OPPONENT]: a Shengji `tractor`
student against OPPONENT (default rule:expert) on 400 fresh every-rank deals (seed 777, not a
test set), with the arena's listing cap set to CAP (`default`: the spec's 256; 1: the student
builds every play card by card, as DMC's VecEnv asks it; the rule bot chooses its whole plays
either way). docs/dmc.md, the Shengji `tractor` section."""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from eval import dealsets  # noqa: E402
from eval.arena import evaluate  # noqa: E402
from openlandlord.games import spec  # noqa: E402

student, cap = sys.argv[1], sys.argv[2]
opponent = sys.argv[3] if len(sys.argv) > 3 else "rule:expert"
if cap != "default":
    type(spec("shengji")).legal_cap = int(cap)
started = time.time()
result, _ = evaluate("shengji", f"student:{student}", opponent,
                     dealsets.adhoc("shengji", 400, 777, {"rules": "tractor", "trump_rank": "any"}),
                     workers=1, progress=False)
low, high = result["mean_points_ci95"]
print(f"{student} cap {cap} against {opponent}: {result['mean_points']:+.2f} [{low:+.2f}, {high:+.2f}] "
      f"points a deal ({time.time() - started:.0f} s)")

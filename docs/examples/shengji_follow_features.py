"""usage: python docs/examples/shengji_follow_features.py train DATA OUT [TRAIN ARGS...]
       python docs/examples/shengji_follow_features.py eval AGENT OPPONENT [EVAL ARGS...]
       python docs/examples/shengji_follow_features.py compare A.json B.json
       python docs/examples/shengji_follow_features.py widen STUDENT OUT

A trial of follow-safety features for the `tractor` student before they become a feature
version (issue 19; docs/models.md, "Follow safety"). Feature version 2 told a lead what it
risks; a follow is only told whether it wins the trick now. This adds three action columns, for
a complete follow after which the seat's team is winning the trick (its own play or the
partner's):

  - the unseen cards (pairs, for a pair or tractor) of the winning play's category that could
    beat it, min(n, 8) / 8, when an opponent is still to play (0 when none is);
  - whether the team's win holds: no opponent still to play, or none of those beaters and no
    opponent still to play who has shown void in the led suit while the winning play is in it;
  - whether an opponent still to play has shown void in the led suit, the winning play being
    in it (it may be trumped).

The featurizer's arrays are the shipped one's (native) plus these columns, computed here in
numpy; the module stands in for the game's featurizer in this process (`install`), so
`openlandlord train` and `openlandlord eval --workers 1` run unchanged on it, and the students
it trains record feature version "2+follow" (no other process loads them). Figures: the same
data, schedule and seed as `data/runs/cap/small` (docs/models.md, "Student size, more data, a
stronger teacher"), each against `rule:expert` on `shengji-allranks-dev-2000` (a student of
these features and one of the shipped features cannot share a process), compared deal by
deal (`compare`: the mean per-deal difference of card points with its paired CI). `widen`
copies a student of the shipped features with zero weights on the three columns (the same
player, bit for bit), for a fine-tune from it (`train ... --set init=OUT`)."""
import json
import sys
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from eval import stats  # noqa: E402
from openlandlord import blas, features  # noqa: E402
from openlandlord.cli import main as cli  # noqa: E402
from openlandlord.games.shengji import features as base  # noqa: E402

EXTRA = 3
VERSION = f"{base.FEATURE_VERSION}+follow"


def follow_safety(obs, legal) -> np.ndarray:
    """The three columns of each legal play, float32 [A, 3] (zero for leads and prefixes)."""
    out = np.zeros((len(legal), EXTRA), np.float32)
    if not obs.trick or not legal:
        return out
    v = base._View(obs)
    cnt = base._counts(legal, v)
    later = range(1, 4 - len(obs.trick))                  # relative seats still to play
    opponents = [r for r in later if r % 2 == 1]
    partner_play = next((base._vector(cards)[v.order] for s, cards in obs.trick
                         if s == (obs.seat + 2) % 4), None)
    unseen = v.unseen[v.order]
    for i in range(len(legal)):
        if int(cnt[i].sum()) != v.lead_size:
            continue
        by_card = np.zeros(base.NUM_SLOTS, np.int16)
        by_card[v.order] = cnt[i]
        winner = base._winner_seat(obs, v, by_card)
        if winner % 2 != obs.seat % 2:
            continue
        if not opponents:
            out[i, 1] = 1.0
            continue
        play = cnt[i] if winner == obs.seat else partner_play
        held = play > 0
        cat = int(v.cat[held.argmax()])
        kind = base._kind(play, v)
        top = v.strength[held].max() if kind == 2 else v.strength[held].min()
        weight = (unseen >= 2) if kind in (1, 2) else unseen
        beaters = int((((v.cat == cat) & (v.strength > top)) * weight).sum())
        threat = cat == v.led_cat and cat != base.TRUMP and any(v.void[r, cat] for r in opponents)
        out[i, 0] = min(beaters, 8) / 8.0
        out[i, 1] = float(beaters == 0 and not threat)
        out[i, 2] = float(threat)
    return out


def featurize(obs, legal) -> dict:
    arrays = dict(base.featurize(obs, legal))
    arrays["actions"] = np.concatenate([arrays["actions"], follow_safety(obs, legal)], axis=1)
    return arrays


def install() -> types.ModuleType:
    """Stand this module's featurizer in for the game's in this process."""
    shim = types.ModuleType("shengji_follow_features_featurizer")
    shim.__dict__.update({k: getattr(base, k) for k in dir(base) if not k.startswith("__")})
    shim.DIMS = {**base.DIMS, "action_feat_dim": base.FA + EXTRA, "feature_version": VERSION}
    shim.FEATURE_VERSION = VERSION
    shim.featurize = featurize
    features._MODULES["shengji"] = shim
    return shim


def widen(src: str, out: str) -> None:
    """The student in `src` for these features: its action input takes the three columns with
    zero weights, so it plays as before; config.json records where it came from."""
    import mlx.core as mx
    from mlx.utils import tree_flatten, tree_unflatten

    from openlandlord.model import LandlordFormerLite, ModelConfig, load_checkpoint, save_checkpoint
    from openlandlord.model.checkpoint import file_sha256
    model, config, _ = load_checkpoint(src)
    wide_config = ModelConfig.from_dict({**config.to_dict(), "action_feat_dim": base.FA + EXTRA,
                                         "feature_version": VERSION})
    params = dict(tree_flatten(model.parameters()))
    w = params["action_in.weight"]
    params["action_in.weight"] = mx.concatenate([w, mx.zeros((w.shape[0], EXTRA), w.dtype)], axis=1)
    wide = LandlordFormerLite(wide_config)
    wide.update(tree_unflatten(list(params.items())))
    mx.eval(wide.parameters())
    save_checkpoint(out, wide, wide_config, {"widened_from": src, "widened_from_weights_sha256":
                                             file_sha256(f"{src}/weights.safetensors")})


def compare(a: str, b: str) -> dict:
    """A's card points a deal minus B's, paired by deal (two evaluations on the same deals
    against the same opponent), with its CI."""
    runs = [json.loads(Path(p).read_text()) for p in (a, b)]
    if [r["deal_set"]["name"] for r in runs][0] != runs[1]["deal_set"]["name"] \
            or runs[0]["opponent"] != runs[1]["opponent"]:
        raise SystemExit("compare needs two evaluations on the same deal set against the same opponent")
    mean, ci = stats.paired_bootstrap(runs[0]["per_deal"]["points"], runs[1]["per_deal"]["points"])
    return {"a": runs[0]["agent"], "b": runs[1]["agent"], "deal_set": runs[0]["deal_set"]["name"],
            "opponent": runs[0]["opponent"], "points_a_minus_b": mean, "points_a_minus_b_ci95": ci}


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("train", "eval", "compare", "widen"):
        sys.exit(__doc__)
    if sys.argv[1] == "widen":
        widen(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if sys.argv[1] == "compare":
        print(json.dumps(compare(sys.argv[2], sys.argv[3]), indent=1))
        sys.exit(0)
    # the student's matmuls on the fast BLAS, as `openlandlord train` and eval's workers run
    # them: a preload works only from process start (openlandlord/blas.py)
    blas.reexec_preloaded()
    install()
    if sys.argv[1] == "train":
        sys.exit(cli(["train", "--data", sys.argv[2], "--out", sys.argv[3], *sys.argv[4:]]))
    sys.exit(cli(["eval", "--game", "shengji", "--agent", sys.argv[2], "--opponent", sys.argv[3],
                  "--workers", "1", *sys.argv[4:]]))

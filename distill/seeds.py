"""The seeds of dataset generation, one definition each: which deal is deal i of a run, which
split a deal belongs to, and the evaluation seeds a run must never train on. The writer
(`generate`) and the reader (`dataset`) both take them from here.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from openlandlord.errors import UserError

# Evaluation owns [2,000,000,000, 2,100,000,000) (documented in eval/dealsets.py, which this
# stage reads but never imports). Training deal seeds are drawn below it, from [0, P), P the
# largest prime under 2e9, so the affine map in `deal_seed` is a bijection: the deals of one
# run are all distinct and every seed fits a signed 32-bit int.
EVAL_RESERVED = range(2_000_000_000, 2_100_000_000)
TRAIN_SEED_PRIME = 1_999_999_973
EVAL_DIR = Path(__file__).resolve().parent.parent / "data" / "eval"

SPLIT_RULE = "splitmix64(deal_seed ^ 0x5EED5) % 10: 0-7 train, 8 val, 9 test"
DEAL_SEED_RULE = ("deal i of --seed S: (a * i + b) mod 1999999973, a = 1 + splitmix64(S) mod "
                  "1999999972, b = splitmix64(S ^ 0xD1B54A32D192ED03) mod 1999999973 (S taken mod 2^64)")

_MASK64 = (1 << 64) - 1


def splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _affine(seed: int) -> tuple[int, int]:
    s = seed & _MASK64
    return 1 + splitmix64(s) % (TRAIN_SEED_PRIME - 1), splitmix64(s ^ 0xD1B54A32D192ED03) % TRAIN_SEED_PRIME


def deal_seed(seed: int, index: int) -> int:
    """The seed of deal `index` of a run with `--seed seed` (DEAL_SEED_RULE)."""
    a, b = _affine(seed)
    return (a * index + b) % TRAIN_SEED_PRIME


def deal_seeds(seed: int, deals: int) -> Iterator[int]:
    """The seeds of deals 0 .. deals-1 of a run, one at a time (`deal_seed` for each)."""
    a, b = _affine(seed)
    for index in range(deals):
        yield (a * index + b) % TRAIN_SEED_PRIME


def split_of(seed: int) -> str:
    """The split of a deal, a function of its seed alone, so no deal is in two splits."""
    bucket = splitmix64(seed ^ 0x5EED5) % 10
    return "train" if bucket < 8 else ("val" if bucket == 8 else "test")


def eval_seeds(eval_dir: Path) -> dict[int, str]:
    """Every seed of every evaluation deal-set file (seed -> file name), whatever its game:
    refusing a few extra seeds costs nothing, training on an evaluation deal costs the result."""
    found: dict[int, str] = {}
    for path in sorted(Path(eval_dir).glob("*.json")) if Path(eval_dir).is_dir() else []:
        try:
            seeds = json.loads(path.read_text())["seeds"]
            found.update((int(s), path.name) for s in seeds)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UserError(f"evaluation deal-set file {path} is unreadable ({exc}); generation "
                            "checks every file there so that no evaluation deal is trained on") from None
    return found


def check_eval_overlap(seeds: Iterable[int], eval_dir: Path) -> dict:
    """Refuse any deal seed in the evaluation's reserved range or in an evaluation deal set.
    The seeds are read one at a time (a run's may be millions); only the evaluation's are
    held."""
    reserved = eval_seeds(eval_dir)
    for index, seed in enumerate(seeds):
        if seed in EVAL_RESERVED or seed in reserved:
            where = reserved.get(seed, f"the reserved range [{EVAL_RESERVED.start}, {EVAL_RESERVED.stop})")
            raise UserError(f"deal {index} would use seed {seed}, an evaluation deal ({where}); "
                            "choose another --seed")
    return {"reserved_range": [EVAL_RESERVED.start, EVAL_RESERVED.stop],
            "files": sorted(set(reserved.values())), "seeds": len(reserved)}

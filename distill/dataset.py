"""Reading a decision dataset made by `openlandlord generate`: `open(DIR)` proves the manifest
and every shard intact first (present, same size, same SHA-256, same format version; the
shard entries tile the run's deals, every shard is of the manifest's run, the totals are
the shards' sums: docs/dataset-format.md), then
gives the raw decisions (`records`) or featurized training batches (`batches`), which go
through `openlandlord.features`, the one featurizer. A damaged dataset is one clear
`UserError`, never silent garbage.

    ds = distill.dataset.open("data/datasets/ddz")
    for batch in ds.batches("train", 256):    # dict of numpy arrays: model inputs + targets
        ...
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from openlandlord.errors import UserError
from openlandlord.games import spec as game_spec

from . import shards
from .schema import MANIFEST, SPLITS



@dataclass(frozen=True)
class Record:
    """One recorded decision, as generation saw it."""
    deal_id: int
    deal_seed: int
    split: str
    seat: int
    role: str | None
    step: int                    # index of the move in the deal (forced moves count too)
    factored: int                # -1: a whole move; k >= 0: one step of a card-by-card build,
                                 # whose legal moves are prefixes of k + 1 cards (or k, for END)
    obs: object                  # the game's Observation for `seat`
    legal: list                  # the referee's legal moves, in its order
    teacher_scores: np.ndarray   # float32, one per legal move
    teacher_policy: np.ndarray   # float32, softmax(teacher_scores / temperature)
    temperature: float
    teacher_choice: int          # index into legal: argmax of the teacher's scores
    played: int                  # index into legal: the move actually played
    chooser: str                 # "teacher" or "mix"
    score: float                 # the seat's final signed score
    hands: list                  # the hidden truth: every seat's hand at this decision
    payoffs: list                # the deal's final signed score per seat
    result: dict                 # the referee's result(), with the multiplier breakdown


def observation_from_json(game: str, text: str):
    """Rebuild the game's frozen Observation from its stored JSON (lists back to tuples)."""
    return game_spec(game).observation_from_json(text)


def _move(encoding: str, text: str):
    return text if encoding == "text" else tuple(text.split())


class _Shard:
    """One verified shard's arrays (`shards.read_shard` checked their layout)."""

    def __init__(self, path: Path, tensors: dict[str, np.ndarray], info: dict):
        self.path, self.t, self.info = path, tensors, info

    def __len__(self) -> int:
        return len(self.t["rec_deal_id"])

    def rows(self, split: str | None) -> np.ndarray:
        if split is None:
            return np.arange(len(self))
        return np.flatnonzero(self.t["rec_split"] == SPLITS.index(split))

    def record(self, i: int) -> Record:
        t, info = self.t, self.info
        game = info["run"]["game"]
        deal_row = int(np.searchsorted(t["deal_first_record"], i, side="right") - 1)
        lo, hi = int(t["rec_legal_offsets"][i]), int(t["rec_legal_offsets"][i + 1])
        role = int(t["rec_role"][i])
        return Record(
            deal_id=int(t["rec_deal_id"][i]), deal_seed=int(t["deal_seed"][deal_row]),
            split=SPLITS[int(t["rec_split"][i])], seat=int(t["rec_seat"][i]),
            role=None if role < 0 else info["roles"][role], step=int(t["rec_step"][i]),
            factored=int(t["rec_factored"][i]),
            obs=observation_from_json(game, shards.unpack_text(t["rec_obs_text"], t["rec_obs_offsets"], i)),
            legal=[_move(info["move_encoding"], shards.unpack_text(t["move_text"], t["move_offsets"], j))
                   for j in range(lo, hi)],
            teacher_scores=t["move_teacher_score"][lo:hi], teacher_policy=t["move_teacher_policy"][lo:hi],
            temperature=float(t["rec_temperature"][i]), teacher_choice=int(t["rec_teacher_choice"][i]),
            played=int(t["rec_played"][i]), chooser=info["choosers"][int(t["rec_chooser"][i])],
            score=float(t["rec_score"][i]),
            hands=json.loads(shards.unpack_text(t["rec_hands_text"], t["rec_hands_offsets"], i)),
            payoffs=[float(p) for p in t["deal_payoffs"][deal_row]],
            result=json.loads(shards.unpack_text(t["deal_result_text"], t["deal_result_offsets"], deal_row)))


class Dataset:
    """A verified dataset. `manifest` is the parsed manifest.json; for a collection (a
    directory of datasets) it lists each part's manifest under `parts`."""

    def __init__(self, directory: Path, manifest: dict, loaded: list[_Shard]):
        self.directory, self.manifest, self._shards = directory, manifest, loaded
        self.game = manifest["game"]

    def __len__(self) -> int:
        return sum(len(s) for s in self._shards)

    @property
    def game_options(self) -> list[dict]:
        """The game options its deals were dealt with (one entry per distinct set of options:
        a union of datasets may mix, e.g., bidding flows)."""
        runs = self.manifest["parts"].values() if "parts" in self.manifest else [self.manifest]
        found = []
        for run in runs:
            if run.get("rules") not in found:
                found.append(run.get("rules"))
        return found

    @property
    def manifest_sha256(self) -> str:
        """What a checkpoint records to name its data: the SHA-256 of manifest.json, or for a
        collection, of each part's name and manifest hash in order."""
        if "parts" not in self.manifest:
            return hashlib.sha256((self.directory / MANIFEST).read_bytes()).hexdigest()
        digest = hashlib.sha256()
        for name in sorted(self.manifest["parts"]):
            part = hashlib.sha256((self.directory / name / MANIFEST).read_bytes()).hexdigest()
            digest.update(f"{name}\0{part}\n".encode())
        return digest.hexdigest()

    def count(self, split: str | None = None) -> int:
        return sum(len(s.rows(_split(split))) for s in self._shards)

    def records(self, split: str | None = None):
        """Every decision of `split` (None: all), in deal order."""
        for shard in self._shards:
            for i in shard.rows(_split(split)):
                yield shard.record(int(i))

    def batches(self, split: str, batch_size: int, shuffle: bool = True, seed: int = 0,
                drop_last: bool = False, action_slots: int | None = None):
        """Featurized batches of `split`: `openlandlord.features.collate` model inputs plus the
        targets `policy` [B, A] (the teacher's softmax, zero on padded slots),
        `teacher_choice`, `played` int32 [B], `value` float32 [B] (features.value_target of
        features.value_score at the game's value_scale: what the trainer regresses), `score`
        float32 [B] (the recorded signed score) and `belief` int32 [B, R, H] (features.belief_target
        of the hidden hands)."""
        from openlandlord import features

        if batch_size < 1:
            raise UserError(f"batch_size must be at least 1, got {batch_size}")
        scale = features.value_scale(self.game)
        index = [(k, int(i)) for k, s in enumerate(self._shards) for i in s.rows(_split(split))]
        order = np.random.default_rng(seed).permutation(len(index)) if shuffle else np.arange(len(index))
        stop = len(index) - (len(index) % batch_size if drop_last else 0)
        for start in range(0, stop, batch_size):
            recs = [self._shards[index[j][0]].record(index[j][1]) for j in order[start:start + batch_size]]
            batch = features.collate([features.featurize(r.obs, r.legal) for r in recs], action_slots)
            policy = np.zeros(batch["action_mask"].shape, np.float32)
            for row, r in enumerate(recs):
                policy[row, :len(r.legal)] = r.teacher_policy
            batch["policy"] = policy
            batch["teacher_choice"] = np.array([r.teacher_choice for r in recs], np.int32)
            batch["played"] = np.array([r.played for r in recs], np.int32)
            batch["score"] = np.array([r.score for r in recs], np.float32)
            batch["value"] = np.array([features.value_target(features.value_score(r.obs, r.score, r.result), scale)
                                       for r in recs], np.float32)
            batch["belief"] = np.stack([features.belief_target(r.obs, r.hands) for r in recs]).astype(np.int32)
            yield batch


def _split(split: str | None) -> str | None:
    if split is not None and split not in SPLITS:
        raise UserError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    return split


def open(directory) -> Dataset:  # noqa: A001 - the name the rest of the kit calls
    """Open and verify the dataset in `directory` (see the module docstring). A directory
    without a manifest whose subdirectories are datasets of one game opens as their union
    (e.g. a teacher-play run and a `--mix` run side by side); every part must verify."""
    directory = Path(directory)
    if not directory.is_dir():
        raise UserError(f"dataset {directory} does not exist")
    parts = sorted(p for p in directory.iterdir() if p.is_dir())
    if (directory / MANIFEST).is_file() or not parts:
        manifest, loaded = _open_one(directory)
        return Dataset(directory, manifest, loaded)
    opened = {p.name: _open_one(p) for p in parts}
    games = {m["game"] for m, _ in opened.values()}
    if len(games) > 1:
        raise UserError(f"{directory} mixes datasets of different games ({', '.join(sorted(games))})")
    manifest = {"format": shards.FORMAT, "format_version": shards.FORMAT_VERSION, "game": games.pop(),
                "parts": {name: m for name, (m, _) in opened.items()}}
    return Dataset(directory, manifest, [s for _, loaded in opened.values() for s in loaded])


def _open_one(directory: Path) -> tuple[dict, list[_Shard]]:
    path = directory / MANIFEST
    if not path.is_file():
        raise UserError(f"{directory} has no {MANIFEST}: not a dataset, or its generation has not "
                        "finished (rerun the same generate command to finish it)")
    try:
        manifest = json.loads(path.read_text())
        entries = list(manifest["shards"])
        version = manifest["format_version"]
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise UserError(f"{path} is unreadable or incomplete ({exc})") from None
    if manifest.get("format") != shards.FORMAT:
        raise UserError(f"{path} is not an {shards.FORMAT} manifest")
    if version != shards.FORMAT_VERSION:
        raise UserError(f"dataset {directory} has format version {version}, this openlandlord reads "
                        f"version {shards.FORMAT_VERSION}: regenerate it")
    run = _check_shard_entries(path, manifest, entries)
    loaded = []
    for entry in entries:
        try:
            file, sha, size = entry["file"], entry["sha256"], entry["bytes"]
        except (KeyError, TypeError):
            raise UserError(f"{path} has a shard entry without file, sha256 and bytes") from None
        tensors, info = shards.read_shard(directory / file, sha, size)
        if info.get("index") != entry["index"] or info.get("run") != run:
            theirs = info.get("run") if isinstance(info.get("run"), dict) else {}
            diff = ", ".join(f"{k}={theirs.get(k)!r} (manifest: {v!r})" for k, v in run.items() if theirs.get(k) != v)
            raise shards.ShardError(f"shard {file} belongs to another run than {path}"
                                    + (f": {diff}" if diff else f" (it is shard {info.get('index')!r})"))
        if info.get("deals") != entry["deals"] or info.get("counts") != entry.get("counts"):
            raise UserError(f"{path}: the entry of {file} does not say what the shard holds "
                            f"(deals {entry['deals']}, counts {entry.get('counts')}; the shard says "
                            f"deals {info.get('deals')}, counts {info.get('counts')})")
        loaded.append(_Shard(directory / file, tensors, info))
    _check_totals(path, manifest, [s.info["counts"] for s in loaded])
    return manifest, loaded


def _check_shard_entries(path: Path, manifest: dict, entries: list) -> dict:
    """The run configuration the manifest states, once its shard entries are found to be
    indices 0..n-1 in order, once each, whose deal ranges tile the run's deals exactly as
    generation cuts them: a dropped, duplicated or reordered entry is refused here."""
    from .generate import recorded_run

    run = recorded_run(manifest)
    deals, per_shard = run["deals"], run["deals_per_shard"]
    for key, value in (("deals", deals), ("deals_per_shard", per_shard)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise UserError(f"{path}: {key} must be a positive integer, got {value!r}")
    if not all(isinstance(e, dict) for e in entries):
        raise UserError(f"{path} has a shard entry that is not an object")
    indices = [e.get("index") for e in entries]
    twice = sorted({repr(i) for i in indices if indices.count(i) > 1})
    if twice:
        raise UserError(f"{path} lists shard index {', '.join(twice)} more than once")
    if indices != list(range(len(entries))):
        missing = [i for i in range(len(entries)) if i not in indices]
        raise UserError(f"{path}: shard entries must be indices 0..{len(entries) - 1} in order, once each; "
                        f"found {indices}" + (f" (index {', '.join(map(str, missing))} missing)" if missing else ""))
    expected = -(-deals // per_shard)
    if len(entries) != expected:
        raise UserError(f"{path} lists {len(entries)} shard(s), but its run of {deals} deals at "
                        f"{per_shard} per shard has {expected}: a shard entry was dropped or added")
    for i, entry in enumerate(entries):
        span = [i * per_shard, min(deals, (i + 1) * per_shard)]
        if entry.get("deals") != span:
            raise UserError(f"{path}: shard {i} lists deals {entry.get('deals')!r}, but its run puts "
                            f"deals {span} (first, stop) there: the deal ranges must tile 0..{deals}")
    return run


def _check_totals(path: Path, manifest: dict, counts: list[dict]) -> None:
    """The manifest's `counts` and per-split `splits` figures are the sums of its shards'."""
    total = {k: sum(c[k] for c in counts) for k in ("deals", "decisions", "moves", "mix_moves")}
    if manifest.get("counts") != total:
        raise UserError(f"{path}: counts {manifest.get('counts')} are not the sum of its shards' {total}")
    splits = manifest.get("splits") if isinstance(manifest.get("splits"), dict) else {}
    for key in ("deals", "decisions"):
        found = {s: sum(c[f"split_{key}"][s] for c in counts) for s in SPLITS}
        if splits.get(key) != found:
            raise UserError(f"{path}: splits.{key} {splits.get(key)} are not the sum of its shards' {found}")

"""`openlandlord dmc`: Deep Monte-Carlo self-play fine-tuning of a student (issue 19, lever 4),
the method of DouZero: play whole games, regress each decision's action value on the final
score its seat got, act greedily on those values with a little exploration.

    openlandlord dmc --game doudizhu --init data/models/doudizhu --out data/runs/dmc --decisions 2000000

What is learned. The student has no per-action value head: it scores the legal moves
(`logits`, distilled from the teacher's softmax(score / T)) and the position (`value`,
score / value_scale). Read as a soft Q-function, log pi(a|s) = (Q(s,a) - V(s)) / T, so

    Q(s, a) = value(s) + (T / value_scale) * log_softmax(logits)[a]        (in value units)

with T the game's teacher temperature (Dou Dizhu 0.2). A distilled student is already such
a Q-function, with the teacher's calibration; the student still plays argmax of its logits,
which is argmax Q. The loss, per decision, is (Q(s, a) - G)^2 + value_weight * (value(s) - G)^2
with G the seat's final payoff / value_scale, clipped to [-1, 1] as the value head's target.

The loop is in chunks. Chunk k: a fresh `VecEnv` (every seat the current student, seed from
(seed, k)) plays until `chunk` decisions of finished games are collected (a seat's moves
with one legal action are played but not learned), the student acting through the native
forward pass with epsilon-greedy exploration; then one pass over those decisions in batches
of similar legal-list length, through the distillation trainer's own step (distill/trainer.py,
with this loss; AdamW at a constant rate after a short warmup). After every chunk the run's state (student, optimizer moments, counters) is
saved atomically in `OUT/epoch-NNNN` (NNNN: the chunk; the trainer's checkpoint code),
`OUT/last` points to it, and a rerun resumes after it: an interrupted run loses at most one
chunk, and chunk k is the same whenever it is played. Every `snapshot_every` chunks the
student is also copied to `OUT/snapshots/chunk-NNNN` (a student checkpoint for `eval`).
metrics.jsonl holds a row per chunk. Once `decisions` have been learned the final student is
written to OUT (weights.safetensors + config.json, with the DMC settings, the init's SHA and
the git SHA).

Anchored bids (`--anchor DIR --anchor-flows bidding=call-rob,points`, Dou Dizhu): each chunk
also plays games of one anchor flow (in turn) and keeps `anchor_share * chunk` decisions of the
spec's bidding role, learned by cross-entropy to DIR's softmax and the value head towards
DIR's value, not by their returns: self-play at bidding `none` alone drifts the bids (they
share the layers), so the play is learned while the bids stay DIR's (docs/dmc.md).

`openlandlord bench dmc` times the actor loop (decisions/s) and the learner (samples/s), and
DouZero's own actor loop (`douzero.dmc`'s environment and models, CPU, its epsilon) in the
same run, when douzero is installed.

Both games: G is the game spec's `vec_return`, the value head's own target (Dou Dizhu the
seat's payoff; Shengji the seat's team card-points margin around 80). A Shengji decision in
the VecEnv is one card of a play being built (or END, or a `classic` declaration), as the
decision loop builds a play too large to list; the arena's student lists whole plays below
the spec's listing cap, so a Shengji student learns here in a finer form than most of its
moves are asked in.
"""
from __future__ import annotations

import dataclasses
import json
import sys
import time
import types
from pathlib import Path

import numpy as np

from openlandlord import artefacts, blas
from openlandlord.errors import UserError

METRICS = "metrics.jsonl"
SNAPSHOTS = "snapshots"
GAMES = ("doudizhu", "shengji")


@dataclasses.dataclass
class DmcConfig:
    """What decides a DMC run besides its starting student (`decisions` may grow on a rerun)."""
    game: str = "doudizhu"
    options: dict = dataclasses.field(default_factory=dict)
    decisions: int = 1_000_000
    chunk: int = 16384
    envs: int = 64
    epsilon: float = 0.01
    lr: float = 1e-4
    warmup_steps: int = 20
    weight_decay: float = 0.0
    grad_clip: float = 1.0
    batch_size: int = 256
    group_by_length: int = 16
    value_weight: float = 0.5
    # DouZero's two objectives mixed: G + win_bonus * sign(G) (before the clip), so that a
    # won game counts above its stake (DouZero trains `--objective wp` on the sign alone).
    win_bonus: float = 0.0
    seed: int = 0
    snapshot_every: int = 10
    # One game option whose value changes by chunk ({"bidding": ["call-rob", "points"]}):
    # chunk k plays values[(k - 1) % len(values)], so bids are learned in every flow too.
    cycle: dict = dataclasses.field(default_factory=dict)
    # Bids anchored to another student (`--anchor DIR`, "" = off): every chunk also plays
    # `anchor_share * chunk` bidding decisions in the flows of `anchor_flows` (one game option
    # and its values, taken in turn by chunk) and learns them by the distillation loss towards
    # the anchor's own scores (its softmax and its value), weighted `anchor_weight`, instead of
    # by their returns: the play is learned from self-play, the bids stay the anchor's.
    anchor: str = ""
    anchor_flows: dict = dataclasses.field(default_factory=dict)
    anchor_share: float = 0.125
    anchor_weight: float = 1.0
    # Only these phases learned from their returns (`--learn-phases bury,declare`, the spec's
    # `bidding_kinds`; empty = every decision): the other decisions (the play) are acted
    # greedily and `anchor_share * chunk` of them, drawn uniformly from the chunk's games, are
    # learned towards the `--anchor` student's scores, so the play stays the anchor's while the
    # bids learn from what they win with it. Exploration (`epsilon`) is in the learned phases only.
    learn_phases: list = dataclasses.field(default_factory=list)
    # Only these roles' decisions learned from their returns (`--learn-roles landlord`: names of the
    # student's own roles, its config's `role_names`; empty = every role): the other roles act greedily and `anchor_share * chunk` of their
    # decisions, a uniform draw, are learned towards the `--anchor` student's scores, as
    # `learn_phases` keeps the play: one role learns by self-play while the others stay put
    # (measured in docs/models.md, "The landlord alone by self-play": level).
    learn_roles: list = dataclasses.field(default_factory=list)
    # Which weights learn (`--train-only adapters|value`, "" = all): "adapters" freezes everything but
    # the per-role low-rank adapters (RoleAdapter), so with `learn_roles` the other roles' and the
    # bids' slices of them, and with them their play, stay exactly the start's. "value" freezes
    # everything but the value head (`value_hidden`, `value_out`): the play stays exactly the
    # start's while its value learns the returns of the student's own games, a start for a later
    # run whose Q (value plus a small multiple of log pi) then begins from a fitted value.
    train_only: str = ""
    # Noisy opponents (`--noise P`, 0 = off): in `noise_games` of the games one side, drawn per
    # game (`spec.role_team`), plays P of its decisions at random (the rest greedily) and none of
    # its decisions is learned; the other side plays and learns as usual. The learned side meets
    # opponents that blunder (as `rlcard`'s rule agent does in about one move in five) beside
    # opponents that do not (docs/dmc.md, "Noisy opponents").
    noise: float = 0.0
    noise_games: float = 0.5

    def __post_init__(self):
        if self.game not in GAMES:
            raise UserError(f"dmc: --game {self.game} is not supported (only {', '.join(GAMES)})")
        for name in ("decisions", "chunk", "envs", "batch_size", "snapshot_every"):
            if getattr(self, name) < 1:
                raise UserError(f"dmc: {name} must be at least 1, got {getattr(self, name)}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise UserError(f"dmc: --epsilon must be in [0, 1], got {self.epsilon}")
        if not 0.0 < self.lr < 1.0:
            raise UserError(f"dmc: --lr must be in (0, 1), got {self.lr}")
        if not 0.0 <= self.win_bonus <= 1.0:
            raise UserError(f"dmc: --win-bonus must be in [0, 1], got {self.win_bonus}")
        if len(self.cycle) > 1 or any(not values for values in self.cycle.values()):
            raise UserError("dmc: --cycle takes one game option and at least one value (NAME=V1,V2,...)")
        self._check_values("--cycle", self.cycle)
        if not 0.0 <= self.noise <= 1.0:
            raise UserError(f"dmc: --noise must be in [0, 1], got {self.noise}")
        if not 0.0 < self.noise_games <= 1.0:
            raise UserError(f"dmc: --noise-games must be in (0, 1], got {self.noise_games}")
        if self.noise and (self.learn_phases or self.learn_roles):
            raise UserError("dmc: --noise takes no --learn-phases or --learn-roles (every role learns, "
                            "from the games where its side plays cleanly)")
        if self.train_only not in ("", "adapters", "value"):
            raise UserError(f"dmc: --train-only takes 'adapters' or 'value', got {self.train_only!r}")
        if self.train_only == "value" and (self.anchor or self.learn_roles or self.learn_phases):
            raise UserError("dmc: --train-only value takes no --anchor, --learn-roles or --learn-phases "
                            "(the play is frozen whole)")
        if self.learn_roles:
            if self.learn_phases or not (self.anchor or self.train_only):
                raise UserError("dmc: --learn-roles needs --anchor DIR (the student whose other roles' play "
                                "is kept) or --train-only adapters, and no --learn-phases")
        if self.train_only == "adapters":
            if not self.learn_roles or self.anchor:
                raise UserError("dmc: --train-only adapters needs --learn-roles and no --anchor (the other "
                                "roles' adapters stay the start's exactly; anchored rows would only add "
                                "rounding noise, which Adam scales up)")
        if self.anchor and not self.learn_phases:
            from openlandlord.games import spec
            if spec(self.game).bidding_role is None:
                raise UserError(f"dmc: --anchor: {self.game} has no bidding decisions to anchor "
                                "(anchor its play with --learn-phases)")
            if len(self.anchor_flows) != 1 or any(not v for v in self.anchor_flows.values()):
                raise UserError("dmc: --anchor needs --anchor-flows NAME=V1,... (the flows whose bids it anchors) "
                                "or --learn-phases")
            self._check_values("--anchor-flows", self.anchor_flows)
        if self.learn_phases:
            from openlandlord.games import spec
            kinds = spec(self.game).bidding_kinds
            if any(p not in kinds for p in self.learn_phases):
                raise UserError(f"dmc: --learn-phases: {self.game}'s bidding phases are {', '.join(kinds)}, "
                                f"got {','.join(self.learn_phases)}")
            if not self.anchor or self.anchor_flows:
                raise UserError("dmc: --learn-phases needs --anchor DIR (the student whose play is kept) "
                                "and no --anchor-flows")
        if self.anchor:
            if not 0.0 < self.anchor_share <= 1.0:
                raise UserError(f"dmc: --anchor-share must be in (0, 1], got {self.anchor_share}")
            if self.anchor_weight <= 0:
                raise UserError(f"dmc: --anchor-weight must be above 0, got {self.anchor_weight}")

    def _check_values(self, flag: str, values_of: dict) -> None:
        """Each value of {option: [values]} must be a valid value of that game option."""
        from openlandlord.games import spec
        for name, values in values_of.items():
            if name not in {o.name for o in spec(self.game).options}:
                raise UserError(f"dmc: {flag} {name}: not an option of {self.game}")
            for value in values:
                spec(self.game).check_options({**self.options, name: value})

    def _in_turn(self, values_of: dict, chunk: int) -> dict:
        """The game options with {option: [values]}'s option at its value for chunk `chunk`."""
        for name, values in values_of.items():
            return {**self.options, name: values[(chunk - 1) % len(values)]}
        return dict(self.options)

    def options_of(self, chunk: int) -> dict:
        """The game options chunk `chunk` plays."""
        return self._in_turn(self.cycle, chunk)

    def learned_role_ids(self, role_names: tuple) -> set | None:
        """The student's role indices (`role_names`: its config's) that learn from returns
        (None: every role); refuses names it lacks, and all of them."""
        if not self.learn_roles:
            return None
        if any(r not in role_names for r in self.learn_roles) or len(set(self.learn_roles)) >= len(role_names):
            raise UserError(f"dmc: --learn-roles takes some, not all, of the student's roles "
                            f"({', '.join(role_names)}); got {','.join(self.learn_roles)}")
        return {role_names.index(r) for r in self.learn_roles}

    def anchor_options_of(self, chunk: int) -> dict:
        """The game options of chunk `chunk`'s anchored bidding games."""
        return self._in_turn(self.anchor_flows, chunk)

    def settings(self) -> dict:
        """Everything a resumed run must share with the run it continues. Fields added after
        the first runs are left out while they hold their defaults, so those runs resume."""
        later = {"cycle", "anchor", "anchor_flows", "anchor_share", "anchor_weight", "win_bonus",
                 "learn_phases", "learn_roles", "train_only", "noise", "noise_games"}
        default = DmcConfig()
        return {k: v for k, v in dataclasses.asdict(self).items()
                if k != "decisions" and not (k in later and v == getattr(default, k))}


# -- the loss ----------------------------------------------------------------------------------

def q_coefficient(game: str, value_scale: float) -> float:
    """T / value_scale: how a log-probability converts to value units (module docstring)."""
    from openlandlord.games import spec
    return spec(game).teacher_temperature / value_scale


def dmc_loss(model, batch: dict, coef: float, value_weight: float, anchor_weight: float = 0.0):
    """-> (total, {"q", "value", "anchor"}): the squared errors of Q(s, a) and value(s)
    against G; anchored rows (batch["anchored"] 1) have instead the cross-entropy of the
    student's softmax to the anchor's (batch["soft"]), and value(s) against the anchor's."""
    import mlx.core as mx

    from openlandlord.model.losses import log_softmax

    out = model(batch, centred=False)
    logp_all = log_softmax(out["logits"])
    logp = mx.take_along_axis(logp_all, batch["choice"][:, None], axis=-1)[:, 0]
    q = out["value"] + coef * logp
    v_err = mx.square(out["value"] - batch["target"]).mean()
    if "anchored" not in batch:
        q_err, a_err = mx.square(q - batch["target"]).mean(), mx.array(0.0)
    else:
        anchored = batch["anchored"]
        q_err = (mx.square(q - batch["target"]) * (1.0 - anchored)).mean()
        cross = -(batch["soft"] * logp_all * batch["action_mask"]).sum(axis=-1)
        a_err = (cross * anchored).mean()
    return q_err + value_weight * v_err + anchor_weight * a_err, {"q": q_err, "value": v_err, "anchor": a_err}


# -- acting ------------------------------------------------------------------------------------

def chunk_seed(seed: int, chunk: int) -> int:
    return int(np.random.SeedSequence([seed, chunk, 0xD3C]).generate_state(1, np.uint32)[0])


def act(student, env, obs, rng, epsilon: float, void, explore=None,
        roles=None, noisy=None, noise: float = 0.0) -> tuple[np.ndarray, list[dict], int, int]:
    """One move in every game of `env`: -> (actions, rows, forced, explored). A row is the
    featurizer's arrays of a decision with more than one legal move, its `env`, `seat` and
    `choice` (the index played in its legal list); epsilon-greedy on the student's logits.
    With `explore` (a set of phases) a row also has its `phase` (env.phase), and only those
    phases explore; the others are greedy. With `roles` (a set of role indices) only those
    roles explore. With `noisy` (game index, role -> whether that role plays on the game's
    noisy side) such a row is marked `noisy` and played at random with probability `noise`,
    else greedily."""
    n_envs = len(obs["role"])
    acts = np.empty(n_envs, np.int64)
    rows, legal = [], []
    forced = explored = 0
    for i in range(n_envs):
        options = env.legal_actions(i)
        legal.append(options)
        if len(options) == 1:
            acts[i] = options[0]
            forced += 1
            continue
        n = int(obs["n_tokens"][i])
        rows.append({"state_tokens": obs["state_tokens"][i, :n].copy(), "role": int(obs["role"][i]),
                     "unseen": obs["unseen"][i].copy(), "capacity": obs["capacity"][i].copy(),
                     "void": obs["void"][i].copy() if "void" in obs else void,
                     "actions": env.action_features(i), "env": i, "seat": int(obs["seat"][i])})
        if explore is not None:
            rows[-1]["phase"] = env.phase(i)
    for row, out in zip(rows, student.forward_batch(rows)):
        i = row["env"]
        if noisy is not None and noisy(i, row["role"]):
            row["noisy"] = True
            k = int(rng.integers(len(legal[i]))) if rng.random() < noise else int(np.argmax(out["logits"]))
        elif ((explore is None or row["phase"] in explore) and (roles is None or row["role"] in roles)
                and rng.random() < epsilon):
            k = int(rng.integers(len(legal[i])))
            explored += 1
        else:
            k = int(np.argmax(out["logits"]))
        row["choice"] = k
        acts[i] = legal[i][k]
    return acts, rows, forced, explored


def collect(student, cfg: DmcConfig, chunk: int, want: int, scale: float, anchor=None) -> tuple[list[dict], dict]:
    """Self-play with `student` (a NativeStudent) in every seat until `want` decisions of
    finished games are collected: (samples, stats). A sample is the featurizer's arrays of the
    decision, `choice` (the index played in its legal list), `target` (G, value units) and
    `game` (which of the chunk's finished games it is from). With `cfg.learn_phases` only
    those phases' decisions count and take their returns (with `cfg.learn_roles`, those roles');
    `anchor_share * want` of the others, a uniform draw (reservoir), are added labelled by
    `anchor` (DmcConfig.learn_phases, DmcConfig.learn_roles)."""
    from openlandlord.envs import VecEnv
    from openlandlord.games import spec

    game = spec(cfg.game)
    seed = chunk_seed(cfg.seed, chunk)
    env = VecEnv(cfg.game, cfg.envs, seed=seed, features="full", **cfg.options_of(chunk))
    rng = np.random.default_rng(seed)
    void = np.zeros((student.config.belief_holders, student.config.belief_slots), np.float32)
    obs = env.reset()
    pending = [[] for _ in range(cfg.envs)]
    samples: list[dict] = []
    games = forced = moves = 0
    explored = 0
    first_seat_payoff = 0.0
    phases = set(cfg.learn_phases) or None
    roles = cfg.learned_role_ids(student.config.role_names)
    others: list[dict] = []
    keep = max(1, round(cfg.anchor_share * want)) if (phases or roles) and anchor is not None else 0
    seen_others = 0
    draw = np.random.default_rng([seed, 0xB1D])
    noisy = None
    if cfg.noise:
        sides = np.random.default_rng([seed, 0x401])

        def side() -> int:                          # the noisy side of a new game, -1 for none
            return int(sides.integers(2)) if sides.random() < cfg.noise_games else -1
        noisy_side = [side() for _ in range(cfg.envs)]

        def noisy(i: int, role: int) -> bool:
            return game.role_team(role) == noisy_side[i]
    noisy_games = noised = 0
    started = time.perf_counter()
    while len(samples) < want:
        acts, rows, n_forced, n_explored = act(student, env, obs, rng, cfg.epsilon, void, phases, roles,
                                               noisy, cfg.noise)
        forced += n_forced
        explored += n_explored
        for row in rows:
            i = row.pop("env")
            if row.pop("noisy", False):
                noised += 1
                continue
            if (phases is None or row["phase"] in phases) and (roles is None or row["role"] in roles):
                pending[i].append(row)
                continue
            seen_others += 1                        # reservoir sampling (Algorithm R)
            if len(others) < keep:
                others.append(row)
            else:
                j = int(draw.integers(seen_others))
                if j < keep:
                    others[j] = row
        obs, rewards, dones, info = env.step(acts)
        moves += cfg.envs
        for i in np.flatnonzero(dones):
            first_seat_payoff += float(rewards[i, 0])
            for row in pending[i]:
                raw = game.vec_return(row.pop("seat"), row["role"], rewards[i], info, i)
                row["target"] = float(np.clip(raw / scale + cfg.win_bonus * np.sign(raw), -1.0, 1.0))
                row["game"] = games
                row["anchored"] = 0.0
                samples.append(row)
            games += 1
            pending[i] = []
            if noisy is not None:
                noisy_games += int(noisy_side[i] >= 0)
                noisy_side[i] = side()
    elapsed = time.perf_counter() - started
    learned = len(samples)
    stats = {"games": games, "decisions": learned, "moves": moves, "forced_moves": forced,
             "explored": explored, "actor_seconds": round(elapsed, 2),
             "actor_decisions_per_s": round(learned / elapsed, 1),
             "seat0_mean_payoff": round(first_seat_payoff / max(games, 1), 4)}
    if phases:
        stats["by_phase"] = {p: sum(r["phase"] == p for r in samples) for p in sorted(phases)}
    if noisy is not None:
        stats.update(noisy_games=noisy_games, noisy_decisions=noised)
    if roles:
        names = student.config.role_names
        stats["by_role"] = {names[i]: sum(r["role"] == i for r in samples) for i in sorted(roles)}
    if (phases or roles) and anchor is not None:
        samples += label_by_anchor(others, anchor)
        stats["anchored"] = len(others)
    return samples, stats


def label_by_anchor(rows: list[dict], anchor) -> list[dict]:
    """`rows` labelled for the anchored loss: the `anchor` student's softmax (`soft`) and value
    (`target`), `anchored` 1."""
    for row, out in zip(rows, anchor.forward_batch(rows) if rows else []):
        row.pop("env", None), row.pop("seat", None)
        logits = np.asarray(out["logits"], np.float64)
        soft = np.exp(logits - logits.max())
        row.update(soft=(soft / soft.sum()).astype(np.float32), target=float(out["value"]), anchored=1.0)
    return rows


def collect_anchored(student, anchor, cfg: DmcConfig, chunk: int, want: int) -> tuple[list[dict], dict]:
    """Bidding decisions for the anchor (DmcConfig.anchor): games in chunk `chunk`'s anchor
    flow, `student` acting as in `collect`, until `want` decisions of the spec's bidding role
    are kept, each labelled with the `anchor` student's softmax (`soft`) and value (`target`)."""
    from openlandlord.envs import VecEnv
    from openlandlord.games import spec

    bidding = spec(cfg.game).bidding_role
    seed = chunk_seed(cfg.seed, chunk) ^ 0xA5C4
    env = VecEnv(cfg.game, cfg.envs, seed=seed, features="full", **cfg.anchor_options_of(chunk))
    rng = np.random.default_rng(seed)
    void = np.zeros((student.config.belief_holders, student.config.belief_slots), np.float32)
    obs = env.reset()
    samples: list[dict] = []
    started = time.perf_counter()
    while len(samples) < want:
        acts, rows, _, _ = act(student, env, obs, rng, cfg.epsilon, void)
        samples += label_by_anchor([r for r in rows if r["role"] == bidding], anchor)
        obs, _, _, _ = env.step(acts)
    samples = samples[:want]
    return samples, {"anchored": len(samples), "anchor_seconds": round(time.perf_counter() - started, 2)}


def native_from(model, config):
    """The NativeStudent of an MLX model's current weights."""
    from mlx.utils import tree_flatten

    from openlandlord.model.native import NativeStudent
    weights = {k: np.array(v, np.float32) for k, v in tree_flatten(model.parameters())}
    return NativeStudent.from_weights(config, weights)


# -- learning ----------------------------------------------------------------------------------

def make_trainer(cfg: DmcConfig, init: str):
    """-> (trainer, the init's checkpoint meta): the trainer's own model, AdamW and step
    (distill/trainer.py) with the DMC loss, at a constant rate after the warmup (its cosine
    decays from lr to min_lr = lr), starting from the student in `init`."""
    import mlx.core as mx

    from openlandlord.model.checkpoint import read_meta
    from openlandlord.model.student import ModelConfig

    from .config import TrainConfig
    from .train import start_from
    from .trainer import Trainer

    meta = read_meta(init)
    mcfg = ModelConfig.from_dict(meta["config"])
    if mcfg.game != cfg.game:
        raise UserError(f"--init {init} is a {mcfg.game} student, not {cfg.game}")
    plan = TrainConfig(lr=cfg.lr, min_lr=cfg.lr, warmup_steps=cfg.warmup_steps,
                       weight_decay=cfg.weight_decay, grad_clip=cfg.grad_clip, seed=cfg.seed,
                       batch_size=cfg.batch_size, group_by_length=cfg.group_by_length)
    coef = q_coefficient(cfg.game, mcfg.value_scale)
    anchor_weight = cfg.anchor_weight if cfg.anchor else 0.0
    trainer = Trainer(plan, mcfg, 2 * max(cfg.warmup_steps, 1), mx.distributed.init(),
                      loss=lambda m, b: dmc_loss(m, b, coef, cfg.value_weight, anchor_weight))
    start_from(trainer, init, mcfg)
    cfg.learned_role_ids(mcfg.role_names)          # refuses roles the student lacks, before any play
    if cfg.train_only == "adapters":
        if not mcfg.use_adapters:
            raise UserError(f"dmc: --train-only adapters: the student in {init} has no role adapters")
        trainer.model.freeze()
        trainer.model.state_adapter.unfreeze()
        trainer.model.action_adapter.unfreeze()
    elif cfg.train_only == "value":
        trainer.model.freeze()
        trainer.model.value_hidden.unfreeze()
        trainer.model.value_out.unfreeze()
    return trainer, meta


def learn(trainer, samples: list[dict], chunk: int) -> dict:
    """One pass over a chunk's decisions in the trainer's batches; -> mean losses, samples/s."""
    from openlandlord import features

    from .batches import epoch_batches

    counts = np.array([len(s["actions"]) for s in samples], np.int64)
    sums = {"loss": 0.0, "q": 0.0, "value": 0.0, "anchor": 0.0}
    started = time.perf_counter()
    for idx in epoch_batches(counts, trainer.cfg, chunk):
        rows = [samples[i] for i in idx]
        batch = features.collate(rows)
        batch["choice"] = np.array([r["choice"] for r in rows], np.int32)
        batch["target"] = np.array([r["target"] for r in rows], np.float32)
        if any(r["anchored"] for r in rows):
            batch["anchored"] = np.array([r["anchored"] for r in rows], np.float32)
            batch["soft"] = np.zeros(batch["action_mask"].shape, np.float32)
            for k, r in enumerate(rows):
                if r["anchored"]:
                    batch["soft"][k, :len(r["soft"])] = r["soft"]
        total, parts = trainer.train_step(batch, 1.0)
        for key, value in (("loss", total), *parts.items()):
            sums[key] += value * len(rows)
    elapsed = time.perf_counter() - started
    return {**{k: v / len(samples) for k, v in sums.items()},
            "learner_seconds": round(elapsed, 2),
            "learner_samples_per_s": round(len(samples) / elapsed, 1)}


# -- the run -----------------------------------------------------------------------------------

def run_dmc(init: str, out: str, cfg: DmcConfig, force: bool = False, stop_after: int | None = None,
            progress: bool = True) -> dict:
    """Fine-tune the student in `init` by DMC self-play into `out` (module docstring); a rerun
    resumes. `stop_after` ends after that many chunks of this call (as an interruption
    would), for tests. Returns the last chunk's metrics row."""
    from .checkpoints import restore, save_epoch
    from .train import check_fresh_out

    out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"--out {out} is a file, not a directory")
    with artefacts.exclusive(out_dir, "--out"):
        artefacts.remove_stale_temporaries(out_dir)
        resuming = (out_dir / "last").exists() and not force
        if not resuming:
            check_fresh_out(out_dir, force)
        trainer, init_meta = make_trainer(cfg, init)
        # The code that learns: the tree as this run starts (save_checkpoint's git_sha).
        from openlandlord.provenance import git_sha
        run_sha = git_sha()
        anchor, anchor_meta = None, {}
        if cfg.anchor:
            from openlandlord.model.checkpoint import read_meta
            from openlandlord.model.native import NativeStudent
            anchor_meta = read_meta(cfg.anchor)
            if anchor_meta["config"].get("game") != cfg.game:
                raise UserError(f"--anchor {cfg.anchor} is not a {cfg.game} student")
            anchor = NativeStudent(cfg.anchor)
        done_chunks, learned = 0, 0
        # What the run started from and anchors to, by content: a folder replaced under the
        # same path (a reshipped student) must not be taken for the one the run began with.
        weights = {"init_weights_sha256": init_meta.get("weights_sha256"),
                   "anchor_weights_sha256": anchor_meta.get("weights_sha256")}
        if resuming:
            state = json.loads((out_dir / "last" / "trainer.json").read_text())
            if state.get("dmc") != cfg.settings() or state.get("init") != init:
                raise UserError(f"{out} holds a DMC run with other settings (or another --init); "
                                "rerun it with the same ones, or pass --force to start over")
            changed = [k.split("_")[0] for k, v in weights.items() if k in state and state[k] != v]
            if changed:
                raise UserError(f"{out}: the {' and '.join('--' + c for c in changed)} student's weights "
                                "changed since the run began; restore them, or pass --force to start over")
            restore(trainer, out_dir / "last")
            done_chunks, learned = state["chunk"], state["decisions_learned"]
        out_dir.mkdir(parents=True, exist_ok=True)
        extra = {"dmc": cfg.settings(), "init": init, "init_weights_sha256": init_meta.get("weights_sha256"),
                 "game_options": [cfg.options], "training": "dmc"}
        if cfg.anchor:
            extra["anchor_weights_sha256"] = anchor_meta.get("weights_sha256")
        if init_meta.get("burial"):
            extra["burial"] = init_meta["burial"]    # how the start's burial is asked
        row: dict = {}
        played = 0
        while learned < cfg.decisions and (stop_after is None or played < stop_after):
            chunk = done_chunks + 1
            want = min(cfg.chunk, cfg.decisions - learned)
            student = native_from(trainer.model, trainer.mcfg)
            samples, stats = collect(student, cfg, chunk, want, trainer.mcfg.value_scale,
                                     anchor if cfg.learn_phases or cfg.learn_roles else None)
            played_out = stats["decisions"]
            if anchor is not None and not cfg.learn_phases:
                bids, anchor_stats = collect_anchored(student, anchor, cfg, chunk,
                                                      max(1, round(cfg.anchor_share * want)))
                samples += bids
                # with --learn-roles the chunk has anchored plays too: count both
                anchor_stats["anchored"] += stats.get("anchored", 0)
                stats.update(anchor_stats)
            losses = learn(trainer, samples, chunk)
            learned += played_out
            row = {"kind": "chunk", "chunk": chunk, "decisions_learned": learned, **stats, **losses,
                   "lr": trainer.lr, "blas": "openblas" if blas.loaded() else "bundled"}
            artefacts.append_line(out_dir / METRICS, json.dumps(row, sort_keys=True))
            state = {"epoch": chunk, "chunk": chunk, "decisions_learned": learned, "dmc": cfg.settings(),
                     "init": init, **weights}
            save_epoch(out_dir, trainer, state, {**extra, "decisions_learned": learned, "chunk": chunk},
                       git_sha=run_sha)
            if chunk % cfg.snapshot_every == 0:
                from openlandlord.model.checkpoint import copy_checkpoint
                (out_dir / SNAPSHOTS).mkdir(exist_ok=True)
                copy_checkpoint(out_dir / "last", out_dir / SNAPSHOTS / f"chunk-{chunk:04d}")
            if progress:
                print(f"chunk {chunk}: {learned:,}/{cfg.decisions:,} decisions, {stats['games']} games, "
                      f"q {losses['q']:.5f} value {losses['value']:.5f}, actor {stats['actor_decisions_per_s']:.0f}/s, "
                      f"learner {losses['learner_samples_per_s']:.0f}/s", file=sys.stderr)
            done_chunks, played = chunk, played + 1
        if learned >= cfg.decisions:
            from openlandlord.model import save_checkpoint
            save_checkpoint(str(out_dir), trainer.model, trainer.mcfg,
                            {**extra, "decisions_learned": learned, "chunk": done_chunks},
                            git_sha=run_sha)
        return row


def parse_cycle(text: str | None) -> dict:
    """`--cycle NAME=V1,V2,...` (or --anchor-flows) -> {NAME: [V1, V2, ...]} ({} for None)."""
    if not text:
        return {}
    name, sep, values = text.partition("=")
    if not sep or not name or not values:
        raise UserError(f"--cycle and --anchor-flows take NAME=V1,V2,... (a game option and its values), "
                        f"got {text!r}")
    return {name.replace("-", "_"): values.split(",")}


def run(args) -> int:
    """`openlandlord dmc`."""
    from openlandlord.games import game_options
    cfg = DmcConfig(game=args.game, options=game_options(args.game, args), decisions=args.decisions, chunk=args.chunk,
                    envs=args.envs, epsilon=args.epsilon, lr=args.lr, batch_size=args.batch_size,
                    seed=args.seed, snapshot_every=args.snapshot_every, cycle=parse_cycle(args.cycle),
                    anchor=args.anchor or "", anchor_flows=parse_cycle(args.anchor_flows),
                    anchor_share=args.anchor_share, anchor_weight=args.anchor_weight,
                    win_bonus=args.win_bonus,
                    learn_phases=args.learn_phases.split(",") if args.learn_phases else [],
                    learn_roles=args.learn_roles.split(",") if args.learn_roles else [],
                    train_only=args.train_only or "", noise=args.noise, noise_games=args.noise_games)
    blas.reexec_with_openblas("dmc")
    run_dmc(args.init, args.out, cfg, force=args.force)
    return 0


# -- the bench ---------------------------------------------------------------------------------

def douzero_actor_rate(seconds: float, epsilon: float) -> dict | None:
    """DouZero's own actor loop (douzero.dmc.utils.act without its buffers and queues): its
    Environment and its three LSTM models on the CPU, one thread, its epsilon-greedy forward,
    one move at a time. None when douzero is not installed."""
    try:
        import torch
        from douzero.dmc.env_utils import Environment
        from douzero.dmc.models import Model
        from douzero.env import Env
    except ImportError:
        return None
    torch.set_num_threads(1)
    torch.manual_seed(0)
    flags = types.SimpleNamespace(exp_epsilon=epsilon, objective="adp")
    model = Model(device="cpu")
    model.eval()
    env = Environment(Env(flags.objective), "cpu")
    position, obs, out = env.initial()
    moves = games = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        with torch.no_grad():
            agent = model.forward(position, obs["z_batch"], obs["x_batch"], flags=flags)
        position, obs, out = env.step(obs["legal_actions"][int(agent["action"].cpu().numpy())])
        moves += 1
        games += bool(out["done"])
    elapsed = time.perf_counter() - started
    return {"moves_per_s": round(moves / elapsed, 1), "games_per_s": round(games / elapsed, 2)}


def bench(args) -> int:
    """`openlandlord bench dmc --checkpoint DIR`: the actor's moves/s and learned decisions/s,
    the learner's samples/s, and douzero's actor loop in the same run (one thread each)."""
    from openlandlord.games import game_options

    if not args.checkpoint:
        raise UserError("bench dmc needs --checkpoint (a student to act and learn with)")
    blas.reexec_with_openblas("bench")
    seconds = args.seconds or 10.0
    cfg = DmcConfig(game=args.game, options=game_options(args.game, args), envs=args.envs or 64)
    trainer, _ = make_trainer(cfg, args.checkpoint)
    student = native_from(trainer.model, trainer.mcfg)
    samples, moves, games, chunk = [], 0, 0, 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        chunk += 1
        got, stats = collect(student, cfg, chunk, 2048, trainer.mcfg.value_scale)
        samples += got
        moves += stats["moves"]
        games += stats["games"]
    acting = time.perf_counter() - started
    learned = learn(trainer, samples, 1)
    douzero = douzero_actor_rate(seconds, cfg.epsilon) if cfg.game == "doudizhu" else None
    result = {"game": cfg.game, "options": cfg.options, "envs": cfg.envs, "seconds": seconds,
              "actor_moves_per_s": round(moves / acting, 1),
              "actor_learned_decisions_per_s": round(len(samples) / acting, 1),
              "actor_games_per_s": round(games / acting, 2),
              "learner_samples_per_s": learned["learner_samples_per_s"],
              "douzero_actor": douzero,
              "actor_vs_douzero_moves": (round(moves / acting / douzero["moves_per_s"], 1) if douzero else None)}
    print(f"DMC actor ({cfg.envs} games at once, native forward, one thread): {result['actor_moves_per_s']:,.0f} "
          f"moves/s, {result['actor_learned_decisions_per_s']:,.0f} learned decisions/s, "
          f"{result['actor_games_per_s']:,.1f} games/s")
    print(f"DMC learner (MLX, batch {cfg.batch_size}): {result['learner_samples_per_s']:,.0f} samples/s")
    if douzero:
        print(f"douzero's actor loop (its env and LSTM models, torch CPU, one thread): "
              f"{douzero['moves_per_s']:,.0f} moves/s, {douzero['games_per_s']:.1f} games/s; "
              f"ours {result['actor_vs_douzero_moves']}x")
    elif cfg.game == "doudizhu":
        print("douzero is not installed: its actor loop was not measured (pip install douzero gitpython)")
    if args.json:
        artefacts.write_json(args.json, result, indent=2)
    return 0

"""LandlordFormer-Lite: the small MLX student that both games share.

A featurizer (openlandlord.features) turns an observation and its legal list into arrays:

    state_tokens  float32 [B, T, Fs]   state_mask  float32 [B, T]   (1 = real token)
    actions       float32 [B, A, Fa]   action_mask float32 [B, A]   (1 = real legal action)
    role          int32   [B]          in [0, num_roles)
    unseen        int32   [B, R]       cards of each belief slot the acting seat cannot see
    capacity      int32   [B, H]       cards left in each hidden hand (Dou Dizhu: the next
                                       opponent first, then the other hidden seat)
    void          float32 [B, H, R]    1 where a hidden hand is known to be void in a slot

and the model returns `logits` [B, A] (padding slots get -MASK_VALUE), `value` [B],
`belief_logits` [B, R, K] and `belief_expect` [B, R, H].

The forward pass is four separable pieces so that an exported fixed-shape model can score
any number of legal actions in chunks with exactly the unchunked result:
`encode_state` (once per state), `embed_actions` and `pool` (per chunk; pools merge with
`merge_pools`), then `score` (per chunk, with the merged pool). `__call__` composes them.
Every parameter name here is mirrored by export/torch_mirror.py.
"""
import dataclasses
import itertools
import math

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx.utils import tree_flatten

from .. import features
from ..games import spec as game_spec
from ..errors import UserError

ARCHITECTURE = "LandlordFormer-Lite"

# Large enough to zero a softmax weight, small enough to stay finite in fp16 (max 65504).
MASK_VALUE = 1e4

BELIEF_MODES = ("expect", "full", "off")
VALUE_TARGETS = ("score", "winloss")

# ModelConfig fields that the featurizer decides (`for_features`); the others may be set.
FEATURE_FIELDS = ("state_feat_dim", "action_feat_dim", "num_roles", "belief_slots", "belief_holders",
                  "belief_max_count", "max_state_tokens", "feature_version", "role_names", "game")


@dataclasses.dataclass
class ModelConfig:
    """Architecture, ablation switches and loss weights of one student."""
    state_feat_dim: int
    action_feat_dim: int
    num_roles: int
    belief_slots: int
    belief_holders: int
    belief_max_count: int
    d_model: int = 64
    heads: int = 4
    ff: int = 128
    layers: int = 2
    adapter_rank: int = 8
    # Fixed state length of exported models; the featurizer pads to it, never truncates.
    max_state_tokens: int = 64
    # Ablations: what the policy sees of the belief head, and whether gradients flow back.
    belief_mode: str = "expect"
    belief_stop_grad: bool = True
    use_adapters: bool = True
    use_deep_sets: bool = True
    value_target: str = "score"
    value_scale: float = 24.0
    policy_weight: float = 1.0
    value_weight: float = 0.5
    belief_weight: float = 0.5
    game: str = "generic"
    feature_version: str = "unset"
    role_names: tuple = ()

    def __post_init__(self):
        # Types first: a config.json saying `d_model: "abc"` must be one line naming the
        # field, not a TypeError from the arithmetic below.
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type is tuple:
                ok, kind = (isinstance(value, (list, tuple)) and all(isinstance(r, str) for r in value),
                            "a list of strings")
            elif f.type is bool or f.type is str:
                ok, kind = isinstance(value, f.type), ("true or false" if f.type is bool else "a string")
            else:
                numbers = (int, np.integer) if f.type is int else (int, float, np.integer, np.floating)
                ok = isinstance(value, numbers) and not isinstance(value, bool)
                kind = "an integer" if f.type is int else "a number"
            if not ok:
                raise UserError(f"model config field {f.name} must be {kind}, got {value!r}")
        self.role_names = tuple(self.role_names)
        if self.d_model % self.heads:
            raise UserError(f"d_model {self.d_model} is not divisible by heads {self.heads}")
        if self.belief_mode not in BELIEF_MODES:
            raise UserError(f"belief_mode {self.belief_mode!r} is not one of {BELIEF_MODES}")
        if self.value_target not in VALUE_TARGETS:
            raise UserError(f"value_target {self.value_target!r} is not one of {VALUE_TARGETS}")
        if self.value_scale <= 0:
            raise UserError(f"value_scale must be positive, got {self.value_scale}")
        if self.role_names and len(self.role_names) != self.num_roles:
            raise UserError(f"{len(self.role_names)} role_names for num_roles {self.num_roles}")
        for name in ("state_feat_dim", "action_feat_dim", "num_roles", "belief_slots",
                     "belief_holders", "belief_max_count", "d_model", "heads", "ff", "layers",
                     "adapter_rank", "max_state_tokens"):
            if getattr(self, name) < 1:
                raise UserError(f"{name} must be at least 1, got {getattr(self, name)}")

    @classmethod
    def for_game(cls, game: str, **overrides) -> "ModelConfig":
        """The default student for a game: the featurizer's sizes, the game spec's student
        preset (role names, any architecture change) and value scale; `overrides` set any
        field. `for_features` is what training and export use (it also records the feature
        version and refuses to override the featurizer's sizes)."""
        spec = game_spec(game)
        dims = features.dims(game)
        preset = {k: dims[k] for k in ("state_feat_dim", "action_feat_dim", "num_roles",
                                       "belief_slots", "belief_holders", "belief_max_count")}
        preset.update(max_state_tokens=dims["max_tokens"], value_scale=spec.value_scale,
                      **spec.student_preset())
        return cls(**{**preset, "game": game, **overrides})

    @classmethod
    def for_features(cls, game: str, **overrides) -> "ModelConfig":
        """The student for a game at the sizes its featurizer gives (`features.dims(game)`):
        the one place a ModelConfig is built from the featurizer. `overrides` set any other
        field (architecture, ablation switches, loss weights; FEATURE_FIELDS are not theirs
        to set)."""
        fixed = sorted(set(overrides) & set(FEATURE_FIELDS))
        if fixed:
            raise UserError(f"{', '.join(fixed)} come(s) from the {game} featurizer and cannot be overridden")
        roles = cls.for_game(game).role_names          # (an unknown game fails here)
        dims = features.dims(game)
        fields = {k: dims[k] for k in ("state_feat_dim", "action_feat_dim", "num_roles", "belief_slots",
                                       "belief_holders", "belief_max_count")}
        fields.update(max_state_tokens=dims["max_tokens"], feature_version=str(dims["feature_version"]),
                      role_names=roles if len(roles) == dims["num_roles"] else ())
        return cls.for_game(game, **fields, **overrides)

    @classmethod
    def from_dict(cls, fields: dict) -> "ModelConfig":
        if not isinstance(fields, dict):
            raise UserError(f"the model config must be a JSON object of fields, got {type(fields).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(fields) - known)
        if unknown:
            raise UserError(f"unknown model config fields: {', '.join(unknown)}")
        missing = [f.name for f in dataclasses.fields(cls)
                   if f.default is dataclasses.MISSING and f.name not in fields]
        if missing:
            raise UserError(f"the model config lacks the field(s) {', '.join(missing)}")
        return cls(**fields)

    def to_dict(self) -> dict:
        fields = dataclasses.asdict(self)
        fields["role_names"] = list(self.role_names)
        return fields


def compositions(holders: int, max_count: int) -> np.ndarray:
    """Every way (k_1..k_H) to share at most `max_count` cards of one slot among the hidden
    hands, int32 [K, H]; the belief head is a categorical over these rows."""
    rows = [c for c in itertools.product(range(max_count + 1), repeat=holders) if sum(c) <= max_count]
    return np.array(rows, dtype=np.int32)


def num_parameters(model: nn.Module) -> int:
    return sum(v.size for _, v in tree_flatten(model.parameters()))


def masked_mean(x, mask):
    """Mean over axis 1 of x [B, L, D] counting only positions where mask [B, L] is 1."""
    m = mask[..., None]
    return (x * m).sum(axis=1) / mx.maximum(m.sum(axis=1), 1.0)


class Attention(nn.Module):
    """Multi-head attention whose keys are masked with an fp16-safe additive constant."""

    def __init__(self, dims: int, heads: int):
        super().__init__()
        self.heads = heads
        self.head_dim = dims // heads
        self.q_proj = nn.Linear(dims, dims)
        self.k_proj = nn.Linear(dims, dims)
        self.v_proj = nn.Linear(dims, dims)
        self.out_proj = nn.Linear(dims, dims)

    def __call__(self, queries, keys, key_mask):
        B, L, D = queries.shape
        S = keys.shape[1]
        q = self.q_proj(queries).reshape(B, L, self.heads, self.head_dim).transpose(0, 2, 1, 3)
        k = self.k_proj(keys).reshape(B, S, self.heads, self.head_dim).transpose(0, 2, 3, 1)
        v = self.v_proj(keys).reshape(B, S, self.heads, self.head_dim).transpose(0, 2, 1, 3)
        scores = (q @ k) * (1.0 / math.sqrt(self.head_dim))
        scores = scores + (key_mask[:, None, None, :] - 1.0) * MASK_VALUE
        out = (mx.softmax(scores, axis=-1) @ v).transpose(0, 2, 1, 3).reshape(B, L, D)
        return self.out_proj(out)


class FeedForward(nn.Module):
    def __init__(self, dims: int, hidden: int):
        super().__init__()
        self.up = nn.Linear(dims, hidden)
        self.down = nn.Linear(hidden, dims)

    def __call__(self, x):
        return self.down(nn.relu(self.up(x)))


class EncoderLayer(nn.Module):
    """Pre-LN self-attention block over the state tokens."""

    def __init__(self, dims: int, heads: int, hidden: int):
        super().__init__()
        self.ln_attn = nn.LayerNorm(dims)
        self.attn = Attention(dims, heads)
        self.ln_ff = nn.LayerNorm(dims)
        self.ff = FeedForward(dims, hidden)

    def __call__(self, x, mask):
        h = self.ln_attn(x)
        x = x + self.attn(h, h, mask)
        return x + self.ff(self.ln_ff(x))


class ActionLayer(nn.Module):
    """Pre-LN block in which each legal action, on its own, queries the state memory."""

    def __init__(self, dims: int, heads: int, hidden: int):
        super().__init__()
        self.ln_query = nn.LayerNorm(dims)
        self.cross_attn = Attention(dims, heads)
        self.ln_ff = nn.LayerNorm(dims)
        self.ff = FeedForward(dims, hidden)

    def __call__(self, a, memory, memory_mask):
        a = a + self.cross_attn(self.ln_query(a), memory, memory_mask)
        return a + self.ff(self.ln_ff(a))


class RoleAdapter(nn.Module):
    """Rank-r residual x + (x A_role) B_role; B starts at zero so every role starts shared."""

    def __init__(self, num_roles: int, dims: int, rank: int):
        super().__init__()
        self.down = mx.random.normal((num_roles, dims, rank)) * (dims ** -0.5)
        self.up = mx.zeros((num_roles, rank, dims))

    def __call__(self, x, role):
        return x + (x @ self.down[role]) @ self.up[role]


class BeliefHead(nn.Module):
    """Per slot, a categorical over the compositions of its unseen cards among the hidden
    hands, restricted to compositions that use exactly the unseen count, fit each hand's
    cards left and respect known voids. The last hand's expectation is the remainder, so
    the expectations add up to the unseen count by construction."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self._compositions = mx.array(compositions(cfg.belief_holders, cfg.belief_max_count))
        k = self._compositions.shape[0]
        self.slot_embedding = mx.random.normal((cfg.belief_slots, cfg.d_model)) * 0.02
        self.hidden = nn.Linear(cfg.d_model, cfg.d_model)
        self.out = nn.Linear(cfg.d_model, k)

    def allowed(self, unseen, capacity, void):
        """float [B, R, K]: 1 where a composition is possible."""
        comps = self._compositions.astype(mx.float32)                      # [K, H]
        exact = comps.sum(axis=1) == unseen.astype(mx.float32)[:, :, None]  # [B, R, K]
        fits = (comps[None, None] <= capacity.astype(mx.float32)[:, None, None, :]).all(axis=-1)
        voids = void.transpose(0, 2, 1)[:, :, None, :]                     # [B, R, 1, H]
        respects_voids = ((comps[None, None] * voids) == 0).all(axis=-1)
        return (exact & fits & respects_voids).astype(mx.float32)

    def __call__(self, summary, unseen, capacity, void):
        h = nn.relu(self.hidden(summary)[:, None, :] + self.slot_embedding)
        allowed = self.allowed(unseen, capacity, void)
        return self.spread(self.out(h) * allowed + (allowed - 1.0) * MASK_VALUE, unseen)

    def spread(self, logits, unseen):
        """-> (logits, probs, expect) of masked composition logits [B, R, K]: the categorical and
        each hidden hand's expected count per slot [B, R, H]."""
        probs = mx.softmax(logits, axis=-1)
        shared = probs @ self._compositions[:, :-1].astype(mx.float32)     # [B, R, H-1]
        rest = unseen.astype(mx.float32) - shared.sum(axis=-1)
        return logits, probs, mx.concatenate([shared, rest[..., None]], axis=-1)


class LandlordFormerLite(nn.Module):
    """State encoder -> belief token -> each legal action cross-attends the state -> Deep
    Sets summary of the legal set added to every action -> one logit per action."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.config = cfg
        d = cfg.d_model
        self.state_in = nn.Linear(cfg.state_feat_dim, d)
        self.role_embedding = nn.Embedding(cfg.num_roles, d)
        self.encoder_layers = [EncoderLayer(d, cfg.heads, cfg.ff) for _ in range(cfg.layers)]
        self.encoder_norm = nn.LayerNorm(d)
        self.value_hidden = nn.Linear(d, d)
        self.value_out = nn.Linear(d, 1)
        if cfg.belief_mode != "off":
            self.belief = BeliefHead(cfg)
            per_slot = cfg.belief_holders if cfg.belief_mode == "expect" else self.belief._compositions.shape[0]
            self.belief_in = nn.Linear(cfg.belief_slots * per_slot, d)
        self.action_in = nn.Linear(cfg.action_feat_dim, d)
        self.action_layer = ActionLayer(d, cfg.heads, cfg.ff)
        if cfg.use_deep_sets:
            self.set_phi = nn.Linear(d, d)
            self.set_rho = nn.Linear(2 * d, d)
        if cfg.use_adapters:
            self.state_adapter = RoleAdapter(cfg.num_roles, d, cfg.adapter_rank)
            self.action_adapter = RoleAdapter(cfg.num_roles, d, cfg.adapter_rank)
        self.score_hidden = nn.Linear(d, d)
        self.score_out = nn.Linear(d, 1)

    def encode_state(self, state_tokens, state_mask, role, unseen, capacity, void):
        """-> (memory [B, T', d], memory_mask [B, T'], belief dict, value [B]). With the
        belief head on, T' = T + 1: the belief token is appended to the state tokens."""
        cfg = self.config
        x = self.state_in(state_tokens) + self.role_embedding(role)[:, None, :]
        for layer in self.encoder_layers:
            x = layer(x, state_mask)
        x = self.encoder_norm(x)
        if cfg.use_adapters:
            x = self.state_adapter(x, role)
        memory, memory_mask, belief = x, state_mask, {}
        if cfg.belief_mode != "off":
            logits, probs, expect = self.belief(masked_mean(x, state_mask), unseen, capacity, void)
            seen = expect / cfg.belief_max_count if cfg.belief_mode == "expect" else probs
            if cfg.belief_stop_grad:
                seen = mx.stop_gradient(seen)
            token = self.belief_in(seen.reshape(seen.shape[0], -1))[:, None, :]
            memory = mx.concatenate([x, token], axis=1)
            memory_mask = mx.concatenate([state_mask, mx.ones_like(state_mask[:, :1])], axis=1)
            belief = {"belief_logits": logits, "belief_expect": expect}
        summary = masked_mean(memory, memory_mask)
        value = mx.tanh(self.value_out(nn.relu(self.value_hidden(summary))))[:, 0]
        return memory, memory_mask, belief, value

    def embed_actions(self, memory, memory_mask, actions, role):
        """-> per-action embeddings [B, A, d]; each action sees the state, not the others.
        (`role` is part of the contract; the role enters through the state memory here.)"""
        return self.action_layer(self.action_in(actions), memory, memory_mask)

    def pool(self, embeddings, action_mask):
        """Deep Sets statistics of the legal set: (sum [B, d], count [B, 1], max [B, d]).
        They merge across chunks exactly with `merge_pools`."""
        h = nn.relu(self.set_phi(embeddings)) if self.config.use_deep_sets else embeddings
        m = action_mask[..., None]
        total = (h * m).sum(axis=1)
        count = m.sum(axis=1)
        maximum = (h * m + (m - 1.0) * MASK_VALUE).max(axis=1)
        return total, count, maximum

    def _score_parts(self, embeddings, pooled, role):
        """-> (each action's embedding, role-adapted [B, A, d]; the Deep Sets summary of the
        legal set [B, d], or None without it): what the score head adds up."""
        cfg = self.config
        x = self.action_adapter(embeddings, role) if cfg.use_adapters else embeddings
        if not cfg.use_deep_sets:
            return x, None
        total, count, maximum = pooled
        mean = total / mx.maximum(count, 1.0)
        return x, self.set_rho(mx.concatenate([mean, maximum], axis=-1))

    def score_preactivation(self, embeddings, pooled, role):
        """-> the score head's hidden layer before its ReLU [B, A, d]: each action's embedding
        (role-adapted) plus the Deep Sets summary of the legal set, through `score_hidden`."""
        return self._plain_preactivation(*self._score_parts(embeddings, pooled, role))

    def _plain_preactivation(self, x, summary):
        return self.score_hidden(x if summary is None else x + summary[:, None, :])

    def score(self, embeddings, pooled, role, action_mask=None, centred=True):
        """-> logits [B, A]; with `action_mask`, padding slots get -MASK_VALUE.

        `centred` (the players' and exports' form): the same logits less a constant common to
        the decision's moves, so the same softmax and argmax, computed without that constant.
        The hidden unit relu(h + c), h = score_hidden(action) and c = W_hidden summary common
        to the moves, is computed as relu(h + c) - relu(c): c > 0 ? max(h, -c) : max(h + c, 0);
        and score_out's bias is left out. A drifted student's large summary (docs/training.md,
        "The scale of the scores") then no longer swamps its moves' differences in float32.
        `centred=False` is the plain sum, the function the trainer fits (its loss, val metrics
        and centering term)."""
        x, summary = self._score_parts(embeddings, pooled, role)
        if not centred:
            logits = self.score_out(nn.relu(self._plain_preactivation(x, summary)))[..., 0]
        else:
            hidden = self.score_hidden(x)
            if summary is None:
                hidden = nn.relu(hidden)
            else:
                c = (summary @ self.score_hidden.weight.T)[:, None, :]
                hidden = mx.where(c > 0, mx.maximum(hidden, -c), mx.maximum(hidden + c, 0.0))
            logits = (hidden @ self.score_out.weight.T)[..., 0]
        if action_mask is not None:
            logits = logits * action_mask + (action_mask - 1.0) * MASK_VALUE
        return logits

    def __call__(self, batch: dict, centred: bool = True) -> dict:
        """The whole forward pass; `centred` as in `score` (the trainer passes False)."""
        memory, memory_mask, belief, value = self.encode_state(
            batch["state_tokens"], batch["state_mask"], batch["role"],
            batch["unseen"], batch["capacity"], batch["void"])
        embeddings = self.embed_actions(memory, memory_mask, batch["actions"], batch["role"])
        pooled = self.pool(embeddings, batch["action_mask"])
        logits = self.score(embeddings, pooled, batch["role"], batch["action_mask"], centred)
        return {"logits": logits, "value": value, **belief}


def merge_pools(a, b):
    """Combine the `pool` statistics of two disjoint chunks of one legal list."""
    return a[0] + b[0], a[1] + b[1], mx.maximum(a[2], b[2])

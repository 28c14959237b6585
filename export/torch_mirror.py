"""The student in torch, parameter for parameter: the bridge from MLX to Core ML.

Same module and parameter names as openlandlord/model/student.py, so the MLX
weights.safetensors loads directly. Written to trace cleanly for coremltools: head sizes
are Python ints (coremltools 9 with numpy >= 2.4 fails on `//` over traced shapes) and
masks use the fp16-safe MASK_VALUE; `torch.maximum(x, 1)` rather than `clamp(min=1)`, whose
open upper bound becomes an fp16 infinity.
"""
import math
import os

import torch
import torch.nn.functional as F
from safetensors.torch import load_file
from torch import nn

from openlandlord.errors import UserError
from openlandlord.model.checkpoint import WEIGHTS, check_weights, read_meta
from openlandlord.model.student import MASK_VALUE, ModelConfig, compositions


def masked_mean(x, mask):
    m = mask.unsqueeze(-1)
    count = m.sum(dim=1)
    return (x * m).sum(dim=1) / torch.maximum(count, torch.ones_like(count))


class Attention(nn.Module):
    def __init__(self, dims: int, heads: int):
        super().__init__()
        self.heads = heads
        self.head_dim = dims // heads
        self.dims = dims
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.q_proj = nn.Linear(dims, dims)
        self.k_proj = nn.Linear(dims, dims)
        self.v_proj = nn.Linear(dims, dims)
        self.out_proj = nn.Linear(dims, dims)

    def forward(self, queries, keys, key_mask):
        B, L = queries.shape[0], queries.shape[1]
        S = keys.shape[1]
        q = self.q_proj(queries).reshape(B, L, self.heads, self.head_dim).permute(0, 2, 1, 3)
        k = self.k_proj(keys).reshape(B, S, self.heads, self.head_dim).permute(0, 2, 3, 1)
        v = self.v_proj(keys).reshape(B, S, self.heads, self.head_dim).permute(0, 2, 1, 3)
        scores = torch.matmul(q, k) * self.scale
        scores = scores + (key_mask[:, None, None, :] - 1.0) * MASK_VALUE
        out = torch.matmul(torch.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).reshape(B, L, self.dims)
        return self.out_proj(out)


class FeedForward(nn.Module):
    def __init__(self, dims: int, hidden: int):
        super().__init__()
        self.up = nn.Linear(dims, hidden)
        self.down = nn.Linear(hidden, dims)

    def forward(self, x):
        return self.down(F.relu(self.up(x)))


class EncoderLayer(nn.Module):
    def __init__(self, dims: int, heads: int, hidden: int):
        super().__init__()
        self.ln_attn = nn.LayerNorm(dims)
        self.attn = Attention(dims, heads)
        self.ln_ff = nn.LayerNorm(dims)
        self.ff = FeedForward(dims, hidden)

    def forward(self, x, mask):
        h = self.ln_attn(x)
        x = x + self.attn(h, h, mask)
        return x + self.ff(self.ln_ff(x))


class ActionLayer(nn.Module):
    def __init__(self, dims: int, heads: int, hidden: int):
        super().__init__()
        self.ln_query = nn.LayerNorm(dims)
        self.cross_attn = Attention(dims, heads)
        self.ln_ff = nn.LayerNorm(dims)
        self.ff = FeedForward(dims, hidden)

    def forward(self, a, memory, memory_mask):
        a = a + self.cross_attn(self.ln_query(a), memory, memory_mask)
        return a + self.ff(self.ln_ff(a))


class RoleAdapter(nn.Module):
    def __init__(self, num_roles: int, dims: int, rank: int):
        super().__init__()
        self.down = nn.Parameter(torch.zeros(num_roles, dims, rank))
        self.up = nn.Parameter(torch.zeros(num_roles, rank, dims))

    def forward(self, x, role):
        return x + torch.matmul(torch.matmul(x, self.down[role]), self.up[role])


class BeliefHead(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        comps = torch.from_numpy(compositions(cfg.belief_holders, cfg.belief_max_count)).float()
        self.register_buffer("compositions", comps, persistent=False)
        self.slot_embedding = nn.Parameter(torch.zeros(cfg.belief_slots, cfg.d_model))
        self.hidden = nn.Linear(cfg.d_model, cfg.d_model)
        self.out = nn.Linear(cfg.d_model, comps.shape[0])

    def allowed(self, unseen, capacity, void):
        comps = self.compositions
        exact = (comps.sum(dim=1) == unseen.float().unsqueeze(-1)).float()
        fits = (comps[None, None] <= capacity.float()[:, None, None, :]).float().amin(dim=-1)
        voids = void.permute(0, 2, 1).unsqueeze(2)
        respects_voids = ((comps[None, None] * voids) == 0).float().amin(dim=-1)
        return exact * fits * respects_voids

    def forward(self, summary, unseen, capacity, void):
        h = F.relu(self.hidden(summary).unsqueeze(1) + self.slot_embedding)
        allowed = self.allowed(unseen, capacity, void)
        logits = self.out(h) * allowed + (allowed - 1.0) * MASK_VALUE
        probs = torch.softmax(logits, dim=-1)
        shared = torch.matmul(probs, self.compositions[:, :-1])
        rest = unseen.float() - shared.sum(dim=-1)
        return logits, probs, torch.cat([shared, rest.unsqueeze(-1)], dim=-1)


class LandlordFormerLite(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.config = cfg
        d = cfg.d_model
        self.state_in = nn.Linear(cfg.state_feat_dim, d)
        self.role_embedding = nn.Embedding(cfg.num_roles, d)
        self.encoder_layers = nn.ModuleList(EncoderLayer(d, cfg.heads, cfg.ff) for _ in range(cfg.layers))
        self.encoder_norm = nn.LayerNorm(d)
        self.value_hidden = nn.Linear(d, d)
        self.value_out = nn.Linear(d, 1)
        if cfg.belief_mode != "off":
            self.belief = BeliefHead(cfg)
            per_slot = cfg.belief_holders if cfg.belief_mode == "expect" else self.belief.compositions.shape[0]
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
        cfg = self.config
        x = self.state_in(state_tokens) + self.role_embedding(role).unsqueeze(1)
        for layer in self.encoder_layers:
            x = layer(x, state_mask)
        x = self.encoder_norm(x)
        if cfg.use_adapters:
            x = self.state_adapter(x, role)
        memory, memory_mask, belief = x, state_mask, {}
        if cfg.belief_mode != "off":
            logits, probs, expect = self.belief(masked_mean(x, state_mask), unseen, capacity, void)
            seen = expect / cfg.belief_max_count if cfg.belief_mode == "expect" else probs
            token = self.belief_in(seen.flatten(1)).unsqueeze(1)
            memory = torch.cat([x, token], dim=1)
            memory_mask = torch.cat([state_mask, torch.ones_like(state_mask[:, :1])], dim=1)
            belief = {"belief_logits": logits, "belief_expect": expect}
        summary = masked_mean(memory, memory_mask)
        value = torch.tanh(self.value_out(F.relu(self.value_hidden(summary))))[:, 0]
        return memory, memory_mask, belief, value

    def embed_actions(self, memory, memory_mask, actions, role):
        return self.action_layer(self.action_in(actions), memory, memory_mask)

    def pool(self, embeddings, action_mask):
        h = F.relu(self.set_phi(embeddings)) if self.config.use_deep_sets else embeddings
        m = action_mask.unsqueeze(-1)
        total = (h * m).sum(dim=1)
        count = m.sum(dim=1)
        maximum = (h * m + (m - 1.0) * MASK_VALUE).amax(dim=1)
        return total, count, maximum

    def score(self, embeddings, pooled, role, action_mask=None, centred=True):
        cfg = self.config
        x = self.action_adapter(embeddings, role) if cfg.use_adapters else embeddings
        summary = None
        if cfg.use_deep_sets:
            total, count, maximum = pooled
            mean = total / torch.maximum(count, torch.ones_like(count))
            summary = self.set_rho(torch.cat([mean, maximum], dim=-1))
        if not centred:
            hidden = F.relu(self.score_hidden(x if summary is None else x + summary.unsqueeze(1)))
            logits = self.score_out(hidden)[..., 0]
        else:  # relu(h + c) - relu(c), no output bias: as the MLX student's `score` (its docstring)
            hidden = self.score_hidden(x)
            if summary is None:
                hidden = F.relu(hidden)
            else:
                c = (summary @ self.score_hidden.weight.T).unsqueeze(1)
                hidden = torch.where(c > 0, torch.maximum(hidden, -c), F.relu(hidden + c))
            logits = (hidden @ self.score_out.weight.T)[..., 0]
        if action_mask is not None:
            logits = logits * action_mask + (action_mask - 1.0) * MASK_VALUE
        return logits

    def forward(self, batch: dict, centred: bool = True) -> dict:
        memory, memory_mask, belief, value = self.encode_state(
            batch["state_tokens"], batch["state_mask"], batch["role"],
            batch["unseen"], batch["capacity"], batch["void"])
        embeddings = self.embed_actions(memory, memory_mask, batch["actions"], batch["role"])
        pooled = self.pool(embeddings, batch["action_mask"])
        logits = self.score(embeddings, pooled, batch["role"], batch["action_mask"], centred)
        return {"logits": logits, "value": value, **belief}


def load_torch_student(checkpoint_dir: str) -> LandlordFormerLite:
    """The torch mirror of an MLX checkpoint, in eval mode, fp32; `.config` and `.meta` set."""
    meta = read_meta(checkpoint_dir)
    config = ModelConfig.from_dict(meta["config"])
    model = LandlordFormerLite(config)
    path = os.path.join(checkpoint_dir, WEIGHTS)
    try:
        weights = load_file(path)
    except Exception as e:  # safetensors raises its own error types for damaged files
        raise UserError(f"cannot read {path}: {e}") from None
    check_weights({k: v.shape for k, v in model.state_dict().items()},
                  {k: v.shape for k, v in weights.items()}, path)
    model.load_state_dict({k: v.float() for k, v in weights.items()})
    model.meta = meta
    return model.eval()

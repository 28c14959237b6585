"""Random but consistent student batches, for tests, benchmarks and export checks before
real featurized states exist: the belief inputs come from a drawn hidden deal, so the true
composition is always one the belief head allows."""
import numpy as np

from .student import ModelConfig


def random_batch(cfg: ModelConfig, batch_size: int, num_tokens: int, num_actions: int,
                 rng: np.random.Generator, padded: bool = True) -> dict:
    """numpy arrays keyed as the model and the losses expect. With `padded`, each sample
    has a random number of real state tokens and legal actions (at least one of each)."""
    B, T, A = batch_size, num_tokens, num_actions
    R, H, C = cfg.belief_slots, cfg.belief_holders, cfg.belief_max_count
    real_tokens = rng.integers(1, T + 1, size=B) if padded else np.full(B, T)
    real_actions = rng.integers(1, A + 1, size=B) if padded else np.full(B, A)
    state_mask = (np.arange(T)[None, :] < real_tokens[:, None]).astype(np.float32)
    action_mask = (np.arange(A)[None, :] < real_actions[:, None]).astype(np.float32)
    # Deal each slot's unseen cards among the hidden hands; a hand holding none of a slot
    # is sometimes known void there (as after failing to follow suit).
    unseen = rng.integers(0, C + 1, size=(B, R))
    hidden = np.zeros((B, R, H), dtype=np.int32)
    for b in range(B):
        for r in range(R):
            for _ in range(unseen[b, r]):
                hidden[b, r, rng.integers(H)] += 1
    void = ((hidden == 0) & (rng.random((B, R, H)) < 0.3)).transpose(0, 2, 1).astype(np.float32)
    logits = rng.normal(size=(B, A)) + np.where(action_mask > 0, 0.0, -np.inf)
    policy = np.exp(logits - logits.max(axis=1, keepdims=True))
    return {
        "state_tokens": (rng.normal(size=(B, T, cfg.state_feat_dim)) * state_mask[..., None]).astype(np.float32),
        "state_mask": state_mask,
        "actions": (rng.normal(size=(B, A, cfg.action_feat_dim)) * action_mask[..., None]).astype(np.float32),
        "action_mask": action_mask,
        "role": rng.integers(0, cfg.num_roles, size=B).astype(np.int32),
        "unseen": unseen.astype(np.int32),
        "capacity": hidden.sum(axis=1).astype(np.int32),
        "void": void,
        "target_policy": (policy / policy.sum(axis=1, keepdims=True)).astype(np.float32),
        "score": rng.choice([-4.0, -2.0, 2.0, 4.0, 48.0], size=B).astype(np.float32),
        "belief_target": hidden,
    }


def decision(batch: dict, row: int = 0) -> dict:
    """One row of an unpadded batch as `features.featurize` gives a decision: no batch
    axis, no masks, padding dropped."""
    tokens, actions = int(batch["state_mask"][row].sum()), int(batch["action_mask"][row].sum())
    return {"state_tokens": batch["state_tokens"][row, :tokens], "actions": batch["actions"][row, :actions],
            "role": int(batch["role"][row]), "unseen": batch["unseen"][row],
            "capacity": batch["capacity"][row], "void": batch["void"][row]}


def played_samples(deals: int, seed: int, bidding: str = "call-rob"):
    """(config, samples): every decision of `deals` Dou Dizhu deals played with uniformly
    random moves, featurized by the real featurizer (unpadded, one dict per decision)."""
    from .. import features
    from ..games import new_deal

    cfg = ModelConfig.for_features("doudizhu")
    rng = np.random.default_rng(seed)
    samples = []
    for deal in range(deals):
        game = new_deal("doudizhu", seed * 1000 + deal, bidding=bidding)
        while not game.done:
            legal = game.legal_moves()
            samples.append(features.featurize(game.observation(game.current_seat), legal))
            game.play(legal[rng.integers(len(legal))])
    return cfg, samples

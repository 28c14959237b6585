"""`douzero:DIR`: DouZero's trained card-play networks, scoring our referee's positions.

DIR holds DouZero's three checkpoints, `landlord.ckpt`, `landlord_up.ckpt` and
`landlord_down.ckpt`: plain torch state_dicts of `douzero.dmc.models.LandlordLstmModel` /
`FarmerLstmModel` (an LSTM(162 -> 128) over the last 15 moves, then a 6-layer 512-wide MLP
scoring one legal move per row). The ADP and WP releases share this architecture. No weights
ship with OpenLandlord; this module loads the user's.

The score of each legal move is exactly DouZero's `DeepAgent` value for it: the observation
is DouZero's `douzero.env.env.get_obs` encoding rebuilt from our `Observation` (public
information only: what the other two seats hold together is the deck minus our hand minus
everything played). The LSTM input is the same for every move, so it runs once per decision
instead of once per move; the result is the same up to float rounding.

DouZero has no bidding model: in a bidding phase this agent bids with the `rule` bot.

`python -m openlandlord.games.doudizhu.douzero_agent --check N` compares these scores with DouZero's
own `get_obs` + network on N random positions of all three seats (needs the `douzero` pip
package; random weights, saved from DouZero's own model classes).
"""
from __future__ import annotations

import importlib.util
import os
import pickle
import re

import numpy as np

from ...agents import Spec, check_options
from .rule import BidsByRule
from ...errors import NotAvailable, UserError

POSITIONS = ("landlord", "landlord_up", "landlord_down")
RANKS = "3456789TJQKA2BR"
_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
# Counts of each rank in the full deck: four of 3..2, one of each joker.
_DECK = np.array([4] * 13 + [1, 1], dtype=np.int64)
_HISTORY = 15      # DouZero encodes the last 15 moves, three per LSTM step
_LANDLORD_X = 373  # state + action features of the landlord network (without the LSTM part)
_FARMER_X = 484


def _counts(cards: str) -> np.ndarray:
    c = np.zeros(15, dtype=np.int64)
    for ch in cards:
        c[_RANK_INDEX[ch]] += 1
    return c


def _cards_array(counts) -> np.ndarray:
    """DouZero's `_cards2array`: 4 x 13 rank columns with `count` ones from the top,
    flattened column-major, then the two jokers."""
    out = np.zeros(54, dtype=np.float32)
    for r in range(13):
        out[r * 4:r * 4 + counts[r]] = 1.0
    out[52] = counts[13]
    out[53] = counts[14]
    return out


def _one_hot(index: int, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.float32)
    out[index] = 1.0
    return out


def position_of(seat: int, landlord: int) -> str:
    return ("landlord", "landlord_down", "landlord_up")[(seat - landlord) % 3]


def encode(obs, legal) -> tuple[np.ndarray, np.ndarray]:
    """DouZero's (z, x_batch) for `obs`: z is the 5 x 162 move history, x_batch one row of
    state + action features per legal move (373 columns for the landlord, 484 for farmers)."""
    landlord = obs.landlord
    seat_of = {position_of(s, landlord): s for s in range(3)}
    position = position_of(obs.seat, landlord)
    sequence = [move for _, move in obs.plays]

    # DouZero's last_move: the last move, or the one before it if the last was a pass.
    last_move = ""
    if sequence:
        last_move = sequence[-2] if sequence[-1] == "" and len(sequence) >= 2 else sequence[-1]
    last_by_seat = ["", "", ""]
    for seat, move in obs.plays:
        last_by_seat[seat] = move
    bombs = sum(1 for move in sequence
                if move == "BR" or (len(move) == 4 and move[0] == move[3]))

    hand = _counts(obs.hand)
    played = [_counts(p) for p in obs.played]
    others = _DECK - hand - played[0] - played[1] - played[2]

    def played_by(pos):
        return _cards_array(played[seat_of[pos]])

    def last_of(pos):
        return _cards_array(_counts(last_by_seat[seat_of[pos]]))

    def left(pos, size):
        return _one_hot(obs.cards_left[seat_of[pos]] - 1, size)

    if position == "landlord":
        state = [_cards_array(hand), _cards_array(others), _cards_array(_counts(last_move)),
                 played_by("landlord_up"), played_by("landlord_down"),
                 left("landlord_up", 17), left("landlord_down", 17), _one_hot(bombs, 15)]
    else:
        mate = "landlord_down" if position == "landlord_up" else "landlord_up"
        state = [_cards_array(hand), _cards_array(others), played_by("landlord"),
                 played_by(mate), _cards_array(_counts(last_move)), last_of("landlord"),
                 last_of(mate), left("landlord", 20), left(mate, 17), _one_hot(bombs, 15)]
    state_row = np.concatenate(state)
    x_batch = np.empty((len(legal), state_row.size + 54), dtype=np.float32)
    x_batch[:, :state_row.size] = state_row
    for j, move in enumerate(legal):
        x_batch[j, state_row.size:] = _cards_array(_counts(move))

    recent = sequence[-_HISTORY:]
    recent = [""] * (_HISTORY - len(recent)) + recent
    z = np.stack([_cards_array(_counts(m)) for m in recent]).reshape(5, 162)
    return z, x_batch


def _network(x_features: int):
    import torch
    from torch import nn

    class DouZeroNet(nn.Module):
        """DouZero's LandlordLstmModel / FarmerLstmModel, same parameter names."""

        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(162, 128, batch_first=True)
            self.dense1 = nn.Linear(x_features + 128, 512)
            self.dense2 = nn.Linear(512, 512)
            self.dense3 = nn.Linear(512, 512)
            self.dense4 = nn.Linear(512, 512)
            self.dense5 = nn.Linear(512, 512)
            self.dense6 = nn.Linear(512, 1)

        def forward(self, z, x):
            lstm_out, _ = self.lstm(z)
            h = lstm_out[:, -1, :].expand(x.shape[0], -1)
            h = torch.cat([h, x], dim=-1)
            for layer in (self.dense1, self.dense2, self.dense3, self.dense4, self.dense5):
                h = torch.relu(layer(h))
            return self.dense6(h)

    return DouZeroNet()


def load_network(path: str, position: str):
    """One DouZero checkpoint as a network in eval mode; a clear UserError when the file is
    missing, unreadable or not a DouZero state_dict for `position`."""
    import torch

    if not os.path.isfile(path):
        raise UserError(f"DouZero checkpoint {path!r} not found (the directory must hold "
                        + ", ".join(f"{p}.ckpt" for p in POSITIONS) + ")")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises assorted errors for files that are no checkpoint
        if isinstance(exc, pickle.UnpicklingError) and "Weights only load failed" in str(exc):
            # torch's own message advises weights_only=False, which would run code from the file.
            found = re.search(r"GLOBAL (\S+)", str(exc))
            holds = f" ({found.group(1)})" if found else ""
            raise UserError(f"cannot read DouZero checkpoint {path!r}: it holds Python objects other "
                            f"than tensors{holds}, so it is no DouZero state_dict, and it is not "
                            "loaded (unpickling it could run code)") from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise UserError(f"cannot read DouZero checkpoint {path!r}: not a torch checkpoint "
                        f"({type(exc).__name__}{': ' + first if first else ''})") from None
    if not isinstance(state, dict):
        raise UserError(f"DouZero checkpoint {path!r} is not a state_dict "
                        f"(it holds a {type(state).__name__})")
    net = _network(_LANDLORD_X if position == "landlord" else _FARMER_X)
    expected = net.state_dict()
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    if missing or unexpected:
        raise UserError(f"DouZero checkpoint {path!r} does not match the {position} network: "
                        f"missing {missing[:4]}, unexpected {unexpected[:4]}")
    for key, tensor in expected.items():
        if tuple(state[key].shape) != tuple(tensor.shape):
            raise UserError(f"DouZero checkpoint {path!r} does not match the {position} "
                            f"network: {key} has shape {tuple(state[key].shape)}, "
                            f"expected {tuple(tensor.shape)}")
    net.load_state_dict(state)
    net.eval()
    return net


class DouZeroAgent(BidsByRule):
    """Scores every legal move with the DouZero network of the seat's position."""

    def __init__(self, directory: str, seed: int | None = None):
        if importlib.util.find_spec("torch") is None:
            raise NotAvailable("agent 'douzero' needs the package 'torch'")
        if not os.path.isdir(directory):
            raise UserError(f"douzero: {directory!r} is not a directory holding "
                            + ", ".join(f"{p}.ckpt" for p in POSITIONS))
        self.name = f"douzero:{directory}"
        self.networks = {p: load_network(os.path.join(directory, f"{p}.ckpt"), p)
                         for p in POSITIONS}
        self.seed = seed

    def play_scores(self, obs, legal) -> np.ndarray:
        return self.values(obs, legal)

    def values(self, obs, legal) -> np.ndarray:
        import torch

        z, x_batch = encode(obs, legal)
        net = self.networks[position_of(obs.seat, obs.landlord)]
        with torch.no_grad():
            out = net(torch.from_numpy(z)[None], torch.from_numpy(x_batch))
        return out[:, 0].numpy().astype(np.float64)


def make_douzero(spec: Spec, seed: int | None) -> DouZeroAgent:
    check_options(spec, set())
    if not spec.arg:
        raise UserError(f"agent spec {spec.text!r} needs a directory: douzero:DIR, where DIR "
                        "holds " + ", ".join(f"{p}.ckpt" for p in POSITIONS))
    return DouZeroAgent(spec.arg, seed)


_DOUZERO_CARD = {"3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 11,
                 "Q": 12, "K": 13, "A": 14, "2": 17, "B": 20, "R": 30}


_FROM_DOUZERO = {v: k for k, v in _DOUZERO_CARD.items()}


def _douzero_cards(cards: str) -> list:
    return sorted(_DOUZERO_CARD[ch] for ch in cards)


def _from_douzero(cards: list) -> str:
    return "".join(_FROM_DOUZERO[c] for c in sorted(cards))


def save_random_checkpoints(directory: str, seed: int = 0, std: float = 0.08) -> None:
    """Write the three checkpoints from DouZero's own model classes with random weights
    (normal, std 0.08: larger than torch's default init, so that scores are of order one, as
    DouZero's are, and a 1e-5 agreement means something; float32 rounding differs with the
    batch size, i.e. with the legal move count, by about 1e-6 of the score)."""
    import torch
    from douzero.dmc.models import model_dict

    torch.manual_seed(seed)
    for position in POSITIONS:
        model = model_dict[position]()
        with torch.no_grad():
            for param in model.parameters():
                param.normal_(0.0, std)
        torch.save(model.state_dict(), os.path.join(directory, f"{position}.ckpt"))


def compare_with_douzero(directory: str, states: int, seed: int = 0) -> dict:
    """Play random games on our referee (the landlord at each seat in turn) and, in lockstep,
    on DouZero's own `GameEnv` from the same deal; at every decision score our legal moves
    with `DouZeroAgent` and with DouZero's `DeepAgent` (its `get_obs` on its own infoset,
    then its network, as `DeepAgent.act` does). Returns the number of states per position, the largest score difference, the
    spread of the scores, and how often DeepAgent's own pick, when it is one of our moves,
    is our argmax."""
    import torch
    from douzero.env.env import get_obs
    from douzero.env.game import GameEnv
    from douzero.evaluation.deep_agent import DeepAgent

    from . import Game

    ours = DouZeroAgent(directory)
    theirs = {p: DeepAgent(p, os.path.join(directory, f"{p}.ckpt")) for p in POSITIONS}

    class Scripted:
        action: list = []

        def act(self, infoset):
            return self.action

    rng = np.random.default_rng(seed)
    per_position = {p: 0 for p in POSITIONS}
    worst = 0.0
    spread, scale = [], []
    picks = agree = 0
    deal_seed = seed * 1_000_003
    while sum(per_position.values()) < states:
        deal_seed += 1
        # DouZero's landlord always comes first; ours sits at every seat in turn, so the
        # seat -> position mapping is checked too
        landlord = deal_seed % 3
        dealt = Game.new(deal_seed, bidding="none")
        hands, kitty = dealt.hands(), dealt.observation(0).kitty
        seats = [hands[(s - landlord) % 3] for s in range(3)]
        for card in kitty:
            seats[landlord] = seats[landlord].replace(card, "", 1)
        game = Game.from_hands(seats, kitty, bidding="none", landlord=landlord)
        players = {p: Scripted() for p in POSITIONS}
        env = GameEnv(players)
        env.card_play_init({"landlord": _douzero_cards(hands[0]),
                            "landlord_down": _douzero_cards(hands[1]),
                            "landlord_up": _douzero_cards(hands[2]),
                            "three_landlord_cards": _douzero_cards(kitty)})
        while not game.done and sum(per_position.values()) < states:
            seat = game.current_seat
            position = position_of(seat, landlord)
            assert env.acting_player_position == position
            legal = game.legal_moves()
            infoset = env.game_infoset
            their_legal = [_from_douzero(a) for a in infoset.legal_actions]
            missing = set(legal) - set(their_legal)
            if missing:
                raise AssertionError(f"DouZero lacks our legal moves {sorted(missing)[:5]}")
            mine = ours.scores(game.observation(seat), legal)
            obs = get_obs(infoset)
            with torch.no_grad():
                values = theirs[position].model.forward(
                    torch.from_numpy(obs["z_batch"]).float(),
                    torch.from_numpy(obs["x_batch"]).float(), return_value=True)["values"]
            values = values[:, 0].numpy()
            reference = dict(zip(their_legal, values))
            diffs = np.abs(mine - np.array([reference[m] for m in legal]))
            worst = max(worst, float(diffs.max()))
            spread.append(float(values.std()))
            scale.append(float(np.abs(values).mean()))
            if len(infoset.legal_actions) > 1:
                pick = _from_douzero(theirs[position].act(infoset))
                if pick in legal:
                    picks += 1
                    agree += legal[int(np.argmax(mine))] == pick
            per_position[position] += 1
            move = legal[int(rng.integers(len(legal)))]
            players[position].action = _douzero_cards(move)
            env.step()
            game.play(move)
    return {"states": per_position, "max_abs_diff": worst,
            "mean_abs_score": float(np.mean(scale)),
            "mean_score_spread": float(np.mean(spread)), "deepagent_picks": picks,
            "argmax_agrees": agree}


def main(argv=None) -> int:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(
        prog="python -m openlandlord.games.doudizhu.douzero_agent",
        description="Check our DouZero scores against DouZero's own DeepAgent on random "
                    "positions, with random-weight checkpoints from DouZero's model classes.")
    parser.add_argument("--check", type=int, required=True, metavar="N",
                        help="number of positions to compare")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import torch

    # batches of a few dozen rows: more threads only add contention
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as directory:
        save_random_checkpoints(directory, args.seed)
        report = compare_with_douzero(directory, args.check, args.seed)
    print(report)
    return 0 if report["max_abs_diff"] <= 1e-5 else 1


if __name__ == "__main__":
    raise SystemExit(main())

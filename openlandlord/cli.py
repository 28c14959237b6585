"""The `openlandlord` command. Thin: it parses the command line and dispatches to the stage
that does the work (imported lazily, so `openlandlord play` never loads torch).

A `UserError` from any stage becomes one line on stderr and exit status 2; anything else is a
bug and keeps its traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .errors import UserError
from .games import GAMES, all_options

# (command[, what]) -> "module:function(args) -> int | None"
HANDLERS = {
    ("play",): "openlandlord.play:run",
    ("generate",): "openlandlord.distill.generate:run",
    ("train",): "openlandlord.distill.train:run",
    ("export",): "openlandlord.export:run",
    ("bench", "referee"): "openlandlord.games.{game}.bench:run",
    ("bench", "latency"): "openlandlord.export.latency:run",
    ("bench", "generate"): "openlandlord.distill.generate:bench",
    ("bench", "train"): "openlandlord.distill.train:bench",
    ("eval",): "openlandlord.eval.arena:run",
    ("league",): "openlandlord.eval.league:run",
    ("quickstart",): "openlandlord.quickstart:run",
}


def _positive(kind):
    """An argparse type: a number of `kind` above zero (seconds, deals, epochs...)."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {kind.__name__} value: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be above zero, got {text}")
        return value
    parse.__name__ = f"positive {kind.__name__}"
    return parse


def _game_options(parser) -> None:
    """`--game` and every registered game's option flags (`--bidding`, `--rules`, `--mode`);
    the stage validates them against the chosen game's spec (`games.game_options`)."""
    parser.add_argument("--game", choices=GAMES, default="doudizhu")
    for opt in all_options().values():
        parser.add_argument(opt.flag, dest=opt.name, choices=opt.choices, default=None,
                            help=f"{opt.help} (default {opt.default})")


def _backend(parser) -> None:
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="where the games run: local processes, or a Ray cluster")
    parser.add_argument("--address", default=None,
                        help="Ray cluster address (HOST:PORT or auto; default: start a local Ray)")


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with one line (its default also exits 2, but prints usage first)."""

    def error(self, message):
        raise UserError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="openlandlord", description="OpenLandlord: Dou Dizhu and Shengji referees, teachers, an MLX student, Core ML export and mirrored-seat evaluation.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    play = sub.add_parser("play", help="play a game in the terminal (a seat may be `human`)")
    _game_options(play)
    play.add_argument("--seats", required=True, help="comma-separated agent specs, one per seat")
    play.add_argument("--seed", type=int, default=None)

    gen = sub.add_parser("generate", help="generate a teacher-scored decision dataset")
    _game_options(gen)
    gen.add_argument("--teacher", required=True)
    gen.add_argument("--deals", type=_positive(int), required=True)
    gen.add_argument("--out", required=True)
    gen.add_argument("--mix", default=None, help="SPEC:FRACTION, another agent choosing that fraction of moves")
    gen.add_argument("--workers", type=_positive(int), default=None)
    gen.add_argument("--seed", type=int, default=0)
    _backend(gen)
    gen.add_argument("--temperature", type=float, default=None,
                     help="teacher softmax temperature in score units (default per game: "
                          "Dou Dizhu 0.2, Shengji 0.1)")

    train = sub.add_parser("train", help="train the student on a dataset")
    train.add_argument("--data", required=True)
    train.add_argument("--out", required=True)
    train.add_argument("--epochs", type=_positive(int), default=None)
    train.add_argument("--config", default=None,
                       help="training config JSON (default distill/configs/default.json)")
    train.add_argument("--set", action="append", default=None, metavar="KEY=VALUE",
                       help="override one config field (repeatable), e.g. --set batch_size=128")
    train.add_argument("--resume", action="store_true",
                       help="continue the run in --out from its last epoch checkpoint")

    exp = sub.add_parser("export", help="export a checkpoint to Core ML (.mlpackage) or ONNX (.onnx)")
    exp.add_argument("--checkpoint", required=True)
    exp.add_argument("--out", required=True, help="FILE.mlpackage or FILE.onnx: the suffix chooses the format")
    exp.add_argument("--precision", choices=("fp16", "fp32"), default="fp16")

    bench = sub.add_parser("bench", help="benchmarks: referee, latency, generate, train")
    bench.add_argument("what", choices=("referee", "latency", "generate", "train"))
    _game_options(bench)
    bench.add_argument("--checkpoint", default=None)
    bench.add_argument("--json", default=None)
    bench.add_argument("--seconds", type=_positive(float), default=None, help="time budget per measurement")
    bench.add_argument("--batch-sizes", dest="batch_sizes", default=None,
                       help="train: comma-separated batch sizes to measure")

    ev = sub.add_parser("eval", help="mirrored-seat evaluation of one agent against another")
    _game_options(ev)
    ev.add_argument("--agent", required=True)
    ev.add_argument("--opponent", required=True)
    group = ev.add_mutually_exclusive_group(required=True)
    group.add_argument("--deals", type=_positive(int))
    group.add_argument("--deal-set", dest="deal_set")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--json", default=None)
    ev.add_argument("--report", default=None)
    ev.add_argument("--workers", type=_positive(int), default=None)
    ev.add_argument("--ledger", default=None, help="ledger file (default data/runs/ledger.jsonl)")
    _backend(ev)

    lg = sub.add_parser("league", help="round robin with Bradley-Terry / Elo ratings")
    _game_options(lg)
    lg.add_argument("--agents", nargs="+", required=True)
    lg_deals = lg.add_mutually_exclusive_group()
    lg_deals.add_argument("--deals", type=_positive(int), default=100)
    lg_deals.add_argument("--deal-set", dest="deal_set")
    lg.add_argument("--seed", type=int, default=0)
    lg.add_argument("--anchor", default=None, help="agent spec rated 0 (default: the mean)")
    lg.add_argument("--workers", type=_positive(int), default=None)
    lg.add_argument("--json", default=None)
    lg.add_argument("--report", default=None)
    lg.add_argument("--ledger", default=None, help="ledger file (default data/runs/ledger.jsonl)")
    _backend(lg)

    qs = sub.add_parser("quickstart", help="generate, train, export, bench and evaluate end to end")
    _game_options(qs)
    qs.add_argument("--out", default=None, help="working folder (default runs/quickstart-GAME)")

    # `openlandlord ship`: its flags live with it (distill/ship.py, which parses them).
    sub.add_parser("ship", help="make a shipped student end to end by its recipe "
                   "(openlandlord ship --help)", add_help=False)
    return p


def _handler(args):
    key = (args.command, args.what) if args.command == "bench" else (args.command,)
    target = HANDLERS[key].format(game=getattr(args, "game", ""))
    module_name, _, func = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise UserError(f"'openlandlord {' '.join(key)}' is not implemented in this version"
                            + (f" for --game {args.game}" if "{game}" in HANDLERS[key] else "")) from None
        raise
    return getattr(module, func)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["ship"]:
        from .distill import ship
        return ship.main(argv[1:], prog="openlandlord ship")
    try:
        args = build_parser().parse_args(argv)
        status = _handler(args)(args)
    except UserError as exc:
        print(f"openlandlord: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # A path the user gave that cannot be read or written (a folder where a file is
        # wanted, a missing parent, no permission): one line naming it.
        if exc.filename is None:
            raise
        print(f"openlandlord: error: {exc.strerror or exc}: {exc.filename}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("openlandlord: interrupted", file=sys.stderr)
        return 130
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())

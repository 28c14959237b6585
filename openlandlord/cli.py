"""The `openlandlord` command. Thin: it parses the command line and dispatches to the stage
that does the work (imported lazily, so `openlandlord play` never loads torch).

A `UserError` from any stage becomes one line on stderr and exit status 2; anything else is a
bug and keeps its traceback. Ctrl-C ends a command with status 130, SIGTERM with 143, each
after the command's own cleanup (a worker pool's processes stopped, locks released, a ship's
running step terminated first).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import threading

from .errors import UserError
from .games import GAMES, all_options

# (command[, what]) -> "module:function(args) -> int | None"
HANDLERS = {
    ("play",): "openlandlord.play:run",
    ("generate",): "openlandlord.distill.generate:run",
    ("train",): "openlandlord.distill.train:run",
    ("dmc",): "openlandlord.distill.dmc:run",
    ("soup",): "openlandlord.distill.soup:run",
    ("export",): "openlandlord.export:run",
    ("bench", "referee"): "openlandlord.games.{game}.bench:run",
    ("bench", "latency"): "openlandlord.export.latency:run",
    ("bench", "generate"): "openlandlord.distill.generate:bench",
    ("bench", "train"): "openlandlord.distill.train:bench",
    ("bench", "fuzz"): "openlandlord.fuzz:run",
    ("bench", "env"): "openlandlord.envs.bench:run",
    ("bench", "dmc"): "openlandlord.distill.dmc:bench",
    ("eval",): "openlandlord.eval.arena:run",
    ("league",): "openlandlord.eval.league:run",
    ("compare",): "openlandlord.eval.compare:run",
    ("quickstart",): "openlandlord.quickstart:run",
    ("serve",): "openlandlord.web.server:run",
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


def _port(text):
    """An argparse type: a TCP port, 1..65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1..65535, got {text}")
    return value


def _game_options(parser) -> None:
    """`--game` and every registered game's option flags (`--bidding`, `--rules`, `--mode`);
    the stage validates them against the chosen game's spec (`games.game_options`)."""
    parser.add_argument("--game", choices=GAMES, default="doudizhu", help="which game")
    for opt in all_options().values():
        parser.add_argument(opt.flag, dest=opt.name, choices=opt.choices, default=None,
                            help=f"{opt.help} (default {opt.default})")


def _backend(parser) -> None:
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="where the games run: local processes, or a Ray cluster")
    parser.add_argument("--address", default=None,
                        help="Ray cluster address (HOST:PORT or auto; default: start a local Ray)")


class _Parser(argparse.ArgumentParser):
    """argparse that exits 2 with one line (its default also exits 2, but prints usage first).
    An `epilog` may be a function: it is called only when help is printed, so what it lists
    (agents, deal sets) is imported only then and every other start stays fast."""

    def error(self, message):
        raise UserError(f"{self.prog}: {message}")

    def format_help(self):
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


class _Help(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Epilogs keep their lines; an option's default is added where its help does not already
    say it (none for required options, flags, or options whose default is worked out later)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (action.required or any(action.default is d for d in (None, False, argparse.SUPPRESS))
                or "default" in text or not action.option_strings):
            return text
        return f"{text} (default: %(default)s)"


def _agents() -> str:
    from .agents import _FACTORIES

    return ("agent specs: NAME[:ARGS], ARGS one value (a path or a level) or key=value pairs\n"
            "  separated by commas, e.g. rule:expert, pimc:worlds=32,rollout=rule,\n"
            "  student:runs/quickstart-doudizhu/model, onnx:student.onnx\n"
            f"agents: {', '.join(sorted(_FACTORIES))}")


def _deal_sets() -> str:
    from .eval.dealsets import committed_names

    return "committed deal sets (--deal-set NAME, or a deal-set .json file):\n  " + "\n  ".join(committed_names())


def _epilog(example: str, agents: bool = False, deal_sets: bool = False):
    """A help epilog: the agent spec grammar and registry, the committed deal sets, one example."""
    def build() -> str:
        parts = ([_agents()] if agents else []) + ([_deal_sets()] if deal_sets else [])
        return "\n\n".join(parts + [f"example:\n  {example}"])
    return build


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="openlandlord", formatter_class=_Help, epilog=_epilog("openlandlord quickstart"), description="OpenLandlord: Dou Dizhu and Shengji referees, teachers, an MLX student, Core ML export and mirrored-seat evaluation.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name, help, example, **lists):
        return sub.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".",
                              formatter_class=_Help, epilog=_epilog(example, **lists))

    play = command("play", "play a game in the terminal (a seat may be `human`)",
                   "openlandlord play --seats human,rule,rule:expert --seed 7", agents=True)
    _game_options(play)
    play.add_argument("--seats", required=True, help="comma-separated agent specs, one per seat "
                      "(a key=value piece is an option of the spec before it)")
    play.add_argument("--seed", type=int, default=None, help="deal seed (default: a fresh deal each run)")
    play.add_argument("--rounds", type=_positive(int), default=None,
                      help="deals to play: Dou Dizhu that many deals in a row; Shengji 1 = a single "
                           "round, N = the first N rounds of a match (default: one Dou Dizhu deal, "
                           "a whole Shengji match)")
    play.add_argument("--no-record", dest="no_record", action="store_true",
                      help="keep no game record (default: recorded under data/runs/records for "
                           "`openlandlord serve`'s replays)")

    gen = command("generate", "generate a teacher-scored decision dataset",
                  "openlandlord generate --teacher pimc:worlds=16 --deals 200 --out runs/data", agents=True)
    _game_options(gen)
    gen.add_argument("--teacher", required=True, help="agent spec whose move scores are the targets")
    gen.add_argument("--deals", type=_positive(int), required=True, help="number of deals to play")
    gen.add_argument("--out", required=True, help="dataset folder (rerun to resume it)")
    gen.add_argument("--mix", default=None, help="SPEC:FRACTION, another agent choosing that fraction of moves")
    gen.add_argument("--phases", default=None, metavar="KIND,...",
                     help="score and record only these decisions (Dou Dizhu bid, double, play; "
                          "Shengji declare, bury, play); --rest plays the others (default: all)")
    gen.add_argument("--rest", default=None, metavar="SPEC",
                     help="with --phases: the agent playing the decisions not recorded "
                          "(default: the teacher), e.g. student:DIR or rule:expert")
    gen.add_argument("--workers", type=_positive(int), default=None,
                     help="worker processes (default: one per core)")
    gen.add_argument("--seed", type=int, default=0, help="seed of the deals and the teacher")
    _backend(gen)
    gen.add_argument("--temperature", type=float, default=None,
                     help="teacher softmax temperature in score units (default per game: "
                          "Dou Dizhu 0.2, Shengji 0.1)")
    gen.add_argument("--force", action="store_true",
                     help="replace what --out holds (another run's dataset, or other files)")

    train = command("train", "train the student on a dataset",
                    "openlandlord train --data runs/data --out runs/model --epochs 4")
    train.add_argument("--data", required=True, help="dataset folder written by `generate`")
    train.add_argument("--out", required=True, help="checkpoint folder")
    train.add_argument("--epochs", type=_positive(int), default=None,
                       help="passes over the data (default: the config's)")
    train.add_argument("--config", default=None,
                       help="training config JSON (default distill/configs/default.json)")
    train.add_argument("--set", action="append", default=None, metavar="KEY=VALUE",
                       help="override one config field (repeatable), e.g. --set batch_size=128")
    train.add_argument("--resume", action="store_true",
                       help="continue the run in --out from its last epoch checkpoint")
    train.add_argument("--force", action="store_true",
                       help="replace a finished student or other files in --out (--resume continues a run)")

    soup = command("soup", "average the weights of students fine-tuned from one start (a model soup)",
                   "openlandlord soup --out runs/soup runs/ft-a runs/ft-b runs/ft-c")
    soup.add_argument("students", nargs="+", metavar="STUDENT",
                      help="student folders, each fine-tuned from the same start (train --set init=DIR)")
    soup.add_argument("--out", required=True, help="checkpoint folder of the soup")
    soup.add_argument("--force", action="store_true", help="replace an existing --out")
    soup.add_argument("--data", help="a dataset whose val split the soup is measured on (as train "
                      "measures a student: val_top1, val_regret, ...), recorded as its metrics")

    dmc = command("dmc", "fine-tune a student by Deep Monte-Carlo self-play (DouZero's method)",
                  "openlandlord dmc --init data/models/doudizhu --out runs/dmc --decisions 2000000")
    _game_options(dmc)
    dmc.add_argument("--init", required=True, help="student checkpoint folder to start from")
    dmc.add_argument("--out", required=True, help="run folder (rerun to resume it)")
    dmc.add_argument("--decisions", type=_positive(int), required=True,
                     help="decisions to learn in all (a rerun with a larger number goes on)")
    dmc.add_argument("--chunk", type=_positive(int), default=16384,
                     help="decisions played, then learned, between checkpoints")
    dmc.add_argument("--envs", type=_positive(int), default=64, help="games played at once")
    dmc.add_argument("--epsilon", type=float, default=0.01, help="share of random moves (exploration)")
    dmc.add_argument("--lr", type=_positive(float), default=1e-4, help="AdamW learning rate")
    dmc.add_argument("--batch-size", dest="batch_size", type=_positive(int), default=256, help="decisions per step")
    dmc.add_argument("--seed", type=int, default=0, help="seed of the games and the exploration")
    dmc.add_argument("--snapshot-every", dest="snapshot_every", type=_positive(int), default=10,
                     help="keep a copy of the student every N chunks under OUT/snapshots")
    dmc.add_argument("--cycle", default=None, metavar="NAME=V1,V2,...",
                     help="a game option whose value changes by chunk, e.g. bidding=call-rob,points,none "
                          "(bids are then learned in every flow)")
    dmc.add_argument("--anchor", default=None, metavar="DIR",
                     help="keep the bids of this student: each chunk also learns bidding decisions of "
                          "--anchor-flows towards its scores, not their returns (Dou Dizhu); with "
                          "--learn-phases, keep its play instead")
    dmc.add_argument("--anchor-flows", dest="anchor_flows", default=None, metavar="NAME=V1,V2,...",
                     help="the flows whose bids --anchor keeps, one per chunk in turn, e.g. bidding=call-rob,points")
    dmc.add_argument("--anchor-share", dest="anchor_share", type=_positive(float), default=0.125,
                     help="anchored bidding decisions per chunk, as a share of --chunk")
    dmc.add_argument("--anchor-weight", dest="anchor_weight", type=_positive(float), default=1.0,
                     help="weight of the anchor's cross-entropy in the loss")
    dmc.add_argument("--learn-phases", dest="learn_phases", default=None, metavar="KIND,...",
                     help="learn only these bidding phases from their returns (e.g. bury,declare for Shengji "
                          "classic); the play is kept --anchor's")
    dmc.add_argument("--learn-roles", dest="learn_roles", default=None, metavar="ROLE,...",
                     help="learn only these roles' decisions from their returns (the student's role names, "
                          "e.g. landlord); the other roles' play is kept --anchor's, as --learn-phases keeps it")
    dmc.add_argument("--train-only", dest="train_only", default=None, choices=("adapters", "value"),
                     help="adapters: learn only the per-role low-rank adapters (the rest frozen); with "
                          "--learn-roles the other roles' play stays exactly --init's. value: learn only "
                          "the value head, on the student's own games (its play stays exactly --init's)")
    dmc.add_argument("--win-bonus", dest="win_bonus", type=float, default=0.0,
                     help="add this times the sign of the return to it (in value units): wins count above their stake")
    dmc.add_argument("--noise", type=float, default=0.0,
                     help="in --noise-games of the games one side, drawn per game, plays this share of "
                          "its decisions at random and is not learned (default: 0, off)")
    dmc.add_argument("--noise-games", dest="noise_games", type=float, default=0.5,
                     help="with --noise: the share of games with a noisy side (default: 0.5)")
    dmc.add_argument("--force", action="store_true", help="replace what --out holds and start over")

    exp = command("export", "export a checkpoint to Core ML (.mlpackage) or ONNX (.onnx)",
                  "openlandlord export --checkpoint runs/model --out student.mlpackage --precision fp16")
    exp.add_argument("--checkpoint", required=True, help="checkpoint folder written by `train`")
    exp.add_argument("--out", required=True, help="FILE.mlpackage or FILE.onnx: the suffix chooses the format")
    exp.add_argument("--precision", choices=("fp16", "fp32"), default="fp16",
                     help="Core ML compute precision (ONNX is always fp32)")
    exp.add_argument("-v", "--verbose", action="store_true",
                     help="show the converters' own progress bars and warnings")
    exp.add_argument("--force", action="store_true", help="replace an existing --out")

    bench = command("bench", "benchmarks: referee, latency, generate, train, fuzz, env, dmc",
                    "openlandlord bench train --seconds 2 --batch-sizes 256 --json train.json")
    bench.add_argument("what", choices=("referee", "latency", "generate", "train", "fuzz", "env", "dmc"),
                       help="referee: our referee beside the test peers (pip install -e '.[test]'); "
                            "latency: the student's backends (needs --checkpoint); generate: "
                            "dataset throughput; train: training samples/s per BLAS and batch size; "
                            "fuzz: bad command lines and illegal moves, all refused cleanly (default 60 s); "
                            "env: the VecEnv's moves/s beside a Python loop and the PettingZoo env; "
                            "dmc: the DMC actor and learner beside douzero's actor loop (needs --checkpoint)")
    _game_options(bench)
    bench.add_argument("--checkpoint", default=None, help="latency, dmc: checkpoint folder to measure")
    bench.add_argument("--json", default=None, help="also write the results to this JSON file")
    bench.add_argument("--seconds", type=_positive(float), default=None,
                       help="time budget per measurement (default: each bench's own, 2-3 s)")
    bench.add_argument("--batch-sizes", dest="batch_sizes", default=None,
                       help="train: comma-separated batch sizes to measure (default: the bench's grid)")
    bench.add_argument("--envs", type=_positive(int), default=None,
                       help="env: games per VecEnv (default 256)")
    bench.add_argument("--force", action="store_true", help="replace an existing --json file")

    ev = command("eval", "mirrored-seat evaluation of one agent against another",
                 "openlandlord eval --agent student:runs/model --opponent rule --deal-set doudizhu-dev-300 "
                 "--report runs/eval", agents=True, deal_sets=True)
    _game_options(ev)
    ev.add_argument("--agent", required=True, help="agent spec of the side measured")
    ev.add_argument("--opponent", required=True, help="agent spec it plays against")
    group = ev.add_mutually_exclusive_group(required=True)
    group.add_argument("--deals", type=_positive(int), help="number of fresh deals (each played mirrored)")
    group.add_argument("--deal-set", dest="deal_set", help="a committed deal set (listed below) or a file")
    ev.add_argument("--seed", type=int, default=0, help="seed of the fresh deals and the agents")
    ev.add_argument("--json", default=None, help="write the result to this JSON file")
    ev.add_argument("--report", default=None, help="folder for a report.md with its pictures")
    ev.add_argument("--workers", type=_positive(int), default=None,
                    help="worker processes (default: one per core)")
    ev.add_argument("--protocol", choices=("mirror", "douzero"), default=None,
                    help="how each deal is seated: mirror (default: the agent in every seat in "
                         "turn) or douzero (Dou Dizhu: DouZero's paper, the agent as the landlord, "
                         "then as both farmers; WP and ADP)")
    ev.add_argument("--ledger", default=None, help="ledger file (default data/runs/ledger.jsonl)")
    ev.add_argument("--no-records", dest="no_records", action="store_true",
                    help="keep no game records for replay (default: the first games are replayed and "
                         "recorded beside the ledger)")
    ev.add_argument("--force", action="store_true", help="replace an existing --json file or --report folder")
    _backend(ev)

    cmp_ = command("compare", "compare two evaluations of the same deals against the same opponent, deal by deal",
                   "openlandlord compare runs/with.json runs/without.json")
    cmp_.add_argument("agent", metavar="A.json", help="an `eval --json` result")
    cmp_.add_argument("baseline", metavar="B.json",
                      help="another, of the same deals against the same opponent: the figures are A minus B")
    cmp_.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    cmp_.add_argument("--json", default=None, help="write the comparison to this JSON file")
    cmp_.add_argument("--force", action="store_true", help="replace an existing --json file")

    lg = command("league", "round robin with Bradley-Terry / Elo ratings",
                 "openlandlord league --agents random rule rule:expert --deals 100 --anchor random",
                 agents=True, deal_sets=True)
    _game_options(lg)
    lg.add_argument("--agents", nargs="+", required=True, help="agent specs, two or more")
    lg_deals = lg.add_mutually_exclusive_group()
    lg_deals.add_argument("--deals", type=_positive(int), default=100, help="fresh deals per pairing")
    lg_deals.add_argument("--deal-set", dest="deal_set", help="a committed deal set (listed below) or a file")
    lg.add_argument("--seed", type=int, default=0, help="seed of the fresh deals and the agents")
    lg.add_argument("--anchor", default=None, help="agent spec rated 0 (default: the mean)")
    lg.add_argument("--workers", type=_positive(int), default=None,
                    help="worker processes (default: one per core)")
    lg.add_argument("--json", default=None, help="write the ratings to this JSON file")
    lg.add_argument("--report", default=None, help="folder for a report.md with its ladder picture")
    lg.add_argument("--ledger", default=None, help="ledger file (default data/runs/ledger.jsonl)")
    lg.add_argument("--force", action="store_true", help="replace an existing --json file or --report folder")
    _backend(lg)

    qs = command("quickstart", "generate, train, export, bench and evaluate end to end",
                 "openlandlord quickstart --game shengji --out runs/qs-shengji")
    _game_options(qs)
    qs.add_argument("--out", default=None, help="working folder (default runs/quickstart-GAME)")
    qs.add_argument("--force", action="store_true",
                    help="start over: replace everything in --out (a rerun without it resumes)")

    srv = command("serve", "the web table: play, replays and ranking points in the browser",
                  "openlandlord serve --port 8000")
    srv.add_argument("--host", default="127.0.0.1", help="address to bind (local only by default)")
    srv.add_argument("--port", type=_port, default=8000, help="port to listen on")
    srv.add_argument("--no-records", dest="no_records", action="store_true",
                     help="keep no records of the games played here")

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


class Terminated(BaseException):
    """SIGTERM, raised in the main thread while a command runs (`_sigterm_unwinds`)."""


@contextlib.contextmanager
def _sigterm_unwinds():
    """While a command runs, SIGTERM (`kill`, `timeout`, a job scheduler) raises `Terminated`
    in the main thread, so the command's cleanup runs as it does for Ctrl-C. By default SIGTERM
    ended the process at once, and a pool's worker processes (`generate --workers 2`) went on
    computing without it for as long as their tasks took."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum, frame):
        raise Terminated()
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        with _sigterm_unwinds():
            from .executor import stop_with_parent
            stop_with_parent()
            return _main(argv)
    except Terminated:
        print("openlandlord: terminated", file=sys.stderr)
        return 143


def _main(argv: list) -> int:
    if argv[:1] == ["ship"]:
        from .distill import ship
        return ship.main(argv[1:], prog="openlandlord ship")
    try:
        args = build_parser().parse_args(argv)
        if args.command == "bench":
            # Every bench's one output: checked and held before it measures anything.
            from . import artefacts
            with artefacts.exclusive_outputs([(args.json, "--json", False)], args.force):
                status = _handler(args)(args)
        else:
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

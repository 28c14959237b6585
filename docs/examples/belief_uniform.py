"""Diagnostic: the student with its belief head's opinion replaced by a uniform one over the
compositions the public facts allow (what a seat can count, not what it infers from play).
Usage: python belief_uniform.py on|off -- <openlandlord eval args>  (run with --workers 1)."""
import sys

from openlandlord.model import student as S


def uniform_call(self, summary, unseen, capacity, void):
    """BeliefHead.__call__ with the learnt logits at zero: uniform over the allowed compositions."""
    return self.spread((self.allowed(unseen, capacity, void) - 1.0) * S.MASK_VALUE, unseen)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("on", "off"):
        print("usage: belief_uniform.py on|off -- EVAL-ARGS (the uniform belief on, or the learnt one)",
              file=sys.stderr)
        sys.exit(2)
    mode, rest = sys.argv[1], sys.argv[2:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if mode == "on":
        S.BeliefHead.__call__ = uniform_call
    from openlandlord.cli import main
    sys.exit(main(rest))

"""Exceptions that mean "the input is wrong", as opposed to a bug.

The command line turns a `UserError` into one line on stderr and exit status 2; any other
exception escaping a command is a bug and keeps its traceback.
"""


class UserError(Exception):
    """Bad input from a user or a file: the message names what is wrong."""


class IllegalMove(UserError, ValueError):
    """A move that the rules do not allow in this position (the message says why)."""


class NotAvailable(UserError):
    """A feature that needs something this machine or install does not have."""

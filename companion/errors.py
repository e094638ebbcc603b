"""The companion's errors: one root, each also a builtin so plain ``except ValueError`` works."""


class CompanionError(Exception):
    """Root of every error the companion raises on purpose."""


class InvalidMove(CompanionError, ValueError):
    """Raised when a move's text cannot be understood (bad notation, misread tag)."""


class IllegalMove(CompanionError, ValueError):
    """Raised when a well-formed move is not allowed in the current state."""


class EventLogError(CompanionError, RuntimeError):
    """Raised when the event log cannot be read or written as asked."""


class DatabaseUnavailable(EventLogError):
    """Raised when the database cannot be opened or written for a reason outside it (locked by another
    program, a full disk, a read-only mount, files the companion's user may not write). Nothing in it is
    damaged: ``kind`` names the fault (see :mod:`companion.faults`) and nothing was changed."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


class DatabaseDamaged(EventLogError):
    """Raised when the database file itself is damaged (or is not a database at all)."""


class EventConflict(EventLogError):
    """Raised when an event id is sent again with a different move: the request was not applied."""


class UnknownSession(EventLogError, KeyError):
    """Raised when a game session or campaign id is not in the event log."""

    def __str__(self) -> str:  # KeyError would otherwise print the repr of its argument
        return str(self.args[0]) if self.args else "unknown session"


class NothingToUndo(CompanionError, ValueError):
    """Raised when undo or redo is asked for with nothing to take back or bring back."""


class ConfigError(CompanionError, ValueError):
    """Raised when a configuration value is refused; says the file, the key and why."""


class SetupError(CompanionError, ValueError):
    """Raised when a game cannot be set up with the players or options given."""


class NotYourSeat(CompanionError, PermissionError):
    """Raised when a phone enters a move for a seat it does not hold (and the PIN is not unlocked)."""
class StartRefused(CompanionError):
    """Raised when the companion will not start, and why, in one line: nothing was changed.

    ``retry`` says whether starting again later may help by itself (a database another program holds
    for a moment); ``exit_status`` is what ``companion`` exits with (75, EX_TEMPFAIL, or 2).
    """

    def __init__(self, message: str, *, kind: str = "refused", retry: bool = False):
        super().__init__(message)
        self.kind = kind
        self.retry = retry

    @property
    def exit_status(self) -> int:
        return 75 if self.retry else 2

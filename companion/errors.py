"""The companion's errors: one root, each also a builtin so plain ``except ValueError`` works."""


class CompanionError(Exception):
    """Root of every error the companion raises on purpose."""


class InvalidMove(CompanionError, ValueError):
    """Raised when a move's text cannot be understood (bad notation, misread tag)."""


class IllegalMove(CompanionError, ValueError):
    """Raised when a well-formed move is not allowed in the current state."""


class EventLogError(CompanionError, RuntimeError):
    """Raised when the event log cannot be read or written as asked."""


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

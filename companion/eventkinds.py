"""The kinds of event the log holds, declared once for the session, runtime, pipeline and LEDs.

Moves, undos, redos and corrections change the game; every other kind is only
recorded (an alert for a person, its resolution, a seat claimed by a phone).
"""

MOVE, UNDO, REDO, CORRECT = "move", "undo", "redo", "correct"
ALERT, RESOLVE = "alert", "resolve"
CLAIM, RELEASE = "claim", "release"

# Kinds that change the game's state (replay reads only these).
STATE_CHANGES = frozenset({MOVE, UNDO, REDO, CORRECT})
# Kinds that report something happening at the table: only these may flash or beep.
FROM_THE_TABLE = frozenset({MOVE, REDO, CORRECT})
# Kinds that say who holds which seat.
SEATING = frozenset({CLAIM, RELEASE})

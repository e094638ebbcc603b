"""The demo tables a companion without a camera can play, each for its game.

Each demo module names the game it plays (``DEMO_GAME``) and its table (``DEMO_TABLE``:
built with the runtime and the picture size, with ``camera()``, ``table_mm``, ``tray_px``
(its dice tray in the camera's pixels, or None) and ``prepare(dice_store)``: the demo's own dice, kept apart
from the table's, ``DiceStore(data_dir, demo=True)``).
``[camera] demo_game`` or ``companion run --demo GAME`` chooses one; by default the first is played.
"""

from __future__ import annotations

import importlib

from companion.errors import ConfigError

MODULES = ("companion.demo", "companion.dice_demo")


def available() -> dict[str, type]:
    """Game name -> demo table class, in the order of :data:`MODULES`."""
    found = {}
    for name in MODULES:
        module = importlib.import_module(name)
        found[module.DEMO_GAME] = module.DEMO_TABLE
    return found


def table_for(game: str, runtime, *, size: tuple[int, int]):
    """The demo table playing ``game`` ("" for the first); ConfigError naming the choices otherwise."""
    tables = available()
    if not game:
        game = next(iter(tables))
    if game not in tables:
        raise ConfigError(f"there is no demo of {game!r}: the demos play {', '.join(tables)}")
    return tables[game](runtime, size=size)

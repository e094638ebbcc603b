"""Game films: a game night recorded, and played again exactly.

A *film* is what the camera saw and what people entered, frame by frame:

* every frame's number and time, and what the camera's reader made of it (the
  tags and their corners, or "still": the table had not moved since the last
  frame it decoded), the stable snapshot when one settled, a dice roll when one
  was read;
* working images around changes (the decoded frame the table settled on, and a
  small sample while things move), with the full-resolution crops the reader
  looked at, within a byte budget;
* every input from phones, buttons and the command line, with the frame it
  arrived at; a copy of the database whenever a game is opened (so a campaign
  game replays from exactly where it stood);
* the configuration and the versions.

:class:`~companion.film.recorder.Recorder` writes one while ``companion run``
plays (``--record DIR``, ``[recording] enabled``, or the switch on the Setup
page). :class:`~companion.film.player.FilmPlayer` plays a film through the same
pipeline, stabiliser, referee and engine, frame-synchronously: the inputs are
delivered after the frame they arrived at, the time is the film's. The same film
gives the same lines (:mod:`companion.film.lines`) on any machine at any speed.
``companion replay DIR`` prints them.

The demo table is a film too: a script rendered frame by frame (no recording on
disk), played by the same player live, one frame after the other once the
runtime has taken the previous one, so it cannot fall out of step.
"""

from companion.film.store import FilmFrame, FilmInput, RecordedFilm, ScriptFilm

__all__ = ["FilmFrame", "FilmInput", "RecordedFilm", "ScriptFilm"]

"""What the companion knows about the table's dice, kept in ``<data_dir>/dice/``.

* ``dice.json``: which kind of dice the camera reads (``pips``, ``taught``, ``aruco``),
  the taught dice and their faces (one letter per physical face, in teaching order),
  the ArUco face table (marker id -> face) and the labels of the taught samples;
* ``templates.npz``: the taught samples' descriptors (see :mod:`vision.dice.faces`);
* ``pictures/<die>.jpg``: the pictures each taught die was last taught from, a row for each face
  (:func:`vision.overlay.learned_sheet`): to look over on the Setup page, never read.

The demo table's dice (rendered, while the demo camera plays) are kept apart, in ``<data_dir>/demo-dice/``
(``DiceStore(data_dir, demo=True)``): a demo tried before or after teaching the table's own dice neither
leaves templates of rendered dice to read real ones with nor reads its rendered dice with the real ones'.

Both are written to a temporary file and renamed, so a power cut leaves the old or the
new version, never half of one. A game's setup option that carries its dice's face counts
(what its odds and engine use) comes from the taught dice (:meth:`DiceStore.game_options`,
through the game's own ``dice_option``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np

from companion.errors import ConfigError
from companion.files import cannot_use, replace_file

STALE = ("the dice were taught with an older version of the companion, which cut dice out differently: "
         "teach them again ('companion dice teach' or the Setup page)")

_log = logging.getLogger(__name__)

KINDS = ("pips", "taught", "aruco")
USE_PIPS = "companion dice use pips"  # what a terminal runs to read the dice by their pips (the Setup page has a button)


class DiceFilesDamaged(ConfigError):
    """The dice files themselves are damaged (not a fault around them): teaching again replaces them."""


class DiceStore:
    def __init__(self, data_dir: str | Path, *, demo: bool = False):
        self.demo = demo
        self.root = Path(data_dir) / ("demo-dice" if demo else "dice")

    @property
    def _json(self) -> Path:
        return self.root / "dice.json"

    @property
    def _npz(self) -> Path:
        return self.root / "templates.npz"

    def _named(self, path: Path) -> str:
        """A file named within the data directory: messages reach every phone, where the companion keeps its
        files is the game master's to know."""
        return f"{self.root.name}/{path.name}"

    def changed_at(self) -> float | None:
        """When the dice settings or taught faces last changed (None: nothing stored), so a running
        reader notices new teaching without a restart."""
        times = []
        for path in (self._json, self._npz):
            with contextlib.suppress(OSError):  # none yet, or not the companion's to look at: settings() says which
                times.append(path.stat().st_mtime)
        return max(times) if times else None

    # -- settings ----------------------------------------------------------------

    def settings(self) -> dict:
        """The stored settings; defaults when nothing was stored yet."""
        try:
            text = self._json.read_bytes()
        except FileNotFoundError:
            return {"kind": "pips", "dice": {}, "face_table": {}, "samples": []}
        except OSError as exc:
            raise self._unusable(self._json, "the dice settings", exc) from exc
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not the dice settings")
        except ValueError as exc:
            raise DiceFilesDamaged(f"{self._named(self._json)}: cannot read the dice settings ({exc}); "
                                   "teach the dice again") from exc
        data.setdefault("kind", "pips")
        data.setdefault("dice", {})
        data.setdefault("face_table", {})
        data.setdefault("samples", [])
        return data

    def _unusable(self, path: Path, what: str, exc: OSError) -> ConfigError:
        """A fault outside the file (its owner, a full or failing card) said with what to do; anything else it
        gives is damage."""
        said = self._fault(path, what, exc)
        if said is None:
            return DiceFilesDamaged(f"{self._named(path)}: cannot read {what} ({exc}); teach the dice again")
        return ConfigError(said)

    def _settings_to_change(self) -> dict:
        """The stored settings, to be changed and written back. Damaged ones are moved aside to
        ``dice.json.damaged`` and the change starts from the defaults: teaching again must be possible where the
        message says to teach again. Settings the companion may not read (a sudo left them), or cannot for a
        failing card, are not damaged: that refusal stands and nothing is moved."""
        try:
            return self.settings()
        except DiceFilesDamaged:
            os.replace(self._json, self._json.with_name(self._json.name + ".damaged"))
            return self.settings()

    def _write_settings(self, data: dict) -> None:
        text = json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")
        self._replace(self._json, "the dice settings", lambda handle: handle.write(text))

    def _replace(self, path: Path, what: str, write) -> None:
        """:func:`companion.files.replace_file`, a fault (a full card, files of another user) said with what to do."""
        try:
            replace_file(path, write)
        except OSError as exc:
            said = self._fault(path, what, exc)
            if said is None:
                raise
            raise ConfigError(said) from exc

    def _fault(self, path: Path, what: str, exc: OSError) -> str | None:
        return cannot_use(self._named(path), what, exc, [path, self.root, self.root.parent])

    @property
    def kind(self) -> str:
        return self.settings()["kind"]

    def set_kind(self, kind: str) -> None:
        if kind not in KINDS:
            raise ConfigError(f"dice kind {kind!r}: choose one of {', '.join(KINDS)}")
        settings = self._settings_to_change()
        if kind == "taught" and not (self._npz.is_file() and settings["samples"]):
            raise ConfigError("no faces are taught yet: run 'companion dice teach' first")
        self._write_settings({**settings, "kind": kind})

    # -- ArUco ---------------------------------------------------------------------

    def face_table(self) -> dict[int, str]:
        return {int(k): v for k, v in self.settings()["face_table"].items()}

    def save_face_table(self, table: dict[int, str]) -> None:
        self._write_settings({**self._settings_to_change(), "face_table": {str(k): v for k, v in sorted(table.items())},
                              "kind": "aruco"})

    # -- taught faces -----------------------------------------------------------------

    def save_templates(self, templates, pictures: dict | None = None) -> None:
        """Keep taught :class:`vision.dice.FaceTemplates` and make ``taught`` the kind of dice read; with
        ``pictures`` (die -> the sheet of pictures it was taught from, BGR), those too (:meth:`_keep_pictures`)."""
        from vision.dice.faces import DESCRIPTOR_VERSION

        settings = self._settings_to_change()  # first: settings it may not read leave the taught faces as they are
        descriptors = np.stack([s[2] for s in templates.samples]) if templates.samples else np.zeros((0,))
        shapes = _shapes_to_keep(templates)
        self._replace(self._npz, "the taught faces",
                      lambda handle: np.savez_compressed(handle, descriptors=descriptors, **shapes))
        self._write_settings({**settings, "kind": "taught", "dice": dict(templates.dice),
                              "samples": [[die, face] for die, face, _ in templates.samples],
                              "pictures": dict(templates.pictures), "read_by_pips": dict(templates.read_by_pips),
                              "lights": {die: list(lights) for die, lights in templates.lights.items()},
                              "sides": {die: list(sides) for die, sides in templates.sides.items()},
                              "sides_on": {die: list(size) for die, size in templates.sides_on.items()
                                           if die in templates.sides},
                              "descriptor": DESCRIPTOR_VERSION, "without_shapes": templates.without_shapes()})
        self._keep_pictures(templates.dice, pictures or {})

    def _keep_pictures(self, dice, pictures: dict) -> None:
        """Keep each die's sheet of ``pictures`` (die -> BGR image) and forget those of dice no longer among ``dice``.
        Pictures are to look at: one that cannot be written is logged, and the dice stay taught."""
        import cv2

        for die, sheet in pictures.items():
            _, jpeg = cv2.imencode(".jpg", sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
            try:
                replace_file(self._picture(die), lambda handle, data=jpeg.tobytes(): handle.write(data))
            except OSError as exc:
                _log.warning("the pictures the %s die was taught from could not be kept: %s", die, exc)
        with contextlib.suppress(OSError):  # no folder yet: nothing to forget
            for path in (self.root / "pictures").glob("*.jpg"):
                if path.stem not in dice:
                    path.unlink(missing_ok=True)

    def pictures_of(self, die: str) -> bytes | None:
        """The sheet of pictures ``die`` was last taught from (JPEG), None where none was kept."""
        if die not in self.settings()["dice"]:
            return None
        try:
            return self._picture(die).read_bytes()
        except OSError:
            return None

    def _picture(self, die: str) -> Path:
        return self.root / "pictures" / f"{die}.jpg"

    def _pictures_kept(self, die: str) -> dict:
        """``{"pictures_kept": token}`` where the die's sheet of pictures is kept, the token changing with it (a
        page fetches it afresh); empty where none is."""
        try:
            return {"pictures_kept": str(self._picture(die).stat().st_mtime_ns)}
        except OSError:
            return {}

    def has_usable_templates(self) -> bool:
        """Faces are taught, by this version's way of cutting dice out."""
        settings = self.settings()
        return self._npz.is_file() and bool(settings["samples"]) and not _taught_by_older_version(settings)

    def load_templates(self):
        """The taught :class:`vision.dice.FaceTemplates`, or None when nothing was taught."""
        from vision.dice.faces import FaceTemplates

        settings = self.settings()
        if not self._npz.is_file() or not settings["samples"]:
            return None
        if _taught_by_older_version(settings):
            raise ConfigError(STALE)
        try:
            with open(self._npz, "rb") as file, np.load(file) as archive:  # closed even when numpy gives up
                descriptors = archive["descriptors"]
                # none: taught before shapes were kept
                shapes = (archive["shapes"], archive["shaped"]) if "shapes" in archive.files else None
        except OSError as exc:
            raise self._unusable(self._npz, "the taught faces", exc) from exc
        except (ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
            raise DiceFilesDamaged(f"{self._named(self._npz)}: cannot read the taught faces ({exc}); "
                                   "teach the dice again") from exc
        if len(descriptors) != len(settings["samples"]):
            raise ConfigError(f"{self._named(self._npz)} does not match {self._named(self._json)}: "
                              "teach the dice again")
        templates = FaceTemplates()
        try:
            for (die, face), descriptor in zip(settings["samples"], descriptors):
                templates.add(die, face, descriptor, new_face=False)
        except ValueError as exc:
            raise ConfigError(f"{self._named(self._npz)}: {exc}") from exc
        if shapes is not None and len(shapes[0]) == len(shapes[1]) == len(descriptors):
            templates.shapes = [shape.astype(np.float32) if kept else None for shape, kept in zip(*shapes)]
        templates.dice = dict(settings["dice"])
        templates.pictures = _pictures(settings)
        templates.read_by_pips = dict(settings.get("read_by_pips", {}))
        templates.lights = _per_die(settings, "lights")
        templates.sides = _per_die(settings, "sides")
        templates.sides_on = _pictures_measured_on(settings)
        return templates

    def face_counts(self) -> dict[str, dict[str, int]]:
        """Each taught die's faces, counted: ``{"dragon": {"C": 2, "G": 2, "R": 2}, ...}``."""
        return {die: {f: faces.count(f) for f in dict.fromkeys(faces)} for die, faces in self.settings()["dice"].items()}

    def options_for(self, game: str) -> dict[str, str]:
        """The setup options a new game of ``game`` takes from the taught dice ({} when none)."""
        from companion import games

        return games.get(game).dice_option(self.settings()["dice"])

    def game_options(self) -> dict[str, str]:
        """For each game with picture dice whose set is taught: its option as typed (``faces=CCGGRR/FFKKWW``)."""
        from companion import games

        taught = self.settings()["dice"]
        out = {}
        for game in games.all_games():
            chosen = game.dice_option(taught) if game.DICE else {}
            if chosen:
                out[game.NAME] = " ".join(f"{k}={v}" for k, v in chosen.items())
        return out

    def describe(self) -> dict:
        """What ``companion dice show`` prints."""
        settings = self.settings()
        stale = {"problem": STALE} if _taught_by_older_version(settings) else {}
        advice = _teach_again(settings)
        pips = _read_by_their_pips(settings) if settings["kind"] == "taught" else None
        return {
            **stale,
            **({"advice": advice} if advice else {}),
            **({"pip_dice": pips, "pip_dice_command": USE_PIPS} if pips else {}),
            "demo": self.demo,
            "kind": settings["kind"],
            "directory": str(self.root),
            "dice": {die: {"faces": f, "counts": self.face_counts()[die], **self._pictures_kept(die)}
                     for die, f in settings["dice"].items()},
            "samples": len(settings["samples"]),
            "pictures": sum(_pictures(settings).values()),
            "face_table": settings["face_table"],
            "game_options": self.game_options(),
        }


def _pictures(settings: dict) -> dict[str, int]:
    """The pictures each taught die was taught from. Dice taught before teaching added slanted samples
    (settings without ``pictures``) have one sample a picture."""
    if "pictures" in settings:
        return dict(settings["pictures"])
    return _samples_per_die(settings)


def _per_die(settings: dict, key: str) -> dict[str, list[float]]:
    """Each die's light (``lights``) or side in pixels (``sides``) in its teaching pictures: none for dice taught
    before they were kept; a hand-edited file's odd values are left out, never a refusal: the light only ever adds a
    warning, the side only helps find large dice."""
    values_by_die = settings.get(key, {})
    if not isinstance(values_by_die, dict):
        return {}
    return {die: [float(v) for v in values
                  if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0]
            for die, values in values_by_die.items() if die in settings["dice"] and isinstance(values, list)}


def _pictures_measured_on(settings: dict) -> dict[str, tuple[int, int]]:
    """The (width, height) of the camera picture each die's sides were measured on (``sides_on``): none for dice taught
    before it was kept, and a hand-edited file's odd values left out (the sides are then taken as they are)."""
    sizes = settings.get("sides_on", {})
    if not isinstance(sizes, dict):
        return {}
    return {die: (size[0], size[1]) for die, size in sizes.items()
            if die in settings["dice"] and isinstance(size, list) and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)}


def _samples_per_die(settings: dict) -> dict[str, int]:
    return dict(Counter(die for die, _ in settings["samples"]))


def _teach_again(settings: dict) -> str | None:
    """Why to teach dice again: their faces were pictured fewer times each than teaching asks for now (dice
    taught before the default rose, or from too few photos), were taught before each picture also gave
    slanted samples, or before the shapes of their faces were kept. They still read, with more wrong faces or fewer
    faces read."""
    from companion.teach import DEFAULT_LOOKS

    pictures = _pictures(settings)
    few = []
    for die, faces in settings["dice"].items():
        looks = pictures.get(die, 0) // max(len(faces), 1)
        if faces and looks < DEFAULT_LOOKS:
            few.append(f"{die} ({looks} a face)")
    samples = _samples_per_die(settings)
    square = [die for die in settings["dice"] if 0 < samples.get(die, 0) <= pictures.get(die, 0)]  # one a picture
    why, measured = [], []
    if few:
        why.append(f"taught from fewer pictures a face than the {DEFAULT_LOOKS} teaching takes now: {', '.join(few)}")
        measured.append("on real photos dice taught from two pictures a face read 90 in 100 right, from three 94")
    if square:
        why.append(f"taught before teaching also learned each face as seen at a slant: {', '.join(square)}")
        measured.append("on real dice new to the reader, 29 wrong in 1016 instead of 34")
    unshaped = settings.get("without_shapes", list(settings["dice"]))  # none kept: taught before shapes were
    unshaped = [die for die in settings["dice"] if die in unshaped] if isinstance(unshaped, list) else []
    if settings["samples"] and unshaped:
        why.append(f"taught before the shapes of their faces were kept: {', '.join(unshaped)}")
        measured.append("on real dice under a warm lamp, 364 of 403 read right instead of 351, no more wrong")
    if not why:
        return None
    return f"{'; '.join(why)}. Teach them again for fewer wrong faces and fewer unclear ones at the table " \
           f"({'; '.join(measured)})"


def _shapes_to_keep(templates) -> dict[str, np.ndarray]:
    """Each sample's shape (vision/dice/shapes.py) and whether it has one (``shaped``), for the taught faces' file:
    none where no sample has one."""
    shapes = templates.shape_list()
    known = next((shape for shape in shapes if shape is not None), None)
    if known is None:
        return {}
    return {"shapes": np.stack([np.zeros_like(known) if shape is None else shape for shape in shapes]),
            "shaped": np.array([shape is not None for shape in shapes])}


def _read_by_their_pips(settings: dict) -> str | None:
    """Why to read taught dice by their pips: the pip reader read most of their teaching pictures as the faces
    they were taught as, so they are pip dice (taught as their pips), which it reads better than teaching does."""
    pictures = _pictures(settings)
    read = settings.get("read_by_pips", {})
    pip_dice = [die for die in settings["dice"] if pictures.get(die) and 2 * read.get(die, 0) > pictures[die]]
    if not pip_dice:
        return None
    counted = ", ".join(f"{read[die]} of {pictures[die]} of {die}'s" for die in pip_dice)
    # Measured on real photos of dice new to each reader (bench/dice_bench.py): pip dice read by their pips, the
    # test split: 94% right, 1.3% wrong; pip dice taught, the held-out alike dice: 68% right, 2.9% wrong.
    return (f"The {'dice' if len(pip_dice) > 1 else 'die'} {' and '.join(pip_dice)} "
            f"{'are pip dice' if len(pip_dice) > 1 else 'is a pip die'}: the pip reader "
            f"reads {counted} teaching pictures as the faces taught. Pip dice are read better by their pips (on real "
            "photos, 94 in 100 right against 68 taught): choose pip dice")


def _taught_by_older_version(settings: dict) -> bool:
    from vision.dice.faces import DESCRIPTOR_VERSION

    return bool(settings["samples"]) and settings.get("descriptor", 1) != DESCRIPTOR_VERSION

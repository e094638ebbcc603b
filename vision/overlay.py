"""Drawing what vision found over a frame, for the dashboard's live view.

Pure drawing on a copy of the working image: tag outlines (ours green, foreign
grey, duplicates red), each stack's label (``07·2`` on top), the table outline
from the geometry, and a status line. Text is drawn with OpenCV's Hershey font,
so ``·`` is written as ``-``.
"""

from __future__ import annotations

import cv2
import numpy as np

OURS = (60, 200, 60)
FOREIGN = (150, 150, 150)
DUPLICATE = (40, 40, 230)
HIDDEN = (0, 190, 255)
TABLE = (255, 180, 0)
TRAY = (77, 216, 255)  # the Setup page's yellow
SEEN = (255, 0, 255)  # magenta: what teaching took for dice, seen on wood, felt and cloth alike


def draw(image: np.ndarray, reading=None, snapshot=None, geometry=None, *, status: str | None = None,
         at: float = 1.0) -> np.ndarray:
    """A copy of ``image`` (BGR) with the detections drawn on it.

    ``reading`` is a :class:`vision.reader.FrameReading`, ``snapshot`` a
    :class:`vision.cards.TableSnapshot` (the stable one shows hidden stacks too),
    ``geometry`` a :class:`vision.geometry.TableGeometry`. Any of them may be None.
    Their coordinates are working-image pixels; ``at`` is the size of ``image``
    relative to the working image (draw on a small copy for the live view: cheaper on a Pi).
    """
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    scale = max(1.0, out.shape[1] / 1280.0)  # lines and text readable on a phone at any stream size
    thick = max(1, int(round(2 * scale)))
    font = 0.5 * scale
    if geometry is not None:
        outline = geometry.to_px([[0, 0], [geometry.width_mm, 0], [geometry.width_mm, geometry.height_mm],
                                  [0, geometry.height_mm]])
        cv2.polylines(out, [np.round(outline * at).astype(np.int32)], True, TABLE, thick, cv2.LINE_AA)
    duplicates = set(getattr(snapshot, "duplicates", ()) or ())
    if reading is not None:
        for s in reading.sightings:
            colour = FOREIGN if s.tag is None else (DUPLICATE if s.text in duplicates else OURS)
            cv2.polylines(out, [np.round(s.corners * at).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
            if s.tag is None:
                x, y = s.corners.min(axis=0) * at
                _label(out, "ignored", (x, y - 4), colour, font, thick)
    if snapshot is not None:
        for stack in snapshot.stacks:
            text = f"{stack.location:02d}-{stack.top_copy if stack.top_copy is not None else '?'}"
            if stack.hidden:
                text += " (hidden)"
            colour = HIDDEN if stack.hidden else OURS
            x, y = stack.center_px[0] * at, stack.center_px[1] * at
            cv2.circle(out, (int(x), int(y)), max(3, int(4 * scale)), colour, -1, cv2.LINE_AA)
            _label(out, text, (x + 8 * scale, y - 8 * scale), colour, font * 1.3, thick)
    if status is None and snapshot is not None:
        status = (f"{len(snapshot.stacks)} stacks, {len(snapshot.tags)} tags, {snapshot.ignored} ignored"
                  + (f", table from {snapshot.geometry}" if snapshot.geometry else ", no table geometry"))
        if snapshot.problems:
            status += " | " + snapshot.problems[0]
    if status:
        _label(out, status, (10 * scale, 24 * scale), (255, 255, 255), font * 1.2, thick)
    return out


def draw_dice(image: np.ndarray, roll, *, at: float = 1.0, tray: np.ndarray | None = None) -> np.ndarray:
    """A copy of ``image`` with a roll's dice boxed and labelled (a :class:`vision.roll.DiceObservation`, or
    None); unreadable dice in red with their reason; the ``tray`` polygon (pixels of the full picture) outlined,
    so a die beside it is seen to be outside. ``at`` as in :func:`draw`."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    scale = max(1.0, out.shape[1] / 1280.0)
    thick = max(1, int(round(2 * scale)))
    if tray is not None:
        cv2.polylines(out, [np.round(np.asarray(tray) * at).astype(np.int32)], True, TRAY, thick, cv2.LINE_AA)
    for die in roll.dice if roll is not None else ():
        text = f"{die.face} {die.confidence:.2f}" if die.face is not None else f"{die.guess or ''}? {die.reason}"
        _boxed(out, [v * at for v in die.box_px], text, OURS if die.face is not None else DUPLICATE, scale, thick)
    return out


def draw_seen(image: np.ndarray, seen) -> np.ndarray:
    """A copy of ``image`` with what was taken for dice boxed and named (``(box x, y, w, h, what)`` pairs):
    the picture a refused teaching photo is shown with."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    scale = max(1.0, out.shape[1] / 640.0)  # a tray's crop, shown small on a phone: the names stay legible
    thick = max(2, int(round(2 * scale)))
    for box, what in seen:
        _boxed(out, box, what, SEEN, scale, thick)
    return out


def draw_learned(image: np.ndarray, box, face: str) -> np.ndarray:
    """A copy of ``image`` with the die a face was learned from boxed (x, y, w, h) and the face named: a box around
    a drawing on the die, a speck of it or anything else shows a wrong sample, to take back."""
    return draw_seen(image, [(box, f"{face} learned")])


CLOSEUP_PX = 96  # a die's close-up on the sheet of pictures learned, in pixels a side
SHEET_GAP = 4  # pixels between the sheet's pictures
SHEET_HEIGHT = 960  # the sheet's cells shrink (to no less than 40 px) to keep a die of many faces within this
NEXT = (77, 216, 255)  # the picture asked for next, outlined on the sheet in the Setup page's yellow
READ_AS = (43, 69, 181)  # a picture the others read as another face, framed in the Setup page's warning red


def closeup(image: np.ndarray, box, side: int = CLOSEUP_PX) -> np.ndarray:
    """The die at ``box`` (x, y, w, h) with half its size around it, the box drawn, scaled to ``side`` pixels a
    side: a sheet of them shows at a glance a picture whose box is not around the die with the face asked for."""
    x, y, w, h = (float(v) for v in box)
    reach = max(w, h)
    cx, cy = x + w / 2, y + h / 2
    left, top = int(round(cx - reach)), int(round(cy - reach))
    size = max(1, int(round(2 * reach)))
    padded = cv2.copyMakeBorder(image, size, size, size, size, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    out = padded[top + size:top + 2 * size, left + size:left + 2 * size].copy()
    thick = max(1, int(round(size / side)))
    cv2.rectangle(out, (int(x - left), int(y - top)), (int(x + w - left), int(y + h - top)), SEEN, thick,
                  cv2.LINE_AA)
    return cv2.resize(out, (side, side), interpolation=cv2.INTER_AREA)


def learned_sheet(closeups: dict[int, np.ndarray], faces: str, looks: int, next_step: int | None,
                  read_as: dict[int, str] | None = None) -> np.ndarray:
    """Every picture learned of a die (:func:`closeup`, by its step: 0-based, in the order asked for), a row for each
    face (``faces``, one letter each, shown in turn) and ``looks`` pictures in each: a row whose pictures are not all
    the die with that face up holds a wrong sample. Pictures still to come are grey, ``next_step`` outlined. Those
    ``read_as`` another face by the others (its letter, :func:`companion.teach.read_by_the_others`) are framed
    and carry the letter: look at them first."""
    rows = len(faces)
    left, top, cell = sheet_cell(rows, looks, rows * looks - 1)  # the last picture's place: the sheet's size
    sheet = np.full((top + cell + SHEET_GAP, left + cell + SHEET_GAP, 3), 32, np.uint8)
    font = cell / 160
    for row, letter in enumerate(faces):
        _, row_top, _ = sheet_cell(rows, looks, row * looks)
        _label(sheet, f"{row + 1} {letter}", (SHEET_GAP, row_top + cell // 2 + 6), (255, 255, 255), font, 1)
    for step in range(rows * looks):
        left, top, _ = sheet_cell(rows, looks, step)
        if step in closeups:
            sheet[top:top + cell, left:left + cell] = cv2.resize(closeups[step], (cell, cell),
                                                                 interpolation=cv2.INTER_AREA)
            if step in (read_as or {}):
                cv2.rectangle(sheet, (left, top), (left + cell - 1, top + cell - 1), READ_AS, 3)
                _label(sheet, f"{read_as[step]}?", (left + 5, top + cell - 6), READ_AS, font, 2)
            continue
        sheet[top:top + cell, left:left + cell] = 80
        if step == next_step:
            cv2.rectangle(sheet, (left, top), (left + cell - 1, top + cell - 1), NEXT, 2)
        _label(sheet, str(step + 1), (left + cell // 3, top + cell // 2 + 6), (200, 200, 200), font, 1)
    return sheet


def sheet_cell(rows: int, looks: int, step: int) -> tuple[int, int, int]:
    """Where picture ``step`` (0-based, in the order taught) lies on :func:`learned_sheet`: left, top, side in
    pixels."""
    cell = int(np.clip(SHEET_HEIGHT // rows - SHEET_GAP, 40, CLOSEUP_PX))
    label = 3 * cell // 4
    row, look = divmod(step, looks)
    return label + SHEET_GAP + look * (cell + SHEET_GAP), SHEET_GAP + row * (cell + SHEET_GAP), cell


def _boxed(image, box, text, colour, scale, thick) -> None:
    x, y, w, h = box
    cv2.rectangle(image, (int(x), int(y)), (int(x + w), int(y + h)), colour, thick, cv2.LINE_AA)
    _label(image, text, (x, y - 6 * scale), colour, 0.5 * scale, thick)


def _label(image, text, origin, colour, font_scale, thick) -> None:
    """Text with a dark outline so it reads on any background, moved left to stay whole in the picture."""
    (width, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thick + 2)
    x, y = int(max(min(origin[0], image.shape[1] - width - 2), 0)), int(max(origin[1], 12))
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font_scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, thick, cv2.LINE_AA)

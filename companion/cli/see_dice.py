"""``companion see --dice IMAGE... [--dice-kind pips|taught|aruco]``: read the dice in photos.

With ``--tray X,Y,W,H`` (the photo's pixels) only dice inside that rectangle are read; without it, a tray
carrying its own four tags is read between them. QR codes in the photo are never dice. With
``--pictures DIR`` each photo is also written there with its dice boxed and labelled and the tray
outlined (``picture`` in its line): a player checks their dice by looking, not by reading boxes.
Prints one JSON line per image: ``image``, ``dice`` (each ``face``, ``confidence``,
``box_px`` in the photo's pixels, and ``reason`` when unreadable), ``unreadable`` (count)
and ``ms`` (reading time). Taught faces and the ArUco face table come from the data
directory (``companion dice teach`` / ``companion dice aruco``).
"""

from __future__ import annotations

import json
import sys
import time

from companion.cli.common import data_dir
from companion.dicestore import DiceStore
from companion.errors import ConfigError, SetupError


def make_reader(kind: str | None, store: DiceStore):
    from vision.dice import ArucoReader, PipReader, TaughtReader

    kind = kind or store.kind
    if kind == "pips":
        return PipReader()
    if kind == "taught":
        templates = store.load_templates()
        if templates is None:
            raise ConfigError("no faces are taught yet: run 'companion dice teach' first")
        return TaughtReader(templates)
    if kind == "aruco":
        return ArucoReader(store.face_table())
    raise SetupError(f"--dice-kind {kind!r}: choose pips, taught or aruco")


def parse_tray(text: str | None):
    """``--tray X,Y,W,H`` as four numbers, or None; SetupError saying how to write it."""
    if not text:
        return None
    try:
        x, y, w, h = (float(v) for v in text.split(","))
    except ValueError:
        raise SetupError(f"--tray {text!r}: write the tray as X,Y,W,H in the photo's pixels, e.g. 100,80,400,300") \
            from None
    if w <= 0 or h <= 0 or x < 0 or y < 0:
        raise SetupError(f"--tray {text!r}: the width and height must be more than 0, the corner not negative")
    return x, y, w, h


def run(args) -> int:
    import cv2

    from hardware.camera.files import ImageTooLarge, read_image
    from vision.dice import rect_zone
    from vision.dice.zone import codes_seen, hide_tags, tray_from_tags, without_tags

    store = DiceStore(data_dir(args))
    reader = make_reader(getattr(args, "dice_kind", None), store)
    tray = parse_tray(getattr(args, "tray", None))
    work_width = getattr(args, "work_width", None)
    status = 0
    for path in args.images:
        try:
            image = read_image(path)
        except ImageTooLarge as exc:
            image, why = None, str(exc)
        else:
            why = f"{path}: not a picture OpenCV can read"
        if image is None:
            print(f"companion see: {why}", file=sys.stderr)
            status = 2
            continue
        scale = 1.0
        if work_width and image.shape[1] > work_width:
            scale = image.shape[1] / work_width
            image = cv2.resize(image, (work_width, round(image.shape[0] / scale)), interpolation=cv2.INTER_AREA)
        # As the camera does: codes in the photo are painted over, never dice, and a tray carrying its own
        # four tags is read between them when no --tray is given.
        codes = codes_seen(image)
        given = tray_from_tags([c for c in codes if c.tag is not None]) if tray is None else None
        quads = [c.corners for c in codes]
        start = time.perf_counter()
        zone = given[0] if given is not None else (rect_zone(*tray) / scale if tray is not None else None)
        reading = without_tags(reader.read(hide_tags(image, quads), zone), quads)
        ms = (time.perf_counter() - start) * 1000
        dice = []
        for die in reading.dice:
            shown = die.to_json()
            shown["box_px"] = [round(v * scale) for v in die.box]
            dice.append(shown)
        line = {"image": str(path), "kind": reader.kind, "dice": dice, "unreadable": len(reading.unreadable),
                "ms": round(ms, 1)}
        if given is not None:
            line["tray"] = "between its tags"
        if getattr(args, "pictures", None) is not None:
            from companion.cli.see import save_picture
            from vision import overlay
            from vision.roll import DiceObservation

            seen = DiceObservation.from_reading(reading, kind=reader.kind)
            line["picture"] = save_picture(args.pictures, path, overlay.draw_dice(image, seen, tray=zone))
        print(json.dumps(line, ensure_ascii=False), flush=True)
    return status

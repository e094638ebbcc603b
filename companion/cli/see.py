"""``companion see IMAGE...``: what the camera would read in each picture, one JSON line per image."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from companion.cli.common import add_data_dir, data_dir
from companion.config import Config


def register(sub) -> None:
    p = sub.add_parser(
        "see",
        help="read the tags (or dice) in photos; one JSON line per image",
        description=(
            "Treats each image as a full-resolution camera frame: the working image is a downscaled copy "
            "(--work-width), small tags are read from the full picture. Prints one JSON line per image with "
            "tags (payload, center_px in the full image, table_mm or null), stacks (location, top_copy, "
            "table_mm), ignored (count of foreign or malformed codes) and ms (time to read the frame). Table "
            "millimetres come from the four corner tags, else from the calibration in the configuration."
        ),
    )
    p.add_argument("images", nargs="+", type=Path, metavar="IMAGE", help="photos of the table (PNG, JPEG, WebP...)")
    p.add_argument("--decoder", choices=["zxing", "pyzbar"], default="zxing", help="QR decoder (default zxing)")
    p.add_argument("--work-width", type=int, default=2304, metavar="PX",
                   help="width of the working image in pixels (default 2304); 0 reads the full image only")
    p.add_argument("--dice", action="store_true", help="read dice in the tray instead of tags")
    p.add_argument("--dice-kind", choices=["pips", "taught", "aruco"], default="pips",
                   help="with --dice: pip dice, faces taught with 'companion dice teach', or ArUco stickers")
    p.add_argument("--pictures", type=Path, metavar="DIR",
                   help="also write each photo with what was read drawn on it (tags outlined; dice boxed with "
                        "their face, or '?' and why not) into DIR as NAME.seen.jpg, and name it in the line")
    p.add_argument("--tray", metavar="X,Y,W,H",
                   help="with --dice: the tray in the photo's pixels (left, top, width, height); dice outside it "
                        "are not read, dice across its edge are reported unreadable (default: the whole photo)")
    add_data_dir(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    if args.dice:
        from companion.cli import see_dice

        return see_dice.run(args)
    import cv2

    from vision import cards
    from vision.geometry import TableLocator
    from vision.reader import TagReader

    table = Config.in_dir(data_dir(args))["table"]
    status = 0
    from hardware.camera.files import ImageTooLarge, read_image

    for path in args.images:
        try:
            image = read_image(path) if path.is_file() else None
        except ImageTooLarge as exc:  # refused from its header, before it is decoded
            _emit({"image": str(path), "error": str(exc)})
            status = 2
            continue
        if image is None:
            why = "no such file" if not path.exists() else "not an image OpenCV can read"
            _emit({"image": str(path), "error": f"{path}: {why}"})
            status = max(status, 1)
            continue
        work = _working_image(image, args.work_width)
        scale = image.shape[1] / work.shape[1]
        reader = TagReader(decoder=args.decoder, reuse_when_still=False)
        locator = TableLocator(table["width_mm"], table["height_mm"], table["corners_px"] or None,
                               table["picture_px"] or None)
        start = time.perf_counter()
        reading = reader.read(work, image if work is not image else None)
        geometry = locator.update(reading.sightings, reading.work_size)
        problems = list(reading.problems)
        if locator.problem and geometry is None:
            problems.append(locator.problem)
        snap = cards.snapshot(reading.sightings, geometry, problems=problems)
        ms = (time.perf_counter() - start) * 1000.0
        drawn = None
        if getattr(args, "pictures", None) is not None:
            from vision import overlay

            drawn = save_picture(args.pictures, path, overlay.draw(work, reading, snap, geometry))
        _emit({
            "image": str(path),
            "size": [image.shape[1], image.shape[0]],
            "work_size": list(reading.work_size),
            "tags": [{"payload": t.payload, "center_px": [round(t.center_px[0] * scale, 1),
                                                          round(t.center_px[1] * scale, 1)],
                      "table_mm": _mm(t.table_mm)} for t in snap.tags],
            "stacks": [{"location": s.location, "top_copy": s.top_copy, "table_mm": _mm(s.table_mm)}
                       for s in snap.stacks],
            "ignored": snap.ignored,
            "ignored_texts": list(snap.ignored_texts),
            "duplicates": list(snap.duplicates),
            "geometry": snap.geometry,
            "problems": list(snap.problems),
            "ms": round(ms, 2),
            **({"picture": drawn} if drawn else {}),
        })
    return status


def save_picture(folder: Path, source: Path, image) -> str:
    """Write ``image`` (what was read, drawn on the photo) as ``folder/NAME.seen.jpg``; returns its path."""
    import cv2

    from companion.errors import SetupError

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{Path(source).stem}.seen.jpg"
    if not cv2.imwrite(str(target), image, [cv2.IMWRITE_JPEG_QUALITY, 85]):
        raise SetupError(f"--pictures: {target} could not be written")
    return str(target)


def _working_image(image, work_width: int):
    """The camera's small stream: the picture scaled down to ``work_width`` (never up)."""
    import cv2

    h, w = image.shape[:2]
    if work_width <= 0 or work_width >= w:
        return image
    height = max(1, round(h * work_width / w))
    return cv2.resize(image, (work_width, height), interpolation=cv2.INTER_AREA)


def _mm(point):
    return None if point is None else [round(point[0], 1) + 0.0, round(point[1], 1) + 0.0]  # no "-0.0"


def _emit(record: dict) -> None:
    sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    sys.stdout.flush()

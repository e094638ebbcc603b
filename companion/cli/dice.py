"""``companion dice``: teach the camera your dice, say which kind the table uses, show what is known.

    companion dice teach --die dragon --faces CCGGRR        # the camera; one face after the other
    companion dice teach --die special --faces FFKKWW
    companion dice teach --images DIR                       # or photos: <die>_<face>_<n>[_<look>].png
    companion dice teach ... --pictures SEEN                # each picture learned, its die boxed, written there
    companion dice aruco 0=C 1=C 2=G 3=G 4=R 5=R ...        # ArUco sticker id -> face
    companion dice use pips|taught|aruco
    companion dice show
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from companion.cli.common import add_data_dir, data_dir, print_json
from companion.dicestore import KINDS, DiceStore
from companion.errors import ConfigError, SetupError
from companion.games import dice_to_teach
from companion.teach import (
    DEFAULT_LOOKS,
    another_face_shown,
    example,
    looks_most_like,
    named_face,
    named_face_of,
    read_by_the_others,
    read_photo,
    shows_instead,
    teaching_photos,
    usual_faces,
)


def register(sub) -> None:
    p = sub.add_parser("dice", help="teach the camera your dice; show what it knows",
                       description=__doc__.split("\n\n", 1)[0])
    dice_sub = p.add_subparsers(dest="dice_command", metavar="ACTION")
    dice_sub.required = True

    teach = dice_sub.add_parser("teach", help="show each face of each die to the camera (or give photos)")
    add_data_dir(teach)
    teach.add_argument("--images", type=Path, help="learn from photos named <die>_<face>_<n>[_<look>].png instead")
    first_die, first_faces = example()
    teach.add_argument("--die", default=first_die,
                       help=f"the die being taught with the camera (default {first_die}); a game's picture dice: "
                            + ", ".join(d["die"] for d in dice_to_teach()))
    teach.add_argument("--faces", help="its faces in the order you will show them (default: as a game's die is "
                                       f"usually made, e.g. {first_faces})")
    teach.add_argument("--looks", type=int, default=DEFAULT_LOOKS,
                       help=f"pictures per face, turning the die between (default {DEFAULT_LOOKS})")
    teach.add_argument("--camera", dest="backend", help="camera backend (default: the configuration's)")
    teach.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each face (default 60)")
    teach.add_argument("--add", action="store_true", help="keep what was taught before (another die)")
    teach.add_argument("--pictures", type=Path, metavar="DIR",
                       help="write each picture learned there, the die its face was learned from boxed: a box around "
                            "a drawing on the die, or anything else, is a wrong sample (teach that die again); and "
                            "each die's on one sheet, a row for each face (DIE_learned.seen.jpg)")
    teach.add_argument("--another-light", action="store_true",
                       help="teach a taught die again in this light, keeping what it was taught (an evening's lamp)")
    teach.set_defaults(handler=run_teach)

    aruco = dice_sub.add_parser("aruco", help="ArUco sticker ids and the faces they stand for")
    add_data_dir(aruco)
    aruco.add_argument("pairs", nargs="+", metavar="ID=FACE")
    aruco.set_defaults(handler=run_aruco)

    use = dice_sub.add_parser("use", help="which kind of dice the camera reads")
    add_data_dir(use)
    use.add_argument("kind", choices=KINDS)
    use.set_defaults(handler=lambda args: (DiceStore(data_dir(args)).set_kind(args.kind), _show(args))[1])

    show = dice_sub.add_parser("show", help="what is taught and configured")
    add_data_dir(show)
    show.set_defaults(handler=_show)


def _show(args) -> int:
    print_json(DiceStore(data_dir(args)).describe())
    return 0


def _face_label(face: str, die: str) -> str:
    from companion.teach import face_name

    name = face_name(face, die)
    return f"{face} ({name})" if name else face


def _progress(step: int, total: int, text: str) -> None:
    print(f"[{step}/{total}] {text}", file=sys.stderr, flush=True)


def run_teach(args) -> int:
    if args.images and args.another_light:
        raise SetupError("--another-light teaches with the camera, in the light over the tray: photos carry their own "
                         "camera's light (leave out --images)")
    if args.images:
        from vision.dice.faces import FaceTemplates

        store = DiceStore(data_dir(args))
        templates = (store.load_templates() if args.add else None) or FaceTemplates()
        sheets = _teach_from_images(templates, args.images, args.pictures)
        store.save_templates(templates, pictures=sheets)
    else:
        store = _teach_from_camera(args)
    print_json(store.describe())
    return 0


def _teach_from_images(templates, folder: Path, pictures: Path | None) -> dict:
    """Teaches ``templates`` each photo in ``folder`` (:func:`companion.teach.teaching_photos`); returns each die's
    sheet of the pictures learned, a row for each face (written to ``pictures`` too, where given)."""
    from companion.cli.see import save_picture
    from vision import overlay
    from vision.dice.faces import FaceTemplates

    try:
        files = teaching_photos(folder)
    except SetupError as exc:
        raise SetupError(f"--images {exc}") from None
    closeups: dict[str, dict[str, tuple[str, list]]] = {}  # die -> its physical faces -> (face, each picture's die)
    lessons = {}  # each photo's name -> (what it taught, its face): read by the others once all are in
    for step, (path, die, face, number) in enumerate(files, start=1):
        image = read_photo(path)
        new_face = number not in closeups.get(die, {})
        lesson = FaceTemplates()  # checked before it is added (:func:`companion.teach.another_face_shown`)
        try:
            found = lesson.learn(die, face, image)
        except ValueError as exc:  # the picture of what was found is one command away
            raise SetupError(f"{path.name}: {exc}. To see it drawn on the photo: companion see --dice "
                             f"--pictures {shlex.quote(str(path.parent / 'seen'))} {shlex.quote(str(path))}") from exc
        shown = another_face_shown(templates, lesson, face)
        if shown is not None:  # the photo named wrong, or one before it that it looks like, learned before its face
            like = looks_most_like({name: learned for name, (learned, _) in lessons.items()}, lesson, shown)
            also = "" if like is None else \
                f"; it looks most like {like}: if that photo shows {named_face(face, die)}, name it so"
            raise SetupError(f"{path.name}: its die {shows_instead(shown, die, face)}: name each photo for the face "
                             f"on top (nothing was stored){also}")
        templates.absorb(lesson, new_face=new_face)
        lessons[path.name] = (lesson, face)
        closeup = overlay.closeup(image, found.box)
        closeups.setdefault(die, {}).setdefault(number, (face, []))[1].append((path.name, closeup))
        drawn = "" if pictures is None else \
            f" (drawn in {save_picture(pictures, path, overlay.draw_learned(image, found.box, face))})"
        _progress(step, len(files), f"die {die}, face {number}: {_face_label(face, die)} learned from "
                                    f"{path.name}{drawn}")
    for die in {die for _, die, _, _ in files}:  # photos are in their own camera's light and size, not the tray's
        templates.lights.pop(die, None)
        templates.sides.pop(die, None)
    read_as = read_by_the_others(None, lessons, taught=templates)  # what was taught before (--add) reads them too
    for name, shown in sorted(read_as.items()):
        lesson, face = lessons[name]
        die = lesson.samples[0][0]
        print(f"look at {name}: learned as {named_face(face, die)}, the other photos read it as "
              f"{named_face_of(shown, die)}; if it shows that, name it so and teach again", file=sys.stderr)
    sheets = {die: _sheet(faces, {name: shown for name, (_, shown) in read_as.items()})
              for die, faces in closeups.items()}
    for die, sheet in sheets.items() if pictures is not None else ():
        print(f"every picture of the {die} die learned: {save_picture(pictures, Path(f'{die}_learned'), sheet)}",
              file=sys.stderr)
    return sheets


def _sheet(faces: dict[str, tuple[str, list]], read_as: dict[str, str]):
    """A die's pictures learned from photos on one sheet, a row for each physical face (``faces``: its number ->
    (its letter, each picture's name and close-up of its die)), as the Setup page shows them
    (:func:`vision.overlay.learned_sheet`), those the others read as another face (``read_as``: by name) marked."""
    from vision import overlay

    looks = max(len(pictures) for _, pictures in faces.values())
    placed = {row * looks + look: picture for row, (_, pictures) in enumerate(faces.values())
              for look, picture in enumerate(pictures)}
    return overlay.learned_sheet({step: closeup for step, (_, closeup) in placed.items()},
                                 "".join(face for face, _ in faces.values()), looks, None,
                                 {step: read_as[name] for step, (name, _) in placed.items() if name in read_as})


def _teach_from_camera(args) -> DiceStore:
    """Shows which face to put in the tray next; takes each picture once the die has been set down and is still
    (the teaching itself is :class:`companion.teach.DiceTeacher`'s, as on the dashboard). Returns where the
    dice were kept: the demo camera's rendered die goes with the demo table's dice, apart from the table's own."""
    import numpy as np

    from companion.config import Config
    from companion.instance import running_companion
    from companion.cli.see import save_picture
    from companion.teach import DONE, DiceTeacher
    from hardware.camera.select import chosen_backend, open_camera, resolve_backend, settings_of

    faces = args.faces or usual_faces(args.die)
    if not faces:
        raise SetupError(f"say which faces the {args.die} die has, in the order you will show them: "
                         f"--faces {example()[1]}")
    config = Config.in_dir(data_dir(args))
    running = running_companion(data_dir(args))
    if running and chosen_backend(settings_of(config), args.backend) not in ("demo", "file"):
        # It holds the camera: opened here too it is busy, and 'auto' would find none and teach the demo's die.
        raise ConfigError(f"the companion is running on this data folder ({running}) and uses the camera: teach the "
                          "dice on its Setup page (Teach the dice), or here from photos (--images), or stop it first "
                          "(sudo systemctl stop companion, or Ctrl+C in its terminal)")
    tray, tapped_on = config["table"]["tray_px"], config["table"]["picture_px"]
    camera = None
    demo = resolve_backend(settings_of(config), args.backend) == "demo"
    store = DiceStore(data_dir(args), demo=demo)
    if demo:
        # No camera here: the demo table's die is set down with each face asked for, in its own tray.
        from companion.dice_demo import teaching_camera

        settings = config["camera"]
        camera, tray = teaching_camera(lambda: teacher.status(), fps=settings["fps"],
                                       size=(settings["work_width"], settings["work_width"] * 9 // 16))
        print("the demo camera: its table's rendered die is set down with each face asked for (kept with the "
              f"demo table's dice in {store.root}, apart from your table's own)", file=sys.stderr)
    teacher = DiceTeacher(args.die, faces, looks=args.looks, timeout_s=args.timeout,
                          keep=store.load_templates() if args.add or args.another_light else None,
                          save=store.save_templates, zone=np.asarray(tray, np.float64) if tray else None,
                          another_light=args.another_light)
    if camera is None:
        camera = open_camera(config, args.backend)
    else:
        camera.start()
    try:
        if tray and not demo:  # the tray tapped on the Setup page, placed on this camera's picture
            teacher.zone = _tray_on(tray, tapped_on, camera.read().work)
        status = teacher.status()
        _progress(status["step"], status["total"], _camera_prompt(status))
        while teacher.active:
            before = status
            status = teacher.feed(camera.read().work)
            if status["retries"] != before["retries"]:
                _progress(status["step"], status["total"], status["message"])
            elif status["learned"] != before["learned"]:
                name = Path(f"{args.die}_{before['face']}_{before['face_number']}_{before['look']}")
                drawn = "" if args.pictures is None else \
                    f" (drawn in {save_picture(args.pictures, name, teacher.seen)})"
                _progress(before["step"], status["total"], f"got it{drawn}")
                if status["active"]:
                    _progress(status["step"], status["total"], _camera_prompt(status))
    finally:
        camera.stop()
    if teacher.state != DONE:
        raise ConfigError(status["message"])
    if args.pictures is not None:  # every picture learned at a glance, a row for each face (as on the Setup page)
        print(f"every picture of the {args.die} die learned: "
              f"{save_picture(args.pictures, Path(f'{args.die}_learned'), teacher.sheet())}", file=sys.stderr)
    return store


def _tray_on(tray: list, tapped_on: list, picture):
    """The tray tapped on the Setup page, on the camera's ``picture`` (its pixels, as
    :func:`companion.pipeline.place_tapped_tray` places them); refused, saying why, where it cannot be."""
    import numpy as np

    from companion.pipeline import place_tapped_tray

    placed, why = place_tapped_tray(tray, tapped_on, (picture.shape[1], picture.shape[0]))
    if placed is None:
        raise ConfigError(f"{why}, or teach from photos (--images)")
    return np.asarray(placed, np.float64)


def _camera_prompt(status: dict) -> str:
    turn = " (turn the die a little)" if status["look"] > 1 else ""
    return (f"die {status['die']}, face {status['face_number']} of {len(status['faces'])}: "
            f"put {_face_label(status['face'], status['die'])} face up in the tray{turn}")


def run_aruco(args) -> int:
    table: dict[int, str] = {}
    for pair in args.pairs:
        key, sep, face = pair.partition("=")
        if not sep or not key.strip().isdigit() or not face.strip():
            raise SetupError(f"{pair!r}: write ID=FACE, e.g. 0=C (sticker 0 is a treasure chest)")
        table[int(key)] = face.strip().upper()
    DiceStore(data_dir(args)).save_face_table(table)
    return _show(args)

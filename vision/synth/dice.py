"""Rendered dice trays: pip dice and the project's own drawings of Fandooble's six faces.

The drawings are ours (simple shapes, not the publisher's art): treasure chest ``C``,
green dragon ``G``, red dragon ``R`` (the same dragon in red, as on the real dice, so
only colour tells them apart), Fandooble ``F``, knight ``K`` and wizard ``W``.

A scene is reproducible from its ``numpy.random.Generator``. Dice vary the way real
ones do: body and pip colours (white, ivory, black, red, green, blue, yellow, purple,
marbled), pip size and spacing, rounded corners, a glimpse of the side faces from a
camera that is not exactly overhead, a soft shadow; then the whole picture is rotated,
blurred, unevenly lit, noisy and JPEG-compressed like a camera stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth import effects

FANDOOBLE_FACES = "CGRFKW"

# Standard pip positions on a 3 x 3 grid (column, row in -1..1); 2, 3 and 6 come in two turns.
PIP_LAYOUTS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}

# Table colours (BGR): green felt, wood, grey board, dark blue cloth, off-white, black tray.
TABLE_COLOURS = {
    "felt": (52, 110, 46),
    "wood": (70, 120, 165),
    "grey": (150, 150, 146),
    "navy": (90, 45, 30),
    "white": (222, 224, 226),
    "black": (32, 32, 34),
}

# Die bodies and pip inks that dice makers use (BGR); pairs are drawn so the pips contrast.
BODIES = {
    "white": (236, 238, 240), "ivory": (200, 228, 238), "black": (30, 30, 32), "red": (40, 40, 200),
    "green": (70, 160, 40), "blue": (170, 60, 20), "yellow": (40, 215, 235), "purple": (120, 40, 90),
    "brown": (50, 100, 150), "teal": (120, 120, 30),
}
INKS = {"black": (25, 25, 25), "white": (245, 245, 245), "red": (30, 30, 210), "yellow": (40, 220, 240),
        "gold": (60, 170, 210)}

SUPER = 4  # supersampling for smooth edges


@dataclass(frozen=True)
class DieStyle:
    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    pip_ratio: float = 0.19  # pip diameter / die side
    spacing: float = 0.28  # pip grid step / die side
    corner: float = 0.14  # corner radius / die side
    marbled: bool = False
    marble: tuple[int, int, int] | None = None  # the second colour swirled into a marbled body


def random_style(rng: np.random.Generator, table: tuple[int, int, int] | None = None) -> DieStyle:
    """A die body and a pip ink that contrast, as bought in a shop.

    With ``table`` the body also differs from the table: a black die on black cloth is
    invisible to any camera (a real one still shows its bevel; we do not render that).
    """
    while True:
        body = BODIES[rng.choice(list(BODIES))]
        ink = INKS[rng.choice(list(INKS))]
        if _contrast(body, ink) > 90 and (table is None or _contrast(body, table) > 30):
            break
    marble = BODIES[rng.choice(list(BODIES))]
    return DieStyle(body=body, ink=ink, marble=marble if _contrast(marble, ink) > 90 else body, pip_ratio=float(rng.uniform(0.15, 0.22)),
                    spacing=float(rng.uniform(0.25, 0.30)), corner=float(rng.uniform(0.06, 0.2)),
                    marbled=bool(rng.random() < 0.25))


def _contrast(a, b) -> float:
    la = cv2.cvtColor(np.uint8([[a]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    lb = cv2.cvtColor(np.uint8([[b]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    return float(np.linalg.norm(la - lb))


def _rounded_square(size: int, corner: float) -> np.ndarray:
    mask = np.zeros((size, size), np.uint8)
    r = max(1, int(corner * size))
    cv2.rectangle(mask, (r, 0), (size - 1 - r, size - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (size - 1, size - 1 - r), 255, -1)
    for cx, cy in ((r, r), (size - 1 - r, r), (r, size - 1 - r), (size - 1 - r, size - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _body(size: int, style: DieStyle, rng: np.random.Generator) -> np.ndarray:
    face = np.empty((size, size, 3), np.float32)
    face[:] = style.body
    if style.marbled:
        swirl = cv2.resize(rng.normal(0, 1, (5, 5)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
        other = np.array(style.marble or style.body, np.float32)
        weight = np.clip(swirl * 0.3, 0, 0.35)[..., None]
        face = face * (1 - weight) + other * weight
    # A soft highlight: real dice are brighter towards the light.
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float32) / size
    face *= (0.92 + 0.12 * (1 - xs) * (1 - ys))[..., None]
    return face


def pip_face(value: int, side: int, style: DieStyle, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The top face of a pip die showing ``value``: (BGR patch, alpha mask), ``side`` pixels wide."""
    size = side * SUPER
    face = _body(size, style, rng)
    layout = PIP_LAYOUTS[value]
    if value in (2, 3, 6) and rng.random() < 0.5:
        layout = [(-r, c) for c, r in layout]  # the other turn of the asymmetric faces
    radius = style.pip_ratio * size / 2
    for c, r in layout:
        x = size / 2 + c * style.spacing * size
        y = size / 2 + r * style.spacing * size
        cv2.circle(face, (int(x * 16), int(y * 16)), int(radius * 16), style.ink, -1, cv2.LINE_AA, shift=4)
    return _finish(face, style, side)


def _finish(face: np.ndarray, style: DieStyle, side: int) -> tuple[np.ndarray, np.ndarray]:
    size = face.shape[0]
    mask = _rounded_square(size, style.corner)
    # Edges catch less light: darken a thin rim, as a bevel does.
    rim = cv2.GaussianBlur((255 - cv2.erode(mask, np.ones((SUPER * 3, SUPER * 3), np.uint8))).astype(np.float32),
                           (0, 0), SUPER)
    face *= (1 - 0.25 * rim / 255.0)[..., None]
    face = np.clip(face, 0, 255).astype(np.uint8)
    patch = cv2.resize(face, (side, side), interpolation=cv2.INTER_AREA)
    return patch, cv2.resize(mask, (side, side), interpolation=cv2.INTER_AREA)


def picture_face(letter: str, side: int, style: DieStyle | None = None,
                 rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Our drawing of Fandooble face ``letter`` on an ivory die: (BGR patch, alpha mask)."""
    rng = rng or np.random.default_rng(0)
    style = style or DieStyle(body=BODIES["ivory"], ink=INKS["black"], corner=0.12)
    size = side * SUPER
    face = _body(size, style, rng)
    _DRAWINGS[letter](face, size)
    return _finish(face, style, side)


def _pts(points, size) -> np.ndarray:
    return (np.array(points, np.float32) * size).astype(np.int32)


def _chest(img, s):
    cv2.rectangle(img, tuple(_pts((0.18, 0.42), s)), tuple(_pts((0.82, 0.8), s)), (30, 75, 130), -1)
    cv2.ellipse(img, tuple(_pts((0.5, 0.42), s)), tuple(_pts((0.32, 0.2), s)), 0, 180, 360, (40, 95, 160), -1)
    cv2.rectangle(img, tuple(_pts((0.18, 0.40), s)), tuple(_pts((0.82, 0.47), s)), (40, 190, 230), -1)
    cv2.rectangle(img, tuple(_pts((0.44, 0.47), s)), tuple(_pts((0.56, 0.62), s)), (40, 190, 230), -1)
    cv2.circle(img, tuple(_pts((0.5, 0.54), s)), int(0.025 * s), (20, 20, 20), -1)


def _dragon(colour):
    def draw(img, s):
        body = _pts([(0.2, 0.78), (0.35, 0.45), (0.55, 0.4), (0.62, 0.22), (0.82, 0.2), (0.75, 0.35),
                     (0.68, 0.5), (0.8, 0.78)], s)
        cv2.fillPoly(img, [body], colour, cv2.LINE_AA)
        wing = _pts([(0.38, 0.48), (0.22, 0.18), (0.5, 0.38)], s)
        cv2.fillPoly(img, [wing], tuple(int(c * 0.7) for c in colour), cv2.LINE_AA)
        cv2.circle(img, tuple(_pts((0.72, 0.26), s)), int(0.03 * s), (240, 240, 240), -1)
        for x in (0.3, 0.45, 0.6):  # spikes along the back
            cv2.fillPoly(img, [_pts([(x, 0.8), (x + 0.05, 0.88), (x + 0.1, 0.8)], s)], colour, cv2.LINE_AA)
    return draw


def _fandooble(img, s):
    cv2.circle(img, tuple(_pts((0.45, 0.5), s)), int(0.28 * s), (140, 50, 120), -1, cv2.LINE_AA)
    for x in (0.36, 0.54):
        cv2.circle(img, tuple(_pts((x, 0.42), s)), int(0.06 * s), (250, 250, 250), -1)
        cv2.circle(img, tuple(_pts((x, 0.43), s)), int(0.03 * s), (20, 20, 20), -1)
    cv2.ellipse(img, tuple(_pts((0.45, 0.58), s)), tuple(_pts((0.14, 0.07), s)), 0, 0, 180, (30, 30, 30), int(0.03 * s))
    cv2.circle(img, tuple(_pts((0.78, 0.72), s)), int(0.1 * s), (40, 200, 240), -1, cv2.LINE_AA)


def _knight(img, s):
    shield = _pts([(0.25, 0.2), (0.75, 0.2), (0.75, 0.55), (0.5, 0.85), (0.25, 0.55)], s)
    cv2.fillPoly(img, [shield], (175, 175, 170), cv2.LINE_AA)
    cv2.rectangle(img, tuple(_pts((0.45, 0.25), s)), tuple(_pts((0.55, 0.75), s)), (150, 60, 30), -1)
    cv2.rectangle(img, tuple(_pts((0.3, 0.38), s)), tuple(_pts((0.7, 0.48), s)), (150, 60, 30), -1)


def _wizard(img, s):
    hat = _pts([(0.5, 0.12), (0.7, 0.7), (0.3, 0.7)], s)
    cv2.fillPoly(img, [hat], (150, 70, 40), cv2.LINE_AA)
    cv2.ellipse(img, tuple(_pts((0.5, 0.72), s)), tuple(_pts((0.32, 0.08), s)), 0, 0, 360, (120, 50, 30), -1)
    for x, y in ((0.47, 0.4), (0.56, 0.55)):
        cv2.drawMarker(img, tuple(_pts((x, y), s)), (40, 220, 240), cv2.MARKER_STAR, int(0.1 * s), int(0.02 * s))


_DRAWINGS = {
    "C": _chest,
    "G": _dragon((40, 150, 40)),
    "R": _dragon((40, 40, 200)),
    "F": _fandooble,
    "K": _knight,
    "W": _wizard,
}


def aruco_face(marker_id: int, side: int, dictionary: int = cv2.aruco.DICT_4X4_50) -> tuple[np.ndarray, np.ndarray]:
    """A white die face with an ArUco sticker covering 3/4 of it."""
    marker_side = int(side * 0.75)
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(dictionary), marker_id, marker_side)
    face = np.full((side, side, 3), 235, np.uint8)
    start = (side - marker_side) // 2
    face[start:start + marker_side, start:start + marker_side] = marker[..., None]
    return face, _rounded_square(side, 0.1)


@dataclass(frozen=True)
class RenderedDie:
    """Ground truth of one rendered die: ``face`` None for a cocked die (nobody could read it)."""

    face: str | None
    center: tuple[float, float]
    box: tuple[int, int, int, int]  # x, y, w, h of the die's outline in the final image
    cocked: bool = False


@dataclass(frozen=True)
class Scene:
    image: np.ndarray
    dice: tuple[RenderedDie, ...]
    table: str


def _side_strip(patch: np.ndarray, mask: np.ndarray, rng: np.random.Generator, reveal: float):
    """Show a sliver of two side faces, darker than the top, as a camera a little off-vertical sees."""
    side = patch.shape[0]
    extra = max(1, int(round(reveal * side)))
    big = np.zeros((side + extra, side + extra, 3), np.uint8)
    big_mask = np.zeros((side + extra, side + extra), np.uint8)
    darker = (patch.astype(np.float32) * float(rng.uniform(0.55, 0.8))).astype(np.uint8)
    big[extra:, extra:] = darker  # the sides: the same die, shifted and shaded
    big_mask[extra:, extra:] = mask
    top = mask > 0
    big[:side, :side][top] = patch[top]
    big_mask[:side, :side] = np.maximum(big_mask[:side, :side], mask)
    return big, big_mask


def render_tray(rng: np.random.Generator, *, faces: list[str] | None = None, kind: str = "pips",
                size: tuple[int, int] = (640, 480), die_px: tuple[int, int] = (34, 48), table: str | None = None,
                cocked: int = 0, blur_sigma: float | None = None, aruco_ids: dict[str, int] | None = None,
                style: DieStyle | None = None) -> Scene:
    """A tray seen from above with dice lying flat (and ``cocked`` leaning ones), plus the truth.

    ``kind``: ``pips`` (faces '1'..'6'), ``fandooble`` (letters of :data:`FANDOOBLE_FACES`) or
    ``aruco`` (faces are keys of ``aruco_ids``). ``faces`` lists the faces to show; by default
    2-8 random ones.
    """
    w, h = size
    table = table or str(rng.choice(list(TABLE_COLOURS)))
    canvas = np.empty((h, w, 3), np.uint8)
    canvas[:] = TABLE_COLOURS[table]
    canvas = effects.noise(canvas, 5, rng)  # cloth and wood grain
    if faces is None:
        alphabet = {"pips": "123456", "fandooble": FANDOOBLE_FACES}.get(kind) or "".join(aruco_ids or {})
        faces = [str(rng.choice(list(alphabet))) for _ in range(int(rng.integers(2, 9)))]
    side = int(rng.integers(die_px[0], die_px[1] + 1))
    centres = _place(rng, len(faces) + cocked, side, w, h)
    truth: list[RenderedDie] = []
    for i, centre in enumerate(centres):
        leaning = i >= len(faces)
        face = None if leaning else faces[i]
        patch, mask = _die_patch(kind, face, side, rng, style or (
            random_style(rng, TABLE_COLOURS[table]) if kind == "pips" else None), aruco_ids)
        if leaning:
            patch, mask = _lean(patch, mask, rng)
        elif rng.random() < 0.6:
            patch, mask = _side_strip(patch, mask, rng, float(rng.uniform(0.03, 0.14)))
        angle = float(rng.uniform(0, 360))
        _shadow(canvas, centre, patch.shape[0], angle)
        corners = effects.paste(canvas, patch, centre, angle, mask)
        x0, y0 = np.floor(corners.min(axis=0)).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
        truth.append(RenderedDie(face, centre, (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), cocked=leaning))
    image = effects.uneven_light(canvas, float(rng.uniform(0.6, 1.0)), float(rng.uniform(0, 360)))
    image = effects.blur(image, float(rng.uniform(0.3, 1.0)) if blur_sigma is None else blur_sigma)
    image = effects.noise(image, float(rng.uniform(1, 4)), rng)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))])
    return Scene(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), tuple(truth), table)


def _die_patch(kind, face, side, rng, style, aruco_ids):
    if kind == "pips":
        return pip_face(int(face or rng.integers(1, 7)), side, style, rng)
    if kind == "fandooble":
        return picture_face(face or "C", side, style, rng)
    if kind == "aruco":
        return aruco_face((aruco_ids or {}).get(face, 0) if face else 0, side)
    raise ValueError(f"unknown dice kind {kind!r}: pips, fandooble or aruco")


def _lean(patch: np.ndarray, mask: np.ndarray, rng: np.random.Generator):
    """A die resting on an edge or on another die: its top face foreshortened, a side face beside it."""
    side = patch.shape[0]
    squash = float(rng.uniform(0.45, 0.65))
    top_h = max(2, int(side * squash))
    top = cv2.resize(patch, (side, top_h))
    top_mask = cv2.resize(mask, (side, top_h))
    wall_h = side - top_h + int(side * 0.35)
    wall = cv2.resize((patch.astype(np.float32) * 0.6).astype(np.uint8), (side, wall_h))
    out = np.zeros((top_h + wall_h, side, 3), np.uint8)
    out_mask = np.zeros((top_h + wall_h, side), np.uint8)
    out[:top_h], out_mask[:top_h] = top, top_mask
    out[top_h:], out_mask[top_h:] = wall, 255
    return out, out_mask


def _place(rng, count, side, w, h) -> list[tuple[float, float]]:
    margin = side
    centres: list[tuple[float, float]] = []
    for _ in range(2000):
        if len(centres) == count:
            break
        c = (float(rng.uniform(margin, w - margin)), float(rng.uniform(margin, h - margin)))
        if all(math.dist(c, o) > side * 1.75 for o in centres):
            centres.append(c)
    if len(centres) < count:
        raise ValueError(f"{count} dice of {side} px do not fit in a {w}x{h} tray")
    return centres


def _shadow(canvas, centre, side, angle):
    shade = np.zeros(canvas.shape[:2], np.uint8)
    offset = side * 0.12
    cv2.circle(shade, (int(centre[0] + offset), int(centre[1] + offset)), int(side * 0.62), 255, -1)
    alpha = cv2.GaussianBlur(shade, (0, 0), side * 0.15).astype(np.float32)[..., None] / 255.0 * 0.35
    canvas[:] = (canvas.astype(np.float32) * (1 - alpha)).astype(np.uint8)


def render_face_photo(rng: np.random.Generator, face: str, *, kind: str = "fandooble", size=(320, 240),
                      die_px: int = 60, table: str = "grey") -> np.ndarray:
    """One die in the middle of an empty tray, as ``companion dice teach`` sees it."""
    return render_tray(rng, faces=[face], kind=kind, size=size, die_px=(die_px, die_px), table=table,
                       blur_sigma=0.5).image

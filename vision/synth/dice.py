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
    return DieStyle(body=body, ink=ink, marble=marble if _contrast(marble, ink) > 90 else body,
                    pip_ratio=float(rng.uniform(0.15, 0.22)), spacing=float(rng.uniform(0.25, 0.30)),
                    corner=float(rng.uniform(0.06, 0.2)),
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
    partial: bool = False  # cut by the picture's edge (photo-like trays only)


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


# ---------------------------------------------------------------------------------------------
# Photo-like trays: real dice under a close phone or Pi camera.
#
# Each die is a cube in 3-D seen through a pinhole camera with a wide lens 6-30 die sides above the table,
# so dice away from the picture's centre show their side faces (with their own pips), the
# top face a little larger and shifted outwards. Dice touch and cluster; white and ivory dice
# lie on white paper or light grey with soft shadows; translucent dice let the table and the
# pips of their hidden faces show through; marbled dice swirl two colours; the one face may
# carry a big red pip or a maker's symbol; pips are hollows that catch a shadow; the top face
# may carry a highlight; some trays have a dark rim. The camera adds its white balance,
# uneven light, blur, noise and JPEG.
# ---------------------------------------------------------------------------------------------

PHOTO_TABLES = {  # BGR; light surfaces dominate, as in most homes
    "white paper": (236, 238, 238), "light grey": (196, 198, 198), "off-white": (214, 226, 232),
    "grey": (150, 150, 146), "wood": (70, 120, 165), "felt": (52, 110, 46), "navy": (90, 45, 30),
    "black": (32, 32, 34), "beige": (160, 190, 210),
}
_PHOTO_TABLE_WEIGHTS = np.array([4, 3, 2, 1, 1, 1, 1, 1, 1], np.float64)
PHOTO_BODIES = {
    "white": (238, 240, 242), "ivory": (196, 226, 238), "cream": (210, 236, 245), "black": (26, 26, 28),
    "red": (40, 40, 200), "dark red": (30, 30, 130), "green": (70, 160, 40), "blue": (170, 60, 20),
    "light blue": (230, 170, 90), "yellow": (40, 215, 235), "orange": (20, 120, 240), "purple": (120, 40, 90),
    "pink": (180, 130, 240), "brown": (50, 100, 150), "teal": (120, 120, 30), "grey": (120, 120, 120),
}
PHOTO_INKS = {"black": (25, 25, 25), "white": (240, 240, 240), "red": (30, 30, 200), "gold": (60, 170, 210),
              "blue": (160, 60, 20), "green": (40, 130, 30)}
# Cube corners (x, y, z) of a die of side 1 centred on the origin, and its faces as corner loops
# (seen from outside, so the texture is not mirrored) with their outward normals.
_CUBE = np.array([[x, y, z] for z in (-0.5, 0.5) for y in (-0.5, 0.5) for x in (-0.5, 0.5)], np.float64)
_CUBE_FACES = {  # name: (corner indices, normal)
    "top": ((4, 5, 7, 6), (0, 0, 1)), "bottom": ((2, 3, 1, 0), (0, 0, -1)),
    "north": ((0, 1, 5, 4), (0, -1, 0)), "south": ((3, 2, 6, 7), (0, 1, 0)),
    "west": ((2, 0, 4, 6), (-1, 0, 0)), "east": ((1, 3, 7, 5), (1, 0, 0)),
}


@dataclass(frozen=True)
class PhotoStyle:
    """How one real die looks: body, ink, translucency, marbling, pip shape, the one face."""

    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    pip_ratio: float
    spacing: float
    corner: float
    opacity: float = 1.0  # below 1: translucent body (ink stays opaque)
    marble: tuple[int, int, int] | None = None
    marble_strength: float = 0.0
    one_face: str = "pip"  # 'pip', 'big pip' or 'symbol'
    one_ink: tuple[int, int, int] | None = None
    hollow: float = 0.3  # how deep the pips' shadow is
    pictures: str | None = None  # a picture die: the Fandooble face letter drawn where the value's pips would be


def random_photo_style(rng: np.random.Generator) -> PhotoStyle:
    """A die from a shop's shelf: most are opaque with black or white pips, some are not."""
    while True:
        body = PHOTO_BODIES[str(rng.choice(list(PHOTO_BODIES)))]
        ink = PHOTO_INKS[str(rng.choice(list(PHOTO_INKS), p=[0.4, 0.3, 0.1, 0.1, 0.05, 0.05]))]
        if _contrast(body, ink) > 70:
            break
    translucent = rng.random() < 0.25
    marbled = rng.random() < 0.2
    marble = PHOTO_BODIES[str(rng.choice(list(PHOTO_BODIES)))] if marbled else None
    if marble is not None and _contrast(marble, ink) < 60:
        marble = tuple(int(0.5 * a + 0.5 * b) for a, b in zip(marble, body))
    one = str(rng.choice(["pip", "big pip", "symbol"], p=[0.65, 0.2, 0.15]))
    one_ink = PHOTO_INKS["red"] if one != "pip" and rng.random() < 0.6 else ink
    if _contrast(body, one_ink) < 60:
        one_ink = ink
    return PhotoStyle(body=body, ink=ink, pip_ratio=float(rng.uniform(0.13, 0.23)),
                      spacing=float(rng.uniform(0.23, 0.31)), corner=float(rng.uniform(0.08, 0.24)),
                      opacity=float(rng.uniform(0.35, 0.8)) if translucent else 1.0, marble=marble,
                      marble_strength=float(rng.uniform(0.3, 0.8)) if marbled else 0.0, one_face=one,
                      one_ink=one_ink, hollow=float(rng.uniform(0.1, 0.45)))


def _face_texture(value: int, style: PhotoStyle, size: int, rng: np.random.Generator,
                  light: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A face of the die, flat and square: (BGR float32, opacity 0..1), ``size`` pixels wide."""
    if style.pictures:
        patch, mask = picture_face(style.pictures[value - 1], size)
        return patch.astype(np.float32), mask.astype(np.float32) / 255.0
    face = np.empty((size, size, 3), np.float32)
    face[:] = style.body
    if style.marble is not None:
        swirl = np.zeros((size, size), np.float32)
        for cells in (3, 6, 12):
            swirl += cv2.resize(rng.normal(0, 1, (cells, cells)).astype(np.float32), (size, size),
                                interpolation=cv2.INTER_CUBIC) / cells ** 0.5
        veins = np.clip(1.0 - np.abs(np.sin(swirl * rng.uniform(2, 5))) * 1.5, 0, 1) * style.marble_strength
        face = face * (1 - veins[..., None]) + np.array(style.marble, np.float32) * veins[..., None]
    opacity = np.full((size, size), style.opacity, np.float32)
    ink_mask = np.zeros((size, size), np.uint8)
    layout = PIP_LAYOUTS[value]
    if value in (2, 3, 6) and rng.random() < 0.5:
        layout = [(-r, c) for c, r in layout]
    ink, radius = style.ink, style.pip_ratio * size / 2
    if value == 1 and style.one_face != "pip":
        ink = style.one_ink or style.ink
        radius = float(rng.uniform(0.15, 0.22)) * size
    pips = []
    for c, r in layout:
        x, y = size / 2 + c * style.spacing * size, size / 2 + r * style.spacing * size
        pips.append((x, y))
        if value == 1 and style.one_face == "symbol":
            _symbol(ink_mask, (x, y), radius, rng)
        else:
            cv2.circle(ink_mask, (int(x * 16), int(y * 16)), int(radius * 16), 255, -1, cv2.LINE_AA, shift=4)
    alpha = ink_mask.astype(np.float32)[..., None] / 255.0
    # Hollow pips: the side towards the light lies in the pip's own shadow.
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float32)
    shade = np.ones((size, size), np.float32)
    for x, y in pips:
        along = ((xs - x) * light[0] + (ys - y) * light[1]) / max(radius, 1.0)
        inside = np.hypot(xs - x, ys - y) < radius * 1.05
        shade[inside] = 1.0 - style.hollow * np.clip(0.5 + 0.5 * along[inside], 0, 1)
    face = face * (1 - alpha) + np.array(ink, np.float32) * alpha
    face *= shade[..., None]
    opacity = np.maximum(opacity, alpha[..., 0])
    # A bevel: the face darkens a little towards its rounded edges.
    edge = np.minimum(np.minimum(xs, size - 1 - xs), np.minimum(ys, size - 1 - ys)) / size
    face *= (0.8 + 0.2 * np.clip(edge / 0.06, 0, 1))[..., None]
    rounded = _rounded_square(size, style.corner).astype(np.float32) / 255.0
    return face, opacity * rounded


def _symbol(mask: np.ndarray, centre, radius: float, rng: np.random.Generator) -> None:
    """A maker's mark on the one face: a star, a ring, a diamond or a crest."""
    kind = int(rng.integers(0, 4))
    cx, cy = centre
    if kind == 0:
        angles = np.arange(10) * np.pi / 5 + rng.uniform(0, np.pi)
        radii = np.where(np.arange(10) % 2 == 0, radius * 1.2, radius * 0.5)
        pts = np.column_stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)])
        cv2.fillPoly(mask, [(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    elif kind == 1:
        cv2.circle(mask, (int(cx), int(cy)), int(radius * 1.1), 255, max(2, int(radius * 0.35)), cv2.LINE_AA)
        cv2.circle(mask, (int(cx), int(cy)), int(radius * 0.3), 255, -1, cv2.LINE_AA)
    elif kind == 2:
        pts = np.array([[cx, cy - radius * 1.3], [cx + radius, cy], [cx, cy + radius * 1.3], [cx - radius, cy]])
        cv2.fillPoly(mask, [(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    else:
        pts = np.array([[cx - radius, cy - radius], [cx + radius, cy - radius], [cx + radius, cy + 0.2 * radius],
                        [cx, cy + radius * 1.3], [cx - radius, cy + 0.2 * radius]])
        cv2.fillPoly(mask, [(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        cv2.line(mask, (int(cx - radius * 0.6), int(cy)), (int(cx + radius * 0.6), int(cy)), 0,
                 max(1, int(radius * 0.2)))


def _die_faces(top: int, rng: np.random.Generator) -> dict[str, int]:
    """The value on every face of a real die (opposite faces add up to seven) with ``top`` up."""
    a = int(rng.choice([v for v in range(1, 7) if v not in (top, 7 - top)]))
    b = int(rng.choice([v for v in range(1, 7) if v not in (top, 7 - top, a, 7 - a)]))
    return {"top": top, "bottom": 7 - top, "north": a, "south": 7 - a, "west": b, "east": 7 - b}


@dataclass
class _Camera:
    focal: float  # pixels
    height: float  # above the table, in die sides
    centre: tuple[float, float]  # principal point in pixels

    def project(self, points: np.ndarray) -> np.ndarray:
        depth = self.height - points[:, 2]
        return np.column_stack([self.centre[0] + self.focal * points[:, 0] / depth,
                                self.centre[1] + self.focal * points[:, 1] / depth])

    def to_table(self, pixel) -> np.ndarray:
        return np.array([(pixel[0] - self.centre[0]) * self.height / self.focal,
                         (pixel[1] - self.centre[1]) * self.height / self.focal])


def _rotation(yaw: float, tilt: float, tilt_axis: float) -> np.ndarray:
    rz, _ = cv2.Rodrigues(np.array([0.0, 0.0, yaw]))
    axis = np.array([math.cos(tilt_axis), math.sin(tilt_axis), 0.0]) * tilt
    rt, _ = cv2.Rodrigues(axis)
    return rt @ rz


def _footprint_clear(footprints: list[np.ndarray], new: np.ndarray, gap: float) -> bool:
    """True when the square ``new`` (4 x 2, table units) keeps ``gap`` from every other footprint."""
    for other in footprints:
        separated = False
        for poly in (new, other):
            for i in range(4):
                edge = poly[(i + 1) % 4] - poly[i]
                axis = np.array([-edge[1], edge[0]]) / (np.linalg.norm(edge) or 1.0)
                a, b = new @ axis, other @ axis
                if a.max() + gap <= b.min() or b.max() + gap <= a.min():
                    separated = True
                    break
            if separated:
                break
        if not separated:
            return False
    return True


def _photo_table(rng: np.random.Generator, w: int, h: int, name: str) -> np.ndarray:
    base = np.array(PHOTO_TABLES[name], np.float32) * rng.uniform(0.92, 1.06, 3).astype(np.float32)
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = base
    grain = cv2.resize(rng.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32), (w, h))
    canvas += (grain * rng.uniform(1, 6))[..., None]
    if name == "wood":
        ys = np.arange(h, dtype=np.float32)[:, None]
        canvas += (np.sin(ys / rng.uniform(3, 9) + grain * 2) * 12)[..., None]
    if rng.random() < 0.25:  # the dark rim of a dice tray along one or two sides of the picture
        rim = np.array(PHOTO_TABLES[str(rng.choice(["black", "navy", "wood"]))], np.float32)
        width = int(rng.uniform(0.04, 0.14) * min(w, h))
        for side in rng.choice(4, size=int(rng.integers(1, 3)), replace=False):
            if side == 0:
                canvas[:width] = rim
            elif side == 1:
                canvas[-width:] = rim
            elif side == 2:
                canvas[:, :width] = rim
            else:
                canvas[:, -width:] = rim
    return canvas


def render_photo(rng: np.random.Generator, *, size: tuple[int, int] = (640, 480), count: int | None = None,
                 faces: list[str] | None = None, die_px: tuple[float, float] = (30, 90), cocked: int | None = None,
                 table: str | None = None, style: PhotoStyle | None = None, fov_deg: float | None = None,
                 area: tuple[float, float, float, float] | None = None) -> Scene:
    """A photo-like tray of pip dice (see the section comment above) and its truth.

    ``die_px`` bounds the side of a die on the table in pixels; ``count`` dice (1-25 by
    default; ``faces`` fixes them), of which ``cocked`` lean on an edge (0-1 by default).
    The truth's ``box`` encloses the visible top face, as a person labelling photos draws it.
    ``style`` makes every die look the same (by default a tray holds one set or a mix; ``PhotoStyle.pictures``
    draws picture dice). ``fov_deg`` fixes the lens (degrees across the picture) and puts the camera's axis in the
    picture's middle; ``area`` (left, top, right, bottom, shares of the picture) is where the dice lie: a tray
    towards the edge of the view shows their side faces.
    """
    w, h = size
    table = table or str(rng.choice(list(PHOTO_TABLES), p=_PHOTO_TABLE_WEIGHTS / _PHOTO_TABLE_WEIGHTS.sum()))
    canvas = _photo_table(rng, w, h, table)
    if faces is None:
        n = count if count is not None else int(min(25, 1 + rng.geometric(0.13)))
        faces = [str(v) for v in rng.integers(1, 7, n)]
    cocked = int(rng.random() < 0.3) if cocked is None else cocked
    side_px = float(rng.uniform(*die_px))
    # A phone or Pi camera with a wide lens (50-80 degrees across the picture): the bigger the
    # dice look, the closer it is, and the more of their sides it sees.
    fov = math.radians(float(rng.uniform(50, 80)) if fov_deg is None else fov_deg)
    height = float(np.clip(max(w, h) / side_px / (2 * math.tan(fov / 2)), 6.0, 30.0))
    centre = (w / 2, h / 2) if fov_deg is not None else (w / 2 + rng.uniform(-0.15, 0.15) * w,
                                                          h / 2 + rng.uniform(-0.15, 0.15) * h)
    camera = _Camera(focal=side_px * height, height=height, centre=centre)
    light = rng.normal(0, 1, 3)
    light[2] = abs(light[2]) + rng.uniform(1.0, 3.0)
    light /= np.linalg.norm(light)
    # Place the dice on the table: in clusters, touching or not, never overlapping.
    corner_lo, corner_hi = camera.to_table((0, 0)), camera.to_table((w, h))
    if area is not None:  # the dice lie in this part of the picture (fractions: left, top, right, bottom)
        corner_lo, corner_hi = camera.to_table((area[0] * w, area[1] * h)), camera.to_table((area[2] * w, area[3] * h))
    footprints: list[np.ndarray] = []
    placed = []
    same_set = style is not None or rng.random() < 0.5
    set_style = style or random_photo_style(rng)
    total = len(faces) + cocked
    cluster = (corner_lo + (corner_hi - corner_lo) * rng.uniform(0.2, 0.8, 2)) if area is not None else \
        camera.to_table((rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h))
    for i in range(total):
        scale = float(rng.uniform(0.9, 1.1)) if same_set else float(rng.uniform(0.75, 1.25))
        for _ in range(200):
            if rng.random() < 0.6 and placed:
                anchor = placed[int(rng.integers(len(placed)))][0]
                spot = anchor + rng.normal(0, 1, 2) / 1.0 * rng.uniform(0.8, 1.6)
            elif rng.random() < 0.5:
                spot = cluster + rng.normal(0, 2.5, 2)
            else:
                spot = rng.uniform(corner_lo + 0.8, corner_hi - 0.8)
            if not (np.all(spot > corner_lo + 0.7 * scale) and np.all(spot < corner_hi - 0.7 * scale)):
                continue
            yaw = float(rng.uniform(0, np.pi / 2))
            square = spot + (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * 0.5 * scale) @ np.array(
                [[math.cos(yaw), math.sin(yaw)], [-math.sin(yaw), math.cos(yaw)]])
            if _footprint_clear(footprints, square, float(rng.uniform(0.0, 0.15)) + (0.5 if i >= len(faces) else 0)):
                footprints.append(square)
                placed.append((spot, yaw, scale))
                break
        else:
            break
    # Draw the farthest dice from the camera's axis first: nearer ones can hide their feet.
    order = sorted(range(len(placed)), key=lambda k: -np.linalg.norm(placed[k][0]))
    truth: dict[int, RenderedDie] = {}
    shadow = np.zeros((h, w), np.float32)
    dice_layers = []
    for k in order:
        spot, yaw, scale = placed[k]
        leaning = k >= len(faces)
        top = int(rng.integers(1, 7)) if leaning else int(faces[k])
        look = set_style if same_set else random_photo_style(rng)
        tilt = float(rng.uniform(0.3, 0.75)) if leaning else float(rng.normal(0, 0.02))
        rotation = _rotation(yaw, tilt, float(rng.uniform(0, 2 * np.pi)))
        corners = (_CUBE * scale) @ rotation.T
        corners[:, 2] -= corners[:, 2].min()
        corners[:, :2] += spot
        footprint = camera.project(np.column_stack([corners[:, :2], np.zeros(8)]))
        cv2.fillConvexPoly(shadow, (cv2.convexHull(footprint.astype(np.float32)) * 4).astype(np.int32).reshape(-1, 2),
                           0.5 if look.opacity < 1 else 1.0, cv2.LINE_AA, shift=2)
        dice_layers.append((corners, top, look, leaning, k, scale))
    # Soft shadows first (they fall on the table, away from the light), then the dice.
    shift = -light[:2] / max(light[2], 0.3) * side_px * 0.35
    shadow = cv2.warpAffine(shadow, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), (w, h))
    shadow = cv2.GaussianBlur(shadow, (0, 0), side_px * float(rng.uniform(0.08, 0.25)))
    canvas *= (1 - float(rng.uniform(0.15, 0.45)) * np.clip(shadow, 0, 1))[..., None]
    for corners, top, look, leaning, k, scale in dice_layers:
        top_quad, outline = _draw_cube(canvas, camera, corners, top, look, light, rng, side_px * scale)
        if outline is None:
            continue
        x0, y0 = np.floor(top_quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(top_quad.max(axis=0)).astype(int)
        ox0, oy0 = np.floor(outline.min(axis=0)).astype(int)
        ox1, oy1 = np.ceil(outline.max(axis=0)).astype(int)
        box = (int(ox0), int(oy0), int(ox1 - ox0), int(oy1 - oy0)) if leaning else \
            (int(x0), int(y0), int(x1 - x0), int(y1 - y0))
        centre = tuple(float(v) for v in (outline.mean(axis=0) if leaning else top_quad.mean(axis=0)))
        partial = box[0] < 0 or box[1] < 0 or box[0] + box[2] > w or box[1] + box[3] > h
        truth[k] = RenderedDie(None if leaning else str(top), centre, box, cocked=leaning, partial=partial)
    image = _camera_effects(canvas, rng, side_px)
    return Scene(image, tuple(truth[k] for k in sorted(truth)), table)


def _draw_cube(canvas, camera: _Camera, corners: np.ndarray, top: int, style: PhotoStyle, light: np.ndarray,
               rng: np.random.Generator, side_px: float):
    """Paint one die on ``canvas`` (float32, in place): (its top face quad, its outline points)."""
    h, w = canvas.shape[:2]
    pixels = camera.project(corners)
    lo = np.floor(pixels.min(axis=0)).astype(int) - 2
    hi = np.ceil(pixels.max(axis=0)).astype(int) + 3
    if lo[0] < -side_px or lo[1] < -side_px or hi[0] > w + side_px or hi[1] > h + side_px:
        return pixels[4:], None
    s = 3  # supersampling
    lw, lh = int((hi[0] - lo[0]) * s), int((hi[1] - lo[1]) * s)
    colour = np.zeros((lh, lw, 3), np.float32)
    alpha = np.zeros((lh, lw), np.float32)
    texture_px = int(np.clip(side_px * 2, 48, 160))
    values = _die_faces(top, rng)
    eye = np.array([0.0, 0.0, camera.height])
    centre3 = corners.mean(axis=0)
    rotation_normals = {}
    for name, (idx, _) in _CUBE_FACES.items():
        quad3 = corners[list(idx)]
        normal = np.cross(quad3[1] - quad3[0], quad3[3] - quad3[0])
        normal /= np.linalg.norm(normal) or 1.0
        if np.dot(normal, quad3.mean(axis=0) - centre3) < 0:
            normal = -normal
        rotation_normals[name] = (quad3, normal)
    # Back to front: hidden faces only show through a translucent die.
    names = sorted(rotation_normals, key=lambda n: -np.linalg.norm(rotation_normals[n][0].mean(axis=0) - eye))
    top_name = max(rotation_normals, key=lambda n: rotation_normals[n][1][2])
    top_quad = camera.project(rotation_normals[top_name][0])
    for name in names:
        quad3, normal = rotation_normals[name]
        facing = np.dot(normal, eye - quad3.mean(axis=0)) > 0
        if not facing and style.opacity >= 1.0:
            continue
        texture, opacity = _face_texture(values[name], style, texture_px, rng, light[:2])
        lambert = 0.45 + 0.55 * max(0.0, float(np.dot(normal, light)))
        texture *= lambert
        if name == top_name and facing and rng.random() < 0.4:  # a glossy highlight
            hx, hy = rng.uniform(0.15, 0.85, 2) * texture_px
            spot = np.zeros((texture_px, texture_px), np.float32)
            cv2.circle(spot, (int(hx), int(hy)), int(texture_px * rng.uniform(0.05, 0.2)), 1.0, -1)
            spot = cv2.GaussianBlur(spot, (0, 0), texture_px * 0.06)
            texture += (spot * rng.uniform(60, 200))[..., None]
        if not facing:
            opacity = opacity * 0.5
        target = (camera.project(quad3) - lo) * s
        src = np.float32([[0, 0], [texture_px, 0], [texture_px, texture_px], [0, texture_px]])
        warp = cv2.getPerspectiveTransform(src, target.astype(np.float32))
        face_colour = cv2.warpPerspective(texture, warp, (lw, lh), flags=cv2.INTER_LINEAR)
        face_alpha = cv2.warpPerspective(opacity, warp, (lw, lh), flags=cv2.INTER_LINEAR)
        colour = colour * (1 - face_alpha[..., None]) + face_colour * face_alpha[..., None]
        alpha = alpha + face_alpha * (1 - alpha)
    # The rounded edges between faces: the body's shaded colour fills the die's outline.
    outline = np.zeros((lh, lw), np.uint8)
    hull = cv2.convexHull(((pixels - lo) * s).astype(np.float32)).astype(np.int32)
    cv2.fillConvexPoly(outline, hull, 255, cv2.LINE_AA)
    k = max(3, int(style.corner * side_px * s * 0.6) | 1)
    outline = cv2.morphologyEx(outline, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    body = outline.astype(np.float32) / 255.0
    fill = np.array(style.body, np.float32) * 0.6
    colour = colour + fill * np.clip(body - alpha, 0, 1)[..., None] * style.opacity
    alpha = np.clip(np.maximum(alpha, body * style.opacity), 0, 1) * body
    colour = cv2.resize(colour, (lw // s, lh // s), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha, (lw // s, lh // s), interpolation=cv2.INTER_AREA)
    # Paste into the picture (clipped at its edges); a translucent die tints what it lets through.
    x0, y0 = lo
    cx0, cy0 = max(0, x0), max(0, y0)
    cx1, cy1 = min(w, x0 + colour.shape[1]), min(h, y0 + colour.shape[0])
    if cx1 <= cx0 or cy1 <= cy0:
        return top_quad, None
    part = colour[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0]
    a = alpha[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0][..., None]
    under = canvas[cy0:cy1, cx0:cx1]
    if style.opacity < 1.0:
        tint = (np.array(style.body, np.float32) + 40) / 295.0
        seen_through = np.clip(a / style.opacity, 0, 1)
        under = under * (1 - seen_through * (1 - tint))
    canvas[cy0:cy1, cx0:cx1] = under * (1 - a) + part  # ``part`` is premultiplied by its alpha
    return top_quad, pixels


def _camera_effects(canvas: np.ndarray, rng: np.random.Generator, side_px: float) -> np.ndarray:
    h, w = canvas.shape[:2]
    canvas = canvas * rng.uniform(0.85, 1.12, 3).astype(np.float32) * float(rng.uniform(0.8, 1.15))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    d = float(rng.uniform(0, 2 * np.pi))
    along = ((xs - w / 2) * math.cos(d) + (ys - h / 2) * math.sin(d)) / max(w, h)
    vignette = 1.0 - float(rng.uniform(0, 0.35)) * (((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / (w * w / 4 + h * h / 4))
    canvas = canvas * ((1.0 + along * float(rng.uniform(-0.4, 0.4))) * vignette)[..., None]
    image = np.clip(canvas, 0, 255).astype(np.uint8)
    image = effects.blur(image, float(rng.uniform(0.2, 1.2)) * max(0.7, side_px / 60))
    image = effects.noise(image, float(rng.uniform(1, 5)), rng)
    _, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 95))])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def render_placed(dice: list[tuple[str, tuple[float, float], float]], *, size: tuple[int, int], side: int,
                  table: str = "felt", hand: tuple[float, float] | None = None, seed: int = 0) -> np.ndarray:
    """A tray with picture dice lying where given: each ``(face letter, centre, angle)``; with ``hand``, a
    hand reaching in at that point (over the dice). The same dice at the same places give the same picture,
    as a still camera does."""
    rng = np.random.default_rng(seed)
    w, h = size
    canvas = np.empty((h, w, 3), np.uint8)
    canvas[:] = TABLE_COLOURS[table]
    canvas = effects.noise(canvas, 3, rng)
    for face, centre, angle in dice:
        patch, mask = picture_face(face, side)
        _shadow(canvas, centre, side, angle)
        effects.paste(canvas, patch, centre, angle, mask)
    if hand is not None:
        axes = (int(side * 2.2), int(side * 1.4))
        cv2.ellipse(canvas, (int(hand[0]), int(hand[1])), axes, 30, 0, 360, (120, 150, 200), -1)
        cv2.rectangle(canvas, (int(hand[0]), int(hand[1]) - axes[1]), (w, int(hand[1]) + axes[1]), (110, 140, 190), -1)
    return effects.blur(canvas, 0.6)

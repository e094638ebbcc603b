"""The two small networks of the pip reader, run from ONNX files by ONNX Runtime (or OpenCV's
``cv2.dnn`` where ONNX Runtime has no build, such as 32-bit Raspberry Pi OS).

* :func:`find` -- the finder sees the picture scaled to 320 pixels on its longer side (or
  so that a die is about 27 pixels, when the die size is known) and marks every die's
  centre and box size (a heat map of cells of 4 x 4 of its pixels, CenterNet-like);
* :func:`read` -- the reader sees each die cut out and scaled to ``READER_PX`` pixels and
  says: not a die, faces 1-6, a die that does not lie flat, or a flat die whose face is not
  pips (a picture or sticker die: the taught and ArUco readers read those).

Both were trained on synthetic renders and the real photos' train split
(``tools/train_dice.py`` rebuilds them with a fixed seed); the preprocessing here is shared
with that script, so training and reading see the same pixels.

ONNX Runtime runs both networks in a bit over half of ``cv2.dnn``'s time on one core, their
outputs a few millionths apart on the same input (bench/dice_bench.py --timing measures both side
by side; tests/test_dice.py checks they mark and read the same dice). Its threads are set once, at
the first use, to OpenCV's (``cv2.setNumThreads``), and unlike a ``cv2.dnn`` net a session may be
run from several threads at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

try:
    import onnxruntime
except ImportError:  # no wheel for this machine: OpenCV runs the same files, slower
    onnxruntime = None

MODELS = Path(__file__).resolve().parent / "models"
RUNTIMES = ("onnxruntime", "opencv")
RUNTIME = "onnxruntime" if onnxruntime is not None else "opencv"
INSTALLED = tuple(r for r in RUNTIMES if r != "onnxruntime" or onnxruntime is not None)  # what use_runtime accepts here
FINDER_SIZE = 320  # the finder sees the picture scaled so that its longer side has this many pixels
FINDER_STRIDE = 4  # finder cells, in finder pixels
FINDER_DIE_PX = 27  # a typical die side in the finder's view (30-90 px dice in 640 px pictures, halved)
READER_PX = 48
READER_CLASSES = 9  # not a die, 1..6, not lying flat, a flat die whose face is not pips
NOT_A_DIE, COCKED, PICTURE = 0, 7, 8  # the reader's classes other than the pip faces 1..6
CROP_GROW = 1.5  # the reader's cut-out is this many times the die's box side (it sees the die's surroundings)
MIN_PEAK = 0.3  # finder score below which a spot is not a die (chosen on held-out renders)
CLOSEST = 0.5  # with no die seen, the finder looks closer until it sees the picture at this scale
TOO_LARGE = 1.5  # dice larger than this many FINDER_DIE_PX in the finder's first look are often missed there, and
# the drawings on them marked as dice instead (bench/large_dice_bench.py: rendered Fandooble dice of 80 px in a 640 px
# picture, 40 in the first look, found as well either way; of 110 px, 6 of 30 without their size, 2 false dice):
# where their size is known, it looks for them at it
FARTHER = 0.5  # the farther look sees the picture at this share of the first look's scale (:func:`with_large_dice`)
LARGE = 2.0  # a farther look's mark at least this many FINDER_DIE_PX wide in the first look is a die too large for
# it. At 1.5 (TOO_LARGE) real dice of the usual size in the small crops of bench/dice_bench.py's taught rows were marked
# again, larger, and read otherwise (single dice: a wrong face more of 417; held-out looks: 7 fewer right of 1019 and a
# wrong face more); at 2 none is: every real photo reads as it did (measured with the networks before their
# retraining for issue 13)
FAR_TINY = 0.8  # in a first look at half scale or farther (a picture of 640 px or more), a mark smaller than this
# many FINDER_DIE_PX says dice there may be too small for it: rendered pip dice 8-11 px wide in it are missed one time
# in five (12-15 px: none), and its boxes of them run up to 1.7 times too large, so that a box cannot tell them from
# dice of 14 px. Its closer look then sees the whole picture, not only around the dice it marked. The real photos
# (640 px; 199 of the train split's 200 have such a mark): over three fifths of the train split, each read by a reader
# that never saw it, 842 of 879 right and 3 wrong at the threshold the rule then picks (pips.UNSURE), against 826 and
# 4 (bench/dice_bench.py --calibrate --fold 0 1 2). Renders (bench/small_dice_bench.py, pictures of 900 to 2304 px): of
# 696 dice 8-12 px wide in the first look, 11 missed before and none now, 96.8% read right against 95.3%, none wrong
# either way, 35 ms a picture against 19; 12-16 px: 2 more right, 24 ms against 16; 16-24 px: one fewer right, as
# fast. At 0.7, 4 of those 696 stay missed; at 0.9, one more read right for 51 ms a picture and a wrong face among the
# dice of 12-16 px. A 640 x 480 tray reads as fast as before (bench/dice_bench.py --timing: 9.0 ms, 8.6 before)
TOO_SMALL = 0.9  # dice smaller than this many FINDER_DIE_PX in the finder's first look are looked at again
NEAR_REACH = 48  # the closer look sees this many of its pixels around each die: a die's mark depends on no farther pixel
WHOLE_PICTURE = 0.6  # windows covering more than this share of the picture: the closer look sees all of it
HALVE_BELOW = 0.35  # a cut-out shrunk below this is first halved by pyramid steps: under a grey level apart on average
# (tests/test_dice.py), the same readings on the calibration photos and photo-like renders; a 640 x 480 tray's cut-outs
# take a third less time, a 2560 x 1920 picture's a sixth of the time
SMALL_BOX_RUNS_LARGE = 0.8  # small dice's boxes at the first look are about this much too large (train split's calibration photos)


@dataclass(frozen=True)
class Spot:
    """A die the finder marked: centre and box in picture pixels, and how sure it is."""

    center: tuple[float, float]
    box: tuple[int, int, int, int]
    score: float

    @property
    def side(self) -> float:
        return float(max(self.box[2], self.box[3]))


def first_look_scale(shape: tuple[int, ...]) -> float:
    """The scale the finder sees a picture of ``shape`` at when no die size is known: its longer side FINDER_SIZE
    pixels, a smaller picture as it is (enlarged, its pips would look like dice)."""
    return min(1.0, FINDER_SIZE / max(shape[:2]))


def size_to_look_for(shape: tuple[int, ...], side: float | None) -> float | None:
    """The die side to look for in a picture of ``shape``, knowing the dice are about ``side`` pixels (as taught with
    the camera): ``side`` where dice that large are too large for the finder's first look (TOO_LARGE), so that it sees
    them at the size it knows dice best; None otherwise, and the finder looks as it does without a size (a known
    size skips its closer look at small dice and may enlarge the picture, a cost that buys nothing there)."""
    if not side:
        return None
    first_look = first_look_scale(shape)
    return float(side) if side * first_look > TOO_LARGE * FINDER_DIE_PX else None


def finder_input(image: np.ndarray, resized: bool = False, die_px: float | None = None) -> tuple[np.ndarray, float]:
    """The finder's view of ``image``: (the scaled BGR picture, padded to whole cells, and the scale).

    The picture is scaled so that its longer side is FINDER_SIZE pixels (a smaller picture is
    taken as it is: enlarged, its pips would look like dice), or, when the die
    side ``die_px`` is known, so that a die is FINDER_DIE_PX pixels (as in training).
    With ``resized`` the picture is taken as it is and the float NCHW blob is returned instead.
    """
    if resized:
        blob = image.astype(np.float32).transpose(2, 0, 1) / 255.0 - 0.5
        return blob, 1.0
    h, w = image.shape[:2]
    scale = FINDER_DIE_PX / die_px if die_px else first_look_scale(image.shape)
    sw, sh = max(8, round(w * scale)), max(8, round(h * scale))
    small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA)
    pad_h, pad_w = -sh % (2 * FINDER_STRIDE), -sw % (2 * FINDER_STRIDE)
    if pad_h or pad_w:
        small = cv2.copyMakeBorder(small, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE)
    return small, scale


def crop_die(image: np.ndarray, center: tuple[float, float], side: float) -> np.ndarray:
    """The square of ``side`` pixels around ``center``, scaled to READER_PX (BGR uint8)."""
    k = READER_PX / max(side, 1.0)
    interpolation = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
    if k < 0.7:  # shrinking a lot: smooth first (a Gaussian of 0.4 / k pixels) so pips do not alias away
        reach = side / 2 + 3 * 0.4 / k + 4  # the cut-out, and as far as the blurs and the warp look beyond it
        h, w = image.shape[:2]  # a point beside the picture keeps the picture's nearest pixels (they are replicated)
        x0, y0 = int(min(max(0, center[0] - reach), w - 1)), int(min(max(0, center[1] - reach), h - 1))
        part = image[y0:max(y0 + 1, int(center[1] + reach) + 1), x0:max(x0 + 1, int(center[0] + reach) + 1)]
        center = (center[0] - x0, center[1] - y0)
        done = 0.0  # blur the part already has, in its pixels
        while k < HALVE_BELOW:  # a big die: halve first (a pyramid step blurs by 1 pixel, cheaply), then blur the rest
            part = cv2.pyrDown(part)
            center, k, done = (center[0] / 2, center[1] / 2), 2 * k, np.sqrt((done ** 2 + 1.0) / 4)
        part = cv2.GaussianBlur(part, (0, 0), np.sqrt(max((0.4 / k) ** 2 - done ** 2, 0.01)))
        image = part
    matrix = np.float32([[k, 0, READER_PX / 2 - k * center[0]], [0, k, READER_PX / 2 - k * center[1]]])
    return cv2.warpAffine(image, matrix, (READER_PX, READER_PX), flags=interpolation, borderMode=cv2.BORDER_REPLICATE)


def reader_input(crops: list[np.ndarray]) -> np.ndarray:
    """NCHW float32 blob of die cut-outs, each brought to zero mean and unit spread (light varies)."""
    batch = np.stack(crops).astype(np.float32)
    mean = batch.mean(axis=(1, 2, 3), keepdims=True)
    spread = batch.std(axis=(1, 2, 3), keepdims=True) + 8.0
    return np.ascontiguousarray(((batch - mean) / spread).transpose(0, 3, 1, 2))


def use_models(folder: Path) -> None:
    """Read both networks from ``folder`` from now on: a developer's check of networks trained
    elsewhere (tools/train_dice.py --out), never used at the table."""
    global MODELS
    MODELS = Path(folder)
    _net.cache_clear()


def use_runtime(name: str) -> None:
    """Run both networks with ``name`` (one of RUNTIMES) from now on: the bench and the tests
    compare the two; the companion keeps the faster one it has."""
    global RUNTIME
    if name not in RUNTIMES:
        raise ValueError(f"no dice network runtime {name!r}: choose one of {', '.join(RUNTIMES)}")
    if name not in INSTALLED:
        raise ValueError("ONNX Runtime is not installed here: pip install onnxruntime, or use opencv")
    RUNTIME = name
    _net.cache_clear()


@cache
def _net(name: str, runtime: str):
    """A function from an NCHW float32 blob to the network's first output."""
    path = MODELS / f"{name}.onnx"
    if not path.is_file():
        raise FileNotFoundError(f"the dice network {path} is missing: rebuild it with tools/train_dice.py")
    if runtime == "opencv":
        net = cv2.dnn.readNetFromONNX(str(path))
        net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)

        def forward(blob: np.ndarray) -> np.ndarray:
            net.setInput(blob)
            return net.forward()
        return forward
    options = onnxruntime.SessionOptions()
    # As many threads as OpenCV is given (one setting for all image work: the bench gives one), and
    # no busy-waiting between runs, which would take a Pi's cores from the dashboard and the camera.
    options.intra_op_num_threads = max(1, cv2.getNumThreads())
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    return lambda blob: session.run(None, {input_name: blob})[0]


def _run(name: str, blob: np.ndarray) -> np.ndarray:
    return _net(name, RUNTIME)(np.ascontiguousarray(blob, np.float32))


def find(image: np.ndarray, min_score: float = MIN_PEAK, die_px: float | None = None,
         several: bool = True) -> list[Spot]:
    """Dice in ``image`` (BGR) as the finder sees them, most certain first.

    Without the die size, the finder first sees the picture at FINDER_SIZE. In a large
    picture (the whole camera view as the tray) dice may be too small to see there: with
    none seen it looks twice as close, up to CLOSEST. Where the dice it marks are clearly
    smaller than it knows them best (a far camera, small dice), its boxes run large and
    touching small dice merge, so it looks again (twice at most) with the dice brought to their usual size
    in its view (never enlarging the picture itself), around the dice it saw (:func:`_find_near`); in a first
    look at half scale or farther that marked tiny dice (FAR_TINY), at the whole picture, since others as small
    may have gone unseen; not where the picture shows one die (``several`` False: a teaching photo, where the
    tiny mark is a speck of it).
    Most of the real train split's photos, and plain trays of dice under about 48 pixels in
    640, get that closer look (bench/dice_bench.py measures both).
    """
    if die_px is not None:
        return _find_at(image, min_score, die_px)
    scale = first_look_scale(image.shape)
    spots = _find_at(image, min_score, FINDER_DIE_PX / scale)
    while not spots and scale < CLOSEST:
        scale = min(1.0, 2 * scale)
        spots = _find_at(image, min_score, FINDER_DIE_PX / scale)
    for _ in range(2):  # a second closer look when the first was still too far (tiny dice in a large picture)
        if not spots or scale >= 1.0:
            break
        sides = [s.side for s in spots]
        side = float(np.median(sides))
        tiny = several and scale <= CLOSEST and min(sides) * scale < FAR_TINY * FINDER_DIE_PX
        if side * scale >= TOO_SMALL * FINDER_DIE_PX and not tiny:
            break
        die_px = max(side * SMALL_BOX_RUNS_LARGE, FINDER_DIE_PX)
        if FINDER_DIE_PX / die_px <= scale:
            break  # its dice are of the usual size after all, the tiny mark a pip or a crumb: no closer look to take
        scale = FINDER_DIE_PX / die_px
        spots = (_find_at(image, min_score, die_px) if tiny else _find_near(image, spots, min_score, die_px)) or spots
    return spots


def with_large_dice(image: np.ndarray, spots: list[Spot], min_score: float = MIN_PEAK) -> list[Spot]:
    """``spots``, the finder's marks found without a die size (:func:`find`), with dice too large for its first
    look in place of the marks it made of their parts.

    Dice over about twice FINDER_DIE_PX in the first look (a camera low over a small tray) exceed what the finder's
    layers see at once: it marks their pips or a corner as dice, a roll of two read as six (bench/large_dice_bench.py).
    So it looks again farther (FARTHER), where such a die is of the size it knows. A mark there that is at least LARGE
    in the first look, that the reader network takes for a die and surer than every first-look mark within its box
    (its pips, the drawing on it, a corner, the die itself seen less surely) replaces them. Only where the first look
    marked something: the farther look adds no die where the first saw none (a card or a coaster in the tray would
    be one; large picture dice with no mark in them, 2 of 44 in the bench, stay unseen as before). Dice of the usual
    size are marked by the first look alone, as before. Costs a finder run on a quarter of the pixels, and a reader's
    look at each large mark."""
    if not spots:
        return spots
    first = first_look_scale(image.shape)
    large = [s for s in _find_at(image, min_score, FINDER_DIE_PX / (first * FARTHER))
             if s.side * first >= LARGE * FINDER_DIE_PX]
    surer = [mark for mark in large if _surer_than_its_parts(mark, spots)]
    dice = [mark for mark, p in zip(surer, read(image, surer)) if kind_of_mark(p) != NOT_A_DIE]
    if not dice:
        return spots
    rest = [s for s in spots if not any(_within(s.center, die.box) for die in dice)]
    return sorted(dice + rest, key=lambda s: -s.score)


def _surer_than_its_parts(mark: Spot, spots: list[Spot]) -> bool:
    """Whether some of ``spots`` lie within ``mark``'s box, each less sure than it."""
    parts = [s.score for s in spots if _within(s.center, mark.box)]
    return bool(parts) and max(parts) < mark.score


def _within(point: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h


def _find_near(image: np.ndarray, spots: list[Spot], min_score: float, die_px: float) -> list[Spot]:
    """The finder's closer look, only where its farther look saw dice: a window reaching NEAR_REACH of
    its pixels around each die (as far as a die's mark depends on), overlapping windows looked at as one;
    the whole picture once the windows cover most of it. A closer look costs the square of its scale,
    so a few dice in a large tray cost a few small windows instead."""
    h, w = image.shape[:2]
    cell = 2 * FINDER_STRIDE * die_px / FINDER_DIE_PX  # the finder's coarsest cell, in picture pixels
    reach = NEAR_REACH * die_px / FINDER_DIE_PX
    # The windows are marked in whole cells of the picture: each then starts where a cell of the whole
    # picture does, so the finder sees a die in it as it would in the whole picture (and the mask is small).
    near = np.zeros((int(np.ceil(h / cell)), int(np.ceil(w / cell))), np.uint8)
    for spot in spots:
        x, y = spot.center
        near[max(0, int((y - reach) // cell)):int((y + reach) // cell) + 1,
             max(0, int((x - reach) // cell)):int((x + reach) // cell) + 1] = 1
    _, _, stats, _ = cv2.connectedComponentsWithStats(near, connectivity=4)
    windows = [(int(left * cell), int(top * cell), min(w, int(np.ceil((left + width) * cell))),
                min(h, int(np.ceil((top + height) * cell)))) for left, top, width, height in stats[1:, :4]]
    if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in windows) > WHOLE_PICTURE * w * h:
        return _find_at(image, min_score, die_px)
    found = []
    for x0, y0, x1, y1 in windows:
        for s in _find_at(image[y0:y1, x0:x1], min_score, die_px):
            bx, by, bw, bh = s.box
            found.append(Spot((s.center[0] + x0, s.center[1] + y0), (bx + x0, by + y0, bw, bh), s.score))
    return sorted(found, key=lambda s: -s.score)


def _find_at(image: np.ndarray, min_score: float, die_px: float | None) -> list[Spot]:
    small, scale = finder_input(image, die_px=die_px)
    blob, _ = finder_input(small, resized=True)
    out = _run("finder", blob[None])[0]
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    peaks = (heat >= min_score) & (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    h, w = image.shape[:2]
    spots = []
    for gy, gx in zip(*np.nonzero(peaks)):
        bw, bh = 16.0 * np.exp(out[1:3, gy, gx]) / scale
        cx = (gx + out[3, gy, gx]) * FINDER_STRIDE / scale
        cy = (gy + out[4, gy, gx]) * FINDER_STRIDE / scale
        x0, y0 = round(cx - bw / 2), round(cy - bh / 2)
        box = (max(0, x0), max(0, y0), round(min(w, x0 + bw) - max(0, x0)), round(min(h, y0 + bh) - max(0, y0)))
        spots.append(Spot((float(cx), float(cy)), box, float(heat[gy, gx])))
    return sorted(spots, key=lambda s: -s.score)


def kind_of_mark(probabilities: np.ndarray, *, dice_together: bool = False) -> int:
    """The reader's class for a finder's mark (:func:`read`'s row): NOT_A_DIE, or the likeliest kind of die.

    By default the mark is a die when one kind of die is likelier than not-a-die. ``dice_together``: when all kinds
    of die together are, and then its likeliest kind. A picture die far off the camera's axis, a side face in view
    as large as half its top, looks like no die the reader was taught on: it spreads its probability over the
    flat picture, not lying flat and pip faces, each less than not-a-die (bench/tray_place_bench.py)."""
    if not dice_together:
        return int(np.argmax(probabilities))
    if probabilities[NOT_A_DIE] >= 0.5:
        return NOT_A_DIE
    dice = np.array(probabilities, np.float64)
    dice[NOT_A_DIE] = -1.0
    return int(np.argmax(dice))


def read(image: np.ndarray, spots: list[Spot], turns: tuple[int, ...] = (0,)) -> np.ndarray:
    """For each spot, the reader's probabilities (len(spots) x READER_CLASSES), averaged over the
    die's quarter ``turns`` (each a view of the cut-out turned k quarter turns).

    A die face looks the same every way round, so reading it turned and averaging outvotes the
    reader's slips in one view. More work per die, so kept for dice it is unsure of at first
    (:data:`vision.dice.pips.SECOND_LOOK`; mirror images as well gained nothing on the train
    split's calibration photos).
    """
    if not spots:
        return np.zeros((0, READER_CLASSES), np.float32)
    crops = [crop_die(image, s.center, s.side * CROP_GROW) for s in spots]
    if turns != (0,):
        crops = [np.ascontiguousarray(np.rot90(c, k)) for k in turns for c in crops]
    logits = _run("reader", reader_input(crops))
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return p.reshape(len(turns), len(spots), -1).mean(axis=0)

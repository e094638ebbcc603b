"""Reading dice: pips, taught picture faces and ArUco stickers, on synthetic trays.

Pip dice are also read on photo-like renders (close camera, touching dice, white dice on
white paper, translucent and black dice); none of these seeds is among the training renders.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice import ArucoReader, FaceTemplates, PipReader, TaughtReader, make_reader
from vision.dice.faces import DESCRIPTOR, KEEP, MAX_DISTANCE, PAD, UNCLEAR, at_a_slant
from vision.dice.types import box_iou as iou
from vision.dice.zone import placement
from vision.dice import net
from vision.dice.net import MODELS, READER_PX, crop_die
from vision.synth.dice import (FANDOOBLE_FACES, PHOTO_BODIES, PHOTO_INKS, PhotoStyle, render_face_photo, render_photo,
                               render_tray)
from vision.synth.effects import relit


PHOTO_SCENES = 30
PHOTO_FLOOR = 0.88  # measured: 179 of 197 (90.9%), 5 false dice; renders-only networks read 98% (the networks now
# also learned real photos; a die under pips.UNSURE certainty is unreadable, and one the reader thinks may lean
# (pips.LEANING) is reported not lying flat: 7 of these 197, read right without that check)




def matched(scene, reading):
    """(truth face, read die) for every rendered die, None where nothing was reported."""
    out = []
    for truth in scene.dice:
        hits = [d for d in reading.dice if iou(d.box, truth.box) >= 0.4]
        out.append((truth.face, hits[0] if hits else None))
    return out


def test_pip_dice_on_every_table_read_right():
    right = total = wrong = guessed = 0
    for seed in range(40):
        scene = render_tray(np.random.default_rng(900 + seed), kind="pips")
        sure, every = PipReader().read(scene.image), PipReader(min_confidence=0.0, leaning=1.0).read(scene.image)
        for (face, die), (_, best_guess) in zip(matched(scene, sure), matched(scene, every)):
            total += 1
            right += die is not None and die.face == face
            wrong += die is not None and die.face not in (face, None)
            guessed += best_guess is not None and best_guess.face == face
    # The networks read the renders (the target for synthetic renders, 99.5%: measured 200 of 200).
    assert guessed / total >= 0.995, f"{guessed}/{total}"
    # The certainty threshold, chosen on real photos so that at most 0.5% of them are read wrong, and the check
    # for leaning dice leave a few renders unreadable (measured 195 of 200 read, 5 called not lying flat), never wrong.
    assert right / total >= 0.96 and wrong == 0, f"{right}/{total}, {wrong} wrong"


@pytest.mark.parametrize("face", "123456")
def test_each_pip_face_is_counted(face):
    scene = render_tray(np.random.default_rng(int(face)), kind="pips", faces=[face] * 3, table="felt")
    reading = PipReader().read(scene.image)
    assert reading.faces == [face] * 3
    assert all(d.confidence > 0.5 for d in reading.dice)


def test_a_die_the_reader_is_unsure_of_is_read_after_a_look_the_other_way_up():
    # This tray holds two dice the reader is unsure of at a glance: both are read right after the second look.
    scene = render_tray(np.random.default_rng(42), kind="pips")
    truth = [d.face for d in scene.dice]
    at_a_glance = [d and d.face for _, d in matched(scene, PipReader(second_look=()).read(scene.image))]
    looked_again = [d and d.face for _, d in matched(scene, PipReader().read(scene.image))]
    assert sum(face is None for face in at_a_glance) == 2
    read_again = [i for i, (glance, again) in enumerate(zip(at_a_glance, looked_again)) if glance is None and again]
    assert len(read_again) == 2 and all(looked_again[i] == truth[i] for i in read_again)
    for read in (at_a_glance, looked_again):
        assert [f for f, t in zip(read, truth) if f is not None and f != t] == []
    # The dice it was unsure of at a glance carry the face they looked most like, for a person to confirm.
    glance = [d for _, d in matched(scene, PipReader(second_look=()).read(scene.image))]
    unsure = [(t, d) for t, d in zip(truth, glance) if d is not None and d.face is None]
    assert len(unsure) == 2 and all(d.reason == "pips unclear" for _, d in unsure)
    assert [d.guess for _, d in unsure] == [face for face, _ in unsure]


@pytest.mark.parametrize("enlarge", [1, 4])
def test_a_big_die_is_cut_out_as_a_blur_of_the_whole_picture_would_be(enlarge):
    # Big dice are halved by pyramid steps before the rest of the blur: the reader must see the same pixels.
    scene = render_photo(np.random.default_rng(50_000))
    image = cv2.resize(scene.image, None, fx=enlarge, fy=enlarge, interpolation=cv2.INTER_CUBIC)
    for die in scene.dice[:6]:
        center = (die.center[0] * enlarge, die.center[1] * enlarge)
        side = 1.5 * max(die.box[2], die.box[3]) * enlarge
        k = READER_PX / side
        blurred = cv2.GaussianBlur(image, (0, 0), 0.4 / k)
        matrix = np.float32([[k, 0, READER_PX / 2 - k * center[0]], [0, k, READER_PX / 2 - k * center[1]]])
        expected = cv2.warpAffine(blurred, matrix, (READER_PX, READER_PX), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE).astype(int)
        difference = np.abs(crop_die(image, center, side).astype(int) - expected)
        assert difference.mean() < 1.0 and np.percentile(difference, 99) <= 6  # measured: 0.74 and 5 at most


def test_a_cut_out_beside_the_picture_repeats_its_edge():
    image = np.zeros((120, 160, 3), np.uint8)
    image[:, -1] = (0, 0, 255)  # the right-hand edge is red
    for side in (30, 200, 600):  # drawn as it is, blurred, halved first
        crop = crop_die(image, (160 + 2 * side, 60), side)
        assert crop.shape == (READER_PX, READER_PX, 3) and np.all(crop[..., 2] > 200)


def test_cocked_die_is_unreadable_not_guessed():
    flagged = 0
    for seed in range(10):
        scene = render_tray(np.random.default_rng(seed), kind="pips", faces=["2", "5"], cocked=1)
        pairs = matched(scene, PipReader().read(scene.image))
        assert [d.face for _, d in pairs[:2] if d is not None] == ["2", "5"]
        cocked = pairs[2][1]
        assert cocked is None or cocked.face is None or cocked.confidence < 0.5
        flagged += cocked is not None and cocked.face is None
    assert flagged >= 8


def test_die_across_the_tray_edge_is_unreadable_and_outside_is_ignored():
    for seed in range(50):
        scene = render_tray(np.random.default_rng(seed), kind="pips", faces=["1", "4", "6"], table="grey")
        a, b, c = sorted(scene.dice, key=lambda d: d.box[0])
        # A zone that holds die a whole, cuts through die b and leaves die c out.
        cut = b.box[0] + b.box[2] // 2
        if a.box[0] + a.box[2] < b.box[0] and c.box[0] > cut + 5:
            break
    zone = np.array([[a.box[0] - 5, 0], [cut, 0], [cut, 480], [a.box[0] - 5, 480]], np.float32)
    reading = PipReader().read(scene.image, zone)
    found = {t.face: d for t, (_, d) in zip(scene.dice, matched(scene, reading))}
    assert found[a.face].face == a.face
    assert found[b.face].face is None and found[b.face].reason == "partly out of the tray"
    assert found[c.face] is None
    assert placement((0, 0, 10, 10), None) == "inside"


def photo_score(scenes):
    """(dice, read right, false dice) over photo-like scenes; dice cut by the picture's edge do not count."""
    dice = right = false = 0
    for scene in scenes:
        reading = PipReader().read(scene.image)
        kept = [t for t in scene.dice if t.face and not t.partial]
        aside = [t.box for t in scene.dice if not t.face or t.partial]
        used = set()
        for truth in kept:
            hits = [i for i, d in enumerate(reading.dice) if i not in used and iou(d.box, truth.box) >= 0.4]
            if hits:
                used.add(hits[0])
                right += reading.dice[hits[0]].face == truth.face
        false += sum(1 for i, d in enumerate(reading.dice) if i not in used and d.readable
                     and not any(iou(d.box, b) >= 0.4 for b in aside))
        dice += len(kept)
    return dice, right, false


def test_photo_like_trays_read_right():
    dice, right, false = photo_score(render_photo(np.random.default_rng(5000 + s)) for s in range(PHOTO_SCENES))
    assert right / dice >= PHOTO_FLOOR, f"{right}/{dice}"
    assert false <= 0.05 * dice  # measured: 5 of 197 (renders-only networks: under 1%)


@pytest.mark.parametrize("body, ink, table", [
    ("white", "black", "white paper"), ("ivory", "black", "light grey"), ("black", "white", "light grey"),
    ("black", "red", "wood"),
    ("red", "white", "off-white"),
])
def test_hard_looks_are_read(body, ink, table):
    style = PhotoStyle(body=PHOTO_BODIES[body], ink=PHOTO_INKS[ink], pip_ratio=0.18, spacing=0.27,
                       corner=0.15)
    scenes = [render_photo(np.random.default_rng(6000 + s), table=table, style=style, count=8, cocked=0,
                           die_px=(30, 60)) for s in range(4)]
    dice, right, false = photo_score(scenes)
    # Measured: 26/28 (0 false), 28/28 (0), 17/28 (0), 28/30 (0), 24/28 (1); the rest unreadable, not wrong (the
    # networks before, at a lower certainty threshold: 26, 26, 19, 29, 26).
    assert right / dice >= 0.6 and false <= 3, f"{right}/{dice}, {false} false"


def test_translucent_dice_and_symbols_on_the_one_face():
    style = PhotoStyle(body=PHOTO_BODIES["blue"], ink=PHOTO_INKS["white"], pip_ratio=0.18, spacing=0.27, corner=0.15,
                       opacity=0.55, one_face="symbol", one_ink=PHOTO_INKS["red"])
    faces = ["1", "1", "2", "3", "4", "5", "6", "1"]
    scenes = [render_photo(np.random.default_rng(6100 + s), style=style, faces=faces, cocked=0, die_px=(30, 60))
              for s in range(4)]
    dice, right, false = photo_score(scenes)
    assert right / dice >= 0.9 and false <= 1, f"{right}/{dice}, {false} false"


def test_the_networks_are_small_files_opencv_reads():
    sizes = {p.name: p.stat().st_size for p in MODELS.glob("*.onnx")}
    assert set(sizes) == {"finder.onnx", "reader.onnx"}
    assert all(size < 1_000_000 for size in sizes.values())


def test_onnx_runtime_runs_the_networks_where_it_is_built():
    """setup.sh installs it wherever it has a build: without it the camera reads a crowded tray half as fast again."""
    if platform.machine() in ("armv6l", "armv7l"):
        pytest.skip("ONNX Runtime has no build for 32-bit ARM: OpenCV runs the networks there")
    assert net.RUNTIME == "onnxruntime"


@pytest.fixture
def opencv_runtime():
    shipped = net.RUNTIME
    net.use_runtime("opencv")
    yield
    net.use_runtime(shipped)


@pytest.mark.parametrize("photo", [False, True], ids=["plain", "photo-like"])
def test_both_runtimes_mark_and_read_the_same_dice(photo):
    if len(net.INSTALLED) < 2:
        pytest.skip("ONNX Runtime is not installed here: nothing to compare OpenCV with")
    rng = np.random.default_rng(77)
    scenes = [render_photo(rng) if photo else render_tray(rng, kind="pips", size=(640, 480)) for _ in range(4)]
    seen = {}
    for runtime in net.INSTALLED:
        shipped = net.RUNTIME
        net.use_runtime(runtime)
        try:
            spots = [net.find(s.image) for s in scenes]
            seen[runtime] = (spots, [net.read(s.image, found) for s, found in zip(scenes, spots)],
                             [PipReader().read(s.image).faces for s in scenes])
        finally:
            net.use_runtime(shipped)
    (spots, probabilities, faces), (other_spots, other_probabilities, other_faces) = seen.values()
    assert sum(map(len, spots)) >= 4
    for mine, theirs in zip(spots, other_spots):
        assert [s.box for s in mine] == [s.box for s in theirs]
        assert np.allclose([s.score for s in mine], [s.score for s in theirs], atol=1e-4)
    # Sums in another order: the marks' centres move by millionths of a pixel, so the cut-outs differ by a
    # grey level here and there and the reader's probabilities by about a thousandth at most (measured 0.0005).
    for mine, theirs in zip(probabilities, other_probabilities):
        assert np.allclose(mine, theirs, atol=3e-3)
    assert faces == other_faces


def test_without_onnx_runtime_opencv_reads_the_dice():
    """A machine ONNX Runtime has no build for (32-bit Raspberry Pi OS) reads the same dice through OpenCV."""
    program = textwrap.dedent("""
        import sys
        sys.modules["onnxruntime"] = None  # as if it were not installed: importing it fails
        import numpy as np
        from vision.dice import PipReader, net
        from vision.synth.dice import render_tray
        scene = render_tray(np.random.default_rng(5), kind="pips", faces=list("135246"), table="felt")
        print(net.RUNTIME, "".join(sorted(PipReader().read(scene.image).faces)))
        try:
            net.use_runtime("onnxruntime")
        except ValueError as refusal:
            print(refusal)
    """)
    done = subprocess.run([sys.executable, "-c", program], cwd=Path(__file__).resolve().parent.parent,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    runtime_and_faces, refusal = done.stdout.strip().splitlines()
    assert runtime_and_faces == "opencv 123456"
    assert refusal == "ONNX Runtime is not installed here: pip install onnxruntime, or use opencv"


def test_an_unknown_runtime_is_refused_by_name():
    with pytest.raises(ValueError, match="no dice network runtime 'tensorflow': choose one of onnxruntime, opencv"):
        net.use_runtime("tensorflow")


@pytest.fixture(scope="module")
def templates():
    taught = FaceTemplates()
    rng = np.random.default_rng(7)
    for face in FANDOOBLE_FACES:
        die = "dragon" if face in "CGR" else "special"
        taught.learn(die, face, render_face_photo(rng, face), new_face=True)
        taught.learn(die, face, render_face_photo(rng, face), new_face=False)
    return taught


def test_taught_faces_are_recognised_on_every_table(templates):
    right = total = 0
    for seed in range(30):
        scene = render_tray(np.random.default_rng(700 + seed), kind="fandooble")
        for face, die in matched(scene, TaughtReader(templates).read(scene.image)):
            total += 1
            right += die is not None and die.face == face
    assert right / total >= 0.97, f"{right}/{total}"


@pytest.mark.parametrize("light", ["dimmer", "brighter", "warm lamp"])
def test_taught_faces_are_read_at_any_turn_under_an_evenings_light(templates, light):
    """The tray turned through a whole circle, under other light than the faces were taught in."""
    gain = {"dimmer": (0.65, 0.65, 0.65), "brighter": (1.25, 1.25, 1.25), "warm lamp": (0.8, 0.95, 1.15)}[light]
    scene = render_tray(np.random.default_rng(41), kind="fandooble", faces=list(FANDOOBLE_FACES), table="felt")
    lit = relit(scene.image, gain)
    h, w = lit.shape[:2]
    pad = int(np.hypot(w, h) - min(w, h)) // 2 + 1  # no die leaves the picture as it turns
    padded = cv2.copyMakeBorder(lit, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    centre = (padded.shape[1] / 2, padded.shape[0] / 2)
    for turn in (0, 17, 45, 90, 133, 200, 271, 318):
        turned = cv2.warpAffine(padded, cv2.getRotationMatrix2D(centre, turn, 1.0), padded.shape[1::-1],
                                borderMode=cv2.BORDER_REPLICATE)
        reading = TaughtReader(templates).read(turned)
        assert sorted(reading.faces) == sorted(FANDOOBLE_FACES), f"turned {turn} degrees: {reading.dice}"


@pytest.mark.parametrize("veil", [0.3, 0.5])
def test_taught_faces_are_read_through_glare_that_pales_their_drawing(templates, veil):
    """A lamp's glare on the tray or a hazy camera cover lays a light veil over the picture: each face's
    drawing is paler than when it was taught. (Compared at their own strength, as before, 59 of these 67
    dice were read right under a veil of 0.3, and 41 under 0.5, 8 of them with a wrong face.)"""
    right = total = 0
    for seed in range(10):
        scene = render_tray(np.random.default_rng(800 + seed), kind="fandooble", table="felt")
        veiled = (scene.image.astype(np.float32) * (1 - veil) + 255 * veil).astype(np.uint8)
        for face, die in matched(scene, TaughtReader(templates).read(veiled)):
            total += 1
            right += die is not None and die.face == face
    assert right == total, f"{right}/{total}"


def test_taught_dice_know_their_face_counts_and_which_die(templates):
    assert templates.face_counts("dragon") == {"C": 1, "G": 1, "R": 1}
    scene = render_tray(np.random.default_rng(2), kind="fandooble", faces=["R", "K"], table="felt")
    reading = TaughtReader(templates).read(scene.image)
    assert sorted((d.face, d.die) for d in reading.dice) == [("K", "special"), ("R", "dragon")]


def test_green_and_red_dragons_are_told_apart_by_colour(templates):
    for seed in range(5):
        scene = render_tray(np.random.default_rng(seed), kind="fandooble", faces=["G", "R", "G", "R"])
        assert [d.face for _, d in matched(scene, TaughtReader(templates).read(scene.image))] == ["G", "R", "G", "R"]


def test_a_face_that_only_one_odd_look_points_to_is_not_taken():
    # Two looks taught of each face. The die read is nearest to one look of C (say one taken under a
    # highlight), but both looks of G are nearer on average than both of C: one odd look must not decide.
    rng = np.random.default_rng(5)
    shape = (DESCRIPTOR + 2 * PAD, DESCRIPTOR + 2 * PAD, 3)

    def look(like, spread):
        return (like + rng.normal(0, spread, shape)).astype(np.float32)

    def taught(second_look_of_c):
        templates = FaceTemplates()
        templates.add("dragon", "C", look(die, 1))
        templates.add("dragon", "C", second_look_of_c, new_face=False)
        templates.add("dragon", "G", look(die, 3))
        templates.add("dragon", "G", look(die, 3), new_face=False)
        return templates

    die = look(0, 20)
    [(_, face, nearest, other, outvoted)] = taught(look(0, 20)).match([die])  # C's second look: unlike the die
    assert face == "C" and nearest < other and outvoted
    [(_, face, _, _, outvoted)] = taught(look(die, 1)).match([die])  # like it: C wins on average too
    assert face == "C" and not outvoted


def test_a_taught_face_the_reader_is_unsure_of_is_only_a_guess_and_an_outvoted_one_not_even_that():
    reader = TaughtReader(FaceTemplates())
    assert reader._verdict("dragon", "C", 10.0, 30.0, False) == ("C", 1.0, "", "dragon", None)
    face, confidence, reason, die, guess = reader._verdict("dragon", "C", 10.0, 11.0, False)  # a narrow margin
    assert (face, reason, die, guess) == (None, "face unclear", "dragon", "C") and confidence < UNCLEAR
    assert reader._verdict("dragon", "C", 10.0, 30.0, True) == (None, 0.0, "face unclear", "dragon", None)
    assert reader._verdict("dragon", "C", MAX_DISTANCE + 1, 90.0, False)[2:] == ("not a taught face", None, None)


def _read_at_a_slant(templates: FaceTemplates) -> tuple[int, int]:
    """(right, wrong) of 120 dice: 20 felt trays of every Fandooble face, each seen as if tilted away from
    the camera (one side 45% shorter: dice near the edge of a wide view)."""
    right = wrong = 0
    for seed in range(20):
        scene = render_tray(np.random.default_rng(900 + seed), kind="fandooble", faces=list(FANDOOBLE_FACES),
                            table="felt")
        read = [d.face for d in TaughtReader(templates).read(at_a_slant(scene.image, seed % 4, 0.45)).dice
                if d.readable]
        found = sum(face in read for face in FANDOOBLE_FACES)
        right, wrong = right + found, wrong + len(read) - found
    return right, wrong


def test_each_taught_picture_also_teaches_its_face_as_seen_at_a_slant():
    taught = {}
    for slanted in (True, False):
        taught[slanted] = FaceTemplates(slanted=slanted)
        rng = np.random.default_rng(7)
        for face in FANDOOBLE_FACES:  # one picture a face, taken square
            taught[slanted].learn("dragon" if face in "CGR" else "special", face, render_face_photo(rng, face))
    assert taught[True].pictures == taught[False].pictures == {"dragon": 3, "special": 3}
    assert len(taught[False].samples) == 6 and 24 <= len(taught[True].samples) <= 30  # a slant may lose the die
    right, wrong = _read_at_a_slant(taught[True])
    right_before, wrong_before = _read_at_a_slant(taught[False])
    assert right >= 118 and wrong <= 1, (right, wrong)  # measured 119, 1
    assert right > right_before and wrong <= wrong_before, (right_before, wrong_before)  # measured 115, 1


def test_faces_with_many_samples_are_ranked_at_half_size_and_read_as_when_every_sample_is_compared():
    taught = FaceTemplates()
    rng = np.random.default_rng(11)
    for face in FANDOOBLE_FACES:  # three pictures a face, five samples each: 15 a face, more than KEEP
        for look in range(3):
            taught.learn("dragon" if face in "CGR" else "special", face, render_face_photo(rng, face),
                         new_face=look == 0)
    assert min(Counter(face for _, face, _ in taught.samples).values()) > KEEP
    descriptors = []

    class Seen(FaceTemplates):  # keeps what the reader matched: the dice of ten wooden trays
        def match(self, seen, keep=KEEP):
            descriptors.extend(seen)
            return super().match(seen, keep)

    for seed in range(10):
        scene = render_tray(np.random.default_rng(950 + seed), kind="fandooble", table="wood")
        TaughtReader(Seen(taught.samples, taught.dice)).read(scene.image)
    assert len(descriptors) >= 40
    ranked, in_full = taught.match(descriptors), taught.match(descriptors, keep=len(taught.samples))
    assert [m[1] for m in ranked] == [m[1] for m in in_full]  # the same nearest face for every die
    assert [m[4] for m in ranked] == [m[4] for m in in_full]  # outvoted alike
    assert np.allclose([m[2] for m in ranked], [m[2] for m in in_full], atol=1.5)  # distances: a few 0.1


# A few samples a face compared in full; many (five a picture, slanted) ranked at half size first
@pytest.mark.parametrize("slanted, pictures", [(False, 2), (True, 4)])
def test_a_picture_matched_with_its_own_samples_hidden_is_matched_as_by_the_others_alone(slanted, pictures):
    # A picture taught is read by the die's other pictures (companion.teach.read_by_the_others): its own samples
    # hidden from its match, the rest matched as a set taught without them would be.
    rng = np.random.default_rng(13)
    lessons = []
    for face in "CGR":
        for _ in range(pictures):
            lesson = FaceTemplates(slanted=slanted)
            lesson.learn("dragon", face, render_face_photo(rng, face))
            lessons.append(lesson)
    taught = FaceTemplates()
    for lesson in lessons:
        taught.absorb(lesson)
    spans, start = [], 0
    for lesson in lessons:
        spans.append(slice(start, start + len(lesson.samples)))
        start += len(lesson.samples)
    hidden = np.zeros((len(lessons), len(taught.samples)), bool)
    for row, span in enumerate(spans):
        hidden[row, span] = True
    matched = taught.match([lesson.samples[0][2] for lesson in lessons], hidden=hidden)
    for lesson, got in zip(lessons, matched):
        others = FaceTemplates()
        for other in lessons:
            if other is not lesson:
                others.absorb(other)
        expected = others.match([lesson.samples[0][2]])[0]
        assert got[:2] == expected[:2] and got[4] == expected[4]
        assert np.allclose(got[2:4], expected[2:4], atol=1e-3)
        assert got[2] > 0.5  # not its own sample (distance 0)
    # A face whose every sample is hidden has no vote: the picture is read among the others' faces.
    alone = taught.match([lessons[0].samples[0][2]], hidden=[[face == "C" for _, face, _ in taught.samples]])[0]
    assert alone[1] != "C" and np.isfinite(alone[2]) and not alone[4]


def _warm_trays(reader) -> tuple[int, int, int]:
    """(right, wrong, unreadable) of 180 dice: 30 trays of every Fandooble face under a warm lamp. Every die read is
    read at least UNCLEAR sure (a referee asks a person about dice less sure than its own threshold)."""
    right = wrong = unreadable = 0
    for seed in range(30):
        scene = render_tray(np.random.default_rng(900 + seed), kind="fandooble", faces=list(FANDOOBLE_FACES),
                            table=("felt", "wood", "grey")[seed % 3])
        dice = reader.read(relit(scene.image, (0.5, 0.8, 1.3))).dice
        assert all(d.confidence >= UNCLEAR for d in dice if d.readable)
        read = [d.face for d in dice if d.readable]
        found = sum(face in read for face in FANDOOBLE_FACES)
        right, wrong, unreadable = right + found, wrong + len(read) - found, unreadable + len(dice) - len(read)
    return right, wrong, unreadable


def test_a_face_unclear_under_a_warm_lamp_is_read_where_the_shape_of_its_drawing_agrees():
    # A warm lamp moves the colours the faces are told apart by: two dice read with too narrow a margin, whose
    # drawings' shapes are surely those of the faces they look most like (vision/dice/shapes.py).
    taught = FaceTemplates()
    rng = np.random.default_rng(7)
    for face in FANDOOBLE_FACES:
        for look in range(3):
            taught.learn("dragon" if face in "CGR" else "special", face, render_face_photo(rng, face),
                         new_face=look == 0)
    assert taught.without_shapes() == [] and len(taught.shapes) == len(taught.samples)
    ours, before = _warm_trays(TaughtReader(taught)), _warm_trays(TaughtReader(taught, by_shape=False))
    # Measured: 179 right, none wrong or unclear (one die of 180 not found); 176 right and 3 unclear without the shapes.
    assert ours[0] >= 179 and ours[1:] == (0, 0), ours
    assert before[0] < ours[0] and before[1] == 0, before


def test_dice_drawn_alike_in_two_colours_read_no_wrong_face_by_their_shape(templates):
    # The green and the red dragon share a drawing, which their shapes cannot tell apart (a lamp's colour makes the
    # one's drawing the other's grey now and then): under six lights, the shape reads no die of them as the other.
    # (Measured: 59 of 60 dice found, 58 right, 1 unclear, none wrong, with the shapes' second opinion and without.)
    lights = ((1, 1, 1), (0.5, 0.8, 1.3), (0.3, 0.45, 0.6), (1.2, 1.0, 0.7), (0.6, 0.6, 0.6), (0.45, 0.7, 1.4))
    rng = np.random.default_rng(21)
    photos = [(face, relit(render_face_photo(rng, face, table=("grey", "wood", "felt", "white")[i % 4]),
                           lights[i // 10]))
              for i, face in enumerate("GR" * 30)]
    for by_shape in (True, False):
        reader = TaughtReader(templates, by_shape=by_shape)
        dice = [(face, reader.read(photo).dice) for face, photo in photos]
        faces = [(face, found[0].face) for face, found in dice if found]
        assert len(faces) >= 58 and not any(read not in (face, None) for face, read in faces), by_shape
        assert sum(read == face for face, read in faces) >= 55, by_shape


def test_teaching_needs_exactly_one_die():
    taught = FaceTemplates()
    two = render_tray(np.random.default_rng(1), kind="fandooble", faces=["C", "G"]).image
    with pytest.raises(ValueError, match="show exactly one die"):
        taught.learn("dragon", "C", two)


def test_aruco_stickers_read_through_the_face_table():
    ids = {"C": 0, "G": 1, "R": 2, "F": 3}
    scene = render_tray(np.random.default_rng(5), kind="aruco", faces=["C", "G", "R", "F"], aruco_ids=ids,
                        die_px=(56, 60), blur_sigma=0.4)
    reading = ArucoReader({v: k for k, v in ids.items()}).read(scene.image)
    assert sorted(reading.faces) == ["C", "F", "G", "R"]
    unknown = ArucoReader({0: "C"}).read(scene.image)
    assert sorted(d.reason for d in unknown.unreadable) == [f"marker {i} is not in the face table" for i in (1, 2, 3)]


def test_a_die_whose_sticker_is_not_read_is_reported_not_left_out():
    # A focus slip: most markers cannot be decoded, but every die is found and reported, so the referee
    # asks about the die it cannot read instead of counting one die fewer.
    ids = {"C": 0, "G": 1, "R": 2, "F": 3, "K": 4, "W": 5}
    faces = {v: k for k, v in ids.items()}
    missed = 0
    for seed in range(6):
        scene = render_tray(np.random.default_rng(40 + seed), kind="aruco", aruco_ids=ids, blur_sigma=1.8)
        reading = ArucoReader(faces).read(scene.image)
        alone = ArucoReader(faces, finder=False).read(scene.image)
        assert len(reading.dice) == len(scene.dice)
        # (a die this blurred may also be taken for a leaning one: unreadable either way, never a face)
        assert {d.reason for d in reading.unreadable} <= {"sticker not read", "not lying flat (cocked or stacked)"}
        truth = {d.center: d.face for d in scene.dice}
        for die in reading.dice:
            if die.face is not None:  # a marker read is read right
                nearest = min(truth, key=lambda c: np.hypot(c[0] - die.center[0], c[1] - die.center[1]))
                assert truth[nearest] == die.face
        missed += len(scene.dice) - len(alone.dice)
        assert len(reading.unreadable) == len(scene.dice) - len(alone.dice)
    assert missed >= 5  # the markers alone left these dice out of their rolls


def test_a_leaning_die_is_reported_not_lying_flat_even_where_its_stickers_look_square():
    # A leaning die shows its top sticker foreshortened (often square enough to pass as flat) and a side
    # sticker. The finder sees the die lean: the roll is then a question ("straighten the die"), never a score.
    ids = {"C": 0, "G": 1, "R": 2, "F": 3, "K": 4, "W": 5}
    faces = {v: k for k, v in ids.items()}
    faces_alone = faces_ours = reported = 0
    flat = "not lying flat (cocked or stacked)"
    for seed in range(12):
        scene = render_tray(np.random.default_rng(60 + seed), kind="aruco", aruco_ids=ids, cocked=1, blur_sigma=0.5)
        leaning = next(d for d in scene.dice if d.cocked)

        def on_it(reading):
            return [d for d in reading.dice if iou(d.box, leaning.box) > 0.3 or (
                abs(d.center[0] - leaning.center[0]) < leaning.box[2] / 2
                and abs(d.center[1] - leaning.center[1]) < leaning.box[3] / 2)]

        alone = on_it(ArucoReader(faces, finder=False).read(scene.image))
        ours = on_it(ArucoReader(faces).read(scene.image))
        faces_alone += any(d.face is not None for d in alone)
        faces_ours += any(d.face is not None for d in ours)
        reported += any(d.reason == flat for d in ours)
    assert reported == 12
    assert faces_alone >= 9 and faces_ours <= 4  # a face read on a leaning die, beside the report or not


def test_make_reader_says_what_is_missing():
    with pytest.raises(ValueError, match="companion dice teach"):
        make_reader("taught", templates=FaceTemplates())
    with pytest.raises(ValueError, match="pips, taught, aruco"):
        make_reader("coins")
    assert make_reader("pips").kind == "pips"


def test_a_known_die_size_reads_a_bigger_picture():
    scene = render_tray(np.random.default_rng(31), kind="pips", faces=["2", "4", "6"], table="wood")
    big = cv2.resize(scene.image, (1920, 1440), interpolation=cv2.INTER_LINEAR)
    side = 3 * float(np.median([max(d.box[2], d.box[3]) for d in scene.dice]))
    reading = make_reader("pips", die_px=side).read(big)
    assert sorted(reading.faces) == ["2", "4", "6"]
    assert 0.7 * side < reading.die_px < 1.3 * side


def test_small_dice_are_looked_at_closely_where_they_lie(monkeypatch):
    from vision.dice import net

    # Three small dice in a 480 x 360 view: the finder's first look (at two thirds scale) sees them too small, and its
    # closer look sees only windows around them; for the dice it marked, it must find what the whole picture shows.
    scene = render_tray(np.random.default_rng(44), kind="pips", faces=["1", "5", "3"], table="felt",
                        size=(480, 360), die_px=(15, 17))
    looked = []
    real_find_at = net._find_at
    monkeypatch.setattr(net, "_find_at", lambda image, *a: looked.append(image.shape[:2]) or real_find_at(image, *a))
    windowed = PipReader(larger=False).read(scene.image)  # the closer look alone (not the farther one, for large dice)
    assert len(looked) > 1 and sum(h * w for h, w in looked[1:]) < 0.5 * 480 * 360  # windows, not the picture
    monkeypatch.setattr(net, "WHOLE_PICTURE", 0.0)  # the closer look at the whole picture
    whole = PipReader(larger=False).read(scene.image)
    assert len(windowed.dice) == len(whole.dice) == 3
    for a, b in zip(sorted(windowed.dice, key=lambda d: d.center), sorted(whole.dice, key=lambda d: d.center)):
        assert a.face == b.face and iou(a.box, b.box) > 0.8
    assert sorted(windowed.faces) == ["1", "3", "5"]


def test_tiny_dice_in_a_large_picture_are_looked_for_in_all_of_it(monkeypatch):
    from vision.dice import net

    # Six dice 9-10 px wide in the finder's first look at a 1280 x 960 view (a camera hung high, the whole view the
    # tray): it marks three. Dice that small it misses, so its closer look sees the whole picture, not only around
    # the three it saw.
    scene = render_tray(np.random.default_rng(57), kind="pips", size=(1280, 960), die_px=(36, 40))
    truth = [(d.face, d.box) for d in scene.dice]
    assert sorted(face for face, _ in truth) == ["1", "1", "2", "5", "6", "6"]
    reading = PipReader(larger=False).read(scene.image)
    assert len(reading.dice) == 6 and all(any(iou(d.box, box) > 0.5 for _, box in truth) for d in reading.dice)
    assert sorted(reading.faces) == ["1", "2", "5", "6", "6"]  # one left unread rather than guessed; none wrong
    monkeypatch.setattr(net, "FAR_TINY", 0.0)  # the closer look only around the dice the first look marked
    assert len(PipReader(larger=False).read(scene.image).dice) == 3

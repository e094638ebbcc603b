"""Teaching: a picture of a face taught already, where another face is asked for, refused; right pictures not.

    .venv/bin/python bench/wrong_face_bench.py [--renders 6]

Photos chosen out of order on a phone, the same photo chosen twice, the die set down with the wrong face up or another
die taught before: each taught its face as the face asked for, a wrong sample. The teacher now refuses a picture whose
die is within LOOKS_LIKE_ANOTHER (the taught reader's distance) of a face of another letter taught before
(:meth:`companion.teach.DiceTeacher._another_face`); before, every such picture was learned.

On the train split's taught real dice (``bench/data``'s identity files: single dice, and alike dice of one look),
each face of a die taught from three of its photos: every other photo shown where its own face is asked for (a right
picture: refused counts against us) and where another face of the die is asked for, its own face taught (a wrong
picture: caught), at LOOKS_LIKE_ANOTHER and around it. The worst case for a right picture: every other face taught
already. Then rendered Fandooble dice (both dice, three renders a face taught, others shown) the same way; and the
time the check adds to a picture (one match against what was taught).

Then the mark after the fact (:func:`companion.teach.read_by_the_others`): a picture whose face was not taught yet when
it came, or farther from it than LOOKS_LIKE_ANOTHER, is learned; once the die's other pictures are in, each picture is
read by the others alone, and one they read as another face at least READ_AS_ANOTHER sure is marked for a person to
look at (the Setup page's grid, the sheet of pictures learned). Right pictures marked (against us) and wrong ones
marked, each die taught as the taught rows of bench/dice_bench.py are (six choices of photos), at READ_AS_ANOTHER and
around it, side by side with what refusing within LOOKS_LIKE_ANOTHER of a face taught already catches of the same wrong
pictures; and the marks' time.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads it: one core, as the bench says

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_bench import FANDOOBLE_DICE, IDENTITIES, LOOKS, TEACHING_WAYS, _lesson, identity_photos  # noqa: E402
from companion.teach import DEFAULT_LOOKS, LOOKS_LIKE_ANOTHER, READ_AS_ANOTHER, read_by_the_others  # noqa: E402
from vision.dice import FaceTemplates  # noqa: E402
from vision.synth.dice import render_face_photo  # noqa: E402

AROUND = (4.0, 4.5, LOOKS_LIKE_ANOTHER, 5.5, 6.0)
SURE = (0.4, READ_AS_ANOTHER, 0.6)  # how sure the others are that a picture shows another face, to mark it


def lessons_of(photos: dict[tuple[str, str], list]) -> dict[tuple[str, str, int], FaceTemplates]:
    """Each picture taught alone: (die, face, its place among the face's pictures) -> its samples."""
    lessons = {}
    for (die, face), pictures in sorted(photos.items()):
        for k, (_, picture, _) in enumerate(pictures):
            lesson, _ = _lesson(die, face, picture, True)
            if lesson is not None:
                lessons[die, face, k] = lesson
    return lessons


def taught_from(lessons: dict, keys: list) -> FaceTemplates:
    templates = FaceTemplates()
    for key in keys:
        for die, face, descriptor in lessons[key].samples:
            templates.samples.append((die, face, descriptor))
    return templates


def judged(lessons: dict) -> tuple[int, int, dict[float, int], dict[float, int], list[float]]:
    """(right pictures, wrong pictures, right refused at each distance, wrong caught at each, ms per check)."""
    refused, caught, ms = dict.fromkeys(AROUND, 0), dict.fromkeys(AROUND, 0), []
    right = wrong = 0
    for key, lesson in lessons.items():
        die, face, _ = key
        sample = lesson.samples[0][2]  # the picture's own sample, as the teacher checks it
        own, others, everything = None, [], []
        for other in sorted({f for d, f, _ in lessons if d == die}):
            keys = [k for k in sorted(lessons) if k[:2] == (die, other) and k != key][:DEFAULT_LOOKS]
            if len(keys) < DEFAULT_LOOKS:
                continue
            everything += keys
            nearest = taught_from(lessons, keys).match([sample])[0][2]
            if other == face:
                own = nearest
            else:
                others.append(nearest)
        if everything:  # as the teacher checks it: one match against all the die's faces taught
            templates = taught_from(lessons, everything)
            start = time.perf_counter()
            templates.match([sample])
            ms.append((time.perf_counter() - start) * 1000)
        if others:
            right += 1
            for distance in AROUND:
                refused[distance] += min(others) <= distance
        if own is not None:
            wrong += 1
            for distance in AROUND:
                caught[distance] += own <= distance
    return right, wrong, refused, caught, ms


def taught_in_turn(lessons: dict, die: str, way: int) -> tuple[dict, dict]:
    """``die`` taught from DEFAULT_LOOKS pictures a face, the ``way``-th choice of them ({key: (lesson, face)}), and
    each face's pictures not taught (face -> keys)."""
    taught, spare = {}, {}
    for face in sorted({f for d, f, _ in lessons if d == die}):
        keys = [k for k in sorted(lessons) if k[:2] == (die, face)]
        keys = keys[way % len(keys):] + keys[:way % len(keys)]
        taught.update({key: (lessons[key], face) for key in keys[:DEFAULT_LOOKS]})
        spare[face] = keys[DEFAULT_LOOKS:]
    return taught, spare


def marked_afterwards(photos: dict[tuple[str, str], list], ways: int = TEACHING_WAYS) -> dict:
    """Each die taught, each face from DEFAULT_LOOKS of its photos (chosen ``ways`` ways, as the taught rows of
    bench/dice_bench.py), every picture read by the others (:func:`companion.teach.read_by_the_others`): right
    pictures marked (against us); then each face's first picture replaced by a photo of another face of the die,
    learned as that face (a wrong picture), marked or not (at each of SURE), and within LOOKS_LIKE_ANOTHER of the face
    it shows (refused when learned, where that face was taught already)."""
    counts = {"right": 0, "wrong": 0, "wrong near": 0}
    counts.update({(kind, sure): 0 for kind in ("right", "wrong") for sure in SURE})
    lessons = lessons_of(photos)
    for way in range(ways):
        for die in sorted({d for d, _ in photos}):
            taught, spare = taught_in_turn(lessons, die, way)
            counts["right"] += len(taught)
            for sure in SURE:
                counts["right", sure] += len(read_by_the_others(None, taught, sure))
            firsts = {face: key for key, (_, face) in reversed(list(taught.items()))}
            for face, key in sorted(firsts.items()):
                for other, keys in sorted(spare.items()):
                    if other == face or not keys:
                        continue
                    shown = lessons[keys[way % len(keys)]]
                    wrong = FaceTemplates(samples=[(d, face, sample) for d, _, sample in shown.samples])
                    counts["wrong"] += 1
                    for sure in SURE:
                        counts["wrong", sure] += key in read_by_the_others(None, {**taught, key: (wrong, face)}, sure)
                    its_face = taught_from(lessons, [k for k in taught if k[:2] == (die, other)])
                    counts["wrong near"] += its_face.match([shown.samples[0][2]])[0][2] <= LOOKS_LIKE_ANOTHER
    return counts


def time_marking(photos: dict[tuple[str, str], list]) -> list[float]:
    """Milliseconds to mark each die of ``photos`` taught from DEFAULT_LOOKS pictures a face (the fastest of 3)."""
    lessons = lessons_of(photos)
    times = []
    for die in sorted({d for d, _ in photos}):
        taught, _ = taught_in_turn(lessons, die, 0)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            read_by_the_others(None, taught)
            best = min(best, (time.perf_counter() - start) * 1000)
        times.append(best)
    return times


def rendered(renders: int) -> dict[tuple[str, str], list]:
    """Photos of Fandooble's two dice, ``renders`` of each face, as identity_photos gives them."""
    rng = np.random.default_rng(23)
    photos = {}
    for die, faces in FANDOOBLE_DICE.items():
        for face in sorted(set(faces)):
            for i in range(renders):
                picture = render_face_photo(rng, face, table=("grey", "wood", "felt", "white")[i % 4])
                photos.setdefault((die, face), []).append((f"{die}_{face}_{i}", picture, picture))
    return photos


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=6, help="rendered photos of each face of Fandooble's dice")
    parser.add_argument("--real", type=Path,
                        default=Path(__file__).resolve().parent.parent.parent / "shared/data/dice/nell-byler-d6")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    sets = [("rendered Fandooble dice", rendered(args.renders))]
    if args.real.is_dir():
        sets = [("real single dice (train split)", identity_photos(args.real, IDENTITIES)),
                ("real alike dice of one look (train split)", identity_photos(args.real, LOOKS))] + sets
    else:
        print(f"{args.real}: not found, the real dice are left out")
    print(f"every other face taught from {DEFAULT_LOOKS} pictures; refused: a right picture refused (against us); "
          "caught: a picture of a face taught already, shown where another is asked for, refused")
    print("| set | right pictures / wrong pictures | " + " | ".join(
        f"within {d:g}{' (ours)' if d == LOOKS_LIKE_ANOTHER else ''}: refused / caught" for d in AROUND)
          + " | before: refused / caught |")
    print("|---|---|" + "---|" * (len(AROUND) + 1))
    times = []
    for name, photos in sets:
        right, wrong, refused, caught, ms = judged(lessons_of(photos))
        times += ms
        print(f"| {name} | {right} / {wrong} | " + " | ".join(f"{refused[d]} / {caught[d]}" for d in AROUND)
              + " | 0 / 0 |")
    print(f"the check's time per picture (one match against every face of the die, {DEFAULT_LOOKS} pictures each): "
          f"median {statistics.median(times):.2f} ms, at most {max(times):.2f} ms")
    print()
    print(f"marked afterwards: every picture of a die taught ({DEFAULT_LOOKS} a face, {TEACHING_WAYS} choices of "
          "photos) read by the others, marked where they read it as another face at least this sure (ours: "
          f"{READ_AS_ANOTHER:g}); a wrong picture: a face's first replaced by a photo of another face, learned as the "
          f"first. Before: no mark; refused only within {LOOKS_LIKE_ANOTHER:g} of its face, where that face was taught "
          "already")
    print("| set | right pictures / wrong pictures | " + " | ".join(
        f"at {sure:g}{' (ours)' if sure == READ_AS_ANOTHER else ''}: right marked / wrong marked" for sure in SURE)
          + " | before: wrong refused, its face taught |")
    print("|---|---|" + "---|" * (len(SURE) + 1))
    for name, photos in sets:
        counts = marked_afterwards(photos)
        print(f"| {name} | {counts['right']} / {counts['wrong']} | " + " | ".join(
            f"{counts['right', sure]} / {counts['wrong', sure]}" for sure in SURE) + f" | {counts['wrong near']} |")
    marking = time_marking(sets[0][1])
    print(f"the marks' time (done after each picture learned), all the pictures of one die ({DEFAULT_LOOKS} a face) "
          f"read by the others: median {statistics.median(marking):.1f} ms, at most {max(marking):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Teaching from a phone's photos: the photo as the phone takes it against the photo scaled on the phone first.

    .venv/bin/python bench/photo_send_bench.py [--photos 12]

A phone's camera takes 12 MP photos (4032 x 3024), 3 to 5 MB as JPEG; the companion learns a photo at most
:data:`companion.teach.PHOTO_SIDE` pixels on its longer side. The Setup page now scales a photo on the phone to twice
that before sending it (web/static/setup.js, ``scaledPhoto``; the companion's own scaling makes the last step). Here,
side by side on the same photos: the bytes sent, the companion's time to take a photo (decoding it, then
:meth:`companion.teach.DiceTeacher.photo`: scaled and learned; one core, the faster of two), and whether the same die
is learned: found at the same place, and its sample as near the sample learned from the photo as taken as another
photo of the same face is (the taught reader's distance).

The photos are renders of one Fandooble die, a tenth to a third of the photo, on six tables, with a camera sensor's
noise added so that they weigh what a phone's photos weigh (no real 12 MP photo of a die is at hand). The phone's
scaling is emulated here with OpenCV's area filter; the browser test checks what Chromium sends
(tests/test_browser_dashboard.py).
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

from companion.teach import PHOTO_SIDE, DiceTeacher, photo_to_learn  # noqa: E402
from hardware.camera.files import decode_image  # noqa: E402
from vision.dice import FaceTemplates  # noqa: E402
from vision.dice.faces import describe_die  # noqa: E402
from vision.dice.single import NotOneDie, single_die  # noqa: E402
from vision.synth.dice import render_face_photo  # noqa: E402

PHONE = (4032, 3024)  # a 12 MP phone photo
SENT = 2 * PHOTO_SIDE  # the longer side the Setup page scales a photo to
JPEG_QUALITY = 92  # a phone's camera and the page's scaling alike
SHARES = (0.1, 0.2, 0.33)  # the die, as a share of the photo's shorter side
TABLES = ("grey", "wood", "felt", "white", "navy", "black")
NOISE = 3.0  # the sensor noise added, in grey levels (standard deviation)


def phone_photo(rng: np.random.Generator, face: str, share: float, table: str) -> bytes:
    """A 12 MP JPEG of one die, ``face`` up, ``share`` of the photo's shorter side, as a phone's camera gives it."""
    image = render_face_photo(rng, face, size=PHONE, die_px=int(share * min(PHONE)), table=table)
    noisy = np.clip(image.astype(np.float32) + rng.normal(0.0, NOISE, image.shape), 0, 255).astype(np.uint8)
    return encoded(noisy)


def encoded(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    assert ok
    return data.tobytes()


def scaled_on_the_phone(data: bytes) -> bytes:
    """The photo as the Setup page sends it: at most SENT pixels on its longer side, a JPEG again."""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    scale = SENT / max(image.shape[:2])
    if scale >= 1:
        return data
    size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
    return encoded(cv2.resize(image, size, interpolation=cv2.INTER_AREA))


def taken(data: bytes, face: str) -> tuple[float, float, DiceTeacher]:
    """The companion's time to decode one photo sent and to take it in all (ms, the faster of two each), and the
    teacher that took it."""
    decoded = whole = float("inf")
    teacher = None
    for _ in range(2):
        teacher = DiceTeacher("dragon" if face in "CGR" else "special", face, looks=1, photos=True)
        start = time.perf_counter()
        image = decode_image(data)
        decoded = min(decoded, (time.perf_counter() - start) * 1000)
        teacher.photo(image)
        whole = min(whole, (time.perf_counter() - start) * 1000)
    return decoded, whole, teacher


def die_learned(data: bytes) -> tuple[tuple, np.ndarray]:
    """The die found in a photo sent, as teaching finds it (its box in the photo as learned), and its sample."""
    image = photo_to_learn(decode_image(data))
    die = single_die(image)
    return die.box, describe_die(image, die)


def distance(taught: np.ndarray, read: np.ndarray) -> float:
    """How far a sample ``read`` is from a sample ``taught``, as the taught reader measures it (any quarter turn)."""
    templates = FaceTemplates()
    templates.add("dragon", "C", taught)
    return templates.match([read])[0][2]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=12, help="photos per share of the photo")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(17)
    sizes = {"phone": [], "scaled": []}
    times = {"phone": [], "scaled": []}
    decoding = {"phone": [], "scaled": []}
    learned = {"phone": 0, "scaled": 0}
    same_box, scaling, another_photo = 0, [], []
    photos = 0
    for share in SHARES:
        for i in range(args.photos):
            face, table = "CGRFKW"[i % 6], TABLES[i % len(TABLES)]
            original = phone_photo(rng, face, share, table)
            sent = {"phone": original, "scaled": scaled_on_the_phone(original)}
            for how, data in sent.items():
                sizes[how].append(len(data))
                decoded, ms, teacher = taken(data, face)
                decoding[how].append(decoded)
                times[how].append(ms)
                learned[how] += teacher.learned
            photos += 1
            try:
                (box, sample), (scaled_box, scaled_sample) = die_learned(original), die_learned(sent["scaled"])
                _, other_sample = die_learned(scaled_on_the_phone(phone_photo(rng, face, share, table)))
            except NotOneDie:
                continue
            same_box += bool(np.all(np.abs(np.subtract(box, scaled_box)) <= 0.1 * max(box[2:])))
            scaling.append(distance(sample, scaled_sample))
            another_photo.append(distance(sample, other_sample))
    mb = {how: statistics.median(s) / 1e6 for how, s in sizes.items()}
    ms = {how: statistics.median(t) for how, t in times.items()}
    print(f"{photos} photos of {PHONE[0]} x {PHONE[1]} (the die {', '.join(f'{s:g}' for s in SHARES)} of the "
          f"shorter side, {args.photos} each), sent as taken against scaled on the phone to {SENT} px:")
    print("| | as taken | scaled on the phone | ratio |")
    print("|---|---|---|---|")
    print(f"| bytes sent, median | {mb['phone']:.2f} MB | {mb['scaled']:.2f} MB | {mb['phone'] / mb['scaled']:.1f}x |")
    dec = {how: statistics.median(t) for how, t in decoding.items()}
    print(f"| the companion's time to decode it, median | {dec['phone']:.0f} ms | {dec['scaled']:.0f} ms | "
          f"{dec['phone'] / dec['scaled']:.1f}x |")
    print(f"| the pixels decoded (memory: 3 bytes each) | {PHONE[0] * PHONE[1] / 1e6:.1f} MP | "
          f"{SENT * SENT * PHONE[1] / PHONE[0] / 1e6:.1f} MP | {PHONE[0] ** 2 / SENT ** 2:.1f}x |")
    print(f"| the companion's time to take it in all (decoded, scaled, learned), median | {ms['phone']:.0f} ms | "
          f"{ms['scaled']:.0f} ms | "
          f"{ms['phone'] / ms['scaled']:.2f}x |")
    print(f"| ... at most | {max(times['phone']):.0f} ms | {max(times['scaled']):.0f} ms | "
          f"{max(times['phone']) / max(times['scaled']):.2f}x |")
    print(f"| photos learned | {learned['phone']} | {learned['scaled']} | |")
    print(f"the die found at the same place both ways (within a tenth of its side): {same_box} of {len(scaling)}; "
          f"the sample learned scaled on the phone, from the sample as taken: median {statistics.median(scaling):.2f} "
          f"(at most {max(scaling):.2f}), against another photo of the same face: median "
          f"{statistics.median(another_photo):.2f} (the taught reader's distance)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

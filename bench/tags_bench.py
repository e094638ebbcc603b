"""Tag reading at table scale: cards identified per frame, and time, against plain zxing-cpp and pyzbar.

Run from the project root (one core, as a Pi would give the camera loop):

    .venv/bin/python bench/tags_bench.py                 # 30 frames of each card layout, the real photo sets
    COMPANION_LONG=1 .venv/bin/python bench/tags_bench.py   # 200 frames of each

Synthetic part: 4608 x 2592 frames (the full stream) of up to 24 location cards
plus the 4 corner tags; the working image is the frame scaled to 2304 x 1296
with an area average (what the camera's ISP does), in grey (the Y plane the
camera gives for free). Per frame, at random: card rotation any angle, camera
tilt 0-15 degrees in any direction, blur sigma 0-1 px and noise sigma 0-6 (on
the full frame, as the sensor sees it), light falling to 60 % across the table,
one hand or animal anywhere over the table, four animals (22 mm figures)
standing anywhere on top cards as players put them, and three tags nicked by a
coin or a die over one finder pattern. Module sizes are drawn so that they span
1.9-4 px in the working image. Two card layouts, each on its own frames:

* two stickers per card (``FF:07:2`` top left, ``FF:07:2:B`` bottom right turned
  half round; 28 mm codes, the README's guide): the targets apply here;
* one sticker per card (top left, as cards were stuck before): reported, no target.

Compared on the same frames, each timed 3 times (the median counts), one after
the other:

* ours: ``TagReader().read(grey, full)``, cold (a new reader per frame, so
  nothing is remembered from an earlier frame); also on the BGR working image;
* zxing-cpp plain: one ``zxingcpp.read_barcodes(grey, formats=QRCode)`` call
  with the library's defaults on the same grey working image (the issue's reference);
* pyzbar: ``pyzbar.decode`` on the same grey image;
* still: ours again on the same frame with the same reader (the table has not
  moved, nothing is decoded).

A card counts as identified when any of its stickers was read. Cards are binned
by module size; the target counts the cards a reader could identify at all: at
least one sticker with two finder patterns untouched and at most a third of its
code hidden (a card under a hand is the stabiliser's business, reported apart).
A wrong payload is a decoded text that is not on any tag of the frame.

Real photos (``../shared/data/qr``, when present): per set, the expected text
among the decoded texts, zxing-cpp alone (library defaults) against ours (the
reader as ``companion see`` runs it), side by side, never pooled.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import unicodedata
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import zxingcpp  # noqa: E402
from pyzbar import pyzbar  # noqa: E402

from vision import tags  # noqa: E402
from vision.reader import TagReader  # noqa: E402
from vision.synth import table as synth  # noqa: E402

FULL = (4608, 2592)
WORK = (2304, 1296)
BINS = [("module >= 3 px", 3.0, 99.0, 99.5), ("module 2-3 px", 2.0, 3.0, 99.0), ("module < 2 px", 0.0, 2.0, None)]
LAYOUTS = [("two stickers per card", True), ("one sticker per card", False)]
METHODS = ["ours", "zxing-cpp plain", "pyzbar"]


def make_frame(rng: np.random.Generator, two: bool):
    module_work = float(rng.uniform(1.9, 4.0))
    if two:
        tag_mm = tags.PAIR_SYMBOL_MM
        ppm = module_work * 2 * tags.MODULES / tag_mm  # the camera's height sets the module size
    else:
        ppm = float(rng.uniform(3.4, 4.6))
        tag_mm = min(44.0, module_work * 2 * tags.MODULES / ppm)
    table = (FULL[0] / ppm * 0.74, FULL[1] / ppm * 0.70)
    stacks = min(24, int(table[0] * table[1] / 14000))  # as many as lie apart on that table, not piled
    scene = synth.random_scene(rng, n_stacks=stacks, table_mm=table, tag_mm=tag_mm, occluders=1, animals=4,
                               nicked=3, second_sticker=two)
    view = synth.View(size=FULL, px_per_mm=ppm, roll_deg=float(rng.uniform(-8, 8)),
                      tilt_deg=float(rng.uniform(0, 15)), tilt_direction_deg=float(rng.uniform(0, 360)),
                      blur_sigma=float(rng.uniform(0, 1)), noise_sigma=float(rng.uniform(0, 6)),
                      light_darkest=0.6, light_direction_deg=float(rng.uniform(0, 360)))
    full, truth = synth.render(scene, view, rng)
    work = cv2.resize(full, WORK, interpolation=cv2.INTER_AREA)
    return work, full, truth


def timed(fn, repeats: int = 3):
    """(result of the last call, median milliseconds)."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return result, statistics.median(times)


def plain_zxing(image):
    return {b.text for b in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)}


def plain_pyzbar(grey):
    return {s.data.decode("utf-8", "replace") for s in pyzbar.decode(grey, symbols=[pyzbar.ZBarSymbol.QRCODE])}


def synthetic(frames: int, seed: int, layout: str, two: bool) -> bool:
    rng = np.random.default_rng(seed)
    keys = [b[0] for b in BINS]
    cards = {k: {"in view": 0, "legible": 0, **{m: 0 for m in METHODS}} for k in keys}
    under = {m: 0 for m in METHODS}  # identified among the cards nobody could read (a hand over them)
    wrong = {m: 0 for m in METHODS}
    ms = {"ours": [], "ours, BGR working image": [], "zxing-cpp plain": [], "pyzbar": [], "ours, still": []}
    full_looks = []
    render_s = 0.0
    for _ in range(frames):
        start = time.perf_counter()
        work, full, truth = make_frame(rng, two)
        render_s += time.perf_counter() - start
        grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        reader = TagReader()
        reading, t = timed(lambda: (reader.reset(), reader.read(grey, full))[1])
        ms["ours"].append(t)
        full_looks.append(reading.candidates)
        _, t = timed(lambda: reader.read(grey, full))  # the same picture again: the table is still
        ms["ours, still"].append(t)
        _, t = timed(lambda: TagReader().read(work, full))
        ms["ours, BGR working image"].append(t)
        zx, t = timed(lambda: plain_zxing(grey))
        ms["zxing-cpp plain"].append(t)
        zb, t = timed(lambda: plain_pyzbar(grey))
        ms["pyzbar"].append(t)
        got = {"ours": {s.text for s in reading.sightings}, "zxing-cpp plain": zx, "pyzbar": zb}
        on_frame = {t.payload for t in truth.tags}
        for m in METHODS:
            wrong[m] += len(got[m] - on_frame)
        for stickers in truth.cards().values():
            module = stickers[0].module_px * WORK[0] / FULL[0]
            row = cards[next(b[0] for b in BINS if b[1] <= module < b[2])]
            legible = any(t.legible for t in stickers)
            row["in view"] += 1
            row["legible"] += legible
            for m in METHODS:
                seen = any(t.payload in got[m] for t in stickers)
                row[m] += seen and legible
                under[m] += seen and not legible

    print(f"\n{layout}: {frames} frames {FULL[0]}x{FULL[1]}, working image {WORK[0]}x{WORK[1]}, seed {seed} "
          f"(rendering took {render_s:.0f} s, not timed)")
    print("\nCards identified among those a reader could identify (identified / legible, %)")
    print(f"{'':<18}{'in view':>9}{'legible':>9}" + "".join(f"{m:>22}" for m in METHODS) + f"{'target (ours)':>16}")
    ok = True
    for name, _, _, target in BINS:
        row = cards[name]
        cells = [f"{row[m]}/{row['legible']} {100 * row[m] / row['legible']:.2f}%" if row["legible"] else "-"
                 for m in METHODS]
        verdict = ""
        if target is not None and row["legible"]:
            met = 100 * row["ours"] / row["legible"] >= target
            ok &= met
            verdict = f">= {target}% {'met' if met else 'NOT MET'}"
        print(f"{name:<18}{row['in view']:>9}{row['legible']:>9}" + "".join(f"{c:>22}" for c in cells)
              + f"{verdict:>16}")
    print(f"{'under a hand':<36}" + "".join(f"{under[m]:>22}" for m in METHODS)
          + "   (cards read although no sticker was legible)")
    print(f"{'wrong payloads':<36}" + "".join(f"{wrong[m]:>22}" for m in METHODS) + f"{'0':>16}")
    ok &= wrong["ours"] == 0
    print(f"(full-resolution looks per frame, ours: median {statistics.median(full_looks):.0f}, "
          f"max {max(full_looks)})")

    print("\nTime per frame, one core (median over frames of the median of 3 runs)")
    med = {k: statistics.median(v) for k, v in ms.items()}
    for k, v in ms.items():
        print(f"  {k:<30} median {med[k]:7.2f} ms   p90 {np.percentile(v, 90):7.2f} ms")
    ratio = med["ours"] / med["zxing-cpp plain"]
    speedup = med["pyzbar"] / med["ours"]
    print(f"\n  ours / zxing-cpp plain, same grey image {ratio:5.2f}x   target <= 1.5x  "
          f"{'met' if ratio <= 1.5 else 'NOT MET'}")
    print(f"  (ours on the BGR working image         {med['ours, BGR working image'] / med['zxing-cpp plain']:5.2f}x: "
          "the grey conversion costs that much more)")
    print(f"  pyzbar / ours                          {speedup:5.2f}x   target >= 5x    "
          f"{'met' if speedup >= 5 else 'NOT MET'}")
    reads_more = sum(r["ours"] for r in cards.values()) > sum(r["pyzbar"] for r in cards.values())
    print(f"  ours identifies more than pyzbar       {'yes' if reads_more else 'NO'}")
    print(f"  still table                            {med['ours, still']:5.2f} ms  target <= 5 ms  "
          f"{'met' if med['ours, still'] <= 5 else 'NOT MET'}")
    ok &= ratio <= 1.5 and speedup >= 5 and reads_more and med["ours, still"] <= 5
    return ok


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text).rstrip()


def real_photos(data: Path, rotations: int) -> bool:
    sets = sorted(p for p in data.iterdir() if p.is_dir())
    print(f"\nReal photos ({data}), upright{' and 3 rotations' if rotations > 1 else ''}: expected text read "
          "(all images / continuous-tone photos only)")
    print(f"{'set':<20}{'n':>5}{'zxing-cpp alone':>22}{'ours':>22}{'pyzbar':>22}{'wrong (ours)':>14}")
    ok = True
    family_totals: dict[str, list[int]] = {}
    for folder in sets:
        counts = {"zx": [0, 0], "ours": [0, 0], "zb": [0, 0]}
        n = photos = wrong = 0
        for image_path in sorted(folder.iterdir()):
            if image_path.suffix.lower() not in (".png", ".jpg", ".jpeg", ".webp"):
                continue
            expected_path = image_path.with_suffix(".txt")
            if not expected_path.exists():
                continue
            expected = _normalise(expected_path.read_text("utf-8"))
            grey0 = cv2.imread(str(image_path), cv2.IMREAD_GRAYSCALE)
            if grey0 is None:
                continue
            photo = len(np.unique(grey0)) > 8
            for r in range(rotations):
                grey = np.ascontiguousarray(np.rot90(grey0, r))
                n += 1
                photos += photo
                zx = {_normalise(t) for t in plain_zxing(grey)}
                zb = {_normalise(t) for t in plain_pyzbar(grey)}
                reading = TagReader(reuse_when_still=False).read(grey)
                ours = {_normalise(s.text) for s in reading.sightings}
                for key, texts in (("zx", zx), ("ours", ours), ("zb", zb)):
                    if expected in texts:
                        counts[key][0] += 1
                        counts[key][1] += photo
                wrong += bool(ours) and expected not in ours
        cells = [f"{c[0]}/{n} ({c[1]}/{photos})" for c in (counts["zx"], counts["ours"], counts["zb"])]
        print(f"{folder.name:<20}{n:>5}" + "".join(f"{c:>22}" for c in cells) + f"{wrong:>14}")
        ok &= counts["ours"][0] >= counts["zx"][0]
        family = folder.name.rsplit("-", 1)[0]
        totals = family_totals.setdefault(family, [0, 0, 0])
        totals[0] += counts["zx"][0]
        totals[1] += counts["ours"][0]
        totals[2] += n
    for family, (zx, ours, n) in family_totals.items():
        print(f"  {family}-*: zxing-cpp alone {zx}/{n}, ours {ours}/{n} (per family, not pooled across families)")
    print(f"  ours reads at least as many as zxing-cpp alone in every set: {'yes' if ok else 'NO'}")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    long = os.environ.get("COMPANION_LONG") == "1"
    parser.add_argument("--frames", type=int, default=200 if long else 30)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rotations", type=int, choices=[1, 4], default=4 if long else 1)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "qr")
    parser.add_argument("--layout", choices=["both", "two", "one"], default="both",
                        help="which card layouts to render (the targets are on two stickers per card)")
    parser.add_argument("--no-photos", action="store_true", help="skip the real photo sets")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    from importlib.metadata import version

    print(f"tags_bench: zxing-cpp {version('zxing-cpp')}, pyzbar {version('pyzbar')}, OpenCV {cv2.__version__}, "
          f"numpy {np.__version__}, one OpenCV thread; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    ok = True
    for layout, two in LAYOUTS:
        if args.layout != "both" and (args.layout == "two") != two:
            continue
        met = synthetic(args.frames, args.seed, layout, two)
        if two:
            ok &= met  # the targets are for the recommended layout; the old one is shown beside it
    if args.no_photos:
        pass
    elif args.data.is_dir():
        ok &= real_photos(args.data, args.rotations)
    else:
        print(f"\nReal photos: {args.data} not present, skipped")
    print(f"\nAll targets met: {'yes' if ok else 'NO (see NOT MET above)'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

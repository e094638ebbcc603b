"""Teaching a die before its tray is marked: the camera sees the whole table, its four corner tags too.

    .venv/bin/python bench/teaching_bench.py [--pictures 30]

Rendered pictures of one Fandooble die as a camera over the table gives them (1280 x 720 and 640 x 480, the table's
corner tags in the picture's corners), taught as :class:`companion.teach.DiceTeacher` takes a picture with no tray:
ours paints over every code the tag reader finds first (:func:`vision.dice.zone.codes_seen`), as reading the dice
does; before, the tags were left in. Each picture: the die taught where it lies (the die found in the same picture
without the tags, within a tenth of its side), refused, or something else taught. A tag stuck over the die itself
hides it either way. Also the median time of finding the codes against the rest of finding the die, one core.
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

from vision.dice.single import NotOneDie, single_die  # noqa: E402
from vision.dice.zone import codes_seen, hide_tags  # noqa: E402
from vision.synth.dice import render_face_photo  # noqa: E402
from vision.synth.table import with_corner_tags  # noqa: E402

SIZES = ((1280, 720), (640, 480))


def taught(picture: np.ndarray, die) -> str:
    """Where teaching ``picture`` puts the die: "at the die", "refused" or "elsewhere"."""
    try:
        found = single_die(picture)
    except NotOneDie:
        return "refused"
    apart = np.hypot(found.center[0] - die.center[0], found.center[1] - die.center[1])
    return "at the die" if apart < 0.1 * max(die.size) else "elsewhere"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pictures", type=int, default=30, help="pictures of one die per picture size")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    print("| pictures, the corner tags in view, no tray | ours: at the die / refused / elsewhere "
          "| tags left in (before) |")
    print("|---|---|---|")
    codes_ms, finding_ms = [], []
    for size in SIZES:
        counts = {"ours": {}, "before": {}}
        for seed in range(args.pictures):
            rng = np.random.default_rng(seed)
            plain = render_face_photo(rng, "CGRFKW"[seed % 6], size=size)
            die = single_die(plain)  # where the die lies, found with no tag in the picture
            pictured = with_corner_tags(plain, module_px=max(3, size[0] // 256))
            start = time.perf_counter()
            painted = hide_tags(pictured, [code.corners for code in codes_seen(pictured)])
            codes_ms.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            ours = taught(painted, die)
            finding_ms.append((time.perf_counter() - start) * 1000)
            for name, verdict in (("ours", ours), ("before", taught(pictured, die))):
                counts[name][verdict] = counts[name].get(verdict, 0) + 1
        cells = [" / ".join(str(counts[name].get(v, 0)) for v in ("at the die", "refused", "elsewhere"))
                 for name in ("ours", "before")]
        print(f"| {size[0]} x {size[1]} ({args.pictures}) | {cells[0]} | {cells[1]} |")
    codes, finding = statistics.median(codes_ms), statistics.median(finding_ms)
    print(f"\nmedian ms a picture, one core: finding the codes {codes:.1f}, finding the die {finding:.1f} "
          f"(the codes add {codes / finding:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

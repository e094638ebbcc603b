"""Group the train split's labelled dice by look, for labelling which crops are one physical die.

The nell-byler-d6 photos roll the same physical dice again and again. This script cuts out every
whole (non-partial) labelled die of the ``train`` split (never ``test``), describes each crop by a
few colour features (median Lab of the die body, Lab of its pips = the pixels farthest from the
body colour, box size), clusters them with k-means (fixed seed) and writes one contact sheet per
cluster (``cluster-NN.png``: crops enlarged, ``#index`` and face under each) plus ``crops.csv``
(index, image, label index, face, cluster, features), so a person can decide by eye which crops
are the same die. The identities decided that way live in ``bench/data/nell-byler-train-dice.csv``; alike
dice of one look in ``nell-byler-train-looks.csv``, and in ``nell-byler-train-looks-heldout.csv`` two more looks
grouped later by someone who ran no reader, to judge the slanted teaching samples on dice nothing was chosen on;
``nell-byler-train-looks-heldout2.csv`` three more (a translucent and an opaque red, a translucent purple), grouped
the same way and read once, to judge one change (spent); ``nell-byler-train-looks-heldout3.csv`` one more (a maroon
marbled die with white pips), grouped the same way and read once, to judge the next change (spent). The train split's
other dice are looks already used or have too few photos of a face (stop 45).

Run:  .venv/bin/python tools/dice_identity.py [OUT_DIR] [--k 40] [--root DATASET]
      (OUT_DIR defaults to a new temporary folder; its path is printed.)
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tools import dice_photos  # noqa: E402

ROOT = Path(__file__).resolve().parents[2] / "shared/data/dice/nell-byler-d6"  # beside the project
CELL = 88  # contact-sheet cell: crop side in pixels, plus a caption strip below
CAPTION = 16
COLUMNS = 12


def crops(root: Path) -> list[dict]:
    """Every whole labelled die of the train split: image, label index, face, crop (BGR)."""
    out = []
    for name in dice_photos.names(root, "train"):
        photo = cv2.imread(str(root / "images" / name))
        h, w = photo.shape[:2]
        for i, die in enumerate(dice_photos.labels(root, name, (w, h))):
            if die.partial:
                continue
            x, y, bw, bh = die.box
            out.append(dict(image=name, index=i, face=die.face, crop=photo[y:y + bh, x:x + bw].copy()))
    return out


def features(crop: np.ndarray) -> np.ndarray:
    """Body Lab (median of the inner box), pip Lab (the 15% pixels farthest from it), box size."""
    h, w = crop.shape[:2]
    inner = crop[h // 6: h - h // 6, w // 6: w - w // 6]
    lab = cv2.cvtColor(inner, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    body = np.median(lab, axis=0)
    far = np.linalg.norm(lab - body, axis=1)
    pips = np.median(lab[far >= np.quantile(far, 0.85)], axis=0)
    return np.concatenate([body, pips, [np.sqrt(w * h)]]).astype(np.float32)


def cluster(feats: np.ndarray, k: int) -> np.ndarray:
    """k-means on standardised features (body colour weighted double), fixed seed."""
    z = (feats - feats.mean(0)) / (feats.std(0) + 1e-6)
    z *= np.array([2, 2, 2, 1, 1, 1, 0.7], np.float32)
    cv2.setRNGSeed(613)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 200, 1e-4)
    _, lab, _ = cv2.kmeans(z, k, None, criteria, 10, cv2.KMEANS_PP_CENTERS)
    return lab.ravel()


def sheet(items: list[tuple[str, np.ndarray]], cell: int = CELL) -> np.ndarray:
    """A grid of crops enlarged to ``cell`` pixels, each with its caption written under it."""
    columns = max(1, min(COLUMNS, len(items)))
    rows = (len(items) + columns - 1) // columns
    out = np.full((rows * (cell + CAPTION), columns * cell, 3), 255, np.uint8)
    for n, (caption, crop) in enumerate(items):
        r, c = divmod(n, columns)
        y, x = r * (cell + CAPTION), c * cell
        big = cv2.resize(crop, (cell - 4, cell - 4), interpolation=cv2.INTER_CUBIC)
        out[y + 2:y + cell - 2, x + 2:x + cell - 2] = big
        cv2.putText(out, caption, (x + 3, y + cell + 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", type=Path, help="folder for the contact sheets (default: temporary)")
    ap.add_argument("--k", type=int, default=40, help="number of clusters")
    ap.add_argument("--root", type=Path, default=ROOT, help="the nell-byler-d6 folder")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="dice-identity-"))
    out.mkdir(parents=True, exist_ok=True)

    items = crops(args.root)
    feats = np.stack([features(it["crop"]) for it in items])
    groups = cluster(feats, args.k)
    with open(out / "crops.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["n", "image", "index", "face", "cluster", "L", "a", "b", "pip_L", "pip_a", "pip_b", "size"])
        for n, (it, g, ft) in enumerate(zip(items, groups, feats)):
            wr.writerow([n, it["image"], it["index"], it["face"], int(g), *(round(float(v), 1) for v in ft)])
    for g in range(args.k):
        members = [n for n in np.flatnonzero(groups == g)]
        members.sort(key=lambda n: (feats[n, 3], feats[n, 0]))  # by pip lightness, then body lightness
        grid = sheet([(f"#{n} f{items[n]['face']}", items[n]["crop"]) for n in members])
        cv2.imwrite(str(out / f"cluster-{g:02d}.png"), grid)
    print(f"{len(items)} crops in {args.k} clusters -> {out}")


if __name__ == "__main__":
    main()

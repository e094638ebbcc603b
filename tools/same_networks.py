"""Do two folders of dice networks answer alike? The check that a training run reproduced the shipped networks.

    .venv/bin/python tools/same_networks.py DIR [--against vision/dice/models]
                                            [--real ../shared/data/dice/nell-byler-d6] [--tolerance 0.001]

Each network found in both folders (``finder.onnx``, ``reader.onnx``) is given the same inputs: the finder the train
split's calibration photos (fold 0, never trained on) as it sees them at its first look, the reader the cut-outs of
their labelled dice. Prints, for each network, the largest difference between the two folders' outputs (the
finder's raw outputs; the reader's probabilities) and, for the reader, the dice whose likeliest class differs.
Exit status 0 when every output agrees within ``--tolerance``, 1 when one does not, 2 when nothing could be compared.
Both folders are run by OpenCV's ``cv2.dnn``, whichever runtime the companion would choose.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import dice_photos  # noqa: E402
from vision.dice import net  # noqa: E402

NETWORKS = ("finder", "reader")
TOLERANCE = 1e-3  # a thousandth of a probability: readings that differ less read every die alike


def inputs(root: Path, fold: int = 0) -> dict[str, list[np.ndarray]]:
    """The blobs each network is given: one per calibration photo for the finder, one of all its labelled dice
    for the reader (photos with no whole die give the reader none)."""
    blobs: dict[str, list[np.ndarray]] = {"finder": [], "reader": []}
    for name in dice_photos.names(root, "calibrate", fold):
        image = cv2.imread(str(root / "images" / name), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        small, _ = net.finder_input(image)
        blobs["finder"].append(net.finder_input(small, resized=True)[0][None])
        dice = [d for d in dice_photos.labels(root, name, (w, h)) if not d.partial]
        if dice:
            crops = [net.crop_die(image, (x + bw / 2, y + bh / 2), max(bw, bh) * net.CROP_GROW)
                     for x, y, bw, bh in (d.box for d in dice)]
            blobs["reader"].append(net.reader_input(crops))
    return blobs


def outputs(path: Path, blobs: list[np.ndarray], probabilities: bool) -> list[np.ndarray]:
    network = cv2.dnn.readNetFromONNX(str(path))
    network.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    answers = []
    for blob in blobs:
        network.setInput(np.ascontiguousarray(blob, np.float32))
        out = network.forward().astype(np.float64)
        if probabilities:
            out = np.exp(out - out.max(axis=1, keepdims=True))
            out /= out.sum(axis=1, keepdims=True)
        answers.append(out)
    return answers


def compare(ours: list[np.ndarray], theirs: list[np.ndarray]) -> tuple[float, int, int]:
    """(the largest difference, rows whose likeliest class differs, rows) of two networks' answers to the same
    blobs; the classes are along axis 1 (the finder's rows are its whole outputs, compared but not counted)."""
    largest, differ, rows = 0.0, 0, 0
    for a, b in zip(ours, theirs, strict=True):
        largest = max(largest, float(np.abs(a - b).max()))
        if a.ndim == 2:
            differ += int((a.argmax(axis=1) != b.argmax(axis=1)).sum())
            rows += len(a)
    return largest, differ, rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the networks to check (tools/train_dice.py --out)")
    parser.add_argument("--against", type=Path, default=net.MODELS, help="the networks they should match "
                        "(default: the shipped ones)")
    parser.add_argument("--real", type=Path, default=ROOT.parent / "shared/data/dice/nell-byler-d6")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE)
    args = parser.parse_args(argv)
    found = [n for n in NETWORKS if (args.folder / f"{n}.onnx").is_file() and (args.against / f"{n}.onnx").is_file()]
    if not found:
        print(f"no network to compare: neither finder.onnx nor reader.onnx is in both {args.folder} and "
              f"{args.against}")
        return 2
    if not (args.real / "counts.csv").is_file():
        print(f"the real dice photos are not at {args.real}: give their folder with --real")
        return 2
    blobs = inputs(args.real)
    alike = True
    for name in found:
        probabilities = name == "reader"
        largest, differ, rows = compare(outputs(args.folder / f"{name}.onnx", blobs[name], probabilities),
                                        outputs(args.against / f"{name}.onnx", blobs[name], probabilities))
        agree = largest <= args.tolerance
        alike &= agree
        what = "probability" if probabilities else "output"
        counted = f"; {differ} of {rows} dice read as another class" if probabilities else ""
        print(f"{name}: {len(blobs[name])} inputs, largest {what} difference {largest:.2g}{counted}: "
              f"{'the same' if agree else 'different'} networks")
    return 0 if alike else 1


if __name__ == "__main__":
    sys.exit(main())

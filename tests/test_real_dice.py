"""Real photos of pip dice (../shared/data/dice/nell-byler-d6): aggregate floors, evaluation only.

The pip reader's networks never saw these photos (tools/train_dice.py trains on renders);
nothing was tuned on them. The floors sit just below what the reader reaches on the
author's 50-image test split (bench/dice_bench.py prints the figures), and it must stay well
ahead of the plain SimpleBlobDetector count. COMPANION_LONG=1 adds the train split.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dice_bench import BlobDetectorReader, real  # noqa: E402

from vision.dice import PipReader  # noqa: E402

# Measured on the test split: 250 of 308 found (81.2%), 163 read right (52.9%), 2 false dice.
# The target (95% read right) is not reached: see bench/dice_bench.py and the report.
FOUND, RIGHT, FALSE = 0.80, 0.52, 0.02


def test_real_pip_photos_floors(dice_data):
    ours = real(dice_data, PipReader(), "test")
    plain = real(dice_data, BlobDetectorReader(), "test")
    assert ours["dice"] == 308
    assert ours["found"] / ours["dice"] >= FOUND, ours
    assert ours["right"] / ours["dice"] >= RIGHT, ours
    assert ours["right"] > plain["right"]
    assert ours["false"] <= FALSE * ours["dice"], ours


@pytest.mark.slow
def test_real_pip_photos_train_split(dice_data):
    if os.environ.get("COMPANION_LONG") != "1":
        pytest.skip("the train split runs with COMPANION_LONG=1")
    ours = real(dice_data, PipReader(), "train")  # measured: 751 of 1487 (50.5%), 13 false dice
    assert ours["right"] / ours["dice"] >= 0.49, ours
    assert ours["false"] <= FALSE * ours["dice"], ours

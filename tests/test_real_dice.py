"""Real photos of pip dice (../shared/data/dice/nell-byler-d6): aggregate floors, evaluation only.

The issue's target is 95% of fully visible dice read right; the reader does not reach
it on these photos yet (bench/dice_bench.py prints the figures). These floors guard
what it does reach, and that it stays ahead of the plain SimpleBlobDetector count.
Short by default (the author's 50-image test split); COMPANION_LONG=1 adds the train split.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from dice_bench import BlobDetectorReader, real  # noqa: E402

from vision.dice import PipReader  # noqa: E402


def test_real_pip_photos_floors(dice_data):
    ours = real(dice_data, PipReader(), "test")
    plain = real(dice_data, BlobDetectorReader(), "test")
    assert ours["dice"] == 308
    assert ours["found"] / ours["dice"] >= 0.70
    assert ours["right"] / ours["dice"] >= 0.50
    assert ours["right"] > plain["right"]
    assert ours["false"] <= 0.12 * ours["dice"]


@pytest.mark.slow
def test_real_pip_photos_train_split(dice_data):
    if os.environ.get("COMPANION_LONG") != "1":
        pytest.skip("the train split runs with COMPANION_LONG=1")
    ours = real(dice_data, PipReader(), "train")
    assert ours["right"] / ours["dice"] >= 0.45

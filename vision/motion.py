"""Is the table still? Frame differences on a small grey copy of the working image."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Differences are measured on an image this wide: cheap on a Pi and blind to sensor noise.
PROBE_WIDTH = 160


def probe(image: np.ndarray, width: int = PROBE_WIDTH) -> np.ndarray:
    """A small, blurred grey copy of ``image`` for motion checks."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    height = max(1, round(grey.shape[0] * width / grey.shape[1]))
    small = cv2.resize(grey, (width, height), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (5, 5), 0)


# A row's light may change by this factor at most and still be taken for the lamp's, not for something moving.
MOST_LIGHT_CHANGE = 2.0


def changed_fraction(a: np.ndarray, b: np.ndarray, threshold: int = 18, *, light: bool = True) -> float:
    """Share of probe pixels whose brightness moved by more than ``threshold`` grey levels, once each row of ``b``
    is brought to the light of the same row of ``a`` (:func:`row_light`; ``light`` False: as they are). Pictures
    none of whose pixels moved that much are not brought to one light: the still table, most pictures the camera
    loop sees, costs no more than before (bench/flicker_bench.py)."""
    if a.shape != b.shape:
        return 1.0
    moved = np.count_nonzero(cv2.absdiff(a, b) > threshold)
    if not moved or not light:
        return moved / a.size
    return float(np.count_nonzero(cv2.absdiff(a, row_light(b, a)) > threshold)) / a.size


def row_light(b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``b`` with each row's light scaled to that of ``a``'s row: by the median of the row's ratios, so that what
    changed in part of a row (a die, a hand) does not set it. A lamp flickering with the mains darkens a rolling
    shutter's picture in bands of rows that roll from picture to picture, and a camera's exposure moves the light
    of every row alike: neither is motion. A factor beyond MOST_LIGHT_CHANGE is left as it is."""
    return np.clip(b * row_gains(b, a)[:, None] + 0.5, 0, 255).astype(np.uint8)


def row_gains(b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """For each row, the factor that brings ``b``'s light to ``a``'s (:func:`row_light`): 1 beyond MOST_LIGHT_CHANGE."""
    ratios = (a.astype(np.float32) + 1.0) / (b.astype(np.float32) + 1.0)
    gains = np.median(ratios, axis=1)
    gains[(gains > MOST_LIGHT_CHANGE) | (gains < 1.0 / MOST_LIGHT_CHANGE)] = 1.0
    return gains


BANDS = 0.1  # rows whose light changed this much more than other rows' (90th against 10th percentile): lamp bands
MOTION = 0.002  # the share of probe pixels that must change for the table to have moved (Stillness's default)


def rolling_bands(a: np.ndarray, b: np.ndarray, threshold: float = MOTION) -> bool:
    """Whether probe ``b`` differs from probe ``a`` by bands of light alone: the two differ, but not once each row is
    brought to the other's light (:func:`row_light`), and the rows needed factors BANDS apart. A lamp flickering
    with the mains does that to a rolling shutter; a camera's exposure changes every row alike, and what moves
    changes part of a row."""
    if a.shape != b.shape or changed_fraction(a, b, light=False) <= threshold:
        return False
    low, high = np.percentile(row_gains(b, a), (10, 90))
    return bool(high - low > BANDS) and changed_fraction(a, b) <= threshold


@dataclass
class Stillness:
    """Tracks motion frame to frame: ``still`` after ``still_frames`` quiet frames in a row.

    ``moved_since_still`` tells a roll detector that something happened since the
    table last settled (dice were thrown).
    """

    still_frames: int = 3
    threshold: float = MOTION

    def __post_init__(self):
        self._last: np.ndarray | None = None
        self.quiet = 0
        self.moved_since_still = False

    def update(self, image: np.ndarray) -> bool:
        """Feed the next working image; True while the table is still."""
        current = probe(image)
        if self._last is None or changed_fraction(self._last, current) > self.threshold:
            if self._last is not None:
                self.moved_since_still = True
            self.quiet = 0
        else:
            self.quiet += 1
        self._last = current
        return self.still

    @property
    def still(self) -> bool:
        return self.quiet >= self.still_frames

    def settled(self) -> None:
        """The caller has used the still picture; wait for the next motion."""
        self.moved_since_still = False

    def forget(self) -> None:
        """Pictures were not watched for a while: the next one is where watching starts again, not motion."""
        self._last = None
        self.quiet = 0
        self.moved_since_still = False

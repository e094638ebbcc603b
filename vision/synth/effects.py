"""What a real camera does to a picture: perspective, blur, noise, light falling off, occlusion.

Pure functions on numpy arrays. Every random choice comes from the ``rng``
argument (``numpy.random.Generator``), so a scene is reproducible from its seed.
"""

from __future__ import annotations

import math

import cv2
import numpy as np


def paste(canvas: np.ndarray, patch: np.ndarray, center: tuple[float, float], angle_deg: float,
          mask: np.ndarray | None = None) -> np.ndarray:
    """Draw ``patch`` rotated by ``angle_deg`` (counter-clockwise) with its centre at ``center``.

    Works in place on ``canvas`` and returns the patch's four corners in canvas
    pixels (top-left, top-right, bottom-right, bottom-left of the unrotated patch).
    """
    h, w = patch.shape[:2]
    cx, cy = center
    rotation = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    rotation[0, 2] += cx - w / 2
    rotation[1, 2] += cy - h / 2
    size = (canvas.shape[1], canvas.shape[0])
    if mask is None:
        mask = np.full((h, w), 255, np.uint8)
    warped = cv2.warpAffine(patch, rotation, size, flags=cv2.INTER_LINEAR, borderValue=0)
    alpha = cv2.warpAffine(mask, rotation, size, flags=cv2.INTER_LINEAR, borderValue=0).astype(np.float32) / 255.0
    if canvas.ndim == 3 and warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    if canvas.ndim == 3:
        alpha = alpha[..., None]
    canvas[:] = (canvas.astype(np.float32) * (1 - alpha) + warped.astype(np.float32) * alpha).astype(np.uint8)
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    return cv2.transform(corners[None], rotation)[0]


def tilt_homography(size: tuple[int, int], tilt_deg: float, direction_deg: float, focal: float | None = None
                    ) -> np.ndarray:
    """The homography of a camera tilted by ``tilt_deg`` towards ``direction_deg`` over a flat table.

    ``size`` is (width, height) of the image; the centre stays in place and the
    far side shrinks as a pinhole camera sees it.
    """
    w, h = size
    focal = focal or 1.2 * max(w, h)
    t = math.radians(tilt_deg)
    d = math.radians(direction_deg)
    axis = np.array([math.cos(d + math.pi / 2), math.sin(d + math.pi / 2), 0.0]) * t
    rotation, _ = cv2.Rodrigues(axis)
    camera = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]])
    homography = camera @ rotation @ np.linalg.inv(camera)
    # Keep the image centre where it was.
    centre = homography @ np.array([w / 2, h / 2, 1.0])
    centre /= centre[2]
    shift = np.array([[1, 0, w / 2 - centre[0]], [0, 1, h / 2 - centre[1]], [0, 0, 1]])
    return shift @ homography


def warp(image: np.ndarray, homography: np.ndarray, border: int | tuple = 0) -> np.ndarray:
    h, w = image.shape[:2]
    value = border if isinstance(border, tuple) else (border,) * 3
    return cv2.warpPerspective(image, homography, (w, h), flags=cv2.INTER_LINEAR, borderValue=value)


def map_points(points: np.ndarray, homography: np.ndarray) -> np.ndarray:
    """Where ``points`` (N x 2) land under ``homography``."""
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, homography).reshape(-1, 2)


def blur(image: np.ndarray, sigma: float) -> np.ndarray:
    if sigma <= 0:
        return image
    return cv2.GaussianBlur(image, (0, 0), sigma)


def noise(image: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Additive Gaussian sensor noise of ``sigma`` grey levels."""
    if sigma <= 0:
        return image
    noisy = image.astype(np.float32) + rng.normal(0.0, sigma, image.shape).astype(np.float32)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def relit(image: np.ndarray, gains: tuple[float, float, float] | None) -> np.ndarray:
    """``image`` under another light: its blue, green and red values times ``gains`` (None: as it is)."""
    if gains is None:
        return image
    return np.clip(image.astype(np.float32) * np.float32(gains), 0, 255).astype(np.uint8)


def uneven_light(image: np.ndarray, darkest: float, direction_deg: float) -> np.ndarray:
    """Light falling linearly from full on one side to ``darkest`` (e.g. 0.6) on the other."""
    if darkest >= 1.0:
        return image
    h, w = image.shape[:2]
    d = math.radians(direction_deg)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    along = (xs - w / 2) * math.cos(d) + (ys - h / 2) * math.sin(d)
    span = abs(w / 2 * math.cos(d)) + abs(h / 2 * math.sin(d)) or 1.0
    gain = 1.0 - (1.0 - darkest) * (along / span + 1.0) / 2.0
    if image.ndim == 3:
        gain = gain[..., None]
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def mains_flicker(image: np.ndarray, depth: float, phase: float, bands: float = 2.5) -> np.ndarray:
    """``image`` under a lamp flickering with the mains, as a rolling shutter sees it: rows darkened by up to
    ``depth`` of their light in ``bands`` soft bands down the picture, ``phase`` (in bands) where they lie. A lamp
    flickers twice a mains period (100 or 120 times a second) and the rows are exposed one after another, so the
    bands roll from picture to picture unless the exposure is a whole number of flicker periods."""
    h = image.shape[0]
    rows = np.arange(h, dtype=np.float32)
    gain = 1.0 - depth * 0.5 * (1.0 + np.sin(2.0 * np.pi * (rows * bands / h + phase)))
    gain = gain.reshape(h, 1, 1) if image.ndim == 3 else gain.reshape(h, 1)
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def blob(canvas: np.ndarray, center: tuple[float, float], radii: tuple[float, float], angle_deg: float,
         colour: tuple[int, int, int]) -> None:
    """An occluding shape (a hand, an animal figure): a filled ellipse, in place."""
    cv2.ellipse(canvas, (int(center[0]), int(center[1])), (int(radii[0]), int(radii[1])), angle_deg, 0, 360,
                colour if canvas.ndim == 3 else int(np.mean(colour)), -1, lineType=cv2.LINE_AA)

"""Pixels to table millimetres: from the corner tags, remembered, or from the stored calibration."""

import cv2
import numpy as np
import pytest

from vision import geometry, tags
from vision.reader import TagReader, TagSighting
from vision.synth import table as synth


def _sight(payload, centre, side=40.0):
    x, y = centre
    h = side / 2
    corners = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], float)
    return TagSighting(payload, tags.parse(payload), corners)


@pytest.mark.parametrize("tilt, roll", [(0, 0), (12, 0), (15, 6), (8, -90)])
def test_corner_tags_map_cards_to_their_table_position(tilt, roll):
    scene = synth.first_game(tag_mm=34)
    ppm = 1.2 if roll == -90 else 1.7  # the whole table in the picture
    view = synth.View(size=(2304, 1296), px_per_mm=ppm, tilt_deg=tilt, tilt_direction_deg=40, roll_deg=roll)
    frame, truth = synth.render(scene, view)
    reading = TagReader().read(frame)
    geo = geometry.TableLocator(800, 450).update(reading.sightings)
    assert geo is not None and geo.source == "corners"
    for t in truth.visible():
        if t.payload.startswith("FF"):
            seen = next(s for s in reading.sightings if s.text == t.payload)
            x, y = geo.to_mm([seen.center])[0]
            assert np.hypot(x - t.center_mm[0], y - t.center_mm[1]) < 3.0  # millimetres
    back = geo.to_px(geo.to_mm([[500.0, 400.0]]))[0]
    assert np.allclose(back, [500, 400], atol=1e-6)


def test_hidden_corner_keeps_the_last_geometry_then_calibration():
    corners = {"NW": (100, 100), "NE": (900, 110), "SE": (880, 560), "SW": (120, 540)}
    all_four = [_sight(f"TB:{c}", p) for c, p in corners.items()]
    calibration = [[100, 100], [900, 100], [900, 550], [100, 550]]
    locator = geometry.TableLocator(800, 450, calibration_px=calibration)
    assert locator.update([]).source == "calibration"  # nothing seen yet: the stored calibration
    assert locator.problem == "corner tags TB:NW, TB:NE, TB:SE, TB:SW not seen"
    seen = locator.update(all_four)
    assert seen.source == "corners"
    later = locator.update(all_four[1:])  # a hand over TB:NW
    assert later.source == "remembered" and np.allclose(later.px_to_mm, seen.px_to_mm)
    assert "TB:NW" in locator.problem
    assert locator.update(all_four[1:], size=(640, 480)).source == "calibration"  # another picture size


def test_a_duplicated_corner_tag_is_not_trusted():
    corners = {"NW": (100, 100), "NE": (900, 110), "SE": (880, 560), "SW": (120, 540)}
    sightings = [_sight(f"TB:{c}", p) for c, p in corners.items()] + [_sight("TB:NW", (500, 300))]
    locator = geometry.TableLocator(800, 450)
    assert locator.update(sightings) is None
    assert "seen more than once" in locator.problem


@pytest.mark.parametrize("corners, reason", [
    ([[0, 0], [10, 0]], "four corners"),
    ([[0, 0], [800, 0], [0, 450], [800, 450]], "convex"),
    ([[0, 0], [1, 0], [1, 1], [0, 1]], "too close"),
    ([[0, 0], [800, float("nan")], [800, 450], [0, 450]], "four corners"),
])
def test_impossible_calibrations_are_refused_with_a_reason(corners, reason):
    assert reason in geometry.why_not_table(np.array(corners, float).reshape(-1, 2))
    assert geometry.from_corners(corners, 800, 450, "calibration") is None
    assert geometry.TableLocator(800, 450, calibration_px=corners).update([]) is None


@pytest.mark.parametrize("stored", [["a", "b"], [[0, 0], [1, "x"]], "NW", [[None, 1]] * 4])
def test_a_garbled_stored_calibration_is_ignored(stored):
    assert geometry.from_corners(stored, 800, 450, "calibration") is None
    assert geometry.TableLocator(800, 450, calibration_px=stored).update([]) is None


def test_mirrored_camera_still_gives_a_geometry():
    corners = [[900, 100], [100, 100], [100, 550], [900, 550]]  # counter-clockwise on the image
    geo = geometry.from_corners(corners, 800, 450, "calibration")
    assert np.allclose(geo.to_mm([[900, 100], [100, 550]]), [[0, 0], [800, 450]])
    assert geo.mm_per_px((500, 300)) == pytest.approx(1.0)
    assert geo.contains((400, 200)) and not geo.contains((-50, 200))


def test_full_frame_positions_scale_back_to_working_pixels():
    frame, truth = synth.render(synth.first_game(), synth.View(size=(2304, 1296), px_per_mm=2.4))
    work = cv2.resize(frame, (1152, 648), interpolation=cv2.INTER_AREA)
    geo = geometry.TableLocator(800, 450).update(TagReader().read(work, frame).sightings)
    assert geo is not None
    for t in truth.visible():
        assert np.allclose(geo.to_mm([np.divide(t.center_px, 2)])[0], t.center_mm, atol=3)


def test_a_calibration_clicked_at_one_picture_size_is_placed_on_another_of_the_same_shape_only():
    # Clicked on a 2304 x 1296 picture; the camera's work_width then set to 1152 (the same view, half the
    # pixels): a card's place on the table is the same. A 4:3 camera shows another view: no calibration.
    corners = [[230.4, 129.6], [2073.6, 129.6], [2073.6, 1166.4], [230.4, 1166.4]]
    locator = geometry.TableLocator(800, 450, corners, calibration_on=(2304, 1296))
    at_full = locator.update([], (2304, 1296))
    at_half = locator.update([], (1152, 648))
    assert at_half.source == "calibration"
    middle_full = cv2.perspectiveTransform(np.array([[[1152.0, 648.0]]]), at_full.px_to_mm)[0, 0]
    middle_half = cv2.perspectiveTransform(np.array([[[576.0, 324.0]]]), at_half.px_to_mm)[0, 0]
    assert middle_half == pytest.approx(middle_full) and middle_full == pytest.approx([400, 225])
    assert locator.update([], (640, 480)) is None
    # Clicked before the picture's size was kept with the corners: they are the picture's own pixels.
    unsized = geometry.TableLocator(800, 450, corners).update([], (1152, 648))
    assert unsized.corners_px[2] == pytest.approx([2073.6, 1166.4])


def test_points_are_placed_on_a_picture_by_its_size_and_not_on_another_shape():
    assert geometry.on_picture([[100, 50]], (1280, 720), (640, 360)) == [[50.0, 25.0]]
    assert np.allclose(geometry.on_picture([[100, 50]], (1280, 720), (1920, 1081)), [[150, 75.07]], atol=0.01)
    assert geometry.on_picture([[100, 50]], (1280, 720), (640, 480)) is None
    assert geometry.on_picture([[100, 50]], None, (640, 480)) == [[100.0, 50.0]]

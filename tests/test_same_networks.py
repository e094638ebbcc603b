"""tools/same_networks.py: the check that a training run reproduced the shipped dice networks."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.same_networks import compare, main  # noqa: E402
from vision.dice.net import MODELS  # noqa: E402


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if byte < 0x80:
            return value, at


def _fields(data: bytes, start: int, end: int):
    """(field number, start, end) of each length-delimited field of the protobuf message in data[start:end]."""
    at = start
    while at < end:
        key, at = _varint(data, at)
        kind = key & 7
        if kind == 0:
            _, at = _varint(data, at)
        elif kind == 1:
            at += 8
        elif kind == 5:
            at += 4
        else:
            length, at = _varint(data, at)
            yield key >> 3, at, at + length
            at += length


def _largest_weights(onnx: bytes) -> tuple[int, int]:
    """Where the raw bytes of the ONNX file's largest weight tensor lie (ModelProto.graph = 7,
    GraphProto.initializer = 5, TensorProto.raw_data = 9)."""
    graph = next((s, e) for f, s, e in _fields(onnx, 0, len(onnx)) if f == 7)
    raws = [(s2, e2) for f, s, e in _fields(onnx, *graph) if f == 5 for f2, s2, e2 in _fields(onnx, s, e) if f2 == 9]
    return max(raws, key=lambda r: r[1] - r[0])


def test_the_same_networks_copied_elsewhere_are_the_same(dice_data, tmp_path, capsys):
    copy = tmp_path / "trained"
    shutil.copytree(MODELS, copy)
    assert main([str(copy), "--real", str(dice_data)]) == 0
    said = capsys.readouterr().out
    assert "finder: 40 inputs" in said and "0 of 308 dice read as another class" in said
    assert said.count("the same networks") == 2


def test_a_reader_with_other_weights_is_told_apart(dice_data, tmp_path, capsys):
    trained = tmp_path / "trained"
    trained.mkdir()
    onnx = bytearray((MODELS / "reader.onnx").read_bytes())
    start, end = _largest_weights(bytes(onnx))
    weights = np.frombuffer(bytes(onnx[start:end]), np.float32) * 1.05  # every weight of one layer 5% larger
    onnx[start:end] = weights.tobytes()
    (trained / "reader.onnx").write_bytes(bytes(onnx))
    assert main([str(trained), "--real", str(dice_data)]) == 1
    said = capsys.readouterr().out
    assert "reader:" in said and "different networks" in said
    assert "finder" not in said  # only the networks both folders hold are compared
    assert main([str(trained), "--real", str(dice_data), "--tolerance", "1"]) == 0  # no probability differs by more


def test_answers_are_compared_by_their_largest_difference_and_their_likeliest_class():
    ours = [np.array([[0.7, 0.3], [0.2, 0.8]]), np.array([[0.5, 0.5]])]
    theirs = [np.array([[0.7, 0.3], [0.6, 0.4]]), np.array([[0.5, 0.5]])]
    largest, differ, rows = compare(ours, theirs)
    assert abs(largest - 0.4) < 1e-12 and (differ, rows) == (1, 3)
    assert compare(ours, ours) == (0.0, 0, 3)


def test_nothing_to_compare_or_no_photos_is_said(tmp_path, capsys):
    assert main([str(tmp_path), "--real", str(tmp_path)]) == 2
    assert "neither finder.onnx nor reader.onnx" in capsys.readouterr().out
    shutil.copy(MODELS / "reader.onnx", tmp_path / "reader.onnx")
    assert main([str(tmp_path), "--real", str(tmp_path / "nowhere")]) == 2
    assert "give their folder with --real" in capsys.readouterr().out


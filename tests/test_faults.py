"""The README, the dashboard banner and the doctor name the same steps for every fault."""

from __future__ import annotations

from pathlib import Path

from companion.faults import FAULTS

README = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")


def test_the_readme_says_what_to_do_after_each_fault():
    for fault in FAULTS.values():
        assert f"| {fault.title} | {fault.steps} |" in README, fault.kind

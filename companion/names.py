"""Player names that look alike across scripts: refused, so no phone can pose as another seat.

``check_players`` in :mod:`companion.games` refuses what the standard library can tell
(invisible and control characters, names equal after NFKC and case folding, Latin,
Greek and Cyrillic letters mixed in one name). Two names written wholly in different
scripts can still look the same ("KOKO" and a Cyrillic "КОКО"): here each name is
reduced to a skeleton with Unicode's confusables table (Unicode TR39, as packaged
by ``confusable-homoglyphs``), every character replaced by one representative of
the characters it can be mistaken for, and two names with one skeleton are refused.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Iterable

from companion.errors import SetupError


def check_lookalikes(names: Iterable[str]) -> None:
    """Refuse two names that look alike (SetupError naming both)."""
    seen: dict[str, str] = {}
    for name in names:
        for key in {skeleton(name), skeleton(name.casefold())}:
            other = seen.get(key)
            if other is not None and other != name:
                raise SetupError(f"'{other}' and '{name}' look alike on a screen: give each player a name "
                                 "that looks different")
            seen[key] = name


def skeleton(text: str) -> str:
    """``text`` with each character replaced by the representative of its look-alikes."""
    table = _representatives()
    return "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFKC", text))


@functools.lru_cache(maxsize=1)
def _representatives() -> dict[str, str]:
    """Each confusable character -> the smallest character of its group (groups joined transitively)."""
    from confusable_homoglyphs.confusables import confusables_data

    parent: dict[str, str] = {}

    def find(ch: str) -> str:
        while parent.get(ch, ch) != ch:
            ch = parent[ch]
        return ch

    for ch, entries in confusables_data.items():
        for entry in entries:
            other = entry["c"]
            if len(ch) == 1 and len(other) == 1:
                a, b = find(ch), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {ch: find(ch) for ch in parent}

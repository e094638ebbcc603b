"""Small changes between two snapshots, so a phone gets what changed rather than the whole state.

A patch is a list of operations on paths (lists of keys and indexes):

* ``["set", path, value]``: put ``value`` there (a new key, a changed value, a null);
* ``["del", path]``: remove the key;
* ``["splice", path, drop, items]``: the list there loses ``drop`` items at its start and gains
  ``items`` at its end (the log's window sliding on by one move).

Lists of the same length are compared item by item; any other list change replaces the
list. ``web/static/app.js`` applies patches with the same rules (:func:`apply` is the
reference, used by the tests).

>>> diff({"a": 1, "b": [1, 2, 3]}, {"a": 2, "b": [2, 3, 4]})
[['set', ['a'], 2], ['splice', ['b'], 1, [4]]]
>>> apply({"a": 1, "b": [1, 2, 3]}, _)
{'a': 2, 'b': [2, 3, 4]}
"""

from __future__ import annotations

import copy
from typing import Any

MAX_SHIFT = 8  # how far a list may slide and still be sent as a splice


def diff(old: Any, new: Any, path: list | None = None, ops: list | None = None) -> list:
    """The operations that turn ``old`` into ``new`` (empty when they are equal)."""
    path = [] if path is None else path
    ops = [] if ops is None else ops
    if old == new:
        return ops
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                ops.append(["del", path + [key]])
        for key, value in new.items():
            if key not in old:
                ops.append(["set", path + [key], value])
            elif old[key] != value:
                diff(old[key], value, path + [key], ops)
        return ops
    if isinstance(old, list) and isinstance(new, list):
        if len(old) == len(new):
            changed = [i for i in range(len(old)) if old[i] != new[i]]
            shift = _shift(old, new)
            if shift is not None and len(changed) > shift + 1:
                ops.append(["splice", path, shift, new[len(old) - shift:]])
                return ops
            for i in changed:
                diff(old[i], new[i], path + [i], ops)
            return ops
        shift = _shift(old, new)
        if shift is not None:
            ops.append(["splice", path, shift, new[len(old) - shift:]])
            return ops
    ops.append(["set", path, new])
    return ops


def _shift(old: list, new: list) -> int | None:
    """The smallest ``drop`` with ``old[drop:]`` a prefix of ``new`` (None beyond MAX_SHIFT)."""
    for drop in range(0, min(MAX_SHIFT, len(old)) + 1):
        rest = len(old) - drop
        if rest <= len(new) and old[drop:] == new[:rest]:
            return drop
    return None


def apply(document: Any, ops: list) -> Any:
    """``document`` with ``ops`` applied (a copy; the original is left as it was)."""
    document = copy.deepcopy(document)
    for op in ops:
        kind, path = op[0], op[1]
        if not path:
            if kind == "set":
                document = copy.deepcopy(op[2])
            elif kind == "splice":
                document = document[op[2]:] + list(op[3])
            continue
        parent = document
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if kind == "set":
            parent[last] = op[2]
        elif kind == "del":
            del parent[last]
        elif kind == "splice":
            parent[last] = parent[last][op[2]:] + list(op[3])
    return document

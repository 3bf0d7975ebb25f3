"""Hostile shapes for ``fuzz_hostile.py`` and ``tests/test_hostile.py``: one value of a
decoded JSON document made hostile, as a few bytes choose.

- deep nesting: the value wrapped in hundreds to thousands of dicts or lists;
- huge values: a string of up to 300,000 characters, a decimal string or an int of
  thousands of digits, a list of many items;
- control characters: terminal escapes (OSC 52 clipboard writes, screen clears), BEL,
  NUL, C1 controls, U+2028/U+2029/U+0085 line separators, a lone surrogate, put into
  the value (a string) or into the key that holds it.

No dependency but the standard library: the tests import it too.
"""

from __future__ import annotations

import copy
from typing import Any

CONTROLS = (
    "\x1b]52;c;SGVsbG8=\x07",  # OSC 52: write the clipboard
    "\x1b]0;pwned\x07",  # the window title
    "\x1b[2J\x1b[H",  # clear the screen
    "\r",
    "\x9b31m",  # C1 CSI
    "\x00",
    "\u2028\u2029\x85",
    "\ud800",
)
KINDS = ("nest-dict", "nest-list", "huge-string", "huge-digits", "huge-int", "long-list",
         "controls", "control-key")  # fmt: skip
_MAX_POSITIONS = 512


def _positions(value: Any, out: list[tuple[Any, Any]]) -> None:
    """(container, key) of every value under ``value``, depth first, iteratively."""
    stack = [value]
    while stack and len(out) < _MAX_POSITIONS:
        node = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in list(pairs):
            out.append((node, key))
            if isinstance(child, (dict, list)):
                stack.append(child)


def amplify(document: Any, data: bytes) -> tuple[Any, str]:
    """A copy of ``document`` with one value made hostile, and the name of what was
    done: ``data[0]`` picks the kind, ``data[1:3]`` the size, ``data[3]`` the value."""
    data = data + bytes(4)
    kind = KINDS[data[0] % len(KINDS)]
    size = int.from_bytes(data[1:3], "big")
    document = copy.deepcopy(document) if isinstance(document, (dict, list)) else document
    if not isinstance(document, (dict, list)):
        return document, kind
    positions: list[tuple[Any, Any]] = []
    _positions(document, positions)
    if not positions:
        return document, kind
    node, key = positions[data[3] % len(positions)]
    value = node[key]
    control = CONTROLS[size % len(CONTROLS)]
    if kind.startswith("nest"):
        for _ in range(100 + size % 3000):
            value = {"a": value} if kind == "nest-dict" else [value]
    elif kind == "huge-string":
        value = (value if isinstance(value, str) and value else "Ж😀") * (1 + size * 4)
        value = value[:300_000]
    elif kind == "huge-digits":
        value = "9" * (20 + size % 100_000)
    elif kind == "huge-int":
        value = 10 ** (20 + size % 5_000)
    elif kind == "long-list":
        value = [value] * (1 + size % 5_000)
    elif kind == "controls":
        text = value if isinstance(value, str) else str(value)
        cut = size % (len(text) + 1)
        value = text[:cut] + control + text[cut:]
    elif isinstance(node, dict):  # control-key: the key that holds the value
        del node[key]
        key = f"{key}{control}"
    node[key] = value
    return document, kind

"""Quoting an input's values in error messages: bounded, and never raising.

Every message that quotes a value or a text of the input goes through :func:`shown`
or :func:`excerpt`, so a 10-million-character ``startIndex`` or error message gives a
line of a few hundred characters that still says how long the value was.
"""

from __future__ import annotations

import reprlib
from typing import Final

SHOWN_LIMIT: Final = 200
"""How many characters of an input's value an error message quotes, at most."""
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 4, 60, 60, 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8


def shown(value: object, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)`` for an error message, bounded: at most about ``limit``
    characters, with the whole length of what was cut, and never an exception (an int
    too long for ``str()``, a structure nested too deeply).

    >>> shown("Köln")
    "'Köln'"
    >>> shown("x" * 10_000_000, limit=5)
    "'xxxxx…' (10,000,000 characters)"
    >>> shown(-(10**5000))
    '-<a 16610-bit integer>'
    >>> shown(10**300)
    '<an integer of 301 digits>'
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        quoted = repr(value[:limit])
        return f"{quoted[:-1]}…{quoted[-1]} ({len(value):,} characters)"
    if isinstance(value, int):
        try:
            text = repr(value)
        except ValueError:  # more digits than sys.get_int_max_str_digits()
            return f"{'-' if value < 0 else ''}<a {value.bit_length()}-bit integer>"
        digits = len(text) - (value < 0)
        return text if len(text) <= limit else f"<an integer of {digits:,} digits>"
    try:
        text = _REPR.repr(value)  # bounded in depth, items and string lengths
    except Exception:  # an int inside too long for str(), a hostile __repr__
        text = f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def excerpt(text: str, limit: int = SHOWN_LIMIT) -> str:
    """``text`` (a message an input carries) for an error message: at most ``limit``
    characters, with the whole length when it was cut.

    >>> excerpt("quota exceeded")
    'quota exceeded'
    >>> excerpt("é" * 5_000, limit=3)
    'ééé… (5,000 characters)'
    """
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"

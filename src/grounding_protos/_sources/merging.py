"""What every source's merger shares: the protocol of mergers that take one event at a
time (:class:`EventMerger`, :class:`OneAnswerMerger`), SDK objects as plain JSON, and the
problems a cut stream gives. A merger ends at the source's merged final response; the
stream entry points (``_streams``) read it.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar, cast

from grounding_protos._core.access import get
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import shown
from grounding_protos._sources.common import is_list

# --- Reading an event's fields with their JSON types -----------------------------------------

T = TypeVar("T")

_EXPECTED: Final[dict[type, str]] = {
    str: "a string", int: "an integer", float: "a number", bool: "a boolean",
    dict: "an object", list: "a list", bytes: "bytes",
}  # fmt: skip


def json_kind(value: object) -> str:
    """What JSON type ``value`` has, for a message (``an integer``, ``null`` ...).

    >>> json_kind(5), json_kind(True), json_kind([]), json_kind(None)
    ('an integer', 'a boolean', 'a list', 'null')
    """
    if value is None:
        return "null"
    for kind in (bool, str, int, float, list, dict):
        if isinstance(value, kind):
            return _EXPECTED[kind]
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, tuple):
        return "a list"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes"
    return f"a {type(value).__name__}"


def _has(value: object, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is dict:
        return isinstance(value, Mapping)
    if kind is list:  # a protobuf repeated field too (the official clients' messages)
        return isinstance(value, (list, tuple)) or is_list(value)
    if kind is bytes:  # as boto3 or an event-stream parser gives them
        return isinstance(value, (bytes, bytearray, memoryview))
    return isinstance(value, kind)


def field(event: object, path: str, kind: type[T], *, number: int, at: str = "") -> T | None:
    """The value at the dotted ``path`` of a stream's event (dicts, or SDK objects with
    those attributes), checked to be of JSON type ``kind`` (``str``, ``int`` (no bool),
    ``float`` (any number), ``bool``, ``dict`` (any mapping), ``list``, ``bytes`` (as
    binary event streams send them)); ``None`` when it, or a record on the way, is
    absent or ``null``. ``at`` is where the event's value
    sits in the vendor's shape, for the message. This is every merger's one way to read
    a field: a value of another type meets this check, never a ``+`` or ``join``.

    >>> field({"delta": {"text": "Köln"}}, "delta.text", str, number=3)
    'Köln'
    >>> field({"delta": {}}, "delta.text", str, number=3) is None
    True
    >>> field({"delta": {"text": 5}}, "delta.text", str, number=3)
    Traceback (most recent call last):
    ...
    grounding_protos.StreamError: event 3: delta.text is an integer (5), not a string

    Raises:
        StreamError: a value on the way is not an object, or the value is not ``kind``;
            the message names the event's number and the field's path.
    """
    if type(event) is dict and path in event:  # the common case: one key, spelled as sent
        value = event[path]
        if type(value) is kind or value is None:
            found: T | None = value
            return found
    value = event
    done = at
    for name in path.split("."):
        if not (isinstance(value, Mapping) or _is_object(value)):
            raise StreamError(_wrong(done, value, dict), event=number)
        value = get(value, name)
        done = f"{done}.{name}" if done else name
        if value is None:
            return None
    if not _has(value, kind):
        raise StreamError(_wrong(done, value, kind), event=number)
    return cast("T", value)


def _is_object(value: object) -> bool:
    """An SDK object with fields (not a JSON scalar or list)."""
    return value is not None and not isinstance(
        value, (str, bytes, bytearray, int, float, bool, list, tuple)
    )


def _wrong(path: str, value: object, kind: type) -> str:
    return f"{path or 'the event'} is {json_kind(value)} ({shown(value)}), not {_EXPECTED[kind]}"


def items_of(event: object, path: str, *, number: int, at: str = "") -> list[Any]:
    """The list at ``path`` (see :func:`field`), empty when absent.

    Raises:
        StreamError: the value is not a list.
    """
    value = field(event, path, list, number=number, at=at)
    return list(value) if value is not None else []


def index_of(
    event: object, path: str, *, number: int, at: str = "", default: int | None = None
) -> int | None:
    """A non-negative index at ``path`` (below 2**20), ``default`` when absent.

    Raises:
        StreamError: the value is not such an index.
    """
    value = field(event, path, int, number=number, at=at)
    if value is None:
        return default
    if not 0 <= value < 1 << 20:
        where = f"{at}.{path}" if at else path
        raise StreamError(f"{where} {shown(value)} is not an index", event=number)
    return value


_BRACKETS = re.compile(r"[\[\]{}]")
MAX_INPUT_DEPTH: Final = 200
"""How deeply a tool call's input JSON, joined from a stream's pieces, may nest to be
parsed; deeper input is kept as the text that arrived, with a problem."""


def parse_input(data: str) -> tuple[object, str | None]:
    """A tool call's input JSON (joined from its pieces) parsed, or the text kept with
    the reason it was not (``None`` when it parsed): text that does not parse, or that
    nests deeper than :data:`MAX_INPUT_DEPTH` (never a ``RecursionError``).

    >>> parse_input('{"ort": "Köln"}'), parse_input("[" * 300 + "]" * 300)[1]
    (({'ort': 'Köln'}, None), 'nests deeper than 200 levels')
    """
    if _depth(data) > MAX_INPUT_DEPTH:
        return data, f"nests deeper than {MAX_INPUT_DEPTH} levels"
    try:
        return json.loads(data), None
    except (ValueError, RecursionError):
        return data, "does not parse"


def _depth(data: str) -> int:
    """How deeply JSON text nests, at most (brackets inside strings counted too: an
    overestimate, which only keeps more inputs as text)."""
    if data.count("[") + data.count("{") <= MAX_INPUT_DEPTH:
        return 0  # the common case: too few brackets to nest that deep, without a scan
    depth = deepest = 0
    for match in _BRACKETS.finditer(data):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class Pieces(list[str]):
    """A text's pieces while a stream is merged, joined once when the merged response
    is built: appending is constant time, where ``text += piece`` copies the text so
    far at every event."""


# --- Deltas or the whole so far ----------------------------------------------------------------


def cumulative(parts: Sequence[Any]) -> bool:
    """Whether a stream's parts (texts, or lists of replies) each hold the whole answer
    so far rather than a delta, by the one rule of ``docs/streams.md``: every non-empty
    part after the first starts with the non-empty part before it, and at least one is
    longer. A stream that repeats a part unchanged (``'Ja. '`` three times) or whose
    parts merely begin alike is read as deltas; a merger that takes parts as cumulative
    says so with :func:`cumulative_problem`.

    >>> cumulative(["Ja. ", "Ja. ", "Ja. "]), cumulative(["Köln ", "Köln am Rhein."])
    (False, True)
    >>> cumulative(["Köln ", "Köln am Rhein.", "Bonn"])
    False
    """
    given = [p for p in parts if p]
    grew = False
    try:
        for before, part in itertools.pairwise(given):
            if len(part) < len(before) or part[: len(before)] != before:
                return False
            grew = grew or len(part) > len(before)
    except RecursionError:  # parts nested too deeply to compare: not the same
        return False
    return grew


def cumulative_problem(parts: int, what: str, path: str) -> Problem:
    """The ``stream-cumulative`` problem of a stream whose ``parts`` parts were taken
    as cumulative (:func:`cumulative`): the last holds the answer."""
    return Problem(
        "stream-cumulative",
        f"each of the stream's {parts} parts repeats the {what} before it and adds to it: "
        "they were taken as cumulative (the last holds the answer), not as deltas",
        path,
    )


# --- Mergers that take one event at a time (the OpenAI family) ------------------------------


class EventMerger(Protocol):
    """A vendor's merger that takes a stream's events one at a time, so that
    ``StreamReader`` and the command line's live view can show the text as it arrives.

    ``add`` merges event ``number`` and puts the answer text it adds into ``texts``
    (by candidate: a chat completion's choice ``index``, else 0); ``finished`` says
    whether the vendor marked a candidate done; ``result`` is the vendor's final
    response the events add up to and what merging found (``stream-incomplete`` ...).
    """

    events: int

    def add(self, number: int, event: object, texts: dict[int, str] | None = None) -> None: ...

    def finished(self, candidate: int) -> bool: ...

    def result(self) -> tuple[object, list[Problem]]: ...


class OneAnswerMerger:
    """The part of an :class:`EventMerger` that the one-answer streams share (Anthropic
    Messages, Cohere v2 chat, Bedrock ConverseStream): ``add`` puts the text that the
    vendor's ``_add`` returns for an event into ``texts[0]``, and the one answer is
    finished when the stream's end event set ``stopped``.
    """

    events: int
    stopped: bool

    def finished(self, candidate: int) -> bool:
        """Whether the stream's end event came (one answer: ``candidate`` is not used)."""
        return self.stopped

    def add(self, number: int, value: object, texts: dict[int, str] | None = None) -> None:
        """Merge event ``number``; the answer text it adds goes into ``texts[0]``.

        Raises:
            StreamError: as the vendor's ``_add``.
        """
        text = self._add(number, value)
        if text and texts is not None:
            texts[0] = texts.get(0, "") + text

    def _add(self, number: int, value: object) -> str:
        """Merge event ``number``; return the answer text it adds."""
        raise NotImplementedError


def merge_with(
    factory: Callable[[], EventMerger],
) -> Callable[[Iterable[tuple[int, object]]], tuple[object, list[Problem]]]:
    """The whole-stream merger (``_streams.read``'s ``Merge``) of an :class:`EventMerger`."""

    def merge(events: Iterable[tuple[int, object]]) -> tuple[object, list[Problem]]:
        merger = factory()
        for number, event in events:
            merger.add(number, event)
        return merger.result()

    merge.__doc__ = f"The events merged by {getattr(factory, '__name__', 'the merger')}."
    return merge


def plain(value: object) -> Any:
    """An SDK (pydantic) object dumped to JSON-shaped dicts (fields left unset out); a
    dict or anything else as it is (the caller copies what it keeps)."""
    if type(value) is dict:
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(exclude_none=True)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values say the same, ``None`` entries of dicts counted as absent
    (compared as they are first: the common case costs one comparison). Values nested
    too deeply to compare are not the same."""
    try:
        return bool(a == b) or drop_none(a) == drop_none(b)
    except RecursionError:
        return False


def drop_none(value: Any) -> Any:
    """``value`` without ``None`` entries in its dicts, at every depth (a JSON ``null``
    is an absent field), for comparing what two events say."""
    if isinstance(value, Mapping):
        return {k: drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_none(v) for v in value]
    return value


def incomplete(events: int, what: str, path: str) -> Problem:
    """The ``stream-incomplete`` problem of a stream that ended before ``what``."""
    return Problem(
        "stream-incomplete",
        f"the stream ended after {events} events without {what} (interrupted?): the text "
        "and citations are those that arrived",
        path,
    )


@dataclass(frozen=True, slots=True)
class Placeable:
    """A citation that became placeable while a vendor's stream is merged (Anthropic,
    Cohere, Bedrock; the merger's ``track`` set, as ``StreamReader`` sets it): a small
    response of the vendor's shape holding that citation alone (``response``), where
    that response's answer text starts in the whole answer (``byte_base``,
    ``char_base``), and the citation's path in the merged response."""

    response: object
    byte_base: int
    char_base: int
    path: str

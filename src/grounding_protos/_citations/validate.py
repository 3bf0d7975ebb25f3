"""``validate``: every problem of a grounded answer, with the path to it; never raises.

It runs the same reading and resolution as ``extract`` (collecting instead of
raising), then checks the whole input tree: scores outside [0, 1], fields marked
``REQUIRED`` by ``google.api.field_behavior`` left unset, and (dicts) JSON values of
the wrong type for the schema. One quick walk (``_citations.quick_check``) first proves those
checks clean; the exact checks below, which spell the paths, run only where it is
not sure, so their results are the same either way.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from google.api import field_behavior_pb2  # type: ignore[import-untyped]
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from grounding_protos._citations.json_check import parses
from grounding_protos._citations.quick_check import json_clean, message_clean
from grounding_protos._core.access import get, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._core.raw import RawAnswer
from grounding_protos._core.resolve import resolve
from grounding_protos._exceptions import ArgumentValueError, UnsupportedInputError
from grounding_protos._offsets import Unit
from grounding_protos._proto.pool import is_repeated
from grounding_protos._proto.registry import message_class
from grounding_protos._public import public
from grounding_protos._quote import shown
from grounding_protos._sources.registry import read_input

_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")
_SCHEMA_OF_SHAPE = {
    "answer": "google.cloud.discoveryengine.v1.Answer",
    "grounding_metadata": "google.cloud.dialogflow.v2beta1.GroundingMetadata",
    "citation_metadata": "google.ai.generativelanguage.v1beta3.CitationMetadata",
}
_MAX_DEPTH = 200


def validate(
    obj: object,
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    unit: Unit | None = None,
) -> list[Problem]:
    """Every problem found in a grounded answer; an empty list when there is none.

    Accepts what :func:`grounding_protos.citations.extract` accepts. Checks offsets
    (out of range, inverted, inside a character, a ``part_index`` naming no text
    part), ``Segment.text`` against its byte slice, chunk indices and
    ``reference_id`` values, scores outside [0, 1], and ``REQUIRED`` fields left
    unset. Offsets can only be checked against a text: without one (in the input or
    as ``text=``) a ``text-missing`` problem says so. ``unit`` overrides what the
    shape's offsets are taken to count, as for ``read``.

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> answer = Answer(answer_text="Grüße", citations=[Answer.Citation(end_index=3)])
    >>> [str(p) for p in validate(answer)]
    ["citations[0].end_index: byte offset 3 splits 'ü' (U+00FC), which occupies bytes \
[2, 4) [offset-splits-character]"]

    Raises:
        ArgumentValueError: ``unit`` is not a unit name, or does not apply to the shape.
        UnsupportedInputError: ``obj`` is neither a message, a mapping nor an object
            with the fields of a supported shape.
    """
    if unit is not None and unit not in ("byte", "char", "utf16"):
        raise ArgumentValueError(f"unit must be 'byte', 'char' or 'utf16', not {unit!r}")
    obj = unwrap(obj)
    problems: list[Problem] = []
    if type(obj) is dict:
        try:
            raw = read_input(obj, candidate=candidate, unit=unit)
        except UnsupportedInputError as exc:  # what it saw and the shapes known, as read says
            return [*_scores(obj), Problem("unrecognized-input", str(exc), "")]
        # one quick walk; the exact checks (and their paths) only where it is not sure
        targets = _targets(obj, raw, candidate)
        scores_clean, types_clean = json_clean(
            obj, [(part, message_class(name).DESCRIPTOR) for part, name, _ in targets]
        )
        if not scores_clean:
            problems += _scores(obj)
        if not types_clean:
            problems += _json_types(targets)
    else:
        if isinstance(obj, Message):
            if not message_clean(obj):
                problems += _required(obj, "")
                problems += _scores(obj)
        else:
            problems += _scores(obj)
        try:
            raw = read_input(obj, candidate=candidate, unit=unit)
        except UnsupportedInputError as exc:
            if isinstance(obj, Message):
                return problems  # a message with no citations: field checks only
            if isinstance(obj, Mapping):  # what it saw and the shapes known, as read says
                return [*problems, Problem("unrecognized-input", str(exc), "")]
            raise
        if isinstance(obj, Mapping):
            problems += _json_types(_targets(obj, raw, candidate))
    try:
        resolution = resolve(raw, text, mode="collect")
    except Exception as exc:
        return [*problems, Problem("invalid-text", str(exc), "")]
    problems += resolution.problems
    if resolution.text is None and raw.spans:
        problems.append(
            Problem(
                "text-missing",
                f"no answer text in the input and no text= given: the offsets of "
                f"{len(raw.spans)} spans were not checked",
                "",
            )
        )
    return problems


# --- REQUIRED fields ----------------------------------------------------------------


@functools.cache
def _is_required(field: FieldDescriptor) -> bool:
    behaviors = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.REQUIRED in behaviors


@functools.cache
def _layout(descriptor: Any) -> tuple[tuple[FieldDescriptor, ...], tuple[FieldDescriptor, ...]]:
    """A message type's REQUIRED fields, and the message fields to look into."""
    fields = descriptor.fields
    required = tuple(f for f in fields if _is_required(f))
    nested = tuple(
        f
        for f in fields
        if f.message_type is not None and not f.message_type.GetOptions().map_entry
    )  # fmt: skip: map values of our schemas are strings
    return required, nested


def _required(message: Message, path: str) -> list[Problem]:
    """REQUIRED fields left unset, recursively.

    Scalars without presence (proto3 ``int64 start_index``) are not checked: their
    default is a legitimate value and Google's JSON omits it.
    """
    problems: list[Problem] = []
    stack: list[tuple[Message, str, int]] = [(message, path, 0)]
    while stack:
        current, prefix, depth = stack.pop()
        required, nested = _layout(current.DESCRIPTOR)
        for field in required:
            if is_repeated(field):
                unset = len(getattr(current, field.name)) == 0
            elif field.has_presence:
                unset = not current.HasField(field.name)
            else:
                unset = field.type == FieldDescriptor.TYPE_STRING and not getattr(
                    current, field.name
                )
            if unset:
                problems.append(
                    Problem("required-field-missing", f"{field.name} is REQUIRED",
                            f"{prefix}{field.name}")
                )  # fmt: skip
        if depth >= _MAX_DEPTH:
            continue
        for field in nested:
            name = f"{prefix}{field.name}"
            if is_repeated(field):
                values = getattr(current, field.name)
                stack.extend((m, f"{name}[{i}].", depth + 1) for i, m in enumerate(values))
            elif current.HasField(field.name):
                stack.append((getattr(current, field.name), f"{name}.", depth + 1))
    return problems


# --- Scores -------------------------------------------------------------------------


def _scores(obj: object) -> list[Problem]:
    """Every ``*_score`` (and ``*_scores`` element) outside [0, 1] in the input tree.

    Paths are built only for the problems found: a node's place is kept as a chain
    ``(parent's place, key or index)`` and spelled (snake_case, ``[i]``) on demand.
    """
    problems: list[Problem] = []
    stack: list[tuple[object, _Place, int]] = [(obj, None, 0)]
    while stack:
        node, place, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        # REST JSON as it is; messages and SDK objects by their (snake_case) fields
        pairs: Iterable[tuple[object, object]] = (
            node.items() if type(node) is dict else _children(node)
        )
        for key, value in pairs:
            if type(key) is not str:
                continue
            kind = type(value)
            score = _is_score(key)
            if score == 1:  # a *_score field; None (JSON null) is an absent one
                if value is not None and (
                    kind is not float or not 0.0 <= value <= 1.0  # type: ignore[operator]
                ):
                    _check_score(value, _spell((place, key)), problems)
                continue
            if kind in _LEAVES and score == 0:
                continue  # most of a response: a scalar that is no score
            if score == 2:  # a *_scores field
                if kind is list and all(
                    type(v) is float and 0.0 <= v <= 1.0
                    for v in value  # type: ignore[attr-defined]
                ):
                    continue  # the common case: nothing wrong
                for i, v in _elements(value):
                    if i is not None:
                        _check_score(v, _spell(((place, key), i)), problems)
            elif kind is list:
                elements: list[object] = value  # type: ignore[assignment]
                here = (place, key)
                stack.extend(
                    ((item, (here, i), depth + 1)
                     for i, item in enumerate(elements) if type(item) not in _LEAVES)
                )  # fmt: skip
            else:
                for i, item in _elements(value):
                    stack.append((item, (place, key) if i is None else ((place, key), i),
                                  depth + 1))  # fmt: skip
    return problems


# Where a node is: None for the root, else (the parent's place, a field name or an index).
_Place = Any


def _is_score(key: str) -> int:
    """1 for a ``*_score`` field, 2 for ``*_scores``, 0 otherwise, by the snake_case
    name (``groundingScore`` is ``grounding_score``); cached per key."""
    kind = _SCORE_KINDS.get(key)
    if kind is None:
        name = _snake(key)
        kind = 1 if name.endswith("_score") else 2 if name.endswith("_scores") else 0
        if len(_SCORE_KINDS) < 4096:
            _SCORE_KINDS[key] = kind
    return kind


_SCORE_KINDS: dict[str, int] = {}


def _spell(place: _Place) -> str:
    """The path of a place: ``candidates[0].grounding_metadata.grounding_supports[3]``."""
    parts: list[str] = []
    while place is not None:
        place, step = place
        parts.append(f"[{step}]" if type(step) is int else "." + _snake(step))
    return "".join(reversed(parts)).lstrip(".")


def _check_score(value: object, path: str, problems: list[Problem]) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        problems.append(
            Problem("score-not-a-number", f"expected a number, got {shown(value)}", path)
        )
    elif not (0.0 <= value <= 1.0) or math.isnan(value):
        try:
            score = repr(float(value))
        except OverflowError:  # an int too large for a float
            score = shown(value)
        problems.append(Problem("score-out-of-range", f"score {score} is outside [0, 1]", path))


_LEAVES = frozenset({str, int, float, bool, type(None), bytes})
_SNAKES: dict[str, str] = {}


def _snake(key: str) -> str:
    name = _SNAKES.get(key)
    if name is None:
        name = _SNAKE.sub("_", key).lower()
        if len(_SNAKES) < 4096:
            _SNAKES[key] = name
    return name


@functools.cache
def _score_fields(descriptor: Any) -> tuple[tuple[str, bool, bool], ...]:
    """``(name, repeated, has presence)`` of a message type's fields that are scores
    (``*_score``, ``*_scores``) or messages to look into, in field-number order."""
    out = []
    for field in sorted(descriptor.fields, key=lambda f: f.number):
        message = field.message_type
        nested = message is not None and not message.GetOptions().map_entry
        if nested or field.name.endswith(("_score", "_scores")):
            out.append((field.name, is_repeated(field), field.has_presence))
    return tuple(out)


def _children(node: object) -> Iterator[tuple[str, object]]:
    if isinstance(node, Message):
        # only the fields that can be or hold a score, as ListFields() would list them
        for name, repeated, presence in _score_fields(node.DESCRIPTOR):
            value = getattr(node, name)
            if repeated:
                if len(value):
                    yield name, value
            elif node.HasField(name) if presence else value != 0:
                yield name, value
    elif isinstance(node, Mapping):
        for key, value in node.items():
            if isinstance(key, str):
                yield _snake(key), value
    elif hasattr(node, "model_dump"):  # google-genai (pydantic) objects
        try:
            dumped = node.model_dump(exclude_none=True)
        except Exception:
            return
        if isinstance(dumped, Mapping):
            yield from _children(dumped)


def _elements(value: object) -> Iterator[tuple[int | None, object]]:
    if isinstance(value, (Message, Mapping)) or hasattr(value, "model_dump"):
        yield None, value
    elif isinstance(value, (list, tuple)) or (
        hasattr(value, "__len__") and hasattr(value, "__getitem__")
        and not isinstance(value, (str, bytes))
    ):  # fmt: skip
        try:
            yield from enumerate(value)  # type: ignore[arg-type]
        except TypeError:
            return


# --- JSON value types ---------------------------------------------------------------


def _targets(obj: Mapping[Any, Any], raw: RawAnswer, candidate: int) -> list[tuple[Any, str, str]]:
    """The parts of a dict whose values are checked against a schema: ``(part, message
    type's full name, path)``."""
    body: object = obj
    if raw.prefix == "answer.":
        body = get(obj, "answer")
    elif raw.prefix.startswith("candidates["):
        candidates = get(obj, "candidates")
        body = candidates[candidate] if isinstance(candidates, list) else None
    if raw.shape in _SCHEMA_OF_SHAPE:
        targets = [(body, _SCHEMA_OF_SHAPE[raw.shape], raw.prefix.rstrip("."))]
    elif raw.shape == "candidate":
        names = ("grounding_metadata", "citation_metadata")
        targets = [(get(body, n), _SCHEMA_OF_SHAPE[n], raw.prefix + n) for n in names]
    else:
        targets = []
    return [
        (part, full_name, path)
        for part, full_name, path in targets
        if isinstance(part, Mapping)
        and not (full_name.endswith(".CitationMetadata") and "citations" in part)
    ]  # the Gemini/Vertex spelling of citation metadata is not the v1beta3 schema


def _json_types(targets: list[tuple[Any, str, str]]) -> list[Problem]:
    """Values of the wrong JSON type, as json_format reports them against our schema."""
    from grounding_protos._codec.codec import from_dict  # only when the quick proof fails

    problems = []
    for part, full_name, path in targets:
        if parses(message_class(full_name).DESCRIPTOR, part):
            continue  # certainly parses: spare building the message
        try:
            from_dict(full_name, part, ignore_unknown_fields=True)
        except Exception as exc:  # JSONParseError, or worse on hostile input
            problems.append(Problem("invalid-json-value", str(exc), path))
    return problems


public("grounding_protos", validate)

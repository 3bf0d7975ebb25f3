"""Quick proofs that ``validate``'s whole-tree checks find nothing, in one walk.

``validate`` checks every score (``*_score`` fields, ``*_scores`` elements) against
[0, 1], the ``REQUIRED`` fields of messages, and the JSON value types of the parts of a
dict that have a schema. Each of those checks walks the whole tree and spells paths.
Here one walk per input answers a cheaper question: *certainly nothing to report?*
It uses per-type plans (made once): for messages, only the fields that are scores,
``REQUIRED``, or lead to a type that has some; for JSON, each key's field, type check
and score kind. Anything unusual answers "not certain" and ``validate`` then runs the
exact checks, so this makes ``validate`` faster, never different.

>>> from grounding_protos.discoveryengine_v1 import Answer, SafetyRating
>>> message_clean(Answer(grounding_score=0.5))
True
>>> message_clean(SafetyRating(severity_score=3.0))
False
>>> json_clean({"groundingSupports": [{"confidenceScores": [0.5, 2]}]}, ())
(False, True)
"""

from __future__ import annotations

import datetime
import functools
import math
import re
import threading
from collections.abc import Sequence
from typing import Any

from google.api import field_behavior_pb2  # type: ignore[import-untyped]
from google.protobuf.descriptor import FieldDescriptor

from grounding_protos._citations.json_check import FLOAT_MAX, INT_RANGES
from grounding_protos._proto.pool import is_repeated

_MAX_DEPTH = 60  # deeper inputs are left to the exact checks
_T = FieldDescriptor
_NUMBERS = (float, int)

# --- Messages: REQUIRED fields and scores ------------------------------------------------


@functools.cache
def _is_required(field: FieldDescriptor) -> bool:
    behaviors = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
    return field_behavior_pb2.REQUIRED in behaviors


def _score_kind(name: str) -> int:
    """1 for a ``*_score`` name, 2 for ``*_scores``, 0 otherwise (snake_case names)."""
    return 1 if name.endswith("_score") else 2 if name.endswith("_scores") else 0


# A message type's plan: (certainly unclean if set, REQUIRED fields as (name, how),
# singular float scores, repeated float scores, message fields to look into as
# (name, repeated)); how: 0 repeated, 1 has presence, 2 a string, 3 not checked.
_MessagePlan = tuple[
    bool,
    tuple[tuple[str, int], ...],
    tuple[str, ...],
    tuple[str, ...],
    tuple[tuple[str, bool], ...],
]
_PLANS: dict[Any, _MessagePlan] = {}
_FLOATS = (_T.TYPE_FLOAT, _T.TYPE_DOUBLE)


def _nested(descriptor: Any) -> list[FieldDescriptor]:
    """The message fields that ``validate``'s walks look into (maps excluded)."""
    return [
        f
        for f in descriptor.fields
        if f.message_type is not None and not f.message_type.GetOptions().map_entry
    ]


def _has_checks(descriptor: Any) -> bool:
    return any(_is_required(f) or _score_kind(f.name) for f in descriptor.fields)


@functools.cache
def _relevant(descriptor: Any) -> frozenset[Any]:
    """The types reachable from ``descriptor`` whose subtree has a score or a REQUIRED
    field (a fixpoint over the reachable types, so recursive types are fine)."""
    reachable: dict[Any, list[Any]] = {}
    todo = [descriptor]
    while todo:
        current = todo.pop()
        if current in reachable:
            continue
        children = [f.message_type for f in _nested(current)]
        reachable[current] = children
        todo.extend(children)
    relevant = {d for d in reachable if _has_checks(d)}
    changed = True
    while changed:
        changed = False
        for d, children in reachable.items():
            if d not in relevant and any(c in relevant for c in children):
                relevant.add(d)
                changed = True
    return frozenset(relevant)


def _message_plan(descriptor: Any) -> _MessagePlan:
    relevant = _relevant(descriptor)
    odd = False
    required: list[tuple[str, int]] = []
    singles: list[str] = []
    lists: list[str] = []
    for field in descriptor.fields:
        repeated = is_repeated(field)
        if _is_required(field):
            how = 0 if repeated else 1 if field.has_presence else 2
            if how == 2 and field.type != _T.TYPE_STRING:
                how = 3  # a scalar without presence: its default is legitimate
            if how != 3:
                required.append((field.name, how))
        kind = _score_kind(field.name)
        if kind == 1 and not repeated and field.type in _FLOATS:
            singles.append(field.name)
        elif kind == 2 and repeated and field.type in _FLOATS:
            lists.append(field.name)
        elif kind:
            odd = True  # a score of another type: leave it to the exact check
    nested = tuple(
        (f.name, is_repeated(f)) for f in _nested(descriptor) if f.message_type in relevant
    )
    plan = (odd, tuple(required), tuple(singles), tuple(lists), nested)
    _PLANS[descriptor] = plan
    return plan


def message_clean(message: Any, depth: int = 0) -> bool:
    """Whether a message certainly has no REQUIRED field unset and no score outside
    [0, 1] anywhere in its tree; ``False`` means "run the exact checks"."""
    descriptor = message.DESCRIPTOR
    plan = _PLANS.get(descriptor)
    if plan is None:
        plan = _message_plan(descriptor)
    odd, required, singles, lists, nested = plan
    if odd or depth > _MAX_DEPTH:
        return False
    for name, how in required:
        if how == 0:
            if not len(getattr(message, name)):
                return False
        elif how == 1:
            if not message.HasField(name):
                return False
        elif not getattr(message, name):
            return False
    for name in singles:
        if not 0.0 <= getattr(message, name) <= 1.0:  # NaN fails too
            return False
    for name in lists:
        for value in getattr(message, name):
            if not 0.0 <= value <= 1.0:
                return False
    for name, repeated in nested:
        if repeated:
            for item in getattr(message, name):
                if not message_clean(item, depth + 1):
                    return False
        elif message.HasField(name) and not message_clean(getattr(message, name), depth + 1):
            return False
    return True


# --- JSON: value types and scores ---------------------------------------------------------

SCORES = 1  # a score might be reported
TYPES = 2  # a value might not parse as its schema says
_BOTH = SCORES | TYPES
_LEAVES = frozenset({str, int, float, bool, type(None), bytes})

# How to check one JSON value against its field.
_STR, _BOOL, _MESSAGE, _ENUM, _FLOAT, _INT, _TIMESTAMP, _STRUCT, _NO = range(9)

# A key's plan: (fast case, the field's other spelling or None, oneof index or -1,
# repeated, check, argument, score kind of the key). The fast cases are the common
# field kinds whose usual values are proved in a line; anything else, or an unusual
# value, goes through the general check of one field.
_KeyPlan = tuple[int, str | None, int, bool, int, Any, int]
_GENERAL, _F_MESSAGE, _F_MESSAGES, _F_STR, _F_STRS, _F_INT, _F_INTS, _F_SCORE, _F_SCORES = range(9)


_JSON_PLANS: dict[Any, dict[str, _KeyPlan]] = {}
_PLAN_LOCK = threading.Lock()


def json_plan(descriptor: Any) -> dict[str, _KeyPlan]:
    """A message type's plan per JSON key (JSON name and proto name), made once; the
    plans of message fields are the argument of their keys."""
    plan = _JSON_PLANS.get(descriptor)
    if plan is None:
        with _PLAN_LOCK:
            made: dict[Any, dict[str, _KeyPlan]] = {}
            plan = _make_plan(descriptor, made)
            _JSON_PLANS.update(made)  # published whole: no thread sees a plan half made
    return plan


def _make_plan(descriptor: Any, made: dict[Any, dict[str, _KeyPlan]]) -> dict[str, _KeyPlan]:
    plan = _JSON_PLANS.get(descriptor) or made.get(descriptor)
    if plan is not None:
        return plan
    out: dict[str, _KeyPlan] = {}
    made[descriptor] = out  # before the fields: recursive types point to it
    for field in descriptor.fields:
        oneof = field.containing_oneof
        check, argument = _check(field)
        if check == _MESSAGE:
            argument = _make_plan(argument, made)
        repeated = is_repeated(field)
        for key in {field.name, field.json_name}:
            # both spellings in one dict are found from the proto name's side
            other = field.json_name if key == field.name != field.json_name else None
            score = score_kind(key)
            out[key] = (
                _fast_case(check, repeated, score),
                other,
                oneof.index if oneof is not None else -1,
                repeated,
                check,
                argument,
                score,
            )
    return out


def _fast_case(check: int, repeated: bool, score: int) -> int:
    if score == 1:
        return _F_SCORE if check == _FLOAT and not repeated else _GENERAL
    if score == 2:
        return _F_SCORES if check == _FLOAT and repeated else _GENERAL
    cases = {_MESSAGE: (_F_MESSAGE, _F_MESSAGES), _STR: (_F_STR, _F_STRS), _INT: (_F_INT, _F_INTS)}
    pair = cases.get(check)
    return _GENERAL if pair is None else pair[repeated]


def _check(field: FieldDescriptor) -> tuple[int, Any]:
    kind = field.type
    if kind == _T.TYPE_STRING:
        return _STR, None
    if kind == _T.TYPE_BOOL:
        return _BOOL, None
    if kind == _T.TYPE_MESSAGE:
        message = field.message_type
        if message is not None and message.full_name == "google.protobuf.Timestamp":
            return _TIMESTAMP, None
        if message is not None and message.full_name == "google.protobuf.Struct":
            return _STRUCT, None
        if message is None or message.full_name.startswith("google.protobuf."):
            return _NO, None  # wrappers, Duration, …: their own JSON forms
        if message.GetOptions().map_entry:
            return _NO, None
        return _MESSAGE, message
    if kind == _T.TYPE_ENUM and field.enum_type is not None:
        values = field.enum_type.values
        return _ENUM, (frozenset(v.name for v in values), frozenset(v.number for v in values))
    if kind in _FLOATS:
        return _FLOAT, None
    bounds = INT_RANGES.get(kind)
    if bounds is None:
        return _NO, None  # bytes, groups
    return _INT, bounds


_SCORE_KINDS: dict[str, int] = {}
_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")  # as validate spells paths


def score_kind(key: str) -> int:
    """The score kind of a JSON key by its snake_case spelling (``groundingScore`` is
    ``grounding_score``): 1 ``*_score``, 2 ``*_scores``, 0 neither; cached per key."""
    kind = _SCORE_KINDS.get(key)
    if kind is None:
        kind = _score_kind(_SNAKE.sub("_", key).lower())
        if len(_SCORE_KINDS) < 4096:
            _SCORE_KINDS[key] = kind
    return kind


def _score_ok(value: object) -> bool:
    return type(value) in _NUMBERS and 0.0 <= value <= 1.0  # type: ignore[operator]


def _scores_ok(value: object) -> bool:
    return type(value) is list and all(_score_ok(v) for v in value)


def _key_scores_ok(score: int, value: object) -> bool:
    """The value of a key of score kind ``score`` (1 or 2) holds only scores in [0, 1];
    ``None`` (JSON ``null``) is an absent field."""
    if score == 2 and type(value) is list:
        for v in value:  # floats first; NaN fails the comparison too
            if (type(v) is not float or not 0.0 <= v <= 1.0) and not _score_ok(v):
                return False
        return True
    if value is None:
        return True
    return _score_ok(value) if score == 1 else _scores_ok(value)


def json_clean(
    obj: dict[Any, Any], targets: Sequence[tuple[dict[Any, Any], Any]]
) -> tuple[bool, bool]:
    """``(no score problem, no JSON type problem)``, each certain when ``True``.

    ``targets`` are the parts of ``obj`` (the dicts themselves, found within three
    levels) with the message type their values are checked against.
    """
    left = {id(part): descriptor for part, descriptor in targets}
    bad = _walk(obj, 0, left)
    if left:
        bad |= TYPES  # a part the walk did not reach (or not as a dict)
    return not bad & SCORES, not bad & TYPES


def _walk(node: object, depth: int, targets: dict[int, Any]) -> int:
    """Scores anywhere under a JSON node (dicts and lists only); the target parts are
    checked against their schema on the way."""
    if depth > _MAX_DEPTH:
        return _BOTH
    kind = type(node)
    if kind is list:
        bad = 0
        for item in node:  # type: ignore[attr-defined]
            if type(item) not in _LEAVES:
                bad |= _walk(item, depth + 1, targets)
                if bad & SCORES:
                    return bad
        return bad
    if kind is not dict:
        return _BOTH  # a Mapping, a message, an SDK object: the exact checks know
    if depth <= 3 and id(node) in targets:
        descriptor = targets.pop(id(node))
        return _typed(json_plan(descriptor), node, depth, targets)  # type: ignore[arg-type]
    bad = 0
    for key, value in node.items():  # type: ignore[attr-defined]
        if type(key) is not str:
            continue
        score = _SCORE_KINDS.get(key)
        if score is None:
            score = score_kind(key)
        if score == 0:
            if type(value) not in _LEAVES:
                bad |= _walk(value, depth + 1, targets)
                if bad & SCORES:
                    return bad
        elif not _key_scores_ok(score, value):
            return bad | SCORES
    return bad


def _typed(
    plans: dict[str, _KeyPlan], data: dict[Any, Any], depth: int, targets: dict[int, Any]
) -> int:
    """Types and scores of a dict that should parse as the plans' message type."""
    if depth > _MAX_DEPTH:
        return _BOTH
    bad = 0
    oneofs = 0
    for key, value in data.items():
        plan = plans.get(key)
        if plan is None:  # an unknown field: ignored by the parser, but it may hold scores
            if type(key) is not str:
                continue
            score = _SCORE_KINDS.get(key)
            if score is None:
                score = score_kind(key)
            if score == 0:
                if type(value) not in _LEAVES:
                    bad |= _walk(value, depth + 1, targets)
                    if bad == _BOTH:
                        return bad
            elif not _key_scores_ok(score, value):
                bad |= SCORES
            continue
        fast, other, oneof, _, _, argument, _ = plan
        if other is not None and other in data:
            bad |= TYPES  # both spellings of one field
        if value is None:
            continue  # null: the field is absent (json_format clears it, oneofs too)
        if oneof >= 0:
            if oneofs >> oneof & 1:
                bad |= TYPES  # two members of a oneof
            oneofs |= 1 << oneof
        kind = type(value)
        if fast == _F_INT:
            if kind is int and argument[0] <= value <= argument[1]:
                continue
        elif fast == _F_STR:
            if kind is str:
                continue
        elif fast == _F_MESSAGE:
            if kind is dict:
                bad |= _typed(argument, value, depth + 1, targets)
                if bad == _BOTH:
                    return bad
                continue
        elif fast == _F_INTS:
            if kind is list:
                low, high = argument
                for v in value:
                    if type(v) is not int or not low <= v <= high:
                        break
                else:
                    continue
        elif fast == _F_SCORE:
            if kind is float and 0.0 <= value <= 1.0:
                continue
        elif fast == _F_SCORES:
            if kind is list:
                for v in value:  # NaN fails the comparison too
                    if type(v) is not float or not 0.0 <= v <= 1.0:
                        break
                else:
                    continue
        elif fast == _F_MESSAGES:
            if kind is list:
                item_plans = argument
                for item in value:
                    if type(item) is dict:
                        bad |= _typed(item_plans, item, depth + 1, targets)
                    else:
                        bad |= _field(plan, item, depth, targets, True)
                    if bad == _BOTH:
                        return bad
                continue
        elif fast == _F_STRS and kind is list:
            for v in value:
                if type(v) is not str:
                    break
            else:
                continue
        bad |= _field(plan, value, depth, targets, False)
        if bad == _BOTH:
            return bad
    return bad


def _field(plan: _KeyPlan, value: Any, depth: int, targets: dict[int, Any], item: bool) -> int:
    """The general check of one field's value (or, ``item``, of one element of a
    repeated message field); what ``_typed``'s fast cases do not prove."""
    repeated, check, argument, score = plan[3], plan[4], plan[5], plan[6]
    bad = 0
    if not item:
        if score == 1:
            if not _score_ok(value):
                bad |= SCORES
        elif score == 2 and not _scores_ok(value):
            bad |= SCORES
    if repeated and not item:
        if type(value) is not list:
            bad |= TYPES
            if not score and type(value) not in _LEAVES:
                bad |= _walk(value, depth + 1, targets)
        elif check == _MESSAGE:
            for element in value:
                bad |= _field(plan, element, depth, targets, True)
        else:
            for element in value:
                bad |= _scalar(check, argument, element, depth, targets, score)
    elif check == _MESSAGE and type(value) is dict:
        bad |= _typed(argument, value, depth + 1, targets)
    else:
        bad |= _scalar(check, argument, value, depth, targets, score)
    return bad


def _scalar(
    check: int, argument: Any, value: Any, depth: int, targets: dict[int, Any], score: int
) -> int:
    """A value that is no message of the schema: its type, and scores inside it."""
    if _value_ok(check, argument, value):
        if check == _STRUCT and not score:  # any JSON object: it may hold scores
            return _walk(value, depth + 1, targets)
        return 0
    if not score and type(value) not in _LEAVES:
        return TYPES | _walk(value, depth + 1, targets)
    return TYPES


def _value_ok(check: int, argument: Any, value: object) -> bool:
    """Whether a scalar JSON value certainly parses for its field (as ``parses``)."""
    kind = type(value)
    if check == _STR:
        return kind is str
    if check == _FLOAT:
        if kind is float:
            return math.isfinite(value) and abs(value) <= FLOAT_MAX  # type: ignore[arg-type]
        return kind is int and abs(value) <= 2**53  # type: ignore[arg-type]
    if check == _INT:
        if kind is str:
            text: str = value  # type: ignore[assignment]
            digits = text[1:] if text.startswith("-") else text
            if not (digits.isascii() and digits.isdigit()) or len(text) > 21:
                return False
            number = int(text)
        elif kind is int:
            number = value  # type: ignore[assignment]
        else:
            return False
        return bool(argument[0] <= number <= argument[1])
    if check == _BOOL:
        return kind is bool
    if check == _ENUM:
        if kind is str:
            return value in argument[0]
        return kind is int and value in argument[1]
    if check == _TIMESTAMP:
        return _timestamp_ok(value)
    if check == _STRUCT:
        return _struct_ok(value, 0)
    return False  # a message that is no dict, or a field of its own JSON form


_TIMESTAMP_FORM = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,9})?Z"
)
_STRUCT_DEPTH = 12  # JSON levels of a Struct: each costs json_format two of its 100


def _timestamp_ok(value: object) -> bool:
    """An RFC 3339 time in UTC (``2024-05-01T12:00:00.5Z``) on a real calendar day, in
    years 1 to 9999: the form Google's JSON uses, which certainly parses."""
    match = _TIMESTAMP_FORM.fullmatch(value) if type(value) is str else None
    if match is None:
        return False
    try:
        year, month, day, hour, minute, second = map(int, match.groups())
        datetime.datetime(year, month, day, hour, minute, second)
    except ValueError:  # day 30 of February, second 60, year 0
        return False
    return True


def _struct_ok(value: object, depth: int) -> bool:
    """A JSON object of plain JSON values that certainly parses as a ``Struct``."""
    if type(value) is not dict or depth > _STRUCT_DEPTH:
        return False
    return all(type(k) is str and _plain_ok(v, depth) for k, v in value.items())


def _plain_ok(value: object, depth: int) -> bool:
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    if kind is int:
        return abs(value) <= 2**53  # type: ignore[arg-type]
    if kind is dict:
        return _struct_ok(value, depth + 1)
    if kind is list and depth < _STRUCT_DEPTH:
        return all(_plain_ok(v, depth + 1) for v in value)  # type: ignore[attr-defined]
    return False

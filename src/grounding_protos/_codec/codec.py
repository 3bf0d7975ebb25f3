"""The proto3 JSON codec: json_format's results through per-type compiled plans.

Each public function looks up the plan for (message class, options) in a dict, and
builds it on first use (``_codec.plan``). What a plan does not cover goes to
json_format itself. When a plan meets a problem while parsing, json_format is run
on the same input and has the last word: its error is raised as
:class:`~grounding_protos.JSONParseError` (with the JSON path the plan found), and
should it accept the input, its result is returned.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

from google.protobuf import json_format
from google.protobuf.descriptor_pool import DescriptorPool
from google.protobuf.message import Message

from grounding_protos._codec import plan as _codec_plan
from grounding_protos._codec import runtime as _codec_support
from grounding_protos._codec import text as _codec_text
from grounding_protos._exceptions import ArgumentTypeError, ArgumentValueError
from grounding_protos._proto import pool as _pool
from grounding_protos._proto.errors import JSONParseError
from grounding_protos._proto.registry import resolve_class
from grounding_protos._public import public
from grounding_protos._quote import SHOWN_LIMIT, excerpt

M = TypeVar("M", bound=Message)

_TO_DICT_PARAMS = frozenset(inspect.signature(json_format.MessageToDict).parameters)
_TO_JSON_PARAMS = frozenset(inspect.signature(json_format.MessageToJson).parameters)

_Emitter = Callable[[Message], Any]
_Parser = Callable[[Any, Message, int], None]
_emitters: dict[tuple[type[Message], bool, bool, bool, bool], _Emitter | None] = {}
_parsers: dict[tuple[type[Message], bool], _Parser | None] = {}
#: How often a plan gave up on input that json_format then accepted (slow, still
#: right; the tests check that valid JSON never needs it).
rescued = 0


def _planned(descriptor: Any) -> bool:
    """Only the package's own pool is planned; other messages go to json_format."""
    try:
        return _pool.POOL.FindMessageTypeByName(descriptor.full_name) is descriptor
    except KeyError:
        return False


# --- to_dict / to_json ------------------------------------------------------------------


def _emitter(key: tuple[type[Message], bool, bool, bool, bool]) -> _Emitter | None:
    descriptor = key[0].DESCRIPTOR
    plan = None
    unquote_known = "unquote_int64_if_possible" in _TO_DICT_PARAMS
    if _planned(descriptor) and (unquote_known or not key[4]):
        plan = _codec_plan.emit_plan(descriptor, _codec_plan.EmitOptions(*key[1:]))
    emitter = plan.entry if plan is not None else None
    _emitters[key] = emitter
    return emitter


def _printer_options(
    preserving_proto_field_name: bool,
    use_integers_for_enums: bool,
    always_print_fields_with_no_presence: bool,
    float_precision: int | None,
    unquote_int64_if_possible: bool,
    descriptor_pool: DescriptorPool | None,
    params: frozenset[str],
) -> dict[str, Any]:
    """json_format's keyword arguments; an option the runtime lacks is a TypeError."""
    options: dict[str, Any] = {
        "preserving_proto_field_name": preserving_proto_field_name,
        "use_integers_for_enums": use_integers_for_enums,
        "always_print_fields_with_no_presence": always_print_fields_with_no_presence,
        "descriptor_pool": descriptor_pool,
    }
    for name, value, unset in (
        ("float_precision", float_precision, None),
        ("unquote_int64_if_possible", unquote_int64_if_possible, False),
    ):
        if value is not unset and value != unset:
            if name not in params:
                raise ArgumentTypeError(
                    f"{name} is not an option of json_format on this protobuf runtime"
                )
            options[name] = value
    return options


def _check_message(message: object) -> Message:
    if not isinstance(message, Message):
        raise ArgumentTypeError(f"expected a protobuf message, not {type(message).__name__}")
    return message


def to_dict(
    message: Message,
    *,
    preserving_proto_field_name: bool = False,
    use_integers_for_enums: bool = False,
    always_print_fields_with_no_presence: bool = False,
    float_precision: int | None = None,
    unquote_int64_if_possible: bool = False,
    descriptor_pool: DescriptorPool | None = None,
) -> dict[str, Any]:
    """The message as a JSON-ready dict: ``json_format.MessageToDict``'s result, faster.

    The options are json_format's, with the same meaning; ``float_precision``
    (protobuf < 7, deprecated) and ``unquote_int64_if_possible`` (protobuf >= 7) only
    where the installed runtime has them.

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> to_dict(Answer(answer_text="Hi", citations=[Answer.Citation(end_index=2)]))
    {'answerText': 'Hi', 'citations': [{'endIndex': '2'}]}
    """
    key = (
        type(message),
        preserving_proto_field_name,
        use_integers_for_enums,
        always_print_fields_with_no_presence,
        unquote_int64_if_possible,
    )
    try:
        emitter = _emitters[key]
    except KeyError:
        emitter = _emitter(key) if isinstance(message, Message) else None
    if emitter is not None and not float_precision:
        try:
            return emitter(message)  # type: ignore[no-any-return]
        except Exception:
            pass  # json_format raises its own error (or, should it not, gives the result)
    options = _printer_options(
        preserving_proto_field_name,
        use_integers_for_enums,
        always_print_fields_with_no_presence,
        float_precision,
        unquote_int64_if_possible,
        descriptor_pool,
        _TO_DICT_PARAMS,
    )
    return json_format.MessageToDict(_check_message(message), **options)


def to_json(
    message: Message,
    *,
    indent: int | str | None = 2,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    preserving_proto_field_name: bool = False,
    use_integers_for_enums: bool = False,
    always_print_fields_with_no_presence: bool = False,
    float_precision: int | None = None,
    unquote_int64_if_possible: bool = False,
    descriptor_pool: DescriptorPool | None = None,
) -> str:
    """The message as JSON text: ``json_format.MessageToJson``'s text, faster.

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> print(to_json(Answer(answer_text="東京", grounding_score=0.5), indent=None))
    {"answerText": "\\u6771\\u4eac", "groundingScore": 0.5}
    """
    if float_precision:
        options = _printer_options(
            preserving_proto_field_name,
            use_integers_for_enums,
            always_print_fields_with_no_presence,
            float_precision,
            unquote_int64_if_possible,
            descriptor_pool,
            _TO_JSON_PARAMS,
        )
        return json_format.MessageToJson(
            _check_message(message),
            indent=indent,  # type: ignore[arg-type]
            sort_keys=sort_keys,
            ensure_ascii=ensure_ascii,
            **options,
        )
    data = to_dict(
        message,
        preserving_proto_field_name=preserving_proto_field_name,
        use_integers_for_enums=use_integers_for_enums,
        always_print_fields_with_no_presence=always_print_fields_with_no_presence,
        unquote_int64_if_possible=unquote_int64_if_possible,
        descriptor_pool=descriptor_pool,
    )
    # The text json_format's json.dumps call makes (with a faster indenting writer).
    return _codec_text.dumps(data, indent, sort_keys, ensure_ascii)


# --- from_dict / from_json ----------------------------------------------------------------


def _parser(key: tuple[type[Message], bool]) -> _Parser | None:
    descriptor = key[0].DESCRIPTOR
    plan = None
    if _planned(descriptor):
        _codec_support.probe_depth_rules(_pool.message_class("google.protobuf.Struct"))
        plan = _codec_plan.parse_plan(descriptor, key[1])
    parser = plan.entry if plan is not None else None
    _parsers[key] = parser
    return parser


def _target(message_type: type[M] | M | str) -> tuple[Message, bool]:
    if isinstance(message_type, Message):
        return message_type, False
    return resolve_class(message_type)(), True


@overload
def from_dict(
    message_type: type[M],
    data: Any,
    *,
    ignore_unknown_fields: bool = ...,
    max_recursion_depth: int = ...,
    descriptor_pool: DescriptorPool | None = ...,
) -> M: ...
@overload
def from_dict(
    message_type: M,
    data: Any,
    *,
    ignore_unknown_fields: bool = ...,
    max_recursion_depth: int = ...,
    descriptor_pool: DescriptorPool | None = ...,
) -> M: ...
@overload
def from_dict(
    message_type: str,
    data: Any,
    *,
    ignore_unknown_fields: bool = ...,
    max_recursion_depth: int = ...,
    descriptor_pool: DescriptorPool | None = ...,
) -> Message: ...
def from_dict(
    message_type: type[M] | M | str,
    data: Any,
    *,
    ignore_unknown_fields: bool = False,
    max_recursion_depth: int = 100,
    descriptor_pool: DescriptorPool | None = None,
) -> Message:
    """A message from its JSON dict: ``json_format.ParseDict``'s result, faster.

    ``message_type`` is a message class or type name (a new message is returned), or
    a message, which ``data`` is merged into as ``ParseDict`` does (and returned).
    Both the JSON (camelCase) and the proto field names are accepted.

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> from_dict(Answer, {"answerText": "Hi", "citations": [{"end_index": "2"}]})
    answer_text: "Hi"
    citations {
      end_index: 2
    }
    <BLANKLINE>

    Raises:
        JSONParseError: ``data`` does not fit the type, where json_format raises
            ``ParseError``; the message and ``path`` name the JSON path.
    """
    target, fresh = _target(message_type)
    return _parse(data, target, fresh, ignore_unknown_fields, max_recursion_depth, descriptor_pool)


def _parse(
    data: Any,
    target: Message,
    fresh: bool,
    ignore: bool,
    max_depth: int,
    pool: DescriptorPool | None,
) -> Message:
    key = (type(target), ignore)
    try:
        parser = _parsers[key]
    except KeyError:
        parser = _parser(key)
    if parser is None:
        return _json_format_parse(data, target, ignore, max_depth, pool)
    snapshot = None
    if not fresh:
        snapshot = type(target)()
        snapshot.CopyFrom(target)
    try:
        if type(data) is dict and max_depth >= 1:
            parser(data, target, max_depth - 1)
        else:
            _codec_support.message_value(data, parser, target, max_depth)
        return target
    except Exception as error:
        failure = _codec_support.fail_from(error)
    if snapshot is None:
        target.Clear()
    else:
        target.CopyFrom(snapshot)
    return _json_format_parse(data, target, ignore, max_depth, pool, failure)


def _json_format_parse(
    data: Any,
    target: Message,
    ignore: bool,
    max_depth: int,
    pool: DescriptorPool | None,
    failure: _codec_support.Fail | None = None,
) -> Message:
    """json_format's ParseDict, its errors raised as :class:`JSONParseError`."""
    try:
        result = json_format.ParseDict(data, target, ignore, pool, max_depth)
    except Exception as error:
        type_name = target.DESCRIPTOR.full_name
        if failure is not None:
            path = failure.path()
            if failure.exact:
                problem = failure.problem
                if problem == _codec_support.TOO_DEEP:
                    problem = problem.format(max_depth=max_depth)
            else:
                problem = _problem(error)
        else:
            path, problem = "", _problem(error)
        # json_format's own messages quote whole values: bounded, as ours are
        where = f" at {excerpt(path)}" if path else ""
        raise JSONParseError(
            f"invalid JSON for {type_name}{where}: {excerpt(problem, 2 * SHOWN_LIMIT)}", path=path
        ) from error
    if failure is not None:
        global rescued
        rescued += 1
    return result


def _problem(error: BaseException) -> str:
    if isinstance(error, json_format.ParseError):
        return str(error)
    if isinstance(error, RecursionError):  # protobuf < 7 lets it escape ParseDict raw
        return _codec_support.fail_from(error).problem
    return f"{type(error).__name__}: {error}"


@overload
def from_json(
    message_type: type[M],
    text: str | bytes,
    *,
    ignore_unknown_fields: bool = ...,
    max_recursion_depth: int = ...,
    descriptor_pool: DescriptorPool | None = ...,
) -> M: ...
@overload
def from_json(
    message_type: M,
    text: str | bytes,
    *,
    ignore_unknown_fields: bool = ...,
    max_recursion_depth: int = ...,
    descriptor_pool: DescriptorPool | None = ...,
) -> M: ...
@overload
def from_json(
    message_type: str,
    text: str | bytes,
    *,
    ignore_unknown_fields: bool = ...,
    max_recursion_depth: int = ...,
    descriptor_pool: DescriptorPool | None = ...,
) -> Message: ...
def from_json(
    message_type: type[M] | M | str,
    text: str | bytes,
    *,
    ignore_unknown_fields: bool = False,
    max_recursion_depth: int = 100,
    descriptor_pool: DescriptorPool | None = None,
) -> Message:
    """A message from JSON text (``str`` or UTF-8 ``bytes``): ``json_format.Parse``'s result.

    Duplicate keys are rejected, as json_format does.

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> from_json("Answer", '{"state": "SUCCEEDED"}').state == Answer.SUCCEEDED
    True
    >>> from_json(Answer, '{"citations": [{"startIndex": 1.5}]}')
    Traceback (most recent call last):
    ...
    grounding_protos.JSONParseError: invalid JSON for \
google.cloud.discoveryengine.v1.Answer at citations[0].startIndex: Couldn't parse integer: 1.5
    """
    target, fresh = _target(message_type)
    data = _load(text, target)
    return _parse(data, target, fresh, ignore_unknown_fields, max_recursion_depth, descriptor_pool)


def _load(text: str | bytes, target: Message) -> Any:
    """JSON text as Python values, as json_format.Parse loads it (no duplicate keys)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JSONParseError(
                f"invalid JSON for {target.DESCRIPTOR.full_name}: {error}"
            ) from error
    elif not isinstance(text, str):
        raise ArgumentTypeError(f"JSON text must be str or bytes, not {type(text).__name__}")
    try:
        return _codec_text.loads(text)
    except Exception as error:
        raise JSONParseError(
            f"invalid JSON for {target.DESCRIPTOR.full_name}: Failed to load JSON: {error}"
        ) from error


# --- Reusable per-type object ---------------------------------------------------------------


class Codec(Generic[M]):
    """JSON conversion for one message type with fixed options, reusable (msgspec style).

    The plans are looked up once, here, instead of at each call; the results are the
    module functions' (json_format's).

    >>> from grounding_protos.discoveryengine_v1 import Answer
    >>> answers = Codec(Answer, preserving_proto_field_name=True, indent=None)
    >>> answers.to_json(Answer(answer_text="Hi"))
    '{"answer_text": "Hi"}'
    >>> answers.from_json(b'{"answerText": "Hi"}') == Answer(answer_text="Hi")
    True
    """

    def __init__(
        self,
        message_type: type[M],
        *,
        preserving_proto_field_name: bool = False,
        use_integers_for_enums: bool = False,
        always_print_fields_with_no_presence: bool = False,
        unquote_int64_if_possible: bool = False,
        indent: int | str | None = 2,
        sort_keys: bool = False,
        ensure_ascii: bool = True,
        ignore_unknown_fields: bool = False,
        max_recursion_depth: int = 100,
    ) -> None:
        if not (isinstance(message_type, type) and issubclass(message_type, Message)):
            raise ArgumentTypeError(
                f"Codec takes a message class, not {type(message_type).__name__} "
                "(grounding_protos.message_class turns a name into one)"
            )
        self.message_type = message_type
        self._print = (
            preserving_proto_field_name,
            use_integers_for_enums,
            always_print_fields_with_no_presence,
            unquote_int64_if_possible,
        )
        self._text = (indent, sort_keys, ensure_ascii)
        self._ignore = ignore_unknown_fields
        self._max_depth = max_recursion_depth
        _printer_options(False, False, False, None, unquote_int64_if_possible, None,
                         _TO_DICT_PARAMS)  # fmt: skip
        key = (
            message_type,
            preserving_proto_field_name,
            use_integers_for_enums,
            always_print_fields_with_no_presence,
            unquote_int64_if_possible,
        )
        self._emit = _emitters[key] if key in _emitters else _emitter(key)

    def __repr__(self) -> str:
        return f"Codec({self.message_type.DESCRIPTOR.full_name})"

    def _check(self, message: object) -> M:
        if type(message) is not self.message_type:
            raise ArgumentTypeError(
                f"{self!r} converts {self.message_type.DESCRIPTOR.full_name}, "
                f"not {type(message).__name__}"
            )
        return message

    def to_dict(self, message: M) -> dict[str, Any]:
        """:func:`to_dict` with this codec's options."""
        if self._emit is not None and type(message) is self.message_type:
            try:
                return self._emit(message)  # type: ignore[no-any-return]
            except Exception:
                pass  # json_format gives its error
        preserving, integers, always, unquote = self._print
        return to_dict(
            self._check(message),
            preserving_proto_field_name=preserving,
            use_integers_for_enums=integers,
            always_print_fields_with_no_presence=always,
            unquote_int64_if_possible=unquote,
        )

    def to_json(self, message: M) -> str:
        """:func:`to_json` with this codec's options."""
        return _codec_text.dumps(self.to_dict(message), *self._text)

    def from_dict(self, data: Any, message: M | None = None) -> M:
        """:func:`from_dict`: a new message, or ``data`` merged into ``message``."""
        target = self.message_type() if message is None else self._check(message)
        _parse(data, target, message is None, self._ignore, self._max_depth, None)
        return target

    def from_json(self, text: str | bytes, message: M | None = None) -> M:
        """:func:`from_json`: a new message, or the JSON merged into ``message``."""
        target = self.message_type() if message is None else self._check(message)
        data = _load(text, target)
        _parse(data, target, message is None, self._ignore, self._max_depth, None)
        return target


# --- Inspection -------------------------------------------------------------------------------


def generated_source(
    message_type: type[Message] | str,
    kind: str = "to_dict",
    *,
    preserving_proto_field_name: bool = False,
    use_integers_for_enums: bool = False,
    always_print_fields_with_no_presence: bool = False,
    unquote_int64_if_possible: bool = False,
    ignore_unknown_fields: bool = False,
) -> str | None:
    """The Python source of the plan for a type (``kind``: ``"to_dict"`` or
    ``"from_dict"``), or ``None`` where the codec uses json_format itself.

    >>> print(generated_source("Answer.CitationSource"))  # doctest: +ELLIPSIS
    # to_dict plan for google.cloud.discoveryengine.v1.Answer.CitationSource, EmitOptions(...)
    <BLANKLINE>
    def to_dict_Answer_CitationSource(m):
        ...
        d = {}
        # 1: reference_id
        v = m.reference_id
        if v:
            d['referenceId'] = v
        return d
    <BLANKLINE>
    """
    descriptor = resolve_class(message_type).DESCRIPTOR
    if not _planned(descriptor):
        return None
    if kind == "to_dict":
        options = _codec_plan.EmitOptions(
            preserving_proto_field_name,
            use_integers_for_enums,
            always_print_fields_with_no_presence,
            unquote_int64_if_possible,
        )
        plan = _codec_plan.emit_plan(descriptor, options)
    elif kind == "from_dict":
        plan = _codec_plan.parse_plan(descriptor, ignore_unknown_fields)
    else:
        raise ArgumentValueError(f'kind must be "to_dict" or "from_dict", not {kind!r}')
    return None if plan is None else plan.source


public("grounding_protos.codec", to_dict, to_json, from_dict, from_json, Codec, generated_source)

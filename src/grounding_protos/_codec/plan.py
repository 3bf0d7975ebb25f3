"""Per-type conversion plans: Python source generated from descriptors, compiled once.

For a message type and a set of options, :func:`emit_plan` writes one function per
reachable message type that turns a message into json_format's dict (straight-line
code, fields in field-number order, the order of ``ListFields``), and
:func:`parse_plan` one function per type that merges a JSON object into a message
with json_format's ``ParseDict`` semantics. The source is compiled with ``exec``,
cached per (type, options) behind a lock, and kept for reading
(``grounding_protos.codec.generated_source``).

A type the plans do not cover (``Any``, wrapper types, extensions, closed enums,
custom JSON enum names) gets no plan (:class:`Unplanned`): the codec then uses
json_format itself.
"""

from __future__ import annotations

import keyword
import linecache
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from google.protobuf.descriptor import FieldDescriptor

from grounding_protos._codec import runtime as support
from grounding_protos._proto.pool import is_repeated
from grounding_protos._quote import excerpt, shown

F = FieldDescriptor
# Descriptor attributes are Optional in the stubs (message_type, enum_type…) where
# the field kind already says they are set; the plans check the kind, so Any here.
Descriptor = Any
EnumDescriptor = Any
Field = Any
_INT_TYPES = frozenset({F.CPPTYPE_INT32, F.CPPTYPE_UINT32, F.CPPTYPE_INT64, F.CPPTYPE_UINT64})
_INT64_TYPES = frozenset({F.CPPTYPE_INT64, F.CPPTYPE_UINT64})
# Well-known types converted by ToJsonString/FromJsonString, as json_format does.
_STRING_WKT = frozenset(
    {"google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask"}
)
_STRUCT_WKT = frozenset(
    {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}
)
_NULL_VALUE = "google.protobuf.NullValue"
_VALUE = "google.protobuf.Value"
_EXTENSION_NAME = re.compile(r"\[[a-zA-Z0-9\._]*\]$")  # json_format's pattern


class Unplanned(Exception):
    """The type (or one it contains) has something the plans do not cover."""


class EmitOptions(NamedTuple):
    """The json_format printing options a plan is made for."""

    preserving_proto_field_name: bool = False
    use_integers_for_enums: bool = False
    always_print_fields_with_no_presence: bool = False
    unquote_int64_if_possible: bool = False


@dataclass(frozen=True)
class Plan:
    """A compiled plan: ``entry`` for the root type and the source it came from."""

    entry: Callable[..., Any]
    source: str


# --- Shared ------------------------------------------------------------------------


def is_map(field: Field) -> bool:
    return bool(field.type == F.TYPE_MESSAGE and field.message_type.GetOptions().map_entry)


def is_wkt(descriptor: Descriptor) -> bool:
    return descriptor.full_name in _STRING_WKT or descriptor.full_name in _STRUCT_WKT


def _check_enum(enum: EnumDescriptor) -> None:
    if getattr(enum, "is_closed", False):
        raise Unplanned(f"closed enum {enum.full_name}")
    extension = support._enum_json_extension()
    if extension is None:
        return
    for value in enum.values:
        try:
            custom = value.GetOptions().HasExtension(extension)
        except Exception:  # options of another pool: be safe
            custom = True
        if custom:
            raise Unplanned(f"custom JSON enum names in {enum.full_name}")


def _check_type(descriptor: Descriptor) -> None:
    if descriptor.file.name == "google/protobuf/wrappers.proto":
        raise Unplanned(f"wrapper type {descriptor.full_name}")
    if descriptor.full_name == "google.protobuf.Any":
        raise Unplanned("google.protobuf.Any")
    if is_wkt(descriptor):
        return
    if descriptor.is_extendable or descriptor.extensions:
        raise Unplanned(f"extensions in {descriptor.full_name}")
    keys = {f.name for f in descriptor.fields} | {f.json_name for f in descriptor.fields}
    for oneof in descriptor.oneofs:
        if oneof.name in keys:  # json_format's duplicate check would mix them up
            raise Unplanned(f"oneof {oneof.name} named like a field")
    for field in descriptor.fields:
        if field.type == F.TYPE_ENUM:
            _check_enum(field.enum_type)


def reachable(root: Descriptor) -> list[Descriptor]:
    """The root and every message type under it that needs a function (not WKTs)."""
    found: dict[str, Descriptor] = {}
    todo = [root]
    while todo:
        descriptor = todo.pop()
        _check_type(descriptor)
        if descriptor.full_name in found or is_wkt(descriptor):
            continue
        found[descriptor.full_name] = descriptor
        for field in descriptor.fields:
            if field.type == F.TYPE_MESSAGE:
                if is_map(field):
                    value = field.message_type.fields_by_name["value"]
                    if value.type == F.TYPE_MESSAGE:
                        todo.append(value.message_type)
                    elif value.type == F.TYPE_ENUM:
                        _check_enum(value.enum_type)
                else:
                    todo.append(field.message_type)
    return list(found.values())


class _Source:
    """Lines of generated Python and the names it refers to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {}
        self.function_names: dict[str, str] = {}

    def add(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def constant(self, prefix: str, value: Any) -> str:
        for name, existing in self.names.items():
            if existing is value or (
                type(existing) is dict and existing == value and name.startswith(prefix)
            ):
                return name
        name = f"{prefix}{len(self.names)}"
        self.names[name] = value
        return name

    def function(self, kind: str, descriptor: Descriptor) -> str:
        key = descriptor.full_name
        if key not in self.function_names:
            package = descriptor.file.package
            short = key.removeprefix(f"{package}.") if package else key
            name = f"{kind}_{short.replace('.', '_')}"
            while name in self.function_names.values():
                name += "_"
            self.function_names[key] = name
        return self.function_names[key]

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _attr(target: str, field: Field) -> str:
    name = field.name
    if keyword.iskeyword(name) or not name.isidentifier():
        return f"getattr({target}, {name!r})"
    return f"{target}.{name}"


def _compile(source: _Source, entry: str, filename: str) -> Plan:
    text = source.text()
    namespace: dict[str, Any] = dict(source.names)
    exec(compile(text, filename, "exec"), namespace)
    # Tracebacks and debuggers show the generated lines.
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    return Plan(entry=namespace[entry], source=text)


_lock = threading.RLock()
_emit_plans: dict[tuple[str, EmitOptions], Plan | None] = {}
_parse_plans: dict[tuple[str, bool], Plan | None] = {}


# --- Emitting ------------------------------------------------------------------------


def emit_plan(descriptor: Descriptor, options: EmitOptions) -> Plan | None:
    """The cached to-dict plan for a type, or ``None`` where json_format must be used."""
    key = (descriptor.full_name, options)
    try:
        return _emit_plans[key]
    except KeyError:
        pass
    with _lock:
        if key not in _emit_plans:
            try:
                _emit_plans[key] = _build_emit(descriptor, options)
            except Unplanned:
                _emit_plans[key] = None
        return _emit_plans[key]


def _build_emit(root: Descriptor, options: EmitOptions) -> Plan:
    if is_wkt(root):
        raise Unplanned("a well-known type at the top")
    source = _Source()
    source.names.update(
        _nonfinite=support.nonfinite,
        _float32=support.float32,
        _b64encode=support.b64encode,
        _copysign=support.copysign,
        _struct_to=support.struct_to,
        _value_to=support.value_to,
        _list_value_to=support.list_value_to,
    )
    source.add(0, f"# to_dict plan for {root.full_name}, {options}")
    for descriptor in reachable(root):
        _emit_function(source, descriptor, options)
    return _compile(source, source.function("to_dict", root), f"<to_dict {root.full_name}>")


def _json_name(field: Field, options: EmitOptions) -> str:
    return str(field.name if options.preserving_proto_field_name else field.json_name)


def _emit_value(source: _Source, field: Field, x: str, options: EmitOptions) -> str:
    """An expression for json_format's ``_FieldToJsonObject(field, x)``."""
    cpp = field.cpp_type
    if cpp == F.CPPTYPE_MESSAGE:
        name = field.message_type.full_name
        if name in _STRING_WKT:
            return f"{x}.ToJsonString()"
        if name == "google.protobuf.Struct":
            return f"_struct_to({x})"
        if name == _VALUE:
            return f"_value_to({x})"
        if name == "google.protobuf.ListValue":
            return f"_list_value_to({x})"
        return f"{source.function('to_dict', field.message_type)}({x})"
    if cpp == F.CPPTYPE_ENUM:
        if options.use_integers_for_enums:
            return x
        if field.enum_type.full_name == _NULL_VALUE:
            return "None"
        names = {n: v.name for n, v in field.enum_type.values_by_number.items()}
        return f"{source.constant('_enum_names', names)}.get({x}, {x})"
    if field.type == F.TYPE_BYTES:
        return f"_b64encode({x})"
    if cpp in _INT64_TYPES:
        if options.unquote_int64_if_possible:
            return f"({x} if float({x}) == {x} else f'{{{x}}}')"
        return f"f'{{{x}}}'"
    if cpp == F.CPPTYPE_FLOAT:
        return f"_float32({x})"
    if cpp == F.CPPTYPE_DOUBLE:
        return f"({x} if {x} - {x} == 0.0 else _nonfinite({x}))"
    return x  # string, bool, 32-bit integers


def _inline_leaf(source: _Source, field: Field, options: EmitOptions) -> str | None:
    """An expression for an element of a repeated field whose message type has one
    scalar field without presence (``CitationSource``): saves a call per element."""
    message = field.message_type
    if message is None or is_wkt(message) or len(message.fields) != 1:
        return None
    (only,) = message.fields
    if (
        only.has_presence
        or is_repeated(only)
        or only.cpp_type in (F.CPPTYPE_MESSAGE, F.CPPTYPE_FLOAT, F.CPPTYPE_DOUBLE)
    ):
        return None
    key = _json_name(only, options)
    value = _emit_value(source, only, "y", options)
    if options.always_print_fields_with_no_presence:
        return f"{{{key!r}: {value}}} for y in ({_attr('x', only)},)"
    return f"({{{key!r}: {value}}} if (y := {_attr('x', only)}) else {{}})"


def _emit_default(field: Field, options: EmitOptions) -> str:
    """Source of json_format's value for an absent field without presence."""
    if is_map(field):
        return "{}"
    if is_repeated(field):
        return "[]"
    value = field.default_value
    cpp = field.cpp_type
    result: Any = value
    if cpp == F.CPPTYPE_ENUM and not options.use_integers_for_enums:
        if field.enum_type.full_name == _NULL_VALUE:
            result = None
        else:
            known = field.enum_type.values_by_number.get(value)
            result = known.name if known is not None else value
    elif field.type == F.TYPE_BYTES:
        result = support.b64encode(value)
    elif cpp in _INT64_TYPES:
        result = (
            value if options.unquote_int64_if_possible and float(value) == value else str(value)
        )
    elif cpp == F.CPPTYPE_FLOAT:
        result = support.float32(value)
    elif cpp == F.CPPTYPE_DOUBLE:
        result = support.nonfinite(value)
    elif cpp == F.CPPTYPE_BOOL:
        result = bool(value)
    return repr(result)


def _emit_function(source: _Source, descriptor: Descriptor, options: EmitOptions) -> None:
    add = source.add
    add(0, "")
    add(0, f"def {source.function('to_dict', descriptor)}(m):")
    add(1, f'"""{descriptor.full_name} as json_format.MessageToDict makes it."""')
    add(1, "d = {}")
    fields = sorted(descriptor.fields, key=lambda f: f.number)  # ListFields order
    which: dict[str, str] = {}
    for field in fields:
        key = _json_name(field, options)
        get = _attr("m", field)
        oneof = field.containing_oneof
        if oneof is not None and len(oneof.fields) > 1 and oneof.name not in which:
            which[oneof.name] = f"w{len(which)}"
            add(1, f"{which[oneof.name]} = m.WhichOneof({oneof.name!r})")
        add(1, f"# {field.number}: {field.name}")
        if is_map(field):
            key_field = field.message_type.fields_by_name["key"]
            value_field = field.message_type.fields_by_name["value"]
            if key_field.cpp_type == F.CPPTYPE_BOOL:
                key_expr = "('true' if k else 'false')"
            elif key_field.cpp_type == F.CPPTYPE_STRING:
                key_expr = "k"
            else:
                key_expr = "str(k)"
            value = _emit_value(source, value_field, "x", options)
            add(1, f"v = {get}")
            add(1, "if v:")
            # Keys then lookups, as json_format does; twice as fast as items() here.
            if value == "x":
                add(2, f"d[{key!r}] = {{{key_expr}: v[k] for k in v}}")
            else:
                add(2, f"d[{key!r}] = {{{key_expr}: {value} for k in v for x in (v[k],)}}")
        elif is_repeated(field):
            value = _inline_leaf(source, field, options) or _emit_value(source, field, "x", options)
            add(1, f"v = {get}")
            add(1, "if v:")
            call = re.fullmatch(r"(\w+)\(x\)", value)
            if value == "x":
                add(2, f"d[{key!r}] = v[:]")
            elif call:  # map() calls from C: a little faster than a comprehension
                add(2, f"d[{key!r}] = list(map({call.group(1)}, v[:]))")
            elif " for y in " in value:
                element, _, inner = value.partition(" for y in ")
                add(2, f"d[{key!r}] = [{element} for x in v[:] for y in {inner}]")
            else:  # a slice makes the element objects faster than iterating does
                add(2, f"d[{key!r}] = [{value} for x in v[:]]")
        elif oneof is not None and len(oneof.fields) > 1:
            add(1, f"if {which[oneof.name]} == {field.name!r}:")
            add(2, f"v = {get}")
            add(2, f"d[{key!r}] = {_emit_value(source, field, 'v', options)}")
        elif field.has_presence and field.cpp_type != F.CPPTYPE_MESSAGE:
            # proto3 `optional`: a value other than the default is set; only a
            # default one needs HasField (the cheaper check comes first).
            add(1, f"v = {get}")
            add(1, f"if v or m.HasField({field.name!r}):")
            add(2, f"d[{key!r}] = {_emit_value(source, field, 'v', options)}")
        elif field.has_presence:
            add(1, f"if m.HasField({field.name!r}):")
            add(2, f"v = {get}")
            add(2, f"d[{key!r}] = {_emit_value(source, field, 'v', options)}")
        else:
            add(1, f"v = {get}")
            if field.cpp_type in (F.CPPTYPE_FLOAT, F.CPPTYPE_DOUBLE):
                add(1, "if v or _copysign(1.0, v) < 0.0:  # -0.0 is set too")
            else:
                add(1, "if v:")
            add(2, f"d[{key!r}] = {_emit_value(source, field, 'v', options)}")
    if options.always_print_fields_with_no_presence:
        absent = [f for f in descriptor.fields if not f.has_presence]
        if absent:
            add(1, "# fields without presence, in declaration order")
        for field in absent:
            key = _json_name(field, options)
            add(1, f"if {key!r} not in d:")
            add(2, f"d[{key!r}] = {_emit_default(field, options)}")
    add(1, "return d")


# --- Parsing ---------------------------------------------------------------------------


def parse_plan(descriptor: Descriptor, ignore_unknown_fields: bool) -> Plan | None:
    """The cached from-dict plan for a type, or ``None`` where json_format must be used.

    The entry is ``parse(js, message, remaining)``: ``js`` a ``dict``, ``remaining``
    how many levels of messages may nest below ``message``.
    """
    key = (descriptor.full_name, ignore_unknown_fields)
    try:
        return _parse_plans[key]
    except KeyError:
        pass
    with _lock:
        if key not in _parse_plans:
            try:
                _parse_plans[key] = _build_parse(descriptor, ignore_unknown_fields)
            except Unplanned:
                _parse_plans[key] = None
        return _parse_plans[key]


def _build_parse(root: Descriptor, ignore: bool) -> Plan:
    if is_wkt(root):
        raise Unplanned("a well-known type at the top")
    source = _Source()
    source.names.update(
        _Fail=support.Fail,
        _TOO_DEEP=support.TOO_DEEP,
        _SKIP=support.SKIP,
        _FLOAT_MAX=support.FLOAT_MAX,
        _scalar=support.scalar,
        _convert_scalar=support.convert_scalar,
        _b64decode=support.b64decode,
        _timestamp_from=support.timestamp_from,
        _message_value=support.message_value,
        _support=support,
        _at=_at,
        _index=_index,
        _at_leaf=_at_leaf,
        _unknown=_unknown,
        _not_list=_not_list,
        _not_map=_not_map,
        _null_element=_null_element,
        _oneof_twice=_oneof_twice,
    )
    source.add(0, f"# from_dict plan for {root.full_name}, ignore_unknown_fields={ignore}")
    for descriptor in reachable(root):
        _parse_function(source, descriptor, ignore)
    entry = source.function("from_dict", root)
    return _compile(source, entry, f"<from_dict {root.full_name}>")


def _at(error: BaseException, part: str) -> support.Fail:
    """The :class:`support.Fail` for ``error``, with one more path part (outermost last)."""
    failure = support.fail_from(error)
    failure.parts.append(part)
    return failure


def _at_leaf(error: BaseException, key: str) -> support.Fail:
    """The :class:`support.Fail` for an error setting an inlined leaf field (path ``.key``)."""
    if isinstance(error, support.Fail):
        return error
    return _at(error, f".{key}")


def _index(items: list[Any], item: Any) -> int:
    """Where ``item`` is in ``items`` (for error paths: the loops keep no counter)."""
    for index, candidate in enumerate(items):
        if candidate is item:
            return index
    return -1


def _unknown(key: Any, ignore: bool, type_name: str) -> None:
    if type(key) is not str:
        raise support.Fail(f"object key {shown(key)} is not a string", exact=False)
    if _EXTENSION_NAME.match(key):  # rejected even with ignore_unknown_fields
        raise support.Fail(f"message type {type_name} has no extensions")
    if not ignore:
        raise support.Fail(f'message type {type_name} has no field named "{excerpt(key)}"')


def _not_list(value: Any, name: str) -> support.Fail:
    exact = not isinstance(value, tuple)  # newer runtimes take tuples
    return support.Fail(
        f"repeated field {name} must be a JSON array, not {shown(value)}", exact=exact
    )


def _not_map(value: Any, name: str) -> support.Fail:
    exact = not isinstance(value, dict)
    return support.Fail(f"map field {name} must be a JSON object, not {shown(value)}", exact=exact)


def _null_element() -> support.Fail:
    return support.Fail("null is not allowed as an element of a repeated field")


def _oneof_twice(name: str) -> support.Fail:
    return support.Fail(f'more than one field of oneof "{name}" is set')


class _Fields:
    """Per-type constants of a parse function: field descriptors and key codes."""

    def __init__(self, source: _Source, descriptor: Descriptor) -> None:
        self.fields = list(descriptor.fields)
        codes: dict[str, int] = {}
        for index, field in enumerate(self.fields):
            codes[field.name] = index
        for index, field in enumerate(self.fields):
            codes[field.json_name] = index  # json_format looks json names up first
        tag = source.function("from_dict", descriptor).removeprefix("from_dict_")
        self.codes = source.constant(f"_keys_{tag}_", codes)
        self.descriptors = source.constant(f"_fields_{tag}_", tuple(self.fields))
        self.names = source.constant(f"_names_{tag}_", tuple(f.name for f in self.fields))


def _parse_function(source: _Source, descriptor: Descriptor, ignore: bool) -> None:
    add = source.add
    consts = _Fields(source, descriptor)
    fields = consts.fields
    oneofs = {f.containing_oneof.name for f in fields if f.containing_oneof is not None}
    oneof_flags = {name: f"seen{i}" for i, name in enumerate(sorted(oneofs))}
    add(0, "")
    add(0, f"def {source.function('from_dict', descriptor)}(js, m, rem):")
    add(1, f'"""Merge JSON into a {descriptor.full_name} as json_format.ParseDict does."""')
    for flag in oneof_flags.values():
        add(1, f"{flag} = False")
    add(1, "k = None")
    add(1, "try:")
    add(2, "for k, v in js.items():")
    add(3, "try:")
    add(4, f"c = {consts.codes}[k]")
    add(3, "except KeyError:")
    add(4, f"_unknown(k, {ignore}, {descriptor.full_name!r})")
    add(4, "continue")
    if fields:
        _dispatch(source, consts, list(range(len(fields))), 3, ignore, oneof_flags)
    add(1, "except Exception as e:")
    add(2, "raise _at(e, '.' + k if type(k) is str else f'.{k!r}')")


def _null_statement(field: Field) -> str:
    """What ``null`` does to a field: clears it, except a Value (null_value) and a
    NullValue enum; json_format crashes on those when repeated (the rerun says so)."""
    is_value = field.type == F.TYPE_MESSAGE and field.message_type.full_name == _VALUE
    is_null = field.type == F.TYPE_ENUM and field.enum_type.full_name == _NULL_VALUE
    if (is_value or is_null) and is_repeated(field):
        return "raise _Fail('null for a repeated Value or NullValue field', exact=False)"
    if is_value:
        return f"{_attr('m', field)}.null_value = 0"
    if is_null:
        return f"{_attr('m', field)} = 0"
    return f"m.ClearField({field.name!r})"


def _dispatch(
    source: _Source,
    consts: _Fields,
    codes: list[int],
    indent: int,
    ignore: bool,
    flags: dict[str, str],
) -> None:
    """A balanced if-tree over the field codes, each leaf one field's code."""
    add = source.add
    if len(codes) == 1:
        _parse_field(source, consts, codes[0], indent, ignore, flags)
        return
    if len(codes) <= 3:
        for position, code in enumerate(codes):
            if position == len(codes) - 1:
                add(indent, "else:")
            else:
                add(indent, f"{'if' if position == 0 else 'elif'} c == {code}:")
            _parse_field(source, consts, code, indent + 1, ignore, flags)
        return
    middle = len(codes) // 2
    add(indent, f"if c < {codes[middle]}:")
    _dispatch(source, consts, codes[:middle], indent + 1, ignore, flags)
    add(indent, "else:")
    _dispatch(source, consts, codes[middle:], indent + 1, ignore, flags)


def _parse_field(
    source: _Source, consts: _Fields, code: int, indent: int, ignore: bool, flags: dict[str, str]
) -> None:
    add = source.add
    field = consts.fields[code]
    target = _attr("m", field)
    add(indent, f"# {field.name} ({field.json_name})")
    oneof = field.containing_oneof
    descriptor_ref = f"{consts.descriptors}[{code}]"
    null = _null_statement(field)
    if oneof is None and not is_repeated(field) and field.type != F.TYPE_MESSAGE:
        # The common case: null is tested only once the quick type tests failed.
        store = f"{target} = {{}}"
        _parse_scalar(source, field, "v", descriptor_ref, store, indent, ignore, null)
        return
    add(indent, "if v is None:  # null does not count for a oneof")
    add(indent + 1, null)
    add(indent, "else:")
    indent += 1
    if oneof is not None:
        flag = flags[oneof.name]
        add(indent, f"if {flag}:")
        add(indent + 1, f"raise _oneof_twice({oneof.name!r})")
        add(indent, f"{flag} = True")
    if is_map(field):
        _parse_map(source, field, target, indent, ignore)
    elif is_repeated(field):
        add(indent, "if type(v) is not list:")
        add(indent + 1, f"raise _not_list(v, {field.json_name!r})")
        add(indent, f"r = {target}")
        add(indent, "if r:  # json_format replaces what was there")
        add(indent + 1, f"m.ClearField({field.name!r})")
        add(indent + 1, f"r = {target}")
        add(indent, "x = None")
        add(indent, "try:")
        regular = field.type == F.TYPE_MESSAGE and not is_wkt(field.message_type)
        if regular:
            function = source.function("from_dict", field.message_type)
            add(indent + 1, "add = r.add")
            add(indent + 1, "if rem > 0:")
            add(indent + 2, "rem1 = rem - 1")
            add(indent + 2, "for x in v:")
            leaf = _single_string_leaf(field.message_type)
            if leaf is not None:  # {"referenceId": "…"}: set here, no call
                json_name, name = leaf
                shape = f"len(x) == 1 and type(y := x.get({json_name!r})) is str"
                add(indent + 3, f"if type(x) is dict and {shape}:")
                add(indent + 4, f"add().{name} = y")
                add(indent + 3, "elif type(x) is dict:")
            else:
                add(indent + 3, "if type(x) is dict:")
            add(indent + 4, f"{function}(x, add(), rem1)")
            add(indent + 3, "elif x is None:")
            add(indent + 4, "raise _null_element()")
            add(indent + 3, "else:")
            add(indent + 4, f"_message_value(x, {function}, add(), rem)")
            add(indent + 1, "else:")
            add(indent + 2, "for x in v:")
            add(indent + 3, "if x is None:")
            add(indent + 4, "raise _null_element()")
            add(indent + 3, f"_message_value(x, {function}, add(), rem)")
        elif field.type == F.TYPE_MESSAGE:
            add(indent + 1, "add = r.add")
            add(indent + 1, "for x in v:")
            add(indent + 2, "s = add()")
            if field.message_type.full_name != _VALUE:
                add(indent + 2, "if x is None:")
                add(indent + 3, "raise _null_element()")
            _parse_message_into(source, field.message_type, "x", "s", indent + 2)
        else:
            add(indent + 1, "append = r.append")
            add(indent + 1, "for x in v:")
            add(indent + 2, "if x is None:")
            add(indent + 3, "raise _null_element()")
            _parse_scalar(source, field, "x", descriptor_ref, "append({})", indent + 2, ignore)
        add(indent, "except Exception as e:")
        leaf = _single_string_leaf(field.message_type) if regular else None
        if leaf is not None:  # an error setting the inlined field is one level deeper
            add(indent + 1, f"raise _at(_at_leaf(e, {leaf[0]!r}), f'[{{_index(v, x)}}]')")
        else:
            add(indent + 1, "raise _at(e, f'[{_index(v, x)}]')")
    elif field.type == F.TYPE_MESSAGE:
        add(indent, f"s = {target}")
        add(indent, "s.SetInParent()")
        _parse_message_into(source, field.message_type, "v", "s", indent)
    else:
        _parse_scalar(source, field, "v", descriptor_ref, f"{target} = {{}}", indent, ignore)


def _single_string_leaf(message: Descriptor) -> tuple[str, str] | None:
    """(JSON name, name) of the one field of a type that has one string field."""
    if is_wkt(message) or len(message.fields) != 1:
        return None
    (only,) = message.fields
    if only.type != F.TYPE_STRING or is_repeated(only) or only.containing_oneof is not None:
        return None
    if keyword.iskeyword(only.name) or not only.name.isidentifier():
        return None
    return only.json_name, only.name


def _parse_message_into(source: _Source, message: Descriptor, x: str, s: str, indent: int) -> None:
    """Statements converting ``x`` into the (present) sub-message ``s``."""
    add = source.add
    name = message.full_name
    if name in _STRING_WKT:
        add(indent, "if rem <= 0:")
        add(indent + 1, "raise _Fail(_TOO_DEEP)")
        if name == "google.protobuf.Timestamp":
            add(indent, f"_timestamp_from({x}, {s})")
        else:
            add(indent, f"{s}.FromJsonString({x})")
    elif name in _STRUCT_WKT:
        # Looked up at each call: the parsers are made once the depth rules are known.
        helper = {
            "google.protobuf.Struct": "_support.struct_from",
            _VALUE: "_support.value_from",
            "google.protobuf.ListValue": "_support.list_value_from",
        }[name]
        extra = ", False" if name == _VALUE else ""  # this level is counted here
        add(indent, "if rem <= 0:")
        add(indent + 1, "raise _Fail(_TOO_DEEP)")
        add(indent, f"{helper}({x}, {s}, rem - 1{extra})")
    else:
        function = source.function("from_dict", message)
        add(indent, f"if type({x}) is dict and rem > 0:")
        add(indent + 1, f"{function}({x}, {s}, rem - 1)")
        add(indent, "else:")
        add(indent + 1, f"_message_value({x}, {function}, {s}, rem)")


def _parse_scalar(
    source: _Source,
    field: Field,
    x: str,
    descriptor_ref: str,
    store: str,
    indent: int,
    ignore: bool,
    null: str | None = None,
) -> None:
    """Statements converting scalar ``x``; ``store`` formats the statement that sets it,
    ``null`` (if given) is what a JSON null does."""
    add = source.add
    cpp = field.cpp_type
    slow = f"_scalar({x}, {descriptor_ref}, {ignore})"
    if cpp == F.CPPTYPE_ENUM:
        names = {v.name: v.number for v in field.enum_type.values}
        table = source.constant("_enum_numbers", names)
        add(indent, f"if type({x}) is str:")
        add(indent + 1, f"n = {table}.get({x})")
        add(indent + 1, "if n is None:")
        add(indent + 2, f"n = {slow}")
        add(indent, f"elif type({x}) is int:")
        add(indent + 1, f"n = {x}")
        if null is not None:
            add(indent, f"elif {x} is None:")
            add(indent + 1, null)
            add(indent + 1, "n = _SKIP")
        add(indent, "else:")
        add(indent + 1, f"n = {slow}")
        add(indent, "if n is not _SKIP:")
        add(indent + 1, store.format("n"))
        return
    if cpp == F.CPPTYPE_STRING and field.type == F.TYPE_BYTES:
        fast_check, fast_value = f"type({x}) is str", f"_b64decode({x})"
    elif cpp == F.CPPTYPE_STRING:
        # No check for surrogates: protobuf refuses them when the field is set.
        fast_check, fast_value = f"type({x}) is str", x
    elif cpp == F.CPPTYPE_BOOL:
        fast_check, fast_value = f"type({x}) is bool", x
    elif cpp in _INT_TYPES:
        as_int = (f"if type({x}) is int:", store.format(x))
        as_str = (f"if type({x}) is str and ' ' not in {x}:", None)
        # 64-bit integers come as JSON strings, the others as numbers: test that first.
        tests = [as_str, as_int] if cpp in _INT64_TYPES else [as_int, as_str]
        for number, (test, statement) in enumerate(tests):
            add(indent, test if number == 0 else "el" + test)
            if statement is not None:
                add(indent + 1, statement)
            else:
                add(indent + 1, "try:")
                add(indent + 2, f"n = int({x})")
                add(indent + 1, "except ValueError:")
                add(indent + 2, f"n = {slow}")
                add(indent + 1, store.format("n"))
        _otherwise(source, x, null, store.format(slow), indent)
        return
    elif cpp == F.CPPTYPE_FLOAT:
        fast_check = f"type({x}) is float and -_FLOAT_MAX <= {x} <= _FLOAT_MAX"
        fast_value = x
    else:  # double
        add(indent, f"if type({x}) is float and {x} - {x} == 0.0:")
        add(indent + 1, store.format(x))
        add(indent, f"elif type({x}) is int:")
        add(indent + 1, store.format(f"float({x})"))
        _otherwise(source, x, null, store.format(slow), indent)
        return
    add(indent, f"if {fast_check}:")
    add(indent + 1, store.format(fast_value))
    _otherwise(source, x, null, store.format(slow), indent)


def _otherwise(source: _Source, x: str, null: str | None, statement: str, indent: int) -> None:
    """The last branches of a scalar: null (where it is handled here), then the rest."""
    if null is not None:
        source.add(indent, f"elif {x} is None:")
        source.add(indent + 1, null)
    source.add(indent, "else:")
    source.add(indent + 1, statement)


def _parse_map(source: _Source, field: Field, target: str, indent: int, ignore: bool) -> None:
    add = source.add
    key_field = field.message_type.fields_by_name["key"]
    value_field = field.message_type.fields_by_name["value"]
    key_ref = source.constant("_field", key_field)
    value_ref = source.constant("_field", value_field)
    add(indent, "if type(v) is not dict:")
    add(indent + 1, f"raise _not_map(v, {field.json_name!r})")
    add(indent, f"m.ClearField({field.name!r})")
    add(indent, "if v:")
    add(indent + 1, f"mp = {target}")
    add(indent + 1, "kk = None")
    add(indent + 1, "try:")
    add(indent + 2, "for kk, x in v.items():")
    body = indent + 3
    key_cpp = key_field.cpp_type
    if key_cpp == F.CPPTYPE_STRING:
        add(body, "if type(kk) is str:")
        add(body + 1, "key = kk")
    elif key_cpp == F.CPPTYPE_BOOL:
        add(body, "if kk == 'true' or kk == 'false':")
        add(body + 1, "key = kk == 'true'")
    else:
        add(body, "if type(kk) is str and kk.isdigit() and kk.isascii():")
        add(body + 1, "key = int(kk)  # map keys are always strings in JSON")
    add(body, "else:")
    add(body + 1, f"key = _convert_scalar(kk, {key_ref}, True)")
    if value_field.type == F.TYPE_MESSAGE:
        add(body, "s = mp[key]")
        _parse_message_into(source, value_field.message_type, "x", "s", body)
    else:
        _parse_scalar(source, value_field, "x", value_ref, "mp[key] = {}", body, ignore)
    add(indent + 1, "except Exception as e:")
    add(indent + 2, "raise _at(e, f'[{kk}]')")


def iter_plans() -> Iterator[tuple[str, Plan | None]]:
    """Every plan built so far (for tests and debugging)."""
    with _lock:
        items = [(f"to_dict {k[0]}", p) for k, p in _emit_plans.items()]
        items += [(f"from_dict {k[0]}", p) for k, p in _parse_plans.items()]
    yield from items

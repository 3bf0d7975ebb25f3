"""Input and output of the command line: reading files and stdin, the message formats,
and writing only where the user said.

Every problem here becomes a :class:`Failure`: one line for stderr and an exit status.
Nothing in this module prints; ``cli.main`` does.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, Final, Literal, Protocol

if TYPE_CHECKING:
    from google.protobuf.message import Message

EXIT_OK: Final = 0
EXIT_PROBLEMS: Final = 1
EXIT_USAGE: Final = 2

Format = Literal["json", "binary", "text", "base64", "jsonl"]
FORMATS: Final = ("json", "binary", "text", "base64", "jsonl")
STDIN_LABEL: Final = "<stdin>"
_WHITESPACE: Final = re.compile(rb"\s+")
# The library's hint names its Python function; on the command line, name the command.
_LISTED_BY: Final = re.compile(
    r"\(the (\d+) known types are listed by grounding_protos\.message_types\(\)\)"
)


class ByteSink(Protocol):
    """What output is written to: a binary file, stdout's buffer, or a text front."""

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class Failure(Exception):
    """A command cannot go on: ``message`` is the one line for stderr, ``code`` the exit status."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


# --- Reading ----------------------------------------------------------------------------


def label_of(path: str | None) -> str:
    """How an input is named in messages: its path, or ``<stdin>``."""
    return STDIN_LABEL if path in (None, "-") else str(path)


def open_input(path: str | None) -> IO[bytes]:
    """A binary stream for ``path`` (``None`` or ``-``: stdin).

    Without a path, a terminal on stdin is refused (the command would only wait); an
    explicit ``-`` reads the terminal, as ``cat -`` does.
    """
    if path in (None, "-"):
        stdin = sys.stdin
        if stdin is None:
            raise Failure("no input: stdin is closed; give a FILE")
        if path is None and _isatty(stdin):
            raise Failure("no input: give a FILE, or pipe the data to stdin (or use '-')")
        buffer = getattr(stdin, "buffer", None)
        if buffer is None:  # a text stream without bytes beneath (some test harnesses)
            import io

            return io.BytesIO(stdin.read().encode("utf-8"))
        return buffer  # type: ignore[no-any-return]
    try:
        return open(path, "rb")  # the caller closes it
    except OSError as exc:
        raise Failure(f"cannot read {path!r}: {exc.strerror or exc}") from exc


DEFAULT_INPUT_LIMIT: Final = 64 * 1024 * 1024


class _Limits:
    """What ``--max-input`` set for this run (``main`` sets it; 0 is no limit)."""

    input: int = DEFAULT_INPUT_LIMIT


LIMITS: Final = _Limits()


def parse_size(value: str) -> int:
    """``--max-input``: bytes, with an optional K, M or G suffix (powers of 1024).

    >>> parse_size("64M"), parse_size("1500"), parse_size("0")
    (67108864, 1500, 0)
    """
    text = value.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit() or not digits.isascii():
        raise ValueError(f"expected a size such as 64M, 500K or 1000000, got {value!r}")
    return int(digits) * scale


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"


def too_large(what: str) -> Failure:
    """The error for an input (or a batch line) past ``--max-input``."""
    limit = LIMITS.input
    return Failure(
        f"{what} is larger than the input limit of {_size(limit)}: raise it with "
        "--max-input SIZE (such as 1G; 0 for no limit)"
    )


def read_limited(stream: IO[bytes], label: str) -> bytes:
    """All of ``stream``, refused past the input limit (``/dev/zero`` never ends)."""
    limit = LIMITS.input
    if not limit:
        return stream.read()
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise too_large(label)
    return data


def limited_lines(stream: IO[bytes], label: str) -> Iterator[bytes]:
    """The lines of a batch, each refused past the input limit (read at most that far)."""
    limit = LIMITS.input
    if not limit:
        yield from stream
        return
    for number, line in enumerate(iter(lambda: stream.readline(limit + 1), b""), 1):
        if len(line) > limit:
            raise too_large(f"line {number} of {label}")
        yield line


def read_input(path: str | None) -> bytes:
    """All bytes of a FILE or of stdin, up to the input limit."""
    stream = open_input(path)
    try:
        return read_limited(stream, label_of(path))
    except OSError as exc:
        raise Failure(f"cannot read {label_of(path)!r}: {exc.strerror or exc}") from exc
    finally:
        if path not in (None, "-"):
            stream.close()


def read_text_file(path: str) -> str:
    """A ``--text FILE``: its exact contents as UTF-8 (``-`` is stdin)."""
    return decode_utf8(read_input(path), label_of(path), strip_bom=False)


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        return False


# --- Decoding -----------------------------------------------------------------------------


def at(label: str, message: str) -> str:
    """``message`` prefixed with the input's label (no prefix for an empty label)."""
    return f"{label}: {message}" if label else message


def decode_utf8(data: bytes, label: str, *, strip_bom: bool = True) -> str:
    """``data`` as UTF-8 text; a UTF-8 byte order mark is dropped when ``strip_bom``."""
    if strip_bom and data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Failure(
            at(
                label,
                f"not UTF-8 text: {exc.reason} at byte {exc.start} "
                f"(0x{data[exc.start]:02X}); binary input needs --from binary or base64",
            )
        ) from exc


def parse_json_document(data: bytes, label: str) -> dict[str, Any]:
    """A JSON object (any shape ``citations.extract`` accepts, detected later): decoded
    by msgspec straight from the bytes where they are plain UTF-8 JSON (no ``str`` of
    the whole is made), else by ``json.loads`` of the text, for its value or its error."""
    value = _msgspec_value(data) if _plain_utf8(data) else None
    if value is None:
        value = _json_value(data, label)
    if not isinstance(value, dict):
        raise Failure(at(label, f"expected a JSON object, got {_json_kind(value)}"))
    return value


def _msgspec_value(data: bytes) -> object:
    """``json.loads`` of ``data``'s text, or ``None`` where msgspec refuses it (it refuses
    what ``json.loads`` takes besides JSON: ``NaN``, a lone surrogate, an integer of more
    than 4,300 digits, ``1e400``; and what is no JSON)."""
    import msgspec

    try:
        return msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None


def _json_value(data: bytes, label: str) -> object:
    text = decode_utf8(data, label)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}" if "\n" in text else f"column {exc.colno}"
        # some of json's messages end with "at" ("Unterminated string starting at")
        message = exc.msg.removesuffix(" at")
        raise Failure(at(label, f"invalid JSON: {message} at {where}")) from exc
    except RecursionError as exc:
        raise Failure(at(label, "invalid JSON: nested too deeply")) from exc
    except ValueError as exc:  # a number of more digits than int() takes
        raise Failure(at(label, f"invalid JSON: {exc}")) from exc


class JsonText:
    """A whole response's JSON text that ``render`` reads with ``citations.read_json``
    (straight from the bytes), parsed into the object only where that fails, for the
    error the object's parsing and reading give (``parse``)."""

    __slots__ = ("data", "label")

    def __init__(self, data: bytes, label: str) -> None:
        self.data = data
        self.label = label

    def parse(self) -> dict[str, Any]:
        return parse_json_document(self.data, self.label)

    def text(self) -> str | bytes:
        """The JSON text for ``read_json``: the bytes themselves when they are to be read
        as UTF-8 (:func:`_plain_utf8`; ``read_json`` refuses them if they are not), so
        that no ``str`` of the whole is made; else the text, decoded as
        :func:`parse_json_document` decodes it (failing as it does)."""
        return self.data if _plain_utf8(self.data) else decode_utf8(self.data, self.label)


def _plain_utf8(data: bytes) -> bool:
    """Whether ``json.loads`` would read ``data`` as UTF-8, as msgspec does: no byte
    order mark, no NUL among the first 4 bytes (by which it would take them for UTF-16
    or UTF-32). Whether they are valid UTF-8, msgspec checks as it decodes (it refuses
    an invalid sequence, a surrogate or an overlong form), and what it refuses is
    decoded here as before, for its error."""
    return b"\x00" not in data[:4] and not data.startswith(b"\xef\xbb\xbf")


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def decode_base64(data: bytes, label: str) -> bytes:
    """Base64 (standard or URL-safe, padding optional, whitespace ignored) -> bytes."""
    compact = _WHITESPACE.sub(b"", data)
    compact += b"=" * (-len(compact) % 4)
    altchars = b"-_" if (b"-" in compact or b"_" in compact) else None
    try:
        return base64.b64decode(compact, altchars=altchars, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise Failure(at(label, f"invalid base64: {exc}")) from exc


def resolve_type(name: str) -> type[Message]:
    """The message class for ``--type``; an unknown or ambiguous name is a usage error."""
    from grounding_protos import TypeLookupError, message_class

    try:
        return message_class(name)
    except TypeLookupError as exc:
        message = _LISTED_BY.sub(r"('grounding-protos types' lists the \1 known types)", str(exc))
        raise Failure(f"--type: {message}") from exc


def parse_message(cls: type[Message], data: bytes, fmt: str, label: str) -> Message:
    """One message of type ``cls`` from ``data`` in format ``fmt`` (not ``jsonl``)."""
    from google.protobuf import text_format

    from grounding_protos import JSONParseError, WireFormatError, codec, from_bytes

    try:
        if fmt in ("json", "jsonl"):
            return codec.from_json(cls, decode_utf8(data, label))
        if fmt == "binary":
            return from_bytes(cls, data)
        if fmt == "base64":
            return from_bytes(cls, decode_base64(data, label))
        if fmt == "text":
            return text_format.Parse(decode_utf8(data, label), cls())
    except (JSONParseError, WireFormatError) as exc:
        raise Failure(at(label, str(exc))) from exc
    except text_format.ParseError as exc:
        name = cls.DESCRIPTOR.full_name
        raise Failure(at(label, f"invalid text format for {name}: {exc}")) from exc
    raise Failure(f"unknown input format {fmt!r}")


def format_message(
    message: Message, fmt: str, *, compact: bool = False, proto_names: bool = False
) -> bytes:
    """``message`` in format ``fmt``; text formats end with a newline, binary has none.

    ``jsonl`` (and ``json`` with ``compact``) is one line; ``text`` with ``compact``
    is text format on one line.
    """
    from google.protobuf import text_format

    from grounding_protos import codec

    if fmt == "binary":
        return message.SerializeToString(deterministic=True)
    if fmt == "base64":
        return base64.b64encode(message.SerializeToString(deterministic=True)) + b"\n"
    if fmt in ("json", "jsonl"):
        indent = None if compact or fmt == "jsonl" else 2
        text = codec.to_json(
            message, indent=indent, ensure_ascii=False, preserving_proto_field_name=proto_names
        )
        return utf8(line_safe(text)) + b"\n"
    if fmt == "text":
        text = text_format.MessageToString(message, as_utf8=True, as_one_line=compact)
        return text.rstrip("\n").encode("utf-8") + b"\n"
    raise Failure(f"unknown output format {fmt!r}")


def utf8(text: str) -> bytes:
    r"""``text`` as UTF-8 for output; a lone surrogate (JSON allows ``"\ud800"``, UTF-8
    has no such character) is written as its escape ``\ud800``, the same value in JSON.

    >>> utf8("Köln \ud800")
    b'K\xc3\xb6ln \\ud800'
    """
    return text.encode("utf-8", "backslashreplace")


def dumps(value: object) -> str:
    """JSON on one line, non-ASCII kept as it is (for records and ``--json`` output),
    but for the characters ``str.splitlines`` also splits on (:func:`line_safe`)."""
    return line_safe(json.dumps(value, ensure_ascii=False))


_LINE_BREAKS: Final = ("\u2028", "\u2029", "\x85")


def line_safe(text: str) -> str:
    r"""JSON text with U+2028, U+2029 and U+0085 escaped (``\u2028``): JSON allows them
    raw in strings, but ``str.splitlines`` (and JavaScript before ES2019) takes them for
    line breaks, which cut a JSONL record in two. The value is the same.

    >>> line_safe('{"text": "a\u2028b"}')
    '{"text": "a\\u2028b"}'
    """
    for ch in _LINE_BREAKS:
        if ch in text:  # rare: the check costs less than a translate
            text = text.replace(ch, f"\\u{ord(ch):04x}")
    return text


# --- Writing ----------------------------------------------------------------------------

# Control characters a terminal would obey (ESC sequences: clipboard writes, titles,
# screen clears; BEL; a carriage return over the line; C1 controls such as CSI), and
# the bidi embedding, override and isolate controls, with which a bidi terminal shows
# characters in another order than they are (U+202E turns "moc.elgoog//:sptth" around,
# as in "Trojan Source", CVE-2021-42574): shown escaped on a terminal, kept as they are
# in a file or a pipe. The marks (U+200E, U+200F, U+061C) stay: Arabic and Hebrew text
# uses them, and they reorder no letters.
_BIDI_CONTROLS: Final = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
_TERMINAL_ESCAPES: Final = (
    {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F] if c not in (0x09, 0x0A)}
    | {0x0D: "\\r"}
    | {c: f"\\u{c:04x}" for c in (*range(0x80, 0xA0), *_BIDI_CONTROLS)}
)


def terminal_safe(text: str) -> str:
    r"""``text`` with its control characters escaped (line breaks and tabs kept), for a
    terminal: ``\x1b``, ``\x07``, ``\r``, ``\u009b``, the bidi controls ``\u202e``.

    >>> terminal_safe("Köln\x1b]52;c;SGVsbG8=\x07\n")
    'Köln\\x1b]52;c;SGVsbG8=\\x07\n'
    >>> terminal_safe("https://\u202eelpmaxe.live\u202c/ القاهرة\u200f")
    'https://\\u202eelpmaxe.live\\u202c/ القاهرة\u200f'
    """
    return text.translate(_TERMINAL_ESCAPES)


class Output:
    """Where a command writes: ``-o FILE`` (created or overwritten) or stdout.

    ``binary`` output is refused on a terminal. ``inputs`` are the files the command
    reads: writing over one of them is refused, since it would be truncated before it
    is read.
    """

    def __init__(
        self, path: str | None, *, binary: bool = False, inputs: tuple[str | None, ...] = ()
    ) -> None:
        self.path = None if path in (None, "-") else path
        self.binary = binary
        self._stream: ByteSink | None = None
        # text to a terminal: its control characters escaped (binary is refused there)
        self.terminal = self.path is None and not binary and _isatty(sys.stdout)
        if self.path is None:
            if binary and _isatty(sys.stdout):
                raise Failure(
                    "refusing to write binary data to a terminal; use -o FILE, a pipe, "
                    "or --to base64"
                )
        else:
            for source in inputs:
                if source not in (None, "-") and _same_file(source, self.path):
                    raise Failure(f"-o {self.path!r} is also an input; choose another file")

    def open(self) -> ByteSink:
        if self._stream is None:
            if self.path is None:
                stdout = sys.stdout
                if stdout is None:  # started with stdout closed (``>&-``)
                    raise Failure("cannot write '<stdout>': stdout is closed; use -o FILE")
                with self._failing():
                    stdout.flush()
                buffer = getattr(stdout, "buffer", None)
                self._stream = buffer if buffer is not None else _TextSink(stdout)
            else:
                with self._failing():
                    self._stream = open(self.path, "wb")  # noqa: SIM115 - closed by close()
        return self._stream

    def write(self, data: bytes) -> None:
        stream = self.open()
        if self.terminal:
            data = _for_terminal(data)
        with self._failing():
            stream.write(data)

    def flush(self) -> None:
        if self._stream is not None:
            with self._failing():
                self._stream.flush()

    def close(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            with self._failing():  # a full disk shows here, when the buffer is written
                try:
                    stream.flush()
                finally:
                    if self.path is not None:
                        stream.close()

    @contextlib.contextmanager
    def _failing(self) -> Iterator[None]:
        """An ``OSError`` of writing (a full disk, a closed descriptor) as a one-line
        :class:`Failure`; a broken pipe goes on up (``main`` stops quietly on it)."""
        try:
            yield
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ValueError: I/O on a closed file
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise Failure(f"cannot write {self.path or '<stdout>'!r}: {reason}") from exc


def _for_terminal(data: bytes) -> bytes:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # not text: as it is
        return data
    return utf8(terminal_safe(text))


class _TextSink:
    """A bytes-writing front for a text stream without a ``buffer`` (test harnesses)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        self._stream.write(data.decode("utf-8", errors="replace"))
        return len(data)

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:  # stdout stays open
        self.flush()


def write_once(
    path: str | None,
    data: bytes | Iterable[str],
    *,
    binary: bool = False,
    inputs: tuple[str | None, ...] = (),
) -> None:
    """Write a whole result to ``-o`` or stdout (only after it was computed in full):
    bytes, or text in pieces (a rendered answer: its text slices and markers), each
    written as UTF-8 (:func:`utf8`) in turn, so that the output is never one more copy
    of the answer in memory."""
    out = Output(path, binary=binary, inputs=inputs)
    try:
        if isinstance(data, bytes):
            out.write(data)
        else:
            for piece in data:
                for at in range(0, len(piece), _PIECE):  # a long piece in parts: less held
                    out.write(utf8(piece[at : at + _PIECE]))
    finally:
        out.close()


_PIECE: Final = 1 << 20
"""The characters of text encoded and written at a time."""


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def stderr_line(text: str) -> None:
    """One line on stderr, whatever its encoding can show."""
    stream = sys.stderr
    if stream is None:
        return
    text = terminal_safe(text)  # messages quote the input: never a terminal's controls
    try:
        stream.write(text + "\n")
    except UnicodeEncodeError:
        stream.write(text.encode("ascii", "backslashreplace").decode("ascii") + "\n")
    stream.flush()

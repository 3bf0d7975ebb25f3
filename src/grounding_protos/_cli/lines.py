"""The per-line JSONL code behind :mod:`grounding_protos.batch` (its docs are there)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Literal, TypedDict

from grounding_protos._cli.commands import error_record
from grounding_protos._cli.commands import process_line as _process_line
from grounding_protos._cli.options import Options
from grounding_protos._exceptions import ArgumentValueError
from grounding_protos._public import public

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Command", "ErrorMode", "LineOptions", "process_line", "process_lines"]

Command = Literal["render", "validate", "inspect", "convert"]
ErrorMode = Literal["inline", "skip", "only"]
_COMMANDS = ("render", "validate", "inspect", "convert")


class LineOptions(TypedDict, total=False):
    """The command's options, by keyword (see :func:`process_lines`)."""

    type_name: str | None
    source: str
    target: str
    text: str | None
    candidate: int
    style: str
    snap: str | None
    clamp: bool
    title: str | None
    proto_names: bool
    spans: str
    unit: str | None
    footnotes: bool
    raw_text: bool
    resolve_urls: bool
    cache: str | None


def _settings(caller: str, command: str, options: LineOptions) -> Options:
    unknown = sorted(set(options) - set(LineOptions.__annotations__))
    if unknown:  # as a signature with these keywords would say
        raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
    return _options(command, **options)


def _options(
    command: str,
    *,
    type_name: str | None = None,
    source: str = "json",
    target: str = "jsonl",
    text: str | None = None,
    candidate: int = 0,
    style: str = "markdown",
    snap: str | None = None,
    clamp: bool = False,
    title: str | None = None,
    proto_names: bool = False,
    spans: str = "repair",
    unit: str | None = None,
    footnotes: bool = False,
    raw_text: bool = False,
    resolve_urls: bool = False,
    cache: str | None = None,
) -> Options:
    """The command line's options, checked as the command line checks them."""
    from grounding_protos._proto.registry import message_class

    if command not in _COMMANDS:
        raise ArgumentValueError(f"command must be one of {', '.join(_COMMANDS)}, not {command!r}")
    if type_name is not None:
        message_class(type_name)  # a wrong name fails now, not on every line
    if command == "convert":
        if type_name is None:
            raise ArgumentValueError("convert needs type_name (the --type of every line)")
        if target not in ("jsonl", "base64", "text"):
            raise ArgumentValueError(f"target must be 'jsonl', 'base64' or 'text', not {target!r}")
        # as `convert --from jsonl`: one message per line in, one line out
        return Options(
            "convert", type_name=type_name, source="jsonl", target=target, compact=True,
            proto_names=proto_names,
        )  # fmt: skip
    if source not in ("json", "base64"):
        raise ArgumentValueError(f"source must be 'json' or 'base64', not {source!r}")
    if source == "base64" and type_name is None:
        raise ArgumentValueError(
            "source='base64' needs type_name: wire bytes do not say their type"
        )
    if style not in ("markdown", "html", "plain"):
        raise ArgumentValueError(f"style must be 'markdown', 'html' or 'plain', not {style!r}")
    if snap not in (None, "floor", "ceil", "outward"):
        raise ArgumentValueError(f"snap must be 'floor', 'ceil', 'outward' or None, not {snap!r}")
    if spans not in ("strict", "repair", "skip"):
        raise ArgumentValueError(f"spans must be 'strict', 'repair' or 'skip', not {spans!r}")
    if unit not in (None, "byte", "char", "utf16"):
        raise ArgumentValueError(f"unit must be 'byte', 'char', 'utf16' or None, not {unit!r}")
    if footnotes and (command != "render" or style != "markdown"):
        raise ArgumentValueError("footnotes=True is for render with style='markdown'")
    if raw_text and (command != "render" or style != "html"):
        raise ArgumentValueError("raw_text=True is for render with style='html'")
    if cache is not None and not resolve_urls:
        raise ArgumentValueError("cache is for resolve_urls=True")
    if resolve_urls:
        from grounding_protos._net.redirects import require_httpx

        require_httpx()  # MissingDependencyError now, not on every line
    return Options(
        command,  # type: ignore[arg-type]
        type_name=type_name,
        source=source,
        text=text,
        candidate=candidate,
        style=style,  # type: ignore[arg-type]
        snap=snap,  # type: ignore[arg-type]
        clamp=clamp,
        title=title,
        spans=spans,  # type: ignore[arg-type]
        unit=unit,  # type: ignore[arg-type]
        footnotes=footnotes,
        raw_text=raw_text,
        resolve_urls=resolve_urls,
        cache=cache,
    )


def _raw(line: str | bytes) -> bytes:
    # str lines read with errors="surrogateescape" give their undecodable bytes back
    return line.encode("utf-8", "surrogateescape") if isinstance(line, str) else bytes(line)


def process_lines(
    lines: Iterable[str | bytes],
    command: Command,
    *,
    errors: ErrorMode = "inline",
    **options: Unpack[LineOptions],
) -> Iterator[str]:
    """The output lines (without line ends) of ``command`` on the lines of one JSONL input.

    Lines are numbered from 1, as the command line numbers the lines of a file; blank
    lines are skipped but counted. The keywords are the command's options:
    ``type_name`` (``--type``), ``source`` (``--from``: ``json`` or ``base64``),
    ``target`` (``convert --to``: ``jsonl``, ``base64`` or ``text``), ``text``
    (the contents of ``--text FILE``), ``candidate``, ``style``, ``snap``, ``clamp``,
    ``title``, ``proto_names``, ``spans`` (``--spans``: the span policy ``errors=``
    of :func:`grounding_protos.citations.read`; ``errors`` here says where failed
    lines go, as the command line's ``--errors FILE`` does), ``unit`` (``--unit``),
    ``footnotes`` and ``raw_text`` (``render --footnotes``, ``--raw-text``), and
    ``resolve_urls`` with ``cache`` (``--resolve-urls``, ``--cache FILE``: the ``resolve``
    extra; give workers one sqlite ``cache`` to share what they resolved).

    A line that fails becomes its error record ``{"line": N, "ok": false, …}``:
    ``errors="inline"`` puts it in place (what ``render``/``validate``/``inspect
    --jsonl`` write), ``"skip"`` leaves it out (what ``convert --from jsonl`` writes
    to its output) and ``"only"`` yields the error records alone (its ``--errors``
    file).
    """
    if errors not in ("inline", "skip", "only"):
        raise ArgumentValueError(f"errors must be 'inline', 'skip' or 'only', not {errors!r}")
    settings = _settings("process_lines", command, options)
    for number, line in enumerate(lines, 1):
        raw = _raw(line)
        if not raw.strip():
            continue
        result = _process_line(settings, number, raw)
        if result.error is not None:
            if errors != "skip":
                yield error_record(result)
        elif errors != "only":
            assert result.output is not None
            yield result.output


def process_line(
    line: str | bytes,
    command: Command,
    *,
    number: int = 1,
    **options: Unpack[LineOptions],
) -> str:
    """The output line of ``command`` on one line (line ``number`` of its input), or,
    when it fails, its error record; options as for :func:`process_lines`.

    >>> process_line('{"answerText": "Hi", "citations": [{"endIndex": "2"}]}', "validate", number=7)
    '{"line": 7, "ok": true, "problems": []}'
    """
    result = _process_line(_settings("process_line", command, options), number, _raw(line))
    if result.error is not None:
        return error_record(result)
    assert result.output is not None
    return result.output


public("grounding_protos.batch", LineOptions, process_lines, process_line)

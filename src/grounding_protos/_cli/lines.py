"""The per-line JSONL code behind :mod:`grounding_protos.batch` (its docs are there)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final, Literal, TypedDict

from grounding_protos._cli.commands import error_record
from grounding_protos._cli.commands import process_line as _process_line
from grounding_protos._cli.options import Options
from grounding_protos._exceptions import ArgumentValueError
from grounding_protos._public import public

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Command", "ErrorMode", "FailedLines", "LineOptions", "process_line", "process_lines"]

Command = Literal["render", "validate", "inspect", "convert"]
FailedLines = Literal["inline", "skip", "only"]
"""Where :func:`process_lines` puts the error records of failed lines."""
ErrorMode = FailedLines  # 0.1's name of FailedLines
_COMMANDS = ("render", "validate", "inspect", "convert")
_FAILED: Final = ("inline", "skip", "only")
_POLICIES: Final = ("strict", "repair", "skip")


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
    errors: str
    spans: str  # deprecated: errors
    unit: str | None
    footnotes: bool
    raw_text: bool
    markers: str
    highlight: bool
    lang: str | None
    resolve_urls: bool
    cache: str | None


def _settings(caller: str, command: str, options: LineOptions) -> Options:
    unknown = sorted(set(options) - set(LineOptions.__annotations__))
    if unknown:  # as a signature with these keywords would say
        raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
    if "spans" in options:  # the development versions' name of the span policy
        if "errors" in options:
            raise ArgumentValueError("spans= and errors= both give the span policy: use errors=")
        warnings.warn(
            "spans= is deprecated: use errors= (the span policy, as in citations.read)",
            DeprecationWarning,
            stacklevel=3,
        )
        options = {**options}
        options["errors"] = options.pop("spans")
    return _options(command, **options)  # type: ignore[misc]  # spans= is gone by now


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
    errors: str = "repair",
    unit: str | None = None,
    footnotes: bool = False,
    raw_text: bool = False,
    markers: str = "keep",
    highlight: bool = True,
    lang: str | None = None,
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
        raise ArgumentValueError(f"snap must be None, 'floor', 'ceil' or 'outward', not {snap!r}")
    if errors not in _POLICIES:
        raise ArgumentValueError(f"errors must be 'strict', 'repair' or 'skip', not {errors!r}")
    if unit not in (None, "byte", "char", "utf16"):
        raise ArgumentValueError(f"unit must be 'byte', 'char', 'utf16' or None, not {unit!r}")
    if footnotes and (command != "render" or style != "markdown"):
        raise ArgumentValueError("footnotes=True is for render with style='markdown'")
    if raw_text and (command != "render" or style != "html"):
        raise ArgumentValueError("raw_text=True is for render with style='html'")
    if markers not in ("keep", "remove"):
        raise ArgumentValueError(f"markers must be 'keep' or 'remove', not {markers!r}")
    if markers != "keep" and command not in ("render", "inspect"):
        raise ArgumentValueError("markers= is for render and inspect")
    if (not highlight or lang is not None) and (command != "render" or style != "html"):
        raise ArgumentValueError("highlight= and lang= are for render with style='html'")
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
        errors=errors,  # type: ignore[arg-type]
        unit=unit,  # type: ignore[arg-type]
        footnotes=footnotes,
        raw_text=raw_text,
        markers=markers,  # type: ignore[arg-type]
        highlight=highlight,
        lang=lang,
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
    failed_lines: FailedLines | None = None,
    **options: Unpack[LineOptions],
) -> Iterator[str]:
    """The output lines (without line ends) of ``command`` on the lines of one JSONL input.

    Lines are numbered from 1, as the command line numbers the lines of a file; blank
    lines are skipped but counted. The keywords are the command's options:
    ``type_name`` (``--type``), ``source`` (``--from``: ``json`` or ``base64``),
    ``target`` (``convert --to``: ``jsonl``, ``base64`` or ``text``), ``text``
    (the contents of ``--text FILE``), ``candidate``, ``style``, ``snap``, ``clamp``,
    ``title``, ``proto_names``, ``errors`` (``--errors``: the span policy, ``errors=``
    of :func:`grounding_protos.citations.read`), ``unit`` (``--unit``),
    ``footnotes`` and ``raw_text`` (``render --footnotes``, ``--raw-text``),
    ``markers`` (``--markers``: ``markers=`` of :func:`grounding_protos.citations.read`),
    ``highlight`` and ``lang`` (``render --no-highlight``, ``--lang``), and
    ``resolve_urls`` with ``cache`` (``--resolve-urls``, ``--cache FILE``: the ``resolve``
    extra; give workers one sqlite ``cache`` to share what they resolved). The options
    are checked now, before the first line.

    A line that fails becomes its error record ``{"line": N, "ok": false, …}``:
    ``failed_lines="inline"`` (the default) puts it in place (what
    ``render``/``validate``/``inspect --jsonl`` write), ``"skip"`` leaves it out (what
    ``convert --from jsonl`` writes to its output) and ``"only"`` yields the error
    records alone (its ``--failed-lines`` file).

    0.1's ``errors="inline"`` and ``"only"`` still mean ``failed_lines=``, and so does
    ``errors="skip"`` given without ``failed_lines=``, with a ``DeprecationWarning``
    (``errors="skip", failed_lines="inline"`` is the span policy); ``spans=`` (the
    span policy's name before this release) still works, with one too.
    """
    errors = options.get("errors")
    if errors in ("inline", "only") or (errors == "skip" and failed_lines is None):
        if failed_lines is not None:
            raise ArgumentValueError(
                f"errors={errors!r} and failed_lines= both say where failed lines go: "
                "use failed_lines="
            )
        warnings.warn(
            f"process_lines(errors={errors!r}) is deprecated: use failed_lines={errors!r} "
            "(errors= is the span policy, as in citations.read; for it with 'skip', "
            "pass failed_lines= too)",
            DeprecationWarning,
            stacklevel=2,
        )
        options = {**options}
        del options["errors"]
        failed_lines = errors  # type: ignore[assignment]
    if failed_lines is None:
        failed_lines = "inline"
    elif failed_lines not in _FAILED:
        raise ArgumentValueError(
            f"failed_lines must be 'inline', 'skip' or 'only', not {failed_lines!r}"
        )
    settings = _settings("process_lines", command, options)
    return _lines(settings, lines, failed_lines)


def _lines(settings: Options, lines: Iterable[str | bytes], failed: str) -> Iterator[str]:
    for number, line in enumerate(lines, 1):
        raw = _raw(line)
        if not raw.strip():
            continue
        result = _process_line(settings, number, raw)
        if result.error is not None:
            if failed != "skip":
                yield error_record(result)
        elif failed != "only":
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

"""What the commands do to one input document, apart from argument parsing and I/O.

The same functions serve a single FILE and every line of a ``--jsonl`` batch (in
this process or in worker processes): :class:`Options` is a small picklable record
of the command line, and :func:`process_line` turns one JSONL line into one output
line or one error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from grounding_protos._cli_io import (
    EXIT_PROBLEMS,
    Failure,
    at,
    dumps,
    format_message,
    parse_json_document,
    parse_message,
    resolve_type,
)

if TYPE_CHECKING:
    from grounding_protos.citations import Citation, Grounded, Source

Command = Literal["render", "validate", "inspect", "convert"]
Style = Literal["markdown", "html", "plain"]
VALIDATE_HINT: Final = "'grounding-protos validate' lists every problem"
_EXCERPT: Final = 60


@dataclass(frozen=True)
class Options:
    """The parts of a command line that decide how one document is processed."""

    command: Command
    type_name: str | None = None  # --type: parse as this message type
    source: str = "json"  # --from
    target: str = "jsonl"  # convert --to
    text: str | None = None  # the contents of --text FILE
    candidate: int = 0
    style: Style = "markdown"
    snap: Literal["floor", "ceil", "outward"] | None = None
    clamp: bool = False
    title: str | None = None
    compact: bool = False
    proto_names: bool = False
    raw_text: bool = False  # render --raw-text: the HTML view without Markdown
    footnotes: bool = False  # render --footnotes: GFM footnotes in the Markdown style


# --- Loading -------------------------------------------------------------------------------


def load_document(options: Options, data: bytes, label: str) -> object:
    """The input as a JSON object (any shape ``extract`` accepts) or, with ``--type``, a
    message of that type."""
    if options.type_name is None:
        if options.source not in ("json", "jsonl"):
            raise Failure(
                f"--from {options.source} needs --type: wire bytes and text format do not "
                "say which message they hold"
            )
        return parse_json_document(data, label)
    return parse_message(resolve_type(options.type_name), data, options.source, label)


def read_grounded(options: Options, document: object, label: str) -> Grounded:
    """``citations.read`` with the command line's options; errors become failures.

    An input of no supported shape is unreadable (exit 2); a readable answer whose
    offsets or references are wrong has problems (exit 1).
    """
    from grounding_protos import (
        CitationError,
        OffsetError,
        TextEncodingError,
        UnsupportedInputError,
    )
    from grounding_protos.citations import read

    try:
        return read(
            document,
            text=options.text,
            candidate=options.candidate,
            snap=options.snap,
            clamp=options.clamp,
        )
    except UnsupportedInputError as exc:
        raise Failure(at(label, str(exc))) from exc
    except (OffsetError, CitationError, TextEncodingError) as exc:
        raise Failure(at(label, f"{exc}; {VALIDATE_HINT}"), EXIT_PROBLEMS) from exc


# --- render --------------------------------------------------------------------------------


def render_document(
    options: Options, document: object, label: str, *, line: int | None = None
) -> str:
    """The answer with citation markers and its source list; for HTML a whole page (a
    fragment with ids unique to the line, in a batch)."""
    from grounding_protos._html_page import DEFAULT_TITLE, fragment, page
    from grounding_protos.citations import render, source_list

    grounded = read_grounded(options, document, label)
    text = grounded.text
    if text is None:
        raise Failure(
            at(
                label,
                "the input holds no answer text (a bare GroundingMetadata?); "
                "pass it with --text FILE",
            )
        )
    citations = grounded.citations
    if options.style == "html":
        raw = options.raw_text
        if line is not None:
            return fragment(text, citations, id_prefix=f"gp-l{line}-source-", raw_text=raw) + "\n"
        return page(text, citations, title=options.title or DEFAULT_TITLE, raw_text=raw)
    body = render(text, citations, options.style, footnotes=options.footnotes)
    sources = source_list(text, citations, options.style, footnotes=options.footnotes)
    if not body.endswith("\n"):
        body += "\n"
    return f"{body}\n{sources}\n" if sources else body


# --- validate ------------------------------------------------------------------------------


def validate_document(options: Options, document: object, label: str) -> list[dict[str, str]]:
    """Every problem ``validate`` finds, as ``{"code", "message", "path"}`` dicts."""
    from grounding_protos import UnsupportedInputError, validate

    try:
        problems = validate(document, text=options.text, candidate=options.candidate)
    except UnsupportedInputError as exc:
        raise Failure(at(label, str(exc))) from exc
    return [asdict(p) for p in problems]


def problem_line(problem: Mapping[str, str]) -> str:
    """One problem on one line, path first: ``citations[0].end_index: … [code]``."""
    path, message, code = problem["path"], problem["message"], problem["code"]
    message = " ".join(message.split())
    return f"{path}: {message} [{code}]" if path else f"{message} [{code}]"


# --- inspect --------------------------------------------------------------------------------


def describe(document: object) -> str:
    """What kind of input this is, in words."""
    from google.protobuf.message import Message

    if isinstance(document, Message):
        return document.DESCRIPTOR.full_name
    if not isinstance(document, Mapping):
        return type(document).__name__

    def has(*names: str) -> bool:
        return any(document.get(n) not in (None, "", [], {}) for n in names)

    if has("candidates"):
        return "Gemini generateContent response"
    if isinstance(document.get("answer"), Mapping):
        return "Discovery Engine answer response"
    if has("answerText", "answer_text", "references"):
        return "Discovery Engine Answer"
    if has(
        "content",
        "groundingMetadata",
        "grounding_metadata",
        "citationMetadata",
        "citation_metadata",
    ):
        return "Gemini candidate"
    if has(
        "groundingSupports",
        "grounding_supports",
        "groundingChunks",
        "grounding_chunks",
        "webSearchQueries",
        "web_search_queries",
    ):
        return "GroundingMetadata"
    if has("citationSources", "citation_sources", "citations"):
        return "CitationMetadata"
    return "unrecognized JSON object"


def summarize(options: Options, document: object, label: str) -> dict[str, Any]:
    """A compact summary: the text, its citations and sources, how much is cited, problems.

    Never fails for a decoded input: citations that cannot be read are reported under
    ``"error"``, beside the problems ``validate`` finds.
    """
    from grounding_protos.citations import cited_characters, number_sources

    summary: dict[str, Any] = {"input": describe(document)}
    if options.candidate:
        summary["candidate"] = options.candidate
    problems = validate_document(options, document, label)
    try:
        grounded = read_grounded(options, document, "")
    except Failure as failure:
        summary.update(text=None, citations=None, cited=None, sources=[], spans=[])
        summary["error"] = failure.message.removesuffix(f"; {VALIDATE_HINT}")
        summary["problems"] = problems
        return summary
    text, citations = grounded.text, grounded.citations
    if text is not None:
        numbered = number_sources(text, citations)
    else:
        numbered = list(enumerate(grounded.sources, 1))
    numbers = {source: n for n, source in numbered}
    summary["text"] = (
        None
        if text is None
        else {
            "characters": len(text),
            "bytes": len(text.encode("utf-8")),
            "utf16_units": len(text.encode("utf-16-le")) // 2,
        }
    )
    spans = _spans(citations, numbers)
    summary["citations"] = {
        "total": len(citations),
        "citation": sum(1 for c in citations if c.kind == "citation"),
        "support": sum(1 for c in citations if c.kind == "support"),
        "spans": len(spans),
    }
    if text is None:
        summary["cited"] = None
    else:
        covered = cited_characters(citations)
        share = round(100 * covered / len(text), 1) if text else 0.0
        summary["cited"] = {"characters": covered, "of": len(text), "percent": share}
    summary["sources"] = [_source_entry(n, s) for n, s in numbered]
    summary["spans"] = spans
    summary["problems"] = problems
    return summary


def _spans(citations: Sequence[Citation], numbers: Mapping[Source, int]) -> list[dict[str, Any]]:
    """Distinct spans in text order, each with the numbers of all sources citing it."""
    merged: dict[tuple[int, int], dict[str, Any]] = {}
    for c in sorted(citations, key=lambda c: (c.end, c.start)):
        entry = merged.get((c.start, c.end))
        if entry is None:
            entry = merged[(c.start, c.end)] = {
                "bytes": [c.start, c.end],
                "chars": None if c.char_start is None else [c.char_start, c.char_end],
                "sources": [],
                "text": c.text,
            }
        for source in c.sources:
            n = numbers.get(source)
            if n is not None and n not in entry["sources"]:
                entry["sources"].append(n)
    for entry in merged.values():
        entry["sources"].sort()
    return list(merged.values())


def _source_entry(n: int, source: Source) -> dict[str, Any]:
    entry: dict[str, Any] = {"number": n, "label": source.label, "kind": source.kind}
    if source.uri:
        entry["uri"] = source.uri
    return entry


def _one_line(value: str, limit: int = _EXCERPT) -> str:
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_summary(summary: Mapping[str, Any]) -> str:
    """The summary as a few aligned lines of text."""
    lines = [f"input:      {summary['input']}"]
    if summary.get("candidate"):
        lines[0] += f" (candidate {summary['candidate']})"
    text = summary.get("text")
    if text is not None:
        lines.append(
            f"text:       {text['characters']} characters, {text['bytes']} UTF-8 bytes, "
            f"{text['utf16_units']} UTF-16 units"
        )
    elif "error" not in summary:
        lines.append("text:       none in the input (pass --text FILE to place the offsets)")
    if "error" in summary:
        lines.append(f"citations:  not readable: {summary['error']}")
    else:
        counts = summary["citations"]
        kinds = []
        if counts["citation"]:
            kinds.append(f"{counts['citation']} citations")
        if counts["support"]:
            kinds.append(f"{counts['support']} grounding supports")
        detail = f" ({', '.join(kinds)})" if kinds else ""
        lines.append(f"citations:  {counts['total']}{detail} on {counts['spans']} distinct spans")
        cited = summary.get("cited")
        if cited is not None:
            lines.append(
                f"cited:      {cited['characters']} of {cited['of']} characters "
                f"({cited['percent']:g}%)"
            )
        lines.append(f"sources:    {len(summary['sources'])}")
    problems = summary["problems"]
    lines.append(f"problems:   {len(problems) or 'none'}")
    if summary.get("spans"):
        lines.append("")
        lines.append("spans:")
        for span in summary["spans"]:
            marks = "".join(f"[{n}]" for n in span["sources"]) or "-"
            where = f"bytes {span['bytes'][0]}-{span['bytes'][1]}"
            if span["chars"] is not None:
                where += f", chars {span['chars'][0]}-{span['chars'][1]}"
            excerpt = _one_line(span["text"]) if span["text"] else ""
            lines.append(f"  {marks:<10} {where:<30} {excerpt}".rstrip())
    if summary.get("sources"):
        lines.append("")
        lines.append("sources:")
        for source in summary["sources"]:
            label = _one_line(source["label"])
            uri = source.get("uri")
            shown = f"{label} — {uri}" if uri and uri != source["label"] else label
            lines.append(f"  [{source['number']}] {shown} ({source['kind']})")
    if problems:
        lines.append("")
        lines.append("problems:")
        lines.extend(f"  {problem_line(p)}" for p in problems)
    return "\n".join(lines) + "\n"


# --- convert --------------------------------------------------------------------------------


def convert_document(options: Options, data: bytes, label: str) -> bytes:
    """One message from ``--from`` to ``--to``."""
    if options.type_name is None:
        raise Failure("convert needs --type")
    message = parse_message(resolve_type(options.type_name), data, options.source, label)
    return format_message(
        message, options.target, compact=options.compact, proto_names=options.proto_names
    )


# --- One line of a batch ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LineResult:
    """The outcome of one input line: the line to write, or the error.

    ``flagged`` says the line was processed and problems were found (validate,
    inspect); ``size`` is the line's length in bytes (for the progress bar).
    """

    line: int
    output: str | None
    error: str | None = None
    input: str | None = None
    flagged: bool = False
    size: int = 0


def process_line(options: Options, line: int, raw: bytes) -> LineResult:
    """Run the command on one JSONL line; never raises for bad input."""
    size = len(raw)
    raw = raw.rstrip(b"\r\n")
    try:
        output, flagged = _process(options, line, raw)
    except Failure as failure:
        return LineResult(line, None, failure.message, _shown(raw), size=size)
    except RecursionError:
        return LineResult(line, None, "input nested too deeply", _shown(raw), size=size)
    return LineResult(line, output, flagged=flagged, size=size)


def _shown(raw: bytes) -> str:
    """A failed line as it will be kept in its error record (bad UTF-8 replaced)."""
    return raw.decode("utf-8", "replace")


def _process(options: Options, line: int, raw: bytes) -> tuple[str, bool]:
    command = options.command
    if command == "convert":
        return convert_document(options, raw, "").decode("utf-8").rstrip("\n"), False
    document = load_document(options, raw, "")
    if command == "render":
        output = render_document(options, document, "", line=line)
        return dumps({"line": line, "ok": True, "output": output}), False
    if command == "validate":
        problems = validate_document(options, document, "")
        return dumps({"line": line, "ok": True, "problems": problems}), bool(problems)
    summary = summarize(options, document, "")
    flagged = bool(summary["problems"]) or "error" in summary
    return dumps({"line": line, "ok": True, "summary": summary}), flagged


def error_record(result: LineResult) -> str:
    """The JSON line that keeps a failed input line: its number, the error, the line."""
    return dumps({"line": result.line, "ok": False, "error": result.error, "input": result.input})

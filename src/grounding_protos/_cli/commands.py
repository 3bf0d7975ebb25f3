"""What the commands do to one input document, apart from argument parsing and I/O.

The same functions serve a single FILE and every line of a ``--jsonl`` batch (in
this process or in worker processes): :class:`Options` is a small picklable record
of the command line, and :func:`process_line` turns one JSONL line into one output
line or one error.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Final

from grounding_protos._cli.io import (
    EXIT_PROBLEMS,
    Failure,
    JsonText,
    at,
    dumps,
    format_message,
    parse_message,
    resolve_type,
)
from grounding_protos._cli.load import SERIOUS, load_line
from grounding_protos._cli.options import Options
from grounding_protos._core.model import Problem

if TYPE_CHECKING:
    from grounding_protos.citations import Citation, Grounded, Source

VALIDATE_HINT: Final = "'grounding-protos validate' lists every problem"
_EXCERPT: Final = 60


# --- Loading -------------------------------------------------------------------------------


def read_grounded(options: Options, document: object, label: str) -> Grounded:
    """``citations.read`` with the command line's options; errors become failures.

    An input of no supported shape is unreadable (exit 2); a readable answer whose
    offsets or references are wrong has problems (exit 1).
    """
    from grounding_protos import (
        CitationError,
        GroundingProtosError,
        OffsetError,
        TextEncodingError,
        UnsupportedInputError,
    )
    from grounding_protos.citations import read, read_json

    given: dict[str, Any] = {
        "text": options.text,
        "candidate": options.candidate,
        "errors": options.errors,
        "snap": options.snap,
        "clamp": options.clamp,
        "unit": options.unit,
        "markers": options.markers,
    }
    grounded: Grounded | None = None
    if isinstance(document, JsonText):
        try:
            grounded = read_json(document.text(), **given)
        except GroundingProtosError:  # read again below, for the failure it gives
            document = document.parse()  # fails as a file of invalid JSON does
    try:
        if grounded is None:
            grounded = read(document, **given)
    except UnsupportedInputError as exc:
        raise Failure(at(label, str(exc))) from exc
    except (OffsetError, CitationError, TextEncodingError) as exc:
        raise Failure(at(label, f"{exc}; {VALIDATE_HINT}"), EXIT_PROBLEMS) from exc
    if options.resolve_urls:
        from grounding_protos.citations import resolve_urls

        grounded = resolve_urls(grounded, cache=options.cache)
    return grounded


def check_resolving() -> None:
    """Fail before any input is read when ``--resolve-urls`` cannot work (no httpx)."""
    from grounding_protos import MissingDependencyError
    from grounding_protos._net.redirects import require_httpx

    try:
        require_httpx()
    except MissingDependencyError as exc:
        raise Failure(str(exc)) from exc


def redirect_problems(grounded: Grounded) -> list[dict[str, str]]:
    """The problems ``--resolve-urls`` added (``redirect-…`` codes), as dicts."""
    return [asdict(p) for p in grounded.problems if p.code.startswith("redirect-")]


# --- render --------------------------------------------------------------------------------


def render_document(
    options: Options, document: object, label: str, *, line: int | None = None
) -> tuple[Iterator[str], list[Problem]]:
    """The answer with citation markers and its source list (for HTML a whole page, or
    a fragment with ids unique to the line in a batch), in pieces to write one by one
    (or join), and the problems of reading it: the spans repaired or left out under the
    ``--errors`` span policy.

    The rendering is ``citations.render(grounded, style)``'s (one implementation,
    ``_render/grounded.py``). An answer with no text (a blocked or image-only
    response) renders its sources, saying so.
    """
    from grounding_protos._render.grounded import render_grounded_pieces

    grounded = read_grounded(options, document, label)
    if grounded.text is None and grounded.citations:
        raise Failure(
            at(
                label,
                "the input holds no answer text (a bare GroundingMetadata?); "
                "pass it with --text FILE",
            )
        )
    problems = list(grounded.problems)
    if not grounded.text:
        problems.append(Problem("answer-without-text", "the answer has no text", ""))
    html = options.style == "html"
    page = (line is None and not options.fragment) or not html
    out = render_grounded_pieces(
        grounded,
        options.style,
        footnotes=options.footnotes,
        raw_text=options.raw_text,
        page=page,
        title=options.title if html and page else None,
        lang=options.lang if html else None,
        highlight=options.highlight or not html,
        id_prefix=f"gp-l{line}-source-" if html and line is not None else "gp-source-",
    )
    return out, problems


def is_warning(problem: Problem) -> bool:
    """A problem that leaves the rendering complete: a repaired span, an answer without
    text, a redirect URL ``--resolve-urls`` could not resolve (shown as it was).
    Anything else (a span left out) makes ``render`` exit 1."""
    return problem.code in (
        "offset-drift",
        "offsets-in-characters",
        "answer-without-text",
    ) or problem.code.startswith("redirect-")


# --- validate ------------------------------------------------------------------------------


def validate_document(options: Options, document: object, label: str) -> list[dict[str, str]]:
    """Every problem ``validate`` finds, as ``{"code", "message", "path"}`` dicts."""
    from grounding_protos import UnsupportedInputError, validate

    try:
        problems = validate(
            document, text=options.text, candidate=options.candidate, unit=options.unit
        )
    except UnsupportedInputError as exc:
        raise Failure(at(label, str(exc))) from exc
    return [asdict(p) for p in problems]


def one_line(message: str) -> str:
    """A message on one line, nothing collapsed: line breaks, tabs and other control
    characters escaped (``\\n``), spaces kept, so quoted text stays exact.

    >>> one_line("segment text '*   **Rain\\n'")
    "segment text '*   **Rain\\\\n'"
    """
    return message.translate(_ESCAPES)


_ESCAPES: Final = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F]} | {
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
}


def problem_line(problem: Mapping[str, str]) -> str:
    """One problem on one line, path first: ``citations[0].end_index: … [code]``."""
    path, message, code = problem["path"], problem["message"], problem["code"]
    message = one_line(message)
    return f"{path}: {message} [{code}]" if path else f"{message} [{code}]"


# --- inspect --------------------------------------------------------------------------------


_SHAPE_WORDS = {
    "gemini_response": "Gemini generateContent response",
    "gemini_candidate": "Gemini candidate",
    "gemini_answer_response": "Gemini AQA generateAnswer response",
    "grounding_metadata": "GroundingMetadata",
    "citation_metadata": "CitationMetadata",
    "answer": "Discovery Engine Answer",
    "answer_query_response": "Discovery Engine answer response",
    "search_response": "Vertex AI Search response with a summary",
    "search_summary": "Vertex AI Search summary",
    "summary_with_metadata": "Vertex AI Search summary with metadata",
    "interaction": "Gemini Interactions API interaction",
    "assist_answer": "Discovery Engine AssistAnswer",
    "assist_response": "Discovery Engine assist response",
    "check_grounding_response": "Discovery Engine check grounding response",
    "grounded_generation_response": "Discovery Engine grounded generation response",
    "live_server_message": "Gemini Live server message (one turn)",
    "openai_response": "OpenAI Responses API response",
    "openai_chat_completion": "OpenAI chat completion",
    "openai_thread_message": "OpenAI Assistants thread message",
    "openai_message_list": "OpenAI Assistants message list",
    "perplexity_chat_completion": "Perplexity chat completion",
    "mistral_chat_completion": "Mistral chat completion",
    "mistral_conversation": "Mistral conversation response",
    "mistral_chat_history": "Mistral chat messages",
    "xai_chat_completion": "xAI chat completion with search",
    "azure_on_your_data_chat_completion": "Azure OpenAI On Your Data chat completion",
    "openrouter_perplexity_chat_completion": "Perplexity chat completion through OpenRouter",
    "anthropic_message": "Anthropic message",
    "cohere_chat": "Cohere v2 chat response",
    "bedrock_retrieve_and_generate": "Bedrock RetrieveAndGenerate response",
    "bedrock_converse": "Bedrock Converse response",
    "bedrock_invoke_agent": "Bedrock Agents InvokeAgent chunk",
    "langchain_message": "LangChain AI message",
    "litellm_response": "LiteLLM response of a Gemini model",
    "pydantic_ai_response": "pydantic-ai model response",
    "adk_session_state": "Google ADK session state with grounding",
}


def describe(document: object) -> str:
    """What kind of input this is, in words (the shape ``read`` recognizes)."""
    from google.protobuf.message import Message

    from grounding_protos._sources.registry import classify

    if isinstance(document, Message):
        return document.DESCRIPTOR.full_name
    shape = classify(document)
    if shape is not None:
        return _SHAPE_WORDS.get(shape, shape)
    return "unrecognized JSON object" if isinstance(document, Mapping) else type(document).__name__


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
    problems += redirect_problems(grounded)
    text, citations = grounded.text, grounded.citations
    uncited = grounded.uncited_sources
    if text is not None:
        numbered = number_sources(text, citations, uncited=uncited)
    else:  # numbered as render numbers them, by Source.key
        firsts: dict[object, Source] = {}
        for source in [*grounded.sources, *uncited]:
            firsts.setdefault(source.key, source)
        numbered = list(enumerate(firsts.values(), 1))
    numbers = {source.key: n for n, source in numbered}
    cited_keys = {s.key for c in citations for s in c.sources}
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
        "marker": sum(1 for c in citations if c.kind == "marker"),
        "spans": len(spans),
    }
    if text is None:
        summary["cited"] = None
    else:
        covered = cited_characters(citations)
        share = round(100 * covered / len(text), 1) if text else 0.0
        summary["cited"] = {"characters": covered, "of": len(text), "percent": share}
    if grounded.score is not None:
        summary["score"] = grounded.score
    summary["sources"] = [_source_entry(n, s, s.key in cited_keys) for n, s in numbered]
    summary["spans"] = spans
    search = grounded.search
    if search:
        summary["search"] = {
            "queries": list(search.queries),
            "retrieval_queries": list(search.retrieval_queries),
            "search_suggestions": search.rendered_content is not None,
            "url_statuses": [{"url": u.url, "status": u.status} for u in search.url_statuses],
        }
        if search.image_queries:
            summary["search"]["image_queries"] = list(search.image_queries)
    summary["problems"] = problems
    return summary


def _spans(citations: Sequence[Citation], numbers: Mapping[object, int]) -> list[dict[str, Any]]:
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
            n = numbers.get(source.key)
            if n is not None and n not in entry["sources"]:
                entry["sources"].append(n)
    for entry in merged.values():
        entry["sources"].sort()
    return list(merged.values())


def _source_entry(n: int, source: Source, cited: bool = True) -> dict[str, Any]:
    from grounding_protos._citations.export import details_dict

    entry: dict[str, Any] = {"number": n, "label": source.label, "kind": source.kind}
    if not cited:
        entry["cited"] = False
    for name in ("uri", "document", "page", "place_id", "file_search_store", "redirect_uri"):
        value = getattr(source, name)
        if value:
            entry[name] = value
    if source.custom_metadata:
        entry["custom_metadata"] = dict(source.custom_metadata)
    details = details_dict(source)
    details.pop("place_id", None)
    details.pop("store", None)
    if details:
        entry["details"] = details
    return entry


def _detail_lines(details: Mapping[str, Any]) -> list[str]:
    """A source's details as indented lines: Maps attribution and report links, reviews,
    route, pages, image, ... (``details_dict``'s keys)."""
    lines = []
    if "reviews" in details or "flag_uri" in details or "route" in details:
        flag = details.get("flag_uri")
        lines.append("Google Maps" + (f" · report: {flag}" if flag else ""))
    for review in details.get("reviews", ()):
        author = review.get("author", {})
        who = f" by {_one_line(author['name'])}" if author.get("name") else ""
        words = review.get("title") or review.get("text") or review.get("id") or ""
        line = f"review{who}: “{_one_line(words)}”"
        if review.get("uri"):
            line += f" {review['uri']}"
        if review.get("flag_uri"):
            line += f" · report: {review['flag_uri']}"
        lines.append(line)
    route = details.get("route")
    if route:
        lines.append("route: " + ", ".join(f"{k} {v}" for k, v in route.items()))
    for name in ("first_page", "last_page", "media_id", "chunk_id", "file_id", "image_uri",
                 "thumbnail_uri", "license", "publication_date", "part_index"):  # fmt: skip
        if name in details:
            lines.append(f"{name.replace('_', ' ')}: {details[name]}")
    return lines


def _one_line(value: str, limit: int = _EXCERPT) -> str:
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _count(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural when ``n`` is not 1: ``"1 citation"``, ``"2 citations"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def format_summary(summary: Mapping[str, Any]) -> str:
    """The summary as a few aligned lines of text."""
    lines = [f"input:      {summary['input']}"]
    if summary.get("candidate"):
        lines[0] += f" (candidate {summary['candidate']})"
    text = summary.get("text")
    if text is not None:
        lines.append(
            f"text:       {_count(text['characters'], 'character')}, "
            f"{_count(text['bytes'], 'UTF-8 byte')}, {_count(text['utf16_units'], 'UTF-16 unit')}"
        )
    elif "error" not in summary:
        lines.append("text:       none in the input (pass --text FILE to place the offsets)")
    if "error" in summary:
        lines.append(f"citations:  not readable: {summary['error']}")
    else:
        counts = summary["citations"]
        names = {"citation": "citation", "support": "grounding support", "marker": "marker"}
        kinds = [_count(counts[kind], name) for kind, name in names.items() if counts.get(kind)]
        # "1 citation", "5 grounding supports", "7 (2 citations, 5 grounding supports)":
        # the kinds in parentheses only where there are several
        total = kinds[0] if len(kinds) == 1 else str(counts["total"])
        if len(kinds) > 1:
            total += f" ({', '.join(kinds)})"
        lines.append(f"citations:  {total} on {_count(counts['spans'], 'distinct span')}")
        cited = summary.get("cited")
        if cited is not None:
            lines.append(
                f"cited:      {cited['characters']} of {_count(cited['of'], 'character')} "
                f"({cited['percent']:g}%)"
            )
        if summary.get("score") is not None:
            lines.append(f"score:      {summary['score']:g} (the response's, of the whole answer)")
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
            extra = "" if source.get("cited", True) else ", not cited"
            lines.append(f"  [{source['number']}] {shown} ({source['kind']}{extra})")
            lines.extend(f"      {line}" for line in _detail_lines(source.get("details", {})))
    search = summary.get("search")
    if search:
        lines.append("")
        lines.append("search:")
        for name, key in (("queries", "queries"), ("retrieval", "retrieval_queries"),
                          ("images", "image_queries")):  # fmt: skip
            if search.get(key):
                lines.append(f"  {name + ':':<11}" + "; ".join(map(_one_line, search[key])))
        if search["search_suggestions"]:
            lines.append("  Search Suggestions: present (render --style html shows them)")
        for status in search["url_statuses"]:
            lines.append(f"  url:       {_one_line(status['url'])} ({status['status']})")
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
    document, merging = load_line(options, raw)  # a stream's problems first, as for a file
    stream = [asdict(p) for p in merging]
    serious = any(p.code in SERIOUS for p in merging)
    if command == "render":
        pieces, found = render_document(options, document, "", line=line)
        record: dict[str, Any] = {"line": line, "ok": True, "output": "".join(pieces)}
        if stream or found:
            record["problems"] = stream + [asdict(p) for p in found]
        return dumps(record), serious or not all(map(is_warning, found))
    if command == "validate":
        problems = stream + validate_document(options, document, "")
        return dumps({"line": line, "ok": True, "problems": problems}), bool(problems)
    summary = summarize(options, document, "")
    summary["problems"][:0] = stream
    flagged = bool(summary["problems"]) or "error" in summary
    return dumps({"line": line, "ok": True, "summary": summary}), flagged


def error_record(result: LineResult) -> str:
    """The JSON line that keeps a failed input line: its number, the error, the line."""
    return dumps({"line": result.line, "ok": False, "error": result.error, "input": result.input})

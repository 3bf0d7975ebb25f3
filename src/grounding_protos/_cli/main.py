"""The parser and entry point behind :mod:`grounding_protos.cli` (its docs are there)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, NoReturn

from grounding_protos._cli.io import (
    DEFAULT_INPUT_LIMIT,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    FORMATS,
    LIMITS,
    Failure,
    Output,
    at,
    dumps,
    label_of,
    limited_lines,
    open_input,
    parse_size,
    read_input,
    read_text_file,
    stderr_line,
    utf8,
    write_once,
)
from grounding_protos._public import public

if TYPE_CHECKING:
    from grounding_protos._cli.load import Turns
    from grounding_protos._cli.options import Options

__all__ = ["main"]

PROG: Final = "grounding-protos"
_STYLES: Final = ("markdown", "html", "plain")
_SNAPS: Final = ("floor", "ceil", "outward")
# the span policy (errors= of citations.read): never a file name
_POLICIES: Final = ("strict", "repair", "skip")

# What --help ends with: examples that run as they are written (tests/test_cli.py
# parses each), no path of the repository (an installed package has no docs/). The
# top-level help shows them all; a command's help, its own.
EXAMPLES: Final = (
    ("grounding-protos render answer.json", "the answer with [n] markers, and its sources"),
    ("grounding-protos render --style html answer.json -o page.html", "a self-contained page"),
    ("grounding-protos render stream.sse", "a recorded stream, merged into its answer"),
    ("grounding-protos render --turn 2 session.json", "one turn of a Gemini Live session"),
    ("grounding-protos validate answer.json", "every problem, one per line, path first"),
    ("grounding-protos inspect stream.sse", "a summary of a recorded stream"),
    (
        "grounding-protos render --jsonl answers.jsonl -o out.jsonl --failed-lines failed.jsonl",
        "a batch",
    ),
    ("grounding-protos convert --type Answer --from json --to text answer.json",
     "a message in protobuf text format"),
    ("grounding-protos decode --type Answer --from base64 answer.b64", "wire bytes as JSON"),
    ("grounding-protos encode --type Answer answer.json -o answer.bin", "JSON as wire bytes"),
    ("grounding-protos types", "every message type, short and full names"),
)  # fmt: skip
# The same work in Python, per command (python -m pydoc shows each).
_IN_PYTHON: Final = {
    None: "grounding_protos.citations.read(obj) and render(grounded, style)",
    "render": "grounding_protos.citations.render(read(obj), style), or read_stream(stream)",
    "validate": "grounding_protos.citations.validate(obj), or validate_stream(stream)",
    "inspect": "grounding_protos.citations.read(obj) (its text, citations and problems)",
    "types": "grounding_protos.message_types()",
    "decode": "grounding_protos.from_bytes(cls, data) and grounding_protos.codec.to_json",
    "encode": "grounding_protos.codec.from_json(cls, text).SerializeToString()",
    "convert": "grounding_protos.codec and google.protobuf.text_format",
}
_EXIT: Final = """exit status: 0 ok, 1 problems found (or some batch lines failed),
2 bad usage or unreadable input."""


def _epilog(command: str | None = None) -> str:
    """The examples of ``command`` (all of them for the top level), the same in Python,
    and the exit statuses."""
    shown = [(line, what) for line, what in EXAMPLES
             if command is None or line.split()[1] == command]  # fmt: skip
    examples = "".join(f"  {line}\n      {what}\n" for line, what in shown)
    return (
        ("examples:\n" + examples if examples else "")
        + f"\nIn Python: {_IN_PYTHON[command]}.\n"
        + _EXIT
    )


_EPILOG: Final = _epilog()


# --- Argument parsing ---------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _workers(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError("must be 0 (one per CPU) or more")
    return number  # 0 and the cap: _batch_workers


def _max_input(value: str) -> int:
    try:
        return parse_size(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _candidate(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return number


def _turn(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"turns are numbered from 1, not {value}")
    return number


def _file(option: str) -> Any:
    """An argparse type for an option naming a file to write: a span policy's name is
    refused there, with a hint (``--errors skip`` once wrote a file named ``skip``)."""

    def file_name(value: str) -> str:
        if value in _POLICIES:
            raise argparse.ArgumentTypeError(
                f"{option} takes a file, and {value!r} is a span policy: for the policy "
                f"use --errors {value}; for a file of that name write ./{value}"
            )
        return value

    return file_name


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("grounding-protos")
    except Exception:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The parser of the whole command line."""
    debug = _Parser(add_help=False)
    debug.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show a traceback instead of a one-line error",
    )
    common = _Parser(add_help=False, parents=[debug])
    common.add_argument(
        "--max-input",
        type=_max_input,
        default=DEFAULT_INPUT_LIMIT,
        metavar="SIZE",
        help="refuse an input (a --jsonl batch: a line) larger than SIZE: bytes, or with "
        "a K, M or G suffix (default 64M; 0: no limit)",
    )

    parser = _Parser(
        prog=PROG,
        description="Render, check and convert grounded answers and their citations, "
        "with every offset on the right character: the grounding and citation messages "
        "of Google AI APIs (Gemini, Vertex AI Search / Discovery Engine, Dialogflow), "
        "the answers of OpenAI, Anthropic, Cohere, Amazon Bedrock, xAI and Perplexity, "
        "and the objects of LangChain, LiteLLM, pydantic-ai and Google ADK; whole "
        "responses or recorded streams.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument(
        "--debug",
        action="store_true",
        default=False,
        help="show a traceback instead of a one-line error",
    )
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_Parser
    )

    def command(
        name: str, help: str, description: str, *, reads: bool = True
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(
            name,
            help=help,
            description=description,
            parents=[common if reads else debug],  # --max-input: for what reads input
            epilog=_epilog(name),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        return sub

    def input_file(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("file", nargs="?", metavar="FILE", help="the input; '-' or none: stdin")

    def output_file(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "-o",
            "--output",
            metavar="OUT",
            type=_file("-o"),
            help="write here (created or overwritten) instead of stdout",
        )

    def json_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--compact", action="store_true", help="JSON on one line (text format on one line)"
        )
        sub.add_argument(
            "--proto-names",
            action="store_true",
            help="JSON keys as proto field names (answer_text), not camelCase",
        )

    def document_options(sub: argparse.ArgumentParser) -> None:
        input_file(sub)
        output_file(sub)
        sub.add_argument(
            "--type",
            metavar="T",
            help="parse the input as message type T (a full or unambiguous short name) "
            "instead of detecting the JSON shape",
        )
        sub.add_argument(
            "--from",
            dest="source",
            choices=("json", "binary", "text", "base64"),
            default="json",
            help="input format (default json; the others need --type)",
        )
        sub.add_argument(
            "--text",
            metavar="FILE",
            dest="text_file",
            help="the answer text, for inputs that hold none "
            "(a bare GroundingMetadata); read as UTF-8, exactly",
        )
        sub.add_argument(
            "--unit",
            choices=("byte", "char", "utf16"),
            help="what the input's offsets count (bytes, characters, UTF-16 units), "
            "overriding the default of the input's shape",
        )
        sub.add_argument(
            "--candidate",
            type=_candidate,
            default=0,
            metavar="N",
            help="which candidate of a Gemini response (default 0)",
        )
        sub.add_argument(
            "--turn",
            type=_turn,
            metavar="N",
            help="a Gemini Live session: only its turn N (1 for the first); without it, every turn",
        )
        sub.add_argument(
            "--jsonl",
            action="store_true",
            help="batch: one input per line, one JSON record per line out",
        )
        batch_options(sub)

    def span_policy(sub: argparse.ArgumentParser, *, policy: bool = True) -> None:
        # --errors is the span policy, as errors= in Python; 0.1's --errors FILE (now
        # --failed-lines) still works, with a warning: _span_policy sorts them out.
        sub.add_argument(
            "--errors",
            metavar="POLICY",
            dest="errors_option",
            help="spans whose offsets disagree with their text: re-anchor them on it "
            "(repair, the default; each repair is a warning), fail (strict), or leave "
            "out what cannot be placed (skip: exit status 1); errors= in Python"
            if policy
            else argparse.SUPPRESS,
        )
        sub.set_defaults(has_span_policy=policy)
        if policy:  # the name of the development versions, deprecated
            sub.add_argument(
                "--spans", choices=_POLICIES, dest="spans_option", help=argparse.SUPPRESS
            )

    def markers_option(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--markers",
            choices=("keep", "remove"),
            default="keep",
            help="an answer that cites by markers in its text (Perplexity's [1]): keep "
            "them in the text (default; a rendering shows each once, numbered as its "
            "source list) or cut them out; markers= in Python",
        )

    def batch_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--workers",
            type=_workers,
            default=1,
            metavar="N",
            help="batch: process lines in N worker processes (0: one per CPU; at most "
            "one per CPU, and never more than lines)",
        )
        sub.add_argument(
            "--failed-lines",
            metavar="FILE",
            type=_file("--failed-lines"),
            help="batch: write the error records of failed lines here",
        )

    def resolve_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--resolve-urls",
            action="store_true",
            help="ask each grounding redirect URL (vertexaisearch.cloud.google.com) for "
            "the page it leads to, and show that page (network access)",
        )
        sub.add_argument(
            "--cache",
            metavar="FILE",
            type=_file("--cache"),
            help="with --resolve-urls: keep resolved URLs in this SQLite file (created if "
            "missing, shared by processes, entries kept 7 days)",
        )

    sub = command(
        "types",
        "list the message types",
        "List every message type: its short name (the shortest unambiguous one) and its full name.",
        reads=False,
    )
    sub.add_argument("--json", action="store_true", help="a JSON array of {name, short}")
    sub.set_defaults(handler=_cmd_types)

    sub = command(
        "decode",
        "wire bytes -> JSON",
        "Decode one message from protobuf wire bytes and print it as proto3 JSON.",
    )
    input_file(sub)
    output_file(sub)
    sub.add_argument("--type", required=True, metavar="T", help="the message type")
    sub.add_argument(
        "--from",
        dest="source",
        choices=("binary", "base64"),
        default="binary",
        help="wire bytes as they are (default) or base64",
    )
    json_options(sub)
    sub.set_defaults(handler=_cmd_decode)

    sub = command(
        "encode",
        "JSON -> wire bytes",
        "Encode one message from proto3 JSON into protobuf wire bytes. Binary "
        "output is refused on a terminal: use -o, a pipe, or --to base64.",
    )
    input_file(sub)
    output_file(sub)
    sub.add_argument("--type", required=True, metavar="T", help="the message type")
    sub.add_argument(
        "--to",
        dest="target",
        choices=("binary", "base64"),
        default="binary",
        help="wire bytes as they are (default) or base64",
    )
    sub.set_defaults(handler=_cmd_encode)

    sub = command(
        "convert",
        "between json, binary, text, base64 and jsonl",
        "Convert messages between formats: json (proto3 JSON), binary (wire "
        "bytes), text (protobuf text format), base64 (of the wire bytes) and "
        "jsonl (one JSON message per line). --from jsonl is a batch: each line is "
        "converted to one line of --to jsonl, base64 or text (one line each).",
    )
    input_file(sub)
    output_file(sub)
    sub.add_argument("--type", required=True, metavar="T", help="the message type")
    sub.add_argument("--from", dest="source", choices=FORMATS, required=True, help="input format")
    sub.add_argument("--to", dest="target", choices=FORMATS, required=True, help="output format")
    json_options(sub)
    batch_options(sub)
    span_policy(sub, policy=False)  # only 0.1's --errors FILE
    sub.set_defaults(handler=_cmd_convert)

    sub = command(
        "render",
        "the answer with inline citations and its sources",
        "Show a grounded answer with citation markers after each cited span and "
        "the numbered source list: Markdown (default; markers never inside code or "
        "links), plain text, or a self-contained HTML page. Input, as JSON: a Gemini "
        "response or candidate, a Discovery Engine Answer, a GroundingMetadata (with "
        "--text), a CitationMetadata, a Vertex AI Search summary, an OpenAI, "
        "Anthropic, Cohere, Bedrock, xAI or Perplexity response (Perplexity's [n] "
        "markers shown once; --markers), or a LangChain, LiteLLM, pydantic-ai or "
        "Google ADK object dumped to JSON. Or a recorded stream of any of these (SSE, "
        "a JSON array of chunks, a Bedrock event stream), merged into its answer, "
        "and a Gemini Live session turn by turn (--turn N for one).",
    )
    document_options(sub)
    sub.add_argument(
        "--style",
        choices=_STYLES,
        default="markdown",
        help="markdown (default), plain, or html (a whole page)",
    )
    sub.add_argument("--title", help="the HTML page's title")
    sub.add_argument(
        "--raw-text",
        action="store_true",
        help="html: show the answer as the text it is, not as rendered Markdown",
    )
    sub.add_argument(
        "--footnotes",
        action="store_true",
        help="markdown: GFM footnotes ([^1] and [^1]: definitions) instead of [1]",
    )
    sub.add_argument(
        "--no-highlight",
        dest="highlight",
        action="store_false",
        help="html: leave the cited text unmarked (the markers stay); highlight= in Python",
    )
    sub.add_argument(
        "--lang",
        metavar="TAG",
        help="html: the answer's language tag (ko, pt-BR; '' for unknown) instead of "
        "the one its script names; lang= in Python",
    )
    sub.add_argument(
        "--fragment",
        action="store_true",
        help="html: the answer, its sources and the Search Suggestions as a fragment to "
        "put in a page of your own, not a whole page; page=False in Python",
    )
    sub.add_argument(
        "--snap", choices=_SNAPS, help="move offsets that split a character to a boundary"
    )
    sub.add_argument(
        "--clamp", action="store_true", help="pull offsets past the end of the text back into range"
    )
    span_policy(sub)
    markers_option(sub)
    resolve_options(sub)
    sub.set_defaults(handler=_cmd_document, doc_command="render")

    sub = command(
        "validate",
        "list the problems of a grounded answer",
        "Check offsets, segment texts, chunk indices, reference ids, scores and "
        "required fields. Prints one problem per line, path first; exit status 1 "
        "when there is any, 0 when there is none. It takes no span policy: it reports "
        "every problem, which render and inspect then fail on, repair or leave out, "
        "as their span policy says.",
    )
    document_options(sub)
    sub.add_argument("--json", action="store_true", help="a JSON array of {code, message, path}")
    span_policy(sub, policy=False)  # only 0.1's --errors FILE
    sub.set_defaults(handler=_cmd_document, doc_command="validate")

    sub = command(
        "inspect",
        "a compact summary of a grounded answer",
        "Summarize a grounded answer: its text, citations and sources, how much "
        "of the text is cited, and its problems (exit status 1 when there are "
        "any).",
    )
    document_options(sub)
    sub.add_argument("--json", action="store_true", help="the summary as JSON")
    span_policy(sub)
    markers_option(sub)
    resolve_options(sub)
    sub.set_defaults(handler=_cmd_document, doc_command="inspect")
    return parser


# --- Commands -------------------------------------------------------------------------------


def _short_names(names: Sequence[str]) -> dict[str, str]:
    """Each full name's shortest dotted tail that names it alone."""
    tails: dict[str, int] = {}
    for name in names:
        parts = name.split(".")
        for i in range(len(parts)):
            tail = ".".join(parts[i:])
            tails[tail] = tails.get(tail, 0) + 1
    shortest = {}
    for name in names:
        parts = name.split(".")
        for i in range(len(parts) - 1, -1, -1):
            tail = ".".join(parts[i:])
            if tails[tail] == 1:
                shortest[name] = tail
                break
        else:  # pragma: no cover - a full name is always unique
            shortest[name] = name
    return shortest


def _cmd_types(args: argparse.Namespace) -> int:
    from grounding_protos import message_types

    names = message_types()
    short = _short_names(names)
    if args.json:
        text = dumps([{"name": n, "short": short[n]} for n in names]) + "\n"
    else:
        width = max(len(s) for s in short.values())
        text = "".join(f"{short[n]:<{width}}  {n}\n" for n in names)
    write_once(None, text.encode("utf-8"))
    return EXIT_OK


def _cmd_decode(args: argparse.Namespace) -> int:
    from grounding_protos._cli.io import format_message, parse_message, resolve_type

    cls = resolve_type(args.type)
    data = read_input(args.file)
    message = parse_message(cls, data, args.source, label_of(args.file))
    out = format_message(message, "json", compact=args.compact, proto_names=args.proto_names)
    write_once(args.output, out, inputs=(args.file,))
    return EXIT_OK


def _cmd_encode(args: argparse.Namespace) -> int:
    from grounding_protos._cli.io import format_message, parse_message, resolve_type

    cls = resolve_type(args.type)
    binary = args.target == "binary"
    Output(args.output, binary=binary)  # refuse a terminal before reading stdin
    message = parse_message(cls, read_input(args.file), "json", label_of(args.file))
    write_once(
        args.output, format_message(message, args.target), binary=binary, inputs=(args.file,)
    )
    return EXIT_OK


def _cmd_convert(args: argparse.Namespace) -> int:
    from grounding_protos._cli.commands import convert_document
    from grounding_protos._cli.io import resolve_type
    from grounding_protos._cli.options import Options

    resolve_type(args.type)  # a wrong name fails before any input is read
    _span_policy(args)
    options = Options(
        "convert",
        type_name=args.type,
        source=args.source,
        target=args.target,
        compact=args.compact,
        proto_names=args.proto_names,
    )
    if args.source == "jsonl":
        if args.target not in ("jsonl", "base64", "text"):
            raise Failure(
                f"--from jsonl gives one message per line: use --to jsonl, base64 or text "
                f"(one line each), not {args.target}"
            )
        # one line out per line in: text format (and JSON) on one line
        options = dataclasses.replace(options, compact=True)
        return _batch(args, options, keep_errors_in_output=False)
    if args.failed_lines is not None:
        raise Failure("--failed-lines is for batches (--from jsonl)")
    binary = args.target == "binary"
    Output(args.output, binary=binary)  # refuse a terminal before reading stdin
    out = convert_document(options, read_input(args.file), label_of(args.file))
    write_once(args.output, out, binary=binary, inputs=(args.file,))
    return EXIT_OK


def _render_view(options: Options) -> Options:
    """Check render's view options; without markdown-it-py, say once that the HTML page
    shows raw text."""
    from grounding_protos._render.markdown_html import available

    if options.footnotes and options.style != "markdown":
        raise Failure("--footnotes is for --style markdown")
    if options.raw_text and options.style != "html":
        raise Failure("--raw-text is for --style html")
    for given, flag in ((not options.highlight, "--no-highlight"),
                        (options.lang is not None, "--lang"),
                        (options.fragment, "--fragment")):  # fmt: skip
        if given and options.style != "html":
            raise Failure(f"{flag} is for --style html")
    if options.fragment and options.title is not None:
        raise Failure("--title is for the page, not --fragment")
    if options.style == "html" and not options.raw_text and not available():
        stderr_line(
            f"{PROG}: markdown-it-py (3 or later) is not installed: the answer is shown as "
            "raw text (pip install 'markdown-it-py>=3'; --raw-text asks for it)"
        )
        options = dataclasses.replace(options, raw_text=True)
    return options


def _cmd_document(args: argparse.Namespace) -> int:
    """render, validate and inspect: one document, or a batch with --jsonl."""
    from grounding_protos._cli.commands import (
        format_summary,
        is_warning,
        problem_line,
        render_document,
        summarize,
        validate_document,
    )
    from grounding_protos._cli.io import resolve_type
    from grounding_protos._cli.load import SERIOUS, Turns, load_input
    from grounding_protos._cli.options import Options

    command = args.doc_command
    policy = _span_policy(args)
    if args.type is not None:
        resolve_type(args.type)  # a wrong name fails before any input is read
    elif args.source != "json":
        raise Failure(
            f"--from {args.source} needs --type: wire bytes and text format do not say "
            "which message they hold"
        )
    if args.text_file == "-" and args.file in (None, "-"):
        raise Failure("--text - and the input cannot both be stdin")
    text = read_text_file(args.text_file) if args.text_file is not None else None
    options = Options(
        command,
        type_name=args.type,
        source=args.source,
        text=text,
        candidate=args.candidate,
        style=getattr(args, "style", "markdown"),
        snap=getattr(args, "snap", None),
        clamp=getattr(args, "clamp", False),
        unit=getattr(args, "unit", None),
        title=getattr(args, "title", None),
        raw_text=getattr(args, "raw_text", False),
        footnotes=getattr(args, "footnotes", False),
        markers=getattr(args, "markers", "keep"),
        highlight=getattr(args, "highlight", True),
        lang=getattr(args, "lang", None),
        fragment=getattr(args, "fragment", False),
        errors=policy,  # type: ignore[arg-type]  # one of _POLICIES
        resolve_urls=getattr(args, "resolve_urls", False),
        cache=getattr(args, "cache", None),
    )
    if options.cache is not None and not options.resolve_urls:
        raise Failure("--cache is for --resolve-urls")
    if options.resolve_urls:
        from grounding_protos._cli.commands import check_resolving

        check_resolving()
    if command == "render":
        options = _render_view(options)
    if args.jsonl:
        if args.source not in ("json", "base64"):
            raise Failure(
                f"--jsonl reads one input per line: --from {args.source} "
                "cannot be split into lines (use json or base64)"
            )
        if options.resolve_urls and options.cache is None:
            # One cache for the run, shared by the workers, removed afterwards.
            import tempfile

            with tempfile.TemporaryDirectory(prefix="grounding-protos-") as scratch:
                run_cache = os.path.join(scratch, "redirects.sqlite")
                options = dataclasses.replace(options, cache=run_cache)
                return _batch(args, options, keep_errors_in_output=True)
        return _batch(args, options, keep_errors_in_output=True)
    if args.failed_lines is not None:
        raise Failure("--failed-lines is for batches (--jsonl)")
    label = label_of(args.file)
    live = command == "render" and args.output in (None, "-")
    document, warnings = load_input(options, args.file, label, live=live)  # a stream: merged
    if isinstance(document, Turns):  # a Live session: one turn, or each in turn
        if args.turn is not None:
            document, warnings = document.pick(args.turn, label)
        elif len(document.turns) == 1:  # a session of one turn is one answer
            document, warnings = document.pick(1, label)
        else:
            return _session(args, options, document, label)
    elif args.turn is not None:
        raise Failure(at(label, "--turn is for a Gemini Live session, and this is none"))
    status = EXIT_OK
    if command == "render":
        output: Iterable[str]
        output, found = render_document(options, document, label)
        for problem in found:
            kind = "warning" if is_warning(problem) else "problem"
            stderr_line(f"{PROG}: {kind}: {at(label, problem_line(dataclasses.asdict(problem)))}")
        if not all(map(is_warning, found)):
            status = EXIT_PROBLEMS
    elif command == "validate":
        problems = [dataclasses.asdict(p) for p in warnings]
        problems += validate_document(options, document, label)
        if getattr(args, "json", False):
            output = [dumps(problems) + "\n"]
        else:
            output = [problem_line(p) + "\n" for p in problems]
        status = EXIT_PROBLEMS if problems else EXIT_OK
    else:
        summary = summarize(options, document, label)
        summary["problems"][:0] = [dataclasses.asdict(p) for p in warnings]
        output = [dumps(summary) + "\n" if args.json else format_summary(summary)]
        status = EXIT_PROBLEMS if summary["problems"] or "error" in summary else EXIT_OK
    write_once(args.output, output, inputs=(args.file, args.text_file))  # in pieces
    for problem in warnings:  # what merging a stream found
        stderr_line(f"{PROG}: warning: {label}: {problem}")
    if any(p.code in SERIOUS for p in warnings):
        status = max(status, EXIT_PROBLEMS)
    return status


def _session(args: argparse.Namespace, options: Options, session: Turns, label: str) -> int:
    """render, validate and inspect of every turn of a Live session: each turn under a
    heading of its number (``validate``: the turn's number before each path; ``inspect
    --json``: a list of the turns' summaries)."""
    from grounding_protos._cli.commands import (
        format_summary,
        is_warning,
        problem_line,
        render_document,
        summarize,
        validate_document,
    )
    from grounding_protos._cli.load import SERIOUS

    command = args.doc_command
    if command == "render" and options.style == "html":
        raise Failure(
            at(
                label,
                f"a Live session of {len(session.turns)} turns: --style html shows one "
                "answer, so pick its turn with --turn N (1 for the first)",
            )
        )
    status = EXIT_OK
    pieces: list[str] = []
    summaries: list[object] = []
    problems: list[dict[str, str]] = []
    for number, (document, warnings) in enumerate(session.turns, 1):
        where = f"{label} turn {number}"
        if any(p.code in SERIOUS for p in warnings):
            status = EXIT_PROBLEMS
        if command == "render":
            rendered, found = render_document(options, document, where)
            heading = f"## Turn {number}" if options.style == "markdown" else f"Turn {number}"
            pieces.append(f"{heading}\n\n{''.join(rendered)}")
            for problem in [*warnings, *found]:
                kind = "warning" if is_warning(problem) else "problem"
                stderr_line(
                    f"{PROG}: {kind}: {at(where, problem_line(dataclasses.asdict(problem)))}"
                )
            if not all(map(is_warning, found)):
                status = EXIT_PROBLEMS
        elif command == "validate":
            found_here: list[dict[str, str]] = [dataclasses.asdict(p) for p in warnings]
            found_here += validate_document(options, document, where)
            for found_problem in found_here:
                path = found_problem["path"]
                found_problem["path"] = f"turn {number}.{path}" if path else f"turn {number}"
            problems += found_here
        else:
            summary = summarize(options, document, where)
            summary["problems"][:0] = [dataclasses.asdict(p) for p in warnings]
            summaries.append(summary)
            pieces.append(f"Turn {number}\n{format_summary(summary)}")
            if summary["problems"] or "error" in summary:
                status = EXIT_PROBLEMS
    if command == "validate":
        if getattr(args, "json", False):
            output = dumps(problems) + "\n"
        else:
            output = "".join(problem_line(p) + "\n" for p in problems)
        status = max(status, EXIT_PROBLEMS if problems else EXIT_OK)
    elif command == "inspect" and args.json:
        output = dumps(summaries) + "\n"
    else:
        output = "\n".join(pieces)
    write_once(args.output, utf8(output), inputs=(args.file, args.text_file))
    return status


def _span_policy(args: argparse.Namespace) -> str:
    """The span policy of ``--errors POLICY``; 0.1's ``--errors FILE`` and the
    development versions' ``--spans POLICY`` still work, each with a warning (and
    ``args.failed_lines`` takes 0.1's file)."""
    value: str | None = getattr(args, "errors_option", None)
    spans: str | None = getattr(args, "spans_option", None)
    policy = "repair"
    if spans is not None:
        stderr_line(
            f"{PROG}: warning: --spans is deprecated: use --errors {spans} "
            "(the span policy, errors= in Python)"
        )
        policy = spans
    if value is None:
        return policy
    if value in _POLICIES:
        if not getattr(args, "has_span_policy", False):
            raise Failure(
                f"{args.command} has no span policy, and {value!r} is one"
                + (
                    " (validate reports every problem; render and inspect take --errors)"
                    if args.command == "validate"
                    else ""
                )
                + "; the file of failed lines is --failed-lines FILE "
                f"(./{value} for a file of that name)"
            )
        if spans is not None:
            raise Failure("--spans and --errors both give the span policy: use --errors")
        return value
    # 0.1's --errors FILE: the file of a batch's failed lines
    if not (getattr(args, "jsonl", False) or getattr(args, "source", None) == "jsonl"):
        raise Failure(f"--errors takes a span policy (strict, repair or skip), not {value!r}")
    stderr_line(
        f"{PROG}: warning: --errors FILE is deprecated: use --failed-lines {value} "
        "(--errors is the span policy: strict, repair or skip)"
    )
    if args.failed_lines is not None:
        raise Failure("--errors FILE and --failed-lines both name the file of failed lines")
    args.failed_lines = value
    return policy


def _batch_workers(requested: int, cap: int) -> int:
    """``--workers``: 0 is one per CPU; more than the CPUs is clamped to them, with a note
    (more processes than cores only cost memory: 100,000 of them exhausted it)."""
    if requested == 0:
        return cap
    if requested > cap:
        stderr_line(f"{PROG}: note: --workers {requested} is more than the {cap} CPUs: using {cap}")
        return cap
    return requested


def _batch(args: argparse.Namespace, options: Any, *, keep_errors_in_output: bool) -> int:
    from grounding_protos._cli import batch as _cli_batch

    workers = _batch_workers(args.workers, _cli_batch.cpu_cap())
    inputs = (args.file, getattr(args, "text_file", None))
    out = Output(args.output, inputs=inputs)
    failed = args.failed_lines
    errors = Output(failed, inputs=inputs) if failed is not None else None
    if errors is not None and out.path is not None and _same_path(failed, out.path):
        raise Failure("--failed-lines and -o name the same file")
    stream = open_input(args.file)
    try:
        progress = None
        if _cli_batch.stderr_is_terminal():
            total = _cli_batch.input_size(stream)
            progress = _cli_batch.Progress(sys.stderr, f"{PROG} {options.command}", total)
        tally = _cli_batch.run(
            options,
            limited_lines(stream, label_of(args.file)),
            out,
            errors,
            workers=workers,
            progress=progress,
            keep_errors_in_output=keep_errors_in_output,
            report=stderr_line,
        )
    finally:
        try:
            out.close()
            if errors is not None:
                errors.close()
        finally:
            if args.file not in (None, "-"):
                stream.close()
    if tally.failed:
        stderr_line(f"{PROG}: {tally.failed} of {tally.lines} lines failed")
    return EXIT_PROBLEMS if tally.failed or tally.flagged else EXIT_OK


def _same_path(a: str, b: str) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


# --- Entry point -------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:  # --help, --version, usage errors
        return exit.code if isinstance(exit.code, int) else EXIT_USAGE
    debug = bool(getattr(args, "debug", False))
    LIMITS.input = getattr(args, "max_input", DEFAULT_INPUT_LIMIT)
    try:
        return int(args.handler(args))
    except Failure as failure:
        if debug:
            raise
        stderr_line(f"{PROG}: error: {failure.message}")
        return failure.code
    except BrokenPipeError:
        # The reader went away (``… | head``): stop quietly, and keep Python from
        # complaining about the unflushable stdout at exit.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return EXIT_PROBLEMS
    except KeyboardInterrupt:
        if debug:
            raise
        stderr_line(f"{PROG}: interrupted")
        return 130
    except Exception as exc:
        if debug:
            raise
        from grounding_protos import GroundingProtosError

        if isinstance(exc, GroundingProtosError):
            stderr_line(f"{PROG}: error: {exc}")
        else:
            stderr_line(
                f"{PROG}: error: internal error: {type(exc).__name__}: {exc} "
                "(run with --debug for a traceback)"
            )
        return EXIT_USAGE


public("grounding_protos.cli", main)

"""Peak memory of ``grounding-protos`` on large recorded files; prints ratios measured
in this one run (issue 34: "The CLI streams from files").

Run: ``PYTHONPATH=src python benchmarks/cli_memory.py [--chunk-text 400]`` (about 7
minutes). Not a test: the goals are printed next to the figures, nothing fails.

Five files are written to a temporary folder, piece by piece (this process never
holds one whole):

- a Gemini ``streamGenerateContent?alt=sse`` recording of about 100 MB: mixed-script
  text (German, Japanese, Arabic, emoji and other astral characters) laid out as
  answers are (paragraphs of a few sentences between blank lines, now and then a
  heading or a list, as in ``examples/gemini_stream.sse``), about
  ``--chunk-text`` UTF-8 bytes of it per chunk (150 by default: the chunks of
  ``examples/gemini_stream.sse`` carry 40 to 90 characters), each chunk with the fields
  a real one has (``role``, ``index``, ``usageMetadata``, ``modelVersion``,
  ``responseId``), and the grounding metadata (200 sources, 2,000 supports) on the
  last chunk;
- the same recording with the whole answer as one paragraph (no line break at all: the
  worst case of the Markdown view, which parses a block whole);
- the same chunks as the JSON array that ``streamGenerateContent`` returns without
  ``alt=sse``;
- an OpenAI Responses API stream of about 50 MB (``event:`` and ``data:`` lines of
  ``response.output_text.delta`` events, 2,000 ``url_citation`` annotations, then the
  ``done`` events and ``response.completed``, which repeat the whole text);
- one whole ``generateContent`` response of about 50 MB (a long answer and 20,000
  supports).

Each file is read by the command line in a fresh interpreter (``python -m
grounding_protos render FILE --max-input 0 -o /dev/null``, and ``render --style plain``
and ``validate``, which render no Markdown), started by a small interpreter that
reports its child's peak RSS (``RUSAGE_CHILDREN``: a child forked straight from this
process would start at this process's high-water mark). The figure is peak RSS ÷ file
size, for the code before files were streamed (``--before REF``, default the last
commit that read them whole, checked out with ``git archive`` beside the generated
protobuf modules of ``src``) and for ``src``. Goal: <= 3x for the recorded streams.
What is left after the stream is merged is the answer itself (a ``str`` of astral
text takes 4 bytes a character), written in pieces; the Markdown view parses the
answer with markdown-it-py block by block, so what it holds beyond the answer is
bounded by its largest stretch between blank lines (the one-paragraph file: all of it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from _corpus import SENTENCES  # benchmarks/ is the script directory

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "5a54594"  # the last commit whose CLI read a file whole
# Build outputs of build_protos.py, not in git: copied into the checked-out tree.
GENERATED = ("google", "_descriptor_set.binpb", "_generated.py")
# Runs the command in a child and prints that child's peak RSS in KiB.
PROBE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "sys.stderr.buffer.write(done.stderr[-2000:])\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def _sentences(rng: random.Random, markdown: bool) -> Iterator[str]:
    """Mixed-script sentences; with ``markdown``, laid out as a model writes an answer:
    paragraphs of two to five sentences with a blank line after each, now and then a
    heading or a list of two to four items (each item a sentence on its own line)."""
    prose = SENTENCES[:-1]  # not the bare line break
    while True:
        if not markdown:
            yield rng.choice(prose)
            continue
        kind = rng.random()
        if kind < 0.08:
            yield f"## {rng.choice(prose).strip()}\n\n"
        elif kind < 0.25:
            count = rng.randint(2, 4)
            for k in range(count):
                yield f"* {rng.choice(prose).strip()}\n" + ("\n" if k == count - 1 else "")
        else:
            count = rng.randint(2, 5)
            for k in range(count):
                yield rng.choice(prose) + ("\n\n" if k == count - 1 else "")


def _texts(rng: random.Random, size: int, markdown: bool) -> Iterator[tuple[str, str]]:
    """Pieces of mixed-script text of about ``size`` UTF-8 bytes each, with their first
    sentence (a span that splits no character)."""
    sentences = _sentences(rng, markdown)
    while True:
        out: list[str] = []
        total = 0
        while total < size:
            sentence = next(sentences)
            out.append(sentence)
            total += len(sentence.encode("utf-8"))
        yield "".join(out), out[0]


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def write_gemini(
    path: Path, target: int, chunk_text: int, array: bool, markdown: bool = True, seed: int = 1
) -> None:
    """A Gemini recording of about ``target`` bytes (SSE, or with ``array`` the JSON array
    ``streamGenerateContent`` returns without ``alt=sse``): text of about ``chunk_text``
    UTF-8 bytes per chunk (in paragraphs, or with ``markdown=False`` one paragraph),
    grounding on the last chunk."""
    rng = random.Random(seed)
    texts = _texts(rng, chunk_text, markdown)
    before, between, after = (
        ("[\n", ",\n", "\n]\n") if array else ("data: ", "\r\n\r\ndata: ", "\r\n\r\n")
    )
    written = utf8 = 0
    number = 0
    spans: list[tuple[int, int]] = []  # each chunk's first sentence
    with path.open("w", encoding="utf-8", newline="") as out:
        while written < target:
            number += 1
            text, first = next(texts)
            spans.append((utf8, utf8 + len(first.encode("utf-8"))))
            utf8 += len(text.encode("utf-8"))
            chunk = {
                "candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                                "index": 0}],
                "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": number * 90,
                                  "totalTokenCount": 12 + number * 90,
                                  "promptTokensDetails": [{"modality": "TEXT",
                                                           "tokenCount": 12}]},
                "modelVersion": "gemini-2.5-flash",
                "responseId": "b5UwaZ2fKd6pvdIPhPiE4Ak",
            }  # fmt: skip
            line = f"{between if number > 1 else before}{_dumps(chunk)}"
            out.write(line)
            written += len(line.encode("utf-8"))
        sources = [{"web": {"uri": f"https://s{i}.example/", "title": f"s{i}.example"}}
                   for i in range(200)]  # fmt: skip
        supports = []
        for start, end in sorted(rng.sample(spans, 2000)):
            supports.append({"segment": {"startIndex": start, "endIndex": end},
                             "groundingChunkIndices": [rng.randrange(200)]})  # fmt: skip
        last = {"candidates": [{"content": {"parts": [{"text": "."}], "role": "model"},
                                "finishReason": "STOP", "index": 0,
                                "groundingMetadata": {"groundingChunks": sources,
                                                      "groundingSupports": supports,
                                                      "webSearchQueries": ["Köln 東京"]}}],
                "modelVersion": "gemini-2.5-flash"}  # fmt: skip
        out.write(f"{between}{_dumps(last)}{after}")


def write_responses_sse(path: Path, target: int, seed: int = 2) -> None:
    """An OpenAI Responses API stream of about ``target`` bytes: text deltas, then 2,000
    ``url_citation`` annotations and the completed response."""
    rng = random.Random(seed)
    texts = _texts(rng, 60, markdown=True)
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []  # the first sentence of each delta (characters)
    with path.open("w", encoding="utf-8", newline="") as out:

        def event(value: dict[str, object]) -> int:
            line = f"event: {value['type']}\ndata: {_dumps(value)}\n\n"
            out.write(line)
            return len(line.encode("utf-8"))

        response = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
        written = event({"type": "response.created", "response": response})
        written += event({"type": "response.output_item.added", "output_index": 0, "item": {
            "id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress",
            "content": []}})  # fmt: skip
        part = {"type": "output_text", "text": "", "annotations": []}
        written += event({"type": "response.content_part.added", **where, "part": part})
        chars = 0
        number = 0
        while written < target * 0.5:  # the completed events repeat the text (the rest)
            number += 1
            text, first = next(texts)
            spans.append((chars, chars + len(first)))
            pieces.append(text)
            chars += len(text)
            written += event({"type": "response.output_text.delta", **where, "delta": text,
                              "sequence_number": number})  # fmt: skip
        notes = []
        for k, (start, end) in enumerate(sorted(rng.sample(spans, 2000))):
            note = {"type": "url_citation", "start_index": start, "end_index": end,
                    "url": f"https://s{k % 200}.example/", "title": f"S{k % 200}"}  # fmt: skip
            notes.append(note)
            event({"type": "response.output_text.annotation.added", **where,
                   "annotation_index": k, "annotation": note})  # fmt: skip
        text = "".join(pieces)
        part = {"type": "output_text", "text": text, "annotations": notes}
        item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                "content": [part]}  # fmt: skip
        event({"type": "response.output_text.done", **where, "text": text})
        event({"type": "response.output_item.done", "output_index": 0, "item": item})
        event({"type": "response.completed", "response": {**response, "status": "completed",
                                                          "output": [item]}})  # fmt: skip


def write_gemini_response(path: Path, target: int, seed: int = 3) -> None:
    """One ``generateContent`` response of about ``target`` bytes."""
    rng = random.Random(seed)
    texts = _texts(rng, 400, markdown=True)
    pieces = [next(texts) for _ in range(int(target * 0.85) // 400)]
    text = "".join(piece for piece, _ in pieces)
    spans: list[tuple[int, int]] = []  # the first sentence of each piece
    utf8 = 0
    for piece, first in pieces:
        spans.append((utf8, utf8 + len(first.encode("utf-8"))))
        utf8 += len(piece.encode("utf-8"))
    sources = [{"web": {"uri": f"https://s{i}.example/", "title": f"s{i}.example"}}
               for i in range(200)]  # fmt: skip
    supports = []
    for start, end in sorted(rng.sample(spans, 20_000)):
        supports.append({"segment": {"startIndex": start, "endIndex": end},
                         "groundingChunkIndices": [rng.randrange(200)]})  # fmt: skip
    response = {"candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                                "finishReason": "STOP", "index": 0,
                                "groundingMetadata": {"groundingChunks": sources,
                                                      "groundingSupports": supports}}],
                "modelVersion": "gemini-2.5-flash"}  # fmt: skip
    path.write_text(_dumps(response), encoding="utf-8")


def checkout(ref: str, into: Path) -> Path:
    """``src`` of commit ``ref``, with the generated modules of this tree's ``src``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    src = into / "src"
    for name in GENERATED:
        origin = ROOT / "src" / "grounding_protos" / name
        if origin.is_dir():
            shutil.copytree(origin, src / "grounding_protos" / name)
        elif origin.exists():
            shutil.copy2(origin, src / "grounding_protos" / name)
    return src


def peak_rss(src: Path, path: Path, argv: list[str]) -> int:
    """The peak RSS (bytes) of the command ``argv`` on ``path`` with ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-m", "grounding_protos", *argv, str(path),
               "--max-input", "0", "-o", os.devnull]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *command], env=env, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    status, kib = done.stdout.split()
    if int(status):
        raise SystemExit(f"{' '.join(argv)} {path.name} failed ({status}): {done.stderr}")
    return int(kib) * 1024


COLUMNS = (  # (heading, tree, command)
    ("render, before", "before", ["render"]),
    ("render, after", "after", ["render"]),
    ("--style plain, after", "after", ["render", "--style", "plain"]),
    ("validate, before", "before", ["validate"]),
    ("validate, after", "after", ["validate"]),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=BEFORE, help="the git ref to compare with")
    parser.add_argument("--scale", type=float, default=1.0, help="file sizes times this")
    parser.add_argument(
        "--chunk-text", type=int, default=150, help="UTF-8 bytes of text per Gemini chunk"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cli-memory-") as scratch:
        folder = Path(scratch)
        text = args.chunk_text
        cases = [
            ("Gemini SSE", folder / "gemini.sse",
             lambda p, n: write_gemini(p, n, text, array=False), 100e6),
            ("Gemini SSE, 1 paragraph", folder / "gemini-one.sse",
             lambda p, n: write_gemini(p, n, text, array=False, markdown=False), 100e6),
            ("Gemini JSON array", folder / "gemini.json",
             lambda p, n: write_gemini(p, n, text, array=True), 100e6),
            ("OpenAI Responses SSE", folder / "responses.sse", write_responses_sse, 50e6),
            ("Gemini whole response", folder / "response.json", write_gemini_response, 50e6),
        ]  # fmt: skip
        for _, path, write, size in cases:
            write(path, int(size * args.scale))
        (folder / "before").mkdir()
        trees = {"before": checkout(args.before, folder / "before"), "after": ROOT / "src"}
        print(f"peak RSS / file size (before: {args.before}; Gemini chunks of ~{text} bytes "
              "of text)")  # fmt: skip
        print(f"{'':<22} {'file':>9} " + " ".join(f"{h:>22}" for h, _, _ in COLUMNS))
        for name, path, _, _ in cases:
            size = path.stat().st_size
            cells = []
            for _, tree, argv in COLUMNS:
                rss = peak_rss(trees[tree], path, argv)
                cells.append(f"{rss / 2**20:6.0f} MiB = {rss / size:4.1f}x")
            print(f"{name:<22} {size / 2**20:5.1f} MiB " + " ".join(f"{c:>22}" for c in cells))
        print("goal: <= 3x for the recorded streams")


if __name__ == "__main__":
    main()

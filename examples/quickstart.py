"""Quickstart: read a Discovery Engine answer (REST JSON) and show its citations.

    python examples/quickstart.py [ANSWER.json]

Citation offsets are UTF-8 *byte* offsets; ``TextIndex`` turns them into the
right Python slice, where ``answer_text[start:end]`` goes wrong on non-ASCII text.
"""

from __future__ import annotations

import sys
from pathlib import Path

from grounding_protos import codec, from_bytes, validate
from grounding_protos.citations import extract, render, source_list
from grounding_protos.discoveryengine_v1 import Answer
from grounding_protos.offsets import TextIndex

DEFAULT = Path(__file__).with_name("discoveryengine_answer.json")


def reference_title(reference: Answer.Reference) -> str:
    kind = reference.WhichOneof("content")
    if kind == "chunk_info":
        return reference.chunk_info.document_metadata.title
    if kind == "unstructured_document_info":
        return reference.unstructured_document_info.title
    if kind == "structured_document_info":
        return reference.structured_document_info.title
    return "(no content)"


def main(path: Path) -> None:
    answer = codec.from_json(Answer, path.read_text(encoding="utf-8"))
    text = TextIndex(answer.answer_text)
    print(f"{answer.DESCRIPTOR.full_name} from {path.name}: {len(answer.citations)} citations")
    print(f"text: {text.char_length} characters, {text.byte_length} UTF-8 bytes\n")
    for n, citation in enumerate(answer.citations, 1):
        start, end = citation.start_index, citation.end_index
        chars = text.to_char_span(start, end)
        refs = ", ".join(
            reference_title(answer.references[int(source.reference_id)])
            for source in citation.sources
        )
        print(f"[{n}] bytes {start}-{end} = characters {chars[0]}-{chars[1]}: {refs}")
        print(f"    cited:  {text.slice(start, end)!r}")
        naive = answer.answer_text[start:end]
        if naive != text.slice(start, end):
            print(f"    naive text[start:end] would give {naive!r}")
    citations = [c for c in extract(answer) if c.kind == "citation"]
    print("\nrendered:\n" + render(answer.answer_text, citations))
    print(source_list(answer.answer_text, citations))
    print(f"problems found by validate(): {len(validate(answer))}")
    data = answer.SerializeToString(deterministic=True)
    assert from_bytes(Answer, data) == answer
    print(f"\nwire: {len(data)} bytes, round trip OK")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)

"""Streamed Discovery Engine answers: merging the parts, and the STREAMING state."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from grounding_protos import ArgumentValueError, UnsupportedInputError, codec
from grounding_protos._sources.google.answer.merger import merge_answer_chunks
from grounding_protos.citations import read
from grounding_protos.discoveryengine_v1 import Answer

pytestmark = pytest.mark.smoke

PARTS = ["Köln liegt am Rhein. ", "東京は日本の首都です。", "Ça va 👍🏽👨‍👩‍👧!"]
WHOLE = "".join(PARTS)


def _bytes_before(k: int) -> int:
    return len("".join(PARTS[:k]).encode("utf-8"))


def _chunks(offsets: str) -> list[dict[str, Any]]:
    """One AnswerQueryResponse per part; part k cites itself and reference k."""
    out = []
    for k, part in enumerate(PARTS):
        base = _bytes_before(k) if offsets == "answer" else 0
        citation = {
            "startIndex": str(base),
            "endIndex": str(base + len(part.encode("utf-8"))),
            "sources": [{"referenceId": "0"}],
        }
        answer = {
            "state": "STREAMING" if k < len(PARTS) - 1 else "SUCCEEDED",
            "answerText": part,
            "citations": [citation],
            "references": [{"chunkInfo": {"content": part, "documentMetadata": {
                "title": f"Quelle {k}", "uri": f"https://q{k}.example"}}}],
        }  # fmt: skip
        out.append({"answer": answer, "session": "projects/p/sessions/s"})
    return out


def _check(merged: dict[str, Any]) -> None:
    grounded = read(merged)
    assert grounded.text == WHOLE
    assert [c.text for c in grounded.citations] == PARTS
    assert [[s.title for s in c.sources] for c in grounded.citations] == [
        ["Quelle 0"], ["Quelle 1"], ["Quelle 2"],
    ]  # fmt: skip
    assert merged["state"] == "SUCCEEDED"


@pytest.mark.parametrize("offsets", ["answer", "chunk"])
def test_delta_parts_merge(offsets: Any) -> None:
    _check(merge_answer_chunks(_chunks(offsets), offsets=offsets))


def test_cumulative_parts_replace_the_text() -> None:
    chunks = _chunks("answer")
    for k, chunk in enumerate(chunks):  # each part carries the whole answer so far
        answer = chunk["answer"]
        answer["answerText"] = "".join(PARTS[: k + 1])
        answer["references"] = [c["answer"]["references"][0] for c in _chunks("answer")[: k + 1]]
        answer["citations"][0]["sources"][0]["referenceId"] = str(k)
    merged = merge_answer_chunks(chunks, offsets="chunk")  # cumulative parts are not shifted
    _check(merged)
    assert len(merged["references"]) == 3


def test_answers_as_messages_and_official_objects() -> None:
    chunks = [codec.from_dict(Answer, c["answer"]) for c in _chunks("answer")]
    _check(merge_answer_chunks(chunks))
    de = pytest.importorskip("google.cloud.discoveryengine_v1", reason="official extra")
    official = [
        de.AnswerQueryResponse(answer=de.Answer.deserialize(m.SerializeToString())) for m in chunks
    ]
    _check(merge_answer_chunks(official))


def test_bad_chunks_and_options() -> None:
    with pytest.raises(UnsupportedInputError, match="chunk 1 of a streamed answer"):
        merge_answer_chunks([_chunks("answer")[0], {"foo": 1}])
    with pytest.raises(ArgumentValueError):
        merge_answer_chunks([], offsets="bytes")  # type: ignore[arg-type]
    assert merge_answer_chunks([]) == {}


# --- Answer.State STREAMING through codec, json_format and the CLI ----------------------


def test_streaming_state_round_trips_like_json_format() -> None:
    data = {"state": "STREAMING", "answerText": "東京"}
    ours = codec.from_dict(Answer, data)
    theirs = json_format.ParseDict(data, Answer())
    assert ours == theirs and ours.state == 4
    assert codec.to_dict(ours) == json_format.MessageToDict(theirs) == data


def test_unknown_future_state_number_is_kept() -> None:
    """proto3 enums are open: a number our descriptor does not name survives the wire
    and JSON, printed as the number (json_format's behaviour)."""
    message = Answer.FromString(b"\x10\x07")  # state = 7
    assert message.state == 7
    assert codec.to_dict(message) == json_format.MessageToDict(message) == {"state": 7}
    assert codec.from_dict(Answer, {"state": 7}).SerializeToString() == b"\x10\x07"


def test_cli_encode_and_decode_streaming(tmp_path: Path) -> None:
    source = tmp_path / "answer.json"
    source.write_text('{"state": "STREAMING", "answerText": "Zürich"}', encoding="utf-8")
    encoded = subprocess.run(
        [sys.executable, "-m", "grounding_protos", "encode", "--type", "Answer", "--to",
         "base64", str(source)],
        capture_output=True, check=True, text=True,
    )  # fmt: skip
    decoded = subprocess.run(
        [sys.executable, "-m", "grounding_protos", "decode", "--type", "Answer", "--from",
         "base64", "--compact", "-"],
        input=encoded.stdout, capture_output=True, check=True, text=True,
    )  # fmt: skip
    assert '"state": "STREAMING"' in decoded.stdout

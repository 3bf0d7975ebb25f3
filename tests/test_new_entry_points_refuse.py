"""Bad input to the entry points added since 0.1's last release: a typed error that
names what was wrong, never a result."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from grounding_protos import (
    ArgumentValueError,
    CitationError,
    StreamError,
    UnsupportedInputError,
)
from grounding_protos.citations import StreamReader, aread_stream, read, read_stream

GEMINI = {"candidates": [{"content": {"parts": [{"text": "Grüße aus Köln 🌉."}]},
                          "finishReason": "STOP"}]}  # fmt: skip


def test_read_refuses_an_unknown_markers_value() -> None:
    with pytest.raises(ArgumentValueError, match="markers must be 'keep' or 'remove', not 'drop'"):
        read(GEMINI, markers="drop")  # type: ignore[arg-type]


@pytest.mark.parametrize("call", ["read_stream", "aread_stream", "StreamReader"])
def test_the_stream_readers_refuse_an_unknown_unit(call: str) -> None:
    with pytest.raises(ArgumentValueError, match="unit must be 'byte', 'char' or 'utf16'"):
        if call == "read_stream":
            read_stream([GEMINI], unit="bytes")  # type: ignore[arg-type]
        elif call == "aread_stream":

            async def chunks() -> Any:
                yield GEMINI

            asyncio.run(aread_stream(chunks(), unit="bytes"))  # type: ignore[arg-type]
        else:
            StreamReader(unit="bytes")  # type: ignore[arg-type]


def test_bytes_that_are_no_stream_are_a_stream_error() -> None:
    with pytest.raises(StreamError, match="not a recorded stream"):
        read_stream(b"\x00\x00\x00\x10not an event stream")


@pytest.mark.parametrize("value", [42, '{"candidates": []}'])
def test_to_ai_message_refuses_what_read_refuses(value: object) -> None:
    pytest.importorskip("langchain_core", reason="langchain-core (test extra)")
    from grounding_protos.convert import to_ai_message

    with pytest.raises(UnsupportedInputError):
        to_ai_message(value)


def test_to_ai_message_of_an_input_without_answer_text_says_so() -> None:
    pytest.importorskip("langchain_core", reason="langchain-core (test extra)")
    from grounding_protos.convert import to_ai_message

    metadata = {"groundingChunks": [{"web": {"uri": "https://k.example"}}]}
    with pytest.raises(CitationError) as info:
        to_ai_message(metadata)
    assert info.value.code == "text-missing"

"""Citation: keyword construction, the shared answer text (memory O(N + T)), equality,
hashing and pickling, including the pickles 0.1 made."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import pickle
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_protos import validate
from grounding_protos.citations import Citation, Grounded, Source, read, render
from grounding_protos.discoveryengine_v1 import Answer
from tests.pickles_v0_1 import PICKLES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TOWER = Source(uri="https://tower.example", title="Tokyo Tower")
# multi-script, astral characters before the citations
TEXT = "Grüße 👍🏽 aus Köln. 東京タワーは333メートルです。한국어 문장. Ελληνικά 😀 τέλος."


def _gemini(text: str, spans: list[tuple[int, int]]) -> dict[str, Any]:
    data = text.encode("utf-8")
    supports = []
    for a, b in spans:  # character positions -> byte offsets
        start, end = len(text[:a].encode("utf-8")), len(text[:b].encode("utf-8"))
        supports.append({"segment": {"startIndex": start, "endIndex": end},
                         "groundingChunkIndices": [0]})  # fmt: skip
    assert data
    return {"candidates": [{
        "content": {"parts": [{"text": text}]},
        "groundingMetadata": {
            "groundingChunks": [{"web": {"uri": "https://k.example", "title": "K"}}],
            "groundingSupports": supports,
        },
    }]}  # fmt: skip


def test_keyword_construction_with_defaults() -> None:
    c = Citation(start=57, end=89, sources=(TOWER,))
    assert c == Citation(57, 89, None, None, None, (TOWER,))
    assert (c.char_start, c.char_end, c.text, c.kind, c.score, c.part, c.path) == (
        None, None, None, "citation", None, None, "",
    )  # fmt: skip
    assert c.source_scores == ()
    assert Citation(1, 2).sources == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.text = "x"  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(Citation)] == [
        "start", "end", "char_start", "char_end", "text", "sources", "kind", "score",
        "source_scores", "part", "path",
    ]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(TEXT)), st.integers(0, len(TEXT))), max_size=8))
def test_read_citations_equal_hash_and_pickle_as_values(pairs: list[tuple[int, int]]) -> None:
    spans = [(min(a, b), max(a, b)) for a, b in pairs]
    grounded = read(_gemini(TEXT, spans))
    assert [(c.char_start, c.char_end) for c in grounded.citations] == spans
    for c in grounded.citations:
        assert c.char_start is not None
        # the oracle: the text sliced by hand, and a citation built with it
        expected = TEXT[c.char_start : c.char_end]
        assert c.text == expected
        built = Citation(
            c.start, c.end, c.char_start, c.char_end, expected, c.sources, c.kind, c.score,
            c.source_scores, c.part, c.path,
        )  # fmt: skip
        assert c == built and built == c and hash(c) == hash(built)
        assert repr(c) == repr(built)
        assert dataclasses.asdict(c) == dataclasses.asdict(built)
        assert dataclasses.replace(c, path="x").text == expected
        assert copy.deepcopy(c) == c and copy.copy(c) == c
        assert len({c, built}) == 1
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(grounded, protocol=protocol))
        assert back == grounded
        assert [c.text for c in back.citations] == [c.text for c in grounded.citations]


def test_a_pickle_holds_the_answer_text_once() -> None:
    text = TEXT * 200
    grounded = read(_gemini(text, [(3, len(text) - 3)] * 50))
    size = len(text.encode("utf-8"))
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        data = pickle.dumps(grounded, protocol=protocol)
        assert size < len(data) < 3 * size  # not 50 copies of the cited text
        assert pickle.loads(data) == grounded


def test_memory_of_wide_spans_is_linear() -> None:
    """N spans, each over nearly the whole of a T-byte text, take O(N + T), not O(N * T)."""
    text = TEXT * 400  # ~40 KB
    size = len(text.encode("utf-8"))
    data = _gemini(text, [(k % 7, len(text) - k % 5) for k in range(300)])
    grounded = read(data)
    for run in (
        lambda: read(data),
        lambda: validate(data),
        lambda: render(grounded.text or "", grounded.citations),
    ):
        tracemalloc.start()
        try:
            run()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 20 * size  # a copy per span would be 300 copies of the text


def test_citations_built_with_text_keep_it() -> None:
    """A citation given its own text (Cohere's, or a caller's) keeps exactly that."""
    c = Citation(0, 5, 0, 5, "other", (TOWER,))
    assert c.text == "other"
    assert pickle.loads(pickle.dumps(c)) == c
    assert c != Citation(0, 5, 0, 5, "Grüße", (TOWER,))


def _now() -> dict[str, Any]:
    """The objects of tests/pickles_v0_1.py, built now by the code its docstring shows."""
    gemini = json.loads((EXAMPLES / "gemini_response.json").read_text(encoding="utf-8"))
    broken = json.loads((EXAMPLES / "broken_answer.json").read_text(encoding="utf-8"))
    return {
        "gemini": read(gemini),
        "broken": read(broken, errors="skip"),
        "answer": Answer(
            answer_text="日本 🎌", citations=[Answer.Citation(start_index=1, end_index=3)]
        ),
    }


@pytest.mark.parametrize("protocol", sorted(PICKLES))
def test_pickles_of_0_1_still_load(protocol: int) -> None:
    old = pickle.loads(base64.b64decode("".join(PICKLES[protocol])))
    now = _now()
    assert old == now
    assert isinstance(old["gemini"], Grounded)
    assert [c.text for c in old["gemini"].citations] == [c.text for c in now["gemini"].citations]
    assert all(isinstance(c.text, str) for c in old["gemini"].citations)
    # and they pickle again, as today's objects do
    assert pickle.loads(pickle.dumps(old)) == now

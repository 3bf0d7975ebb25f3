"""The marker-style sources: Perplexity, Azure On Your Data (``[docN]``), xAI
(``[[n]](url)``) and Perplexity through OpenRouter (``[n]`` naming position-less
annotations); and Azure AI Foundry agents' ``url_citation`` on their markers.

Every source shares one rule (``_sources.markers``): a run of markers cites the clause
it ends, code (inline or fenced) never holds a marker, only ASCII digits count, and
``markers="remove"`` cuts the runs and moves every other span.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grounding_protos import CitationError, UnsupportedInputError, validate
from grounding_protos.citations import Grounded, read, read_stream
from tests.marker_cases import (
    BUILDERS,
    MARKERS,
    SHAPES,
    TITLES,
    URLS,
    chunks,
    foundry_message,
    spelled,
)
from tests.openai_streams import run_events
from tests.test_fuzz import _spoil, check_downstream

NAMES = sorted(BUILDERS)
# literal markers of every style: inside code they are code, for every source
ALL_STYLES = "[1] [doc1] [[1]](https://k.example/köln)"


def cited(grounded: Grounded) -> list[tuple[str | None, list[str | None]]]:
    return [(c.text, [s.uri for s in c.sources]) for c in grounded.citations]


def offsets_agree(grounded: Grounded) -> None:
    text = grounded.text or ""
    for c in grounded.citations:
        assert text.encode()[c.start : c.end].decode() == c.text == text[c.char_start : c.char_end]


# (template, the spans: their text and the numbers of the sources they cite); "{n}" is
# the source's marker for source n. Multi-script text before the spans.
CASES = [
    ("👍🏽 Grüße! Köln liegt am Rhein{1}. 東京は首都です。{2} القاهرة عاصمة مصر {3}{1}",
     [("Köln liegt am Rhein", [1]), ("東京は首都です。", [2]), ("القاهرة عاصمة مصر", [3, 1])]),
    # code, inline and fenced, holds every style's markers: they cite nothing
    (f"Köln 😀 nutzt `arr[1]` und `` {ALL_STYLES} ``, dann Rhein{{2}}.\n```python\n"
     f"x = a[1]  # {ALL_STYLES}. Ende.\n```\n東京{{3}}",
     [(f"Köln 😀 nutzt `arr[1]` und `` {ALL_STYLES} ``, dann Rhein", [2]), ("東京", [3])]),
    # a fence in a list item (indented, tildes), an unclosed fence at the end
    (f"Erstens 🌉:\n- Köln{{1}}\n  ~~~\n  {ALL_STYLES}\n  ~~~\n- 東京{{2}}{{3}}\n"
     f"1. القاهرة{{3}}\n\n```\n{ALL_STYLES}",
     [("Köln", [1]), ("東京", [2, 3]), ("القاهرة", [3])]),
    # a backtick run without a closer of its length is text (three, mid-line: no
    # fence); a span of two backticks holds a single one
    ("Grüße ``` aus Köln{1}. ``a ` [1] [doc1]`` und 東京{2}",
     [("Grüße ``` aus Köln", [1]), ("``a ` [1] [doc1]`` und 東京", [2])]),
    # fullwidth and Arabic-Indic digits are text, for every style
    ("Köln[\uff11] [doc\uff11] [[\uff11]](https://k.example/köln) "
     "القاهرة[\u0661] [doc\u0661] [[\u0661]](https://c.example). 東京{2}",
     [("東京", [2])]),
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("template", "spans"), CASES)
def test_each_marker_source_cites_the_clause_each_run_ends(
    name: str, template: str, spans: list[tuple[str, list[int]]]
) -> None:
    response = BUILDERS[name](spelled(name, template))
    grounded = read(response)
    assert grounded.shape == SHAPES[name] and grounded.problems == []
    # validate takes every *_score for a [0, 1] score; Azure's rerank_score runs 0-4
    # (the semantic ranker's): those are its only findings (left to validate's owners)
    found = validate(response)
    assert all(p.path.endswith(".rerank_score") for p in found) and (name == "azure") == bool(found)
    assert cited(grounded) == [(text, [URLS[n - 1] for n in ns]) for text, ns in spans]
    assert {c.kind for c in grounded.citations} == {"marker"}
    offsets_agree(grounded)
    # the same from JSON text, and every URL is a declared source: nothing reads empty
    assert read(json.loads(json.dumps(response))).citations == grounded.citations
    assert set(URLS) <= {s.uri for s in grounded.declared_sources}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(("template", "spans"), CASES)
def test_removing_markers_leaves_code_and_every_span(
    name: str, template: str, spans: list[tuple[str, list[int]]]
) -> None:
    content = spelled(name, template)
    removed = read(BUILDERS[name](content), markers="remove")
    # the oracle: each run of "{n}" in the template cut, with one space before it
    assert removed.text == re.sub(r"[ \t]?(?:\{\d\})+", "", template)
    assert cited(removed) == [(text, [URLS[n - 1] for n in ns]) for text, ns in spans]
    offsets_agree(removed)


@pytest.mark.parametrize("name", NAMES)
def test_a_stream_of_each_marker_source_reads_as_its_final_response(name: str) -> None:
    final = BUILDERS[name](spelled(name, CASES[0][0]))
    got = read_stream(chunks(final))
    want = read(final)
    assert got.shape == want.shape == SHAPES[name]
    assert got.text == want.text and got.citations == want.citations
    assert got.declared_sources == want.declared_sources and got.search == want.search
    assert len(got.citations) == 3 and got.problems == []


def test_an_azure_stream_with_its_filter_results_keeps_the_context() -> None:
    """Azure's streams begin with a chunk of ``prompt_filter_results`` and no choices,
    and put ``content_filter_results`` on each choice (Azure's API reference)."""
    final = BUILDERS["azure"](spelled("azure", CASES[0][0]))
    events = chunks(final)
    filters = {"hate": {"filtered": False, "severity": "safe"}}
    for event in events:
        for choice in event["choices"]:
            choice["content_filter_results"] = filters
    prompt = [{"prompt_index": 0, "content_filter_results": filters}]
    head = {"id": "", "object": "", "created": 0, "model": "", "choices": [],
            "prompt_filter_results": prompt}  # fmt: skip
    got = read_stream([head, *events])
    assert got.shape == "azure_on_your_data_chat_completion" and got.problems == []
    assert cited(got) == cited(read(final)) and len(got.citations) == 3
    sse = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in [head, *events])
    assert cited(read_stream(sse + "data: [DONE]\n\n")) == cited(got)


def test_azure_sources_are_its_documents_and_intent_its_queries() -> None:
    grounded = read(BUILDERS["azure"]("Köln 😀 liegt am Rhein [doc1][doc3]."))
    first, third = grounded.citations[0].sources
    assert (first.id, first.title, first.document, first.chunk, first.kind) == (
        "doc1", "Köln am Rhein", "Köln am Rhein.pdf", "0", "document")  # fmt: skip
    assert (third.text, third.uri) == ("القاهرة … Auszug", URLS[2])
    assert third.custom_metadata == (("rerank_score", "1.25"),) and third.score is None
    assert grounded.search.retrieval_queries == ("Köln Rhein", "東京 首都", "القاهرة")


@pytest.mark.parametrize(
    ("intent", "queries"),
    [("Köln", ("Köln",)), (["東京", 3, ""], ("東京",)), ('"x"', ('"x"',)), (None, ()),
     ("[not json", ("[not json",)), ({"a": 1}, ())],
)  # fmt: skip
def test_azure_intent_in_any_spelling_is_never_an_error(intent: object, queries: object) -> None:
    response = BUILDERS["azure"]("Köln[doc1].")
    response["choices"][0]["message"]["context"]["intent"] = intent
    assert read(response).search.retrieval_queries == queries


def test_xai_cites_each_link_target_not_the_number() -> None:
    # the number says 1, the link names the third URL; a target not in ``citations``
    # is one more source
    content = (f"👍🏽 Köln 東京 [[1]]({URLS[2]}). Grok 🚀 [[2]](https://en.wikipedia.org/"
               "wiki/Grok_(chatbot))")  # fmt: skip
    grounded = read(BUILDERS["xai"](content))
    assert cited(grounded) == [
        ("👍🏽 Köln 東京", [URLS[2]]),
        ("Grok 🚀", ["https://en.wikipedia.org/wiki/Grok_(chatbot)"]),
    ]
    declared = [s.uri for s in grounded.declared_sources]
    assert declared == [*URLS, "https://x.com/i/status/1",
                        "https://en.wikipedia.org/wiki/Grok_(chatbot)"]  # fmt: skip
    assert read(BUILDERS["xai"](content), markers="remove").text == "👍🏽 Köln 東京. Grok 🚀"


# --- Which reader claims which shape ------------------------------------------------------


def test_xai_links_never_fall_into_perplexity() -> None:
    content = f"Köln liegt am Rhein [[1]]({URLS[0]})."
    bare = {k: v for k, v in BUILDERS["xai"](content).items() if k != "usage"}
    assert read(bare).shape == "xai_chat_completion"  # by its markers alone
    assert cited(read(bare)) == [("Köln liegt am Rhein", [URLS[0]])]
    no_link = BUILDERS["xai"]("Köln liegt am Rhein.")  # by usage.num_sources_used
    assert read(no_link).shape == "xai_chat_completion"
    assert {s.uri for s in read(no_link).declared_sources} >= set(URLS)
    # in code, an xAI marker is no marker: without usage, a plain citations list
    coded = {**bare, "choices": [{"index": 0, "message": {
        "role": "assistant", "content": f"`[[1]]({URLS[0]})` Köln[1]."}}]}  # fmt: skip
    assert read(coded).shape == "perplexity_chat_completion"
    assert cited(read(coded)) == [(f"`[[1]]({URLS[0]})` Köln", [URLS[0]])]


def test_a_perplexity_answer_takes_no_bracketed_number_for_a_marker() -> None:
    content = f"Köln 😀 liegt am Rhein [[1]]({URLS[0]}). 東京[[2]] und القاهرة[2]."
    grounded = read(BUILDERS["perplexity"](content))  # search_results: Perplexity's
    assert grounded.shape == "perplexity_chat_completion"
    assert cited(grounded) == [(f"東京[[2]] und {TITLES[2]}", [URLS[1]])]


def test_azure_context_never_falls_into_chat_completions() -> None:
    response = BUILDERS["azure"]("Köln[doc1].")
    assert read(response).shape == "azure_on_your_data_chat_completion"
    response["choices"][0]["message"]["context"] = {"citations": []}  # nothing retrieved
    skipped = read(response, errors="skip")
    assert skipped.shape == "azure_on_your_data_chat_completion"
    assert skipped.problems and skipped.citations == []  # [doc1] names no document
    with pytest.raises(CitationError):
        read(response, errors="strict")
    unmarked = BUILDERS["azure"]("Köln 😀 liegt am Rhein. 東京.")  # documents, no marker
    grounded = read(unmarked)
    assert grounded.shape == "azure_on_your_data_chat_completion" and grounded.citations == []
    assert [s.uri for s in grounded.declared_sources] == URLS
    del response["choices"][0]["message"]["context"]
    assert read(response).shape == "openai_chat_completion"


def test_openrouter_markers_need_position_less_annotations() -> None:
    response = BUILDERS["openrouter"]("Köln liegt am Rhein[1]. 東京[2]")
    assert read(response).shape == "openrouter_perplexity_chat_completion"
    positioned = BUILDERS["openrouter"]("Köln liegt am Rhein[1]. 東京[2]")
    note = positioned["choices"][0]["message"]["annotations"][0]["url_citation"]
    note.update(start_index=0, end_index=5)  # a real position: OpenAI's reading
    assert read(positioned).shape == "openai_chat_completion"
    # no marker outside code: the 0/0 citations are the answer's sources
    coded = BUILDERS["openrouter"]("Köln liegt am Rhein `a[1]`.")
    grounded = read(coded)
    assert grounded.shape == "openai_chat_completion" and grounded.citations == []
    assert [s.uri for s in grounded.declared_sources] == URLS


@pytest.mark.parametrize(
    "response",
    [
        {"citations": [URLS[0]], "choices": [{"message": {"role": "user", "content": "x[1]"}}]},
        {"context": {"citations": []}, "content": "Köln[doc1]"},
        {"choices": [], "citations": [1, 2]},
    ],
)
def test_what_no_reader_claims_is_refused(response: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedInputError):
        read(response)


# --- Azure AI Foundry agents ---------------------------------------------------------------


def test_a_foundry_agent_message_cites_urls_on_its_markers() -> None:
    value = ("Grüße 😀 aus Köln【3:0†source】. 東京は首都です【3:1†source】。"
             "القاهرة عاصمة مصر【3:2†source】")  # fmt: skip
    message = foundry_message(value)
    grounded = read(message)
    assert grounded.shape == "openai_thread_message" and grounded.problems == []
    assert cited(grounded) == [(m, [URLS[k]]) for k, m in enumerate(
        ["【3:0†source】", "【3:1†source】", "【3:2†source】"])]  # fmt: skip
    assert [c.sources[0].title for c in grounded.citations] == TITLES
    offsets_agree(grounded)
    listed = read({"object": "list", "data": [message], "first_id": "msg_abc123"})
    assert cited(listed) == cited(grounded) and listed.text == grounded.text
    # as a run stream (deltas, annotations with their own index, the completed message)
    streamed = read_stream(run_events(message), candidate=0)
    assert cited(streamed) == cited(grounded) and streamed.text == grounded.text
    # without a position, a source of the whole answer
    for note in message["content"][0]["text"]["annotations"]:
        del note["start_index"], note["end_index"]
    grounded = read(message)
    assert grounded.citations == [] and [s.uri for s in grounded.declared_sources] == URLS


# --- Code: CommonMark's backtick runs, against markdown-it-py's own inline parse ---------


def _inline_code(text: str) -> list[str]:
    """The content of each code span, as markdown-it-py's full parse gives it."""
    from markdown_it import MarkdownIt

    out: list[str] = []
    for token in MarkdownIt("commonmark").parse(text):
        out.extend(child.content for child in token.children or () if child.type == "code_inline")
    return out


def _normalized(span: str) -> str:
    """A code span's content as CommonMark gives it: its backtick runs off, one space
    off each end when both ends have one (and it is not all spaces)."""
    inner = span.strip("`")
    if len(inner) >= 2 and inner[0] == inner[-1] == " " and inner.strip(" "):
        inner = inner[1:-1]
    return inner


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="`\\a [1]ö😀", max_size=30))
def test_code_spans_follow_commonmark(text: str) -> None:
    from grounding_protos._sources.markers import code_spans

    assume(text.strip() == text and text)  # a paragraph's own edges are trimmed
    mine = [_normalized(text[i:j]) for i, j in code_spans(text, 0, len(text))]
    assert mine == _inline_code(text)


_BLOCKY = ["a", " ", "`", "``", "```", "~~~", "\n", "\r\n", "\r", "\t", "- ", "> ", "1. ",
           "\\", "[1]", "  "]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_BLOCKY), max_size=20).map("".join))
def test_code_ranges_find_each_code_span_and_fence_of_commonmark(text: str) -> None:
    from markdown_it import MarkdownIt

    from grounding_protos._sources.markers import code_ranges

    tokens = MarkdownIt("commonmark").parse(text)
    fences = sum(t.type == "fence" for t in tokens)
    spans = sum(c.type == "code_inline" for t in tokens for c in t.children or ())
    found = code_ranges(text)
    assert len(found) == fences + spans, (found, fences, spans)
    assert all(a < b <= c < d for (a, b), (c, d) in pairwise(found))


# --- markers="remove" keeps every other span right, for every marker source ---------------

_PLAIN = ["a", "é", " ", "😀", "東", "ب", ".", ",", "\n", "x[ ", "]"]  # "[[1]" is no marker


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(NAMES),
    st.lists(
        st.one_of(
            st.sampled_from(_PLAIN),
            st.sampled_from(["{1}", "{2}"]),
            # code holds the third source's marker: never cited
            st.text(alphabet="aö {3}.", min_size=1, max_size=8).map(lambda s: f" `{s}x` "),
        ),
        max_size=25,
    ),
)
def test_removing_markers_keeps_every_span_for_every_marker_source(
    name: str, pieces: list[str]
) -> None:
    template = "".join(pieces)
    assume("\n " not in template and "\n\n" not in template)  # no indented or split blocks
    content = spelled(name, template)
    kept = read(BUILDERS[name](content), errors="skip")
    removed = read(BUILDERS[name](content), markers="remove", errors="skip")
    assert [c.text for c in removed.citations] == [c.text for c in kept.citations]
    assert [[s.uri for s in c.sources] for c in removed.citations] == [
        [s.uri for s in c.sources] for c in kept.citations]  # fmt: skip
    offsets_agree(removed)
    # code is never cited, never cut; every marker outside code is cited
    uris = {s.uri for c in kept.citations for s in c.sources}
    assert URLS[2] not in uris
    outside = re.sub(r"`[^`]*`", "", template)
    assert uris == {URLS[int(n) - 1] for n in re.findall(r"\{(\d)\}", outside)}
    assert removed.text is not None
    for code in re.findall(r"`[^`]*`", content):
        assert code in removed.text


# --- markdown-it-py: imported only for a text with code -----------------------------------


def test_markdown_it_is_imported_only_for_a_text_with_code() -> None:
    plain = BUILDERS["perplexity"]("Köln liegt am Rhein[1]. 東京[2]")
    coded = BUILDERS["perplexity"]("Köln `a[1]` liegt am Rhein[1].")
    script = (
        "import json, sys\n"
        "from grounding_protos.citations import read\n"
        "before = 'markdown_it' in sys.modules\n"
        f"read(json.loads({json.dumps(json.dumps(plain))}))\n"
        "plain = 'markdown_it' in sys.modules\n"
        f"read(json.loads({json.dumps(json.dumps(coded))}))\n"
        "print(before, plain, 'markdown_it' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["False", "False", "True"]


def test_without_markdown_it_code_spans_and_backtick_fences_still_hold_no_marker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from grounding_protos._sources import markers

    markers._block_parser.cache_clear()
    monkeypatch.setitem(sys.modules, "markdown_it", None)  # import fails
    try:
        template, spans = CASES[1]
        grounded = read(BUILDERS["perplexity"](spelled("perplexity", template)))
        assert cited(grounded) == [(text, [URLS[n - 1] for n in ns]) for text, ns in spans]
    finally:
        markers._block_parser.cache_clear()


def test_every_marker_source_has_its_marker_spelled() -> None:
    assert set(MARKERS) == set(BUILDERS) == set(SHAPES)


# --- Hostile values: the package's errors or problems, never another exception ------------


def _answer(name: str) -> dict[str, Any]:
    if name == "foundry":
        return foundry_message(spelled("perplexity", CASES[1][0]) + "【3:0†source】")
    return BUILDERS[name](spelled(name, CASES[1][0]))


@st.composite
def spoiled_answers(draw: st.DrawFn) -> Any:
    return _spoil(_answer(draw(st.sampled_from([*NAMES, "foundry"]))), draw)


@settings(max_examples=200, deadline=None)
@given(spoiled_answers())
def test_spoiled_marker_answers_raise_only_the_packages_errors(answer: Any) -> None:
    check_downstream(answer)

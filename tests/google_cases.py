"""Google's newer surfaces, built from one multi-script text with offsets computed
independently (``len(text[:c].encode())``): Gemini grounding chunks of every kind
(maps with review snippets and flag links, images, RAG chunks), Gemini 3 part lists,
AQA attributions; the Interactions API, Discovery Engine Assist, check grounding and
grounded generation; Gemini Live server messages."""

from __future__ import annotations

from typing import Any

# Astral characters (emoji) come before every cited piece but the first.
PIECES = [
    "Das Café Müller 🍰 in Köln backt den besten Käsekuchen. ",
    "東京の喫茶店は朝七時に開きます 🌅。 ",
    "Η Ακρόπολη 🏛️ είναι ανοιχτή ως τις οκτώ. ",  # noqa: RUF001 (Greek Eta)
    "서울의 카페는 밤늦게까지 엽니다 ☕.",
]
TEXT = "".join(PIECES)
URLS = [
    "https://maps.google.com/?cid=1001",
    "https://tokyo.example/kissaten",
    "https://athen.example/akropolis",
    "https://seoul.example/cafe",
]
TITLES = ["Café Müller", "東京の喫茶店", "Ακρόπολη", "서울 카페"]


def byte(text: str, char: int) -> int:
    return len(text[:char].encode("utf-8"))


def char_span(k: int) -> tuple[int, int]:
    """Piece ``k`` as characters of TEXT (without its trailing space)."""
    start = sum(len(p) for p in PIECES[:k])
    return start, start + len(PIECES[k].rstrip(" "))


def byte_span(k: int, text: str = TEXT) -> tuple[int, int]:
    cs, ce = char_span(k)
    return byte(text, cs), byte(text, ce)


def cited(k: int) -> str:
    return PIECES[k].rstrip(" ")


# --- Gemini: every kind of grounding chunk ----------------------------------------------


def review_snippet(n: int) -> dict[str, Any]:
    return {
        "reviewId": f"review-{n}", "title": ["Bester Käsekuchen 🍰", "最高のコーヒー"][n],
        "googleMapsUri": f"https://maps.google.com/review/{n}",
        "authorAttribution": {"displayName": ["Jürgen K.", "山田 花子"][n],
                              "uri": f"https://maps.google.com/contrib/{n}",
                              "photoUri": f"https://lh3.example/photo{n}.jpg"},
        "relativePublishTimeDescription": ["vor 2 Monaten", "1 週間前"][n],
    }  # fmt: skip


def gemini_chunks_response() -> dict[str, Any]:
    """A Gemini response citing a Maps place (reviews, flag links, route), a RAG chunk
    with a page span (File Search store, custom metadata), an image and a web page."""
    supports = [
        {"segment": {"startIndex": byte_span(k)[0], "endIndex": byte_span(k)[1],
                     "text": cited(k)}, "groundingChunkIndices": [k]}
        for k in range(4)
    ]  # fmt: skip
    return {"candidates": [{
        "content": {"role": "model", "parts": [{"text": TEXT}]},
        "finishReason": "STOP",
        "groundingMetadata": {
            "groundingChunks": [
                {"maps": {"uri": URLS[0], "title": TITLES[0], "placeId": "ChIJ-mueller",
                          "text": "Konditorei", "placeAnswerSources": {
                              "flagContentUri": "https://maps.google.com/flag/place",
                              "reviewSnippets": [review_snippet(0), review_snippet(1)]},
                          "route": {"distanceMeters": 1234, "duration": "900s",
                                    "encodedPolyline": "_p~iF~ps|U"}}},
                {"retrievedContext": {
                    "uri": "gs://bucket/kissaten.pdf", "title": TITLES[1],
                    "documentName": "fileSearchStores/s1/documents/d7",
                    "fileSearchStore": "fileSearchStores/s1", "mediaId": "media-7",
                    "customMetadata": [{"key": "autor", "stringValue": "佐藤"},
                                       {"key": "jahr", "numericValue": 2024}],
                    "ragChunk": {"text": "喫茶店は七時に開く", "pageSpan": {"firstPage": 3,
                                                                  "lastPage": 5}}}},
                {"image": {"sourceUri": URLS[2], "imageUri": "https://img.example/akro.jpg",
                           "title": TITLES[2], "domain": "athen.example"}},
                {"web": {"uri": URLS[3], "title": TITLES[3], "domain": "seoul.example"}},
            ],
            "groundingSupports": supports,
            "sourceFlaggingUris": [
                {"sourceId": "review-1", "flagContentUri": "https://maps.google.com/flag/r1"}],
            "imageSearchQueries": ["Ακρόπολη ώρες"],
            "webSearchQueries": ["서울 카페 영업시간"],
            "retrievalQueries": ["喫茶店 開店時間"],
        },
    }]}  # fmt: skip


def gemini3_parts(parts: list[str]) -> dict[str, Any]:
    """A Gemini 3 candidate whose parts are ``parts`` ("toolCall", "toolResponse",
    "thought", "text"); the text part holds TEXT, and the segments have no partIndex
    and offsets into that text part."""
    built: list[dict[str, Any]] = []
    for kind in parts:
        if kind == "toolCall":
            built.append({"functionCall": {"name": "search", "args": {"q": "Köln Café"}},
                          "thoughtSignature": "c2ln"})  # fmt: skip
        elif kind == "toolResponse":
            built.append({"functionResponse": {"name": "search", "response": {"ok": True}}})
        elif kind == "thought":
            built.append({"text": "Ich überlege 🤔 …", "thought": True})
        else:
            built.append({"text": TEXT})
    supports = [
        {"segment": {"startIndex": byte_span(k)[0], "endIndex": byte_span(k)[1],
                     "text": cited(k)}, "groundingChunkIndices": [0]}
        for k in range(4)
    ]  # fmt: skip
    return {"candidates": [{
        "content": {"role": "model", "parts": built}, "finishReason": "STOP",
        "groundingMetadata": {"groundingChunks": [{"web": {"uri": URLS[3], "title": "x"}}],
                              "groundingSupports": supports}}]}  # fmt: skip


def aqa_response() -> dict[str, Any]:
    """An AQA ``GenerateAnswerResponse``: attributions of the whole answer."""
    return {
        "answer": {
            "content": {"role": "model", "parts": [{"text": TEXT}]},
            "finishReason": "STOP",
            "groundingAttributions": [
                {"sourceId": {"groundingPassage": {"passageId": "passage-köln",
                                                   "partIndex": 1}},
                 "content": {"parts": [{"text": "Café Müller backt Käsekuchen."}]}},
                {"sourceId": {"semanticRetrieverChunk": {
                    "source": "corpora/cafes/documents/tokyo",
                    "chunk": "corpora/cafes/documents/tokyo/chunks/c1"}},
                 "content": {"parts": [{"text": "喫茶店は七時"}]}},
            ],
        },
        "answerableProbability": 0.93,
    }  # fmt: skip


# --- Gemini Interactions API ----------------------------------------------------------------

SUGGESTIONS = (
    "<style>.chip{border:1px solid #ddd}</style>"
    '<a class="chip" href="https://www.google.com/search?q=%EC%84%9C%EC%9A%B8">서울 카페</a>'
)
# The answer in two model_output steps (a search between them): pieces 0-1, then 2-3.
STEP_TEXTS = [PIECES[0] + PIECES[1], PIECES[2] + PIECES[3]]


def _step_span(k: int) -> tuple[int, int]:
    """Piece ``k`` in bytes of its own model_output step's text."""
    step = 0 if k < 2 else 1
    first = 0 if step == 0 else 2
    start = sum(len(p) for p in PIECES[first:k])
    text = STEP_TEXTS[step]
    return byte(text, start), byte(text, start + len(cited(k)))


def interaction_annotations(step: int) -> list[dict[str, Any]]:
    if step == 0:
        s0, e0 = _step_span(0)
        s1, e1 = _step_span(1)
        return [
            {"type": "place_citation", "place_id": "ChIJ-mueller", "name": TITLES[0],
             "url": URLS[0], "start_index": s0, "end_index": e0,
             "review_snippets": [{"review_id": "review-0", "title": "Bester Käsekuchen 🍰",
                                  "url": "https://maps.google.com/review/0"}]},
            {"type": "file_citation", "document_uri": "fileSearchStores/s1/documents/d7",
             "file_name": "kissaten.pdf", "source": "fileSearchStores/s1", "page_number": 4,
             "media_id": "media-7", "custom_metadata": {"autor": "佐藤", "jahr": 2024},
             "start_index": s1, "end_index": e1},
            {"type": "speech_metadata", "speaker": "narrator", "start_index": 0,
             "end_index": 3},  # not a citation
        ]  # fmt: skip
    s2, e2 = _step_span(2)
    s3, e3 = _step_span(3)
    return [
        {"type": "future_citation", "start_index": s2, "end_index": e2,
         "label": "Ακρόπολη", "confidence": 0.7},  # a type the SDK does not know
        {"type": "url_citation", "url": URLS[3], "title": TITLES[3],
         "start_index": s3, "end_index": e3},
    ]  # fmt: skip


def interaction_steps() -> list[dict[str, Any]]:
    return [
        {"type": "thought", "signature": "c2ln",
         "summary": [{"type": "text", "text": "Ich suche Cafés 🤔"}]},
        {"type": "google_maps_call", "id": "m1", "arguments": {"queries": ["Café Köln"]}},
        {"type": "google_maps_result", "call_id": "m1", "result": [{"places": [
            {"name": TITLES[0], "place_id": "ChIJ-mueller", "url": URLS[0]},
            {"name": "Café Reichard", "place_id": "ChIJ-reichard",
             "url": "https://maps.google.com/?cid=1002"}]}]},
        {"type": "file_search_call", "id": "f1"},
        {"type": "file_search_result", "call_id": "f1"},
        {"type": "model_output", "content": [
            {"type": "text", "text": STEP_TEXTS[0], "annotations": interaction_annotations(0)}]},
        {"type": "google_search_call", "id": "s1",
         "arguments": {"queries": ["서울 카페 영업시간", "Ακρόπολη ώρες"]}},
        {"type": "google_search_result", "call_id": "s1",
         "result": [{"search_suggestions": SUGGESTIONS}]},
        {"type": "url_context_call", "id": "u1", "arguments": {"urls": [URLS[2]]}},
        {"type": "url_context_result", "call_id": "u1",
         "result": [{"url": URLS[2], "status": "success"}, {"url": URLS[1], "status": "paywall"}]},
        {"type": "retrieval_call", "id": "r1", "retrieval_type": "rag_store",
         "arguments": {"queries": ["喫茶店 開店時間"]}},
        {"type": "model_output", "content": [
            {"type": "text", "text": STEP_TEXTS[1], "annotations": interaction_annotations(1)}]},
    ]  # fmt: skip


def interaction() -> dict[str, Any]:
    return {"id": "v1_abc", "object": "interaction", "status": "completed",
            "model": "gemini-3-flash-preview", "steps": interaction_steps(),
            "usage": {"total_tokens": 321}}  # fmt: skip


def interaction_events(cuts: int = 3, annotations_early: bool = False) -> list[dict[str, Any]]:
    """The SSE events that stream :func:`interaction`: each model_output text in
    ``cuts`` text deltas (cut by characters), its annotations in a delta after the text
    (or, ``annotations_early``, after the first piece), tool results as deltas."""
    events: list[dict[str, Any]] = [
        {"event_type": "interaction.created", "interaction": {
            "id": "v1_abc", "status": "in_progress", "object": "interaction",
            "model": "gemini-3-flash-preview"}},
        {"event_type": "interaction.status_update", "interaction_id": "v1_abc",
         "status": "in_progress"},
    ]  # fmt: skip
    for index, step in enumerate(interaction_steps()):
        kind = step["type"]
        start = {k: v for k, v in step.items() if k in ("type", "id", "call_id", "arguments",
                                                          "retrieval_type")}  # fmt: skip
        if "result" in step:
            start["result"] = []  # the SDK's step types require it; the deltas add it
        events.append({"event_type": "step.start", "index": index, "step": start})
        deltas: list[dict[str, Any]] = []
        if kind == "model_output":
            text = step["content"][0]["text"]
            size = -(-len(text) // cuts)
            pieces = [text[i : i + size] for i in range(0, len(text), size)]
            deltas = [{"type": "text", "text": piece} for piece in pieces]
            annotation = {"type": "text_annotation_delta",
                          "annotations": step["content"][0]["annotations"]}  # fmt: skip
            deltas.insert(1 if annotations_early else len(deltas), annotation)
        elif kind == "thought":
            deltas = [{"type": "thought_summary", "content": step["summary"][0]},
                      {"type": "thought_signature", "signature": step["signature"]}]  # fmt: skip
        elif "result" in step:
            deltas = [{"type": kind, "result": step["result"]}]
        events += [{"event_type": "step.delta", "index": index, "delta": d} for d in deltas]
        events.append({"event_type": "step.stop", "index": index})
    events.append({"event_type": "interaction.completed", "interaction": {
        "id": "v1_abc", "status": "completed", "object": "interaction",
        "model": "gemini-3-flash-preview", "usage": {"total_tokens": 321}}})  # fmt: skip
    return events


def sse(events: list[dict[str, Any]]) -> str:
    """Events as the API sends them: ``event:`` names and ``data:`` lines."""
    import json

    return "".join(
        f"event: {e['event_type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events
    )


# --- Discovery Engine: assist and streamAssist ------------------------------------------------

DATA_STORE = "projects/p/locations/global/collections/c/dataStores/d"
ASSIST_ANSWER = "projects/p/locations/global/collections/c/engines/e/sessions/s/assistAnswers/a"


def _assist_reference(k: int) -> dict[str, Any]:
    return {"content": cited(k) + " (Quelle)", "documentMetadata": {
        "document": f"{DATA_STORE}/branches/0/documents/{k}",
        "uri": URLS[k], "title": TITLES[k], "pageIdentifier": str(k + 1),
        "domain": URLS[k].split("/")[2]}}  # fmt: skip


def _reply(text: str | None = None, *, thought: bool = False,
           meta: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    grounded: dict[str, Any] = {}
    if text is not None:
        grounded["content"] = {
            "role": "model",
            "text": text,
            **({"thought": True} if thought else {}),
        }
    if meta is not None:
        grounded["textGroundingMetadata"] = meta
    return {"groundedContent": grounded}


def _segments(pieces: list[int], text: str, first: int, refs: list[int]) -> list[dict[str, Any]]:
    """Segments of pieces, offsets in bytes of ``text``, which starts at piece ``first``."""
    out = []
    for k, ref in zip(pieces, refs, strict=True):
        start = sum(len(p) for p in PIECES[first:k])
        s, e = byte(text, start), byte(text, start + len(cited(k)))
        out.append({"startIndex": str(s), "endIndex": str(e), "referenceIndices": [ref],
                    "groundingScore": 0.8, "text": cited(k)})  # fmt: skip
    return out


def assist_answer() -> dict[str, Any]:
    """Two text replies, each grounded in its own text and references, after a thought."""
    first, second = PIECES[0] + PIECES[1], PIECES[2] + PIECES[3]
    return {
        "name": ASSIST_ANSWER,
        "state": "SUCCEEDED",
        "replies": [
            _reply("Ich suche in den Dokumenten 🔎", thought=True),
            _reply(first, meta={"segments": _segments([0, 1], first, 0, [1, 0]),
                                "references": [_assist_reference(1), _assist_reference(0)]}),
            _reply(second, meta={"segments": _segments([2, 3], second, 2, [0, 1]),
                                 "references": [_assist_reference(2), _assist_reference(3)]}),
        ],
    }  # fmt: skip


def assist_stream() -> list[dict[str, Any]]:
    """StreamAssistResponses: reply fragments of text, then one reply of grounding
    metadata only, whose segments count the whole answer."""
    chunks: list[dict[str, Any]] = [
        {"answer": {"state": "IN_PROGRESS", "replies": [_reply("Hmm 🤔", thought=True)]},
         "sessionInfo": {"session": "projects/p/sessions/s"}},
        {"assistToken": "token-1", "sessionInfo": {"session": "projects/p/sessions/s"}},
    ]  # fmt: skip
    for piece in PIECES:
        chunks.append({"answer": {"state": "IN_PROGRESS", "replies": [_reply(piece)]}})
    chunks.append(
        {
            "answer": {
                "state": "SUCCEEDED",
                "name": ASSIST_ANSWER,
                "replies": [
                    _reply(
                        meta={
                            "segments": _segments([0, 1, 2, 3], TEXT, 0, [0, 1, 2, 3]),
                            "references": [_assist_reference(k) for k in range(4)],
                        }
                    )
                ],
            }
        }
    )
    return chunks  # fmt: skip


# --- Discovery Engine: check grounding and grounded generation -----------------------------


def fact_chunk(k: int) -> dict[str, Any]:
    return {"chunkText": cited(k) + " — laut Quelle", "source": str(k), "index": k,
            "sourceMetadata": {"title": TITLES[k], "uri": URLS[k], "jahr": "2025"}}  # fmt: skip


def check_grounding_response() -> dict[str, Any]:
    """Claims of TEXT (the answer candidate the caller sent): pieces 0, 1 and 3 cited,
    piece 2 supported by nothing."""
    claims = []
    for k, cites in ((0, [0]), (1, [1, 0]), (2, []), (3, [2])):
        start, end = byte_span(k)
        claim: dict[str, Any] = {
            "startPos": start,
            "endPos": end,
            "claimText": cited(k),
            "citationIndices": cites,
            "groundingCheckRequired": True,
        }
        if cites:
            claim["score"] = 0.75
        claims.append(claim)  # fmt: skip
    return {"supportScore": 0.75, "claims": claims,
            "citedChunks": [fact_chunk(0), fact_chunk(1), fact_chunk(3)]}  # fmt: skip


def grounded_generation_response(repeat_claim: bool = False) -> dict[str, Any]:
    """A grounded generation candidate whose claims have no offsets."""
    supports = [
        {"claimText": cited(k), "supportChunkIndices": [k], "supportScore": 0.9} for k in range(4)
    ]
    supports.append({"claimText": "Dieser Satz steht nicht im Text.",
                     "supportChunkIndices": [0]})  # fmt: skip
    text = TEXT + (" " + cited(3) if repeat_claim else "")
    return {"candidates": [{
        "index": 0,
        "content": {"role": "model", "parts": [{"text": text}]},
        "groundingScore": 0.82,
        "groundingMetadata": {
            "supportChunks": [fact_chunk(k) for k in range(4)],
            "groundingSupport": supports,
            "webSearchQueries": ["Käsekuchen Köln"],
            "searchEntryPoint": {"renderedContent": "<div>Käsekuchen Köln</div>"},
            "images": [{"image": {"uri": "https://img.example/akro.jpg", "width": 800,
                                  "height": 600},
                        "thumbnail": {"uri": "https://img.example/akro-t.jpg"},
                        "source": {"uri": "https://athen.example/bilder", "title": TITLES[2]}}],
        },
    }]}  # fmt: skip


# --- Gemini Live API ------------------------------------------------------------------------


def live_session() -> list[dict[str, Any]]:
    """Two turns: the first streams TEXT in pieces (a thought first) with its grounding
    metadata at the end; the second calls a tool, answers, and is interrupted."""
    supports = [
        {"segment": {"startIndex": byte_span(k)[0], "endIndex": byte_span(k)[1],
                     "text": cited(k)}, "groundingChunkIndices": [k]}
        for k in range(4)
    ]  # fmt: skip
    chunks = [{"web": {"uri": URLS[k], "title": TITLES[k]}} for k in range(4)]
    messages: list[dict[str, Any]] = [
        {"setupComplete": {"sessionId": "live-1"}},
        {"serverContent": {"modelTurn": {"role": "model", "parts": [
            {"text": "Ich denke nach 🤔", "thought": True}]}}},
    ]  # fmt: skip
    for piece in PIECES:
        cut = len(piece) // 2
        messages.append({"serverContent": {"modelTurn": {"parts": [{"text": piece[:cut]}]}}})
        messages.append({"serverContent": {"modelTurn": {"parts": [{"text": piece[cut:]}]}}})
    messages += [
        {"serverContent": {"groundingMetadata": {
            "groundingChunks": chunks, "groundingSupports": supports,
            "webSearchQueries": ["Café Köln Öffnungszeiten"]},
            "urlContextMetadata": {"urlMetadata": [
                {"retrievedUrl": URLS[1], "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"}]}}},
        {"serverContent": {"generationComplete": True}},
        {"usageMetadata": {"totalTokenCount": 99}},
        {"serverContent": {"turnComplete": True}},
        # the second turn
        {"toolCall": {"functionCalls": [{"id": "f1", "name": "wetter", "args": {"ort": "Köln"}}]}},
        {"serverContent": {"modelTurn": {"parts": [{"text": "In Köln regnet es 🌧"}]}}},
        {"serverContent": {"interrupted": True}},
        {"serverContent": {"turnComplete": True}},
        {"goAway": {"timeLeft": "10s"}},
    ]  # fmt: skip
    return messages


def live_turn() -> list[dict[str, Any]]:
    """The first turn of :func:`live_session` alone."""
    session = live_session()
    end = next(i for i, m in enumerate(session) if m.get("serverContent", {}).get("turnComplete"))
    return session[: end + 1]

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

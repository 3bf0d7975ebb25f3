"""Streams of issue 32's shapes for ``benchmarks/stream.py``, each a ~1 MB mixed-script
answer in ``deltas`` text deltas with ``citations`` citations, beside the vendor's
final response, measured as ``_vendor_streams`` measures the others:

- Mistral chat: ``chat.completion.chunk``\\ s whose ``content`` is a string piece or a
  list of chunks; the answer is ``citations`` text chunks, each followed by a
  ``reference`` chunk.
- Mistral Conversations: ``message.output.delta`` events of text pieces and
  ``tool_reference`` chunks, the same layout.
- Perplexity: chunks with the message so far (Perplexity repeats it: kept short here,
  as the merge never reads it) and the closing ``chat.completion.done`` event with the
  whole response, ``[n]`` markers in the text.
"""

from __future__ import annotations

from typing import Any

from _vendor_streams import _cut, _text  # benchmarks/ is the script directory

Json = dict[str, Any]


def _pieces(text: str, citations: int, deltas: int) -> tuple[list[str], int]:
    """The answer cut into ``citations`` claims, and the deltas per claim."""
    claims = _cut(text, citations)
    return claims, max(1, deltas // len(claims))


def mistral_chat_case(text: str, deltas: int, citations: int) -> tuple[list[Json], Json]:
    claims, per = _pieces(text, citations, deltas)
    head = {"id": "m", "object": "chat.completion.chunk", "model": "mistral-large-latest"}
    content: list[Json] = []
    events: list[Json] = [{**head, "choices": [{"index": 0, "delta": {
        "role": "assistant", "content": ""}, "finish_reason": None}]}]  # fmt: skip
    for i, claim in enumerate(claims):
        content.append({"type": "text", "text": claim})
        for k, piece in enumerate(_cut(claim, per)):
            sent: object = [{"type": "text", "text": piece}] if k % 2 else piece
            events.append({**head, "choices": [{"index": 0, "delta": {"content": sent},
                                                "finish_reason": None}]})  # fmt: skip
        reference = {"type": "reference", "reference_ids": [i % 200, (i + 1) % 200]}
        content.append(reference)
        events.append({**head, "choices": [{"index": 0, "delta": {"content": [reference]},
                                            "finish_reason": None}]})  # fmt: skip
    events.append({**head, "choices": [{"index": 0, "delta": {"content": ""},
                                        "finish_reason": "stop"}]})  # fmt: skip
    final = {"id": "m", "object": "chat.completion", "model": "mistral-large-latest",
             "choices": [{"index": 0, "finish_reason": "stop",
                          "message": {"role": "assistant", "content": content}}]}  # fmt: skip
    return events, final


def mistral_conversation_case(text: str, deltas: int, citations: int) -> tuple[list[Json], Json]:
    claims, per = _pieces(text, citations, deltas)
    head = {"type": "message.output.delta", "output_index": 0, "id": "msg", "role": "assistant"}
    content: list[Json] = []
    events: list[Json] = [{"type": "conversation.response.started", "conversation_id": "c"}]
    for i, claim in enumerate(claims):
        content.append({"type": "text", "text": claim})
        events += [{**head, "content_index": len(content) - 1, "content": piece}
                   for piece in _cut(claim, per)]  # fmt: skip
        site = {"type": "tool_reference", "tool": "web_search", "title": f"S{i % 200}",
                "url": f"https://s{i % 200}.example/"}  # fmt: skip
        content.append(site)
        events.append({**head, "content_index": len(content) - 1, "content": site})
    events.append({"type": "conversation.response.done", "usage": {"total_tokens": 1}})
    entry = {"object": "entry", "type": "message.output", "id": "msg", "role": "assistant",
             "content": content}  # fmt: skip
    final = {"object": "conversation.response", "conversation_id": "c", "outputs": [entry],
             "usage": {"total_tokens": 1}}  # fmt: skip
    return events, final


def perplexity_case(text: str, deltas: int, citations: int) -> tuple[list[Json], Json]:
    claims, per = _pieces(text, citations, deltas)
    urls = [f"https://s{i}.example/" for i in range(200)]
    answer = "".join(f"{claim.rstrip()}[{i % 200 + 1}] " for i, claim in enumerate(claims))
    head = {"id": "p", "model": "sonar", "citations": urls}
    events: list[Json] = []
    for piece in _cut(answer, per * len(claims)):
        events.append({**head, "object": "chat.completion", "choices": [{
            "index": 0, "finish_reason": None, "message": {"role": "assistant", "content": ""},
            "delta": {"role": "assistant", "content": piece}}]})  # fmt: skip
    results = [{"title": f"S{i}", "url": url} for i, url in enumerate(urls)]
    message = {"role": "assistant", "content": answer}
    events.append({**head, "object": "chat.completion.done", "search_results": results,
                   "choices": [{"index": 0, "finish_reason": "stop", "message": message,
                                "delta": {"role": "assistant", "content": ""}}]})  # fmt: skip
    final = {**head, "object": "chat.completion", "search_results": results,
             "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}  # fmt: skip
    return events, final


def cases(text_bytes: int, deltas: int, citations: int) -> dict[str, tuple[list[Json], Json]]:
    """Each stream and its final response, over the same text."""
    text = _text(text_bytes, 21)
    return {
        "mistral chat": mistral_chat_case(text, deltas, citations),
        "mistral conversation": mistral_conversation_case(text, deltas, citations),
        "perplexity": perplexity_case(text, deltas, citations),
    }

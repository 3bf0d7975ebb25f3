"""Merging a streamed Gemini response (``streamGenerateContent``): chunks into one response.

A stream takes the same road as a whole response: :class:`Merger` joins the chunks
into one merged ``generateContent`` response (a REST-shaped dict whose leaves may be
the chunks' own objects), which the stream entry points read (``_streams.options``).
Nothing here reads grounding metadata; it only decides which chunk's metadata the
merged response keeps.

Merging rules (``docs/streams.md``): per candidate, by each chunk candidate's
``index``; a chunk's first part continues the previous chunk's last part when both
are text parts of the same kind (answer text or thought), otherwise every part is a
part of its own; the last non-empty ``groundingMetadata`` wins; ``citationMetadata``
citations of every chunk are kept (exact duplicates once); ``urlContextMetadata``,
``finishReason`` and ``usageMetadata`` from the last chunk that had them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from grounding_protos._core import access as _access
from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Problem
from grounding_protos._exceptions import StreamError
from grounding_protos._quote import excerpt, shown
from grounding_protos._sources.merging import json_kind
from grounding_protos._sources.parse import (
    Chunk,
    SSEParser,
    Truncated,
    decode_json,
    detect,
    error_text,
    text_line,
)

_RESPONSE_FIELDS = (
    "candidates",
    "usage_metadata",
    "prompt_feedback",
    "model_version",
    "response_id",
    "create_time",
    "model_status",
)
CITATION_FIELDS = ("uri", "title", "license")


_CANDIDATE_FIELDS = (
    "index",
    "content",
    "grounding_metadata",
    "citation_metadata",
    "url_context_metadata",
    "finish_reason",
    "finish_message",
)
_CHUNK_FIELDS = (
    "candidates",
    "usage_metadata",
    "prompt_feedback",
    "model_version",
    "response_id",
)
# Both spellings of the candidate fields merged besides the content -> snake_case.
_CANDIDATE_KEYS = {
    spelled: name for name in _CANDIDATE_FIELDS[2:] for spelled in (name, _access.camel(name))
}
_RESPONSE_KEYS = tuple((n, _access.camel(n)) for n in _CHUNK_FIELDS[1:])
_RESPONSE_TARGETS = {**{n: c for n, c in _RESPONSE_KEYS}, **{c: c for _, c in _RESPONSE_KEYS}}
# --- One candidate -----------------------------------------------------------------------


_BLOCK = 4096  # fragments joined into one block of text as they come


class _TextPart:
    """A text part being assembled from fragments (joined only when read). Every
    ``_BLOCK`` fragments are joined as they come, so that a long stream's part holds
    a few large blocks, not one small string per chunk (freed at the end, small
    strings leave the memory they took scattered, and the process keeps it)."""

    __slots__ = ("blocks", "fragments", "thought")

    def __init__(self, fragment: str, thought: bool) -> None:
        self.blocks: list[str] = []
        self.fragments = [fragment]
        self.thought = thought

    def add(self, fragment: str) -> None:
        fragments = self.fragments
        fragments.append(fragment)
        if len(fragments) >= _BLOCK:
            self.blocks.append("".join(fragments))
            fragments.clear()

    def merged(self) -> dict[str, Any]:
        pieces = self.blocks + self.fragments if self.blocks else self.fragments
        text = pieces[0] if len(pieces) == 1 else "".join(pieces)
        return {"text": text, "thought": True} if self.thought else {"text": text}


class Candidate:
    """What a stream has said so far about one candidate."""

    def __init__(self, index: int, track: bool) -> None:
        self.index = index
        self.role: object = None
        self.parts: list[_TextPart | object] = []
        self.open_part: _TextPart | None = None  # the last part, when it is a text part
        self.grounding: object = None
        self.grounding_event = 0
        self.citation_name = ""  # "citationSources" (Gemini API) or "citations" (Vertex)
        self.citations: list[object] = []
        self.citation_events: list[int] = []
        self.citation_keys: list[tuple[object, ...]] = []
        self.keys: dict[tuple[object, ...], int] = {}  # citation key -> its position
        self.spans: dict[tuple[object, ...], list[int]] = {}  # span -> citations on it
        self.url_context: object = None
        self.chunk_first_citation = 0  # where the citations of event `citation_event` start
        self.citation_event = 0
        self.finish_reason: str | None = None
        self.finish_message: object = None
        self.problems: list[Problem] = []
        # Offsets of the answer text's fragments (thought parts excluded), kept only by
        # the incremental reader: where each fragment starts, in bytes and characters.
        self.track = track
        self.fragments: list[str] = []
        self.byte_starts: list[int] = []
        self.char_starts: list[int] = []
        self.bytes = 0
        self.chars = 0

    @property
    def path(self) -> str:
        return f"candidates[{self.index}]"

    def add(self, number: int, candidate: object) -> str:
        """Merge one chunk's candidate; return the answer text it adds."""
        if type(candidate) is dict:  # REST JSON: read only the keys it has
            get_field = candidate.get
            content = get_field("content")
            rest = len(candidate) > (content is not None)
        else:
            fields = {name: get(candidate, name) for name in _CANDIDATE_FIELDS}
            get_field, content, rest = fields.get, fields["content"], True
        new_text: list[str] = []
        if content is not None:
            if type(content) is dict:
                role, parts = content.get("role"), content.get("parts")
            else:
                content = unwrap(content)
                role, parts = get(content, "role"), None
            if role:
                self.role = role
            if type(parts) is not list:
                parts = items(content, "parts")
            for position, part in enumerate(parts):
                if type(part) is dict:
                    text, thought = part.get("text"), part.get("thought") is True
                else:
                    part = unwrap(part)
                    text, thought = get(part, "text"), get(part, "thought") is True
                if not isinstance(text, str):
                    self.parts.append(part)
                    self.open_part = None
                    continue
                last = self.open_part
                if position == 0 and last is not None and last.thought is thought:
                    last.add(text)
                else:
                    self.open_part = last = _TextPart(text, thought)
                    self.parts.append(last)
                if not thought:
                    new_text.append(text)
                    if self.track and text:
                        self._track(text)
        if rest:
            self._add_fields(number, candidate, get_field)
        return new_text[0] if len(new_text) == 1 else "".join(new_text)

    def _add_fields(self, number: int, candidate: object, get_field: Any) -> None:
        """Everything but the content: of a JSON dict, the keys it has (either spelling)."""
        if type(candidate) is dict:
            found: dict[str, Any] = {}
            for key, value in candidate.items():
                name = _CANDIDATE_KEYS.get(key)
                if name is not None and value:  # not None, {}, "" (JSON values)
                    found[name] = value
            if not found:  # "groundingMetadata": {} beside the text, as streams send
                return
            get_field = found.get
        meta = get_field("grounding_metadata")
        if meta is not None and not _empty(meta := unwrap(meta)):
            self._replace_grounding(number, meta)
        cited = get_field("citation_metadata")
        if cited is not None:
            self._add_citations(number, unwrap(cited))
        url_context = get_field("url_context_metadata")
        if url_context is not None and not _empty(url_context := unwrap(url_context)):
            self.url_context = url_context
        reason = get_field("finish_reason")
        if reason is not None and (reason := _finish_reason(number, candidate, reason)):
            self.finish_reason = reason
            message = get_field("finish_message")
            if message:
                self.finish_message = message

    def _track(self, text: str) -> None:
        """Record where a fragment of the answer text starts (for the incremental reader)."""
        size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        self.fragments.append(text)
        self.byte_starts.append(self.bytes)
        self.char_starts.append(self.chars)
        self.bytes += size
        self.chars += len(text)

    def _replace_grounding(self, number: int, meta: object) -> None:
        old = self.grounding
        if old is not None:
            had, has = (len(items(m, "grounding_supports")) for m in (old, meta))
            if had and not has:
                self.problems.append(
                    Problem(
                        "stream-grounding-replaced",
                        f"event {number}'s groundingMetadata has no groundingSupports and "
                        f"replaces event {self.grounding_event}'s, which had {had}: the "
                        "last non-empty groundingMetadata is the one read",
                        f"{self.path}.grounding_metadata",
                    )
                )
        self.grounding, self.grounding_event = meta, number

    def _add_citations(self, number: int, meta: object) -> None:
        gemini = get(meta, "citation_sources") is not None  # Vertex AI: `citations`
        if not self.citation_name:
            self.citation_name = "citationSources" if gemini else "citations"
        if self.citation_event != number:
            self.citation_event, self.chunk_first_citation = number, len(self.citations)
        first_of_chunk = self.chunk_first_citation
        for item in items(meta, "citation_sources" if gemini else "citations"):
            item = unwrap(item)
            key = _citation_key(item)
            kept = self.keys.get(key)
            if kept is not None:
                self._merged(kept, f"event {number} repeats a citation exactly")
                continue
            same = self.spans.setdefault(key[:2], [])
            keys = self.citation_keys
            if key[2] == _NONE:  # merged into a citation of the span that says all it says
                full = [j for j in same if _covers(keys[j], key)]
                if full:
                    self._merged(full[0], f"event {number} sends again, without URI, a cited span")
                    continue
            else:  # this chunk sent the span without a URI first: the URI one takes its place
                bare = [j for j in same if j >= first_of_chunk and _covers(key, keys[j])]
                if bare:
                    j = bare[0]
                    del self.keys[keys[j]]
                    self.citations[j], keys[j], self.keys[key] = item, key, j
                    self._merged(j, f"event {number} sends with a URI a span it sent without URI")
                    continue
            same.append(len(self.citations))
            self.keys[key] = len(self.citations)
            self.citations.append(item)
            self.citation_keys.append(key)
            self.citation_events.append(number)

    def _merged(self, kept: int, what: str) -> None:
        name = "citation_sources" if self.citation_name == "citationSources" else "citations"
        self.problems.append(
            Problem(
                "stream-duplicate-citation",
                f"{what} (citation {kept}, first sent in event {self.citation_events[kept]}); "
                "the two are kept as one",
                f"{self.path}.citation_metadata.{name}[{kept}]",
            )
        )

    def merged(self) -> dict[str, Any]:
        parts = [p.merged() if isinstance(p, _TextPart) else p for p in self.parts]
        content: dict[str, Any] = {"parts": parts}
        if self.role is not None:
            content["role"] = self.role
        out: dict[str, Any] = {"index": self.index, "content": content}
        if self.grounding is not None:
            out["groundingMetadata"] = self.grounding
        if self.citations:
            out["citationMetadata"] = {self.citation_name: list(self.citations)}
        if self.url_context is not None:
            out["urlContextMetadata"] = self.url_context
        if self.finish_reason is not None:
            out["finishReason"] = self.finish_reason
        if self.finish_message is not None:
            out["finishMessage"] = self.finish_message
        return out


def _inert(candidate: dict[str, Any]) -> bool:
    """Whether a JSON candidate has nothing for ``Candidate._add_fields`` (which reads
    only the keys of ``_CANDIDATE_KEYS`` with a non-empty value)."""
    for key, value in candidate.items():  # noqa: SIM110 - all() of a generator is slower
        if value and key in _CANDIDATE_KEYS:
            return False
    return True


def _finish_reason(number: int, candidate: object, value: object) -> str | None:
    if isinstance(candidate, Message) and isinstance(value, int):
        descriptor = candidate.DESCRIPTOR.fields_by_name["finish_reason"].enum_type
        known = descriptor.values_by_number.get(value) if descriptor is not None else None
        value = known.name if known is not None else value
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or value in ("", 0, "FINISH_REASON_UNSPECIFIED"):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise StreamError(
            f"finishReason is {json_kind(value)} ({shown(value)}), not a string", event=number
        )
    return str(value)


def _empty(obj: object) -> bool:
    """Whether a metadata object says nothing (``None``, ``{}``, all fields unset)."""
    if obj is None:
        return True
    if type(obj) is str:
        return not obj
    if type(obj) is dict:  # all values blank; a loop, as all() of a generator costs more
        for value in obj.values():
            if value is not None and (type(value) is int or not _blank(value)):
                return False  # usageMetadata: its first count
        return True
    if isinstance(obj, Message):
        return not obj.ListFields()
    if isinstance(obj, Mapping):
        return all(_blank(v) for v in obj.values())
    fields = getattr(type(obj), "model_fields", None)  # a google-genai (pydantic) object
    if isinstance(fields, Mapping):
        return all(_blank(getattr(obj, name, None)) for name in fields)
    return False


def _blank(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, (str, bytes, list, tuple, Mapping)):
        return len(value) == 0
    return False


def integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.isdecimal() and value.isascii() and len(value) < 20:
        return int(value)
    return None


def _citation_key(item: object) -> tuple[object, ...]:
    """What makes two citations the same: span, URI, title, license, date (their values;
    a value that is no JSON scalar only ever equals itself)."""
    if type(item) is dict:  # as get() reads each: snake_case key if present, else camelCase
        start, end, uri, title, license_, date = (
            item.get(camel) if (value := item.get(snake, _ABSENT)) is _ABSENT else value
            for snake, camel in _KEY_SPELLINGS
        )
    else:
        start, end, uri, title, license_, date = (get(item, n) for n, _ in _KEY_SPELLINGS)
    if date is not None and not isinstance(date, str):
        date = tuple(get(date, n) for n in ("year", "month", "day"))
    number = integer(start)
    if number is not None:
        start = number
    number = integer(end)
    if number is not None:
        end = number
    return (
        _key_part(start),
        _key_part(end),
        _key_part(uri or None),
        _key_part(title or None),
        _key_part(license_ or None),
        tuple(map(_key_part, date)) if type(date) is tuple else _key_part(date),
    )


def _key_part(value: object) -> object:
    """``value`` as part of a hashable key: a scalar with its type (``1`` is not ``"1"``),
    anything else by identity (no ``repr``: it recursed once per level of nesting)."""
    if value is None or type(value) in (str, int, float, bool):
        return type(value).__name__, value
    return "object", id(value)


_NONE = _key_part(None)


_KEY_SPELLINGS = tuple(
    (name, _access.camel(name))
    for name in ("start_index", "end_index", *CITATION_FIELDS, "publication_date")
)
_ABSENT = object()


def _covers(kf: tuple[object, ...], kb: tuple[object, ...]) -> bool:
    """Whether citation key ``kf`` has a URI and every other field key ``kb`` has, alike."""
    return (
        kf[2] != _NONE
        and kb[2] == _NONE
        and all(b in (_NONE, f) for f, b in zip(kf[3:], kb[3:], strict=True))
    )


# --- The whole stream --------------------------------------------------------------------


def decode_text(number: int, text: str | bytes) -> object:
    """The JSON of one chunk, given as JSON text or as one SSE event."""
    head = text[:16].decode("utf-8", "replace") if isinstance(text, bytes) else text[:16]
    if detect(head) != "sse":
        return decode_json(number, text)
    parser = SSEParser()
    parser.number = number - 1
    events = parser.feed(text_line(text)) + parser.close()
    if len(events) != 1 or not isinstance(events[0], Chunk):
        raise StreamError(f"expected one SSE event, got {len(events)}", event=number)
    return events[0].value


def response_chunk(number: int, chunk: object) -> object:
    """``chunk`` checked to be a ``generateContent`` response (JSON text is decoded,
    also one SSE event: ``data: {...}``).

    Raises:
        StreamError: an error body, JSON of another shape, or another kind of object.
    """
    if type(chunk) is dict and "candidates" in chunk and "error" not in chunk:
        return chunk  # the common case, first
    if isinstance(chunk, (str, bytes, bytearray)):
        chunk = decode_text(number, bytes(chunk) if isinstance(chunk, bytearray) else chunk)
    chunk = unwrap(chunk)
    if isinstance(chunk, Mapping):
        if "error" in chunk and "candidates" not in chunk:
            raise StreamError(
                f"the stream reports an error: {error_text(chunk['error'])}", event=number
            )
        if chunk and not any(get(chunk, n) is not None for n in _RESPONSE_FIELDS):
            keys = ", ".join(excerpt(k, 40) for k in sorted(map(str, chunk))[:6])
            raise StreamError(
                f"not a generateContent response chunk: a JSON object with keys {{{keys}}}",
                event=number,
            )
        return chunk
    if isinstance(chunk, Message):
        if "candidates" not in chunk.DESCRIPTOR.fields_by_name:
            raise StreamError(
                f"a {chunk.DESCRIPTOR.full_name} message is not a generateContent response chunk",
                event=number,
            )
        return chunk
    if hasattr(chunk, "candidates"):  # google-genai GenerateContentResponse
        return chunk
    json_kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    if type(chunk) in json_kinds or type(chunk) in (int, float):
        kind = json_kinds.get(type(chunk), "a number")
        raise StreamError(
            f"expected a JSON object (a generateContent response), got {kind}", event=number
        )
    raise StreamError(
        f"an object of type {type(chunk).__module__}.{type(chunk).__qualname__} is not a "
        "generateContent response chunk",
        event=number,
    )


@dataclass
class Merger:
    """Chunks merged into one response, candidate by candidate.

    ``track`` keeps the fragment offsets the incremental reader needs.
    """

    track: bool = False
    events: int = 0
    candidates: dict[int, Candidate] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    response: dict[str, Any] = field(default_factory=dict)

    def add(self, number: int, chunk: object, texts: dict[int, str] | None = None) -> None:
        """Merge event ``number``; put the answer text it adds to each candidate in
        ``texts`` when given.

        Most chunks of a stream are alike: a JSON dict with one candidate whose content
        is one part of answer text, beside keys that merging ignores or that hold
        nothing (``"groundingMetadata": {}``, ``safetyRatings``, ``modelVersion``).
        Such a chunk takes here the steps that :meth:`_add_general` takes for it, without
        the layers that every other chunk needs; anything else goes there.
        """
        if type(chunk) is dict:
            candidates = chunk.get("candidates")
            if (
                type(candidates) is list
                and len(candidates) == 1
                and type(candidate := candidates[0]) is dict
                and type(content := candidate.get("content")) is dict
                and type(parts := content.get("parts")) is list
                and len(parts) == 1
                and type(part := parts[0]) is dict
                and len(part) == 1
                and type(text := part.get("text")) is str
                and ((index := candidate.get("index")) is None
                     or (type(index) is int and index >= 0))
                and (len(candidate) == 1
                     # beside the content, the index or an empty groundingMetadata
                     or (len(candidate) == 2
                         and (index is not None or not candidate.get("groundingMetadata", 1)))
                     or _inert(candidate))
            ):  # fmt: skip
                index = index or 0
                self.events = number
                if len(chunk) == 2 and type(version := chunk.get("modelVersion")) is str:
                    if version:  # {"candidates": [...], "modelVersion": "..."}
                        self.response["modelVersion"] = version
                elif len(chunk) > 1:
                    self._add_response(chunk)
                state = self.candidates.get(index)
                if state is None:
                    state = self.candidates[index] = Candidate(index, self.track)
                role = content.get("role")
                if role:
                    state.role = role
                last = state.open_part  # Candidate.add: a continued or a new text part
                if last is not None and last.thought is False:
                    last.add(text)
                else:
                    state.open_part = last = _TextPart(text, False)
                    state.parts.append(last)
                if state.track and text:
                    state._track(text)
                if texts is not None:
                    texts[index] = text
                return
        self._add_general(number, chunk, texts)

    def _add_general(self, number: int, chunk: object, texts: dict[int, str] | None) -> None:
        """:meth:`add` for any chunk."""
        if type(chunk) is not dict or "candidates" not in chunk or "error" in chunk:
            chunk = response_chunk(number, chunk)
        self.events = number
        if type(chunk) is dict:
            candidates = chunk.get("candidates")
            if len(chunk) > 1:  # usageMetadata, modelVersion, ...
                self._add_response(chunk)
        else:
            candidates = None
            for name, target in _RESPONSE_KEYS:
                value = get(chunk, name)
                if value is not None and not _empty(value := unwrap(value)):
                    self.response[target] = value
        if type(candidates) is not list:
            candidates = items(chunk, "candidates")
        states = self.candidates
        for position, candidate in enumerate(candidates):
            if type(candidate) is dict:
                raw_index = candidate.get("index")
            else:
                candidate = unwrap(candidate)
                raw_index = get(candidate, "index")
            index = position if raw_index is None else integer(raw_index)
            if index is None or index < 0:
                raise StreamError(
                    f"candidate index {shown(raw_index)} is not a number", event=number
                )
            state = states.get(index)
            if state is None:
                state = states[index] = Candidate(index, self.track)
            text = state.add(number, candidate)
            if texts is not None:
                texts[index] = text

    def _add_response(self, chunk: dict[str, Any]) -> None:
        """The response-level fields of a JSON chunk (``usageMetadata``, ...)."""
        response = self.response
        for key, value in chunk.items():
            target = _RESPONSE_TARGETS.get(key)
            if target is None or value is None:
                continue
            kind = type(value)
            if kind is str:  # modelVersion, responseId: in every chunk
                if value:
                    response[target] = value
            elif kind is dict:  # usageMetadata: in every chunk of some streams
                if not _empty(value):
                    response[target] = value
            elif not _empty(value := unwrap(value)):
                response[target] = value

    def truncated(self, item: Truncated) -> None:
        self.problems.append(Problem("stream-truncated", item.message, ""))

    def stream_problems(self, candidate: int) -> list[Problem]:
        """What merging found: truncation, merged duplicates, replaced metadata."""
        state = self.candidates.get(candidate)
        return [*self.problems, *(state.problems if state is not None else ())]

    def incomplete(self, candidate: int) -> list[Problem]:
        """A ``stream-incomplete`` problem when the candidate has no finishReason."""
        state = self.candidates.get(candidate)
        if state is not None and state.finish_reason is not None:
            return []
        return [
            Problem(
                "stream-incomplete",
                f"the stream ended after {self.events} events without a finishReason "
                f"for candidate {candidate} (interrupted?): the text and citations are "
                "those that arrived",
                f"candidates[{candidate}].finish_reason",
            )
        ]

    def merged(self) -> dict[str, Any]:
        """The merged response: REST-shaped, candidates in order of their ``index``."""
        size = max(self.candidates, default=-1) + 1
        candidates = [
            self.candidates[i].merged()
            if i in self.candidates
            else {"index": i, "content": {"parts": []}}
            for i in range(size)
        ]
        return {"candidates": candidates, **self.response}

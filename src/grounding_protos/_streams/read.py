"""Streamed Gemini responses: chunks merged into one response, then read as a whole.

A stream takes the same road as a whole response: :class:`Merger` joins the chunks
into one merged ``generateContent`` response (a REST-shaped dict whose leaves may be
the chunks' own objects), and ``read`` places its citations. Nothing here reads
grounding metadata; it only decides which chunk's metadata the merged response keeps.

Merging rules (``docs/streams.md``): per candidate, by each chunk candidate's
``index``; a chunk's first part continues the previous chunk's last part when both
are text parts of the same kind (answer text or thought), otherwise every part is a
part of its own; the last non-empty ``groundingMetadata`` wins; ``citationMetadata``
citations of every chunk are kept (exact duplicates once); ``urlContextMetadata``,
``finishReason`` and ``usageMetadata`` from the last chunk that had them.
"""

from __future__ import annotations

import enum
import itertools
from bisect import bisect_left, bisect_right
from collections.abc import AsyncIterable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import IO, Any

from google.protobuf.message import Message

from grounding_protos._citations.read import read
from grounding_protos._core import access as _access
from grounding_protos._core.access import get, items, unwrap
from grounding_protos._core.model import Citation, Grounded, Problem, SpanPolicy
from grounding_protos._exceptions import CitationError, OffsetError, StreamError
from grounding_protos._inputs.dispatch import classify
from grounding_protos._offsets import SpanSnap
from grounding_protos._streams.answer import merge_answer_chunks
from grounding_protos._streams.parse import (
    Chunk,
    Item,
    SSEParser,
    Truncated,
    decode_json,
    detect,
    error_text,
    recorded_chunks,
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
_CITATION_FIELDS = ("uri", "title", "license")


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


class _TextPart:
    """A text part being assembled from fragments (joined only when read)."""

    __slots__ = ("fragments", "thought")

    def __init__(self, fragment: str, thought: bool) -> None:
        self.fragments = [fragment]
        self.thought = thought

    def merged(self) -> dict[str, Any]:
        text = self.fragments[0] if len(self.fragments) == 1 else "".join(self.fragments)
        return {"text": text, "thought": True} if self.thought else {"text": text}


class _Candidate:
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
        self.citation_keys: list[tuple[str, ...]] = []
        self.keys: dict[tuple[str, ...], int] = {}  # citation key -> its position
        self.spans: dict[tuple[str, ...], list[int]] = {}  # span -> citations on it
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
                    last.fragments.append(text)
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
        if reason is not None and (reason := _finish_reason(candidate, reason)) is not None:
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
            if key[2] == "None":  # merged into a citation of the span that says all it says
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
    """Whether a JSON candidate has nothing for ``_Candidate._add_fields`` (which reads
    only the keys of ``_CANDIDATE_KEYS`` with a non-empty value)."""
    for key, value in candidate.items():  # noqa: SIM110 - all() of a generator is slower
        if value and key in _CANDIDATE_KEYS:
            return False
    return True


def _finish_reason(candidate: object, value: object) -> str | None:
    if isinstance(candidate, Message) and isinstance(value, int):
        descriptor = candidate.DESCRIPTOR.fields_by_name["finish_reason"].enum_type
        known = descriptor.values_by_number.get(value) if descriptor is not None else None
        value = known.name if known is not None else value
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or value in ("", 0, "FINISH_REASON_UNSPECIFIED"):
        return None
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


def _integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.isdecimal() and value.isascii() and len(value) < 20:
        return int(value)
    return None


def _citation_key(item: object) -> tuple[str, ...]:
    """What makes two citations the same: span, URI, title, license, date (as text)."""
    if type(item) is dict:  # as get() reads each: snake_case key if present, else camelCase
        start, end, uri, title, license_, date = (
            item.get(camel) if (value := item.get(snake, _ABSENT)) is _ABSENT else value
            for snake, camel in _KEY_SPELLINGS
        )
    else:
        start, end, uri, title, license_, date = (get(item, n) for n, _ in _KEY_SPELLINGS)
    if date is not None and not isinstance(date, str):
        date = tuple(get(date, n) for n in ("year", "month", "day"))
    number = _integer(start)
    if number is not None:
        start = number
    number = _integer(end)
    if number is not None:
        end = number
    return (
        repr(start),
        repr(end),
        repr(uri or None),
        repr(title or None),
        repr(license_ or None),
        repr(date),
    )


_KEY_SPELLINGS = tuple(
    (name, _access.camel(name))
    for name in ("start_index", "end_index", *_CITATION_FIELDS, "publication_date")
)
_ABSENT = object()


def _covers(kf: tuple[str, ...], kb: tuple[str, ...]) -> bool:
    """Whether citation key ``kf`` has a URI and every other field key ``kb`` has, alike."""
    return (
        kf[2] != "None"
        and kb[2] == "None"
        and all(b in ("None", f) for f, b in zip(kf[3:], kb[3:], strict=True))
    )


# --- The whole stream --------------------------------------------------------------------


def _decode_text(number: int, text: str | bytes) -> object:
    """The JSON of one chunk, given as JSON text or as one SSE event."""
    head = text[:16].decode("utf-8", "replace") if isinstance(text, bytes) else text[:16]
    if detect(head) != "sse":
        return decode_json(number, text)
    parser = SSEParser()
    parser.number = number - 1
    events = parser.feed(_text_line(text)) + parser.close()
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
        chunk = _decode_text(number, bytes(chunk) if isinstance(chunk, bytearray) else chunk)
    chunk = unwrap(chunk)
    if isinstance(chunk, Mapping):
        if "error" in chunk and "candidates" not in chunk:
            raise StreamError(
                f"the stream reports an error: {error_text(chunk['error'])}", event=number
            )
        if chunk and not any(get(chunk, n) is not None for n in _RESPONSE_FIELDS):
            keys = ", ".join(sorted(map(str, chunk))[:6])
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
    candidates: dict[int, _Candidate] = field(default_factory=dict)
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
                    state = self.candidates[index] = _Candidate(index, self.track)
                role = content.get("role")
                if role:
                    state.role = role
                last = state.open_part  # _Candidate.add: a continued or a new text part
                if last is not None and last.thought is False:
                    last.fragments.append(text)
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
            index = position if raw_index is None else _integer(raw_index)
            if index is None or index < 0:
                raise StreamError(f"candidate index {raw_index!r} is not a number", event=number)
            state = states.get(index)
            if state is None:
                state = states[index] = _Candidate(index, self.track)
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

    def grounded(
        self, options: _Options, *, final: bool, merged: dict[str, Any] | None = None
    ) -> Grounded:
        """``read`` of the merged response, with the stream's problems added."""
        if not self.events:
            raise StreamError("the stream holds no response: 0 events")
        merged = self.merged() if merged is None else merged
        state = self.candidates.get(options.candidate)
        problems = self.stream_problems(options.candidate)
        try:
            grounded = options.read(merged)
        except (OffsetError, CitationError):
            if final or state is None or state.grounding is None or state.finish_reason:
                raise
            # Before the candidate finishes, grounding metadata that arrived early may
            # point past the text received so far: leave it for later, and say so.
            candidate = dict(merged["candidates"][options.candidate])
            del candidate["groundingMetadata"]
            partial = dict(merged)
            partial["candidates"] = list(merged["candidates"])
            partial["candidates"][options.candidate] = candidate
            grounded = options.read(partial)
            problems.append(
                Problem(
                    "stream-grounding-pending",
                    f"the groundingMetadata of event {state.grounding_event} points past "
                    "the text received so far; its supports are left out until the "
                    "candidate finishes",
                    f"{state.path}.grounding_metadata",
                )
            )
        if final:
            problems.extend(self.incomplete(options.candidate))
        finish = grounded.finish_reason
        if finish is None and state is not None:
            finish = state.finish_reason
        return replace(grounded, problems=[*grounded.problems, *problems], finish_reason=finish)


@dataclass(frozen=True)
class _Options:
    candidate: int
    text: str | bytes | None
    snap: SpanSnap | None
    clamp: bool
    errors: SpanPolicy

    def read(self, obj: object, *, text: bool = True) -> Grounded:
        return read(
            obj,
            text=self.text if text else None,
            candidate=self.candidate if text else 0,
            errors=self.errors,
            snap=self.snap,
            clamp=self.clamp,
        )


# --- Inputs ------------------------------------------------------------------------------


def _is_response(obj: object) -> bool:
    """A single response passed where a stream was expected (a stream of one)."""
    if isinstance(obj, (Mapping, Message)):
        return True
    if hasattr(type(obj), "pb") and hasattr(type(obj), "meta"):  # proto-plus
        return True
    return isinstance(getattr(type(obj), "model_fields", None), Mapping)  # pydantic


def stream_items(stream: object) -> Iterator[Item]:
    """The numbered chunks of any stream input (see ``read_stream``)."""
    if isinstance(stream, (str, bytes, bytearray, memoryview)):
        return recorded_chunks(stream)
    if hasattr(stream, "read"):
        file: IO[Any] = stream  # type: ignore[assignment]
        return recorded_chunks(file)
    if _is_response(stream):
        return iter([Chunk(1, stream)])
    if not isinstance(stream, Iterable):
        raise StreamError(
            f"expected an iterable of response chunks or a recorded stream, got an object "
            f"of type {type(stream).__module__}.{type(stream).__qualname__}"
        )
    return _iterable_items(iter(stream))


def _iterable_items(elements: Iterator[object]) -> Iterator[Item]:
    """Numbered chunks of an iterable: the elements themselves (numbered by
    ``enumerate``, no object per chunk), or the events of SSE lines."""
    first = next(elements, _END)
    if first is _END:
        return iter(())
    if isinstance(first, (str, bytes)):
        text = first.decode("utf-8", "replace") if isinstance(first, bytes) else first
        if detect(text) == "sse" or not text.strip():  # SSE lines (``iter_lines()``)
            return _sse_lines(first, elements)
    return itertools.chain(((1, first),), enumerate(elements, 2))  # type: ignore[arg-type]


_END = object()


def _sse_lines(first: object, rest: Iterator[object]) -> Iterator[Item]:
    parser = SSEParser()
    yield from parser.feed(_text_line(first))
    for element in rest:
        yield from parser.feed(_text_line(element))
    yield from parser.close()


def _text_line(element: object) -> str:
    if isinstance(element, str):
        return element
    if isinstance(element, (bytes, bytearray)):
        try:
            return bytes(element).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StreamError(f"an SSE line is not UTF-8 (byte {exc.start})") from exc
    raise StreamError(f"expected the lines of an SSE stream, got {type(element).__name__}")


async def _async_items(stream: AsyncIterable[object]) -> AsyncIterable[Item]:
    number = 0
    sse: SSEParser | None = None
    async for element in stream:
        if number == 0 and sse is None and isinstance(element, (str, bytes)):
            text = element.decode("utf-8", "replace") if isinstance(element, bytes) else element
            if text.strip() and detect(text) == "sse":
                sse = SSEParser()
        if sse is not None:
            for item in sse.feed(_text_line(element)):
                yield item
            continue
        number += 1
        yield Chunk(number, element)
    if sse is not None:
        for item in sse.close():
            yield item


# --- Public functions -----------------------------------------------------------------------


def read_stream(
    stream: object,
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    snap: SpanSnap | None = None,
    clamp: bool = False,
    errors: SpanPolicy = "repair",
) -> Grounded:
    """The answer text and citations of a streamed Gemini response, as :func:`read`
    gives them for the whole response.

    ``stream`` is an iterable of chunks (REST dicts, google-genai
    ``GenerateContentResponse`` objects, official client objects, the JSON text of
    one chunk or one SSE event each, or the lines of an SSE stream), or a whole
    recorded stream as ``str``,
    ``bytes`` or a file: SSE (``data: {...}`` events) or a JSON array of responses.
    ``candidate`` is a candidate's ``index``; the options are those of :func:`read`.
    The chunks are merged (``docs/streams.md``) and the merged response is read.

    A stream that ends without a ``finishReason`` for the candidate (interrupted)
    gives what arrived, with a ``stream-incomplete`` problem in ``problems``; merged
    duplicate citations are ``stream-duplicate-citation`` problems.

    >>> sse = (
    ...     'data: {"candidates": [{"content": {"parts": [{"text": "Grüße aus "}]}}]}\\n\\n'
    ...     'data: {"candidates": [{"content": {"parts": [{"text": "Köln."}]},'
    ...     ' "finishReason": "STOP", "groundingMetadata": {'
    ...     '"groundingChunks": [{"web": {"uri": "https://k.example", "title": "Köln"}}],'
    ...     '"groundingSupports": [{"segment": {"startIndex": 12, "endIndex": 17},'
    ...     ' "groundingChunkIndices": [0]}]}}]}\\n\\n'
    ... )
    >>> grounded = read_stream(sse)
    >>> grounded.text, [(c.text, c.char_start) for c in grounded.citations], grounded.problems
    ('Grüße aus Köln.', [('Köln', 10)], [])

    Raises:
        StreamError: a chunk is not a response (an error event or body, malformed
            JSON, another API's chunk), naming the event's number; or no event at all.
        UnsupportedInputError, OffsetError, CitationError: as :func:`read`.
    """
    options = _Options(candidate, text, snap, clamp, errors)
    merger = Merger()
    add = merger.add
    if (
        type(stream) is list
        and stream
        and not isinstance(stream[0], (str, bytes, bytearray))
        and not _is_answer_chunk(stream[0])
    ):  # a list of chunks: what stream_items() would number, without an Item per chunk
        for number, chunk in enumerate(stream, 1):
            add(number, chunk)
        return merger.grounded(options, final=True)
    events = iter(stream_items(stream))
    first = next(events, None)
    if first is None:
        return merger.grounded(options, final=True)  # no event: StreamError
    if not isinstance(first, Truncated) and _is_answer_chunk(first[1]):
        return _read_answers(itertools.chain([first], events), options)
    for item in itertools.chain([first], events):
        if type(item) is Truncated:
            merger.truncated(item)
            break
        add(*item)
    return merger.grounded(options, final=True)


# --- Discovery Engine streamed answers ----------------------------------------------------


def _is_answer_chunk(value: object) -> bool:
    """Whether a chunk is part of a streamed Discovery Engine answer (an
    ``AnswerQueryResponse`` or an ``Answer``), not a ``generateContent`` chunk."""
    if isinstance(value, (str, bytes, bytearray)):
        return False  # JSON text of a chunk: decoded by the Gemini path, which says so
    return classify(value) in ("answer", "answer_query_response")


def _read_answers(events: Iterable[Item], options: _Options) -> Grounded:
    """``read`` of the ``Answer`` that the chunks of a streamed answer merge into
    (``_inputs_answer_stream.merge_answer_chunks``: each chunk a delta of the text)."""
    chunks: list[object] = []
    problems: list[Problem] = []
    for item in events:
        if isinstance(item, Truncated):
            problems.append(Problem("stream-truncated", item.message, ""))
            break
        number, value = item
        if isinstance(value, (str, bytes, bytearray)):
            value = _decode_text(number, bytes(value) if isinstance(value, bytearray) else value)
        if not _is_answer_chunk(value):
            raise StreamError("not a part of a streamed Discovery Engine answer", event=number)
        chunks.append(value)
    merged = merge_answer_chunks(chunks)
    grounded = read(
        merged, text=options.text, errors=options.errors, snap=options.snap, clamp=options.clamp
    )
    state = merged.get("state")
    if state in (None, "STREAMING", "IN_PROGRESS", "STATE_UNSPECIFIED"):
        problems.append(
            Problem(
                "stream-incomplete",
                f"the stream ended after {len(chunks)} answers, the last in state "
                f"{state or 'STATE_UNSPECIFIED'} (interrupted?): the text and citations are "
                "those that arrived",
                "answer.state",
            )
        )
    return replace(grounded, problems=[*grounded.problems, *problems])


async def aread_stream(
    stream: AsyncIterable[object] | Iterable[object],
    *,
    text: str | bytes | None = None,
    candidate: int = 0,
    snap: SpanSnap | None = None,
    clamp: bool = False,
    errors: SpanPolicy = "repair",
) -> Grounded:
    """:func:`read_stream` for an async iterable of chunks (google-genai's
    ``client.aio.models.generate_content_stream``); a sync stream is read as
    ``read_stream`` reads it.

    >>> import asyncio
    >>> async def chunks():
    ...     yield {"candidates": [{"content": {"parts": [{"text": "東京"}]}}]}
    ...     yield {"candidates": [{"content": {"parts": [{"text": "です"}]},
    ...                            "finishReason": "STOP"}]}
    >>> asyncio.run(aread_stream(chunks())).text
    '東京です'
    """
    if not isinstance(stream, AsyncIterable):
        return read_stream(
            stream, text=text, candidate=candidate, snap=snap, clamp=clamp, errors=errors
        )
    options = _Options(candidate, text, snap, clamp, errors)
    merger = Merger()
    answers: list[Item] = []
    async for item in _async_items(stream):
        if answers or (not isinstance(item, Truncated) and not merger.events
                       and _is_answer_chunk(item[1])):  # fmt: skip
            answers.append(item)
            continue
        if isinstance(item, Truncated):
            merger.truncated(item)
            break
        merger.add(item.number, item.value)
    if answers:
        return _read_answers(answers, options)
    return merger.grounded(options, final=True)


# --- The incremental reader ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Update:
    """What one chunk brought: ``text`` is the answer text it adds to the reader's
    candidate (thought parts excluded), ``texts`` the same for every candidate in the
    chunk; ``citations`` those of the reader's candidate that became available, placed
    on the whole answer; ``finished`` whether the candidate's ``finishReason`` came."""

    event: int
    text: str
    citations: list[Citation]
    texts: dict[int, str]
    finished: bool


class StreamReader:
    """Read a stream chunk by chunk, for applications that show text as it arrives.

    :meth:`feed` takes one chunk (any kind ``read_stream`` takes in an iterable) and
    returns an :class:`Update`: the new text, and the citations that became available.
    A ``citationMetadata`` citation arrives with the chunk where its span ends and is
    placed then; grounding supports (usually all in the last chunk, sometimes early)
    are placed when the candidate finishes, since their offsets may point at text that
    has not arrived yet. :meth:`grounded` is the result so far, :meth:`finish` the
    result at the end of the stream (the same as ``read_stream``).

    The work per chunk is proportional to the chunk, not to the text received before
    it; placing a citation costs the text of the fragments it spans. Only the final
    read (when the candidate finishes) goes over the whole answer.

    >>> reader = StreamReader()
    >>> reader.feed({"candidates": [{"content": {"parts": [{"text": "Ça va à "}]}}]}).text
    'Ça va à '
    >>> update = reader.feed({"candidates": [{"content": {"parts": [{"text": "Paris."}]},
    ...     "citationMetadata": {"citationSources": [
    ...         {"startIndex": 10, "endIndex": 15, "uri": "https://p.example"}]}}]})
    >>> [(c.text, c.char_start, c.sources[0].uri) for c in update.citations]
    [('Paris', 8, 'https://p.example')]
    >>> reader.finish().problems[0].code
    'stream-incomplete'
    """

    def __init__(
        self,
        *,
        candidate: int = 0,
        text: str | bytes | None = None,
        snap: SpanSnap | None = None,
        clamp: bool = False,
        errors: SpanPolicy = "repair",
    ) -> None:
        self._options = _Options(candidate, text, snap, clamp, errors)
        self._merger = Merger(track=True)
        self._reported: set[str] = set()
        self._done = False

    @property
    def events(self) -> int:
        """How many chunks were fed."""
        return self._merger.events

    def merged(self) -> dict[str, Any]:
        """The merged response so far (REST-shaped; its leaves may be the chunks' objects)."""
        return self._merger.merged()

    def feed(self, chunk: object) -> Update:
        """Merge one chunk; return what it brought.

        Raises:
            StreamError: the chunk is not a response (see ``read_stream``).
        """
        if self._done:
            raise StreamError("feed() after finish(): the stream is over")
        number = self._merger.events + 1
        index = self._options.candidate
        before = self._merger.candidates.get(index)
        was_finished = before is not None and before.finish_reason is not None
        texts: dict[int, str] = {}
        self._merger.add(number, chunk, texts)
        state = self._merger.candidates.get(index)
        finished = not was_finished and state is not None and state.finish_reason is not None
        citations: list[Citation] = []
        if state is not None and finished:
            grounded = self._merger.grounded(self._options, final=False)
            citations = [c for c in grounded.citations if c.path not in self._reported]
            self._reported.update(c.path for c in citations)
        elif state is not None and state.citation_event == number:  # citations came
            for j in range(state.chunk_first_citation, len(state.citations)):
                placed = self._place(state, j)
                if placed is not None and placed.path not in self._reported:
                    citations.append(placed)
                    self._reported.add(placed.path)
        return Update(number, texts.get(index, ""), citations, texts, finished)

    def grounded(self) -> Grounded:
        """The answer and citations so far (grounding metadata that points past the
        text received so far is left out, with a ``stream-grounding-pending`` problem)."""
        return self._merger.grounded(self._options, final=False)

    def finish(self) -> Grounded:
        """The result at the end of the stream: :meth:`grounded`, plus a
        ``stream-incomplete`` problem when the candidate never finished."""
        self._done = True
        return self._merger.grounded(self._options, final=True)

    def _place(self, state: _Candidate, j: int) -> Citation | None:
        """Citation ``j`` placed by reading only the fragments it spans."""
        item = state.citations[j]
        start = _integer(get(item, "start_index") or 0)
        end = _integer(get(item, "end_index") or 0)
        if start is None or end is None or not 0 <= start <= end <= state.bytes:
            return None  # left to the final read, which reports what is wrong
        if not state.fragments:
            return None
        first = max(bisect_right(state.byte_starts, start) - 1, 0)
        stop = max(bisect_left(state.byte_starts, end), first + 1)
        base, char_base = state.byte_starts[first], state.char_starts[first]
        window = "".join(state.fragments[first:stop])
        shifted: dict[str, Any] = {"startIndex": start - base, "endIndex": end - base}
        for name in (*_CITATION_FIELDS, "publication_date"):
            value = get(item, name)
            if value is not None:
                shifted[name] = value
        key = state.citation_name
        piece = {"candidates": [{"content": {"parts": [{"text": window}]},
                                 "citationMetadata": {key: [shifted]}}]}  # fmt: skip
        try:
            placed = self._options.read(piece, text=False).citations
        except (OffsetError, CitationError):
            return None
        if len(placed) != 1:
            return None
        c = placed[0]
        if c.char_start is None or c.char_end is None:
            return None
        name = "citation_sources" if key == "citationSources" else "citations"
        return replace(
            c,
            start=c.start + base,
            end=c.end + base,
            char_start=c.char_start + char_base,
            char_end=c.char_end + char_base,
            sources=tuple(replace(s, id=str(j)) for s in c.sources),
            path=f"{state.path}.citation_metadata.{name}[{j}]",
        )
